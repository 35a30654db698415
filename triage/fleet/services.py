"""Writes of the fleet: grouping ready incidents into problems, remembering drain decisions,
raising the "failures wander across nodes" flag, and queueing webhook deliveries.

The incidents app calls `fleet_on_diagnosis` once a diagnosis is stored; everything else runs
later, in `fleet_incident_update` on a worker, and is idempotent: run it twice for the same
diagnosis and nothing changes the second time (no second notification either).
"""
from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import logging
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import timedelta
from functools import partial
from http import HTTPStatus
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Count, Max, Min, Q
from django.utils import timezone

from triage.incidents.models import Bundle, Incident

from .fingerprint import (
    Fingerprint,
    failure_key,
    fingerprint_of,
    gpu_key,
    host_snapshot,
    job_family,
    pci_short,
    snapshot_gpus,
)
from .models import Delivery, Event, GpuRecord, HealthRecord, HostState, Occurrence, Problem, WanderFlag, Webhook
from .selectors import host_drain

log = logging.getLogger(__name__)


def fleet_on_diagnosis(*, incident_id: str) -> None:
    """The incidents app's hook: a diagnosis was stored (inside its transaction). The fleet is
    updated after the commit, by a task, so a fleet bug can never undo or fail a diagnosis."""
    from .tasks import fleet_incident_task  # tasks import this module

    transaction.on_commit(lambda: fleet_incident_task.delay(incident_id))


# --- Grouping -------------------------------------------------------------------------------

def problem_refresh(*, problem_id: int) -> None:
    """After incidents went away (retention): recount the problem, drop it when empty."""
    with transaction.atomic():
        if Problem.objects.select_for_update().filter(pk=problem_id).exists():
            _problem_refresh(problem_id)


def _problem_refresh(problem_id: int | None) -> dict[str, Any]:
    """Count, first and last seen of a problem, from its occurrences; an empty one goes away."""
    if problem_id is None:
        return {}
    # A failure uploaded again is not seen again: the count is of distinct failures.
    stats = Occurrence.objects.filter(problem_id=problem_id).aggregate(
        count=Count("pk", filter=Q(duplicate_of__isnull=True)), first_seen=Min("seen_at"), last_seen=Max("seen_at")
    )
    if not stats["count"]:
        Problem.objects.filter(pk=problem_id).delete()
        return {}
    Problem.objects.filter(pk=problem_id).update(**stats)
    return stats


def _problem_for(*, team_id: int, fp: Fingerprint) -> tuple[Problem, bool]:
    defaults = {
        "cause": fp.cause, "host": fp.host, "gpu": fp.gpu, "gpu_label": fp.gpu_label[:200], "nic": fp.nic,
        "family": fp.family[:300], "grouped_because": fp.grouped_because(),
    }
    # Locked until the end of the caller's transaction: members join one problem at a time,
    # so its count is never computed from a view missing a concurrent newcomer.
    locked = Problem.objects.select_for_update()
    problem = locked.filter(team_id=team_id, fingerprint=fp.key).first()
    if problem is not None:
        return problem, False
    try:
        with transaction.atomic():
            return Problem.objects.create(team_id=team_id, fingerprint=fp.key, **defaults), True
    except IntegrityError:  # a concurrent update made it first
        return locked.get(team_id=team_id, fingerprint=fp.key), False


def _switch_of(snapshot: dict[str, Any] | None) -> str:
    """The leaf switch or rail a snapshot names for the host (site-specific fields; optional)."""
    host = (snapshot or {}).get("host") or {}
    for key in ("switch", "leaf_switch", "rail"):
        if host.get(key):
            return str(host[key])[:100]
    for port in host.get("infiniband") or []:
        if isinstance(port, dict) and port.get("switch"):
            return str(port["switch"])[:100]
    return ""


def _gpu_records(incident: Incident, data: dict[str, Any]) -> list[GpuRecord]:
    records = []
    for snap in data.get("snapshots") or []:
        if not isinstance(snap, dict):
            continue
        host = str((snap.get("host") or {}).get("hostname") or "")
        if not host:
            continue
        xids = [x for x in snap.get("xid") or [] if isinstance(x, dict)]
        for g in snapshot_gpus(snap):
            pci = pci_short(str(g.get("pci_bus_id") or ""))
            index = g.get("index") if isinstance(g.get("index"), int) else None
            uuid = str(g.get("uuid") or "")
            key = gpu_key(uuid=uuid, pci=pci, device=index)
            if not key:
                continue
            ecc = g.get("ecc") or {}
            records.append(GpuRecord(
                incident=incident, team_id=incident.team_id, host=host[:200], gpu=key[:120], index=index,
                pci=pci, uuid=uuid[:80], name=str(g.get("name") or "")[:100],
                ecc_uncorrected=_int(ecc.get("uncorrected_aggregate", ecc.get("uncorrected_volatile"))),
                ecc_corrected=_int(ecc.get("corrected_aggregate", ecc.get("corrected_volatile"))),
                remapped_rows=g.get("remapped_rows") if isinstance(g.get("remapped_rows"), dict) else None,
                xids=[{"xid": x.get("xid"), "text": str(x.get("text") or "")[:300]}
                      for x in xids if pci and pci_short(str(x.get("pci") or "")) == pci],
                seen_at=incident.created_at,
            ))
    return records


def _int(value: Any) -> int | None:
    return int(value) if isinstance(value, int) and not isinstance(value, bool) else None


def _health_records(incident: Incident, data: dict[str, Any]) -> list[HealthRecord]:
    records = []
    for doc in data.get("health") or []:
        if not isinstance(doc, dict) or not doc.get("host"):
            continue
        failed = [r for r in doc.get("ranks") or [] if isinstance(r, dict) and not r.get("ok")]
        busbw = doc.get("busbw_gbps")
        records.append(HealthRecord(
            incident=incident, team_id=incident.team_id, host=str(doc["host"])[:200], ok=bool(doc.get("ok")),
            backend=str(doc.get("backend") or "")[:20],
            world_size=doc.get("world_size") if isinstance(doc.get("world_size"), int) else None,
            busbw_gbps=float(busbw) if isinstance(busbw, (int, float)) and not isinstance(busbw, bool) else None,
            first_error=str((failed[0].get("error") if failed else "") or "")[:500],
            seen_at=incident.created_at,
        ))
    return records


def fleet_incident_update(*, incident_id: str) -> Occurrence | None:  # noqa: C901 - one branch per field an update may change
    """Bring the fleet up to date with the incident's stored diagnosis: its occurrence, its
    problem (new, regrouped or reopened), GPU and health history, the drain decision of its
    culprit host and the wander flag of its job. Returns the occurrence (None: nothing to group)."""
    events: list[tuple[str, dict[str, Any]]] = []
    with transaction.atomic():
        incident = (Incident.objects.select_for_update(of=("self",)).select_related("diagnosis")
                    .filter(pk=incident_id).first())
        if incident is None:
            return None
        diagnosis = getattr(incident, "diagnosis", None)
        if incident.status != Incident.Status.READY or diagnosis is None:
            return None  # a parse is still coming, or it failed: keep what the last one said
        data = diagnosis.data or {}
        existing = Occurrence.objects.filter(pk=incident.pk).first()
        fp = fingerprint_of(data)
        if existing is not None and existing.revision == diagnosis.revision and fp is not None \
                and existing.fingerprint == fp.key and _machine_fields(existing) == _machine_fields(fp):
            return existing  # a duplicate delivery of the same update

        # Replaced even without an occurrence: a smoke-only upload has health but no verdict.
        GpuRecord.objects.filter(incident=incident).delete()
        HealthRecord.objects.filter(incident=incident).delete()
        GpuRecord.objects.bulk_create(_gpu_records(incident, data))
        HealthRecord.objects.bulk_create(_health_records(incident, data))
        if fp is None:
            if existing is not None:
                old_problem = existing.problem_id
                existing.delete()
                _problem_refresh(old_problem)
            return None

        problem, created = _problem_for(team_id=incident.team_id, fp=fp)
        joined = existing is None or existing.problem_id != problem.pk
        old_problem = existing.problem_id if existing is not None else None
        occurrence = existing or Occurrence(incident=incident, team_id=incident.team_id)
        occurrence.problem = problem
        occurrence.revision = diagnosis.revision
        occurrence.fingerprint = fp.key
        occurrence.cause = fp.cause
        occurrence.host = fp.host[:200]
        occurrence.gpu = fp.gpu[:120]
        occurrence.gpu_label = fp.gpu_label[:200]
        occurrence.nic = fp.nic[:40]
        occurrence.family = fp.family[:300]
        occurrence.transport = fp.transport[:40]
        occurrence.switch = _switch_of(host_snapshot(data, fp.host)) if fp.host else ""
        occurrence.job_family = job_family(incident.job)[:200]
        occurrence.cluster = (Bundle.objects.filter(incident=incident, uploaded_by_token__isnull=False)
                              .values_list("uploaded_by_token__name", flat=True).first() or "")[:100]
        occurrence.machine_fault = fp.machine_fault
        occurrence.machine_reason = fp.machine_reason[:100]
        occurrence.severity = fp.severity
        occurrence.xid = fp.xid
        occurrence.seen_at = incident.created_at
        occurrence.failure_key = failure_key(data)
        occurrence.duplicate_of_id = _first_report(incident, occurrence.failure_key)
        occurrence.save(force_insert=existing is None)
        if occurrence.duplicate_of_id is None:
            # Diagnosed after a later upload of the same failure: that one is the copy.
            for copy in _same_failure(incident, occurrence.failure_key).filter(_after(incident)):
                copy.duplicate_of = incident
                copy.save(update_fields=["duplicate_of"])
        for name, value in _problem_refresh(problem.pk).items():
            setattr(problem, name, value)
        if old_problem and old_problem != problem.pk:
            _problem_refresh(old_problem)

        regression = joined and not created and problem.status == Problem.Status.RESOLVED
        if regression:
            problem.status = Problem.Status.OPEN
            problem.regression = True
            problem.regressed_at = timezone.now()
            problem.save(update_fields=["status", "regression", "regressed_at"])

        if existing is None or existing.revision != diagnosis.revision:
            events.append((Event.INCIDENT_READY, _incident_payload(incident, occurrence)))
        if created:
            events.append((Event.PROBLEM_NEW, _problem_payload(problem)))
        if regression:
            events.append((Event.PROBLEM_REGRESSION, _problem_payload(problem)))
        for host in {h for h in (fp.host, existing.host if existing else "") if h}:
            drained = _host_state_update(team_id=incident.team_id, host=host)
            if drained is not None:
                events.append((Event.DRAIN_RECOMMENDED, drained))
        scopes = {(occurrence.job_family, ""), (occurrence.cluster, occurrence.family)}
        if existing is not None:
            scopes |= {(existing.job_family, ""), (existing.cluster, existing.family)}
        for name, family in sorted(scopes):
            if not name:
                continue
            raised = (_wander_update_cluster(team_id=incident.team_id, cluster=name, family=family) if family
                      else _wander_update_job(team_id=incident.team_id, family=name))
            if raised is not None:
                events.append((Event.WANDER_FLAG, raised))

        webhooks = list(Webhook.objects.filter(team_id=incident.team_id, active=True).select_related("team"))
        for event, payload in events:
            webhooks_notify(webhooks=webhooks, event=event, data=payload)
    return occurrence


def _machine_fields(row: Occurrence | Fingerprint) -> tuple[bool, str, str, int | None]:
    """What the drain rule reads of an occurrence: compared so that a change of the catalog's
    severities (or of how the fleet reads them) is taken up by `fleet_rebuild`."""
    return row.machine_fault, row.machine_reason[:100], row.severity, row.xid


def _same_failure(incident: Incident, key: str) -> Any:
    """Other occurrences of the team that report this incident's failure: a bundle with the
    same content (sha256), or the same host, first-failure line and time."""
    shas = list(Bundle.objects.filter(incident=incident).values_list("sha256", flat=True))
    same = Q(incident__bundles__sha256__in=shas)
    if key:
        same |= Q(failure_key=key)
    return Occurrence.objects.filter(team_id=incident.team_id).filter(same).exclude(pk=incident.pk).distinct()


def _after(incident: Incident) -> Q:
    return Q(seen_at__gt=incident.created_at) | Q(seen_at=incident.created_at, pk__gt=incident.pk)


def _first_report(incident: Incident, key: str) -> Any:
    """The incident that first reported this failure, when this one reports it again; None
    when this is the first (or only) report."""
    earlier = (_same_failure(incident, key).exclude(_after(incident)).order_by("seen_at", "pk")
               .values("incident_id", "duplicate_of_id").first())
    if earlier is None:
        return None
    return earlier["duplicate_of_id"] or earlier["incident_id"]


def problem_resolve(*, problem: Problem) -> Problem:
    """Mark a problem fixed; the next incident with its fingerprint reopens it as a regression."""
    problem.status = Problem.Status.RESOLVED
    problem.resolved_at = timezone.now()
    problem.save(update_fields=["status", "resolved_at"])
    return problem


def problem_reopen(*, problem: Problem) -> Problem:
    problem.status = Problem.Status.OPEN
    problem.resolved_at = None
    problem.save(update_fields=["status", "resolved_at"])
    return problem


# --- Drain and wander -----------------------------------------------------------------------

def _host_state_update(*, team_id: int, host: str) -> dict[str, Any] | None:
    """Remember the host's drain decision; the payload of a notification when it just became
    "drain recommended", else None (announced once, not on every incident after)."""
    decision = host_drain(team_id=team_id, host=host)
    state = HostState.objects.select_for_update().filter(team_id=team_id, host=host).first()
    if state is None:
        if not decision.recommended:
            return None  # nothing to remember: no row means "not drained"
        state = HostState(team_id=team_id, host=host)
    became = decision.recommended and not state.drain
    if state.drain != decision.recommended or state.reason != decision.reason:
        state.drain, state.reason = decision.recommended, decision.reason
        try:
            with transaction.atomic():
                state.save()
        except IntegrityError:
            return None  # a concurrent update of the same host made the row and announced it
    if not became:
        return None
    return {"host": host, "reason": decision.reason, "incidents": decision.incident_ids, "gpu": decision.gpu,
            "action": decision.action}


def _wander_update_job(*, team_id: int, family: str) -> dict[str, Any] | None:
    return _wander_update(team_id=team_id, key=family, label=f"job {family}", members={"job_family": family},
                          link="wander")


def _wander_update_cluster(*, team_id: int, cluster: str, family: str) -> dict[str, Any] | None:
    """One cluster, one message family, a different host each time: the fabric, not a node."""
    key = "cluster:" + hashlib.sha256(f"{cluster}\x1f{family}".encode()).hexdigest()[:32]
    return _wander_update(team_id=team_id, key=key, label=f"cluster {cluster}, message family “{family[:120]}”",
                          members={"cluster": cluster, "family": family}, link="cluster_wander")


def _wander_update(*, team_id: int, key: str, label: str, members: dict[str, str], link: str) -> dict[str, Any] | None:
    """Raise (or lower) the flag of a scope (the occurrences matching `members`); the
    notification payload when newly raised. `link` is the occurrence field pointing at it."""
    cutoff = timezone.now() - timedelta(days=settings.TRIAGE_WANDER_WINDOW_DAYS)
    rows = list(
        Occurrence.objects.filter(team_id=team_id, seen_at__gte=cutoff, duplicate_of__isnull=True, **members)
        .exclude(host="")
        .order_by("seen_at")
        .values("incident_id", "host", "transport", "family", "switch", "cause")
    )
    hosts = Counter(r["host"] for r in rows)
    wandering = len(hosts) >= settings.TRIAGE_WANDER_MIN_HOSTS and max(hosts.values()) == 1
    flag = WanderFlag.objects.select_for_update().filter(team_id=team_id, job_family=key).first()
    if not wandering:
        if flag is not None and flag.active:
            flag.active = False
            flag.save(update_fields=["active", "updated_at"])
            Occurrence.objects.filter(**{link: flag}).update(**{link: None})
        return None
    evidence = _wander_evidence(label, rows)
    newly = flag is None or not flag.active
    if flag is None:
        flag = WanderFlag.objects.create(team_id=team_id, job_family=key, label=label, evidence=evidence)
    else:
        flag.active, flag.evidence, flag.label = True, evidence, label
        flag.save(update_fields=["active", "evidence", "label", "updated_at"])
    Occurrence.objects.filter(**{link: flag}).update(**{link: None})
    Occurrence.objects.filter(pk__in=[r["incident_id"] for r in rows]).update(**{link: flag})
    if not newly:
        return None
    return {"scope": label, "message": WanderFlag.MESSAGE, **evidence}


def _wander_evidence(label: str, rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    shared = []
    for field_name, what in (("switch", "same switch/rail"), ("transport", "same NCCL transport NET/"),
                             ("family", "same message family"), ("cause", "same cause")):
        values = {r[field_name] for r in rows}
        if len(values) == 1 and "" not in values:
            value = values.pop()
            shared.append(f"{what}{value}" if what.endswith("/") else f"{what}: {value}")
    hosts = [r["host"] for r in rows]
    summary = (f"{len(rows)} incidents of {label} within {settings.TRIAGE_WANDER_WINDOW_DAYS} days, "
               f"each with its culprit on a different host ({', '.join(hosts)})")
    if shared:
        summary += "; they share: " + "; ".join(shared)
    return {"incidents": [r["incident_id"] for r in rows], "hosts": hosts, "shared": shared, "summary": summary}


# --- Notifications --------------------------------------------------------------------------

def _incident_payload(incident: Incident, occurrence: Occurrence) -> dict[str, Any]:
    from triage.incidents.workflow import workflow_data

    return {
        "incident": incident.pk, "job": incident.job, "cause": occurrence.cause, "host": occurrence.host,
        "gpu": occurrence.gpu_label or occurrence.gpu, "summary": incident.summary,
        "problem": occurrence.problem_id, "title": incident.display_title,
        # Who has it and what fixed this problem last time ("resolved by"), for the on-call channel.
        "workflow": workflow_data(incident),
    }


def _problem_payload(problem: Problem) -> dict[str, Any]:
    from .selectors import problem_resolution

    resolved = problem_resolution(problem=problem)  # what fixed it last time, for a regression
    return {
        "problem": problem.pk, "cause": problem.cause, "host": problem.host, "gpu": problem.gpu_label or problem.gpu,
        "nic": problem.nic, "count": problem.count, "grouped_because": problem.grouped_because,
        "regression": problem.regression,
        "last_resolution": {
            "incident": resolved.pk, "resolution": resolved.resolution or None,
            "resolved_by": resolved.resolved_by.get_username() if resolved.resolved_by else None,
            "ticket_url": resolved.ticket_url or None,
        } if resolved is not None else None,
    }


EVENT_TEXT = {
    Event.INCIDENT_READY: "Incident {incident} ({job}) diagnosed: {cause} on {host}. {summary}",
    Event.PROBLEM_NEW: "New problem #{problem}: {cause} on {host} {gpu}",
    Event.PROBLEM_REGRESSION: "Regression: problem #{problem} ({cause} on {host} {gpu}) is back after it was resolved",
    Event.DRAIN_RECOMMENDED: "Drain recommended for {host}: {reason}",
    Event.WANDER_FLAG: "{scope}: {message}. {summary}",
    # The verdict's where (cause on host GPU, rank) first: what an on-call phone shows.
    Event.INCIDENT_ASSIGNED: "{where} — assigned to {assignee} by {actor}: {title} {url}",
    Event.INCIDENT_MENTIONED: "{where} — {actor} mentioned {mentions}: “{comment}” {title} {url}",
    Event.INCIDENT_ACKNOWLEDGED: "{where} — acknowledged by {actor}: {title} {url}",
    Event.INCIDENT_RESOLVED: "{where} — resolved by {actor}: {title} {url}",
    Event.INCIDENT_REOPENED: "{where} — reopened by {actor}: {title} {url}",
}


def event_text(event: str, data: dict[str, Any]) -> str:
    values = {k: ("" if v is None else v) for k, v in data.items()}
    try:
        return " ".join(EVENT_TEXT[Event(event)].format(**values).split())
    except (KeyError, ValueError):
        return f"{event}: {json.dumps(data, default=str)[:500]}"


def webhook_body(*, webhook: Webhook, event: str, team: str, data: dict[str, Any]) -> dict[str, Any]:
    text = event_text(event, data)
    if webhook.format == Webhook.Format.SLACK:
        return {"text": f"[nccl-triage · {team}] {text}"}
    return {"event": event, "team": team, "text": text, "data": data}


def webhooks_notify(*, webhooks: list[Webhook], event: str, data: dict[str, Any]) -> list[Delivery]:
    """One delivery per webhook (of a team) that wants this event, sent after the commit."""
    from .tasks import webhook_deliver_task

    deliveries = []
    for webhook in webhooks:
        if not webhook.wants(event):
            continue
        delivery = Delivery.objects.create(
            webhook=webhook, event=event,
            payload=webhook_body(webhook=webhook, event=event, team=webhook.team.name, data=data),
        )
        deliveries.append(delivery)
        transaction.on_commit(partial(webhook_deliver_task.delay, delivery.pk))
    return deliveries


def webhook_signature(*, secret: str, body: bytes) -> str:
    """The X-Triage-Signature header: "sha256=" + hex HMAC-SHA256 of the raw body, keyed with
    the secret's text (the first signature this project sent; kept for receivers built on it)."""
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def signing_key(secret: str) -> bytes:
    """The Standard Webhooks key: the base64 after "whsec_" (secrets made here), else the
    secret's own UTF-8 bytes (one typed by an admin, or made before that form)."""
    if secret.startswith("whsec_"):
        try:
            return base64.b64decode(secret.removeprefix("whsec_") + "==", validate=False) or secret.encode()
        except binascii.Error:
            pass
    return secret.encode()


def standard_webhook_headers(*, secret: str, message_id: str, body: bytes, at: float) -> dict[str, str]:
    """`webhook-id`, `webhook-timestamp`, `webhook-signature` (https://www.standardwebhooks.com):
    "v1," + base64 HMAC-SHA256 of "<id>.<timestamp>.<body>". The timestamp is this attempt's, so
    a receiver can refuse an old message replayed; the id is the same on every retry."""
    timestamp = str(int(at))
    mac = hmac.new(signing_key(secret), f"{message_id}.{timestamp}.".encode() + body, hashlib.sha256).digest()
    return {"webhook-id": message_id, "webhook-timestamp": timestamp,
            "webhook-signature": "v1," + base64.b64encode(mac).decode()}


class DeliveryFailed(Exception):
    """The receiver did not take it (non-2xx, refused, timed out): worth another try."""

    def __init__(self, message: str, *, retry_in: float) -> None:
        super().__init__(message)
        self.retry_in = retry_in


def delivery_backoff_seconds(*, attempts: int) -> float:
    """Wait before the next attempt after `attempts` failed ones: doubled each time, capped."""
    delay_ms: float = min(settings.TRIAGE_WEBHOOK_BACKOFF_MS * 2 ** max(0, attempts - 1),
                          settings.TRIAGE_WEBHOOK_BACKOFF_MAX_MS)
    return delay_ms / 1000


def _attempt_budget() -> timedelta:
    """Longest one attempt can hold its claim: connect, deadline and a margin."""
    return timedelta(seconds=settings.TRIAGE_WEBHOOK_CONNECT_TIMEOUT + settings.TRIAGE_WEBHOOK_DEADLINE + 30)


def delivery_attempt(*, delivery_id: int, final: bool = False) -> Delivery | None:
    """POST the delivery once, under the outbound policy (outbound.py). On a failure worth
    another try raises DeliveryFailed (the caller retries after `retry_in`); after the last
    attempt (TRIAGE_WEBHOOK_MAX_RETRIES retries, or `final`), or when the policy refuses the
    target or the receiver redirects, the delivery is `failed` with the reason in `error`.

    The attempt is claimed with a conditional UPDATE on the attempt count, so a requeued
    message and a retry never send the same attempt twice."""
    from . import outbound

    delivery = Delivery.objects.select_related("webhook").filter(pk=delivery_id).first()
    if delivery is None or delivery.status != Delivery.Status.PENDING:
        return delivery
    now = timezone.now()
    attempt = delivery.attempts + 1
    claimed = Delivery.objects.filter(pk=delivery.pk, status=Delivery.Status.PENDING,
                                      attempts=delivery.attempts).update(
        attempts=attempt, next_attempt_at=now + _attempt_budget(),
    )
    if not claimed:
        return delivery  # another worker is on it
    final = final or attempt > settings.TRIAGE_WEBHOOK_MAX_RETRIES
    body = json.dumps(delivery.payload, separators=(",", ":")).encode()
    headers = {
        "Content-Type": "application/json",
        "User-Agent": "nccl-triage-webhook/1",
        "X-Triage-Event": delivery.event,
        "X-Triage-Delivery": str(delivery.pk),
        "X-Triage-Signature": webhook_signature(secret=delivery.webhook.secret, body=body),
        **standard_webhook_headers(secret=delivery.webhook.secret, message_id=delivery.message_id, body=body,
                                   at=time.time()),
    }
    code, error, retry = None, "", True
    try:
        code = outbound.post(
            delivery.webhook.url, body, headers, allow=settings.TRIAGE_WEBHOOK_ALLOW_NETWORKS,
            connect_timeout=settings.TRIAGE_WEBHOOK_CONNECT_TIMEOUT, read_timeout=settings.TRIAGE_WEBHOOK_TIMEOUT,
            deadline=settings.TRIAGE_WEBHOOK_DEADLINE,
        )
    except outbound.Refused as e:
        error, retry = f"refused by the outbound policy: {e}", False
    except outbound.SendError as e:
        error = str(e)
    ok = code is not None and HTTPStatus.OK <= code < HTTPStatus.MULTIPLE_CHOICES
    if code is not None and not ok:
        error = f"HTTP {code}"
        if HTTPStatus.MULTIPLE_CHOICES <= code < HTTPStatus.BAD_REQUEST:
            error, retry = f"HTTP {code}: redirects are not followed", False
    failed = not ok and (final or not retry)
    if failed:
        error = f"{error} (gave up after {attempt} attempt{'s' if attempt > 1 else ''})"
    retry_in = delivery_backoff_seconds(attempts=attempt)
    Delivery.objects.filter(pk=delivery.pk).update(
        response_code=code, error=error[:500],
        status=Delivery.Status.DELIVERED if ok else (Delivery.Status.FAILED if failed else Delivery.Status.PENDING),
        delivered_at=timezone.now() if ok else None,
        next_attempt_at=None if ok or failed else timezone.now() + timedelta(seconds=retry_in),
    )
    if not ok and not failed:
        raise DeliveryFailed(error, retry_in=retry_in)
    delivery.refresh_from_db()
    return delivery


def deliveries_requeue() -> list[int]:
    """Pending deliveries whose next attempt is overdue (their message lost with Redis, their
    worker killed): their ids, each claimed by moving its next attempt on, to be sent again."""
    cutoff = timezone.now() - timedelta(seconds=60)
    due = Delivery.objects.filter(status=Delivery.Status.PENDING).filter(
        Q(next_attempt_at__lt=cutoff) | Q(next_attempt_at__isnull=True, created_at__lt=cutoff)
    )
    ids = []
    for pk, next_at in due.values_list("pk", "next_attempt_at")[:500]:
        if Delivery.objects.filter(pk=pk, status=Delivery.Status.PENDING, next_attempt_at=next_at).update(
            next_attempt_at=timezone.now() + _attempt_budget()
        ):
            ids.append(pk)
    return ids


def webhook_add(*, team: Any, url: str, secret: str = "", events: list[str] | None = None,
                format: str = Webhook.Format.GENERIC) -> Webhook:
    """A new webhook; ValueError names what is wrong with the input."""
    from django.core.exceptions import ValidationError
    from django.core.validators import URLValidator

    from .outbound import Refused, check_static

    try:
        URLValidator(schemes=["http", "https"])(url)
    except ValidationError:
        raise ValueError(f"{url!r} is not an http(s) URL") from None
    try:
        # Host names are checked again, resolved, at every delivery (DNS can change).
        check_static(url, settings.TRIAGE_WEBHOOK_ALLOW_NETWORKS)
    except Refused as e:
        raise ValueError(str(e)) from None
    events = list(events or [])
    unknown = sorted(set(events) - set(Event.values))
    if unknown:
        raise ValueError(f"unknown event(s) {', '.join(unknown)}; known: {', '.join(Event.values)}")
    if format not in Webhook.Format.values:
        raise ValueError(f"format must be one of {', '.join(Webhook.Format.values)}")
    webhook = Webhook(team=team, url=url, events=events, format=format)
    if secret:
        webhook.secret = secret
    webhook.save()
    return webhook


def webhook_remove(*, webhook: Webhook) -> None:
    webhook.delete()
