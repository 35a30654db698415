"""Synthetic timelines in the engine's schema, for the benchmark and the browser tests.

One rank (the culprit) goes silent early with a CUDA OOM; the others carry on until their
watchdogs fire. Deterministic: the same arguments give the same timeline.
"""
from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from typing import Any

T0 = datetime(2026, 12, 1, 14, 20, 0, tzinfo=UTC)
EVENT_KINDS = ("nccl_warn", "nccl_warn", "nccl_warn", "exception", "watchdog_timeout", "first_error")


def _iso(t: datetime) -> str:
    return t.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def make_timeline(
    n_ranks: int, n_hosts: int, events_per_rank: int, *, culprit: int = 3, gpu_samples: int = 30,
    axis: str = "time", seed: int = 7,
) -> dict[str, Any]:
    rng = random.Random(seed)
    per_host = max(1, n_ranks // n_hosts)
    fail_at = 120.0  # seconds after T0 when the culprit stops
    others_end = fail_at + 41.0

    def x(seconds: float, seq: int) -> Any:
        if axis == "time":
            return _iso(T0 + timedelta(seconds=seconds))
        return seq

    ranks, events, samples = [], [], []
    for rank in range(n_ranks):
        host = f"node-{rank // per_host:03d}"
        device = rank % per_host
        end_s = fail_at if rank == culprit else others_end + rng.uniform(0, 2)
        last_seq = 8000 if rank == culprit else 8003
        init_end = 8.0 + rng.uniform(0, 3)
        source = f"{host}/rank{rank}.log"
        segments = [
            {"state": "initialising", "start": x(0.0, 0), "end": x(init_end, 10)},
            {"state": "running", "start": x(init_end, 10), "end": x(fail_at - 1, 7990)},
        ]
        if rank == culprit:
            segments.append({"state": "crashed", "start": x(fail_at - 1, 7990), "end": x(fail_at, 8000)})
            state = "crashed"
        else:
            segments.append({"state": "waiting", "start": x(fail_at - 1, 7990), "end": x(end_s - 2, 8002)})
            segments.append({"state": "errored", "start": x(end_s - 2, 8002), "end": x(end_s, 8003)})
            state = "errored"
        line_no = 1000 + events_per_rank * 3
        ranks.append({
            "rank": rank, "host": host, "device": device, "pid": 4000 + rank, "bus_id": f"{0x1b + device:02x}000",
            "state": state, "start": x(0.0, 0), "end": x(end_s, last_seq),
            "silent_since": x(fail_at, 8000) if rank == culprit else None,
            "last_seq": last_seq,
            "last_line": {"source": source, "line": line_no,
                          "text": ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"
                                   if rank == culprit else
                                   f"[rank{rank}]:[E ProcessGroupNCCL.cpp:616] Watchdog caught collective "
                                   f"operation timeout: WorkNCCL(SeqNum=8003, OpType=ALLREDUCE) ran for 600000 ms"),
                          "time": _iso(T0 + timedelta(seconds=end_s)) if axis == "time" else None},
            "segments": segments,
        })
        for i in range(events_per_rank):
            kind = "cuda_oom" if rank == culprit and i == 0 else EVENT_KINDS[i % len(EVENT_KINDS)]
            at = min(end_s, 5.0 + (end_s - 5.0) * (i + 1) / events_per_rank)
            events.append({
                "rank": rank, "x": x(at, int(at * 66)), "kind": kind, "label": kind.replace("_", " "),
                "text": f"{host}:{4000 + rank}:{4100 + rank} [{device}] NCCL WARN NET/IB : Got completion "
                        f"from peer 10.0.{rank // 256}.{rank % 256} with status=12 opcode=0 len=0 vendor err 129",
                "source": source, "line": 1000 + i * 3,
            })
    if axis == "time":
        for rank in range(n_ranks):
            host, device = f"node-{rank // per_host:03d}", rank % per_host
            for k in range(gpu_samples):
                at = others_end * k / max(1, gpu_samples - 1)
                idle = rank == culprit and at > fail_at
                samples.append({"host": host, "gpu": device, "time": _iso(T0 + timedelta(seconds=at)),
                                "util": 0 if idle else rng.randint(85, 100), "mem_used": 70100, "mem_total": 81559})
    culprit_row = ranks[culprit]
    return {
        "axis": axis,
        "ranks": ranks,
        "events": events,
        "first_failure": {"rank": culprit, "x": culprit_row["silent_since"],
                          "label": f"rank {culprit} ({culprit_row['host']} GPU {culprit_row['device']}) silent since "
                                   f"14:22:00, 41 s before the others"},
        "gpu_samples": samples,
    }
