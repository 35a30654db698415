"""`smoke`: real 2-process gloo all-reduce on this machine, a failing rank, and the upload."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def smoke(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "collectors", "smoke", "--size-mb", "1", "--iters", "3",
                           "--timeout", "60", *args], cwd=REPO, capture_output=True, text=True, timeout=180,
                          env={**os.environ, "OMP_NUM_THREADS": "1", **(env or {})}, check=False)


def test_two_gloo_ranks_pass_and_report_bus_bandwidth_and_the_result_is_uploaded(api_server, spool_dir):
    out = smoke("--json", "--upload", "--server", api_server.url, "--token", "test-token")
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)                       # --json keeps stdout a single document
    assert f"uploaded: {api_server.url}/incidents/1/" in out.stderr
    assert result["schema"] == "nccl-triage/smoke@1"
    assert (result["backend"], result["world_size"], result["ok"]) == ("gloo", 2, True)
    assert [r["rank"] for r in result["ranks"]] == [0, 1]
    assert all(r["ok"] and r["error"] is None and r["seconds"] > 0 for r in result["ranks"])
    assert result["busbw_gbps"] > 0
    # AllReduce bus bandwidth = algbw * 2(n-1)/n, which is algbw itself for n = 2.
    assert abs(result["busbw_gbps"] - result["algbw_gbps"] * 2 * (2 - 1) / 2) < 0.01
    for r in result["ranks"]:
        assert abs(r["busbw_gbps"] - r["algbw_gbps"]) < 1e-9

    [got] = api_server.received
    host = result["host"]
    assert got.fields == {"job": f"smoke-{host}", "host": host}
    files = {f["path"]: f for f in got.manifest()["files"]}
    assert files["smoke.json"]["kind"] == "smoke"
    assert files["snapshot.json"]["kind"] == "snapshot"
    assert files["smoke-rank1.log"] == {"path": "smoke-rank1.log", "kind": "log", "rank": 1}
    assert json.loads(got.members()["smoke.json"])["ok"] is True


def test_a_failing_rank_turns_the_check_red(spool_dir):
    out = smoke("--json", env={"NCCL_TRIAGE_SMOKE_FAIL_RANK": "1"})
    assert out.returncode == 1
    result = json.loads(out.stdout)
    assert result["ok"] is False and result["busbw_gbps"] is None
    rank0, rank1 = result["ranks"]
    assert rank1["ok"] is False and "injected failure on rank 1" in rank1["error"]
    assert rank0["ok"] is False and rank0["error"]       # its peer vanished mid all-reduce


def test_the_human_table_names_each_rank_and_the_verdict():
    out = smoke("--nproc", "2", "--backend", "gloo")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("nccl-triage smoke: host ") and "backend gloo, world size 2" in lines[0]
    assert lines[2].split()[:2] == ["0", "yes"] and lines[3].split()[:2] == ["1", "yes"]
    assert lines[-1].startswith("RESULT: OK, bus bandwidth ")
