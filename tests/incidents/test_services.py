"""Services on the real database (PostgreSQL by default, see triage/settings_test.py)."""
from __future__ import annotations

import hashlib
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from tests.conftest import sample_log
from triage.incidents.models import Bundle, Diagnosis, Finding, Incident, RankState
from triage.incidents.services import (
    incident_diagnose,
    incident_fail_stuck,
    incident_ingest,
    incoming_from_path,
)

pytestmark = pytest.mark.django_db


def ingest(path: Path, **kwargs: str) -> tuple[Incident, list[Bundle]]:
    with incoming_from_path(path) as incoming:
        return incident_ingest(bundles=[incoming], **kwargs)


def test_it_keeps_the_raw_bundle_untouched(media_root: Path, shm_bundle: Path) -> None:
    incident, added = ingest(shm_bundle, job="slurm-1", host="node-a")
    bundle = added[0]
    raw = shm_bundle.read_bytes()
    assert bundle.sha256 == hashlib.sha256(raw).hexdigest()
    assert bundle.size == len(raw)
    assert bundle.original_name == "node-a.tar.gz"
    assert bundle.host == "node-a"
    assert bundle.label == "node-a"
    assert Path(bundle.file.path).read_bytes() == raw
    assert Path(bundle.file.path).is_relative_to(media_root)
    assert incident.job == "slurm-1"


def test_it_diagnoses_in_process_without_redis(
    media_root: Path, shm_bundle: Path, django_capture_on_commit_callbacks
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        incident, _ = ingest(shm_bundle, job="slurm-2")
    incident.refresh_from_db()
    assert incident.status == Incident.Status.READY, incident.error
    assert incident.cause == "shm_exhausted"
    assert incident.summary
    data = incident.diagnosis.data
    assert data["schema"] == "nccl-triage/diagnosis@1"
    verdict = Finding.objects.get(incident=incident, position=0)
    assert verdict.cause == "shm_exhausted"
    # Evidence sources carry the bundle label, which is how the log viewer finds the bundle.
    assert all(ev["source"].startswith("node-a/") for ev in verdict.evidence)
    assert RankState.objects.filter(incident=incident).count() == len(data["ranks"])


def test_the_same_bundle_twice_is_stored_once(media_root: Path, shm_bundle: Path) -> None:
    first, added = ingest(shm_bundle, job="slurm-3")
    again, added_again = ingest(shm_bundle, job="slurm-3")
    assert again.pk == first.pk
    assert added_again == []
    assert Bundle.objects.filter(incident=first).count() == 1
    assert again.revision == 1  # nothing new, no new diagnosis queued


def test_uploads_naming_the_same_job_join_one_incident(media_root: Path, tmp_path: Path) -> None:
    a = tmp_path / "a" / "rank0.log"
    b = tmp_path / "b" / "rank0.log"
    for path, text in ((a, b"rank 0 on node-a\n"), (b, b"rank 0 on node-b\n")):
        path.parent.mkdir()
        path.write_bytes(text)
    first, _ = ingest(a, job="slurm-4")
    second, _ = ingest(b, job="slurm-4")
    third, _ = ingest(a, job="another-job")
    assert first.pk == second.pk != third.pk
    labels = list(Bundle.objects.filter(incident=first).values_list("label", flat=True))
    assert labels == ["rank0.log", "rank0.log-2"]  # unique within the incident
    second.refresh_from_db()
    assert second.revision == 2


def test_a_rerun_replaces_the_results(media_root: Path, shm_bundle: Path) -> None:
    incident, _ = ingest(shm_bundle)
    incident_diagnose(incident_id=incident.pk)
    findings = list(Finding.objects.filter(incident=incident).values_list("cause", "title"))
    ranks = RankState.objects.filter(incident=incident).count()
    incident_diagnose(incident_id=incident.pk, force=True)
    assert list(Finding.objects.filter(incident=incident).values_list("cause", "title")) == findings
    assert RankState.objects.filter(incident=incident).count() == ranks
    assert Diagnosis.objects.filter(incident=incident).count() == 1


def test_an_older_parse_never_overwrites_a_newer_one(media_root: Path, shm_bundle: Path, tmp_path: Path) -> None:
    incident, _ = ingest(shm_bundle, job="slurm-5")
    incident_diagnose(incident_id=incident.pk)
    extra = tmp_path / "node-b.log"
    extra.write_bytes(sample_log("shm_exhausted"))
    ingest(extra, job="slurm-5")  # revision 2
    incident_diagnose(incident_id=incident.pk)
    assert Diagnosis.objects.get(incident=incident).revision == 2
    from triage.incidents.services import _store_diagnosis

    _store_diagnosis(incident_id=incident.pk, revision=1, data={"findings": []}, seconds=0.0)
    assert Diagnosis.objects.get(incident=incident).revision == 2
    incident.refresh_from_db()
    assert incident.status == Incident.Status.READY


def test_a_corrupt_archive_fails_with_a_reason_and_keeps_the_bundle(
    media_root: Path, corrupt_bundle: Path
) -> None:
    incident, added = ingest(corrupt_bundle)
    incident_diagnose(incident_id=incident.pk)
    incident.refresh_from_db()
    assert incident.status == Incident.Status.FAILED
    assert incident.error.startswith("the bundle could not be read: ")
    assert Path(added[0].file.path).read_bytes() == corrupt_bundle.read_bytes()


def test_the_sweeper_fails_incidents_stuck_in_parsing(media_root: Path, shm_bundle: Path) -> None:
    stuck, _ = ingest(shm_bundle, job="stuck")
    recent, _ = ingest(shm_bundle, job="recent")
    Incident.objects.filter(pk=stuck.pk).update(
        status=Incident.Status.PARSING, parse_started_at=timezone.now() - timedelta(hours=3)
    )
    Incident.objects.filter(pk=recent.pk).update(status=Incident.Status.PARSING, parse_started_at=timezone.now())
    assert incident_fail_stuck(older_than=timedelta(hours=2)) == 1
    stuck.refresh_from_db()
    recent.refresh_from_db()
    assert stuck.status == Incident.Status.FAILED
    assert "did not finish within 120 min" in stuck.error
    assert recent.status == Incident.Status.PARSING

