"""`upload`: bundle + manifest, streamed to a real HTTP server; retries, spool, and the next run."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from api_server import ApiServer, free_port

from collectors.upload import RetryPolicy, ServerUnreachable, Spool, deliver, send_with_retries

REPO = Path(__file__).resolve().parents[2]

NCCL_LINES = (
    "[2026-12-01 14:20:01.000001] node-b:4242:4242 [1] NCCL INFO Bootstrap : Using eth0:10.0.0.12<0>\n"
    "[2026-12-01 14:20:02.000001] node-b:4242:4250 [1] NCCL INFO ncclCommInitRank comm 0x55d0 rank 1 nranks 2 "
    "cudaDev 1 nvmlDev 1 busId 3b000 commId 0xabc - Init COMPLETE\n"
)


def make_job_folder(root: Path) -> Path:
    d = root / "job"
    (d / "fr").mkdir(parents=True)
    (d / "rank0.log").write_text("[rank0]: step 1\n")
    (d / "rank1.log").write_text("[rank1]: Traceback (most recent call last):\n[rank1]: RuntimeError: boom\n")
    (d / "nccl-node-b.4242.log").write_text(NCCL_LINES)
    (d / "snapshot.json").write_text(json.dumps({"schema": "nccl-triage/snapshot@1", "host": {"hostname": "node-b"}}))
    (d / "nvml-samples.jsonl").write_text(
        '{"time": "2026-12-01T14:21:55Z", "host": "node-b", "gpu": 0, "util": 0, "mem_used": 1, "mem_total": 2}\n')
    (d / "dmesg.txt").write_text("[  812.123456] NVRM: Xid (PCI:0000:3b:00): 79, pid=4242, name=python, GPU has fallen off the bus.\n")
    (d / "error.json").write_text(json.dumps({"message": {"message": "RuntimeError: boom",
                                                          "extraInfo": {"py_callstack": "...", "timestamp": "1"}}}))
    (d / "fr" / "nccl_trace_rank_1").write_bytes(b"\x80\x02}q\x00.")   # a pickle's first bytes
    return d


def upload_cli(server: str, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "collectors", "upload", "--server", server, "--token", "test-token",
         "--backoff", "0.01", *args],
        cwd=REPO, capture_output=True, text=True, timeout=120, env={**os.environ, **(env or {})}, check=False)


def test_it_uploads_a_folder_with_a_manifest_naming_each_files_rank(api_server, spool_dir, tmp_path):
    job = make_job_folder(tmp_path)
    out = upload_cli(api_server.url, "--job", "slurm-81723", "--host", "node-b", "--no-snapshot", str(job))
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == f"{api_server.url}/incidents/1/"
    [got] = api_server.received
    assert got.fields == {"job": "slurm-81723", "host": "node-b"}
    man = got.manifest()
    assert (man["schema"], man["job"], man["host"]) == ("nccl-triage/manifest@1", "slurm-81723", "node-b")
    by_path = {f["path"]: f for f in man["files"]}
    # A name a person chose says no rank: the manifest's rank would apply to every line of it.
    assert by_path["job/rank1.log"] == {"path": "job/rank1.log", "kind": "log"}
    assert "rank" not in by_path["job/rank0.log"]
    assert by_path["job/nccl-node-b.4242.log"] == {"path": "job/nccl-node-b.4242.log", "kind": "nccl_debug",
                                                   "pid": 4242, "rank": 1}
    assert by_path["job/snapshot.json"]["kind"] == "snapshot"
    assert by_path["job/nvml-samples.jsonl"]["kind"] == "nvml_samples"
    assert by_path["job/dmesg.txt"]["kind"] == "kernel_log"
    assert by_path["job/error.json"]["kind"] == "elastic_error"
    assert by_path["job/fr/nccl_trace_rank_1"] == {"path": "job/fr/nccl_trace_rank_1", "kind": "flight_recorder", "rank": 1}
    members = got.members()
    for f in man["files"]:
        assert members[f["path"]] == (tmp_path / f["path"]).read_bytes(), f["path"]
    assert list(members)[0] == "manifest.json"


def test_it_adds_a_fresh_snapshot_of_this_node_unless_one_is_given(api_server, spool_dir, tmp_path):
    log = tmp_path / "rank0.log"
    log.write_text("hello\n")
    out = upload_cli(api_server.url, "--job", "j1", str(log))
    assert out.returncode == 0, out.stderr
    members = api_server.received[0].members()
    snap = json.loads(members["snapshot.json"])
    assert snap["schema"] == "nccl-triage/snapshot@1"
    assert snap["nvml"]["available"] is False


def test_it_streams_a_large_bundle_intact(api_server, spool_dir, tmp_path):
    big = tmp_path / "rank0.log"
    big.write_bytes(os.urandom(3 * 1024 * 1024))   # incompressible: the request body is > 3 MiB
    out = upload_cli(api_server.url, "--job", "big", "--no-snapshot", str(big))
    assert out.returncode == 0, out.stderr
    got = api_server.received[0]
    assert got.content_length > 3 * 1024 * 1024
    assert got.members()["rank0.log"] == big.read_bytes()


def test_it_retries_a_server_that_answers_503_then_accepts(spool_dir, tmp_path):
    server = ApiServer(fail_first=2).start()
    try:
        out = upload_cli(server.url, "--job", "j", "--no-snapshot", str(make_job_folder(tmp_path)))
    finally:
        server.stop()
    assert out.returncode == 0, out.stderr
    assert server.requests == 3
    assert len(server.received) == 1
    assert out.stderr.count("retrying") == 2
    assert not spool_dir.exists() or not list(spool_dir.iterdir())


def test_it_reaches_a_server_that_comes_up_while_it_retries(spool_dir, tmp_path):
    server = ApiServer()                      # port chosen, nothing listening yet
    timer = threading.Timer(0.5, server.start)
    timer.start()
    try:
        out = upload_cli(server.url, "--job", "late", "--retries", "8", "--backoff", "0.2",
                         "--no-snapshot", str(make_job_folder(tmp_path)))
    finally:
        timer.join()
        server.stop()
    assert out.returncode == 0, out.stderr
    assert "retrying" in out.stderr
    assert [r.fields["job"] for r in server.received] == ["late"]


def test_a_server_that_stays_down_gets_the_bundle_spooled_then_sent_by_the_next_run(spool_dir, tmp_path):
    port = free_port()
    down = f"http://127.0.0.1:{port}"
    first = upload_cli(down, "--job", "j-first", "--host", "node-b", "--retries", "3", "--no-snapshot",
                       str(make_job_folder(tmp_path)))
    assert first.returncode == 3, first.stderr
    assert "spooled" in first.stderr
    spooled = sorted(p.name for p in spool_dir.iterdir())
    assert len(spooled) == 2 and spooled[0].endswith(".json") and spooled[1].endswith(".tar.gz")
    sidecar = (spool_dir / spooled[0]).read_text()
    assert "test-token" not in sidecar, "the token must never be written to disk"
    assert json.loads(sidecar)["server"] == down

    server = ApiServer(port=port).start()     # the server comes up
    try:
        second_log = tmp_path / "rank3.log"
        second_log.write_text("second\n")
        second = upload_cli(down, "--job", "j-second", "--host", "node-b", "--no-snapshot", str(second_log))
    finally:
        server.stop()
    assert second.returncode == 0, second.stderr
    assert [r.fields["job"] for r in server.received] == ["j-second", "j-first"]
    first_bundle = server.received[1]
    assert first_bundle.fields["host"] == "node-b"
    assert {f["path"] for f in first_bundle.manifest()["files"]} >= {"job/rank1.log", "job/fr/nccl_trace_rank_1"}
    assert list(spool_dir.iterdir()) == []


def test_a_rejected_token_is_not_retried_nor_spooled(api_server, spool_dir, tmp_path):
    log = tmp_path / "rank0.log"
    log.write_text("x\n")
    out = subprocess.run([sys.executable, "-m", "collectors", "upload", "--server", api_server.url,
                          "--token", "wrong", "--job", "j", "--no-snapshot", str(log)],
                         cwd=REPO, capture_output=True, text=True, timeout=60, check=False)
    assert out.returncode == 2
    assert "HTTP 401" in out.stderr
    assert api_server.requests == 1
    assert not spool_dir.exists() or not list(spool_dir.iterdir())


def test_backoff_is_exponential_with_jitter_and_bounded(tmp_path):
    bundle = tmp_path / "b.tar.gz"
    bundle.write_bytes(b"x")
    waits: list[float] = []
    policy = RetryPolicy(attempts=5, base_delay=1.0, max_delay=5.0, timeout=2)
    with pytest.raises(ServerUnreachable):
        send_with_retries(f"http://127.0.0.1:{free_port()}", "t", bundle, job="j", host="h",
                          policy=policy, log=lambda m: None, sleep=waits.append)
    assert len(waits) == 4                        # no wait after the last attempt
    for k, w in enumerate(waits):
        assert 0 <= w <= min(5.0, 2 ** k)
    many = [policy.delay(3) for _ in range(200)]
    assert max(many) <= 5.0 and len(set(many)) > 100, "jittered, capped"


def test_deliver_flushes_only_bundles_spooled_for_the_same_server(tmp_path):
    spool = Spool(tmp_path / "spool")
    b = tmp_path / "b.tar.gz"
    b.write_bytes(b"not really a tarball")
    spool.put(b, server="http://elsewhere:1", job="other", host="h")
    server = ApiServer().start()
    try:
        spool.put(b, server=server.url + "/", job="mine", host="h")
        out = deliver(b, server=server.url, token="test-token", job="now", host="h", spool=spool,
                      policy=RetryPolicy(attempts=1), log=lambda m: None)
    finally:
        server.stop()
    assert out.ok and out.url == f"{server.url}/incidents/1/"
    assert [r.fields["job"] for r in server.received] == ["now", "mine"]
    assert [m["job"] for _, m in spool.pending("http://elsewhere:1")] == ["other"]
