"""Links to host and GPU pages from any template, and the fleet panel of the incident page."""
from __future__ import annotations

from functools import lru_cache
from typing import Any
from urllib.parse import quote

from django import template
from django.urls import get_script_prefix, reverse

from triage.fleet.selectors import host_drain, incident_fleet, incident_uploads

register = template.Library()


def _fleet_prefix() -> str:
    # Reversed once per script prefix, not per link: the fleet pages link hundreds of hosts.
    return _fleet_prefix_under(get_script_prefix())


@lru_cache(maxsize=8)
def _fleet_prefix_under(script_prefix: str) -> str:
    return reverse("fleet:fleet")


@register.simple_tag
def host_url(host: str) -> str:
    if not host or "/" in host:
        return ""
    return f"{_fleet_prefix()}hosts/{quote(host, safe='')}/"


@register.simple_tag
def gpu_url(host: str, gpu: str | int) -> str:
    """`gpu`: the fleet's key, or a bare device index (the GPU page resolves it through snapshots)."""
    if isinstance(gpu, int) and not isinstance(gpu, bool):
        gpu = f"dev:{gpu}"
    if not host or not gpu or "/" in host or "/" in str(gpu):
        return ""
    return f"{_fleet_prefix()}hosts/{quote(host, safe='')}/gpus/{quote(str(gpu), safe=':')}/"


@register.inclusion_tag("fleet/incident_panel.html")
def incident_fleet_panel(incident: Any) -> dict[str, Any]:
    occ = incident_fleet(incident_id=incident.pk)
    drain = host_drain(team_id=occ.team_id, host=occ.host) if occ is not None and occ.host else None
    return {"occ": occ, "drain": drain, "uploads": incident_uploads(incident_id=incident.pk) if occ is not None else 1}
