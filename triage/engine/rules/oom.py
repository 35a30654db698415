"""oom: CUDA out of memory on a rank (torch or NCCL's own allocations), or the host OOM killer."""
from __future__ import annotations

from ..facts import Facts
from ..model import Finding, Support
from ..signatures import fix_text
from .common import earliest, evidence, hosts_of, ranks_of, read_as, where
from .signature import catalog_fix

FIX = fix_text("oom")
FIX_HOST = fix_text("oom.host")
FIX_NCCL = fix_text("oom.nccl")  # added to FIX: NCCL's own buffers


def find(facts: Facts) -> list[Finding]:
    findings: list[Finding] = []
    cuda = facts.kind("cuda_oom") + [e for e in facts.kind("cuda_error") if e.data.get("error_class") == "oom"]
    nccl = read_as(facts, facts.kind("nccl_warn"), "oom", roles=("fault",))
    if cuda:
        first = earliest(cuda)
        assert first is not None
        req = first.data.get("requested")
        findings.append(Finding(
            cause="oom", rule="oom.cuda_oom",
            title=f"CUDA out of memory on {where(facts, first)}",
            detail=(f"{where(facts, first)} ran out of GPU memory" + (f" (tried to allocate {req})" if req else "")
                    + f"; {len(ranks_of(cuda)) or 1} rank(s) report it. NCCL errors and timeouts on the other ranks "
                      "follow from this rank stopping."),
            fix=catalog_fix(facts, first, "oom", FIX),
            ranks=ranks_of(cuda), hosts=hosts_of(cuda), evidence=evidence(cuda), culprit=first,
            support=frozenset({Support.NAMES}),  # the caching allocator's own report of it
        ))
    if nccl:
        first = earliest(nccl)
        assert first is not None
        findings.append(Finding(
            cause="oom", rule="oom.nccl_alloc",
            title=f"NCCL could not allocate GPU memory on {where(facts, first)}",
            detail=("NCCL's own device allocation failed ('" + (first.data.get("error") or "") + "'"
                    + (f", {first.data['bytes']} bytes" if first.data.get("bytes") else "")
                    + "): the GPU was full when a communicator was created (often lazily, at the first collective "
                      "of a new group)."),
            fix=catalog_fix(facts, first, "oom", FIX + FIX_NCCL),
            ranks=ranks_of(nccl), hosts=hosts_of(nccl), evidence=evidence(nccl), culprit=first,
            # Where CUDA's own out-of-memory report is there, NCCL's allocation failing follows from it.
            support=frozenset({Support.EXPLAINED} if cuda else ()),
        ))
    host = facts.kind("host_oom_kill")
    if host:
        first = earliest(host)
        assert first is not None
        findings.append(Finding(
            cause="oom", rule="oom.host_oom_killer",
            title=f"Host OOM killer ended {where(facts, first)}",
            detail=f"The kernel killed pid {first.data.get('victim_pid')} ({first.data.get('process')}) for lack "
                   "of host memory.",
            fix=catalog_fix(facts, first, "oom", FIX_HOST),
            ranks=ranks_of(host), hosts=hosts_of(host), evidence=evidence(host), culprit=first,
            support=frozenset({Support.NAMES}),  # the kernel's OOM killer's own kill line
        ))
    return findings
