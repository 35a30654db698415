"""Parsing in parts: a large bundle read in parts by real Celery workers concludes to the verdict
of reading it whole; a redelivered part is not read twice; a job whose nodes upload one by one
reads each bundle once, and the page says how many nodes have reported."""
from __future__ import annotations

import tarfile
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from tests.api.test_worker import Worker, upload, wait_for, worker  # noqa: F401  (the real worker fixture)
from tests.conftest import join_team
from triage.engine import diagnose
from triage.fanout.models import BundlePart
from triage.fanout.services import bundle_part_parse
from triage.incidents.models import Incident
from triage.scenarios import build, build_scale


def _same_verdict(stored: dict[str, Any], whole: dict[str, Any]) -> None:
    assert [f["rule"] for f in stored["findings"]] == [f["rule"] for f in whole["findings"]]
    assert stored["first_failure"] == whole["first_failure"]
    assert stored["ranks"] == whole["ranks"]


def _tar(folder: Path, out: Path, arcname: str | None = None) -> Path:
    with tarfile.open(out, "w") as tar:
        tar.add(folder, arcname=arcname or folder.name)
    return out


@pytest.fixture
def big_bundle(tmp_path: Path) -> Path:
    """A 16-rank rank_crash bundle of about 11 MB: several parts at 2 MiB a part."""
    folder = build_scale(tmp_path / "scale", ranks=16, hosts=4, events_per_rank=4_000, seed=3)
    return _tar(folder, tmp_path / "scale.tar")


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_real_workers_read_a_bundle_in_parts_and_conclude_to_the_whole_verdict(
    client: Client, api_token: str, worker: Worker, big_bundle: Path, tmp_path: Path,  # noqa: F811
) -> None:
    worker.env["TRIAGE_PARSE_PART_MB"] = "2"
    (tmp_path / "second").mkdir()
    second = Worker(worker.env, tmp_path / "second")  # two worker processes share the parts
    worker.start()
    second.start()
    try:
        created = upload(client, api_token, big_bundle, job="parts-1")
        # Generous: two worker processes on a shared 2-core machine.
        body = wait_for(client, api_token, created["api"], {"ready", "failed"}, worker, timeout=240)
    finally:
        second.kill()
    assert body["status"] == "ready", body["error"]

    incident = Incident.objects.get(pk=created["incident"])
    parts = list(BundlePart.objects.filter(bundle__incident=incident))
    assert len(parts) >= 3 and {p.of for p in parts} == {len(parts)}
    assert all(p.state is not None for p in parts)
    # Every member read by exactly one part.
    members = [m for p in parts for m in p.members]
    assert len(members) == len(set(members))
    bundle = incident.bundles.get()
    whole = diagnose([(bundle.label, bundle.file.path)]).to_dict()
    assert sorted(members) == sorted(s["name"] for s in whole["sources"])
    _same_verdict(incident.diagnosis.data, whole)
    assert incident.diagnosis.data["findings"][0]["cause"] == "rank_crash"


@pytest.mark.django_db
def test_a_redelivered_part_is_not_read_again(
    settings: Any, media_root: Path, big_bundle: Path, api_token: str, client: Client,
    django_capture_on_commit_callbacks: Any,
) -> None:
    settings.TRIAGE_PARSE_PART_BYTES = 2 * 1024 * 1024
    with django_capture_on_commit_callbacks(execute=True):
        created = upload(client, api_token, big_bundle, job="parts-2")
    incident = Incident.objects.get(pk=created["incident"])
    assert incident.status == Incident.Status.READY, incident.error
    part = BundlePart.objects.filter(bundle__incident=incident).first()
    before = (bytes(part.state), part.parsed_at)
    verdict = incident.diagnosis.data["findings"][0]["rule"]

    bundle_part_parse(part_id=part.pk)  # the broker delivers the same part again
    part.refresh_from_db()
    assert (bytes(part.state), part.parsed_at) == before
    incident.refresh_from_db()
    assert incident.status == Incident.Status.READY
    assert incident.diagnosis.data["findings"][0]["rule"] == verdict


@pytest.mark.django_db
def test_nodes_uploading_one_by_one_are_each_read_once_and_the_page_counts_them(
    settings: Any, media_root: Path, tmp_path: Path, api_token: str, client: Client,
    django_capture_on_commit_callbacks: Any, django_user_model: Any,
) -> None:
    folder = build("rank_crash", tmp_path / "job", seed=1)
    hosts = sorted(p.name for p in folder.iterdir() if p.is_dir())
    assert len(hosts) >= 2
    parsed_at: dict[str, Any] = {}
    for n, host in enumerate(hosts, start=1):
        archive = _tar(folder / host, tmp_path / f"{host}.tar", arcname=host)
        with django_capture_on_commit_callbacks(execute=True):
            created = upload(client, api_token, archive, job="parts-3", host=host)
        incident = Incident.objects.get(pk=created["incident"])
        assert incident.status == Incident.Status.READY, incident.error
        parts = {p.bundle.host: p for p in BundlePart.objects.select_related("bundle").filter(bundle__incident=incident)}
        assert len(parts) == n  # small bundles: one part each
        for earlier, when in parsed_at.items():
            assert parts[earlier].parsed_at == when, f"{earlier} was read again"
        parsed_at[host] = parts[host].parsed_at

    bundles = list(incident.bundles.all())
    whole = diagnose([(b.label, b.file.path) for b in bundles]).to_dict()
    _same_verdict(incident.diagnosis.data, whole)
    assert whole["findings"][0]["cause"] == "rank_crash"

    client.force_login(join_team(django_user_model.objects.create_user("sre")))
    page = client.get(f"/incidents/{incident.pk}/")
    assert f'<span id="nodes-reported">{len(hosts)} nodes reported</span>' in page.content.decode()
