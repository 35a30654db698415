"""What people do with an incident once it is diagnosed: assign it, acknowledge, resolve or
ignore it, comment (mentioning team members with @name), link the ticket it is tracked in;
and the title it gets from its verdict until someone types another.

A resolution note ("resolved by") is carried to the next incident of the same fleet problem:
`previous_resolution` finds it, the incident page and the API show it.
"""
from __future__ import annotations

import re
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from triage.fleet.fingerprint import fingerprint_of

from .models import Comment, Incident, IncidentEvent, Workflow
from .notify import history_record, notify
from .redact import redact_text

MENTION_RE = re.compile(r"(?<![\w.@])@([\w.+-]{1,150})")

# How a person reads each cause of the vocabulary in a title.
CAUSE_WORDS = {
    "rank_crash": "Rank crash",
    "oom": "Out of memory",
    "hardware_fault": "GPU hardware fault",
    "collective_timeout_straggler": "Collective timeout",
    "version_mismatch": "Version mismatch",
    "device_ordinal": "Invalid device ordinal",
    "shm_exhausted": "/dev/shm exhausted",
    "rendezvous_hang": "Rendezvous hang",
    "p2p_unsupported": "P2P unsupported",
    "network": "Network failure",
    "other": "Failure",
}


class WorkflowError(ValueError):
    """A workflow change that cannot be made (an unknown status, an assignee outside the team)."""


def title_from_diagnosis(data: dict[str, Any], job: str = "") -> str:
    """"Xid 79 on dgx-b12 GPU 2 — job llama-70b": what failed, where, which job. Empty when
    the diagnosis has no verdict."""
    fp = fingerprint_of(data)
    if fp is None:
        return ""
    what = f"Xid {fp.xid}" if fp.xid is not None else CAUSE_WORDS.get(fp.cause, fp.cause)
    if fp.nic:
        what = f"{what} ({fp.nic})"
    where = fp.host
    ff = data.get("first_failure") or {}
    device = fp.device if fp.device is not None else (ff.get("device") if ff.get("host") == fp.host else None)
    if where and isinstance(device, int):
        where += f" GPU {device}"
    title = f"{what} on {where}" if where else what
    if job:
        title += f" — job {job}"
    return title[:300]


def title_refresh(*, incident: Incident, data: dict[str, Any]) -> None:
    """Give the incident the title of its verdict unless a person chose one (no save)."""
    if incident.title_generated or not incident.title:
        generated = title_from_diagnosis(data, incident.job)
        if generated:
            incident.title = generated
            incident.title_generated = True


def team_members(*, incident: Incident) -> QuerySet[Any]:
    return get_user_model().objects.filter(memberships__team_id=incident.team_id).order_by("username")


def mentions_in(*, incident: Incident, body: str) -> list[str]:
    """The team members a comment names with @username (others are left as text)."""
    names = {m.group(1).rstrip(".") for m in MENTION_RE.finditer(body)}
    if not names:
        return []
    return list(team_members(incident=incident).filter(username__in=names).values_list("username", flat=True))


# Where a status change comes from and goes to -> what the history (and the webhooks) call it.
SETTLED = (Workflow.RESOLVED, Workflow.IGNORED)


def _status_verb(before: str, after: str) -> str:
    if after == Workflow.RESOLVED:
        return IncidentEvent.Verb.RESOLVED
    if after == Workflow.IGNORED:
        return IncidentEvent.Verb.IGNORED
    if before in SETTLED:
        return IncidentEvent.Verb.REOPENED
    return IncidentEvent.Verb.ACKNOWLEDGED if after == Workflow.ACKNOWLEDGED else IncidentEvent.Verb.REOPENED


def incident_set_workflow(
    *, incident: Incident, user: Any, status: str | None = None, assignee: str | None = None,
    ticket_url: str | None = None, resolution: str | None = None, base_url: str = "",
) -> Incident:
    """Change where the incident stands. `assignee` is a team member's user name ("" unassigns);
    None leaves a field as it is. Resolving records who and when. Every change is a history
    row; assignments and status changes notify the team's webhooks (and mail the assignee);
    `base_url` is the address the change was made on, for the links in them."""
    fields: list[str] = []
    changes: list[tuple[str, dict[str, Any], list[Any]]] = []  # (verb, details, people to mail)
    if status is not None:
        if status not in Workflow.values:
            raise WorkflowError(f"status must be one of {', '.join(Workflow.values)}")
        if status != incident.workflow:
            changes.append((_status_verb(incident.workflow, status), {"from": incident.workflow, "to": status}, []))
            incident.workflow = status
            fields.append("workflow")
            if status == Workflow.RESOLVED:
                incident.resolved_by, incident.resolved_at = user, timezone.now()
            else:
                incident.resolved_by, incident.resolved_at = None, None
            fields += ["resolved_by", "resolved_at"]
    if assignee is not None:
        member = team_members(incident=incident).filter(username=assignee).first() if assignee else None
        if assignee and member is None:
            raise WorkflowError(f"{assignee!r} is not a member of the incident's team")
        if (member.pk if member else None) != incident.assignee_id:
            previous = _name(incident.assignee)
            if member is not None:
                changes.append((IncidentEvent.Verb.ASSIGNED, {"assignee": assignee, "previous": previous}, [member]))
            else:
                changes.append((IncidentEvent.Verb.UNASSIGNED, {"previous": previous}, []))
        incident.assignee = member
        fields.append("assignee")
    if ticket_url is not None:
        ticket_url = ticket_url.strip()[:500]
        if ticket_url != incident.ticket_url:
            changes.append((IncidentEvent.Verb.TICKET, {"ticket_url": ticket_url or None}, []))
        incident.ticket_url = ticket_url
        fields.append("ticket_url")
    if resolution is not None:
        resolution = resolution.strip()[:5000]
        if resolution != incident.resolution:
            changes.append((IncidentEvent.Verb.RESOLUTION, {"resolution": redact_text(resolution)[:500] or None}, []))
        incident.resolution = resolution
        fields.append("resolution")
    if fields:
        with transaction.atomic():
            incident.save(update_fields=[*fields, "updated_at"])
            for verb, details, recipients in changes:
                event = history_record(incident=incident, user=user, verb=verb, details=details)
                notify(incident=incident, user=user, event=event, base_url=base_url, recipients=recipients)
    return incident


def comment_add(*, incident: Incident, user: Any, body: str, base_url: str = "") -> Comment:
    """A comment; the team members it @mentions are told (webhook `incident.mentioned`, mail)."""
    body = body.strip()
    if not body:
        raise WorkflowError("a comment needs some text")
    mentions = mentions_in(incident=incident, body=body)
    with transaction.atomic():
        comment = Comment.objects.create(incident=incident, author=user, body=body[:10000], mentions=mentions)
        history_record(incident=incident, user=user, verb=IncidentEvent.Verb.COMMENTED, details={"comment": comment.pk})
        if mentions:
            event = history_record(incident=incident, user=user, verb=IncidentEvent.Verb.MENTIONED,
                                   details={"mentions": mentions, "comment": comment.pk})
            people = list(team_members(incident=incident).filter(username__in=mentions))
            notify(incident=incident, user=user, event=event, base_url=base_url, recipients=people,
                   comment=comment.body)
    return comment


def previous_resolution(*, incident: Incident) -> Incident | None:
    """The latest earlier incident of the same fleet problem that someone resolved: what fixed it
    last time. None when the incident belongs to no problem yet or none was resolved."""
    occurrence = getattr(incident, "occurrence", None)
    problem_id = getattr(occurrence, "problem_id", None) if occurrence is not None else None
    if problem_id is None:
        return None
    return (Incident.objects.filter(occurrence__problem_id=problem_id, workflow=Workflow.RESOLVED,
                                    created_at__lt=incident.created_at)
            .exclude(pk=incident.pk).select_related("resolved_by").order_by("-resolved_at").first())


def _name(user: Any) -> str | None:
    return user.get_username() if user is not None else None


def workflow_data(incident: Incident, *, related: bool = True) -> dict[str, Any]:
    """The workflow as the API and webhooks give it; `related` adds the comment count and the
    previous resolution of the same problem (two queries: the detail, not the list)."""
    data: dict[str, Any] = {
        "status": incident.workflow,
        "assignee": _name(incident.assignee),
        "ticket_url": incident.ticket_url or None,
        "resolution": redact_text(incident.resolution) or None,
        "resolved_by": _name(incident.resolved_by),
        "resolved_at": incident.resolved_at.isoformat() if incident.resolved_at else None,
    }
    if not related:
        return data
    previous = previous_resolution(incident=incident)
    return {
        **data,
        "comments": incident.comments.count(),
        "previous_resolution": {
            "incident": previous.pk,
            "resolution": redact_text(previous.resolution) or None,
            "resolved_by": _name(previous.resolved_by),
            "resolved_at": previous.resolved_at.isoformat() if previous.resolved_at else None,
            "ticket_url": previous.ticket_url or None,
        } if previous is not None else None,
    }
