"""Reads. Every incident lookup goes through `incident_queryset`, so the access rules live in
one place: a person sees the incidents of the teams they belong to, an API token those of its
team (with the read scope), nobody anything else. Share links are resolved by the share views
(`triage.accounts.selectors.sharelink_from_secret`), one incident at a time."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

from django.db.models import Q, QuerySet

from triage.accounts.models import Role
from triage.accounts.selectors import team_ids_for

from .models import Bundle, Finding, Incident


def incident_queryset(*, user: Any = None, token: Any = None, role: str = Role.VIEWER) -> QuerySet[Incident]:
    """The incidents this user (with at least `role`) or API token (with the read scope) may
    see; none without either."""
    if token is not None:
        if not token.can_read:
            return Incident.objects.none()
        return Incident.objects.filter(team_id=token.team_id)
    return Incident.objects.filter(team_id__in=team_ids_for(user=user, role=role))


def incident_get(*, incident_id: str, user: Any = None, token: Any = None, role: str = Role.VIEWER) -> Incident | None:
    return incident_queryset(user=user, token=token, role=role).filter(pk=incident_id).first()


@dataclass(frozen=True)
class IncidentFilters:
    q: str = ""
    cause: str = ""
    host: str = ""
    job: str = ""
    status: str = ""
    date_from: date | None = None
    date_to: date | None = None
    # Where people took it: a Workflow value; and who has it (a user name, or NOBODY).
    workflow: str = ""
    assignee: str = ""


# The assignee filter's value for "assigned to nobody" (no user name has a leading dash).
NOBODY = "-"


# Longer search text is cut: a search is a phrase from a log line, not a whole log.
SEARCH_MAX_CHARS = 200


def incident_list(*, filters: IncidentFilters, user: Any = None, token: Any = None) -> QuerySet[Incident]:
    qs = incident_queryset(user=user, token=token)
    if filters.q:
        q = filters.q[:SEARCH_MAX_CHARS]
        # Log text as the incident stores it: the lines its findings quote (evidence), the first
        # failure's line, and the findings' own words. Raw bundles are not scanned: that would
        # read gigabytes per keystroke.
        matching = Finding.objects.filter(
            Q(evidence__icontains=q) | Q(title__icontains=q) | Q(detail__icontains=q)
        ).values("incident_id")
        qs = qs.filter(
            Q(title__icontains=q)
            | Q(job__icontains=q)
            | Q(summary__icontains=q)
            | Q(id__iexact=q)
            | Q(first_failure__icontains=q)
            | Q(ticket_url__icontains=q)  # "OPS-4711" finds the incident tracked in that ticket
            | Q(pk__in=matching)
        )
    if filters.cause:
        qs = qs.filter(cause=filters.cause)
    if filters.status:
        qs = qs.filter(status=filters.status)
    if filters.job:
        qs = qs.filter(job__icontains=filters.job)
    if filters.workflow:
        qs = qs.filter(workflow=filters.workflow)
    if filters.assignee == NOBODY:
        qs = qs.filter(assignee__isnull=True)
    elif filters.assignee:
        qs = qs.filter(assignee__username=filters.assignee)
    if filters.host:
        # A host named by an upload, or one the diagnosis found ranks on.
        qs = qs.filter(
            Q(bundles__host__iexact=filters.host) | Q(rank_states__host__iexact=filters.host)
        ).distinct()
    if filters.date_from:
        qs = qs.filter(created_at__date__gte=filters.date_from)
    if filters.date_to:
        qs = qs.filter(created_at__date__lte=filters.date_to)
    return qs.select_related("assignee", "resolved_by")  # the workflow column, one query


def assignable_users(*, user: Any) -> list[str]:
    """User names of the members of this person's teams (the list's assignee filter)."""
    from django.contrib.auth import get_user_model

    return list(get_user_model().objects.filter(memberships__team_id__in=team_ids_for(user=user))
                .distinct().order_by("username").values_list("username", flat=True)[:500])


def incident_bundle(*, incident: Incident, bundle_id: int) -> Bundle | None:
    return incident.bundles.filter(pk=bundle_id).first()
