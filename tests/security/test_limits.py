"""Point 8 of issue 14: share links never outlive TRIAGE_SHARE_MAX_DAYS, failed sign-ins and
share creation are rate-limited, a skipped member keeps its name on the page."""
from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from tests.conftest import join_team, sample_log, tar_gz
from triage.accounts.models import ShareLink
from triage.incidents.models import Incident
from triage.incidents.services import incident_ingest, incoming_from_path

pytestmark = pytest.mark.django_db


@pytest.fixture
def incident(db: None, media_root: Any, tmp_path: Any, django_capture_on_commit_callbacks: Any) -> Incident:
    path = tmp_path / "node-a.tar.gz"
    # Random bytes named like a secret: skipped as binary, and the page must say which file.
    path.write_bytes(tar_gz({"node-a/log.txt": sample_log(), "node-a/api_token.bin": bytes(range(256)) * 40}))
    with django_capture_on_commit_callbacks(execute=True), incoming_from_path(path) as incoming:
        created, _ = incident_ingest(bundles=[incoming], job="limits")
    created.refresh_from_db()
    return created


@pytest.fixture
def member(django_user_model: Any) -> Client:
    client = Client()
    client.force_login(join_team(django_user_model.objects.create_user("member")))
    return client


def test_a_browser_link_set_to_never_is_capped_like_the_api(incident: Incident, member: Client, settings: Any) -> None:
    settings.TRIAGE_SHARE_MAX_SECONDS = 5 * 86400
    response = member.post(f"/incidents/{incident.pk}/shares", {"expires_in": "0"})
    assert response.status_code == 302
    link = ShareLink.objects.get()
    assert link.expires_at is not None
    assert abs(link.expires_at - (timezone.now() + timedelta(days=5))) < timedelta(minutes=5)


def test_failed_sign_ins_are_rate_limited(django_user_model: Any, settings: Any) -> None:
    settings.TRIAGE_LOGIN_FAILURE_LIMIT = 3
    django_user_model.objects.create_user("sre", password="right-password")
    client = Client()
    for _ in range(3):
        response = client.post("/accounts/login/", {"username": "sre", "password": "guess"})
        assert response.status_code == 200  # the form again, with its error
    refused = client.post("/accounts/login/", {"username": "sre", "password": "right-password"})
    assert refused.status_code == 429
    assert "Too many failed sign-ins" in refused.content.decode()
    assert "_auth_user_id" not in client.session
    # Another person from another address is not locked out by it.
    django_user_model.objects.create_user("other", password="pw")
    other = Client(REMOTE_ADDR="10.0.0.2")
    assert other.post("/accounts/login/", {"username": "other", "password": "pw"}).status_code == 302


def test_share_creation_is_rate_limited_on_both_paths(
    incident: Incident, member: Client, api_token: str, settings: Any
) -> None:
    settings.TRIAGE_SHARE_RATE_LIMIT = 2
    auth = {"Authorization": f"Bearer {api_token}"}
    codes = [Client().post(f"/api/v1/incidents/{incident.pk}/share", headers=auth).status_code for _ in range(3)]
    assert codes == [201, 201, 429]
    for _ in range(3):
        member.post(f"/incidents/{incident.pk}/shares", {"expires_in": "86400"})
    assert ShareLink.objects.count() == 4  # two by the token, two by the member
    page = member.get(f"/incidents/{incident.pk}/").content.decode()
    assert "at most 2 share links per hour" in page


def test_a_skipped_members_name_is_shown_not_redacted(incident: Incident, member: Client) -> None:
    assert incident.status == Incident.Status.READY, incident.error
    page = member.get(f"/incidents/{incident.pk}/").content.decode()
    assert "node-a/api_token.bin: binary file skipped" in page
