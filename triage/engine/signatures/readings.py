"""What the catalog says a code means, in the words the rules join on: a CUDA error's text (or
its cudaError_t name) and an Xid number. The parsers keep the code as they read it (identity);
facts.py asks here, once per event, so every class comes from the catalog's entries.
"""
from __future__ import annotations

import re

from .matcher import matcher
from .xid import fault_class

__all__ = ["cuda_class", "fault_class"]

_RUNTIME_NAME = re.compile(r"cudaError[A-Z]\w+")
_CLASS_OF_CAUSE = {"oom": "oom", "hardware_fault": "hardware", "version_mismatch": "version",
                   "device_ordinal": "device_ordinal", "rank_crash": "app"}


def cuda_class(err: str, name: str | None = None) -> tuple[str | None, str]:
    """(cudaError name where the line or the catalog's entry gives it, class): the class is
    what the catalog's entry for this error says. An entry the catalog is unsure of, or one
    another line can explain (`outranked_by`: busy/unavailable, no device), is `other`: the
    catalog's finding reports it."""
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
