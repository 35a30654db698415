"""CUDA errors as PyTorch and CUDA libraries print them (docs/log-formats.md §2.10): OOM in both the
recent and the old wording, `CUDA error: <string>`, `cudaError<Name>`, and NCCL's own
allocation failures."""
from __future__ import annotations

import re

from ..model import Event
from ..signatures.matcher import matcher
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

# What the rules join on, from the catalog entry's cause (signatures/cuda.py reads every
# cudaError_t); the parser keeps no table of its own.
_RUNTIME_NAME = re.compile(r"cudaError[A-Z]\w+")
_CLASS_OF_CAUSE = {"oom": "oom", "hardware_fault": "hardware", "version_mismatch": "version",
                   "device_ordinal": "device_ordinal", "rank_crash": "app"}


def classify(err: str, name: str | None = None) -> tuple[str | None, str]:
    """(cudaError name where the line gives it, class): the class is what the catalog's entry
    for this error says. An entry the catalog is unsure of, or one another line can explain
    (`outranked_by`: busy/unavailable, no device), is `other`: the catalog's finding reports it."""
    err = err.strip().rstrip(".")
    found = matcher().best(f"{name}: {err}" if name else f"CUDA error: {err}")
    if found is None or found.sig.role != "fault":
        return name, "other"
    sig = found.sig
    named = _RUNTIME_NAME.search(sig.origin) if name is None and sig.id.startswith("cuda.rt.") else None
    name = named.group(0) if named else name
    if sig.confidence == "low" or sig.outranked_by:
        return name, "other"
    return name, _CLASS_OF_CAUSE.get(str(sig.cause), "other")


def parse(ctx: LineCtx, state: SourceState) -> list[Event]:
    body = ctx.body
    if "CUDA" not in body and "cuda" not in body and "CUBLAS" not in body:
        return []
    m = _OOM.search(body)
    if m:
        dev = m["dev"] or m["dev2"]
        ev = ctx.event(
            "cuda_oom",
            severity="error",
            requested=m["req"],
            gpu=int(dev) if dev else None,
            total=m["tot"] or m["tot2"],
            free=m["free"],
        )
        # The caching allocator names the process's CUDA device ordinal, as NCCL's [dev] does.
        ev.device = int(dev) if dev else None
        return [ev]
    m = _CUDA_ERROR.search(body)
    if m:
        name, cls = classify(m["err"])
        return [ctx.event("cuda_error", severity="error", error=m["err"].strip(), cuda_name=name, error_class=cls)]
    m = _CUDA_NAME.search(body)
    if m and "Search for `" not in body:
        name = m["name"] or m["name2"]
        text = (m["err"] or name).strip()
        _, cls = classify(text, name)
        return [ctx.event("cuda_error", severity="error", error=text, cuda_name=name, error_class=cls)]
    m = _CUBLAS.search(body)
    if m and ("error" in body.lower() or "failed" in body):
        _, cls = classify(f"CUBLAS_STATUS_{m['status']}")
        return [ctx.event("cuda_error", severity="error", error=f"CUBLAS_STATUS_{m['status']}", cuda_name=None,
                          error_class=cls)]
    return []
