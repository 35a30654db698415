"""Demo incidents built by the scenario generator, ingested like any upload (idempotent)."""
from __future__ import annotations

import tarfile
import tempfile
from pathlib import Path

from .models import Incident
from .services import incident_ingest, incoming_from_path


def demo_job(cause: str) -> str:
    return f"demo-{cause}"


def demo_incidents_load(*, causes: list[str] | None = None) -> list[Incident]:
    """Create one incident per scenario cause (job `demo-<cause>`), unless it exists already.
    Returns the incidents created by this call."""
    from triage.scenarios import SCENARIO_CAUSES, build

    created = []
    for cause in causes or list(SCENARIO_CAUSES):
        if Incident.objects.filter(job=demo_job(cause)).exists():
            continue
        with tempfile.TemporaryDirectory(prefix="triage-demo-") as tmp:
            bundle_dir = build(cause, Path(tmp) / "bundle", seed=0)
            archive = Path(tmp) / f"{demo_job(cause)}.tar.gz"
            with tarfile.open(archive, "w:gz") as tar:
                tar.add(bundle_dir, arcname=bundle_dir.name)
            with incoming_from_path(archive) as incoming:
                incident, _ = incident_ingest(
                    bundles=[incoming], job=demo_job(cause), title=f"Demo: {cause.replace('_', ' ')}"
                )
        incident.refresh_from_db()
        created.append(incident)
    return created
