"""Reads for the incident page."""
from __future__ import annotations

from triage.incidents.models import Incident


def incident_nodes_reported(*, incident: Incident) -> int:
    """How many nodes have sent a bundle: distinct hosts (a bundle naming none counts alone)."""
    rows = incident.bundles.values_list("host", "label")
    return len({host or f"label:{label}" for host, label in rows})
