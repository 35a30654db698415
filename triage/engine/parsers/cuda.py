"""CUDA errors as PyTorch and CUDA libraries print them (docs/log-formats.md §2.10): OOM in both the
recent and the old wording, `CUDA error: <string>`, `cudaError<Name>`, and NCCL's own
allocation failures."""
from __future__ import annotations

import re

from ..model import Record
from .base import LineCtx, SourceState

# What the scan gate (scan.py) must let through for this parser: CUDA's error reports.
GATE_MEANING: tuple[str, ...] = (
    r"CUDA (?:error|driver|runtime)",
    r"cudaError",
    r"CUBLAS_STATUS",
)

_OOM = re.compile(
    r"CUDA out of memory\. Tried to allocate (?P<req>[\d.]+ (?:GiB|MiB|KiB|bytes))"
    r"(?:\. GPU (?P<dev>\d+) has a total capacity of (?P<tot>[\d.]+ \w+) of which (?P<free>[\d.]+ \w+) is free"
    r"| \(GPU (?P<dev2>\d+); (?P<tot2>[\d.]+ \w+) total capacity)?"
)
_CUDA_ERROR = re.compile(r"CUDA error: (?P<err>[^.\n\[]+?)(?:\s*$|\s*\[|\.\s|\s+CUDA kernel)")
# 'failed to synchronize: cudaErrorECCUncorrectable: uncorrectable ...' or '... returned cudaErrorX'.
# A bare mention (a docs table, torch's "Search for `cudaErrorX' ..." hint) is no error.
_CUDA_NAME = re.compile(r"(?:(?P<name>cudaError\w+): (?P<err>[^\n]+)|(?:returned|error|failed with) "
                        r"(?P<name2>cudaError\w+))")
_CUBLAS = re.compile(r"CUBLAS_STATUS_(?P<status>\w+)")

def parse(ctx: LineCtx, state: SourceState) -> list[Record]:
    body = ctx.body
    if "CUDA" not in body and "cuda" not in body and "CUBLAS" not in body:
        return []
    m = _OOM.search(body)
    if m:
        dev = m["dev"] or m["dev2"]
        # The caching allocator's report of a request it could not serve (its sizes); what it
        # means is the catalog's reading of the line, which facts.py asks.
        ev = ctx.record(
            "allocator_report",
            requested=m["req"],
            gpu=int(dev) if dev else None,
            total=m["tot"] or m["tot2"],
            free=m["free"],
        )
        # The caching allocator names the process's CUDA device ordinal, as NCCL's [dev] does.
        ev.device = int(dev) if dev else None
        return [ev]
    # The error's text and name as the line gives them; what they mean is the catalog's
    # (signatures/readings.py, asked by facts.py).
    m = _CUDA_ERROR.search(body)
    if m:
        return [ctx.record("cuda_error", error=m["err"].strip(), cuda_name=None)]
    m = _CUDA_NAME.search(body)
    if m and "Search for `" not in body:
        name = m["name"] or m["name2"]
        text = (m["err"] or name).strip()
        return [ctx.record("cuda_error", error=text, cuda_name=name)]
    m = _CUBLAS.search(body)
    if m and ("error" in body.lower() or "failed" in body):
        return [ctx.record("cuda_error", error=f"CUBLAS_STATUS_{m['status']}", cuda_name=None)]
    return []
