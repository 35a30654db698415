"""The fleet end to end: real uploads through the API, a real Celery worker over the real Redis
and PostgreSQL, and a real HTTP receiver for the webhooks."""
from __future__ import annotations

import hashlib
import hmac
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from tests.api.test_worker import Worker, upload, wait_for
from tests.conftest import join_team
from triage.accounts.services import team_default
from triage.fleet.models import Delivery, Occurrence, Problem, WanderFlag
from triage.fleet.services import problem_resolve, webhook_add

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def eventually(check: Callable[[], Any], worker: Worker, timeout: float = 60) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"not reached within {timeout} s; worker log:\n{worker.output()}")
        time.sleep(0.1)


def diagnosed(client: Client, token: str, worker: Worker, bundle: Path, **fields: str) -> str:
    created = upload(client, token, bundle, **fields)
    body = wait_for(client, token, created["api"], {"ready", "failed"}, worker)
    assert body["status"] == "ready", body["error"]
    return str(created["incident"])


def test_three_incidents_on_one_gpu_are_one_problem_the_host_is_drained_and_webhooks_are_signed_and_retried(
    client: Client, api_token: str, worker: Worker, scenario_bundle: Callable[[str, int], Path], receiver: Any,
) -> None:
    webhook_add(team=team_default(), url=receiver.url, secret="shared-secret")
    receiver.fail_first = 1  # the very first POST is answered 500 and must be tried again
    worker.start()
    # Xid 79 on node-b GPU 3, three distinct failures (three days): three incidents for drain.
    ids = [diagnosed(client, api_token, worker, scenario_bundle("hardware_fault", 0, day), job=f"llm-pretrain-{n}")
           for n, day in enumerate((1, 3, 5))]
    eventually(lambda: Occurrence.objects.filter(pk__in=ids).count() == 3, worker)

    problem = Problem.objects.get()
    assert problem.count == 3 and problem.cause == "hardware_fault" and problem.host == "node-b"
    assert problem.gpu.startswith("uuid:GPU-") and "GPU 3" in problem.gpu_label
    assert "culprit host node-b" in problem.grouped_because and "Xid 79" in problem.grouped_because
    assert set(problem.occurrences.values_list("incident_id", flat=True)) == set(ids)

    auth = {"Authorization": f"Bearer {api_token}"}
    host = client.get("/api/v1/hosts/node-b", headers=auth).json()
    assert host["host"] == "node-b" and host["incidents"] == 3 and host["health"] is None
    assert host["drain"]["recommended"] is True
    assert "GPU 3" in host["drain"]["reason"] and "Xid 79" in host["drain"]["reason"]
    assert client.get("/api/v1/hosts/node-a", headers=auth).json()["drain"] == {
        "recommended": False, "reason": "", "action": None, "commands": None}

    # Webhooks: every event reached the receiver, signed with the webhook's secret.
    eventually(lambda: "host.drain_recommended" in receiver.events(), worker)
    eventually(lambda: not Delivery.objects.filter(status=Delivery.Status.PENDING).exists(), worker)
    events = receiver.events()
    assert events.count("incident.ready") >= 3 and events.count("problem.new") == 1
    assert events.count("host.drain_recommended") == 1
    for hit in receiver.hits:
        expected = "sha256=" + hmac.new(b"shared-secret", hit.body, hashlib.sha256).hexdigest()
        assert hmac.compare_digest(hit.headers["X-Triage-Signature"], expected)
    first = receiver.hits[0]
    assert first.status == 500
    retried = [h for h in receiver.hits[1:] if h.headers["X-Triage-Delivery"] == first.headers["X-Triage-Delivery"]]
    assert [h.status for h in retried] == [200] and retried[0].body == first.body
    delivery = Delivery.objects.get(pk=int(first.headers["X-Triage-Delivery"]))
    assert (delivery.status, delivery.attempts, delivery.response_code) == ("delivered", 2, 200)
    drain_hit = next(h for h in receiver.hits if h.headers["X-Triage-Event"] == "host.drain_recommended")
    assert drain_hit.json()["data"]["host"] == "node-b"

    # Resolved, then the same fault again: the problem reopens as a regression.
    problem_resolve(problem=problem)
    ids.append(diagnosed(client, api_token, worker, scenario_bundle("hardware_fault", 0, 7), job="llm-pretrain-3"))
    eventually(lambda: Problem.objects.get(pk=problem.pk).regression, worker)
    problem.refresh_from_db()
    assert problem.status == "open" and problem.count == 4
    eventually(lambda: "problem.regression" in receiver.events(), worker)


def test_one_bundle_uploaded_three_times_is_one_failure_not_a_drain(
    client: Client, api_token: str, worker: Worker, scenario_bundle: Callable[[str, int], Path], tmp_path: Path,
    django_user_model: Any,
) -> None:
    """The same bundle sent again (same sha256), and again repacked under another name (same
    first-failure line and time on the same host): linked to the first incident, counted once."""
    import shutil
    import tarfile
    import zipfile

    worker.start()
    bundle = scenario_bundle("hardware_fault", 0, 2)
    unpacked = tmp_path / "unpacked"
    with tarfile.open(bundle) as tar:
        tar.extractall(unpacked, filter="data")
    repacked = tmp_path / "qz7-upload.zip"
    with zipfile.ZipFile(repacked, "w") as z:
        for p in sorted(unpacked.rglob("*")):
            if p.is_file() and p.name != "expected.json":
                z.write(p, p.relative_to(unpacked).as_posix())
    again = tmp_path / "x.tgz"
    shutil.copyfile(bundle, again)
    ids = [diagnosed(client, api_token, worker, path, job=f"retry-{n}") for n, path in enumerate((bundle, again, repacked))]
    eventually(lambda: Occurrence.objects.filter(pk__in=ids).count() == 3, worker)

    occurrences = {o.incident_id: o for o in Occurrence.objects.filter(pk__in=ids)}
    assert occurrences[ids[0]].duplicate_of_id is None
    assert occurrences[ids[1]].duplicate_of_id == ids[0] and occurrences[ids[2]].duplicate_of_id == ids[0]
    assert {o.host for o in occurrences.values()} == {"node-b"}  # never "x" or "qz7-upload"
    assert Problem.objects.get().count == 1
    auth = {"Authorization": f"Bearer {api_token}"}
    host = client.get("/api/v1/hosts/node-b", headers=auth).json()
    assert host["incidents"] == 1 and host["drain"]["recommended"] is False
    for name in ("x", "qz7-upload"):
        assert client.get(f"/api/v1/hosts/{name}", headers=auth).json()["incidents"] == 0

    client.force_login(join_team(django_user_model.objects.create_user("sre")))
    assert "Uploaded 3 times" in client.get(f"/incidents/{ids[0]}/").content.decode()
    copy = client.get(f"/incidents/{ids[1]}/").content.decode()
    assert "The same failure as incident" in copy and f"/incidents/{ids[0]}/" in copy

    # A third distinct failure of that GPU after two more: now it is drained.
    for day in (4, 6):
        ids.append(diagnosed(client, api_token, worker, scenario_bundle("hardware_fault", 0, day), job=f"later-{day}"))
    eventually(lambda: client.get("/api/v1/hosts/node-b", headers=auth).json()["drain"]["recommended"], worker)
    assert client.get("/api/v1/hosts/node-b", headers=auth).json()["incidents"] == 3


def test_one_job_failing_on_four_different_hosts_raises_the_wander_flag(
    client: Client, api_token: str, worker: Worker, scenario_bundle: Callable[[str, int], Path],
    django_user_model: Any,
) -> None:
    worker.start()
    # NET/IB completion errors on mlx5_0, each time on another host: node-b, trn-189, hgx-h100-040, gpu-001.
    ids = [diagnosed(client, api_token, worker, scenario_bundle("network", seed), job=f"pretrain-70b_{n}")
           for n, seed in enumerate((0, 2, 4, 6), start=1)]
    eventually(lambda: Occurrence.objects.filter(pk__in=ids, wander__isnull=False).count() == 4, worker)

    flag = WanderFlag.objects.get(job_family="pretrain-70b")
    assert flag.active and flag.scope == "job pretrain-70b"
    assert sorted(flag.evidence["hosts"]) == ["gpu-001", "hgx-h100-040", "node-b", "trn-189"]
    assert "same NCCL transport NET/IB" in flag.evidence["shared"]
    assert any(s.startswith("same message family") for s in flag.evidence["shared"])
    # The same fabric error all over one cluster (the collectors' token) is flagged on its own too.
    cluster = WanderFlag.objects.get(label__startswith="cluster test-collector, message family")
    assert cluster.active and sorted(cluster.evidence["hosts"]) == sorted(flag.evidence["hosts"])
    assert Occurrence.objects.filter(pk__in=ids, cluster_wander=cluster).count() == 4
    # Each host was the culprit once: nobody is drained for it.
    auth = {"Authorization": f"Bearer {api_token}"}
    assert not any(client.get(f"/api/v1/hosts/{h}", headers=auth).json()["drain"]["recommended"]
                   for h in flag.evidence["hosts"])

    client.force_login(join_team(django_user_model.objects.create_user("sre")))
    page = client.get(f"/incidents/{ids[0]}/").content.decode()
    assert "failures wander across nodes: review the interconnect / topology" in page
    fleet = client.get("/fleet/").content.decode()
    assert "failures wander across nodes" in fleet and "pretrain-70b" in fleet
    problem = Problem.objects.get(occurrences__incident_id=ids[0])
    assert "failures wander across nodes" in client.get(f"/fleet/problems/{problem.pk}/").content.decode()


def _xid_job(pid: int, uptime: str) -> dict[str, str]:
    """One node, four ranks (dgx-b12, GPUs on buses 1b, 2c, 3d, 4e), and a kernel log whose Xid 79
    on bus 3d has only the kernel's uptime: no wall time, no snapshot to place it."""
    files = {}
    for r, bus in enumerate(("1b", "2c", "3d", "4e")):
        files[f"train{r}.log"] = (
            f"dgx-b12:{pid - 2 + r}:{pid + 78 + r} [{r}] NCCL INFO ncclCommInitRank comm 0x1 rank {r} nranks 4 "
            f"cudaDev {r} nvmlDev {r} busId {bus}000 commId 0x1 - Init COMPLETE\n")
    files["dmesg.txt"] = f"[{uptime}] NVRM: Xid (PCI:0000:3d:00): 79, pid={pid}, name=python, GPU has fallen off the bus.\n"
    return files


def _pack(path: Path, files: dict[str, str], names: list[str], top: str = "") -> Path:
    """`files` under other names (`names`, in order) as a .zip or a .tar.gz by `path`'s suffix."""
    import io
    import tarfile
    import zipfile

    renamed = {f"{top}{new}": text.encode() for new, text in zip(names, files.values(), strict=True)}
    if path.suffix == ".zip":
        with zipfile.ZipFile(path, "w") as z:
            for name, data in renamed.items():
                z.writestr(name, data)
    else:
        with tarfile.open(path, "w:gz") as tar:
            for name, data in renamed.items():
                info = tarfile.TarInfo(name)
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
    return path


def test_one_failure_under_any_archive_names_and_formats_counts_once(
    client: Client, api_token: str, worker: Worker, tmp_path: Path,
) -> None:
    """The same Xid 79 (no wall time in the bundle) uploaded as q7.tgz, zz41.zip and a9f3.tar.gz,
    every file named differently each time: no two archives share a byte, yet it is one failure
    (the host, GPU, process and line of the failure); a second failure of that GPU (another run:
    another pid and uptime) counts again."""
    worker.start()
    job = _xid_job(7712, " 6120.400000")
    uploads = [
        _pack(tmp_path / "q7.tgz", job, ["train0.log", "train1.log", "train2.log", "train3.log", "dmesg.txt"], "node/"),
        _pack(tmp_path / "zz41.zip", job, ["k1", "b7", "z0", "q", "p2.txt"]),
        _pack(tmp_path / "a9f3.tar.gz", job, ["x/rank3.log", "y/rank2.log", "z/rank0.log", "w.log", "node-b/kern"]),
    ]
    ids = [diagnosed(client, api_token, worker, path) for path in uploads]
    eventually(lambda: Occurrence.objects.filter(pk__in=ids).count() == 3, worker)
    occurrences = {o.incident_id: o for o in Occurrence.objects.filter(pk__in=ids)}
    assert {(o.host, o.cause) for o in occurrences.values()} == {("dgx-b12", "hardware_fault")}
    assert occurrences[ids[0]].failure_key != ""
    assert occurrences[ids[0]].duplicate_of_id is None
    assert [occurrences[i].duplicate_of_id for i in ids[1:]] == [ids[0], ids[0]]
    assert Problem.objects.get().count == 1
    auth = {"Authorization": f"Bearer {api_token}"}
    host = client.get("/api/v1/hosts/dgx-b12", headers=auth).json()
    assert host["incidents"] == 1 and host["drain"]["recommended"] is False, host

    # Two more failures of that GPU (new runs: new pids, later uptimes): three, now drained.
    for n, (pid, uptime) in enumerate(((9121, " 9312.100000"), (11020, "12011.700000"))):
        ids.append(diagnosed(client, api_token, worker, _pack(tmp_path / f"later{n}.zip", _xid_job(pid, uptime),
                                                               ["a", "b", "c", "d", "e"])))
    eventually(lambda: client.get("/api/v1/hosts/dgx-b12", headers=auth).json()["drain"]["recommended"], worker)
    host = client.get("/api/v1/hosts/dgx-b12", headers=auth).json()
    assert host["incidents"] == 3 and "Xid 79" in host["drain"]["reason"], host
