"""Reads of the fleet. Every read is per team: pages pass the teams a person belongs to, the API
the token's team. All of it reads the small derived tables (occurrences, problems), never the
diagnosis JSON, so the fleet page stays fast with tens of thousands of incidents."""
from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from functools import partial
from typing import Any

from django.conf import settings
from django.db.models import Count, F, Q
from django.db.models.functions import TruncDate
from django.utils import timezone

from .commands import drain_commands
from .fingerprint import DRAIN, NODE_SEVERITIES, RESET
from .models import Delivery, GpuRecord, HealthRecord, Occurrence, Problem, WanderFlag, Webhook

# What the host's decision says (docs/fleet.md#drain-reset-watch): `drain` and `reset` are the
# catalog's severities (a reset is a drain with the GPU reset before the node returns); `watch`
# is a GPU, NIC or host failing again and again by faults no entry says drain or reset for.
WATCH = "watch"


@dataclass
class DrainDecision:
    host: str
    recommended: bool
    reason: str
    incidents: int  # machine-fault incidents with this host as culprit, in the window
    incident_ids: list[str] = field(default_factory=list)
    gpu: str = ""
    action: str = ""  # "drain" | "reset" | "watch" | "" (nothing to do)
    severe: int = 0  # of `incidents`, those whose catalog entry says drain or reset

    @property
    def commands(self) -> dict[str, str] | None:
        """What takes the host out of service (None when no drain is recommended)."""
        if not self.recommended:
            return None
        return drain_commands(host=self.host, reason=f"nccl-triage: {self.reason}")


def _window_start(days: int) -> Any:
    return timezone.now() - timedelta(days=days)


def _why(rows: Sequence[Mapping[str, Any]]) -> str:
    reasons = Counter(r["machine_reason"] for r in rows if r["machine_reason"])
    return ", ".join(f"{reason} ×{n}" for reason, n in reasons.most_common())


def _repeated(rows: Sequence[Mapping[str, Any]], part: str, threshold: int) -> tuple[str, int]:
    """The GPU (or NIC) of the host that accounts for `threshold` of the rows alone, if one does."""
    counts = Counter(r[part] for r in rows if r[part])
    value, n = counts.most_common(1)[0] if counts else ("", 0)
    return (value, n) if n >= threshold else ("", 0)


def host_drain(*, team_id: int | list[int], host: str) -> DrainDecision:
    """The host's decision over the window (TRIAGE_DRAIN_WINDOW_DAYS), counting distinct failures
    with the host as culprit: `drain` recommended at TRIAGE_DRAIN_THRESHOLD of them whose catalog
    entry says `drain` or `reset` (`reset` where none says `drain`); else `watch` where one GPU,
    one NIC or the host itself was the culprit of that many faults of the machine seen (a hardware
    fault whose entry sets no severity: Xid 94, contained to the application)."""
    teams = team_id if isinstance(team_id, list) else [team_id]
    days, threshold = settings.TRIAGE_DRAIN_WINDOW_DAYS, settings.TRIAGE_DRAIN_THRESHOLD
    rows = list(
        # Distinct failures only: the same bundle (or failure) uploaded again is not counted.
        Occurrence.objects.filter(team_id__in=teams, host=host, machine_fault=True, seen_at__gte=_window_start(days),
                                  duplicate_of__isnull=True)
        .order_by("seen_at")
        .values("incident_id", "gpu", "gpu_label", "nic", "machine_reason", "severity")
    )
    ids = [r["incident_id"] for r in rows]
    severe = [r for r in rows if r["severity"] in NODE_SEVERITIES]
    decide = partial(DrainDecision, host=host, incidents=len(rows), incident_ids=ids, severe=len(severe))
    if len(severe) >= threshold:
        action = DRAIN if any(r["severity"] == DRAIN for r in severe) else RESET
        then = "" if action == DRAIN else "; reset the GPU (nvidia-smi -r) or reboot the node before it takes work"
        gpu, gpu_n = _repeated(severe, "gpu", threshold)
        if gpu:
            label = next(r["gpu_label"] for r in severe if r["gpu"] == gpu) or gpu
            reason = f"{label} was the culprit of {gpu_n} incidents within {days} days ({_why(severe)}){then}"
            return decide(recommended=True, reason=reason, gpu=gpu, action=action)
        reason = (f"culprit of {len(severe)} incidents within {days} days by faults of the machine's own "
                  f"({_why(severe)}){then}")
        return decide(recommended=True, reason=reason, action=action)
    gpu, n = _repeated(rows, "gpu", threshold)
    nic, nic_n = _repeated(rows, "nic", threshold)
    if gpu or nic:
        label = (next(r["gpu_label"] for r in rows if r["gpu"] == gpu) or gpu) if gpu else f"NIC {nic}"
        reason = (f"{label} was the culprit of {n or nic_n} incidents within {days} days ({_why(rows)}), "
                  f"no entry of them saying drain or reset: watch it")
        return decide(recommended=False, reason=reason, gpu=gpu, action=WATCH)
    if len(rows) >= threshold:
        reason = (f"culprit of {len(rows)} incidents within {days} days by faults of the machine's own "
                  f"({_why(rows)}), no entry of them saying drain or reset: watch it")
        return decide(recommended=False, reason=reason, action=WATCH)
    return decide(recommended=False, reason="")


def _hosts_with_repeated_faults(*, team_ids: list[int], severe: bool) -> list[DrainDecision]:
    """host_drain for each host the culprit of TRIAGE_DRAIN_THRESHOLD distinct faults of the
    machine in the window (one grouped query, then one per such host): `severe`, that many whose
    entry says drain or reset; else fewer of those than that (the hosts drained_hosts leaves)."""
    threshold = settings.TRIAGE_DRAIN_THRESHOLD
    faults = Occurrence.objects.filter(team_id__in=team_ids, machine_fault=True,
                                       seen_at__gte=_window_start(settings.TRIAGE_DRAIN_WINDOW_DAYS),
                                       duplicate_of__isnull=True)
    if severe:
        candidates = faults.filter(severity__in=NODE_SEVERITIES).values("host").annotate(n=Count("pk"))
    else:
        candidates = faults.values("host").annotate(
            n=Count("pk"), severe=Count("pk", filter=Q(severity__in=NODE_SEVERITIES))).filter(severe__lt=threshold)
    candidates = candidates.filter(n__gte=threshold).order_by("-n", "host")
    return [host_drain(team_id=team_ids, host=row["host"]) for row in candidates]


def drained_hosts(*, team_ids: list[int]) -> list[DrainDecision]:
    """Every host with a drain recommendation now."""
    return _hosts_with_repeated_faults(team_ids=team_ids, severe=True)


def watched_hosts(*, team_ids: list[int]) -> list[DrainDecision]:
    """Every host to watch now: a GPU, a NIC or the host itself the culprit of repeated faults of
    the machine, too few of whose entries say drain or reset to drain it (Xid 94 again and again
    on one GPU). The hosts with a drain recommendation are drained_hosts', not asked again."""
    return [d for d in _hosts_with_repeated_faults(team_ids=team_ids, severe=False) if d.action == WATCH]


def host_last_health(*, team_ids: list[int], host: str) -> HealthRecord | None:
    return HealthRecord.objects.filter(team_id__in=team_ids, host=host).order_by("-seen_at", "-pk").first()


def host_summary(*, team_id: int, host: str) -> dict[str, Any]:
    """The `GET /api/v1/hosts/<host>` document."""
    decision = host_drain(team_id=team_id, host=host)
    health = host_last_health(team_ids=[team_id], host=host)
    return {
        "host": host,
        "window_days": settings.TRIAGE_DRAIN_WINDOW_DAYS,
        "incidents": Occurrence.objects.filter(
            team_id=team_id, host=host, seen_at__gte=_window_start(settings.TRIAGE_DRAIN_WINDOW_DAYS),
            duplicate_of__isnull=True,
        ).count(),
        "machine_fault_incidents": decision.incidents,
        "drain": {"recommended": decision.recommended, "reason": decision.reason,
                  # drain | reset | watch, null when there is nothing to do (docs/fleet.md).
                  "action": decision.action or None,
                  # What an operator (or a script) runs: filled in, shell-quoted; null when not recommended.
                  "commands": decision.commands},
        "health": None if health is None else {
            "ok": health.ok, "at": health.seen_at.isoformat(), "backend": health.backend,
            "world_size": health.world_size, "busbw_gbps": health.busbw_gbps,
            "error": health.first_error or None, "incident": health.incident_id,
        },
    }


# --- Pages ----------------------------------------------------------------------------------

def problem_get(*, team_ids: list[int], problem_id: int) -> Problem | None:
    return Problem.objects.filter(team_id__in=team_ids, pk=problem_id).select_related("team").first()


# Rows listed on a page; the charts and counts cover everything.
TABLE_ROWS = 100
CHART_POINTS = 2000


def _table(qs: Any) -> list[Occurrence]:
    """The latest occurrences, with the job but without the incident row (its JSON is heavy)."""
    return list(qs.annotate(job=F("incident__job"), workflow=F("incident__workflow"),
                            assignee=F("incident__assignee__username")).order_by("-seen_at")[:TABLE_ROWS])


def _chart(qs: Any) -> dict[str, Any]:
    """Incidents over time, one series per cause (what the host/GPU chart draws)."""
    series: dict[str, dict[str, list[Any]]] = {}
    rows = qs.order_by("-seen_at").values_list("incident_id", "seen_at", "cause", "family")[:CHART_POINTS]
    for incident_id, seen_at, cause, family in reversed(rows):
        s = series.setdefault(cause, {"x": [], "text": [], "id": []})
        s["x"].append(seen_at.isoformat())
        s["text"].append(f"{incident_id}: {family[:80]}")
        s["id"].append(incident_id)
    return {"series": [{"cause": cause, **values} for cause, values in sorted(series.items())]}


def problem_occurrences(*, problem: Problem) -> list[Occurrence]:
    return _table(problem.occurrences.all())


def problem_resolution(*, problem: Problem) -> Any:
    """The latest incident of the problem someone resolved, with what fixed it (or None)."""
    from triage.incidents.models import Incident, Workflow

    return (Incident.objects.filter(occurrence__problem=problem, workflow=Workflow.RESOLVED)
            .select_related("resolved_by").only("id", "title", "job", "resolution", "ticket_url", "resolved_at",
                                                "resolved_by__username").order_by("-resolved_at").first())


def problem_wander_flags(*, problem: Problem) -> list[WanderFlag]:
    return list(WanderFlag.objects.filter(active=True).filter(
        Q(occurrences__problem=problem) | Q(cluster_occurrences__problem=problem)).distinct())


def fleet_overview(*, team_ids: list[int], days: int = 30, limit: int = 50) -> dict[str, Any]:
    """The fleet page: problems by recent count, hosts by incidents, causes by day, flags."""
    recent = _window_start(settings.TRIAGE_DRAIN_WINDOW_DAYS)
    since = _window_start(days)
    base = Occurrence.objects.filter(team_id__in=team_ids)
    recent_counts = dict(
        base.filter(seen_at__gte=recent, problem__isnull=False).values_list("problem").annotate(n=Count("pk"))
        .order_by("-n").values_list("problem", "n")[: limit * 4]
    )
    problems = list(Problem.objects.filter(pk__in=list(recent_counts)))
    problems.sort(key=lambda p: (-recent_counts.get(p.pk, 0), -(p.last_seen.timestamp() if p.last_seen else 0)))
    if len(problems) < limit:
        # Fill with the latest open problems that had nothing in the window.
        more = Problem.objects.filter(team_id__in=team_ids, status=Problem.Status.OPEN).exclude(
            pk__in=[p.pk for p in problems]).order_by("-last_seen")[: limit - len(problems)]
        problems += list(more)
    for p in problems:
        p.recent_count = recent_counts.get(p.pk, 0)  # type: ignore[attr-defined]
    hosts = list(
        base.filter(seen_at__gte=since).exclude(host="").values("host")
        .annotate(n=Count("pk"), machine=Count("pk", filter=Q(machine_fault=True)))
        .order_by("-n", "host")[:limit]
    )
    by_day = list(
        base.filter(seen_at__gte=since).annotate(day=TruncDate("seen_at")).values("day", "cause")
        .annotate(n=Count("pk")).order_by("day", "cause")
    )
    counts = {(row["day"], row["cause"]): row["n"] for row in by_day}
    days_seen = sorted({day for day, _ in counts})
    chart = {
        "days": [d.isoformat() for d in days_seen],
        "series": [{"cause": c, "counts": [counts.get((d, c), 0) for d in days_seen]}
                   for c in sorted({cause for _, cause in counts})],
    }
    return {
        "problems": problems[:limit],
        "hosts": hosts,
        "drained": drained_hosts(team_ids=team_ids),
        "watched": watched_hosts(team_ids=team_ids),
        "flags": list(WanderFlag.objects.filter(team_id__in=team_ids, active=True)[:limit]),
        "chart": chart,
        "days": days,
        "open_problems": Problem.objects.filter(team_id__in=team_ids, status=Problem.Status.OPEN).count(),
    }


def host_detail(*, team_ids: list[int], host: str) -> dict[str, Any]:
    mine = Occurrence.objects.filter(team_id__in=team_ids, host=host)
    distinct = mine.filter(duplicate_of__isnull=True)
    gpus: dict[str, dict[str, Any]] = {}
    for record in GpuRecord.objects.filter(team_id__in=team_ids, host=host).order_by("seen_at"):
        row = gpus.setdefault(record.gpu, {"gpu": record.gpu, "index": record.index, "pci": record.pci,
                                           "uuid": record.uuid, "name": record.name, "records": 0, "xids": 0,
                                           "incidents": 0})
        row.update(index=record.index, ecc_uncorrected=record.ecc_uncorrected, ecc_corrected=record.ecc_corrected,
                   remapped_rows=record.remapped_rows, last_seen=record.seen_at)
        row["records"] += 1
        row["xids"] += len(record.xids or [])
    for gpu, n in distinct.exclude(gpu="").values_list("gpu").annotate(n=Count("pk")).order_by():
        gpus.setdefault(gpu, {"gpu": gpu, "index": None, "pci": "", "uuid": "", "name": "",
                              "records": 0, "xids": 0, "incidents": 0})["incidents"] = n
    # An Xid the kernel log named (the incident's culprit) is an Xid seen, snapshot or not.
    for gpu, n in (distinct.exclude(gpu="").filter(xid__isnull=False)
                   .values_list("gpu").annotate(n=Count("pk")).order_by()):
        gpus[gpu]["xids"] = max(gpus[gpu]["xids"], n)
    return {
        "host": host,
        "occurrences": _table(mine),
        "total": mine.count(),
        "drain": host_drain(team_id=team_ids, host=host),
        "gpus": sorted(gpus.values(), key=lambda g: (g["index"] is None, g["index"] or 0, g["gpu"])),
        "health": list(HealthRecord.objects.filter(team_id__in=team_ids, host=host).order_by("-seen_at")[:100]),
        "problems": list(Problem.objects.filter(team_id__in=team_ids, host=host).order_by("-last_seen")[:50]),
        "chart": _chart(mine),
    }


def gpu_detail(*, team_ids: list[int], host: str, gpu: str) -> dict[str, Any]:
    mine = Occurrence.objects.filter(team_id__in=team_ids, host=host, gpu=gpu)
    occurrences = _table(mine)
    records = list(GpuRecord.objects.filter(team_id__in=team_ids, host=host, gpu=gpu).order_by("-seen_at")[:TABLE_ROWS])
    return {
        "host": host, "gpu": gpu, "occurrences": occurrences, "records": records, "total": mine.count(),
        "label": next((o.gpu_label for o in occurrences if o.gpu_label), "") or gpu,
        "chart": _chart(mine),
    }


def gpu_canonical(*, team_ids: list[int], host: str, gpu: str) -> str | None:
    """The key the fleet files this GPU under, for a page asked by device index ("dev:3") or PCI
    bus ("pci:5d:00"), as the incident page links them; None when no snapshot tells."""
    kind, _, value = gpu.partition(":")
    records = GpuRecord.objects.filter(team_id__in=team_ids, host=host).order_by("-seen_at")
    if kind == "dev" and value.isdigit():
        records = records.filter(index=int(value))
    elif kind == "pci" and value:
        records = records.filter(pci=value.lower())
    else:
        return None
    return records.values_list("gpu", flat=True).first()


def incident_fleet(*, incident_id: str) -> Occurrence | None:
    return Occurrence.objects.select_related("problem", "wander", "cluster_wander").filter(pk=incident_id).first()


def incident_uploads(*, incident_id: str) -> int:
    """How many times this incident's failure was uploaded: itself and the incidents linked to
    it as the same failure reported again."""
    return 1 + Occurrence.objects.filter(duplicate_of_id=incident_id).count()


def webhooks_of(*, team_ids: list[int]) -> list[Webhook]:
    return list(Webhook.objects.filter(team_id__in=team_ids).select_related("team"))


def deliveries_of(*, team_ids: list[int], limit: int = 100) -> list[Delivery]:
    return list(Delivery.objects.filter(webhook__team_id__in=team_ids).select_related("webhook")[:limit])
