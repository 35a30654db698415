"""Helpers for the security tests: personas, incidents of a team, uploads through the API."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.test import Client

from triage.incidents.models import Incident
from triage.incidents.services import incident_diagnose, incident_ingest, incoming_from_path

TEAM = "sre"  # the team that owns the incidents under test
OTHER_TEAM = "ml-research"


@dataclass
class Personas:
    owner: Client  # admin of the incident's team
    member: Client
    viewer: Client
    outsider: Client  # admin of another team
    anonymous: Client
    users: dict[str, Any]


def team_incident(path: Path, *, team: str = TEAM, **kwargs: Any) -> Incident:
    """An incident of `team`, diagnosed in-process, as an upload would leave it."""
    from triage.accounts.services import team_get_or_create

    with incoming_from_path(path) as incoming:
        incident, _ = incident_ingest(bundles=[incoming], team=team_get_or_create(name=team), **kwargs)
    incident_diagnose(incident_id=incident.pk)
    incident.refresh_from_db()
    return incident


def api_upload(client: Client, token: str, name: str, data: bytes, **fields: str) -> Any:
    from django.core.files.uploadedfile import SimpleUploadedFile

    return client.post(
        "/api/v1/bundles", {"file": SimpleUploadedFile(name, data), **fields},
        headers={"Authorization": f"Bearer {token}"},
    )


def files_under(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file()) if root.exists() else []
