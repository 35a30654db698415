"""Shapes the stored diagnosis into what the incident page shows (tables, summaries).

Pure functions of the stored data: no queries beyond the incident's own rows.
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from django.urls import reverse

from triage.fanout.selectors import incident_nodes_reported
from triage.fleet.commands import incident_drain
from triage.incidents.models import Finding, Incident
from triage.incidents.redact import redact_data, redact_text

# Below this, /dev/shm is the container default or close to it: NCCL's SHM transport fails.
SHM_SMALL_BYTES = 1024 * 1024 * 1024
# Hex digits of a PCI bus id: bus, device and function (5) up to a 32-bit domain in front (13).
PCI_ID_DIGITS = (5, 13)


@dataclass
class VersionsTable:
    components: list[str]
    rows: list[tuple[str, list[str | None]]]  # (host, one value per component)
    differing: set[str] = field(default_factory=set)  # components whose values differ


@dataclass
class HostSnapshot:
    host: str
    nvml_available: bool
    nvml_reason: str
    gpu_count: int
    gpu_names: list[str]
    driver: str | None
    cuda_driver: str | None
    ecc_uncorrected: int | None
    ecc_corrected: int | None
    remap_pending: bool
    shm_size: int | None
    shm_free: int | None
    shm_small: bool
    kernel: str | None
    container: bool | None
    xids: list[dict[str, Any]]


@dataclass(frozen=True)
class PageLinks:
    """Where the page's parts are fetched from: the team's URLs, or a share link's."""

    log: str
    timeline: str
    trace: str


def team_links(incident: Incident) -> PageLinks:
    return PageLinks(
        log=reverse("web:incident-log", args=[incident.pk]),
        timeline=reverse("web:incident-timeline", args=[incident.pk]),
        trace=reverse("web:incident-trace", args=[incident.pk]),
    )


def share_links(secret: str) -> PageLinks:
    return PageLinks(
        log=reverse("web:share-log", args=[secret]),
        timeline=reverse("web:share-timeline", args=[secret]),
        trace=reverse("web:share-trace", args=[secret]),
    )


@dataclass(frozen=True)
class FindingView:
    """A finding as shown: every text that may quote a log passed through the redactor."""

    cause: str
    rule: str
    confidence: str
    title: str
    detail: str
    fix: str
    ranks: list[Any]
    hosts: list[Any]
    evidence: list[dict[str, Any]]
    # What the finding knows of the failing process, for the placeholders of its fix commands.
    values: dict[str, Any] = field(default_factory=dict)


def finding_view(finding: Finding, values: dict[str, Any] | None = None) -> FindingView:
    return FindingView(
        cause=finding.cause, rule=finding.rule, confidence=finding.confidence,
        title=redact_text(finding.title), detail=redact_text(finding.detail), fix=redact_text(finding.fix),
        ranks=finding.ranks, hosts=finding.hosts, evidence=redact_data(finding.evidence), values=values or {},
    )


def nvidia_smi_id(device: Any, bus_id: Any) -> str | None:
    """What `nvidia-smi -i` should get: the PCI bus id when NCCL printed it (it names the same
    GPU whatever CUDA_VISIBLE_DEVICES says), else the device number."""
    if isinstance(bus_id, str):
        digits = "".join(c for c in bus_id if c in "0123456789abcdefABCDEF")
        if PCI_ID_DIGITS[0] <= len(digits) <= PCI_ID_DIGITS[1]:
            fn, dev, bus, domain = digits[-1], digits[-3:-1], digits[-5:-3], digits[:-5] or "0"
            return f"{int(domain, 16):08X}:{bus.upper()}:{dev.upper()}.{fn}"
    return str(device) if isinstance(device, int) and not isinstance(device, bool) else None


def _process_values(*, rank: Any, host: Any, pid: Any, device: Any, bus_id: Any) -> dict[str, Any]:
    values = {"rank": rank, "host": host, "pid": pid, "gpu": nvidia_smi_id(device, bus_id)}
    return {k: v for k, v in values.items() if v not in (None, "")}


def finding_values(finding: Finding, *, is_verdict: bool, first_failure: dict[str, Any] | None,
                   ranks: dict[Any, dict[str, Any]]) -> dict[str, Any]:
    """The verdict knows its first failure; another finding knows its process when it names one rank."""
    if is_verdict and first_failure:
        return _process_values(rank=first_failure.get("rank"), host=first_failure.get("host"),
                               pid=first_failure.get("pid"), device=first_failure.get("device"),
                               bus_id=first_failure.get("bus_id"))
    named = sorted(set(finding.ranks or []), key=str)
    if len(named) == 1 and named[0] in ranks:
        r = ranks[named[0]]
        return _process_values(rank=named[0], host=r.get("host"), pid=r.get("pid"), device=r.get("device"),
                               bus_id=r.get("bus_id"))
    return {}


def incident_page_context(incident: Incident, *, links: PageLinks | None = None,
                          shared: bool = False) -> dict[str, Any]:
    links = links or team_links(incident)
    diagnosis = getattr(incident, "diagnosis", None)
    # Everything read from the logs is shown redacted; the stored diagnosis stays as it was.
    data: dict[str, Any] = redact_data(diagnosis.data) if diagnosis is not None else {}
    first_failure = redact_data(incident.first_failure) if incident.first_failure else None
    by_rank = {r.get("rank"): r for r in (data.get("timeline") or {}).get("ranks") or []
               if isinstance(r, dict) and r.get("rank") is not None}
    findings = [finding_view(f, finding_values(f, is_verdict=i == 0, first_failure=first_failure, ranks=by_rank))
                for i, f in enumerate(incident.findings.all())]
    return {
        "incident": incident,
        "diagnosis": diagnosis,
        "data": data,
        "findings": findings,
        "verdict": findings[0] if findings else None,
        "other_findings": findings[1:],
        "first_failure": first_failure,
        "first_failure_gpu": nvidia_smi_id((first_failure or {}).get("device"), (first_failure or {}).get("bus_id")),
        "ranks": rank_rows(list(incident.rank_states.all()), data.get("timeline") or {}),
        "versions": versions_table(data.get("versions") or {}),
        "snapshots": [host_snapshot(s) for s in data.get("snapshots") or [] if isinstance(s, dict)],
        "health": [health_check(h) for h in data.get("health") or [] if isinstance(h, dict)],
        "bundles": list(incident.bundles.all()),
        "nodes_reported": incident_nodes_reported(incident=incident),
        "links": links,
        "shared": shared,
        "log_url": links.log,
        "drain": incident_drain(incident_id=incident.pk, host=(first_failure or {}).get("host"),
                                title=incident.display_title) if not shared else None,
        # For timeline.js: it substitutes SOURCE and LINE (URL-encoded) when a mark is clicked.
        "log_url_template": f"{links.log}?source=SOURCE&line=LINE#LLINE",
    }


def rank_rows(states: list[Any], timeline: dict[str, Any]) -> list[dict[str, Any]]:
    """Rank states, with the bus id and last line the timeline knows for each."""
    extra = {(r.get("rank"), r.get("host"), r.get("pid")): r for r in timeline.get("ranks") or []}
    rows = []
    for state in states:
        more = extra.get((state.rank, state.host or None, state.pid)) or {}
        rows.append({"state": state, "bus_id": more.get("bus_id"), "last_line": more.get("last_line")})
    return rows


def versions_table(versions: dict[str, dict[str, Any]]) -> VersionsTable:
    components = sorted({c for per_host in versions.values() for c in per_host})
    rows = [(host, [_text(versions[host].get(c)) for c in components]) for host in sorted(versions)]
    differing = {
        c for i, c in enumerate(components) if len({row[1][i] for row in rows if row[1][i] is not None}) > 1
    }
    return VersionsTable(components=components, rows=rows, differing=differing)


def host_snapshot(snapshot: dict[str, Any]) -> HostSnapshot:
    host = snapshot.get("host") or {}
    nvml = snapshot.get("nvml") or {}
    gpus = [g for g in nvml.get("gpus") or [] if isinstance(g, dict)]
    shm = host.get("shm") or {}
    shm_size = shm.get("size_bytes")
    return HostSnapshot(
        host=host.get("hostname") or "?",
        nvml_available=bool(nvml.get("available")),
        nvml_reason=nvml.get("reason") or "",
        gpu_count=len(gpus),
        gpu_names=sorted({g.get("name") or "?" for g in gpus}),
        driver=nvml.get("driver_version"),
        cuda_driver=nvml.get("cuda_driver_version"),
        ecc_uncorrected=_ecc_sum(gpus, ("uncorrected_volatile", "uncorrected_aggregate")),
        ecc_corrected=_ecc_sum(gpus, ("corrected_volatile", "corrected_aggregate")),
        remap_pending=any((g.get("remapped_rows") or {}).get("pending") for g in gpus),
        shm_size=shm_size,
        shm_free=shm.get("free_bytes"),
        shm_small=isinstance(shm_size, int) and shm_size < SHM_SMALL_BYTES,
        kernel=host.get("kernel"),
        container=host.get("container"),
        xids=[x for x in snapshot.get("xid") or [] if isinstance(x, dict)],
    )


def health_check(result: dict[str, Any]) -> dict[str, Any]:
    """A smoke-check result (schema nccl-triage/smoke@1) as one row: the host's health record."""
    ranks = [r for r in result.get("ranks") or [] if isinstance(r, dict)]
    failed = [r for r in ranks if not r.get("ok")]
    return {
        "host": result.get("host") or "?",
        "backend": result.get("backend"),
        "world_size": result.get("world_size"),
        "ok": bool(result.get("ok")),
        "busbw_gbps": result.get("busbw_gbps"),
        "failed_ranks": [r.get("rank") for r in failed],
        "first_error": next((str(r.get("error")) for r in failed if r.get("error")), None),
    }


def _ecc_sum(gpus: list[dict[str, Any]], keys: tuple[str, ...]) -> int | None:
    """The largest of the counters over all GPUs (volatile vs aggregate overlap, so not a sum
    of both kinds); None when no GPU reported any."""
    values = []
    for gpu in gpus:
        ecc = gpu.get("ecc") or {}
        counts = [v for k in keys if isinstance(v := ecc.get(k), int)]
        if counts:
            values.append(max(counts))
    return sum(values) if values else None


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


CSV_COLUMNS = ("id", "title", "status", "cause", "confidence", "host", "gpu", "rank", "job", "workflow",
               "assignee", "ticket_url", "created_at", "url")


def _csv_cell(value: Any) -> str:
    """A cell a spreadsheet shows as text: a value starting with = + - @ (or a tab/CR) would be
    run as a formula (CSV injection), so it gets a leading apostrophe."""
    text = "" if value is None else str(value)
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def incident_csv_rows(*, incidents: Any, base_url: str) -> Iterator[str]:
    """The header, then one CSV line per incident (streamed: a filter may match thousands)."""
    import csv
    import io

    buffer = io.StringIO()
    writer = csv.writer(buffer)

    def line(values: Any) -> str:
        buffer.seek(0)
        buffer.truncate()
        writer.writerow([_csv_cell(v) for v in values])
        return buffer.getvalue()

    yield line(CSV_COLUMNS)
    base = base_url.rstrip("/")
    for incident in incidents.iterator(chunk_size=500):
        ff = incident.first_failure if isinstance(incident.first_failure, dict) else {}
        yield line((
            incident.pk, redact_text(incident.display_title), incident.status, incident.cause,
            incident.confidence, ff.get("host"), ff.get("device"), ff.get("rank"), incident.job, incident.workflow,
            incident.assignee.get_username() if incident.assignee else "", incident.ticket_url,
            incident.created_at.isoformat(), base + reverse("web:incident-detail", args=[incident.pk]),
        ))
