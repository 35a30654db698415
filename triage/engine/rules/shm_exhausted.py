"""shm_exhausted: /dev/shm too small or unusable (container default 64 MB, permissions, SIGBUS).
Attaching to a peer's segment that is gone (ENOENT) is a different failure: see `other`."""
from __future__ import annotations

from ..facts import Facts, short_host
from ..model import Evidence, Finding
from .common import earliest, evidence, hosts_of, ranks_of, upper_first, where

FIX = (
    "Give the container a real /dev/shm: run it with --ipc=host or --shm-size=16g (Kubernetes: an "
    "emptyDir with medium: Memory mounted at /dev/shm), and check its size and permissions:\n"
    "df -h /dev/shm && ls -ld /dev/shm   # expect several GB and drwxrwxrwt\n"
    "NCCL_SHM_DISABLE=1   # diagnostic only: confirms the shm transport is the problem, costs speed"
)
SMALL_SHM = 256 * 1024 * 1024


def find(facts: Facts) -> list[Finding]:
    findings: list[Finding] = []
    shm = [e for e in facts.kind("nccl_shm_error") if e.data.get("op") != "attach" or e.data.get("errno") in ("ENOSPC", "EACCES")]
    small = _small_shm(facts)
    if shm:
        first = earliest(shm)
        assert first is not None
        errno = first.data.get("errno")
        why = {"ENOSPC": "no space left on /dev/shm", "EACCES": "permission denied on /dev/shm"}.get(errno or "", "a /dev/shm segment could not be created")
        findings.append(Finding(
            cause="shm_exhausted", rule="shm_exhausted.nccl_shm", confidence="high",
            title=f"/dev/shm unusable: {why} ({where(facts, first)})",
            detail=f"NCCL's shared-memory transport could not create or size its segment ({why}). Every rank on that host is affected; "
                   "the first to report it is named, the cause is node-wide." + (f" Snapshot: {small[1]}." if small else ""),
            fix=FIX, ranks=ranks_of(shm), hosts=hosts_of(shm), evidence=evidence(shm) + (small[0] if small else []), weight=88, culprit=first,
        ))
        return findings
    sigbus = [e for e in facts.kind("crash_signal", "process_exit", "elastic_failure", "signal_received") if e.data.get("signal") == "SIGBUS"]
    if sigbus:
        first = earliest(sigbus)
        assert first is not None
        findings.append(Finding(
            cause="shm_exhausted", rule="shm_exhausted.sigbus", confidence="high" if small else "medium",
            title=f"{upper_first(where(facts, first))} died of SIGBUS (bus error): /dev/shm too small",
            detail="A bus error in a training process is nearly always a write into a /dev/shm mapping that ran out of space "
                   "(Docker's default is 64 MB)." + (f" Snapshot: {small[1]}." if small else " No snapshot confirms the size."),
            fix=FIX, ranks=ranks_of(sigbus), hosts=hosts_of(sigbus), evidence=evidence(sigbus) + (small[0] if small else []), weight=84, culprit=first,
        ))
    return findings


def _small_shm(facts: Facts) -> tuple[list[Evidence], str] | None:
    for name, doc in facts.docs.snapshots:
        host = doc.get("host") or {}
        shm = host.get("shm") or {}
        size = shm.get("size_bytes")
        if isinstance(size, int) and size < SMALL_SHM:
            text = f"{short_host(host.get('hostname'))}: /dev/shm is {size // (1024 * 1024)} MB"
            return [Evidence(name, 1, text)], text
    return None
