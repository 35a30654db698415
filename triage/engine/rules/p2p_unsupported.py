"""p2p_unsupported: GPU peer-to-peer broken (IOMMU/ACS, driver): IOMMU faults, or a job whose
ranks set up P2P channels and then timed out on the first collective. (Logs that merely end
after P2P setup say nothing: no finding.)"""
from __future__ import annotations

from ..facts import Facts
from ..model import Finding, Support
from ..signatures import fix_text
from .common import earliest, evidence, hosts_of, ranks_of
from .signature import catalog_fix

FIX = fix_text("p2p_unsupported")


FIRST_SEQS = 2  # a watchdog timeout on one of the first collectives (sequence numbers from 1)

def find(facts: Facts) -> list[Finding]:
    p2p = [e for e in facts.kind("nccl_transport") if e.data.get("transport") == "P2P"]
    iommu = facts.kind("iommu_fault")
    if iommu:
        first = earliest(iommu)
        assert first is not None
        return [Finding(
            cause="p2p_unsupported", rule="p2p_unsupported.iommu_fault",
            title="IOMMU faults from a GPU: peer-to-peer transfers are being blocked",
            detail="The kernel logged IOMMU page faults for a GPU's DMA"
            + (" while NCCL used P2P between GPUs" if p2p else "")
                   + ": peer-to-peer writes are rejected by the IOMMU/ACS, so collectives hang or fail.",
            fix=catalog_fix(facts, first, "p2p_unsupported", FIX),
            ranks=ranks_of(iommu), hosts=hosts_of(iommu), evidence=evidence(iommu + p2p[:2]),
            # Without NCCL's P2P lines nothing shows the faults blocked the transfers of this job.
            culprit=first, support=frozenset({Support.CORROBORATED} if p2p else {Support.ALONE}),
        )]
    if not p2p:
        return []
    errors = [e for e in facts.events if e.severity in ("error", "fatal")]
    early_timeouts = [e for e in facts.kind("watchdog_timeout") if e.seq is not None and e.seq <= FIRST_SEQS]
    if early_timeouts and all(e.kind in ("watchdog_timeout", "watchdog_progress", "watchdog_terminated",
                                         "terminate_called", "terminate_what", "process_exit", "elastic_failure",
                                         "closing_signal", "exception", "torch_nccl_error", "nccl_result_detail")
                              for e in errors):
        first = earliest(early_timeouts)
        assert first is not None
        return [Finding(
            cause="p2p_unsupported", rule="p2p_unsupported.hang_after_init",
            title="Hang on the first collective right after P2P channels were set up",
            detail="All ranks set up P2P channels and then the very first collective never completed, with no error "
                   "from any rank: "
                   "the classic sign of broken GPU peer-to-peer on a PCIe box.",
            fix=FIX, ranks=ranks_of(early_timeouts), hosts=hosts_of(p2p), evidence=evidence(p2p[:2] + early_timeouts),
            role="inferred", culprit=None, support=frozenset({Support.POINTS}),
        )]
    return []
