"""Bundles in S3-compatible object storage (TRIAGE_STORAGE=s3), against a real S3 server.

Uploads land in the bucket byte for byte, the diagnosis streams them out of it (tar.gz front to
back, zip through ranged reads), the log viewer and the download read from it, and a bucket
that is down answers 503 with Retry-After, stores nothing, and the collector's retry gets the
bundle in once it is back.
"""
from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path
from typing import Any

import pytest
from django.core.files.storage import default_storage, storages
from django.test import Client

from tests.api.test_worker import Worker, upload, wait_for, worker  # noqa: F401  (the real worker fixture)
from tests.conftest import REPO, join_team, sample_log, tar_gz
from tests.storage.conftest import S3Server, s3_environ
from triage.incidents.models import Bundle, Incident
from triage.incidents.storage import BundleS3Storage, StoredBlob, engine_input

pytestmark = pytest.mark.django_db


def _upload(client: Client, token: str, path: Path, **fields: str) -> Any:
    with path.open("rb") as f:
        return client.post("/api/v1/bundles", {"file": f, **fields}, headers={"Authorization": f"Bearer {token}"})


def test_an_upload_lands_in_the_bucket_unchanged_and_is_diagnosed_from_it(
    client: Client, api_token: str, s3_storage: str, s3_server: S3Server, shm_bundle: Path,
    media_root: Path, django_capture_on_commit_callbacks: Any, django_user_model: Any,
) -> None:
    assert isinstance(storages["default"], BundleS3Storage)
    with django_capture_on_commit_callbacks(execute=True):
        response = _upload(client, api_token, shm_bundle, job="s3-1", host="node-a")
    assert response.status_code == 202, response.content
    incident = Incident.objects.get(pk=response.json()["incident"])
    bundle = incident.bundles.get()

    stored = s3_server.client().get_object(Bucket=s3_storage, Key=bundle.file.name)
    assert stored["Body"].read() == shm_bundle.read_bytes()  # exactly as uploaded
    assert "ContentEncoding" not in stored  # no client may unpack it on the way
    # Nothing of it stays on the web host's disk (the streamed upload's temp file is gone).
    assert [p for p in media_root.rglob("*") if p.is_file()] == []

    # The worker read it from the bucket, as a stream (no local path exists).
    assert isinstance(engine_input(bundle.file.name, bundle.size), StoredBlob)
    incident.refresh_from_db()
    assert incident.status == Incident.Status.READY, incident.error
    assert incident.cause == "shm_exhausted"

    client.force_login(join_team(django_user_model.objects.create_user("sre")))
    download = client.get(f"/incidents/{incident.pk}/bundles/{bundle.pk}/download")
    assert b"".join(download.streaming_content) == shm_bundle.read_bytes()
    source = next(s["name"] for s in incident.diagnosis.data["sources"])
    page = client.get(f"/incidents/{incident.pk}/log", {"source": source})
    assert page.status_code == 200
    assert b"shm" in page.content.lower()


def test_a_zip_bundle_is_read_from_the_bucket_by_ranged_reads(
    api_token: str, client: Client, s3_storage: str, tmp_path: Path, django_capture_on_commit_callbacks: Any,
) -> None:
    archive = tmp_path / "node-b.zip"
    with zipfile.ZipFile(archive, "w", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr("node-b/log.txt", sample_log("shm_exhausted"))
        z.writestr("node-b/padding.txt", os.urandom(3 * 1024 * 1024).hex())  # the directory sits far from the start
    with django_capture_on_commit_callbacks(execute=True):
        response = _upload(client, api_token, archive, job="s3-zip")
    assert response.status_code == 202, response.content
    incident = Incident.objects.get(pk=response.json()["incident"])
    assert incident.status == Incident.Status.READY, incident.error
    assert incident.cause == "shm_exhausted"
    assert {s["name"] for s in incident.diagnosis.data["sources"]} >= {"node-b/node-b/log.txt"}


def test_a_plain_tar_bundle_is_read_from_the_bucket_in_parts(
    api_token: str, client: Client, s3_storage: str, settings: Any, tmp_path: Path,
    django_capture_on_commit_callbacks: Any,
) -> None:
    """A plain .tar is opened seekable (ranged reads): planned from its headers, read in parts."""
    from triage.fanout.models import BundlePart

    settings.TRIAGE_PARSE_PART_BYTES = 1024 * 1024
    archive = tmp_path / "node-d.tar"
    with tarfile.open(archive, "w") as tar:
        for name, data in {"node-d/log.txt": sample_log("shm_exhausted"),
                           "node-d/padding.txt": os.urandom(1024 * 1024).hex().encode()}.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    with django_capture_on_commit_callbacks(execute=True):
        response = _upload(client, api_token, archive, job="s3-tar")
    assert response.status_code == 202, response.content
    incident = Incident.objects.get(pk=response.json()["incident"])
    assert incident.status == Incident.Status.READY, incident.error
    assert incident.cause == "shm_exhausted"
    assert BundlePart.objects.filter(bundle__incident=incident).count() == 2


READ_SCRIPT = """
import sys, tracemalloc, django
django.setup()
from django.core.files.storage import default_storage
default_storage.size(sys.argv[1])  # the S3 client and its service model load outside the count
tracemalloc.start()
with default_storage.open(sys.argv[1], "rb") as f:
    total = 0
    while chunk := f.read(256 * 1024):
        total += len(chunk)
    f.seek(-10, 2)  # and a jump back, as a zip reader makes
    tail = f.read()
print(total, len(tail), tracemalloc.get_traced_memory()[1])
"""


def test_reading_a_bundle_out_of_the_bucket_streams_it(s3_storage: str, s3_server: S3Server) -> None:
    """In a process of its own (the S3 server here holds the object in memory): reading 48 MiB
    stays within a few MiB. django-storages' stock S3File would hold the whole object."""
    size = 48 * 1024 * 1024
    name = default_storage.save("bundles/x/big.bin", io.BytesIO(os.urandom(1024) * (size // 1024)))
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env.update(s3_environ(s3_server, s3_storage), DJANGO_SETTINGS_MODULE="triage.settings")
    done = subprocess.run([sys.executable, "-c", READ_SCRIPT, name], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    total, tail, peak = map(int, done.stdout.split())
    assert (total, tail) == (size, 10)
    assert peak < 8 * 1024 * 1024, f"reading held {peak / 2**20:.1f} MiB"


def test_a_bucket_that_is_down_gets_503_with_retry_after_and_nothing_is_stored(
    client: Client, api_token: str, s3_storage: str, s3_server: S3Server, shm_bundle: Path, media_root: Path,
) -> None:
    s3_server.stop()
    try:
        response = _upload(client, api_token, shm_bundle)  # no job: the upload's own incident
        job_response = _upload(client, api_token, shm_bundle, job="s3-down")
    finally:
        s3_server.start()
    for r in (response, job_response):
        assert r.status_code == 503, r.content
        assert int(r["Retry-After"]) > 0
        assert "unreachable" in r.json()["error"]
    assert not Bundle.objects.exists()
    # The job-less upload's incident is gone with it; the job's stays for its other nodes.
    assert list(Incident.objects.values_list("job", flat=True)) == ["s3-down"]
    assert [p for p in media_root.rglob("*") if p.is_file()] == []

    again = _upload(client, api_token, shm_bundle, job="s3-down")
    assert again.status_code == 202, again.content
    assert Incident.objects.get(job="s3-down").bundles.count() == 1


@pytest.mark.django_db(transaction=True)
def test_the_collector_retries_until_the_bucket_is_back_and_the_bundle_arrives(
    live_server: Any, api_token: str, s3_storage: str, s3_server: S3Server, tmp_path: Path,
) -> None:
    from collectors.upload import RetryPolicy, send_with_retries

    bundle = tmp_path / "node-c.tar.gz"
    bundle.write_bytes(tar_gz({"node-c/log.txt": sample_log("shm_exhausted")}))
    waits: list[float] = []
    log: list[str] = []

    def sleep(seconds: float) -> None:
        waits.append(seconds)
        s3_server.start()  # the bucket comes back while the collector waits

    s3_server.stop()
    answer = send_with_retries(live_server.url, api_token, bundle, job="s3-retry", host="node-c",
                               policy=RetryPolicy(attempts=3, base_delay=0.01, max_delay=40), log=log.append, sleep=sleep)
    assert answer["incident"]
    assert len(log) == 1 and "HTTP 503" in log[0], log
    # The collector waited what Retry-After said (30 s by default), not its own 0.01 s.
    assert waits == [30.0]
    incident = Incident.objects.get(job="s3-retry")
    stored = s3_server.client().get_object(Bucket=s3_storage, Key=incident.bundles.get().file.name)
    assert stored["Body"].read() == bundle.read_bytes()


def test_settings_select_s3_from_the_environment_with_secrets_from_files(tmp_path: Path, s3_server: S3Server) -> None:
    secret = tmp_path / "secret"
    secret.write_text("from-a-file\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "TRIAGE_STORAGE"))}
    env.update(s3_environ(s3_server, "some-bucket"), DJANGO_SETTINGS_MODULE="triage.settings")
    del env["AWS_SECRET_ACCESS_KEY"]
    env["AWS_SECRET_ACCESS_KEY_FILE"] = str(secret)
    script = ("import json, django; django.setup(); from django.conf import settings as s; "
              "from django.core.files.storage import storages; "
              "print(json.dumps([getattr(s, 'AWS_SECRET_ACCESS_KEY', None), type(storages['default']).__name__, "
              "getattr(s, 'AWS_STORAGE_BUCKET_NAME', None)]))")

    def run(extra: dict[str, str]) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-c", script], cwd=REPO, env={**env, **extra},
                              capture_output=True, text=True, timeout=60, check=False)

    done = run({})
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == ["from-a-file", "BundleS3Storage", "some-bucket"]
    # The default stays the local disk.
    local = run({"TRIAGE_STORAGE": ""})
    assert json.loads(local.stdout)[1] == "FileSystemStorage"
    # A missing bucket name stops the start, loudly.
    broken = run({"AWS_STORAGE_BUCKET_NAME": ""})
    assert broken.returncode != 0 and "AWS_STORAGE_BUCKET_NAME" in broken.stderr


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_real_worker_diagnoses_a_bundle_it_streams_out_of_the_bucket(
    client: Client, api_token: str, s3_storage: str, s3_server: S3Server, worker: Worker, shm_bundle: Path,  # noqa: F811
    media_root: Path,
) -> None:
    worker.env.update(s3_environ(s3_server, s3_storage))
    worker.start()
    created = upload(client, api_token, shm_bundle, job="s3-worker")
    body = wait_for(client, api_token, created["api"], {"ready", "failed"}, worker)
    assert body["status"] == "ready", body["error"]
    assert body["diagnosis"]["findings"][0]["cause"] == "shm_exhausted"
    assert [p for p in media_root.rglob("*") if p.is_file()] == []  # read from the bucket, not the disk
