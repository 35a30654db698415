"""Reads. Every incident lookup goes through `incident_queryset`, so access rules (teams, share
links) land in one place when they come."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

from django.db.models import Q, QuerySet

from .models import Bundle, Incident


def incident_queryset(*, user: Any = None, token: Any = None) -> QuerySet[Incident]:
    """The incidents this user (or API token) may see. Today: all, to any signed-in user or
    valid token; the caller has authenticated them already."""
    return Incident.objects.all()


def incident_get(*, incident_id: str, user: Any = None, token: Any = None) -> Incident | None:
    return incident_queryset(user=user, token=token).filter(pk=incident_id).first()


@dataclass(frozen=True)
class IncidentFilters:
    q: str = ""
    cause: str = ""
    host: str = ""
    job: str = ""
    status: str = ""
    date_from: date | None = None
    date_to: date | None = None


def incident_list(*, filters: IncidentFilters, user: Any = None) -> QuerySet[Incident]:
    qs = incident_queryset(user=user)
    if filters.q:
        qs = qs.filter(
            Q(title__icontains=filters.q)
            | Q(job__icontains=filters.q)
            | Q(summary__icontains=filters.q)
            | Q(id__iexact=filters.q)
        )
    if filters.cause:
        qs = qs.filter(cause=filters.cause)
    if filters.status:
        qs = qs.filter(status=filters.status)
    if filters.job:
        qs = qs.filter(job__icontains=filters.job)
    if filters.host:
        # A host named by an upload, or one the diagnosis found ranks on.
        qs = qs.filter(
            Q(bundles__host__iexact=filters.host) | Q(rank_states__host__iexact=filters.host)
        ).distinct()
    if filters.date_from:
        qs = qs.filter(created_at__date__gte=filters.date_from)
    if filters.date_to:
        qs = qs.filter(created_at__date__lte=filters.date_to)
    return qs


def incident_bundle(*, incident: Incident, bundle_id: int) -> Bundle | None:
    return incident.bundles.filter(pk=bundle_id).first()
