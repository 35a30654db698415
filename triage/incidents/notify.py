"""Telling people what happened to an incident: its history row, the team's webhooks (workflow
events, Slack-compatible or generic, signed like every delivery) and, where the operator set
up mail, an e-mail to the person it concerns (the assignee, the ones @mentioned).

Called by workflow.py inside its transaction: the webhook deliveries and the mail are queued on
commit, so a change that is rolled back tells nobody.
"""
from __future__ import annotations

import logging
from functools import partial
from typing import Any

from django.conf import settings
from django.db import transaction
from django.urls import reverse

from .models import Incident, IncidentEvent
from .redact import redact_text

log = logging.getLogger(__name__)

# History verbs that are also webhook events (triage.fleet.models.Event).
WEBHOOK_EVENTS = {
    IncidentEvent.Verb.ASSIGNED: "incident.assigned",
    IncidentEvent.Verb.MENTIONED: "incident.mentioned",
    IncidentEvent.Verb.ACKNOWLEDGED: "incident.acknowledged",
    IncidentEvent.Verb.RESOLVED: "incident.resolved",
    IncidentEvent.Verb.REOPENED: "incident.reopened",
}


def _username(user: Any) -> str:
    return str(user.get_username()) if user is not None and getattr(user, "is_authenticated", False) else ""


def history_record(*, incident: Incident, user: Any, verb: str, details: dict[str, Any] | None = None) -> IncidentEvent:
    return IncidentEvent.objects.create(
        incident=incident, actor=user if _username(user) else None, actor_name=_username(user)[:150], verb=verb,
        details=details or {},
    )


def history_data(incident: Incident) -> list[dict[str, Any]]:
    """The history as the API gives it, oldest first."""
    return [
        {"at": e.created_at.isoformat(), "actor": e.actor_name or None, "verb": e.verb, "details": e.details}
        for e in incident.history.all()
    ]


def incident_url(incident: Incident, base_url: str = "") -> str:
    """The incident page's address: TRIAGE_PUBLIC_URL, else the address the change was made on."""
    base = settings.TRIAGE_PUBLIC_URL or base_url.rstrip("/")
    return base + reverse("web:incident-detail", args=[incident.pk])


def where_of(incident: Incident) -> dict[str, Any]:
    """Cause, host, GPU and rank of the verdict: what a phone notification must say first."""
    ff = incident.first_failure if isinstance(incident.first_failure, dict) else {}
    device = ff.get("device")
    rank = ff.get("rank")
    return {
        "cause": incident.cause or None,
        "host": ff.get("host") or None,
        "gpu": device if isinstance(device, int) and not isinstance(device, bool) else None,
        "rank": rank if isinstance(rank, int) and not isinstance(rank, bool) else None,
    }


def where_text(where: dict[str, Any]) -> str:
    """"hardware_fault on node-b GPU 3, rank 3"; "" when the verdict names nothing."""
    text = where["cause"] or ""
    if where["host"]:
        text += f" on {where['host']}" if text else where["host"]
        if where["gpu"] is not None:
            text += f" GPU {where['gpu']}"
    if where["rank"] is not None:
        text += f", rank {where['rank']}"
    return text


def notify(*, incident: Incident, user: Any, event: IncidentEvent, base_url: str = "",
           recipients: list[Any] | None = None, comment: str = "") -> None:
    """The webhooks of the incident's team that want this event get it; `recipients` (users)
    get an e-mail where mail is configured. The actor is never mailed about their own act."""
    from triage.fleet.models import Webhook
    from triage.fleet.services import webhooks_notify

    from .workflow import workflow_data

    name = WEBHOOK_EVENTS.get(IncidentEvent.Verb(event.verb))
    where = where_of(incident)
    data: dict[str, Any] = {
        "incident": incident.pk, "title": redact_text(incident.display_title), "url": incident_url(incident, base_url),
        "actor": event.actor_name or None, "verb": event.verb, **where,
        "where": where_text(where) or f"incident {incident.pk}",
        "assignee": _username(incident.assignee) or None, "status": incident.workflow,
        "details": event.details, "workflow": workflow_data(incident, related=False),
    }
    if event.details.get("mentions"):
        data["mentions"] = ", ".join("@" + m for m in event.details["mentions"])
    if comment:
        data["comment"] = redact_text(comment)[:1000]
    if name is not None:
        webhooks = list(Webhook.objects.filter(team_id=incident.team_id, active=True).select_related("team"))
        webhooks_notify(webhooks=webhooks, event=name, data=data)
    if not settings.TRIAGE_EMAIL_ENABLED or not recipients:
        return
    actor = _username(user)
    addresses = sorted({u.email for u in recipients if u.email and u.get_username() != actor})
    if not addresses:
        return
    from triage.fleet.services import event_text

    from .tasks import mail_send_task

    text = event_text(name or event.verb, data)
    body = f"{text}\n\n{data['url']}\n"
    if comment:
        body += f"\n{data['comment']}\n"
    subject = f"{settings.EMAIL_SUBJECT_PREFIX}{event_text(name or event.verb, {**data, 'url': ''})}"[:200]
    for address in addresses:  # one message each: nobody learns who else was told
        transaction.on_commit(partial(mail_send_task.delay, address, subject, body))


def mail_send(*, to: str, subject: str, body: str) -> None:
    """Send one message through Django's configured mail backend (raises on an SMTP error)."""
    from django.core.mail import EmailMessage

    EmailMessage(subject=subject, body=body, from_email=settings.DEFAULT_FROM_EMAIL, to=[to]).send()
