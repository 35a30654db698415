"""A diagnosis runs under a memory limit of its own in a real Celery worker over the real Redis:
an upload that needs more marks its incident failed with the reason, and the worker diagnoses
the next upload (TRIAGE_DIAGNOSIS_MEMORY_MB; incidents/memory.py)."""
from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.test import Client

from tests.api.test_worker import REDIS_URL, Worker, running_worker, upload, wait_for
from tests.engine.readers_fuzz import shared_tuples

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

LIMIT_MB = 96


@pytest.fixture
def worker(transactional_db: None, media_root: Path, tmp_path: Path) -> Iterator[Worker]:
    with running_worker(REDIS_URL, media_root, tmp_path, env={"TRIAGE_DIAGNOSIS_MEMORY_MB": str(LIMIT_MB)}) as w:
        yield w


def test_an_upload_past_the_limit_fails_with_the_reason_and_the_next_is_diagnosed(
    client: Client, api_token: str, worker: Worker, shm_bundle: Path, tmp_path: Path
) -> None:
    # 15 MB of JSON (under the 16 MB read whole) that parses into 3.7 million lists: some 300 MB.
    heavy = tmp_path / "values.json"
    heavy.write_text(json.dumps({"values": [[0]] * 3_700_000}, separators=(",", ":")))
    assert heavy.stat().st_size < 16 * 1024 * 1024
    bomb = tmp_path / "fr_trace_k25.pkl"
    bomb.write_bytes(shared_tuples(30))
    worker.start()
    # The 30-level shared-tuple pickle (a loose file: named by its host label): refused by the
    # reader's budget, with the reason.
    refused = upload(client, api_token, bomb, job="memory-0", host="node-a")
    body = wait_for(client, api_token, refused["api"], {"ready", "failed"}, worker)
    assert body["status"] == "failed", body
    assert body["error"] == ("the bundle could not be read: node-a: pickle refused: flight-recorder dump "
                             "entry 1: shared structure expands past 200000 nodes (a memo reference counted each "
                             "time it is expanded); refused")

    first = upload(client, api_token, heavy, job="memory-1", host="node-a")
    body = wait_for(client, api_token, first["api"], {"ready", "failed"}, worker)
    assert body["status"] == "failed", body
    assert body["error"] == (f"the diagnosis needed more than {LIMIT_MB} MB of memory (TRIAGE_DIAGNOSIS_MEMORY_MB) "
                             "and was stopped; the raw bundles are kept")
    assert body["diagnosis"] is None

    second = upload(client, api_token, shm_bundle, job="memory-2", host="node-b")
    body = wait_for(client, api_token, second["api"], {"ready", "failed"}, worker)
    assert body["status"] == "ready", body["error"]
    assert body["diagnosis"]["findings"][0]["cause"] == "shm_exhausted"
    assert worker.proc is not None and worker.proc.poll() is None  # the same worker, still up
