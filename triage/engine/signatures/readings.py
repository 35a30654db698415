"""What the catalog says a code means, in the words the rules join on: a CUDA error's text (or
its cudaError_t name) and an Xid number. The parsers keep the code as they read it (identity);
facts.py asks here, once per event, so every class comes from the catalog's entries.
"""
from __future__ import annotations

import re
from functools import cache

from . import CATALOG
from .matcher import matcher
from .schema import Signature

__all__ = ["cuda_class", "fault_class", "record_view"]

_RUNTIME_NAME = re.compile(r"cudaError[A-Z]\w+")
# The class each cause's faults are called by in the words the rules join on.
_CLASS_OF_CAUSE = {"oom": "oom", "hardware_fault": "hardware", "version_mismatch": "version",
                   "device_ordinal": "device_ordinal", "rank_crash": "app"}
_CAUSE_OF_CLASS = {cls: cause for cause, cls in _CLASS_OF_CAUSE.items()}


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


@cache
def _by_code() -> dict[int, Signature]:
    return {code: sig for sig in CATALOG for code in sig.codes}


_XID_TITLE = re.compile(r"^Xid [\d, /-]+: ")


def class_cause(cls: object) -> str | None:
    """The cause whose faults a class names (`hardware` -> hardware_fault); None for the classes
    that name none (`other`, `driver`, `secondary`) and for no class."""
    return _CAUSE_OF_CLASS.get(str(cls))


def fault_class(code: int) -> tuple[str, str]:
    """What the catalog says an Xid code means, in the words the rules join on: its name, and
    `hardware` (a hardware fault the catalog is sure of), `app` (the process's own fault),
    `secondary` (a symptom of an earlier Xid or fault) or `driver` (anything the catalog is
    unsure of or has no entry for; the catalog's own finding reports it)."""
    sig = _by_code().get(code)
    if sig is None:
        return f"Xid {code}", "driver"
    name = _XID_TITLE.sub("", sig.title)
    if sig.role == "symptom":
        return name, "secondary"
    if sig.role == "fault" and sig.confidence != "low":
        cls = _CLASS_OF_CAUSE.get(str(sig.cause))
        if cls in ("hardware", "app"):  # the classes an Xid's own entry can give
            return name, cls
    return name, "driver"


# The kinds the rules read for the parser records whose meaning the catalog gives: (the
# record's format, the class of the cause the catalog's entry for its line names) -> kind. A
# parser names the record (the caching allocator's report, the kernel's kill line); that it is
# an out-of-memory report is the entry's (`torch.cuda.oom`, `kernel.oom.killed_process`).
_VIEWS = {("allocator_report", "oom"): "cuda_oom", ("kernel_kill", "oom"): "host_oom_kill"}
# The record a line the catalog reads as a report of an Xid (`reports_code`) is read as.
_CODE_VIEWS = {"nvrm_gpu": "xid"}


def record_view(kind: str, sig: Signature | None) -> tuple[str, dict[str, object]]:
    """The kind the rules read a parser's record of `kind` as, given the catalog's entry `sig`
    for its line (facts.py), and the fields that reading adds: an allocator report the catalog
    reads as out of memory is `cuda_oom`; a driver line the entry says reports an Xid it does not
    print (`reports_code`) is an `xid` of that code. `kind` itself, and no fields, elsewhere."""
    if sig is None or sig.role != "fault":
        return kind, {}
    if sig.reports_code is not None and kind in _CODE_VIEWS:
        return _CODE_VIEWS[kind], {"xid": sig.reports_code, "xid_pid": None, "process": None}
    return _VIEWS.get((kind, _CLASS_OF_CAUSE.get(str(sig.cause), "")), kind), {}
