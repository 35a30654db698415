"""Fixtures of the fleet tests: scenario bundles with a known culprit, and a webhook receiver."""
from __future__ import annotations

import json
import tarfile
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.api.test_worker import worker  # noqa: F401 - a fixture, used by test_fleet_worker

# The real Celery worker of the API tests (its own Redis key prefix, the test database).
from tests.loopback import serve_posts, stop, url_of


@pytest.fixture(scope="session")
def scenario_bundle(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str, int], Path]:
    """`scenario_bundle(cause, seed)`: the scenario generator's bundle as a .tar.gz (built once).
    hardware_fault seed 0 blames node-b GPU 3 (Xid 79); network seeds 0, 2, 4, 6 blame mlx5_0
    on four different hosts."""
    from triage.scenarios import build

    root = tmp_path_factory.mktemp("scenarios")
    built: dict[tuple[str, int, int], Path] = {}

    def make(cause: str, seed: int, day: int = 0) -> Path:
        """`day` > 0: the same cluster failing the same way on another day (a distinct failure)."""
        if (cause, seed, day) not in built:
            start = datetime(2026, 6, day, 8, 0, tzinfo=UTC) if day else None
            folder = build(cause, root / f"{cause}-{seed}-{day}", seed=seed, start=start)
            archive = root / f"{cause}-{seed}-{day}.tar.gz"
            with tarfile.open(archive, "w:gz") as tar:
                tar.add(folder, arcname=folder.name)
            built[(cause, seed, day)] = archive
        return built[(cause, seed, day)]

    return make


@pytest.fixture(autouse=True)
def fast_webhooks(monkeypatch: pytest.MonkeyPatch, settings: Any) -> None:
    """Retries in milliseconds, for this process and for any worker a test starts."""
    monkeypatch.setenv("TRIAGE_WEBHOOK_BACKOFF_MS", "200")
    monkeypatch.setenv("TRIAGE_WEBHOOK_MAX_RETRIES", "4")
    monkeypatch.setenv("TRIAGE_WEBHOOK_TIMEOUT", "5")
    # The receivers here listen on the loopback, which the outbound policy refuses unless the
    # operator allows it.
    monkeypatch.setenv("TRIAGE_WEBHOOK_ALLOW_NETWORKS", "127.0.0.1/32")
    settings.TRIAGE_WEBHOOK_ALLOW_NETWORKS = ["127.0.0.1/32"]
    settings.TRIAGE_WEBHOOK_BACKOFF_MS = 200
    settings.TRIAGE_WEBHOOK_MAX_RETRIES = 4
    settings.TRIAGE_WEBHOOK_TIMEOUT = 5


@dataclass
class Hit:
    path: str
    headers: dict[str, str]
    body: bytes
    status: int

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class Receiver:
    """A real HTTP server on a free loopback port, answering `fail_first` requests with 500."""

    fail_first: int = 0
    redirect_to: str = ""  # answer every POST with a 302 to this URL
    bind: str = "127.0.0.1"
    hits: list[Hit] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    httpd: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        return url_of(self.httpd)

    def start(self) -> Receiver:
        self.httpd = serve_posts(self._answer, self.bind)
        return self

    def _answer(self, path: str, headers: dict[str, str], body: bytes) -> tuple[int, dict[str, str]]:
        with self.lock:
            status = 500 if len(self.hits) < self.fail_first else 200
            status = 302 if self.redirect_to else status
            self.hits.append(Hit(path, headers, body, status))
        return status, {"Location": self.redirect_to} if self.redirect_to else {}

    def stop(self) -> None:
        stop(self.httpd)

    def events(self) -> list[str]:
        with self.lock:
            return [h.headers.get("X-Triage-Event", "") for h in self.hits]


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    r = Receiver().start()
    yield r
    r.stop()
