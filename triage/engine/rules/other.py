"""other: understood, but none of the named causes: attaching to a peer's shared-memory segment
that no longer exists (ENOENT), NCCL internal errors with a clear WARN."""
from __future__ import annotations

from ..facts import Facts
from ..model import Finding
from .common import earliest, evidence, hosts_of, ranks_of, where

FIX_ATTACH = (
    "The peer's /dev/shm segment was gone when this rank attached. Causes seen: a peer that died or "
    "cleaned up early, systemd-logind RemoveIPC deleting segments (set RemoveIPC=no in "
    "/etc/systemd/logind.conf), or an NCCL regression (try the previous NCCL release). Re-run with:\n"
    "NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,ENV,BOOTSTRAP,ALLOC\n"
    "grep -i RemoveIPC /etc/systemd/logind.conf"
)


def find(facts: Facts) -> list[Finding]:
    attach = [e for e in facts.kind("nccl_shm_error")
              if e.data.get("op") == "attach" and e.data.get("errno") not in ("ENOSPC", "EACCES")]
    if not attach:
        return []
    first = earliest(attach)
    assert first is not None
    return [Finding(
        cause="other", rule="other.shm_attach_missing", confidence="medium",
        title=f"Shared-memory segment of a peer vanished (attach failed with ENOENT) on {where(facts, first)}",
        detail="NCCL could not attach to a peer's /dev/shm segment because the file does not exist. This is not "
               "a full /dev/shm "
               "(that fails on create/extend with ENOSPC): the segment was removed or never created by the peer.",
        fix=FIX_ATTACH, ranks=ranks_of(attach), hosts=hosts_of(attach), evidence=evidence(attach), weight=65,
        culprit=first,
    )]
