"""hardware_fault: Xid with a hardware class, uncorrectable ECC / NVLink CUDA errors, GPU lost,
and what collector snapshots say (uncorrected ECC, pending or failed row remapping)."""
from __future__ import annotations

from ..facts import Facts, short_host
from ..model import Event, Evidence, Finding, Support
from ..ranking import HIGH, line_level
from ..signatures import fix_text
from .common import earliest, evidence, hosts_of, ranks_of, read_as, where
from .signature import catalog_fix

FIX = fix_text("hardware_fault")


def find(facts: Facts) -> list[Finding]:
    findings: list[Finding] = []
    xids = [e for e in facts.kind("xid") if e.data.get("fault_class") == "hardware"]
    cuda = [e for e in facts.kind("cuda_error") if e.data.get("error_class") == "hardware"]
    lost = [e for e in read_as(facts, facts.kind("nccl_warn"), "hardware_fault", roles=("fault",))
            if line_level(facts.meaning_of(e)) == HIGH]
    if xids:
        first = earliest(xids)
        assert first is not None
        codes = sorted({e.data["xid"] for e in xids})
        culprit = _culprit(facts, first, cuda)
        findings.append(Finding(
            cause="hardware_fault", rule="hardware_fault.xid",
            title=f"GPU hardware fault: Xid {', '.join(map(str, codes))} ({first.data.get('xid_name')}) on "
                  f"{where(facts, first)}",
            detail=(f"The NVIDIA driver logged Xid {first.data['xid']} ({first.data.get('xid_name')}) for PCI bus "
                    f"{first.data.get('bus')}"
                    + (f" on {first.host}" if first.host else "")
                    + ". This is a hardware/system event; errors on the other ranks follow from this GPU failing."),
            fix=catalog_fix(facts, first, "hardware_fault", FIX),
            ranks=ranks_of(xids + cuda), hosts=hosts_of(xids + cuda), evidence=evidence(xids + cuda),
            culprit=culprit,
            # The driver's Xid and the process's own CUDA error on the same rank.
            support=frozenset({Support.CORROBORATED} if culprit is not first else ()),
        ))
    elif cuda or lost:
        events = cuda + lost
        first = earliest(events)
        assert first is not None
        err = first.data.get("error") or first.message
        findings.append(Finding(
            cause="hardware_fault", rule="hardware_fault.cuda_error",
            title=f"GPU hardware error on {where(facts, first)}: {err}",
            detail=f"CUDA reported '{err}' on {where(facts, first)}: the GPU itself failed (ECC/NVLink/lost), "
                   "not the program.",
            fix=catalog_fix(facts, first, "hardware_fault", FIX),
            ranks=ranks_of(events), hosts=hosts_of(events), evidence=evidence(events),
            culprit=first,
        ))
    findings.extend(_from_snapshots(facts))
    return findings


def _culprit(facts: Facts, xid: Event, cuda: list[Event]) -> Event:
    same = [e for e in cuda if e.rank is not None and e.rank == xid.rank]
    return earliest(same) or xid


def _from_snapshots(facts: Facts) -> list[Finding]:
    bad: list[str] = []
    hosts: list[str] = []
    ev_src: list[tuple[str, str]] = []
    for name, doc in facts.docs.snapshots:
        host = short_host((doc.get("host") or {}).get("hostname")) or "?"
        for gpu in ((doc.get("nvml") or {}).get("gpus") or []):
            ecc = gpu.get("ecc") or {}
            rr = gpu.get("remapped_rows") or {}
            reasons = []
            if (ecc.get("uncorrected_volatile") or 0) > 0:
                reasons.append(f"{ecc['uncorrected_volatile']} uncorrected ECC errors since driver load")
            if rr.get("failure"):
                reasons.append("row remapping failed")
            if rr.get("pending"):
                reasons.append("row remapping pending (needs a GPU reset)")
            if reasons:
                bad.append(f"{host} GPU {gpu.get('index')} ({gpu.get('pci_bus_id')}): " + ", ".join(reasons))
                hosts.append(host)
                ev_src.append((name, f"GPU {gpu.get('index')}: " + ", ".join(reasons)))
    if not bad:
        return []

    return [Finding(
        cause="hardware_fault", rule="hardware_fault.snapshot_ecc",
        title=f"GPU memory errors recorded by NVML on {', '.join(sorted(set(hosts)))}",
        detail="; ".join(bad), fix=FIX, hosts=sorted(set(hosts)),
        evidence=[Evidence(n, 1, t) for n, t in ev_src][:8],
        role="inferred",  # counters of a GPU, no line of the failure itself
        support=frozenset({Support.POINTS}),
    )]
