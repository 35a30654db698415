"""Nobody is left untold: an assignment, an @mention, an acknowledgement, a resolution and a
reopening reach the team's webhooks (Slack-compatible body, Standard Webhooks signature checked
by the `standardwebhooks` library in a real HTTP receiver on the loopback, which refuses an
altered or replayed body) and, where mail is set up, the person concerned by e-mail through a
real SMTP server on the loopback (aiosmtpd). Each incident keeps a history of who did what."""
from __future__ import annotations

import json
import shlex
import socket
import subprocess
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from email import message_from_bytes, policy
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from standardwebhooks.webhooks import Webhook as StandardWebhook
from standardwebhooks.webhooks import WebhookVerificationError

from tests.conftest import join_team
from tests.loopback import serve_posts, stop, url_of
from tests.web.test_workflow import diagnosed, xid_bundle  # noqa: F401 - xid_bundle is a fixture
from triage.fleet.commands import drain_commands
from triage.fleet.models import Delivery, Webhook
from triage.fleet.services import webhook_add
from triage.incidents.models import IncidentEvent

pytestmark = pytest.mark.django_db


@dataclass
class Verified:
    headers: dict[str, str]
    body: bytes
    status: int
    payload: Any = None


@dataclass
class VerifyingReceiver:
    """A webhook endpoint as a receiver should write one: every request is checked with the
    `standardwebhooks` library (401 when the signature or timestamp does not hold), and a
    `webhook-id` seen before is refused (409): a replayed message does nothing twice."""

    secret: str | bytes
    hits: list[Verified] = field(default_factory=list)
    seen: set[str] = field(default_factory=set)
    lock: threading.Lock = field(default_factory=threading.Lock)
    httpd: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        return url_of(self.httpd)

    def start(self) -> VerifyingReceiver:
        self.httpd = serve_posts(self._answer)
        return self

    def _answer(self, path: str, raw_headers: dict[str, str], body: bytes) -> tuple[int, dict[str, str]]:
        headers = {k.lower(): v for k, v in raw_headers.items()}
        payload, status = None, 200
        try:
            payload = StandardWebhook(self.secret).verify(body, headers)
        except WebhookVerificationError:
            status = 401
        with self.lock:
            if status == 200:
                if headers["webhook-id"] in self.seen:
                    status = 409
                self.seen.add(headers["webhook-id"])
            self.hits.append(Verified(headers, body, status, payload))
        return status, {}

    def stop(self) -> None:
        stop(self.httpd)

    def accepted(self, event: str) -> list[Verified]:
        with self.lock:
            return [h for h in self.hits if h.status == 200 and h.headers.get("x-triage-event") == event]


def post(url: str, body: bytes, headers: dict[str, str]) -> int:
    request = urllib.request.Request(url, data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:  # noqa: S310 - the loopback receiver
            return int(response.status)
    except urllib.error.HTTPError as e:
        return e.code


@pytest.fixture(autouse=True)
def loopback_webhooks(settings: Any) -> None:
    settings.TRIAGE_WEBHOOK_ALLOW_NETWORKS = ["127.0.0.1/32"]
    settings.TRIAGE_WEBHOOK_MAX_RETRIES = 0


@pytest.fixture
def receiver() -> Iterator[VerifyingReceiver]:
    from triage.fleet.models import new_webhook_secret

    r = VerifyingReceiver(new_webhook_secret()).start()
    yield r
    r.stop()


@dataclass
class Mailbox:
    messages: list[tuple[list[str], bytes]] = field(default_factory=list)

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802 - aiosmtpd's name
        self.messages.append((list(envelope.rcpt_tos), bytes(envelope.original_content or envelope.content)))
        return "250 Message accepted for delivery"


@pytest.fixture
def smtp(settings: Any) -> Iterator[Mailbox]:
    """A real SMTP server on a free loopback port; the app's mail settings point at it."""
    from aiosmtpd.controller import Controller

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    box = Mailbox()
    controller = Controller(box, hostname="127.0.0.1", port=port)
    controller.start()
    settings.TRIAGE_EMAIL_ENABLED = True
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", port
    try:
        yield box
    finally:
        controller.stop()


def test_an_assignment_reaches_slack_signed_and_a_replay_or_an_altered_body_is_refused(
    client: Client, media_root: Path, xid_bundle: Path, receiver: VerifyingReceiver,  # noqa: F811
    django_capture_on_commit_callbacks: Any,
) -> None:
    incident = diagnosed(xid_bundle, job="llama-70b")
    webhook_add(team=incident.team, url=receiver.url, secret=str(receiver.secret), format=Webhook.Format.SLACK,
                events=["incident.assigned", "incident.acknowledged"])
    alice = join_team(User.objects.create_user("alice", password="x"))
    join_team(User.objects.create_user("bob", password="x"))
    client.force_login(alice)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(f"/incidents/{incident.pk}/workflow", {"assignee": "bob"})

    [hit] = receiver.accepted("incident.assigned")
    text = hit.payload["text"]
    # Slack's incoming-webhook body: one "text"; where it failed comes first.
    assert list(hit.payload) == ["text"]
    assert text.startswith("[nccl-triage · default] hardware_fault on node-b GPU 3, rank 7 — assigned to bob by alice")
    assert f"/incidents/{incident.pk}/" in text and text.split()[-1].startswith("http://testserver/")
    assert hit.headers["webhook-id"].startswith("msg_")
    delivery = Delivery.objects.get(event="incident.assigned")
    assert (delivery.status, delivery.message_id) == ("delivered", hit.headers["webhook-id"])

    # The same request again: the signature holds, the id was seen: refused.
    assert post(receiver.url, hit.body, hit.headers) == 409
    # A replay with a fresh timestamp (to pass the 5-minute window) breaks the signature.
    fresh = {**hit.headers, "webhook-timestamp": str(int(hit.headers["webhook-timestamp"]) + 60)}
    assert post(receiver.url, hit.body, fresh) == 401
    # An altered body (another assignee) under the original signature.
    altered = hit.body.replace(b"assigned to bob", b"assigned to eve")
    assert altered != hit.body
    assert post(receiver.url, altered, {**hit.headers, "webhook-id": "msg_other"}) == 401
    # An event the webhook did not ask for is not sent.
    with django_capture_on_commit_callbacks(execute=True):
        client.post(f"/incidents/{incident.pk}/workflow", {"status": "resolved"})
    assert not Delivery.objects.filter(event="incident.resolved").exists()


def test_every_workflow_event_is_recorded_and_sent_with_both_signatures(
    client: Client, media_root: Path, xid_bundle: Path, api_token: str,  # noqa: F811
    django_capture_on_commit_callbacks: Any,
) -> None:
    """A secret typed by an admin (not in whsec_ form) is the key as its UTF-8 bytes; the older
    X-Triage-Signature still verifies for receivers built on it."""
    import hashlib
    import hmac

    incident = diagnosed(xid_bundle)
    typed = "typed-by-an-admin"
    legacy = VerifyingReceiver(typed.encode()).start()
    try:
        webhook_add(team=incident.team, url=legacy.url, secret=typed)
        alice = join_team(User.objects.create_user("alice", password="x"))
        join_team(User.objects.create_user("bob", password="x"))
        client.force_login(alice)
        with django_capture_on_commit_callbacks(execute=True):
            for change in ({"assignee": "bob"}, {"status": "acknowledged"}, {"status": "resolved"},
                           {"status": "open"}, {"assignee": ""}, {"ticket_url": "https://tickets.example/OPS-4711"}):
                client.post(f"/incidents/{incident.pk}/workflow", change)
            client.post(f"/incidents/{incident.pk}/comments", {"body": "@bob drain node-b please, @nobody"})
            client.post(f"/incidents/{incident.pk}/edit", {"title": "node-b GPU 3 again", "job": ""})
            client.post(f"/incidents/{incident.pk}/edit", {"title": "node-b GPU 3 again", "job": ""})  # no change
        events = [h.headers["x-triage-event"] for h in legacy.hits if h.status == 200]
        assert events == ["incident.assigned", "incident.acknowledged", "incident.resolved", "incident.reopened",
                          "incident.mentioned"]
        for hit in legacy.hits:
            expected = "sha256=" + hmac.new(typed.encode(), hit.body, hashlib.sha256).hexdigest()
            assert hmac.compare_digest(hit.headers["x-triage-signature"], expected)
        mentioned = legacy.accepted("incident.mentioned")[0].payload
        assert mentioned["event"] == "incident.mentioned" and mentioned["data"]["mentions"] == "@bob"
        assert mentioned["data"]["actor"] == "alice" and mentioned["data"]["host"] == "node-b"
        assert mentioned["data"]["gpu"] == 3 and mentioned["data"]["rank"] == 7
        assert "drain node-b please" in mentioned["text"]
        reopened = legacy.accepted("incident.reopened")[0].payload["data"]
        assert reopened["details"] == {"from": "resolved", "to": "open"} and reopened["status"] == "open"
    finally:
        legacy.stop()

    verbs = list(IncidentEvent.objects.filter(incident=incident).values_list("verb", flat=True))
    assert verbs == ["assigned", "acknowledged", "resolved", "reopened", "unassigned", "ticket", "commented",
                     "mentioned", "renamed"]
    page = client.get(f"/incidents/{incident.pk}/").content.decode()
    assert 'id="history"' in page and "assigned it to <strong>bob</strong>" in page
    assert "reopened it (resolved → open)" in page and "mentioned @bob" in page
    assert "renamed it “node-b GPU 3 again”" in page
    history = client.get(f"/api/v1/incidents/{incident.pk}", HTTP_AUTHORIZATION=f"Bearer {api_token}").json()["history"]
    assert [h["verb"] for h in history] == verbs
    assert history[0]["actor"] == "alice" and history[0]["details"] == {"assignee": "bob", "previous": None}
    assert history[4]["details"] == {"previous": "bob"}


def test_the_assignee_and_the_mentioned_get_mail_the_actor_does_not(
    client: Client, media_root: Path, xid_bundle: Path, smtp: Mailbox,  # noqa: F811
    django_capture_on_commit_callbacks: Any,
) -> None:
    incident = diagnosed(xid_bundle, job="llama-70b")
    alice = join_team(User.objects.create_user("alice", email="alice@example.org", password="x"))
    join_team(User.objects.create_user("bob", email="bob@example.org", password="x"))
    join_team(User.objects.create_user("carol", password="x"))  # no address: nothing to send
    client.force_login(alice)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(f"/incidents/{incident.pk}/workflow", {"assignee": "bob"})
    [(to, raw)] = smtp.messages
    mail = message_from_bytes(raw, policy=policy.default)
    assert to == ["bob@example.org"]
    assert str(mail["Subject"]).strip() == ("[nccl-triage] hardware_fault on node-b GPU 3, rank 7 — assigned to bob by "
                                    "alice: Xid 79 on node-b GPU 3 — job llama-70b")
    assert f"http://testserver/incidents/{incident.pk}/" in mail.get_payload(decode=True).decode()

    with django_capture_on_commit_callbacks(execute=True):
        client.post(f"/incidents/{incident.pk}/comments", {"body": "@alice @bob @carol look at GPU 3"})
        client.post(f"/incidents/{incident.pk}/workflow", {"assignee": "alice"})  # herself: no mail
    assert [m[0] for m in smtp.messages] == [["bob@example.org"], ["bob@example.org"]]
    assert "look at GPU 3" in message_from_bytes(smtp.messages[1][1]).get_payload(decode=True).decode()


def test_mail_is_off_unless_configured(
    client: Client, media_root: Path, xid_bundle: Path, mailoutbox: list[Any],  # noqa: F811
    django_capture_on_commit_callbacks: Any, settings: Any,
) -> None:
    settings.TRIAGE_EMAIL_ENABLED = False
    incident = diagnosed(xid_bundle)
    client.force_login(join_team(User.objects.create_user("alice", password="x")))
    join_team(User.objects.create_user("bob", email="bob@example.org", password="x"))
    with django_capture_on_commit_callbacks(execute=True):
        client.post(f"/incidents/{incident.pk}/workflow", {"assignee": "bob"})
    assert mailoutbox == []
    assert IncidentEvent.objects.get(incident=incident).verb == "assigned"


HOSTILE = [
    ("node-b", "nccl-triage 1: Xid 79 on node-b GPU 3"),
    ("gpu'01", "it's $(touch PWNED) `touch PWNED`; touch PWNED \"quoted\" \\ back"),
    ("-n; touch PWNED", "line one\nline two\ttabbed"),
]


@pytest.mark.parametrize(("host", "reason"), HOSTILE)
def test_drain_commands_are_one_word_each_in_a_real_shell(tmp_path: Path, host: str, reason: str) -> None:
    """Run through bash with scontrol and kubectl stand-ins that print their argv: each part
    arrives whole, and nothing in the host or reason runs."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in ("scontrol", "kubectl"):
        tool = bin_dir / name
        tool.write_text("#!/usr/bin/env python3\nimport json, sys\nprint(json.dumps(sys.argv[1:]))\n")
        tool.chmod(0o755)
    commands = drain_commands(host=host, reason=reason)
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin"}

    def argv(command: str) -> list[str]:
        done = subprocess.run(["bash", "-c", command], cwd=tmp_path, env=env, capture_output=True, text=True,
                              timeout=30, check=True)
        return list(json.loads(done.stdout))

    one_line = " ".join(reason.split()).replace('"', "'")
    assert argv(commands["slurm"]) == ["update", f"NodeName={host}", "State=DRAIN", f"Reason={one_line}"]
    assert argv(commands["kubernetes"]) == ["cordon", host]
    assert not (tmp_path / "PWNED").exists()
    assert shlex.split(commands["kubernetes"]) == ["kubectl", "cordon", host]


def test_the_incident_page_and_api_give_the_drain_command_of_the_culprit(
    client: Client, media_root: Path, xid_bundle: Path, api_token: str,  # noqa: F811
) -> None:
    incident = diagnosed(xid_bundle, job="llama-70b")
    client.force_login(join_team(User.objects.create_user("alice", password="x")))
    page = client.get(f"/incidents/{incident.pk}/").content.decode()
    slurm = (f"scontrol update NodeName=node-b State=DRAIN "
             f"Reason='nccl-triage {incident.pk}: Xid 79 on node-b GPU 3 — job llama-70b'")
    assert 'id="drain-host"' in page and f'data-copy="{slurm.replace(chr(39), "&#x27;")}"' in page
    body = client.get(f"/api/v1/incidents/{incident.pk}", HTTP_AUTHORIZATION=f"Bearer {api_token}").json()
    assert body["drain"]["host"] == "node-b"
    assert body["drain"]["commands"] == {"slurm": slurm, "kubernetes": "kubectl cordon node-b"}


def test_finding_work_by_workflow_assignee_ticket_and_as_csv(
    client: Client, media_root: Path, xid_bundle: Path,  # noqa: F811
) -> None:
    import csv
    import io

    mine = diagnosed(xid_bundle, job="train-1")
    other = diagnosed(xid_bundle, job="=HYPERLINK(\"http://evil\")")
    alice = join_team(User.objects.create_user("alice", password="x"))
    join_team(User.objects.create_user("bob", password="x"))
    client.force_login(alice)
    client.post(f"/incidents/{mine.pk}/workflow", {"assignee": "alice", "status": "acknowledged",
                                                   "ticket_url": "https://tickets.example/OPS-4711"})

    def listed(query: str) -> list[str]:
        page = client.get(f"/?{query}")
        assert page.status_code == 200
        return [i.pk for i in page.context["page"].object_list]

    assert listed("q=OPS-4711") == [mine.pk]
    assert listed("q=ops-4711") == [mine.pk]
    assert listed("workflow=acknowledged") == [mine.pk]
    assert listed("workflow=open") == [other.pk]
    assert listed("assignee=me") == [mine.pk] and listed("assignee=alice") == [mine.pk]
    assert listed("assignee=-") == [other.pk]
    assert listed("assignee=bob") == []
    assert sorted(listed("workflow=nonsense")) == sorted([mine.pk, other.pk])  # not understood: no filter, no 500

    response = client.get("/incidents.csv?workflow=open")
    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert rows[0][:3] == ["id", "title", "status"] and len(rows) == 2
    row = dict(zip(rows[0], rows[1], strict=True))
    assert row["id"] == other.pk and row["host"] == "node-b" and row["gpu"] == "3" and row["rank"] == "7"
    assert row["job"] == "'=HYPERLINK(\"http://evil\")"  # a formula is text in a spreadsheet
    assert row["assignee"] == "" and row["url"] == f"http://testserver/incidents/{other.pk}/"
    everything = b"".join(client.get("/incidents.csv").streaming_content).decode()
    assert "https://tickets.example/OPS-4711" in everything and everything.count("\n") == 3


def test_small_truths_share_for_an_hour_and_the_upload_page_says_where_titles_come_from(
    client: Client, media_root: Path, xid_bundle: Path,  # noqa: F811
) -> None:
    from django.utils import timezone

    from triage.accounts.models import ShareLink

    incident = diagnosed(xid_bundle)
    client.force_login(join_team(User.objects.create_user("alice", password="x")))
    page = client.get(f"/incidents/{incident.pk}/").content.decode()
    assert '<option value="3600">1 hour</option>' in page and '<option value="28800">8 hours</option>' in page
    client.post(f"/incidents/{incident.pk}/shares", {"expires_in": "3600"})
    link = ShareLink.objects.get(incident=incident)
    assert link.expires_at is not None
    assert 3500 < (link.expires_at - timezone.now()).total_seconds() <= 3600
    upload = client.get("/upload").content.decode()
    assert "the file name otherwise" not in upload and "otherwise the verdict names it" in upload
