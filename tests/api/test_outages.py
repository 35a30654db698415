"""Nothing lost when Redis flickers: the broker is a notification, the database the record.

A Redis server of this test's own (a free port, a temporary folder, no persistence, as
`scripts/services-up` used to run it) is killed and started again; the shared Redis others
use is never touched. The worker is real, beat included (`worker -B`), and so is PostgreSQL.
"""
from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from django.test import Client

from tests.api.test_worker import Worker, running_worker, wait_for
from tests.collectors.api_server import free_port
from tests.conftest import REPO, join_team, sample_log, tar_gz

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

# The sweep runs (and re-queues incidents queued longer than) this often in these tests.
SWEEP = "2"


class RedisServer:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.proc = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", str(self.folder)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        client = redis.Redis(port=self.port, socket_connect_timeout=1)
        deadline = time.monotonic() + 20
        while True:
            try:
                client.ping()
                return
            except redis.ConnectionError:
                if time.monotonic() > deadline:
                    raise AssertionError("redis-server did not start") from None
                time.sleep(0.05)

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()  # SIGKILL: whatever it held in memory is gone
            self.proc.wait()


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[RedisServer]:
    server = RedisServer(tmp_path)
    server.start()
    try:
        yield server
    finally:
        server.kill()


@pytest.fixture
def stack(own_redis: RedisServer, media_root: Path, tmp_path: Path, settings: Any) -> Iterator[Worker]:
    """A worker with beat (the sweep every 2 s) on the test's own Redis, which the upload rate
    limit (the cache) uses too, as in production."""
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": own_redis.url,
                                   "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1}}}
    env = {"TRIAGE_REQUEUE_AFTER_SECONDS": SWEEP, "CELERY_BEAT_SCHEDULE_FILE": str(tmp_path / "beat-schedule")}
    with running_worker(own_redis.url, media_root, tmp_path, env=env, args=("-B",)) as worker:
        yield worker


def bundle(tmp_path: Path, n: int) -> Path:
    path = tmp_path / f"node-{n}.tar.gz"
    path.write_bytes(tar_gz({f"node-{n}/log.txt": sample_log("shm_exhausted")}))
    return path


def api_upload(client: Client, token: str, path: Path, job: str) -> Any:
    with path.open("rb") as f:
        return client.post("/api/v1/bundles", {"file": f, "job": job}, headers={"Authorization": f"Bearer {token}"})


def test_uploads_while_redis_is_down_are_kept_and_diagnosed_once_it_returns(
    client: Client, api_token: str, stack: Worker, own_redis: RedisServer, tmp_path: Path, django_user_model: Any
) -> None:
    from triage.incidents.models import Incident

    stack.start()
    own_redis.kill()
    accepted = []
    for n in range(3):
        response = api_upload(client, api_token, bundle(tmp_path, n), job=f"outage-{n}")
        assert response.status_code == 202, response.content  # stored: the broker is only a notification
        accepted.append(response.json())
    browser = Client()
    browser.force_login(join_team(django_user_model.objects.create_user("sre")))
    with bundle(tmp_path, 9).open("rb") as f:
        response = browser.post("/upload", {"files": [f], "job": "outage-browser"}, headers={"Accept": "application/json"})
    assert response.status_code == 201, response.content
    accepted.append({"api": f"/api/v1/incidents/{response.json()['incident']}"})

    for incident in Incident.objects.all():
        assert incident.status == Incident.Status.QUEUED
        bundle_row = incident.bundles.get()
        assert Path(bundle_row.file.path).is_file()  # the raw file is kept, not cleaned up

    own_redis.start()  # empty: whatever was sent before is gone; the sweep re-sends from the database
    for created in accepted:
        body = wait_for(client, api_token, created["api"], {"ready", "failed"}, stack, timeout=90)
        assert body["status"] == "ready", body["error"]
        assert body["diagnosis"]["findings"][0]["cause"] == "shm_exhausted"


def test_queued_incidents_survive_a_redis_restart_without_persistence(
    client: Client, api_token: str, stack: Worker, own_redis: RedisServer, tmp_path: Path
) -> None:
    # No worker yet: the messages sit in Redis, and die with it.
    accepted = [api_upload(client, api_token, bundle(tmp_path, n), job=f"restart-{n}").json() for n in range(3)]
    own_redis.kill()
    own_redis.start()
    assert redis.Redis(port=own_redis.port).dbsize() == 0
    stack.start()
    for created in accepted:
        body = wait_for(client, api_token, created["api"], {"ready", "failed"}, stack, timeout=90)
        assert body["status"] == "ready", body["error"]


def _children(pid: int) -> set[int]:
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            # "pid (comm) state ppid ...": comm may hold spaces, so split after its ')'.
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.add(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_a_killed_main_worker_leaves_no_orphan_beat_and_beat_keeps_its_file_out_of_the_repo(
    stack: Worker, tmp_path: Path
) -> None:
    before = set(os.listdir(REPO))
    stack.start()
    assert stack.proc is not None
    main = stack.proc.pid
    deadline = time.monotonic() + 30
    # The pool child and the beat child; beat has written its schedule once it runs.
    while len(_children(main)) < 2 or not list(tmp_path.glob("beat-schedule*")):
        assert time.monotonic() < deadline, f"beat did not start:\n{stack.output()}"
        time.sleep(0.1)
    children = _children(main)

    os.kill(main, signal.SIGKILL)  # the main process only, as the OOM killer would
    stack.proc.wait()
    deadline = time.monotonic() + 30
    try:
        while any(_alive(pid) for pid in children) and time.monotonic() < deadline:
            time.sleep(0.1)
        survivors = [pid for pid in children if _alive(pid)]
        assert survivors == [], "children of the killed worker still run (an orphan beat queues every job twice)"
    finally:
        for pid in children:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
    assert not [name for name in set(os.listdir(REPO)) - before if "celerybeat" in name]


def test_a_parse_cut_by_a_killed_worker_is_taken_up_long_before_the_visibility_timeout(
    client: Client, api_token: str, own_redis: RedisServer, media_root: Path, tmp_path: Path, slow_bundle: Path
) -> None:
    # An hour of visibility timeout: Redis alone would hand the task out again after an hour.
    env = {"TRIAGE_REQUEUE_AFTER_SECONDS": SWEEP, "CELERY_VISIBILITY_TIMEOUT": "3600",
           "CELERY_BEAT_SCHEDULE_FILE": str(tmp_path / "beat-schedule")}
    with running_worker(own_redis.url, media_root, tmp_path, env=env, args=("-B",)) as worker:
        worker.start()
        created = api_upload(client, api_token, slow_bundle, job="cut").json()
        wait_for(client, api_token, created["api"], {"parsing"}, worker, timeout=30, every=0.01)
        worker.kill()
        worker.start()
        # The sweep sees a parse older than the hard limit (10 s here) + one period: its worker died.
        body = wait_for(client, api_token, created["api"], {"ready", "failed"}, worker, timeout=90)
    assert body["status"] == "ready", body["error"]
