"""shm_exhausted: /dev/shm too small or unusable (container default 64 MB, permissions, SIGBUS).
Attaching to a peer's segment that is gone (ENOENT) is a different failure: see `other`."""
from __future__ import annotations

from ..facts import Facts, short_host
from ..model import Event, Evidence, Finding, Support
from ..ranking import sure
from ..signatures import BY_ID, fix_text
from .common import earliest, evidence, hosts_of, nccl_lines, ranks_of, read_as, upper_first, where
from .signature import catalog_fix

FIX = fix_text("shm_exhausted")
SMALL_SHM = 256 * 1024 * 1024


def find(facts: Facts) -> list[Finding]:
    findings: list[Finding] = []
    shm = read_as(facts, nccl_lines(facts), "shm_exhausted", roles=("fault",))
    small = _small_shm(facts)
    if shm:
        first = earliest(shm)
        assert first is not None
        errno = first.data.get("errno")
        why = {"ENOSPC": "no space left on /dev/shm",
               "EACCES": "permission denied on /dev/shm"}.get(errno or "", "a /dev/shm segment could not be created")
        findings.append(Finding(
            cause="shm_exhausted", rule="shm_exhausted.nccl_shm",
            title=f"/dev/shm unusable: {why} ({where(facts, first)})",
            detail=f"NCCL's shared-memory transport could not create or size its segment ({why}). Every rank on that "
                   f"host is affected; "
                   "the first to report it is named, the cause is node-wide."
                   + (f" Snapshot: {small[1]}." if small else ""),
            fix=catalog_fix(facts, first, "shm_exhausted", FIX),
            ranks=ranks_of(shm), hosts=hosts_of(shm), evidence=evidence(shm) + (small[0] if small else []),
            culprit=first, support=frozenset({Support.CORROBORATED} if small else ()),  # the snapshot's size
        ))
        return findings
    sigbus = [e for e in facts.kind("crash_signal", "process_exit", "elastic_failure", "signal_received")
              if e.data.get("signal") == "SIGBUS"]
    if sigbus:
        first = earliest(sigbus)
        assert first is not None
        findings.append(Finding(
            cause="shm_exhausted", rule="shm_exhausted.sigbus",
            title=f"{upper_first(where(facts, first))} died of SIGBUS (bus error): /dev/shm too small",
            detail="A bus error in a training process is nearly always a write into a /dev/shm mapping that ran out of "
                   "space "
                   "(Docker's default is 64 MB)."
                   + (f" Snapshot: {small[1]}." if small else " No snapshot confirms the size."),
            fix=catalog_fix(facts, first, "shm_exhausted", FIX), ranks=ranks_of(sigbus), hosts=hosts_of(sigbus),
            evidence=evidence(sigbus) + (small[0] if small else []), culprit=first,
            role="fault",  # a bus error is the process's own, whoever reports it (a launcher's exit table)
            # A bus error points at /dev/shm; the snapshot's size of it confirms it.
            support=frozenset({Support.POINTS, Support.CORROBORATED} if small else {Support.POINTS}),
        ))
        return findings
    return single_node_system_error(facts)


def _small_shm(facts: Facts) -> tuple[list[Evidence], str] | None:
    for name, doc in facts.docs.snapshots:
        host = doc.get("host") or {}
        shm = host.get("shm") or {}
        size = shm.get("size_bytes")
        if isinstance(size, int) and size < SMALL_SHM:
            text = f"{short_host(host.get('hostname'))}: /dev/shm is {size // (1024 * 1024)} MB"
            return [Evidence(name, 1, text)], text
    return None


def _on_one_host(ev: Event) -> str | None:
    """The cause the line's entry points to where the ranks share one host (`on_one_host`)."""
    sig = BY_ID.get(str(ev.data.get("sig")))
    return sig.on_one_host if sig is not None else None


def single_node_system_error(facts: Facts) -> list[Finding]:
    """NCCL's bare 'unhandled system error' (ncclSystemError, no WARN naming the call) where
    nothing shows a network between the ranks (no NET transport, no socket or IB error, at most
    one host): between ranks of one machine the system calls NCCL makes are the /dev/shm and IPC
    ones (a container's 64 MB default is the usual reason), so that is the likelier cause, at
    low confidence. With NCCL_DEBUG=INFO the WARN before it names the call."""
    errors = [e for e in facts.kind("signature") if _on_one_host(e) and not sure(e)]
    if not errors:
        return []  # (most bundles: the passes below over every event and NCCL line not made)
    transports = {str(e.data.get("transport")) for e in facts.kind("nccl_transport")}
    lines = nccl_lines(facts)
    net = (read_as(facts, lines, "network", fabric="ib") or read_as(facts, lines, "network", fabric="socket")
           or "NET" in transports)
    hosts = {e.host for e in facts.events if e.host}
    if net or len(hosts) > 1:
        return []
    first = earliest(errors)
    assert first is not None
    return [Finding(
        cause=str(_on_one_host(first)), rule="shm_exhausted.single_node_system_error",
        title="NCCL system error with no network in sight: /dev/shm is the likely cause",
        detail="NCCL reports 'unhandled system error' without a WARN naming the call, and nothing in these logs shows "
               "a "
               "network between the ranks (one machine at most, no NET transport, no socket or IB error). There the "
               "failing calls are most often the /dev/shm ones (containers default to 64 MB). Re-run with "
               "NCCL_DEBUG=INFO to see the failing call"
               + (" (the ranks connect over shared memory)." if "SHM" in transports else "."),
        fix=FIX, ranks=ranks_of(errors), hosts=hosts_of(errors),
        evidence=evidence(errors + facts.kind("nccl_transport")[:2]),
        culprit=first,
        support=frozenset({Support.AMBIGUOUS}),  # the likelier cause of a bare system error on one host, a guess
    )]
