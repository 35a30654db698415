"""Loose files (no archive) in the log viewer, and a viewer page past the reading limit."""
from __future__ import annotations

import gzip
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from tests.conftest import join_team, sample_log, tar_gz
from triage.accounts.services import sharelink_create
from triage.incidents.models import Incident

pytestmark = pytest.mark.django_db(transaction=True)  # the diagnosis runs after commit


@pytest.fixture
def browser(django_user_model: Any) -> Client:
    client = Client()
    client.force_login(join_team(django_user_model.objects.create_user("sre")))
    return client


def upload(client: Client, tmp_path: Path, files: dict[str, bytes], job: str) -> Incident:
    handles = []
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
        handles.append((tmp_path / name).open("rb"))
    response = client.post("/upload", {"files": handles, "job": job}, headers={"Accept": "application/json"})
    assert response.status_code == 201, response.content
    return Incident.objects.get(pk=response.json()["incident"])


def test_every_source_and_evidence_link_of_loose_files_opens(browser: Client, media_root: Path, tmp_path: Path) -> None:
    log = sample_log("shm_exhausted")
    incident = upload(browser, tmp_path, {"rank0.log": log, "rank1.log.gz": gzip.compress(log + b"\nrank1\n"),
                                          "notes.txt": b"nothing here\n"}, job="loose")
    assert incident.status == Incident.Status.READY, incident.error
    data = incident.diagnosis.data
    sources = [s["name"] for s in data["sources"]]
    assert sorted(sources) == ["notes.txt", "rank0.log", "rank1.log"]
    evidence = [e["source"] for f in data["findings"] for e in f["evidence"]]
    assert evidence
    _, secret = sharelink_create(incident=incident, expires_in=3600)
    for source in sources + evidence:
        page = browser.get(f"/incidents/{incident.pk}/log", {"source": source})
        assert page.status_code == 200, (source, page.status_code)
        shared = Client().get(f"/s/{secret}/log", {"source": source})
        assert shared.status_code == 200, (source, shared.status_code)
    first = browser.get(f"/incidents/{incident.pk}/log", {"source": "rank1.log"}).content.decode()
    assert log.splitlines()[0].decode()[:40] in first
    found = browser.get(f"/incidents/{incident.pk}/log", {"source": "rank1.log", "find": "rank1"})
    assert found.status_code == 200 and found.context["found"].line is not None


def test_paging_past_the_reading_limit_shows_a_message_not_a_500(
    browser: Client, media_root: Path, tmp_path: Path, settings: Any
) -> None:
    settings.DEBUG = True  # as the share-link holder who saw a traceback had it
    lines = b"".join(b"line %d of a long log\n" % n for n in range(150_000))  # ~3.3 MB
    incident = upload(browser, tmp_path, {"big.tar.gz": tar_gz({"node-a/big.log": lines})}, job="capped")
    settings.TRIAGE_ARCHIVE_MAX_TOTAL_BYTES = 1024 * 1024
    _, secret = sharelink_create(incident=incident, expires_in=3600)
    for client, url in ((browser, f"/incidents/{incident.pk}/log"), (Client(raise_request_exception=False), f"/s/{secret}/log")):
        response = client.get(url, {"source": "big/node-a/big.log", "start": "120000"})
        assert response.status_code == 200
        assert "past the reading limit" in response.content.decode()
        assert client.get(url, {"source": "big/node-a/big.log", "start": "1"}).status_code == 200
