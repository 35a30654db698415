"""An incident's fingerprint, read from its stored diagnosis JSON (docs/design.md's diagnose contract).

Pure functions over plain data, no database: the grouping service, the benchmark and the tests
all call `fingerprint_of`. Only the JSON contract is read, never engine internals, so a change
inside the engine does not regroup the fleet unless the verdict itself changes. What a cause or
a line means for the machine is the signature catalog's (its cause traits and its entries'
`severity`), read through the catalog's matcher, never decided here.

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
from triage.engine.signatures.matcher import matcher

CATALOG_RULE = "signature."  # the rule id of a catalog finding is this and the entry's id

# NIC/HCA names as NCCL, the kernel and ibstat print them (mlx5_0, mlx5_0:1, hfi1_0, efa0, ...).
NIC_RE = re.compile(r"\b((?:mlx\d|hfi\d|bnxt_re|irdma|rdmap|efa|qedr|erdma)_?\d+(?::\d+)?)\b")
TRANSPORT_RE = re.compile(r"\bNET/(IB|Socket|AWS Libfabric|OFI|[A-Za-z]+)\b")
# PCI bus of a GPU: Xid's "PCI:0000:5d:00", NVML's "00000000:5D:00.0", NCCL's "busId 5d000".
PCI_RE = re.compile(r"\bPCI:(?:[0-9a-f]{4,8}:)?([0-9a-f]{2}):([0-9a-f]{2})", re.I)
NCCL_BUSID_RE = re.compile(r"\bbusId\s+([0-9a-f]{1,2})000\b", re.I)
XID_RE = re.compile(r"\bXid\s*(?:\([^)]*\))?\s*:?\s*(\d+)", re.I)

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
    machine_fault: bool
    machine_reason: str
    hosts: list[str] = field(default_factory=list)

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
    # The Xid code is the meaning of an Xid line (79: fell off the bus, 48: DBE): keep it.
    xid = XID_RE.search(line)
    for host in sorted((h for h in hosts if h), key=len, reverse=True):
        line = re.sub(rf"(?<![\w-]){re.escape(host)}(?![\w-])", "<host>", line)
    for pattern, repl in _NORMALISERS:
        line = pattern.sub(repl, line)
    line = line.strip()[:240]
    if xid:
        line = f"Xid {xid.group(1)}: " + line
    return line


def job_family(job: str) -> str:
    """The job without its array or attempt suffix: "4411_3" and "4411_7" are one job, and so
    are "pretrain.attempt-2" and "pretrain.attempt-3"."""
    family = (job or "").strip()
    family = re.sub(r"[._-](?:attempt|retry|try|restart|run)[._-]?\d+$", "", family, flags=re.I)
    family = re.sub(r"_\d+$", "", family)  # Slurm array task
    return family


def _texts(diagnosis: dict[str, Any]) -> list[str]:
    verdict = (diagnosis.get("findings") or [{}])[0] or {}
    texts = [str((diagnosis.get("first_failure") or {}).get("text") or "")]
    texts += [str(ev.get("text") or "") for ev in verdict.get("evidence") or [] if isinstance(ev, dict)]
    texts += [str(verdict.get("title") or ""), str(verdict.get("detail") or "")]
    return [t for t in texts if t]


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


def _pci_of(texts: list[str]) -> str:
    for text in texts:
        m = PCI_RE.search(text)
        if m:
            return f"{m.group(1).lower()}:{m.group(2).lower()}"
        m = NCCL_BUSID_RE.search(text)
        if m:
            return f"{int(m.group(1), 16):02x}:00"
    return ""


def host_snapshot(diagnosis: dict[str, Any], host: str) -> dict[str, Any] | None:
    for snap in diagnosis.get("snapshots") or []:
        if isinstance(snap, dict) and ((snap.get("host") or {}).get("hostname") == host):
            return snap
    return None


def snapshot_gpus(snapshot: dict[str, Any] | None) -> list[dict[str, Any]]:
    nvml = (snapshot or {}).get("nvml") or {}
    return [g for g in nvml.get("gpus") or [] if isinstance(g, dict)]


def pci_short(bus_id: str) -> str:
    """"00000000:5D:00.0" / "0000:5d:00" -> "5d:00" (bus:device), the part every tool agrees on."""
    m = re.search(r"([0-9a-f]{2}):([0-9a-f]{2})(?:\.[0-9a-f])?$", (bus_id or "").strip(), re.I)
    return f"{m.group(1).lower()}:{m.group(2).lower()}" if m else ""


def gpu_key(*, uuid: str = "", pci: str = "", device: int | None = None) -> str:
    if uuid:
        return f"uuid:{uuid}"
    if pci:
        return f"pci:{pci}"
    if device is not None:
        return f"dev:{device}"
    return ""


def _gpu_identity(diagnosis: dict[str, Any], host: str, texts: list[str]) -> tuple[str, str, int | None, str, str]:
    device = _culprit_device(diagnosis, host)
    pci = _pci_of(texts)
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
    texts = _texts(diagnosis)
    gpu, label, device, pci, uuid = (
        _gpu_identity(diagnosis, host, texts) if (host and traits(cause).per_gpu) else ("", "", None, "", "")
    )

    nic = ""
    if traits(cause).per_nic:
        nic = next((m.group(1) for t in texts for m in [NIC_RE.search(t)] if m), "")
    transport = next((m.group(1) for t in texts for m in [TRANSPORT_RE.search(t)] if m), "")

    rule = str(verdict.get("rule") or "")
    all_hosts = sorted({str(h) for h in verdict.get("hosts") or [] if h} | ({host} if host else set()))
    if rule.startswith(CATALOG_RULE):
        family = rule
    else:
        first_text = str((diagnosis.get("first_failure") or {}).get("text") or "")
        rank_hosts = [str(r.get("host")) for r in diagnosis.get("ranks") or [] if r.get("host")]
        family = normalise_message(first_text, hosts=sorted(set(all_hosts + rank_hosts))) if first_text else rule

    machine, reason = _machine_fault(cause, rule, texts, nic)
    return Fingerprint(
        cause=cause, host=host, gpu=gpu, gpu_label=label, device=device, pci=pci, uuid=uuid, nic=nic,
        family=family, transport=transport, machine_fault=machine and bool(host), machine_reason=reason,
        hosts=all_hosts,
    )


def _machine_fault(cause: str, rule: str, texts: list[str], nic: str) -> tuple[bool, str]:
    """Whether the verdict counts against the machine, and why: a cause the catalog counts
    against it (a GPU hardware fault), else a line of the verdict's cause whose catalog entry
    says the node is suspect (`severity` drain or reset: an IB port error, a segfault)."""
    if traits(cause).machine:
        xid = XID_RE.search("\n".join(texts))
        return True, f"Xid {xid.group(1)}" if xid else "GPU hardware fault"
    own = BY_ID.get(rule.removeprefix(CATALOG_RULE))  # a catalog finding: the verdict's own entry
    read = (found.sig for found in map(matcher().best, texts) if found is not None)
    for sig in ([own] if own is not None else []) + list(read):
        if sig.cause == cause and sig.severity != "none":
            if traits(cause).per_nic and not nic:
                return False, ""  # a port error the verdict cannot place on a NIC of the host
            return True, sig.title + (f" on {nic}" if nic else "")
    return False, ""
