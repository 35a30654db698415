"""Real jobs through real launchers: torchrun (--tee) and Open MPI's mpirun (--tag-output,
--timestamp-output) start gloo workers on CPU (triage/scenarios/gloo_worker.py) of which one
chosen rank fails first; the launcher's combined output alone, one file with a name that says
nothing, must name that rank. The worker's own log format names no rank (LOG_RANK_TAG=0): the
launcher's prefixes, torch's own and the launcher's reports are all that do.

mpirun is Debian's openmpi-bin (`make openmpi`, scripts/ensure-openmpi)."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from triage.engine import diagnose
from triage.scenarios.gloo import WORKER, free_port

RUN_TIMEOUT_S = 120


def _env(mode: str, fail_rank: int) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT")}
    env.update({"OMP_NUM_THREADS": "1", "PYTHONUNBUFFERED": "1", "LOG_RANK_TAG": "0", "SCENARIO_MODE": mode,
                "FAIL_RANK": str(fail_rank), "FAIL_STEP": "3", "STEPS": "6", "PG_TIMEOUT_S": "30"})
    return env


def _run(cmd: list[str], env: dict[str, str], out: Path) -> dict[str, Any]:
    out.mkdir(parents=True)
    with (out / "job.log").open("w") as fh:
        done = subprocess.run(cmd, env=env, cwd=out, stdout=fh, stderr=subprocess.STDOUT, timeout=RUN_TIMEOUT_S,
                              check=False)
    assert done.returncode != 0, (out / "job.log").read_text()[-3000:]
    return diagnose(str(out)).to_dict()


def _mpirun() -> str:
    path = shutil.which("mpirun")
    if path is None:
        pytest.fail("Open MPI's mpirun is not installed: run `make openmpi` (scripts/ensure-openmpi)")
    return path


def _mpirun_cmd(*flags: str, nproc: int = 3) -> list[str]:
    return [_mpirun(), "--allow-run-as-root", "--oversubscribe", *flags, "-np", str(nproc),
            "-x", "MASTER_ADDR=127.0.0.1", "-x", f"MASTER_PORT={free_port()}", sys.executable, str(WORKER)]


@pytest.mark.parametrize("fail_rank", [2, 0])
def test_torchrun_tee_output_alone_names_the_rank_that_failed(tmp_path: Path, fail_rank: int) -> None:
    cmd = [sys.executable, "-m", "torch.distributed.run", "--nnodes", "1", "--nproc-per-node", "3",
           "--master-addr", "127.0.0.1", "--master-port", str(free_port()), "--max-restarts", "0", "--tee", "3",
           str(WORKER)]
    d = _run(cmd, _env("exception", fail_rank), tmp_path / "run")
    assert d["findings"][0]["cause"] == "rank_crash"
    assert d["first_failure"]["rank"] == fail_rank
    assert {r["rank"] for r in d["ranks"]} == {0, 1, 2}


@pytest.mark.parametrize("fail_rank", [1, 2])
def test_torchrun_monitored_barrier_names_the_rank_that_did_not_arrive(tmp_path: Path, fail_rank: int) -> None:
    # Rank 0 reports the straggler ('[Rank 0]: Rank N failed to pass monitoredBarrier'); the other
    # ranks then lose rank 0 ('... received errors while waiting for send/recv from rank 0').
    cmd = [sys.executable, "-m", "torch.distributed.run", "--nnodes", "1", "--nproc-per-node", "3",
           "--master-addr", "127.0.0.1", "--master-port", str(free_port()), "--max-restarts", "0", "--tee", "3",
           str(WORKER)]
    # 10 s for every rank to check in: a loaded machine may start one rank seconds after another.
    d = _run(cmd, {**_env("barrier", fail_rank), "MONITOR_S": "10"}, tmp_path / "run")
    text = (tmp_path / "run" / "job.log").read_text()
    assert f"Rank {fail_rank} failed to pass monitoredBarrier" in text, text[-3000:]
    assert d["findings"][0]["cause"] == "collective_timeout_straggler"
    assert d["first_failure"]["rank"] == fail_rank


@pytest.mark.parametrize("fail_rank", [1, 2])
def test_torchrun_collective_mismatch_names_the_rank_that_strayed(tmp_path: Path, fail_rank: int) -> None:
    # TORCH_DISTRIBUTED_DEBUG=DETAIL: each rank's check says 'Rank <self> is running ..., but Rank
    # <other> is running ...'; the two others both name the rank that called broadcast.
    cmd = [sys.executable, "-m", "torch.distributed.run", "--nnodes", "1", "--nproc-per-node", "3",
           "--master-addr", "127.0.0.1", "--master-port", str(free_port()), "--max-restarts", "0", "--tee", "3",
           str(WORKER)]
    env = {**_env("mismatch", fail_rank), "TORCH_DISTRIBUTED_DEBUG": "DETAIL"}
    d = _run(cmd, env, tmp_path / "run")
    text = (tmp_path / "run" / "job.log").read_text()
    assert "Detected mismatch between collectives" in text, text[-3000:]
    assert (d["findings"][0]["rule"], d["findings"][0]["ranks"]) == ("collective_timeout_straggler.mismatch",
                                                                      [fail_rank])
    assert d["first_failure"]["rank"] == fail_rank


@pytest.mark.parametrize("fail_rank", [1, 2])
def test_mpirun_tag_output_names_the_rank_that_failed(tmp_path: Path, fail_rank: int) -> None:
    d = _run(_mpirun_cmd("--tag-output"), _env("exception", fail_rank), tmp_path / "run")
    text = (tmp_path / "run" / "job.log").read_text()
    assert f"[1,{fail_rank}]<stderr>:" in text and "Process name: [[" in text
    assert d["findings"][0]["cause"] == "rank_crash"
    assert d["first_failure"]["rank"] == fail_rank
    assert {r["rank"] for r in d["ranks"]} == {0, 1, 2}


def test_mpirun_timestamped_tags_name_a_killed_rank_and_its_time(tmp_path: Path) -> None:
    # The killed rank prints no error of its own: its tagged lines stop, mpirun's report names it.
    d = _run(_mpirun_cmd("--tag-output", "--timestamp-output"), _env("sigkill", 2), tmp_path / "run")
    text = (tmp_path / "run" / "job.log").read_text()
    assert "noticed that process rank 2 with PID" in text
    ff = d["first_failure"]
    assert ff["rank"] == 2
    assert "[1,2]<" in ff["text"]  # its own last line, behind its tag
    assert ff["time"] is not None


@pytest.mark.parametrize("monitor_interval", ["0.1", "2"])
def test_torchrun_names_the_rank_that_crashed_before_another_ranks_wrapped_error(tmp_path: Path,
                                                                                 monitor_interval: str) -> None:
    # Rank 0 dies of SIGSEGV (faulthandler's dump carries no rank prefix); rank 1's all_reduce then
    # fails and the application raises its own RuntimeError from it, a traceback of rank 1 with no
    # time of its own. torchrun's default 0.1 s poll sees rank 0 exit and stops rank 1 (SIGTERM),
    # which may or may not have printed its error by then; its table's Root Cause is then either
    # process (an error file's time against the poll's, whole seconds). A 2 s poll lets rank 1
    # print its error and exit by itself first. Whatever the table says, rank 0 failed first.
    cmd = [sys.executable, "-m", "torch.distributed.run", "--nnodes", "1", "--nproc-per-node", "2",
           "--master-addr", "127.0.0.1", "--master-port", str(free_port()), "--max-restarts", "0", "--tee", "3",
           "--monitor-interval", monitor_interval, str(WORKER)]
    env = _env("segv", 0) | {"WRAP_ERRORS": "1", "PYTHONFAULTHANDLER": "1"}
    d = _run(cmd, env, tmp_path / "run")
    text = (tmp_path / "run" / "job.log").read_text()
    assert "Root Cause (first observed failure)" in text and "rank      : 0 (local_rank: 0)" in text
    if monitor_interval == "2":
        assert "[rank1]: RuntimeError: training failed at step 3" in text
        assert "The above exception was the direct cause of the following exception" in text
    assert d["findings"][0]["cause"] == "rank_crash"
    assert d["first_failure"]["rank"] == 0
