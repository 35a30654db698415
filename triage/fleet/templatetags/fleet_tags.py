"""Links to host and GPU pages from any template, and the fleet panel of the incident page."""
from __future__ import annotations

from typing import Any

from django import template
from django.urls import NoReverseMatch, reverse

from triage.fleet.selectors import host_drain, incident_fleet

register = template.Library()


@register.simple_tag
def host_url(host: str) -> str:
    if not host or "/" in host:
        return ""
    try:
        return reverse("fleet:host", args=[host])
    except NoReverseMatch:
        return ""


@register.simple_tag
def gpu_url(host: str, gpu: str) -> str:
    if not host or not gpu or "/" in host or "/" in gpu:
        return ""
    try:
        return reverse("fleet:gpu", args=[host, gpu])
    except NoReverseMatch:
        return ""


@register.inclusion_tag("fleet/incident_panel.html")
def incident_fleet_panel(incident: Any) -> dict[str, Any]:
    occ = incident_fleet(incident_id=incident.pk)
    drain = host_drain(team_id=occ.team_id, host=occ.host) if occ is not None and occ.host else None
    return {"occ": occ, "drain": drain}
