"""Webhooks cannot hurt anyone else: a slow-loris receiver never delays another team's parse
(deliveries have their own queue and workers, and a total deadline) and its delivery ends
`failed` with the reason; a receiver on a private address, or behind a redirect, gets no request;
only a team's admins see its webhook URLs and the receivers' answers; a generated secret is
shown once."""
from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.test import Client

from tests.api.test_worker import Worker, running_worker, upload, wait_for
from tests.conftest import join_team
from tests.fleet.conftest import Receiver
from triage.accounts.services import apitoken_create, team_default, team_get_or_create
from triage.fleet.models import Delivery, Webhook
from triage.fleet.services import delivery_attempt, webhook_add

REDIS_URL = __import__("os").environ.get("TRIAGE_TEST_REDIS_URL", "redis://127.0.0.1:6379/13")
DEADLINE = 25


class SlowLoris:
    """Accepts, reads the request, then trickles an answer's headers a byte at a time, never
    finishing: a read timeout never fires, only a total deadline ends it."""

    def __init__(self) -> None:
        self.server = socket.create_server(("127.0.0.1", 0))
        self.connections = 0
        self.open = threading.Event()
        self.closed = threading.Event()
        threading.Thread(target=self._serve, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.getsockname()[1]}/hook"

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.server.accept()
            except OSError:
                return
            self.connections += 1
            threading.Thread(target=self._trickle, args=(conn,), daemon=True).start()

    def _trickle(self, conn: socket.socket) -> None:
        conn.recv(65536)
        self.open.set()
        try:
            for byte in b"HTTP/1.1 200 OK\r\nX-Slow: " + b"a" * 100_000:
                conn.sendall(bytes([byte]))
                time.sleep(0.5)
        except OSError:
            pass  # the client gave up: what the deadline is for
        finally:
            self.closed.set()
            conn.close()

    def stop(self) -> None:
        self.server.close()


def eventually(check: Callable[[], Any], timeout: float, what: str) -> Any:
    deadline = time.monotonic() + timeout
    while not (value := check()):
        if time.monotonic() > deadline:
            raise AssertionError(f"not reached within {timeout} s: {what}")
        time.sleep(0.1)
    return value


@pytest.fixture
def slowloris() -> Iterator[SlowLoris]:
    s = SlowLoris()
    yield s
    s.stop()


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_slow_loris_receiver_never_delays_another_teams_parse_and_its_delivery_fails_with_the_reason(
    client: Client, api_token: str, media_root: Path, tmp_path: Path, slowloris: SlowLoris,
    scenario_bundle: Callable[[str, int], Path],
) -> None:
    webhook_add(team=team_default(), url=slowloris.url, events=["incident.ready"])
    _, other_token = apitoken_create(name="ml-collector", team=team_get_or_create(name="ml-research"))
    env = {"TRIAGE_WEBHOOK_DEADLINE": str(DEADLINE), "TRIAGE_WEBHOOK_MAX_RETRIES": "0"}
    # One parse worker (one slot) on the parse queue, one worker on the webhook queue.
    with running_worker(REDIS_URL, media_root, tmp_path / "parse", env=env, args=("-Q", "triage")) as parser:
        deliverer = Worker(parser.env, tmp_path / "parse", ("-Q", "triage-webhooks", "-n", "webhooks-test@%h"))
        deliverer.log_dir.mkdir(parents=True, exist_ok=True)
        parser.start()
        deliverer.start()
        try:
            bundle = scenario_bundle("hardware_fault", 0)
            mine = upload(client, api_token, bundle, job="team-a-job")
            assert wait_for(client, api_token, mine["api"], {"ready", "failed"}, parser)["status"] == "ready"
            assert slowloris.open.wait(60), deliverer.output()

            # The receiver is holding its delivery; another team's upload is parsed meanwhile.
            theirs = upload(client, other_token, bundle, job="team-b-job")
            body = wait_for(client, other_token, theirs["api"], {"ready", "failed"}, parser)
            assert body["status"] == "ready"
            assert not slowloris.closed.is_set(), "the delivery ended before the other team's parse did"
            assert Delivery.objects.get().status == Delivery.Status.PENDING

            # The deadline ends it; no retry is left (TRIAGE_WEBHOOK_MAX_RETRIES=0): failed, with why.
            delivery = eventually(lambda: Delivery.objects.filter(status=Delivery.Status.FAILED).first(),
                                  DEADLINE + 60, "the slow delivery to fail")
            assert f"no complete answer within the {DEADLINE} s deadline" in delivery.error
            assert "gave up after 1 attempt" in delivery.error and delivery.attempts == 1
            assert slowloris.connections == 1
        finally:
            deliverer.kill()


@pytest.fixture
def no_private_receivers(settings: Any) -> None:
    settings.TRIAGE_WEBHOOK_ALLOW_NETWORKS = []


def _delivery_to(url: str) -> Delivery:
    webhook = Webhook.objects.create(team=team_default(), url=url)  # as if its name later resolved elsewhere
    return Delivery.objects.create(webhook=webhook, event="incident.ready", payload={"text": "x"})


@pytest.mark.django_db
def test_a_private_receiver_is_refused_when_added_and_gets_no_request_when_its_name_resolves_there(
    no_private_receivers: None, receiver: Receiver,
) -> None:
    for url in (receiver.url, "http://169.254.169.254/latest/meta-data/", "http://localhost:6379/",
                "http://[::1]:8000/", "http://10.0.0.5/hook", "http://[::ffff:127.0.0.1]/"):
        with pytest.raises(ValueError, match="private, loopback or link-local"):
            webhook_add(team=team_default(), url=url)
        with pytest.raises(CommandError, match="private, loopback or link-local"):
            call_command("webhook", "add", url)
    assert not Webhook.objects.exists()

    # A name (not an address) passes the form; at delivery it resolves to the loopback.
    with resolving("hooks.example.test", "127.0.0.1") as lookups:
        port = receiver.httpd.server_address[1]  # type: ignore[union-attr]
        delivery = delivery_attempt(delivery_id=_delivery_to(f"http://hooks.example.test:{port}/hook").pk)
    assert delivery is not None and delivery.status == Delivery.Status.FAILED
    assert "refused by the outbound policy" in delivery.error and "resolves to 127.0.0.1" in delivery.error
    assert delivery.attempts == 1 and delivery.response_code is None
    assert receiver.hits == [] and lookups == ["hooks.example.test"]


@contextmanager
def resolving(name: str, address: str) -> Iterator[list[str]]:
    """DNS for one made-up name (the test has no DNS server): every lookup is recorded."""
    real = socket.getaddrinfo
    lookups: list[str] = []

    def getaddrinfo(host: str, port: Any, *args: Any, **kwargs: Any) -> Any:
        if host == name:
            lookups.append(host)
            return real(address, port, *args, **kwargs)
        return real(host, port, *args, **kwargs)

    socket.getaddrinfo = getaddrinfo  # type: ignore[assignment]
    try:
        yield lookups
    finally:
        socket.getaddrinfo = real


@pytest.mark.django_db
def test_a_name_is_resolved_once_and_the_request_goes_to_that_address(settings: Any, receiver: Receiver) -> None:
    settings.TRIAGE_WEBHOOK_ALLOW_NETWORKS = ["127.0.0.1/32"]
    port = receiver.httpd.server_address[1]  # type: ignore[union-attr]
    with resolving("hooks.example.test", "127.0.0.1") as lookups:
        delivery = delivery_attempt(delivery_id=_delivery_to(f"http://hooks.example.test:{port}/hook").pk)
    assert delivery is not None and delivery.status == Delivery.Status.DELIVERED, delivery.error
    assert lookups == ["hooks.example.test"]  # once: the connection went to the checked address
    assert [h.headers["Host"] for h in receiver.hits] == [f"hooks.example.test:{port}"]


@pytest.mark.django_db
def test_a_redirect_is_not_followed_to_an_internal_host(settings: Any) -> None:
    internal = Receiver().start()  # stands for Redis, the metadata service, an admin port ...
    outer = Receiver(redirect_to=internal.url).start()
    try:
        settings.TRIAGE_WEBHOOK_ALLOW_NETWORKS = ["127.0.0.1/32"]  # the operator allows the first hop only
        delivery = delivery_attempt(delivery_id=_delivery_to(outer.url).pk)
        assert delivery is not None and delivery.status == Delivery.Status.FAILED
        assert delivery.response_code == 302 and "redirects are not followed" in delivery.error
        assert len(outer.hits) == 1 and internal.hits == []
    finally:
        outer.stop()
        internal.stop()


@pytest.mark.django_db
def test_only_admins_see_webhook_urls_and_answers_and_a_generated_secret_is_shown_once(
    django_user_model: Any, settings: Any,
) -> None:
    admin, viewer = Client(), Client()
    admin.force_login(join_team(django_user_model.objects.create_user("admin"), role="admin"))
    viewer.force_login(join_team(django_user_model.objects.create_user("viewer"), role="viewer"))
    team = team_default()
    slack = "https://hooks.slack.com/services/T000/B000/credential-in-the-path"

    added = admin.post("/fleet/webhooks", {"team": team.pk, "url": slack, "format": "slack"})
    assert added.status_code == 302
    webhook = Webhook.objects.get()
    first = admin.get("/fleet/webhooks").content.decode()
    assert webhook.secret in first and "shown only now" in first
    assert webhook.secret not in admin.get("/fleet/webhooks").content.decode()  # once

    Delivery.objects.create(webhook=webhook, event="incident.ready", payload={}, status="failed",
                            response_code=403, error="HTTP 403 (gave up after 7 attempts)")
    seen_by_admin = admin.get("/fleet/webhooks").content.decode()
    assert slack in seen_by_admin and "HTTP 403" in seen_by_admin
    seen_by_viewer = viewer.get("/fleet/webhooks").content.decode()
    assert "credential-in-the-path" not in seen_by_viewer and "https://hooks.slack.com/…" in seen_by_viewer
    assert "403" not in seen_by_viewer and "failed" in seen_by_viewer

    # A form shown again after an error never carries the secret typed into it.
    again = admin.post("/fleet/webhooks", {"team": team.pk, "url": "not a url", "format": "generic",
                                           "secret": "typed-secret-1234"})
    assert again.status_code == 400 and "typed-secret-1234" not in again.content.decode()


@pytest.mark.django_db
def test_a_delivery_whose_message_was_lost_is_sent_again_by_the_sweep_and_a_due_one_is_left_alone(
    settings: Any, receiver: Receiver,
) -> None:
    from datetime import timedelta

    from django.utils import timezone

    from triage.fleet.tasks import webhook_requeue_task

    settings.TRIAGE_WEBHOOK_ALLOW_NETWORKS = ["127.0.0.1/32"]
    lost = _delivery_to(receiver.url)  # its task never ran (Redis or PostgreSQL was down)
    Delivery.objects.filter(pk=lost.pk).update(created_at=timezone.now() - timedelta(minutes=5))
    waiting = _delivery_to(receiver.url)  # a retry scheduled in the future: not the sweep's
    Delivery.objects.filter(pk=waiting.pk).update(next_attempt_at=timezone.now() + timedelta(minutes=5),
                                                  created_at=timezone.now() - timedelta(minutes=5))
    webhook_requeue_task()  # eager here: the sweep sends at once
    lost.refresh_from_db()
    waiting.refresh_from_db()
    assert (lost.status, lost.attempts) == ("delivered", 1)
    assert (waiting.status, waiting.attempts) == ("pending", 0)
    assert [h.headers["X-Triage-Delivery"] for h in receiver.hits] == [str(lost.pk)]
