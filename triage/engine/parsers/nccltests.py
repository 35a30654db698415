"""nccl-tests' own lines that say who is who (identity catalog, reports.toml):

- the device table (nccltests.rank_table): before its results the root rank prints a line for
  every rank, '#  Rank  2 Group  0 Pid 888386 on g0010 device  0 [0000:1b:00] NVIDIA H100':
  the rank's process, host, CUDA device and PCI address, as NCCL's init line would say them.
  The line is the root's report about the listed rank, so the record names that rank in its
  data (`listed_rank`, ...), never as its own writer;
- a failed call and its trail (nccltests.failure): 'g0010: Test CUDA failure common.cu:941 ...'
  names the failing process's host, and ' .. g0010 pid 888386: Test failure common.cu:891',
  which its caller prints next, its host and pid. The failure line's record is given the pid of
  the first trail of its host after it (`process_pid`, facts._test_failure_pids).
"""
from __future__ import annotations

from typing import Any

from .. import identity
from ..model import Record
from .base import LineCtx, SourceState

# What the scan gate must let through: every line of the table (each names another rank). The
# failure lines and their trails are the catalog's entries (signatures/data/nccltests.toml).
# (' Pid N on ': the table's own words, rare elsewhere, which the literal prefilter keys on.)
GATE_IDENTITY: tuple[str, ...] = (r" Pid +\d+ on ",)

_TABLE = identity.pattern("nccltests.rank_table")
_FAILURE = identity.pattern("nccltests.failure")


def parse(ctx: LineCtx, state: SourceState) -> list[Record]:
    body = ctx.body
    if body.startswith("#"):
        return _table(ctx, body)
    if " failure " not in body:
        return []
    m = _FAILURE.match(body)
    if m is None:
        return []
    pending: dict[str, dict[str, Any]] = state.extra.setdefault("nccltests_failures", {})
    if m["x_call"] is not None:
        # The host as nccl-tests wrote it, which its trail repeats (a prefix peeled it off the
        # line when it reads like pdsh's 'host: ': the origin holds it then).
        own = m["host"] or ctx.origin.host
        ctx.origin.host = ctx.origin.host or own
        rec = ctx.record("test_failure")
        if own is not None:
            pending[own] = rec.data
        return [rec]
    host, pid = m["x_trail_host"], m["pid"]
    ctx.origin.host = ctx.origin.host or host
    if pid is not None:
        ctx.origin.pid = ctx.origin.pid if ctx.origin.pid is not None else int(pid)
        failed = pending.pop(host, None)
        if failed is not None:
            failed["process_pid"] = int(pid)
    return [ctx.record("test_failure_trail")]


def _table(ctx: LineCtx, body: str) -> list[Record]:
    if "Pid" not in body:
        return []
    m = _TABLE.match(body)
    if m is None:
        return []
    # The new form's domain:bus:device, as kernel lines and NVML write it; the old form's bus
    # alone leaves the device number unknown, and the address with it.
    return [ctx.record("rank_table", listed_rank=int(m["rank"]), listed_pid=int(m["pid"]), listed_host=m["host"],
                       listed_device=int(m["device"]), listed_bus=m["x_bdf"])]
