"""Kernel log lines (dmesg / journal): NVRM Xid with the code table of FORMATS.md §3.2, GPU
fell off the bus, the host OOM killer, IOMMU / AMD-Vi / DMAR faults, PCIe AER errors."""
from __future__ import annotations

import re

from ..model import Event
from .base import LineCtx, SourceState

_XID = re.compile(
    # The PCI id may be masked by whoever pasted the log ('(PCI:...)', '(PCI:xxxx:xx:xx)'): the
    # Xid still counts, only the GPU is then unknown.
    r"NVRM: Xid \((?:PCI:)?(?:(?P<bdf>[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2})|[^)\s]*?)(?:\.\d)?"
    r"(?: GPU-I:(?P<gi>\d+))?(?: GPU-CI:(?P<ci>\d+))?\): (?P<xid>\d+), "
    r"(?:pid=(?P<pid>'?<?[\w]+>?'?), (?:name=(?P<name>[^,]*), )?)?(?P<msg>.*)$"
)
_OFF_BUS = re.compile(r"NVRM: GPU (?P<bdf>[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2})"
                      r"\.\d: GPU has fallen off the bus")
# 'Out of memory: Killed process 42 (python)' (one line, newer kernels) or a separate
# 'Killed process 42 (python) total-vm:...' line (older kernels), or the oom-kill summary.
_OOM_KILL = re.compile(r"(?:Out of memory: )?Kill(?:ed)? process (?P<pid>\d+) \((?P<name>[^)]+)\)|oom-kill:.*task="
                       r"(?P<name2>[^,]+),pid=(?P<pid2>\d+)")
_IOMMU = re.compile(r"(?P<dev>[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.\d)?:? ?(?:AMD-Vi: Event logged "
                    r"\[(?P<amd>IO_PAGE_FAULT|[A-Z_]+)|DMAR: \[?(?:DRHD: handling fault|DMA \w+\]? Request)|iommu fault"
                    r"|IOMMU fault)")
_AER = re.compile(r"AER: (?P<sev>Uncorrected|Corrected|Multiple)[^:]*error", re.I)

# Xid -> (name, fault class). Classes: hardware, app, secondary, driver.
XID_TABLE: dict[int, tuple[str, str]] = {
    8: ("GPU stopped processing (FIFO idle timeout)", "app"),
    13: ("Graphics engine exception", "app"),
    31: ("GPU memory page fault (MMU fault)", "app"),
    32: ("Invalid or corrupted push buffer stream", "hardware"),
    43: ("GPU stopped processing (channel reset after fault)", "app"),
    45: ("Preemptive cleanup, due to previous errors", "secondary"),
    48: ("Double-bit (uncorrectable) ECC error", "hardware"),
    61: ("Internal micro-controller breakpoint/warning", "driver"),
    62: ("Internal micro-controller halt", "hardware"),
    63: ("ECC page retirement or row remapping recorded", "hardware"),
    64: ("ECC page retirement or row remapping failure", "hardware"),
    68: ("Video decoder exception", "driver"),
    69: ("Graphics engine class error", "driver"),
    74: ("NVLink error", "hardware"),
    79: ("GPU has fallen off the bus", "hardware"),
    92: ("High single-bit ECC error rate", "hardware"),
    93: ("Non-fatal InfoROM violation", "hardware"),
    94: ("Contained uncorrectable ECC error", "hardware"),
    95: ("Uncontained uncorrectable ECC error", "hardware"),
    119: ("GSP RPC timeout", "hardware"),
    120: ("GSP error", "hardware"),
    121: ("C2C link error", "hardware"),
    136: ("NVLink ALI training failure", "hardware"),
    137: ("NVLink FLA privilege error", "driver"),
    140: ("Unrecovered ECC error (escaped containment)", "hardware"),
    143: ("GPU initialization failure", "hardware"),
    154: ("GPU recovery action changed", "hardware"),
}


# Xid ranges not in XID_TABLE one by one: NVLink sub-units, and the GPU faults of R57x+ drivers.
_NVLINK_XIDS = range(144, 151)
_R57X_FAULT_XIDS = range(155, 177)


def xid_info(xid: int) -> tuple[str, str]:
    if xid in XID_TABLE:
        return XID_TABLE[xid]
    if xid in _NVLINK_XIDS:
        return ("NVLink sub-unit error", "hardware")
    if xid in _R57X_FAULT_XIDS:
        return ("GPU fault (R57x+ code)", "hardware")
    return (f"Xid {xid}", "driver")


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


def parse(ctx: LineCtx, state: SourceState) -> list[Event]:
    body = ctx.body
    if "NVRM" in body:
        m = _XID.search(body)
        if m:
            xid = int(m["xid"])
            name, cls = xid_info(xid)
            pid = m["pid"].strip("'<>") if m["pid"] else None
            return [
                ctx.event(
                    "xid",
                    severity="error" if cls in ("hardware", "app") else "warn",
                    xid=xid,
                    xid_name=name,
                    fault_class=cls,
                    bus=bus_key(m["bdf"]) if m["bdf"] else None,
                    xid_pid=int(pid) if pid and pid.isdigit() else None,
                    process=None if not m["name"] or m["name"].strip("'<>") == "unknown" else m["name"],
                    detail=m["msg"],
                )
            ]
        m = _OFF_BUS.search(body)
        if m:
            return [ctx.event("xid", severity="error", xid=79, xid_name=XID_TABLE[79][0], fault_class="hardware",
                              bus=bus_key(m["bdf"]), xid_pid=None, process=None, detail="GPU has fallen off the bus")]
    m = _OOM_KILL.search(body)
    if m:
        pid = m["pid"] or m["pid2"]
        return [ctx.event("host_oom_kill", severity="fatal", victim_pid=int(pid), process=(m["name"] or m["name2"]))]
    if "AMD-Vi" in body or "DMAR" in body or "iommu" in body.lower():
        m = _IOMMU.search(body)
        if m:
            return [ctx.event("iommu_fault", severity="error", device=m["dev"], fault_kind=m["amd"] or "DMAR")]
    m = _AER.search(body)
    if m:
        return [ctx.event("pcie_aer", severity="error" if m["sev"].lower() != "corrected" else "warn", aer=m["sev"])]
    return []
