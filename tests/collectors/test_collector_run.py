"""`run`: a real wrapped subprocess, real signals, a real 2-rank torchrun (gloo) job."""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from api_server import free_port

from collectors.run import elastic_error_ranks

REPO = Path(__file__).resolve().parents[2]
PY = sys.executable


def run_cli(*args: str, env: dict[str, str] | None = None, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    return subprocess.run([PY, "-m", "collectors", "run", *args], cwd=REPO, capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, **(env or {})}, check=False)


def test_a_failing_command_keeps_its_exit_code_and_its_bundle_is_uploaded(api_server, spool_dir, tmp_path):
    script = "import sys; print('step 1 ok'); print('boom', file=sys.stderr); sys.exit(7)"
    out = run_cli("--server", api_server.url, "--token", "test-token", "--job", "job-7", "--host", "node-a",
                  "--workdir", str(tmp_path / "w"),
                  "--sample-interval", "0.1", "--", PY, "-c", script)
    assert out.returncode == 7
    assert out.stdout == "step 1 ok\n"                     # tee: the user still sees the output
    assert "boom" in out.stderr
    assert f"incident: {api_server.url}/incidents/1/" in out.stderr
    [got] = api_server.received
    assert got.fields == {"job": "job-7", "host": "node-a"}
    members = got.members()
    # stdout and stderr come through two pipes: each keeps its order, not their interleaving.
    assert sorted(members["output.log"].decode().splitlines()) == ["boom", "step 1 ok"]
    kinds = {f["path"]: f["kind"] for f in got.manifest()["files"]}
    assert kinds["output.log"] == "log"
    assert kinds["snapshot.json"] == "snapshot"
    snap = json.loads(members["snapshot.json"])
    assert snap["env"]["NCCL_DEBUG"] == "INFO"          # the snapshot shows what the job ran with
    assert snap["nvml"]["available"] is False


def test_a_successful_command_uploads_nothing_and_cleans_up(api_server, spool_dir):
    out = run_cli("--server", api_server.url, "--token", "test-token", "--", PY, "-c", "print('fine')")
    assert out.returncode == 0
    assert out.stdout == "fine\n"
    assert api_server.requests == 0
    workdir = re.search(r"collecting into (\S+)", out.stderr)[1]
    assert not Path(workdir).exists()


def test_diagnostic_variables_are_set_only_where_the_user_did_not(api_server, spool_dir, tmp_path):
    script = "import json, os; print(json.dumps({k: v for k, v in os.environ.items() if k.startswith(('NCCL_', 'TORCH', 'PET_', 'PYTHONUNBUF'))}))"
    out = run_cli("--server", api_server.url, "--token", "test-token", "--workdir", str(tmp_path / "w"),
                  "--", PY, "-c", script, env={"NCCL_DEBUG": "WARN", "TORCH_FR_DUMP_TEMP_FILE": "/tmp/mine_"})
    assert out.returncode == 0
    env = json.loads(out.stdout)
    w = tmp_path / "w"
    assert env["NCCL_DEBUG"] == "WARN"                                  # the user's choice stands
    assert env["NCCL_DEBUG_FILE"] == f"{w}/nccl/nccl-%h.%p.log"         # NCCL expands %h/%p per process
    assert env["NCCL_DEBUG_TIMESTAMP_FORMAT"] == "[%F %T.%6f] "
    assert env["TORCH_NCCL_TRACE_BUFFER_SIZE"] == "2000"
    assert env["TORCH_NCCL_DUMP_ON_TIMEOUT"] == "1"
    assert "TORCH_NCCL_DEBUG_INFO_TEMP_FILE" not in env                 # the alias was set by the user
    assert env["TORCH_FR_DUMP_TEMP_FILE"] == "/tmp/mine_"
    assert env["TORCHELASTIC_ERROR_FILE"] == f"{w}/elastic/error.json"
    assert env["PYTHONUNBUFFERED"] == "1"
    assert w.is_dir(), "--workdir is kept"


def test_a_command_that_does_not_exist_exits_127(api_server, spool_dir, tmp_path):
    out = run_cli("--server", api_server.url, "--token", "test-token", "--workdir", str(tmp_path / "w"),
                  "--", "/nonexistent/trainer")
    assert out.returncode == 127
    assert "cannot start" in out.stderr


def test_elastic_error_files_get_their_global_rank_from_the_failure_block():
    block = """torch.distributed.elastic.multiprocessing.errors.ChildFailedError:
============================================================
train.py FAILED
------------------------------------------------------------
Failures:
[1]:
  time      : 2026-12-02_17:06:43
  host      : node-b
  rank      : 12 (local_rank: 4)
  exitcode  : -15 (pid: 8550)
  error_file: <N/A>
  traceback : Signal 15 (SIGTERM) received by PID 8550
------------------------------------------------------------
Root Cause (first observed failure):
[0]:
  time      : 2026-12-02_17:06:43
  host      : node-b
  rank      : 11 (local_rank: 3)
  exitcode  : 1 (pid: 8551)
  error_file: /tmp/logs/none_x/attempt_0/3/error.json
  traceback : Traceback (most recent call last):
============================================================"""
    assert elastic_error_ranks(block) == ({"/tmp/logs/none_x/attempt_0/3/error.json": 11}, 11)


CHILD_WITH_GRANDCHILD = r"""
import subprocess, sys, time, pathlib
g = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
pathlib.Path(sys.argv[1]).write_text(str(g.pid))
print("ready", flush=True)
time.sleep(120)
"""


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, IndexError):
        return False
    return state not in ("Z", "X")


def _start_wrapped(api_url: str, tmp_path: Path) -> tuple[subprocess.Popen[str], Path]:
    pidfile = tmp_path / "grandchild.pid"
    wrapper = subprocess.Popen(
        [PY, "-m", "collectors", "run", "--server", api_url, "--token", "test-token", "--retries", "1",
         "--workdir", str(tmp_path / "w"),
         "--", PY, "-c", CHILD_WITH_GRANDCHILD, str(pidfile)],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert wrapper.stdout.readline() == "ready\n"       # handlers are installed before the child starts
    return wrapper, pidfile


def test_sigterm_is_forwarded_to_the_whole_process_group_and_the_status_is_128_plus_15(api_server, spool_dir, tmp_path):
    wrapper, pidfile = _start_wrapped(api_server.url, tmp_path)
    grandchild = int(pidfile.read_text())
    wrapper.send_signal(signal.SIGTERM)
    assert wrapper.wait(timeout=120) == 128 + signal.SIGTERM
    deadline = time.monotonic() + 10
    while _alive(grandchild) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(grandchild), "the grandchild in the child's process group got the signal too"
    stderr = wrapper.stderr.read()
    assert "command failed (signal 15)" in stderr
    assert len(api_server.received) == 1        # a killed job is a failed job: its evidence is uploaded


def test_sigint_reaches_the_child_once_like_ctrl_c(api_server, spool_dir, tmp_path):
    wrapper, pidfile = _start_wrapped(api_server.url, tmp_path)
    wrapper.send_signal(signal.SIGINT)
    # Python turns SIGINT into KeyboardInterrupt and, uncaught, dies of SIGINT: 128 + 2 like a shell.
    assert wrapper.wait(timeout=120) == 128 + signal.SIGINT
    assert "KeyboardInterrupt" in wrapper.stderr.read()


def kill_recorded_pids(folder: Path) -> None:
    """The job runs in its own session: a hung run must not outlive the test."""
    for f in folder.glob("pids-*"):
        for pid in {int(p) for p in f.read_text().split()}:
            try:
                # Only a process still running this test's script: a pid may have been reused.
                if str(folder) in Path(f"/proc/{pid}/cmdline").read_text():
                    os.kill(pid, signal.SIGKILL)
            except (FileNotFoundError, ProcessLookupError):
                pass


TRAIN = r"""
import os, time
import torch, torch.distributed as dist
from torch.distributed.elastic.multiprocessing.errors import record

@record
def main():
    # pids for the test's clean-up, should anything hang
    with open(os.path.join(os.path.dirname(__file__), f"pids-{os.getpid()}"), "w") as f:
        f.write(f"{os.getpid()} {os.getppid()}")
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    t = torch.ones(1024)
    dist.all_reduce(t)
    print(f"rank {rank} step 1 loss 0.5", flush=True)
    if rank == 1:
        raise RuntimeError("CUDA-free crash on rank 1 at step 2")
    time.sleep(2)
    dist.all_reduce(t)

if __name__ == "__main__":
    main()
"""


def test_it_wraps_a_real_torchrun_job_whose_rank_1_crashes(api_server, spool_dir, tmp_path):
    train = tmp_path / "train.py"
    train.write_text(TRAIN)
    torchrun = str(Path(PY).with_name("torchrun"))
    try:
        out = run_cli("--server", api_server.url, "--token", "test-token", "--job", "torchrun-crash",
                      "--host", "node-a", "--sample-interval", "0.2", "--workdir", str(tmp_path / "w"),
                      "--", torchrun, "--nproc-per-node", "2", "--master-port", str(free_port()), str(train),
                      env={"OMP_NUM_THREADS": "1"}, timeout=240)
    finally:
        kill_recorded_pids(tmp_path)
    assert out.returncode == 1, out.stderr[-3000:]
    assert f"incident: {api_server.url}/incidents/1/" in out.stderr
    [got] = api_server.received
    members = got.members()
    files = got.manifest()["files"]
    output = members["output.log"].decode()
    assert "[rank1]: RuntimeError: CUDA-free crash on rank 1 at step 2" in output
    assert "ChildFailedError" in output
    # @record + PET_LOG_DIR: torchelastic's per-rank error file, with its local rank from the path.
    elastic = [f for f in files if f["kind"] == "elastic_error"]
    assert any(f.get("local_rank") == 1 and "torchelastic/" in f["path"] for f in elastic), files
    rank1_error = next(f for f in elastic if f.get("local_rank") == 1)
    assert "CUDA-free crash" in json.loads(members[rank1_error["path"]])["message"]["message"]
    # The global rank comes from torchrun's failure block, which pairs each error_file with its rank.
    assert rank1_error["rank"] == 1
    # The agent's own root-cause copy lands in TORCHELASTIC_ERROR_FILE: the root cause's rank.
    assert {"path": "elastic/error.json", "kind": "elastic_error", "rank": 1} in elastic
    assert {"snapshot.json", "output.log"} <= set(members)
