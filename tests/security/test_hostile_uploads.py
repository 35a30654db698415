"""Hostile uploads through the real path (API or upload page -> in-process task -> stored
diagnosis): each gets a clear answer, nothing already stored is lost, nothing is written
outside MEDIA_ROOT, and the raw upload stays downloadable byte for byte."""
from __future__ import annotations

import gzip
import io
import os
import pickle
import tarfile
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from tests.conftest import join_team, sample_log, tar_gz
from tests.security.helpers import api_upload, files_under
from triage.accounts.services import apitoken_create
from triage.incidents.models import Bundle, Incident

pytestmark = pytest.mark.django_db


@pytest.fixture
def token(db: None) -> str:
    return apitoken_create(name="collector")[1]


@pytest.fixture
def member(client: Client, django_user_model: Any) -> Client:
    client.force_login(join_team(django_user_model.objects.create_user("sre")))
    return client


def upload_and_diagnose(client: Client, token: str, name: str, data: bytes, capture: Any, **fields: str) -> Incident:
    with capture(execute=True):
        response = api_upload(client, token, name, data, **fields)
    assert response.status_code == 202, response.content
    return Incident.objects.get(pk=response.json()["incident"])


def assert_raw_kept(client: Client, django_user_model: Any, incident: Incident, data: bytes) -> None:
    """The bundle is stored untouched and a team member downloads exactly what was sent."""
    bundle = incident.bundles.get()
    viewer = Client()
    viewer.force_login(join_team(django_user_model.objects.create_user(f"v-{incident.pk}"), role="viewer"))
    response = viewer.get(f"/incidents/{incident.pk}/bundles/{bundle.pk}/download")
    assert b"".join(response.streaming_content) == data


# --- Size limits -----------------------------------------------------------------------------

def test_a_file_over_the_per_file_limit_is_413_with_the_limit(
    client: Client, token: str, media_root: Path, settings: Any
) -> None:
    settings.TRIAGE_MAX_BUNDLE_BYTES = 1024 * 1024
    response = api_upload(client, token, "big.log", b"y" * (2 * 1024 * 1024))
    assert response.status_code == 413
    assert "1 MiB limit per file" in response.json()["error"]
    assert response["X-Bundle-Size-Limit"] == str(1024 * 1024)
    assert response["X-Upload-Size-Limit"] == str(settings.TRIAGE_MAX_UPLOAD_BYTES)
    assert response["X-Incident-Size-Limit"] == str(settings.TRIAGE_MAX_INCIDENT_BYTES)
    assert Incident.objects.count() == 0 and files_under(media_root) == []


def test_files_over_the_per_upload_limit_together_are_413(
    member: Client, media_root: Path, settings: Any
) -> None:
    settings.TRIAGE_MAX_UPLOAD_BYTES = 1024 * 1024  # each file is under the per-file limit
    files = [SimpleUploadedFile(f"rank{i}.log", b"z" * (400 * 1024)) for i in range(3)]
    response = member.post("/upload", {"files": files, "job": "j"}, headers={"Accept": "application/json"})
    assert response.status_code == 413
    assert "1 MiB limit per upload" in response.json()["error"]
    assert Incident.objects.count() == 0 and files_under(media_root) == []
    # The page says the limits too.
    assert "1 MiB per upload" in member.get("/upload").content.decode()


def test_a_bundle_taking_the_incident_over_its_limit_is_413_and_the_rest_stays(
    client: Client, token: str, media_root: Path, settings: Any
) -> None:
    settings.TRIAGE_MAX_INCIDENT_BYTES = 1024 * 1024
    first = api_upload(client, token, "node-a.log", b"a" * (700 * 1024), job="slurm-1")
    assert first.status_code == 202
    stored = files_under(media_root / "bundles")
    second = api_upload(client, token, "node-b.log", b"b" * (700 * 1024), job="slurm-1")
    assert second.status_code == 413
    assert "1 MiB limit per incident" in second.json()["error"]
    assert second["X-Incident-Size-Limit"] == str(1024 * 1024)
    incident = Incident.objects.get()
    assert list(incident.bundles.values_list("original_name", flat=True)) == ["node-a.log"]
    assert files_under(media_root / "bundles") == stored  # the first bundle is untouched
    assert files_under(media_root / "tmp") == []  # the refused one left nothing behind


# --- Archives --------------------------------------------------------------------------------

def hostile_tar(tmp_path: Path) -> bytes:
    """A real log plus every member that must never touch the filesystem."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        def add(info: tarfile.TarInfo, data: bytes = b"") -> None:
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))

        add(tarfile.TarInfo("node-a/log.txt"), sample_log())
        add(tarfile.TarInfo("../../../escaped.txt"), b"written outside?")
        add(tarfile.TarInfo(str(tmp_path / "absolute.txt")), b"written at an absolute path?")
        link = tarfile.TarInfo("node-a/passwd")
        link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
        add(link)
        hard = tarfile.TarInfo("node-a/hard")
        hard.type, hard.linkname = tarfile.LNKTYPE, "/etc/shadow"
        add(hard)
        device = tarfile.TarInfo("node-a/mem")
        device.type, device.devmajor, device.devminor = tarfile.CHRTYPE, 1, 1
        add(device)
    return buffer.getvalue()


def test_traversal_absolute_links_and_devices_never_touch_the_filesystem(
    client: Client, token: str, media_root: Path, tmp_path: Path, django_user_model: Any,
    django_capture_on_commit_callbacks: Any,
) -> None:
    data = hostile_tar(tmp_path)
    incident = upload_and_diagnose(client, token, "hostile.tar.gz", data, django_capture_on_commit_callbacks)
    assert incident.status == Incident.Status.READY, incident.error
    assert incident.cause == "shm_exhausted"  # the real log was still read
    problems = "\n".join(incident.diagnosis.data["problems"])
    assert "escaped.txt': unsafe path" in problems and "absolute.txt': unsafe path" in problems
    assert "passwd: link in archive skipped" in problems and "hard: link in archive skipped" in problems
    assert "mem: device or special member skipped" in problems
    for outside in (tmp_path / "escaped.txt", tmp_path / "absolute.txt", media_root.parent / "escaped.txt"):
        assert not outside.exists()
    # Only the raw upload itself is under MEDIA_ROOT: nothing was extracted anywhere.
    assert [p.name for p in files_under(media_root)] == ["hostile.tar.gz"]
    assert_raw_kept(client, django_user_model, incident, data)
    page = Client()
    page.force_login(django_user_model.objects.get(username=f"v-{incident.pk}"))
    html = page.get(f"/incidents/{incident.pk}/").content.decode()
    assert 'id="problems"' in html and "device or special member skipped" in html


@pytest.mark.parametrize(
    ("setting", "value", "files", "expected"),
    [
        ("TRIAGE_ARCHIVE_MAX_MEMBERS", 5, {f"x/{i}.log": b"hello\n" for i in range(20)}, "more than 5 files"),
        ("TRIAGE_ARCHIVE_MAX_TOTAL_BYTES", 2 * 1024 * 1024, {"x/big.log": b"q" * (3 * 1024 * 1024)},
         "larger than 2097152 bytes uncompressed"),
        ("TRIAGE_ARCHIVE_RATIO_GRACE_BYTES", 1024 * 1024, {"x/zeros.log": b"\0" * (8 * 1024 * 1024)},
         "compression ratio above 100:1"),
    ],
    ids=["member-count", "total-size", "compression-ratio"],
)
def test_archive_caps_stop_reading_and_say_so(
    client: Client, token: str, media_root: Path, settings: Any, django_user_model: Any,
    django_capture_on_commit_callbacks: Any, setting: str, value: int, files: dict[str, bytes], expected: str,
) -> None:
    setattr(settings, setting, value)
    data = tar_gz({"node-a/log.txt": sample_log(), **files})
    incident = upload_and_diagnose(client, token, "capped.tar.gz", data, django_capture_on_commit_callbacks)
    assert incident.status in (Incident.Status.READY, Incident.Status.FAILED)
    said = incident.error if incident.status == Incident.Status.FAILED else "\n".join(incident.diagnosis.data["problems"])
    assert expected in said
    assert [p.name for p in files_under(media_root)] == ["capped.tar.gz"]
    assert_raw_kept(client, django_user_model, incident, data)


class RunsCode:
    """Unpickling this with the standard loader would run a shell command."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, ...]:
        return (os.system, (f"touch {self.marker}",))


def test_a_flight_recorder_pickle_that_would_run_code_is_refused(
    client: Client, token: str, media_root: Path, tmp_path: Path, django_user_model: Any,
    django_capture_on_commit_callbacks: Any,
) -> None:
    marker = tmp_path / "pwned"
    evil = pickle.dumps(RunsCode(marker))
    data = tar_gz({"node-a/log.txt": sample_log(), "node-a/nccl_trace_rank_0.pkl": evil})
    incident = upload_and_diagnose(client, token, "fr.tar.gz", data, django_capture_on_commit_callbacks)
    assert not marker.exists()  # the code did not run
    assert incident.status == Incident.Status.READY
    problems = "\n".join(incident.diagnosis.data["problems"])
    assert "nccl_trace_rank_0.pkl: pickle refused" in problems and "system" in problems
    assert_raw_kept(client, django_user_model, incident, data)


def test_a_gzip_bomb_as_a_single_file_is_capped(
    client: Client, token: str, media_root: Path, settings: Any, django_capture_on_commit_callbacks: Any,
) -> None:
    settings.TRIAGE_ARCHIVE_RATIO_GRACE_BYTES = 1024 * 1024
    # Text, so the engine does not skip it as binary after a peek: it must read, and stop.
    data = gzip.compress(b"NCCL INFO same line again\n" * (1024 * 1024))
    incident = upload_and_diagnose(client, token, "rank0.log.gz", data, django_capture_on_commit_callbacks)
    said = incident.error or "\n".join(incident.diagnosis.data["problems"])
    assert "compression ratio" in said
    assert Bundle.objects.get(incident=incident).size == len(data)


# --- Rate limit ------------------------------------------------------------------------------

def test_uploads_over_the_rate_limit_get_429_with_retry_after(
    client: Client, token: str, media_root: Path, settings: Any
) -> None:
    settings.TRIAGE_UPLOAD_RATE_LIMIT = 2
    settings.TRIAGE_UPLOAD_RATE_WINDOW = 60
    for i in range(2):
        ok = api_upload(client, token, f"r{i}.log", f"rank {i}\n".encode(), job="burst")
        assert ok.status_code == 202
        assert ok["X-RateLimit-Limit"] == "2;w=60"
    refused = api_upload(client, token, "r2.log", b"rank 2\n", job="burst")
    assert refused.status_code == 429
    assert 1 <= int(refused["Retry-After"]) <= 60
    assert "at most 2 per 60 s" in refused.json()["error"]
    assert Bundle.objects.count() == 2  # the refused one was not stored; the others are intact
    # Another token has its own count.
    other = apitoken_create(name="other-cluster")[1]
    assert api_upload(client, other, "r3.log", b"rank 3\n", job="burst").status_code == 202
