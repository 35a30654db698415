"""The on-call workflow (assignee, status, ticket, comments with mentions, "resolved by" carried
to the next incident of the same problem) and titles generated from the verdict, through the
pages, the API and the webhook payload."""
from __future__ import annotations

import tarfile
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client

from tests.conftest import join_team
from triage.fleet.models import Delivery, Webhook
from triage.fleet.services import fleet_incident_update
from triage.incidents.models import Comment, Incident
from triage.incidents.services import incident_diagnose, incident_ingest, incident_rename, incoming_from_path
from triage.incidents.workflow import title_from_diagnosis

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def xid_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The scenario generator's hardware fault: Xid 79 on node-b GPU 3, as one upload."""
    from triage.scenarios import build

    root = tmp_path_factory.mktemp("xid")
    folder = build("hardware_fault", root / "hw", seed=0)
    archive = root / "logs.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(folder, arcname=folder.name)
    return archive


def diagnosed(path: Path, **kwargs: Any) -> Incident:
    with incoming_from_path(path) as incoming:
        incident, _ = incident_ingest(bundles=[incoming], **kwargs)
    incident_diagnose(incident_id=incident.pk)
    fleet_incident_update(incident_id=incident.pk)  # what the fleet task does after the commit
    incident.refresh_from_db()
    return incident


@pytest.fixture
def alice(client: Client) -> Client:
    client.force_login(join_team(User.objects.create_user("alice", password="x")))
    return client


def test_the_title_says_what_failed_where_not_the_file_name(media_root: Path, xid_bundle: Path) -> None:
    incident = diagnosed(xid_bundle, job="llama-70b")
    assert incident.title == "Xid 79 on node-b GPU 3 — job llama-70b"
    assert incident.title_generated and "logs.tar.gz" not in incident.title
    # A person's title stays through a re-run; emptying it brings the generated one back.
    incident_rename(incident=incident, title="bad GPU, RMA filed", job="llama-70b")
    incident_diagnose(incident_id=incident.pk, force=True)
    incident.refresh_from_db()
    assert incident.title == "bad GPU, RMA filed" and not incident.title_generated
    incident_rename(incident=incident, title="", job="llama-70b")
    assert Incident.objects.get(pk=incident.pk).title == "Xid 79 on node-b GPU 3 — job llama-70b"


def test_no_verdict_no_invented_title() -> None:
    assert title_from_diagnosis({"findings": []}, "job-1") == ""
    no_host = {"findings": [{"cause": "rendezvous_hang", "rule": "r", "hosts": []}], "first_failure": None}
    assert title_from_diagnosis(no_host, "") == "Rendezvous hang"


def test_a_title_typed_at_upload_is_kept(media_root: Path, xid_bundle: Path) -> None:
    incident = diagnosed(xid_bundle, title="node-b again")
    assert incident.title == "node-b again" and not incident.title_generated


def test_members_act_viewers_read(client: Client, media_root: Path, xid_bundle: Path) -> None:
    incident = diagnosed(xid_bundle)
    viewer = join_team(User.objects.create_user("vic", password="x"), role="viewer")
    bob = join_team(User.objects.create_user("bob", password="x"))
    client.force_login(viewer)
    page = client.get(f"/incidents/{incident.pk}/").content.decode()
    assert 'id="workflow"' in page and 'id="workflow-form"' not in page and 'comment-body' not in page
    assert client.post(f"/incidents/{incident.pk}/workflow", {"status": "acknowledged"}).status_code == 403
    assert client.post(f"/incidents/{incident.pk}/comments", {"body": "hi"}).status_code == 403
    assert Incident.objects.get(pk=incident.pk).workflow == "open"

    client.force_login(bob)
    response = client.post(f"/incidents/{incident.pk}/workflow", {
        "status": "acknowledged", "assignee": "bob", "ticket_url": "https://tickets.example/OPS-7"})
    assert response.status_code == 302
    incident.refresh_from_db()
    assert (incident.workflow, incident.assignee, incident.ticket_url) == ("acknowledged", bob, "https://tickets.example/OPS-7")
    # Only a team member can be assigned; a script URL is no ticket link.
    client.post(f"/incidents/{incident.pk}/workflow", {"assignee": "mallory"})
    client.post(f"/incidents/{incident.pk}/workflow", {"ticket_url": "javascript:alert(1)"})
    incident.refresh_from_db()
    assert incident.assignee == bob and incident.ticket_url == "https://tickets.example/OPS-7"
    page = client.get(f"/incidents/{incident.pk}/").content.decode()
    assert 'id="wf-assignee">bob<' in page and 'href="https://tickets.example/OPS-7"' in page


def test_comments_keep_mentions_of_team_members_only(alice: Client, media_root: Path, xid_bundle: Path) -> None:
    incident = diagnosed(xid_bundle)
    join_team(User.objects.create_user("bob", password="x"))
    join_team(User.objects.create_user("eve", password="x"), team="other")
    alice.post(f"/incidents/{incident.pk}/comments", {"body": "@bob can you drain node-b? cc @eve <b>x</b>"})
    comment = Comment.objects.get(incident=incident)
    assert comment.mentions == ["bob"] and comment.author.username == "alice"
    page = alice.get(f"/incidents/{incident.pk}/").content.decode()
    assert '<span class="mention">@bob</span>' in page
    assert '<span class="mention">@eve' not in page and "@eve" in page
    assert "&lt;b&gt;x&lt;/b&gt;" in page
    assert alice.post(f"/incidents/{incident.pk}/comments", {"body": "  "}).status_code == 302
    assert Comment.objects.filter(incident=incident).count() == 1


def test_resolved_by_is_carried_to_the_next_incident_of_the_problem(
    alice: Client, media_root: Path, xid_bundle: Path, api_token: str,
) -> None:
    first = diagnosed(xid_bundle, job="train-1")
    alice.post(f"/incidents/{first.pk}/workflow", {
        "status": "resolved", "resolution": "reseated GPU 3 on node-b", "ticket_url": "https://tickets.example/HW-1"})
    first.refresh_from_db()
    assert first.workflow == "resolved" and first.resolved_by.username == "alice" and first.resolved_at
    alice.post(f"/fleet/problems/{first.occurrence.problem_id}/status", {"action": "resolve"})

    Webhook.objects.create(team=first.team, url="http://127.0.0.1:9/hook")
    second = diagnosed(xid_bundle, job="train-2")
    assert second.occurrence.problem_id == first.occurrence.problem_id
    page = alice.get(f"/incidents/{second.pk}/").content.decode()
    assert 'id="previous-resolution"' in page and "reseated GPU 3 on node-b" in page and "alice" in page
    # Not the other way round: the first incident has no earlier resolution.
    assert 'id="previous-resolution"' not in alice.get(f"/incidents/{first.pk}/").content.decode()

    problem = alice.get(f"/fleet/problems/{second.occurrence.problem_id}/").content.decode()
    assert 'id="problem-resolution"' in problem and "reseated GPU 3 on node-b" in problem
    assert 'wf-resolved">resolved' in problem and 'wf-open">open' in problem

    body = alice.get(f"/api/v1/incidents/{second.pk}", HTTP_AUTHORIZATION=f"Bearer {api_token}").json()
    assert body["workflow"]["status"] == "open"
    assert body["workflow"]["previous_resolution"] == {
        "incident": first.pk, "resolution": "reseated GPU 3 on node-b", "resolved_by": "alice",
        "resolved_at": first.resolved_at.isoformat(), "ticket_url": "https://tickets.example/HW-1"}
    listed = alice.get("/api/v1/incidents", HTTP_AUTHORIZATION=f"Bearer {api_token}").json()["results"]
    assert {r["id"]: r["workflow"]["status"] for r in listed} == {first.pk: "resolved", second.pk: "open"}

    ready = Delivery.objects.get(event="incident.ready", payload__data__incident=second.pk)
    data = ready.payload["data"]
    assert data["title"] == "Xid 79 on node-b GPU 3 — job train-2"
    assert data["workflow"]["previous_resolution"]["resolution"] == "reseated GPU 3 on node-b"
    regression = Delivery.objects.get(event="problem.regression").payload["data"]
    assert regression["last_resolution"] == {"incident": first.pk, "resolution": "reseated GPU 3 on node-b",
                                             "resolved_by": "alice", "ticket_url": "https://tickets.example/HW-1"}
