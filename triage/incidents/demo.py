"""Demo incidents built by the scenario generator, ingested like any upload (idempotent)."""
from __future__ import annotations

import tarfile
import tempfile
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from django.utils import timezone

from .models import Incident
from .services import incident_diagnose, incident_ingest, incoming_from_path


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
                # No title: the verdict gives one ("Xid 79 on node-b GPU 3 — job demo-…").
                incident, _ = incident_ingest(bundles=[incoming], job=demo_job(cause))
        incident.refresh_from_db()
        created.append(incident)
    return created


# The fleet's story in the demo: one GPU failing again after it was marked fixed (a regression,
# then a drain recommendation: three machine faults on node-b), and one job whose failures land
# on a different host each time (the wander flag). (job, scenario cause, seed, days ago)
FLEET_STORY = (
    ("demo-llama_1", "hardware_fault", 0, 5),
    ("demo-llama_2", "hardware_fault", 0, 3),
    ("demo-llama_3", "hardware_fault", 0, 1),
    ("demo-pretrain_1", "network", 0, 6),
    ("demo-pretrain_2", "network", 2, 4),
    ("demo-pretrain_3", "network", 4, 2),
    ("demo-pretrain_4", "network", 6, 0),
)


def _demo_ingest(job: str, cause: str, seed: int, start: datetime | None = None) -> Incident:
    from triage.fleet.services import fleet_incident_update
    from triage.scenarios import build

    with tempfile.TemporaryDirectory(prefix="triage-demo-") as tmp:
        # Each story incident is its own failure (the job started that day): the same bundle
        # uploaded again would be linked as a duplicate and count once for drain.
        bundle_dir = build(cause, Path(tmp) / "bundle", seed=seed, start=start)
        archive = Path(tmp) / f"{job}.tar.gz"
        with tarfile.open(archive, "w:gz") as tar:
            tar.add(bundle_dir, arcname=bundle_dir.name)
        with incoming_from_path(archive) as incoming:
            incident, _ = incident_ingest(bundles=[incoming], job=job)
    # With a worker elsewhere the parse may still be queued: do it here (both are idempotent).
    incident_diagnose(incident_id=incident.pk)
    fleet_incident_update(incident_id=incident.pk)
    incident.refresh_from_db()
    return incident


def demo_fleet_load(*, user: Any = None) -> list[Incident]:
    """The fleet story (FLEET_STORY), once: a resolved problem that comes back, a host to drain,
    a wandering job; spread over the last week so "Causes by day" has several days."""
    from triage.fleet.models import Occurrence, Problem
    from triage.fleet.services import problem_refresh, problem_resolve

    from .workflow import incident_set_workflow

    if Incident.objects.filter(job=FLEET_STORY[0][0]).exists():
        return []
    created = []
    now = timezone.now()
    for job, cause, seed, days_ago in FLEET_STORY:
        when = now - timedelta(days=days_ago, hours=2)
        incident = _demo_ingest(job, cause, seed, start=(when - timedelta(hours=1)).replace(microsecond=0))
        Incident.objects.filter(pk=incident.pk).update(created_at=when)
        Occurrence.objects.filter(pk=incident.pk).update(seen_at=when)
        occurrence = Occurrence.objects.filter(pk=incident.pk).first()
        if job == FLEET_STORY[0][0] and occurrence is not None and occurrence.problem is not None:
            # Someone fixed it (they thought): the next incidents reopen the problem.
            incident_set_workflow(incident=incident, user=user, status="resolved",
                                  resolution="reseated GPU 3 on node-b, ran dcgmi diag -r 3: passed")
            problem_resolve(problem=occurrence.problem)
        created.append(incident)
    for problem_id in Problem.objects.filter(occurrences__incident__in=created).values_list("pk", flat=True).distinct():
        problem_refresh(problem_id=problem_id)
    return created
