"""Browser pages through Django's test client: login, list and filters, incident page, log
viewer, downloads, upload."""
from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone

from tests.conftest import join_team, sample_log, tar_gz
from triage.incidents.models import Bundle, Finding, Incident
from triage.incidents.services import incident_diagnose, incident_ingest, incoming_from_path

pytestmark = pytest.mark.django_db


@pytest.fixture
def sre(client: Client) -> Client:
    client.force_login(join_team(User.objects.create_user("sre", password="x")))
    return client


def diagnosed(path: Path, **kwargs: Any) -> Incident:
    with incoming_from_path(path) as incoming:
        incident, _ = incident_ingest(bundles=[incoming], **kwargs)
    incident_diagnose(incident_id=incident.pk)
    incident.refresh_from_db()
    return incident


def test_pages_need_a_login(client: Client, media_root: Path, shm_bundle: Path) -> None:
    incident = diagnosed(shm_bundle)
    for url in ("/", "/upload", f"/incidents/{incident.pk}/", f"/incidents/{incident.pk}/log?source=x/y"):
        response = client.get(url)
        assert response.status_code == 302, url
        assert response["Location"].startswith("/accounts/login/")


def test_the_incident_page_shows_verdict_evidence_and_tables(sre: Client, media_root: Path, shm_bundle: Path) -> None:
    incident = diagnosed(shm_bundle, job="slurm-7")
    page = sre.get(f"/incidents/{incident.pk}/").content.decode()
    verdict = Finding.objects.get(incident=incident, position=0)
    assert 'id="verdict"' in page and "shm_exhausted" in page
    assert incident.summary.replace("'", "&#x27;") in page or incident.summary in page
    evidence = verdict.evidence[0]
    assert f'/incidents/{incident.pk}/log?source={evidence["source"].replace("/", "%2F")}&amp;line={evidence["line"]}' in page
    assert 'id="rank-timeline"' in page and f'data-figure-url="/incidents/{incident.pk}/timeline.json"' in page
    assert "<script>" not in page.replace("<script src=", "")  # no inline scripts
    assert f"/incidents/{incident.pk}/bundles/" in page  # raw bundle download


def test_log_text_is_escaped(sre: Client, media_root: Path, tmp_path: Path) -> None:
    hostile = sample_log("shm_exhausted") + b"\n<script>alert(1)</script> NCCL WARN <img src=x onerror=alert(2)>\n"
    path = tmp_path / "hostile.tar.gz"
    path.write_bytes(tar_gz({"node-a/log.txt": hostile}))
    incident = diagnosed(path)
    source = "hostile/node-a/log.txt"
    log = sre.get(f"/incidents/{incident.pk}/log", {"source": source, "line": 1}).content.decode()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in log
    assert "<script>alert" not in log and "<img src=x" not in log
    page = sre.get(f"/incidents/{incident.pk}/").content.decode()
    assert "<script>alert" not in page and "<img src=x" not in page


def test_the_log_viewer_opens_at_the_evidence_line(sre: Client, media_root: Path, shm_bundle: Path) -> None:
    incident = diagnosed(shm_bundle)
    evidence = Finding.objects.get(incident=incident, position=0).evidence[0]
    response = sre.get(f"/incidents/{incident.pk}/log", {"source": evidence["source"], "line": evidence["line"]})
    assert response.status_code == 200
    html = response.content.decode()
    assert f'<tr id="L{evidence["line"]}" class="target">' in html
    assert sre.get(f"/incidents/{incident.pk}/log", {"source": "nope/x.log"}).status_code == 404


def test_the_raw_bundle_downloads_byte_for_byte(sre: Client, media_root: Path, corrupt_bundle: Path) -> None:
    incident = diagnosed(corrupt_bundle)
    assert incident.status == Incident.Status.FAILED
    bundle = Bundle.objects.get(incident=incident)
    page = sre.get(f"/incidents/{incident.pk}/").content.decode()
    assert incident.error in page.replace("&#x27;", "'")
    response = sre.get(f"/incidents/{incident.pk}/bundles/{bundle.pk}/download")
    assert response.status_code == 200
    assert b"".join(response.streaming_content) == corrupt_bundle.read_bytes()
    assert 'attachment; filename="broken.tar.gz"' in response["Content-Disposition"]


def test_the_list_filters(sre: Client, media_root: Path, shm_bundle: Path, tmp_path: Path) -> None:
    shm = diagnosed(shm_bundle, job="job-shm", host="gpu-node-7")
    other_log = tmp_path / "plain.log"
    other_log.write_bytes(b"hello\n")
    other = diagnosed(other_log, job="job-other")
    Incident.objects.filter(pk=other.pk).update(created_at=timezone.now() - timedelta(days=10))

    def listed(**params: str) -> set[str]:
        html = sre.get("/", params).content.decode()
        return {i for i in (shm.pk, other.pk) if f"/incidents/{i}/" in html}

    assert listed() == {shm.pk, other.pk}
    assert listed(cause="shm_exhausted") == {shm.pk}
    assert listed(host="gpu-node-7") == {shm.pk}
    assert listed(job="job-other") == {other.pk}
    assert listed(q="job-shm") == {shm.pk}
    since = (timezone.now() - timedelta(days=2)).date().isoformat()
    assert listed(date_from=since) == {shm.pk}
    assert listed(date_to=since) == {other.pk}


def test_uploading_several_files_in_the_browser(
    sre: Client, media_root: Path, shm_bundle: Path, tmp_path: Path, django_capture_on_commit_callbacks
) -> None:
    second = tmp_path / "rank1.log"
    second.write_bytes(b"rank 1\n")
    with shm_bundle.open("rb") as a, second.open("rb") as b, django_capture_on_commit_callbacks(execute=True):
        response = sre.post("/upload", {"files": [a, b], "job": "browser-job"})
    incident = Incident.objects.get(job="browser-job")
    assert response.status_code == 302 and response["Location"] == f"/incidents/{incident.pk}/"
    assert sorted(incident.bundles.values_list("original_name", flat=True)) == ["node-a.tar.gz", "rank1.log"]
    incident.refresh_from_db()
    assert incident.status == Incident.Status.READY
    assert incident.bundles.first().uploaded_by.username == "sre"


def test_a_browser_upload_over_the_limit_gets_413(sre: Client, media_root: Path, settings: Any, tmp_path: Path) -> None:
    settings.TRIAGE_MAX_BUNDLE_BYTES = 1024 * 1024
    big = tmp_path / "big.log"
    big.write_bytes(b"z" * (3 * 1024 * 1024))
    with big.open("rb") as f:
        response = sre.post("/upload", {"files": [f]}, headers={"Accept": "application/json"})
    assert response.status_code == 413
    assert "1 MiB limit" in response.json()["error"]
    assert Incident.objects.count() == 0
    assert [p for p in media_root.rglob("*") if p.is_file()] == []  # the partial file is gone


def test_forms_need_the_csrf_token(media_root: Path, shm_bundle: Path) -> None:
    client = Client(enforce_csrf_checks=True)
    client.force_login(join_team(User.objects.create_user("sre2", password="x")))
    with shm_bundle.open("rb") as f:
        assert client.post("/upload", {"files": [f]}).status_code == 403


def test_the_upload_page_names_the_limit(sre: Client, settings: Any) -> None:
    settings.TRIAGE_MAX_BUNDLE_BYTES = 512 * 1024 * 1024
    html = sre.get("/upload").content.decode()
    assert "Up to 512 MiB per file" in html
    assert 'data-limit-bytes="536870912"' in html


def test_the_status_endpoint(sre: Client, media_root: Path, shm_bundle: Path) -> None:
    incident = diagnosed(shm_bundle)
    assert sre.get(f"/incidents/{incident.pk}/status.json").json() == {
        "status": "ready", "error": None, "revision": 1
    }


def test_a_smoke_check_shows_as_the_hosts_health_record(sre: Client, media_root: Path, tmp_path: Path) -> None:
    import json

    smoke = {
        "schema": "nccl-triage/smoke@1", "host": "node-c", "backend": "nccl", "world_size": 8, "ok": False,
        "busbw_gbps": None,
        "ranks": [{"rank": 0, "ok": True, "error": None}, {"rank": 5, "ok": False, "error": "NCCL error: unhandled cuda error"}],
    }
    path = tmp_path / "smoke.tar.gz"
    path.write_bytes(tar_gz({"node-c/smoke.json": json.dumps(smoke).encode()}))
    incident = diagnosed(path, job="smoke-node-c")
    page = sre.get(f"/incidents/{incident.pk}/").content.decode()
    assert 'id="health"' in page
    assert "node-c" in page and "failed" in page and "NCCL error: unhandled cuda error" in page
    assert "Health check (smoke, nccl) failed on node-c" in page  # the engine's note
