"""An incident's fingerprint, read from its stored diagnosis JSON (docs/design.md's diagnose contract).

Pure functions over plain data, no database: the grouping service, the benchmark and the tests
all call `fingerprint_of`. Only the JSON contract is read, never engine internals, so a change
inside the engine does not regroup the fleet unless the verdict itself changes. What a cause or
a line means for the machine is the signature catalog's (its cause traits and its entries'
`severity`), read through the catalog's matcher, never decided here.

What the fingerprint reads out of a line (the Xid code, the GPU's PCI bus, the NIC and port) are
the named groups of the catalog entry that reads the line (its `extract`), never a pattern of
the fleet's own: the first-failure and evidence lines are read again through the catalog's
matcher (the same line gives the same entry and the same groups on any machine, and diagnoses
stored before a field existed read the same way), and the first failure's `bus_id`, which the
engine gives, comes first.

What makes two incidents "the same problem": the cause, the culprit host, the GPU (its UUID
where a snapshot has it, else its PCI bus, else the CUDA device index), the NIC/HCA when the
cause is the network, and the message family of the first-failure line: the signature catalog's
id when the verdict carries one (`signature.*`), otherwise the line itself with everything that
changes from one occurrence to the next (hosts, pids, times, numbers, hex ids, sizes) replaced
by placeholders.
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import asdict, dataclass, field
from typing import Any

from triage.engine.signatures import BY_ID
from triage.engine.signatures import cause as traits
from triage.engine.signatures.matcher import Match, matcher

CATALOG_RULE = "signature."  # the rule id of a catalog finding is this and the entry's id

# The names the catalog's `extract` groups go by (signatures/schema.py), read by name: the Xid
# code, the GPU's PCI bus, and the NIC a network line names (an HCA and its port as NCCL, UCX and
# the kernel print them, or the netdev the kernel names), in that order of preference.
XID_GROUP = "xid"
BUS_GROUP = "bus_id"
NIC_GROUPS = ("hca", "iface")
PORT_GROUP = "port"
# The entries' `severity` (schema.SEVERITIES), most severe first: `drain` (DCGM_ERROR_ISOLATE:
# take the node out), `reset` (DCGM_ERROR_RESET: drain it and reset the GPU), `none`.
# (tests/fleet/test_fingerprint.py holds these to SEVERITIES.)
DRAIN, RESET, NO_SEVERITY = "drain", "reset", "none"
NODE_SEVERITIES = (DRAIN, RESET)
TRANSPORT_RE = re.compile(r"\bNET/(IB|Socket|AWS Libfabric|OFI|[A-Za-z]+)\b")

# Normalisation of a log line into its message family. Order matters: the specific shapes go
# before the generic number rule, so "0x7f3a" becomes <hex>, not <hex> then <n>.
_NORMALISERS: tuple[tuple[re.Pattern[str], str], ...] = (
    # Leading timestamps of any wrapper: dmesg "[123.456]", ISO, glog "E1003 19:05:01.08", syslog.
    (re.compile(r"^\s*\[\s*\d+\.\d+\]\s*"), ""),
    (re.compile(r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?"), "<time>"),
    (re.compile(r"\b[EWIF]\d{3,4} \d{2}:\d{2}:\d{2}(?:\.\d+)?"), "<time>"),
    (re.compile(r"\b\d{2}:\d{2}:\d{2}(?:\.\d+)?\b"), "<time>"),
    (re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.I), "<uuid>"),
    (re.compile(r"\bGPU-[0-9a-f-]+", re.I), "GPU-<uuid>"),
    (re.compile(r"\b[0-9a-f]{4,8}:[0-9a-f]{2}:[0-9a-f]{2}(?:\.[0-9a-f])?\b|\b[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]\b", re.I),
     "<pci>"),
    (re.compile(r"/dev/shm/[^\s,)'\"]+"), "/dev/shm/<name>"),
    (re.compile(r"\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\b"), "<ip>"),
    (re.compile(r"\b0x[0-9a-f]+\b", re.I), "<hex>"),
    (re.compile(r"\b\d+(?:\.\d+)?\s*(?:[KMGT]i?B|bytes?)\b", re.I), "<size>"),
    (re.compile(r"\b(pid|tid|rank|local_rank|device|dev|cudaDev|nvmlDev)\s*[=:]?\s*\d+", re.I), r"\1 <n>"),
    (re.compile(r"\b[0-9a-f]*\d[0-9a-f]*[a-f][0-9a-f]*\b|\b[0-9a-f]*[a-f][0-9a-f]*\d[0-9a-f]*\b", re.I), "<hex>"),
    (re.compile(r"\d+"), "<n>"),
    (re.compile(r"\s+"), " "),
)
# Framework prefixes carrying who and where ("[rank7]:", "[default3]:", "node-b:123:456 [3]").
_PREFIXES = re.compile(r"^(?:\[(?:default|rank)\d+\]:\s*)+")
_NCCL_HOST_PREFIX = re.compile(r"^(?:\[[^\]]*\]\s*)?\S+:\d+:\d+\s+\[\d+\]\s*")


def failure_key(diagnosis: dict[str, Any]) -> str:
    """The same failure reported again, read from the failure itself, never from the archive's
    bytes or names: its host, GPU, process, first-failure line and that line's time. Two uploads of
    one job's logs (repacked as another format, renamed, with a file more) share it; two failures
    do not, since the time differs, or, where the line has no time the bundle can place (a dmesg
    line with no boot time beside it), the process does (a new run has new pids; the dmesg line's
    own uptime stamp is in its text). Empty when neither a time nor a pid tells the failure apart,
    or the line has no host."""
    ff = diagnosis.get("first_failure") or {}
    host, text = ff.get("host"), str(ff.get("text") or "").strip()
    when = ff.get("time") or ff.get("time_yearless") or ff.get("time_estimate")
    pid, device = ff.get("pid"), ff.get("device")
    if not host or not text or (not when and pid is None):
        return ""
    parts = (str(host), "" if device is None else str(device), "" if pid is None else str(pid), str(when or ""), text)
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:40]


@dataclass(frozen=True)
class Fingerprint:
    cause: str
    host: str
    gpu: str  # "uuid:GPU-...", "pci:0000:5d:00", "dev:3" or ""
    gpu_label: str  # how a person reads it: "GPU 3 (0000:5d:00, GPU-…)"
    device: int | None
    pci: str
    uuid: str
    nic: str
    family: str
    transport: str
    machine_fault: bool  # a fault of the machine seen: counted per host, GPU and NIC over time
    machine_reason: str
    hosts: list[str] = field(default_factory=list)
    # The most severe `severity` of the catalog entries of the verdict's cause that read its lines
    # (drain, reset), "" where none sets one: what the drain rule counts.
    severity: str = ""
    xid: int | None = None  # the Xid code those entries read, where one does

    @property
    def key(self) -> str:
        """What grouping compares: a stable hash of the parts that make a problem."""
        text = "\x1f".join((self.cause, self.host, self.gpu, self.nic, self.family))
        return hashlib.sha256(text.encode()).hexdigest()[:40]

    def grouped_because(self) -> str:
        parts = [f"cause {self.cause}"]
        if self.host:
            parts.append(f"culprit host {self.host}")
        if self.gpu:
            parts.append(f"GPU {self.gpu_label or self.gpu}")
        if self.nic:
            parts.append(f"NIC {self.nic}")
        if self.family:
            parts.append(f"message family “{self.family}”")
        return "same " + ", same ".join(parts)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def normalise_message(text: str, *, hosts: list[str] | tuple[str, ...] = ()) -> str:
    """The family of a log line: what stays the same when the same fault happens again."""
    line = (text or "").strip()
    line = _PREFIXES.sub("", line)
    line = _NCCL_HOST_PREFIX.sub("", line)
    # The Xid code is the meaning of an Xid line (79: fell off the bus, 48: DBE): keep it, as the
    # catalog entry reading the line captures it.
    found = matcher().best(line) if line else None
    xid = _xid_of(found) if found is not None else None
    for host in sorted((h for h in hosts if h), key=len, reverse=True):
        line = re.sub(rf"(?<![\w-]){re.escape(host)}(?![\w-])", "<host>", line)
    for pattern, repl in _NORMALISERS:
        line = pattern.sub(repl, line)
    line = line.strip()[:240]
    if xid is not None:
        line = f"Xid {xid}: " + line
    return line


def job_family(job: str) -> str:
    """The job without its array or attempt suffix: "4411_3" and "4411_7" are one job, and so
    are "pretrain.attempt-2" and "pretrain.attempt-3"."""
    family = (job or "").strip()
    family = re.sub(r"[._-](?:attempt|retry|try|restart|run)[._-]?\d+$", "", family, flags=re.I)
    family = re.sub(r"_\d+$", "", family)  # Slurm array task
    return family


def _lines(diagnosis: dict[str, Any]) -> list[str]:
    """The lines the verdict stands on: the first failure's, then its evidence."""
    verdict = (diagnosis.get("findings") or [{}])[0] or {}
    texts = [str((diagnosis.get("first_failure") or {}).get("text") or "")]
    texts += [str(ev.get("text") or "") for ev in verdict.get("evidence") or [] if isinstance(ev, dict)]
    return [t for t in texts if t]


def readings(lines: list[str]) -> list[Match]:
    """The catalog entry reading each line, with its `extract` groups (lines no entry reads left out)."""
    read = matcher()
    return [found for found in map(read.best, lines) if found is not None]


def _xid_of(found: Match) -> int | None:
    """The Xid code of a reading: the entry's one code (what the entry reads the line as: "Xid 45
    ... caused by previous Xid 149" is the Xid 149 entry's), else its `xid` group."""
    if len(found.sig.codes) == 1:
        return found.sig.codes[0]
    code = found.groups.get(XID_GROUP)
    return int(code) if code is not None and str(code).isdigit() else None


def _nic_of(found: Match) -> str:
    """The NIC a reading names: `mlx5_0`, with its port where the line gives one (`mlx5_0:1`)."""
    name = next((str(found.groups[g]) for g in NIC_GROUPS if found.groups.get(g)), "")
    port = found.groups.get(PORT_GROUP)
    return f"{name}:{port}" if name and port and str(port).isdigit() else name


def _culprit_host(diagnosis: dict[str, Any]) -> str:
    first = diagnosis.get("first_failure") or {}
    if first.get("host"):
        return str(first["host"])
    verdict = (diagnosis.get("findings") or [{}])[0] or {}
    hosts = [h for h in verdict.get("hosts") or [] if h]
    return str(hosts[0]) if len(hosts) == 1 else ""


def _culprit_device(diagnosis: dict[str, Any], host: str) -> int | None:
    first = diagnosis.get("first_failure") or {}
    verdict = (diagnosis.get("findings") or [{}])[0] or {}
    ranks = [first.get("rank")] if first.get("rank") is not None else list(verdict.get("ranks") or [])[:1]
    for row in diagnosis.get("ranks") or []:
        if row.get("rank") in ranks and row.get("rank") is not None and (not host or row.get("host") == host):
            device = row.get("device")
            return int(device) if isinstance(device, int) else None
    return None


def _pci_of(diagnosis: dict[str, Any], read: list[Match]) -> str:
    """The culprit GPU's PCI bus: the first failure's `bus_id` (the engine's, from the line or its
    rank), else the `bus_id` group of the first entry reading a verdict line that captures one."""
    bus = (diagnosis.get("first_failure") or {}).get("bus_id")
    if isinstance(bus, str) and pci_short(bus):
        return pci_short(bus)
    return next((pci_short(str(found.groups[BUS_GROUP])) for found in read
                 if found.groups.get(BUS_GROUP) and pci_short(str(found.groups[BUS_GROUP]))), "")


def host_snapshot(diagnosis: dict[str, Any], host: str) -> dict[str, Any] | None:
    for snap in diagnosis.get("snapshots") or []:
        if isinstance(snap, dict) and ((snap.get("host") or {}).get("hostname") == host):
            return snap
    return None


def snapshot_gpus(snapshot: dict[str, Any] | None) -> list[dict[str, Any]]:
    nvml = (snapshot or {}).get("nvml") or {}
    return [g for g in nvml.get("gpus") or [] if isinstance(g, dict)]


def pci_short(bus_id: str) -> str:
    """"00000000:5D:00.0" / "0000:5d:00" -> "5d:00" (bus:device), the part every tool agrees on;
    NCCL's `busId` number (the same id with its separators taken out, "5d000") too."""
    text = (bus_id or "").strip()
    m = re.search(r"([0-9a-f]{2}):([0-9a-f]{2})(?:\.[0-9a-f])?$", text, re.I)
    if m:
        return f"{m.group(1).lower()}:{m.group(2).lower()}"
    if re.fullmatch(r"[0-9a-f]{5,13}", text, re.I):  # domain, bus, device, function as hex digits
        digits = text.lower().zfill(9)
        return f"{digits[-5:-3]}:{digits[-3:-1]}"
    return ""


def gpu_key(*, uuid: str = "", pci: str = "", device: int | None = None) -> str:
    if uuid:
        return f"uuid:{uuid}"
    if pci:
        return f"pci:{pci}"
    if device is not None:
        return f"dev:{device}"
    return ""


def _gpu_identity(diagnosis: dict[str, Any], host: str, read: list[Match]) -> tuple[str, str, int | None, str, str]:
    device = _culprit_device(diagnosis, host)
    pci = _pci_of(diagnosis, read)
    uuid = ""
    gpus = snapshot_gpus(host_snapshot(diagnosis, host)) if host else []
    match = None
    if pci:
        match = next((g for g in gpus if pci_short(str(g.get("pci_bus_id") or "")) == pci), None)
    if match is None and device is not None and not pci:
        # The CUDA ordinal equals the NVML index when CUDA_VISIBLE_DEVICES is unset (the common case).
        match = next((g for g in gpus if g.get("index") == device), None)
    if match is not None:
        uuid = str(match.get("uuid") or "")
        pci = pci or pci_short(str(match.get("pci_bus_id") or ""))
        if device is None and isinstance(match.get("index"), int):
            device = match["index"]
    key = gpu_key(uuid=uuid, pci=pci, device=device)
    label_bits = [f"GPU {device}" if device is not None else "GPU"]
    if pci:
        label_bits.append(pci)
    label = (f"{label_bits[0]} ({', '.join(label_bits[1:] + ([uuid] if uuid else []))})"
             if len(label_bits) > 1 or uuid else label_bits[0])
    return key, (label if key else ""), device, pci, uuid


def fingerprint_of(diagnosis: dict[str, Any]) -> Fingerprint | None:
    """The fingerprint of a diagnosis, or None when there is no verdict to group by."""
    findings = diagnosis.get("findings") or []
    if not findings or not isinstance(findings[0], dict):
        return None
    verdict = findings[0]
    cause = str(verdict.get("cause") or "other")
    host = _culprit_host(diagnosis)
    lines = _lines(diagnosis)
    read = readings(lines)
    gpu, label, device, pci, uuid = (
        _gpu_identity(diagnosis, host, read) if (host and traits(cause).per_gpu) else ("", "", None, "", "")
    )

    nic = ""
    if traits(cause).per_nic:
        nic = next((name for found in read for name in [_nic_of(found)] if name), "")
    transport = next((m.group(1) for t in lines for m in [TRANSPORT_RE.search(t)] if m), "")

    rule = str(verdict.get("rule") or "")
    all_hosts = sorted({str(h) for h in verdict.get("hosts") or [] if h} | ({host} if host else set()))
    if rule.startswith(CATALOG_RULE):
        family = rule
    else:
        first_text = str((diagnosis.get("first_failure") or {}).get("text") or "")
        rank_hosts = [str(r.get("host")) for r in diagnosis.get("ranks") or [] if r.get("host")]
        family = normalise_message(first_text, hosts=sorted(set(all_hosts + rank_hosts))) if first_text else rule

    machine = machine_reading(cause, rule, read, nic)
    return Fingerprint(
        cause=cause, host=host, gpu=gpu, gpu_label=label, device=device, pci=pci, uuid=uuid, nic=nic,
        family=family, transport=transport, machine_fault=machine.fault and bool(host), machine_reason=machine.reason,
        hosts=all_hosts, severity=machine.severity if host else "", xid=machine.xid,
    )


@dataclass(frozen=True)
class MachineReading:
    """What a verdict says about its machine, all of it the catalog's: `fault`, a fault of the
    machine seen (a cause whose trait is `machine`, or a line of the verdict's cause whose entry
    sets a node `severity`); `severity`, the most severe of those entries' (`drain`, `reset`, or
    "" where none sets one); `reason`, `Xid <code>` where the entry reads one, else its title."""

    fault: bool = False
    severity: str = ""
    reason: str = ""
    xid: int | None = None


def machine_reading(cause: str, rule: str, read: list[Match], nic: str) -> MachineReading:
    """The verdict's own entry (a catalog finding) and the entries reading its lines, those of the
    verdict's cause only, decide; a network fault the verdict cannot place on a NIC of the host
    (its cause's trait `per_nic`, no entry's group naming one) is not the machine's."""
    if traits(cause).per_nic and not nic:
        return MachineReading()
    own = BY_ID.get(rule.removeprefix(CATALOG_RULE)) if rule.startswith(CATALOG_RULE) else None
    mine: list[Match] = [found for found in read if found.sig.cause == cause]
    if own is not None:
        # The verdict's own entry first, with the groups of a line it reads.
        own_read = next((found for found in read if found.sig.id == own.id), Match(own, {}))
        mine = [own_read] + [found for found in mine if found.sig.id != own.id]
    severe = [found for level in NODE_SEVERITIES for found in mine if found.sig.severity == level]
    lead = severe[0] if severe else (mine[0] if mine else None)
    if not severe and not traits(cause).machine:
        return MachineReading()
    xid = _xid_of(lead) if lead is not None else None
    if xid is None:
        xid = next((code for found in mine for code in [_xid_of(found)] if code is not None), None)
    reason = f"Xid {xid}" if xid is not None else (lead.sig.title if lead is not None else "GPU hardware fault")
    if nic and xid is None:
        reason += f" on {nic}"
    return MachineReading(fault=True, severity=severe[0].sig.severity if severe else "", reason=reason, xid=xid)
