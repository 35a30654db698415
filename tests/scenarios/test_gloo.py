"""Real gloo jobs (torchrun on CPU) fail the way we asked, and the bundle keeps what they printed."""
from __future__ import annotations

import json
import re

import pytest


def bundle_text(bundle) -> str:
    return "\n".join(p.read_text(encoding="utf-8", errors="replace") for p in sorted(bundle.rglob("*")) if p.is_file())


@pytest.mark.parametrize("name", ["exception", "sigkill", "rendezvous"])
def test_bundle_is_well_formed(gloo_runs, name):
    run = gloo_runs[name]
    assert run.returncode != 0
    expected = json.loads((run.bundle / "expected.json").read_text())
    host_dir = run.bundle / expected["host"]
    manifest = json.loads((host_dir / "manifest.json").read_text())
    assert manifest["schema"] == "nccl-triage/manifest@1"
    assert manifest["files"] and all((host_dir / f["path"]).is_file() for f in manifest["files"])
    assert {f["rank"] for f in manifest["files"] if "rank" in f} >= {0, 1}


def test_exception_run(gloo_runs):
    run = gloo_runs["exception"]
    text = bundle_text(run.bundle)
    assert "ValueError: loss is NaN at step 3 (injected failure on rank 1)" in text
    host = json.loads((run.bundle / "expected.json").read_text())["host"]
    stderr1 = (run.bundle / host / "logs" / "rank1.stderr.log").read_text()
    assert "ValueError: loss is NaN" in stderr1
    err = json.loads((run.bundle / host / "elastic" / "error-1.json").read_text())
    assert err["message"]["message"].startswith("ValueError: loss is NaN")
    assert err["message"]["extraInfo"]["timestamp"].isdigit()
    # The survivors were in all_reduce: gloo tells them the peer went away.
    assert "Connection closed by peer" in text
    root = run.output.split("Root Cause (first observed failure):", 1)[1]
    assert "rank      : 1 (local_rank: 1)" in root and "exitcode  : 1 (pid:" in root
    assert "ChildFailedError" in run.output


def test_sigkill_run(gloo_runs):
    run = gloo_runs["sigkill"]
    # torchrun's "Root Cause" is the first failure the agent *observed*; under load a survivor's
    # error file can be stamped first, so rank 2 may sit in either section of the block.
    block = run.output.split("ChildFailedError", 1)[1]
    assert "rank      : 2 (local_rank: 2)\n  exitcode  : -9 (pid:" in block
    assert "Signal 9 (SIGKILL) received by PID" in block
    # The agent logs "failed (exitcode: N) local_rank: R" for the failure it observed first only:
    # rank 2's SIGKILL, or a survivor that lost its peer or was stopped (-15) by then.
    assert re.search(r"failed \(exitcode: -?\d+\) local_rank: [0-2] \(pid: \d+\)", run.output)


def test_rendezvous_run(gloo_runs):
    run = gloo_runs["rendezvous"]
    text = bundle_text(run.bundle)
    assert "DistStoreError: Timed out after" in text
    assert "2/3 clients joined." in text


def test_a_run_whose_launcher_crashed_is_told_from_a_failed_run():
    # torchrun raises its failure report after failed workers; a traceback without it is its own
    # crash (it read an error file mid-write), and the run is made again, not kept as the scenario.
    from triage.scenarios.gloo import _launcher_crashed

    failed = ("[default1]:Traceback (most recent call last):\n[default1]:ValueError: loss is NaN\n"
              "Traceback (most recent call last):\n  File \"run.py\", line 9\n"
              "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n")
    crashed = ("Traceback (most recent call last):\n  File \"torch/distributed/elastic/multiprocessing/"
               "errors/__init__.py\", line 123, in __post_init__\n"
               "json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)\n")
    assert not _launcher_crashed(failed)
    assert _launcher_crashed(crashed)
    assert not _launcher_crashed("")
