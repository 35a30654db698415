"""The collector path end to end with a real Celery worker process and the real Redis.

The test process and the worker share the test database (transactional tests, the worker gets
its DATABASE_URL) and one Redis database under a per-run key prefix, so parallel runs on one
Redis do not see each other's queues.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import kombu.pools
import pytest
import redis
from django.db import connection
from django.test import Client

from tests.conftest import REPO, join_team
from triage import celery_app
from triage.incidents.models import Diagnosis, Incident

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

REDIS_URL = os.environ.get("TRIAGE_TEST_REDIS_URL", "redis://127.0.0.1:6379/13")
# Short enough for a test to see a redelivery, still longer than a test parse takes.
SOFT_LIMIT, HARD_LIMIT, VISIBILITY = 8, 10, 12


def database_url() -> str:
    db = connection.settings_dict
    if connection.vendor != "postgresql":
        pytest.skip("a worker process can share only a server database (PostgreSQL), not SQLite")
    user = db["USER"] or "postgres"
    password = f":{db['PASSWORD']}" if db["PASSWORD"] else ""
    return f"postgres://{user}{password}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


class Worker:
    def __init__(self, env: dict[str, str], log_dir: Path, args: tuple[str, ...] = ()) -> None:
        self.env = env
        self.log_dir = log_dir
        self.args = args
        self.proc: subprocess.Popen[bytes] | None = None
        self.starts = 0

    def start(self) -> None:
        self.starts += 1
        self.log = self.log_dir / f"worker-{self.starts}.log"
        command = [
            sys.executable, "-m", "celery", "-A", "triage", "worker", "--pool=prefork", "--concurrency=1",
            "--loglevel=INFO", "--without-gossip", "--without-mingle", "--without-heartbeat",
            "-n", f"test-{uuid.uuid4().hex[:8]}@%h", *self.args,
        ]
        with self.log.open("wb") as out:
            # Its own session, so SIGKILL reaches the pool child too (a real crash of the node).
            self.proc = subprocess.Popen(command, cwd=REPO, env=self.env, stdout=out, stderr=subprocess.STDOUT,
                                         start_new_session=True)
        deadline = time.monotonic() + 60
        while b" ready." not in self.log.read_bytes():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"worker did not start:\n{self.log.read_text()[-3000:]}")
            time.sleep(0.1)

    def kill(self) -> None:
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()

    def output(self) -> str:
        return self.log.read_text(errors="replace")[-4000:]


@pytest.fixture
def worker(transactional_db: None, media_root: Path, tmp_path: Path) -> Iterator[Worker]:
    with running_worker(REDIS_URL, media_root, tmp_path) as w:
        yield w


@contextmanager
def running_worker(
    redis_url: str, media_root: Path, tmp_path: Path, *, env: dict[str, str] | None = None, args: tuple[str, ...] = ()
) -> Iterator[Worker]:
    """A worker (not started yet) on `redis_url`, and this process sending to it, under a key
    prefix of its own; everything undone and the prefix's keys removed afterwards."""
    prefix = f"triage-test-{uuid.uuid4().hex[:12]}:"
    options = {
        "global_keyprefix": prefix, "visibility_timeout": VISIBILITY,
        "unacked_restore_interval": 1, "unacked_restore_throttle": 1,
    }
    conf = celery_app.conf
    saved = {key: conf[key] for key in ("broker_url", "task_always_eager", "broker_transport_options")}
    conf.update(broker_url=redis_url, task_always_eager=False, broker_transport_options=options)
    _reset_broker_pools()
    full_env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "triage.settings",
        "DATABASE_URL": database_url(),
        "REDIS_URL": redis_url,
        "CELERY_KEY_PREFIX": prefix,
        "CELERY_VISIBILITY_TIMEOUT": str(VISIBILITY),
        "CELERY_UNACKED_RESTORE_INTERVAL": "1",
        "CELERY_UNACKED_RESTORE_THROTTLE": "1",
        "TRIAGE_PARSE_SOFT_TIME_LIMIT": str(SOFT_LIMIT),
        "TRIAGE_PARSE_TIME_LIMIT": str(HARD_LIMIT),
        "MEDIA_ROOT": str(media_root),
        "DEBUG": "1",
        **(env or {}),
    }
    w = Worker(full_env, tmp_path, args)
    try:
        yield w
    finally:
        w.kill()
        conf.update(saved)
        _reset_broker_pools()
        try:
            client = redis.Redis.from_url(redis_url)
            for key in client.scan_iter(match=prefix + "*"):
                client.delete(key)
        except redis.ConnectionError:
            pass  # a Redis the test stopped for good: nothing to clean


def _reset_broker_pools() -> None:
    # The app and kombu's global pools cache broker connections (eager mode uses a producer
    # too): drop them all so the broker settings now in force are the ones used.
    kombu.pools.reset()
    celery_app._pool = None
    celery_app.amqp._producer_pool = None


def upload(client: Client, token: str, path: Path, **fields: str) -> dict[str, Any]:
    with path.open("rb") as f:
        response = client.post("/api/v1/bundles", {"file": f, **fields}, headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 202, response.content
    return response.json()


def wait_for(
    client: Client, token: str, api_url: str, statuses: set[str], worker: Worker, timeout: float = 90,
    every: float = 0.1,
) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        body = client.get(api_url, headers={"Authorization": f"Bearer {token}"}).json()
        if body["status"] in statuses:
            return body
        if time.monotonic() > deadline:
            raise AssertionError(f"still {body['status']} after {timeout} s; worker log:\n{worker.output()}")
        time.sleep(every)


def test_an_uploaded_bundle_is_diagnosed_by_a_worker(client: Client, api_token: str, worker: Worker, shm_bundle: Path) -> None:
    worker.start()
    created = upload(client, api_token, shm_bundle, job="worker-1", host="node-a")
    body = wait_for(client, api_token, created["api"], {"ready", "failed"}, worker)
    assert body["status"] == "ready", body["error"]
    assert body["diagnosis"]["findings"][0]["cause"] == "shm_exhausted"


def test_a_parse_cut_by_a_killed_worker_is_redelivered(
    client: Client, api_token: str, worker: Worker, slow_bundle: Path
) -> None:
    worker.start()
    created = upload(client, api_token, slow_bundle, job="worker-2")
    wait_for(client, api_token, created["api"], {"parsing"}, worker, timeout=30, every=0.01)
    worker.kill()  # SIGKILL in the middle of the parse: the task was never acknowledged
    incident = Incident.objects.get(pk=created["incident"])
    assert incident.status == Incident.Status.PARSING
    assert not Diagnosis.objects.filter(incident=incident).exists()

    worker.start()  # Redis hands the task to it once the visibility timeout has passed
    body = wait_for(client, api_token, created["api"], {"ready", "failed"}, worker, timeout=VISIBILITY + 60)
    assert body["status"] == "ready", body["error"]
    assert body["diagnosis"]["findings"][0]["cause"] == "rank_crash"


def test_a_corrupt_archive_fails_with_a_reason_and_stays_downloadable(
    client: Client, api_token: str, worker: Worker, corrupt_bundle: Path, django_user_model: Any
) -> None:
    worker.start()
    created = upload(client, api_token, corrupt_bundle)
    body = wait_for(client, api_token, created["api"], {"ready", "failed"}, worker)
    assert body["status"] == "failed"
    assert body["error"].startswith("the bundle could not be read: ")
    assert body["diagnosis"] is None

    client.force_login(join_team(django_user_model.objects.create_user("sre")))
    incident = Incident.objects.get(pk=created["incident"])
    bundle = incident.bundles.get()
    response = client.get(f"/incidents/{incident.pk}/bundles/{bundle.pk}/download")
    assert b"".join(response.streaming_content) == corrupt_bundle.read_bytes()
