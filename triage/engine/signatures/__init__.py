"""The signature catalog: one entry per message family, drawn from the sources (see schema.py).

`CATALOG` joins every source module's `SIGNATURES`, grouped by the program that prints them.
"""
from __future__ import annotations

from . import (
    crash,
    cuda,
    framework_raises,
    frameworks,
    nccl,
    nccltests,
    nvrm,
    raised_in,
    system,
    torch,
    torch_dist,
    xid,
)
from .schema import CONFIDENCES, ROLES, Signature

__all__ = ["CATALOG", "CONFIDENCES", "RAISED_IN", "ROLES", "SOURCES", "Signature"]

SOURCES: dict[str, tuple[Signature, ...]] = {
    "nccl": nccl.SIGNATURES + nccltests.SIGNATURES,  # NCCL and its test programs (nccl-tests)
    "cuda": cuda.SIGNATURES,
    "xid": xid.SIGNATURES,
    "system": system.SIGNATURES + nvrm.SIGNATURES,  # the host, its kernel; the NVIDIA driver's error lines
    "torch": torch.SIGNATURES + torch_dist.SIGNATURES,  # c10d and C++ texts; torch.distributed's Python raises
    "frameworks": frameworks.SIGNATURES + framework_raises.SIGNATURES,  # their log lines; their Python raises
    "crash": crash.SIGNATURES,  # crash reporters inside a process (Open MPI, Abseil/glog, faulthandler)
}
CATALOG: tuple[Signature, ...] = tuple(s for group in SOURCES.values() for s in group)
# Entries that read a generic exception by the module that raised it (raised_in.py): not line
# readings, so not in CATALOG (the matcher and the gate never see them).
RAISED_IN: tuple[Signature, ...] = raised_in.SIGNATURES
