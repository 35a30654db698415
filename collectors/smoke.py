"""`smoke`: a small all-reduce across the node's GPUs (or 2 CPU ranks with gloo) before real work.

Each rank is its own process, so a rank that crashes or hangs is reported as that rank, and
the parent kills the others shortly after the first failure instead of waiting for timeouts.
"""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from collectors.host import hostname
from collectors.nvml import NvmlUnavailable, nvml_session

SCHEMA = "nccl-triage/smoke@1"


@dataclass
class SmokeOptions:
    nproc: int | None = None
    backend: str = "auto"           # auto | nccl | gloo
    size_mb: float = 4.0
    iters: int = 5
    timeout: float = 120.0          # per rank, seconds
    grace: float = 5.0              # how long the others get once one rank failed
    logdir: Path | None = None      # per-rank stdout/stderr, kept for an upload


def local_gpu_count() -> int:
    try:
        with nvml_session() as pynvml:
            return int(pynvml.nvmlDeviceGetCount())
    except (NvmlUnavailable, Exception):
        return 0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def run_smoke(opts: SmokeOptions) -> dict[str, Any]:
    gpus = local_gpu_count()
    backend = opts.backend if opts.backend != "auto" else ("nccl" if gpus else "gloo")
    world = opts.nproc or (gpus if backend == "nccl" else 2)
    nbytes = max(4, int(opts.size_mb * 1024 * 1024) // 4 * 4)
    logdir = opts.logdir or Path(tempfile.mkdtemp(prefix="nccl-triage-smoke-"))
    logdir = logdir.resolve()
    logdir.mkdir(parents=True, exist_ok=True)
    # The worker is started as `-m collectors.smoke_worker`: make this copy of the package importable
    # even when it was copied onto the node rather than pip-installed.
    package_parent = str(Path(__file__).resolve().parent.parent)
    pythonpath = os.pathsep.join(p for p in (package_parent, os.environ.get("PYTHONPATH")) if p)
    port = _free_port()
    procs: list[tuple[int, subprocess.Popen[bytes], Path]] = []
    for rank in range(world):
        env = dict(os.environ, RANK=str(rank), LOCAL_RANK=str(rank), WORLD_SIZE=str(world),
                   LOCAL_WORLD_SIZE=str(world), MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port),
                   NCCL_TRIAGE_SMOKE_BACKEND=backend, NCCL_TRIAGE_SMOKE_BYTES=str(nbytes),
                   NCCL_TRIAGE_SMOKE_ITERS=str(opts.iters), NCCL_TRIAGE_SMOKE_TIMEOUT=str(opts.timeout),
                   PYTHONPATH=pythonpath)
        result_path = logdir / f"smoke-rank{rank}.json"
        result_path.unlink(missing_ok=True)
        with open(logdir / f"smoke-rank{rank}.log", "wb") as out:
            p = subprocess.Popen([sys.executable, "-m", "collectors.smoke_worker", str(result_path)],
                                 env=env, stdout=out, stderr=subprocess.STDOUT)
        procs.append((rank, p, result_path))

    deadline = time.monotonic() + opts.timeout + 30
    first_failure: float | None = None
    killed: set[int] = set()
    while any(p.poll() is None for _, p, _ in procs):
        now = time.monotonic()
        if first_failure is None and any(p.poll() not in (None, 0) for _, p, _ in procs):
            first_failure = now
        if now > deadline or (first_failure is not None and now > first_failure + opts.grace):
            for rank, p, _ in procs:
                if p.poll() is None:
                    p.kill()
                    killed.add(rank)
            for _, p, _ in procs:
                p.wait()
            break
        time.sleep(0.05)

    ranks = []
    for rank, p, result_path in procs:
        try:
            r = json.loads(result_path.read_text())
        except (OSError, ValueError):
            why = ("killed: still running after another rank failed" if rank in killed and first_failure
                   else "killed: timed out" if rank in killed else f"exited with {p.returncode} and no result")
            r = {"rank": rank, "ok": False, "error": why, "seconds": None}
        r["exit_code"] = p.returncode
        ranks.append(r)

    ok = all(r["ok"] for r in ranks)
    slowest = max((r["avg_seconds"] for r in ranks if r.get("avg_seconds")), default=None)
    algbw = nbytes // 4 * 4 / slowest / 1e9 if ok and slowest else None
    return {
        "schema": SCHEMA,
        "host": hostname(),
        "backend": backend,
        "world_size": world,
        "ok": ok,
        "bytes": nbytes,
        "iters": opts.iters,
        "algbw_gbps": round(algbw, 3) if algbw is not None else None,
        "busbw_gbps": round(algbw * 2 * (world - 1) / world, 3) if algbw is not None else None,
        "ranks": ranks,
    }


def format_table(result: dict[str, Any]) -> str:
    lines = [
        f"nccl-triage smoke: host {result['host']}, backend {result['backend']}, world size "
        f"{result['world_size']}, {result['bytes'] / 2**20:.1f} MiB x {result['iters']} all-reduce",
        f"{'rank':>4}  {'ok':<4} {'seconds':>8} {'busbw GB/s':>11}  error",
    ]
    for r in result["ranks"]:
        secs = f"{r['seconds']:.2f}" if r.get("seconds") is not None else "-"
        bw = f"{r['busbw_gbps']:.2f}" if r.get("busbw_gbps") is not None else "-"
        lines.append(f"{r['rank']:>4}  {'yes' if r['ok'] else 'NO':<4} {secs:>8} {bw:>11}  {r.get('error') or '-'}")
    if result["ok"]:
        lines.append(f"RESULT: OK, bus bandwidth {result['busbw_gbps']:.2f} GB/s (algbw "
                     f"{result['algbw_gbps']:.2f} GB/s)")
    else:
        failed = [str(r["rank"]) for r in result["ranks"] if not r["ok"]]
        lines.append(f"RESULT: FAILED on rank(s) {', '.join(failed)}")
    return "\n".join(lines)
