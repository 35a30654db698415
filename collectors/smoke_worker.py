"""One rank of the smoke test (started by collectors.smoke; not a user command).

Environment: RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR, MASTER_PORT, NCCL_TRIAGE_SMOKE_BACKEND,
NCCL_TRIAGE_SMOKE_BYTES, NCCL_TRIAGE_SMOKE_ITERS, NCCL_TRIAGE_SMOKE_TIMEOUT. Writes its result as
JSON to the path given as the only argument.

NCCL_TRIAGE_SMOKE_FAIL_RANK=<r> makes rank r raise right after joining the process group. It
exists for the collectors' own tests (a failing rank must turn the smoke test red) and has no
use on a real node.
"""
from __future__ import annotations

import json
import os
import socket
import sys
import time
from collections.abc import Callable
from datetime import timedelta
from typing import Any


def _cpu_sync() -> None:
    """CPU tensors are ready when the call returns: nothing to wait for."""


def _all_reduce_timings(backend: str, rank: int, world: int, local_rank: int,
                        nbytes: int, iters: int, timeout: float) -> dict[str, Any]:
    import torch
    import torch.distributed as dist

    dist.init_process_group(
        backend,
        init_method=f"tcp://{os.environ['MASTER_ADDR']}:{os.environ['MASTER_PORT']}",
        rank=rank, world_size=world, timeout=timedelta(seconds=timeout),
    )
    try:
        if os.environ.get("NCCL_TRIAGE_SMOKE_FAIL_RANK") == str(rank):
            raise RuntimeError(f"injected failure on rank {rank} (NCCL_TRIAGE_SMOKE_FAIL_RANK)")
        device = torch.device("cuda", local_rank) if backend == "nccl" else torch.device("cpu")
        if device.type == "cuda":
            torch.cuda.set_device(device)
        sync: Callable[[], None] = torch.cuda.synchronize if device.type == "cuda" else _cpu_sync
        x = torch.full((nbytes // 4,), float(rank + 1), dtype=torch.float32, device=device)
        dist.all_reduce(x)          # warm-up: connections and buffers are set up here
        sync()
        times = []
        for _ in range(iters):
            x.fill_(float(rank + 1))
            sync()
            t0 = time.perf_counter()
            dist.all_reduce(x)
            sync()
            times.append(time.perf_counter() - t0)
        expected = world * (world + 1) / 2
        got = (float(x[0].item()), float(x[-1].item()))
        if got != (expected, expected):
            raise RuntimeError(f"all-reduce gave {got}, expected {expected}: data corrupted")
        dist.barrier()
        avg = sum(times) / len(times)
        algbw = x.numel() * 4 / avg / 1e9
        return {"avg_seconds": avg, "algbw_gbps": algbw, "busbw_gbps": algbw * 2 * (world - 1) / world,
                "device": str(device)}
    finally:
        dist.destroy_process_group()


def main() -> int:
    rank = int(os.environ["RANK"])
    started = time.perf_counter()
    result: dict[str, Any] = {"rank": rank, "host": socket.gethostname(), "pid": os.getpid(),
                              "ok": False, "error": None}
    try:
        result.update(_all_reduce_timings(
            os.environ["NCCL_TRIAGE_SMOKE_BACKEND"], rank, int(os.environ["WORLD_SIZE"]),
            int(os.environ.get("LOCAL_RANK", rank)), int(os.environ["NCCL_TRIAGE_SMOKE_BYTES"]),
            int(os.environ["NCCL_TRIAGE_SMOKE_ITERS"]), float(os.environ["NCCL_TRIAGE_SMOKE_TIMEOUT"])))
        result["ok"] = True
    except Exception as exc:
        result["error"] = f"{type(exc).__name__}: {exc}".strip()[:2000]
    result["seconds"] = round(time.perf_counter() - started, 3)
    with open(sys.argv[1], "w") as f:
        json.dump(result, f)
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
