"""Real multi-process torch.distributed runs on CPU (gloo) that fail on purpose.

Each function launches a small job as subprocesses (torchrun, or plain processes for the
rendezvous case), always bounded by a timeout, and copies exactly what the processes wrote into
a bundle directory: the launcher's combined output, per-rank stdout/stderr files, torchelastic
error files, a manifest naming each file's rank, and `expected.json` with the known answer.
torch is never imported here: it runs only inside the child processes (gloo_worker.py).
"""
from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

WORKER = Path(__file__).with_name("gloo_worker.py")
RUN_TIMEOUT_S = 90
# The collective timeout of the stall and skip runs: long enough that a rank starved of CPU for a
# few seconds (the test suite runs two workers on two cores) does not time out in an earlier
# step than the one the silent rank stops in.
STALL_TIMEOUT_S = 10


@dataclass
class RunResult:
    bundle: Path
    returncode: int
    output: str


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _host() -> str:
    # The same short form NCCL and torchelastic print, so the host dir matches the log lines.
    return socket.gethostname().split(".")[0] or "localhost"


def _env(extra: dict[str, str]) -> dict[str, str]:
    env = dict(os.environ)
    for key in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT", "TORCHELASTIC_ERROR_FILE"):
        env.pop(key, None)
    env.update({"OMP_NUM_THREADS": "1", "PYTHONUNBUFFERED": "1", "TORCH_CPP_LOG_LEVEL": "INFO"})
    env.update(extra)
    return env


def _write_json(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


def _manifest(host_dir: Path, host: str, job: str, files: list[dict[str, Any]]) -> None:
    _write_json(host_dir / "manifest.json", {
        "schema": "nccl-triage/manifest@1", "job": job, "host": host,
        "created_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "collector": "nccl-triage-scenarios gloo", "files": files,
    })


LAUNCHER_ATTEMPTS = 3


def _launcher_crashed(stderr: str) -> bool:
    """torchrun ends every run of failed workers by raising its failure report (ChildFailedError);
    a traceback with no such report is torchrun's own."""
    return "ChildFailedError" not in stderr and "Traceback (most recent call last):" in stderr


def _torchrun(bundle: Path, *, nproc: int, mode: str, fail_rank: int, job: str,
              expected: dict[str, Any], timeout_s: int, pg_timeout_s: int = 20) -> RunResult:
    host = _host()
    host_dir = bundle / host
    host_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="gloo-run-") as tmp:
        log_dir = Path(tmp) / "logs"
        cmd = [sys.executable, "-m", "torch.distributed.run", "--nnodes", "1",
               "--nproc-per-node", str(nproc), "--master-addr", "127.0.0.1",
               "--master-port", str(free_port()), "--max-restarts", "0",
               "--log-dir", str(log_dir), "--tee", "3", str(WORKER)]
        env = _env({"SCENARIO_MODE": mode, "FAIL_RANK": str(fail_rank), "FAIL_STEP": "3",
                    "STEPS": "6", "PG_TIMEOUT_S": str(pg_timeout_s)})
        for _attempt in range(LAUNCHER_ATTEMPTS):
            proc = subprocess.run(cmd, env=env, cwd=tmp, capture_output=True, text=True,
                                  timeout=timeout_s, check=False)
            if not _launcher_crashed(proc.stderr):
                break
            # torchrun itself died (it read a rank's error file while the rank was still writing
            # it: torch's race, seen under CPU starvation), so this run is not the scenario asked
            # for: run it again in a clean log folder.
            shutil.rmtree(log_dir, ignore_errors=True)
            cmd[cmd.index("--master-port") + 1] = str(free_port())
        # stdout and stderr of torchrun are kept apart: interleaving them after the fact would
        # invent an order the processes never printed in.
        (host_dir / "torchrun.stdout.log").write_text(proc.stdout, encoding="utf-8")
        (host_dir / "torchrun.stderr.log").write_text(proc.stderr, encoding="utf-8")
        files: list[dict[str, Any]] = [{"path": "torchrun.stdout.log", "kind": "log"},
                                       {"path": "torchrun.stderr.log", "kind": "log"}]
        # torchrun layout: <log_dir>/<run_id>/attempt_0/<local_rank>/{stdout,stderr}.log, error.json
        for rank_dir in sorted(log_dir.glob("*/attempt_*/*")):
            if not rank_dir.is_dir() or not rank_dir.name.isdigit():
                continue
            rank = int(rank_dir.name)  # one node: local rank == global rank
            for name in ("stdout.log", "stderr.log"):
                src = rank_dir / name
                if src.exists():
                    rel = f"logs/rank{rank}.{name}"
                    (host_dir / "logs").mkdir(exist_ok=True)
                    shutil.copyfile(src, host_dir / rel)
                    files.append({"path": rel, "kind": "log", "rank": rank, "local_rank": rank})
            err = rank_dir / "error.json"
            if err.exists():
                rel = f"elastic/error-{rank}.json"
                (host_dir / "elastic").mkdir(exist_ok=True)
                shutil.copyfile(err, host_dir / rel)
                files.append({"path": rel, "kind": "elastic_error", "rank": rank})
    _manifest(host_dir, host, job, files)
    _write_json(bundle / "expected.json", {**expected, "host": host})
    return RunResult(bundle, proc.returncode, proc.stdout + proc.stderr)


def run_exception(out_dir: Path, *, nproc: int = 3, fail_rank: int = 1,
                  timeout_s: int = RUN_TIMEOUT_S) -> RunResult:
    """One rank raises ValueError while the others wait in all_reduce (→ rank_crash)."""
    bundle = Path(out_dir) / f"gloo-exception-{nproc}-{fail_rank}"
    return _torchrun(bundle, nproc=nproc, mode="exception", fail_rank=fail_rank,
                     job="gloo-exception", timeout_s=timeout_s,
                     expected={"cause": "rank_crash", "rank": fail_rank})


def run_sigkill(out_dir: Path, *, nproc: int = 3, fail_rank: int = 2,
                timeout_s: int = RUN_TIMEOUT_S) -> RunResult:
    """One rank SIGKILLs itself mid-training (→ rank_crash, exitcode -9)."""
    bundle = Path(out_dir) / f"gloo-sigkill-{nproc}-{fail_rank}"
    return _torchrun(bundle, nproc=nproc, mode="sigkill", fail_rank=fail_rank,
                     job="gloo-sigkill", timeout_s=timeout_s,
                     expected={"cause": "rank_crash", "rank": fail_rank})


def run_stall(out_dir: Path, *, nproc: int = 4, fail_rank: int = 2, pg_timeout_s: int = STALL_TIMEOUT_S,
              timeout_s: int = RUN_TIMEOUT_S) -> RunResult:
    """One rank stops in its data loader; the others time out in the same all_reduce and
    torchrun's "first observed failure" is one of them (→ collective_timeout_straggler, the
    silent rank)."""
    bundle = Path(out_dir) / f"gloo-stall-{nproc}-{fail_rank}"
    return _torchrun(bundle, nproc=nproc, mode="stall", fail_rank=fail_rank, job="gloo-stall",
                     timeout_s=timeout_s, pg_timeout_s=pg_timeout_s,
                     expected={"cause": "collective_timeout_straggler", "rank": fail_rank})


def run_skip(out_dir: Path, *, nproc: int = 3, fail_rank: int = 0, pg_timeout_s: int = STALL_TIMEOUT_S,
             timeout_s: int = RUN_TIMEOUT_S) -> RunResult:
    """One rank skips an all_reduce and waits in a barrier the others never reach (→
    collective_timeout_straggler: the rank in a different collective)."""
    bundle = Path(out_dir) / f"gloo-skip-{nproc}-{fail_rank}"
    return _torchrun(bundle, nproc=nproc, mode="skip", fail_rank=fail_rank, job="gloo-skip",
                     timeout_s=timeout_s, pg_timeout_s=pg_timeout_s,
                     expected={"cause": "collective_timeout_straggler", "rank": fail_rank})


def run_rendezvous(out_dir: Path, *, world_size: int = 3, started: int = 2,
                   store_timeout_s: int = 3, timeout_s: int = RUN_TIMEOUT_S) -> RunResult:
    """World size 3, only 2 processes started: the TCPStore barrier times out (→ rendezvous_hang).

    Plain processes with env:// init, as a job launched by hand (or by a launcher that lost a
    node) would be; each rank's stdout+stderr goes to its own file.
    """
    bundle = Path(out_dir) / "gloo-rendezvous"
    host = _host()
    host_dir = bundle / host
    (host_dir / "logs").mkdir(parents=True, exist_ok=True)
    port = str(free_port())
    procs: list[tuple[int, subprocess.Popen[bytes], Path]] = []
    files: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="gloo-rdzv-") as tmp:
        for rank in range(started):
            path = host_dir / "logs" / f"rank{rank}.log"
            env = _env({"SCENARIO_MODE": "rendezvous", "RANK": str(rank), "LOCAL_RANK": str(rank),
                        "WORLD_SIZE": str(world_size), "MASTER_ADDR": "127.0.0.1",
                        "MASTER_PORT": port, "PG_TIMEOUT_S": str(store_timeout_s)})
            handle = path.open("w", encoding="utf-8")
            procs.append((rank, subprocess.Popen([sys.executable, str(WORKER)], env=env, cwd=tmp,
                                                 stdout=handle, stderr=subprocess.STDOUT), path))
            handle.close()
            files.append({"path": f"logs/rank{rank}.log", "kind": "log", "rank": rank,
                          "local_rank": rank})
        codes = []
        for _, proc, _ in procs:
            try:
                codes.append(proc.wait(timeout=timeout_s))
            except subprocess.TimeoutExpired:
                proc.kill()
                codes.append(proc.wait())
    _manifest(host_dir, host, "gloo-rendezvous", files)
    _write_json(bundle / "expected.json", {"cause": "rendezvous_hang", "rank": None, "host": host})
    output = "".join(path.read_text(encoding="utf-8", errors="replace") for _, _, path in procs)
    return RunResult(bundle, max(codes), output)
