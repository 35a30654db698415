"""Kernel log lines (dmesg / journal) as records of their format: NVRM Xid reports (the code; its
name and class are the catalog's), the driver's lines that name a GPU by PCI id, the kernel's
kill line, IOMMU / AMD-Vi / DMAR fault events, PCIe AER reports. What each line means (a GPU
fallen off the bus, an OOM kill) is the catalog's reading of it."""
from __future__ import annotations

import re

from ..model import Record
from .base import LineCtx, SourceState, searched

# What the scan gate (scan.py) must let through for this parser: the NVIDIA driver's lines, the
# host OOM killer, IOMMU faults.
GATE_MEANING: tuple[str, ...] = (
    r"NVRM",
    r"Xid",
    r"fallen off",
    r"oom-kill",
    r"[Oo]ut of memory",
    r"AMD-Vi",
    r"DMAR",
    r"IOMMU",
)

_XID = re.compile(
    # The PCI id may be masked by whoever pasted the log ('(PCI:...)', '(PCI:xxxx:xx:xx)'): the
    # Xid still counts, only the GPU is then unknown.
    r"NVRM: Xid \((?:PCI:)?(?:(?P<bdf>[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2})|[^)\s]*?)(?:\.\d)?(?: GPU-I:"
    r"(?P<gi>\d+))?(?: GPU-CI:(?P<ci>\d+))?\): "
    r"(?P<xid>\d+), (?:pid=(?P<pid>'?<?[\w]+>?'?), (?:name=(?P<name>[^,]*), )?)?(?P<msg>.*)$"
)
# The driver's lines that name their GPU by PCI id: kernel-open's NV_DEV_PRINTF ('NVRM: GPU
# 0000:3b:00.0: ...') and RM's 'NVRM: GPU at PCI:0000:3b:00: ...'. (RM's own 'NVRM: GPU0 <function>:'
# prefix names the driver's instance number, which is neither a PCI id nor a CUDA ordinal.)
_NVRM_GPU = re.compile(r"NVRM: GPU (?:at PCI:)?(?P<bdf>[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2})\b")
# 'Out of memory: Killed process 42 (python)' (one line, newer kernels) or a separate
# 'Killed process 42 (python) total-vm:...' line (older kernels), or the oom-kill summary.
_OOM_KILL = re.compile(r"(?:Out of memory: )?Kill(?:ed)? process (?P<pid>\d+) \((?P<name>[^)]+)\)|oom-kill:.*task="
                       r"(?P<name2>[^,]+),pid=(?P<pid2>\d+)")
_IOMMU = re.compile(r"(?P<dev>[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.\d)?:? ?(?:AMD-Vi: Event logged \["
                    r"(?P<amd>IO_PAGE_FAULT|[A-Z_]+)|DMAR: \[?(?:DRHD: handling fault|DMA \w+\]? Request)|iommu fault"
                    r"|IOMMU fault)")
_AER = re.compile(r"AER: (?P<sev>Uncorrected|Corrected|Multiple)[^:]*error", re.I)

def bus_key(bdf: str) -> str:
    """'0000:3b:00' / '00000000:3B:00.0' / NCCL '3b000' -> '3b:00' (bus:device), for joining."""
    text = bdf.lower()
    if ":" not in text:
        # NCCL busId: hex with no domain, e.g. 3b000 = bus 0x3b, device 0x00, function 0.
        value = int(text, 16)
        return f"{(value >> 12) & 0xFF:02x}:{(value >> 4) & 0xFF:02x}"
    parts = text.split(":")
    bus, dev = parts[-2], parts[-1].split(".")[0]
    return f"{int(bus, 16):02x}:{int(dev, 16):02x}"


# The host field of a syslog line ('Dec  4 10:00:01 node-b kernel: ...', RFC 3164) or of
# journalctl's short / short-iso output ('2026-12-04T10:00:01+0000 node-b kernel: ...').
_SYSLOG_HOST = re.compile(
    r"^(?:[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d|\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d)?) "
    r"(?P<host>[A-Za-z0-9][\w.-]*) kernel: ")


def parse(ctx: LineCtx, state: SourceState) -> list[Record]:
    events = _parse(ctx)
    if events and ctx.origin.host is None:
        m = _SYSLOG_HOST.match(ctx.text) or _SYSLOG_HOST.match(ctx.body)
        if m:
            for ev in events:
                ev.host = m["host"]
    return events


def _parse(ctx: LineCtx) -> list[Record]:
    body = ctx.body
    if "NVRM" in body:
        m = _XID.search(body)
        if m:
            # The Xid's number; its name and class are the catalog's (signatures/xid.py, asked
            # by facts.py).
            xid = int(m["xid"])
            pid = m["pid"].strip("'<>") if m["pid"] else None
            return [
                ctx.record(
                    "xid",
                    xid=xid,
                    bus=bus_key(m["bdf"]) if m["bdf"] else None,
                    xid_pid=int(pid) if pid and pid.isdigit() else None,
                    process=None if not m["name"] or m["name"].strip("'<>") == "unknown" else m["name"],
                    detail=m["msg"],
                )
            ]
        m = _NVRM_GPU.search(body)
        if m:
            # Only who: the GPU on this PCI bus (its rank is joined in facts.py); what the line
            # means (a GPU fallen off the bus is a hardware fault) is the catalog's
            # (data/system.toml), not an Xid the parser would make up.
            return [ctx.record("nvrm_gpu", bus=bus_key(m["bdf"]))]
    # Each search guarded by what its pattern needs (parsers.base.searched): most lines that
    # reach this parser (no other format took them) are none of these.
    low = body.lower()
    m = searched(_OOM_KILL, body, low)
    if m:
        pid = m["pid"] or m["pid2"]
        # The kernel's report of a process it killed; that it was for memory is the catalog's
        # reading of the line (data/system.toml), which facts.py asks.
        return [ctx.record("kernel_kill", victim_pid=int(pid), process=(m["name"] or m["name2"]))]
    if "AMD-Vi" in body or "DMAR" in body or "iommu" in low:
        m = _IOMMU.search(body)
        if m:
            return [ctx.record("iommu_fault", device=m["dev"], fault_kind=m["amd"] or "DMAR")]
    m = searched(_AER, body, low)
    if m:
        return [ctx.record("pcie_aer", aer=m["sev"])]
    return []
