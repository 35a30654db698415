"""Who sees what: team owner, member, viewer, outsider (another team), anonymous with and
without a share link, revoked and expired links; API tokens by team and scope."""
from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from tests.security.helpers import OTHER_TEAM, TEAM, Personas, api_upload, team_incident
from triage.accounts.models import ApiToken, ShareAccess, ShareLink
from triage.accounts.services import apitoken_create, sharelink_create, team_get_or_create
from triage.incidents.models import Bundle, Finding, Incident

pytestmark = pytest.mark.django_db


@pytest.fixture
def incident(media_root: Path, shm_bundle: Path) -> Incident:
    return team_incident(shm_bundle, job="slurm-42")


def team_urls(incident: Incident) -> list[str]:
    bundle = Bundle.objects.get(incident=incident)
    evidence = Finding.objects.get(incident=incident, position=0).evidence[0]
    return [
        f"/incidents/{incident.pk}/",
        f"/incidents/{incident.pk}/status.json",
        f"/incidents/{incident.pk}/log?source={evidence['source']}&line={evidence['line']}",
        f"/incidents/{incident.pk}/timeline.json",
        f"/incidents/{incident.pk}/trace.json",
        f"/incidents/{incident.pk}/bundles/{bundle.pk}/download",
    ]


def test_it_lets_every_role_of_the_team_read_the_incident(personas: Personas, incident: Incident) -> None:
    for client in (personas.owner, personas.member, personas.viewer):
        assert f"/incidents/{incident.pk}/" in client.get("/").content.decode()
        for url in team_urls(incident):
            assert client.get(url).status_code == 200, url


def test_an_outsider_finds_nothing_by_list_id_log_or_download(personas: Personas, incident: Incident) -> None:
    html = personas.outsider.get("/", {"q": incident.pk}).content.decode()
    assert f"/incidents/{incident.pk}/" not in html
    for url in team_urls(incident):
        assert personas.outsider.get(url).status_code == 404, url  # not 403: it does not exist for them
    assert personas.outsider.post(f"/incidents/{incident.pk}/reparse").status_code == 404
    assert personas.outsider.post(f"/incidents/{incident.pk}/shares", {"expires_in": "86400"}).status_code == 404
    assert not ShareLink.objects.exists()


def test_anonymous_without_a_link_is_sent_to_the_login(personas: Personas, incident: Incident) -> None:
    for url in ["/", "/upload", *team_urls(incident)]:
        response = personas.anonymous.get(url)
        assert response.status_code == 302 and response["Location"].startswith("/accounts/login/"), url


def test_a_viewer_reads_but_cannot_change_or_share(personas: Personas, incident: Incident) -> None:
    assert personas.viewer.post(f"/incidents/{incident.pk}/reparse").status_code == 403
    assert personas.viewer.post(f"/incidents/{incident.pk}/shares", {"expires_in": "86400"}).status_code == 403
    assert personas.viewer.get("/upload").status_code == 403
    page = personas.viewer.get(f"/incidents/{incident.pk}/").content.decode()
    assert 'id="sharing"' not in page
    assert not ShareLink.objects.exists()


def test_the_same_job_name_in_two_teams_makes_two_incidents(media_root: Path, shm_bundle: Path) -> None:
    ours = team_incident(shm_bundle, job="train-1")
    theirs = team_incident(shm_bundle, team=OTHER_TEAM, job="train-1")
    assert ours.pk != theirs.pk and ours.team != theirs.team
    assert Bundle.objects.filter(incident=ours).count() == 1


def share(client: Client, incident: Incident, expires_in: str = "86400") -> str:
    """Create a share link through the page, as a member does; return its URL (shown once)."""
    response = client.post(f"/incidents/{incident.pk}/shares", {"expires_in": expires_in}, follow=True)
    assert response.status_code == 200
    [message] = [m for m in response.context["messages"] if "share-url" in m.tags]
    return str(message.message)


def test_a_member_shares_and_anonymous_sees_that_incident_only(
    personas: Personas, incident: Incident, media_root: Path, tmp_path: Path
) -> None:
    other_log = tmp_path / "other.log"
    other_log.write_bytes(b"another incident\n")
    other = team_incident(other_log)
    url = share(personas.member, incident)
    path = url.removeprefix("http://testserver")
    secret = path.split("/")[2]
    assert len(secret) >= 43  # 256 bits in URL-safe base64 (at least 128 are required)
    assert ShareLink.objects.get().token_hash != secret and secret not in str(list(ShareLink.objects.values()))

    page = personas.anonymous.get(path)
    assert page.status_code == 200
    html = page.content.decode()
    assert 'id="verdict"' in html and "shm_exhausted" in html and 'id="rank-timeline"' in html
    assert f'data-figure-url="{path}timeline.json"' in html
    assert "/bundles/" not in html and "reparse" not in html and 'id="sharing"' not in html  # read-only
    assert page["Referrer-Policy"] == "no-referrer" and "no-store" in page["Cache-Control"]
    assert personas.anonymous.get(f"{path}timeline.json").status_code == 200
    evidence = Finding.objects.get(incident=incident, position=0).evidence[0]
    log = personas.anonymous.get(f"{path}log", {"source": evidence["source"], "line": evidence["line"]})
    assert log.status_code == 200 and f'<tr id="L{evidence["line"]}" class="target">' in log.content.decode()
    # The link opens its incident, nothing else: not the team's pages, not another incident.
    assert personas.anonymous.get(f"/incidents/{other.pk}/").status_code == 302
    assert other.pk not in html
    link = ShareLink.objects.get()
    assert link.access_count == 2 and ShareAccess.objects.filter(link=link).count() == 2
    assert secret not in str(list(ShareAccess.objects.values()))  # the log of accesses keeps no secret


def test_an_outsider_with_the_link_sees_it_read_only(personas: Personas, incident: Incident) -> None:
    path = share(personas.member, incident).removeprefix("http://testserver")
    html = personas.outsider.get(path).content.decode()
    assert "shm_exhausted" in html and 'id="sharing"' not in html and "/bundles/" not in html
    assert personas.outsider.get(f"/incidents/{incident.pk}/").status_code == 404


def test_a_revoked_link_opens_nothing(personas: Personas, incident: Incident) -> None:
    path = share(personas.member, incident).removeprefix("http://testserver")
    link = ShareLink.objects.get()
    # A plain member cannot revoke someone else's link; the creator and an admin can.
    other_member = Client()
    from django.contrib.auth.models import User

    from tests.conftest import join_team

    other_member.force_login(join_team(User.objects.create_user("m2"), team=TEAM, role="member"))
    assert other_member.post(f"/incidents/{incident.pk}/shares/{link.pk}/revoke").status_code == 403
    assert personas.owner.post(f"/incidents/{incident.pk}/shares/{link.pk}/revoke").status_code == 302
    for suffix in ("", "timeline.json", "log?source=x/y"):
        response = personas.anonymous.get(path + suffix)
        assert response.status_code == 410, suffix
    assert "revoked" in personas.anonymous.get(path).content.decode()
    assert personas.anonymous.get("/s/" + "A" * 43 + "/").status_code == 404


def test_an_expired_link_opens_nothing(personas: Personas, incident: Incident) -> None:
    link, secret = sharelink_create(incident=incident, expires_in=60)
    assert personas.anonymous.get(f"/s/{secret}/").status_code == 200
    ShareLink.objects.filter(pk=link.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    response = personas.anonymous.get(f"/s/{secret}/")
    assert response.status_code == 410 and "expired" in response.content.decode()
    assert personas.anonymous.get(f"/s/{secret}/timeline.json").status_code == 410


# --- API tokens ----------------------------------------------------------------------------

def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_a_token_reads_only_its_own_teams_incidents(personas: Personas, incident: Incident) -> None:
    _, ours = apitoken_create(name="ours", team=incident.team, scope=ApiToken.Scope.READ)
    _, theirs = apitoken_create(name="theirs", team=team_get_or_create(name=OTHER_TEAM), scope=ApiToken.Scope.READ)
    client = Client()
    assert client.get(f"/api/v1/incidents/{incident.pk}", headers=auth(ours)).status_code == 200
    assert client.get(f"/api/v1/incidents/{incident.pk}", headers=auth(theirs)).status_code == 404
    assert client.post(f"/api/v1/incidents/{incident.pk}/share", headers=auth(theirs)).status_code == 404


def test_token_scopes(media_root: Path, incident: Incident, shm_bundle: Path) -> None:
    _, upload_only = apitoken_create(name="collector", team=incident.team, scope=ApiToken.Scope.UPLOAD)
    _, read_only = apitoken_create(name="bot", team=incident.team, scope=ApiToken.Scope.READ)
    client = Client()
    response = client.get(f"/api/v1/incidents/{incident.pk}", headers=auth(upload_only))
    assert response.status_code == 403 and "scope" in response.json()["error"]
    assert client.post(f"/api/v1/incidents/{incident.pk}/share", headers=auth(upload_only)).status_code == 403
    before = Bundle.objects.count()
    response = api_upload(client, read_only, "x.log", b"hello\n")
    assert response.status_code == 403
    assert Bundle.objects.count() == before
    uploaded = api_upload(client, upload_only, "x.log", b"hello\n", job="slurm-42")
    assert uploaded.status_code == 202
    assert uploaded.json()["incident"] == incident.pk  # its team's job: joins the incident


def test_an_uploaded_bundle_lands_in_the_tokens_team(media_root: Path) -> None:
    team = team_get_or_create(name=OTHER_TEAM)
    _, token = apitoken_create(name="cluster-b", team=team, scope=ApiToken.Scope.UPLOAD)
    body = api_upload(Client(), token, "x.log", b"hello\n", job="j").json()
    assert Incident.objects.get(pk=body["incident"]).team == team


def test_share_links_through_the_api(personas: Personas, incident: Incident) -> None:
    _, token = apitoken_create(name="bot", team=incident.team, scope=ApiToken.Scope.READ)
    client = Client()
    response = client.post(
        f"/api/v1/incidents/{incident.pk}/share", {"expires_in": 3600}, content_type="application/json",
        headers=auth(token),
    )
    assert response.status_code == 201
    body = response.json()
    assert set(body) == {"url", "id"}
    link = ShareLink.objects.get(pk=body["id"])
    assert timedelta(seconds=3590) < link.expires_at - timezone.now() <= timedelta(seconds=3600)
    path = body["url"].removeprefix("http://testserver")
    assert personas.anonymous.get(path).status_code == 200

    share_api = f"/api/v1/incidents/{incident.pk}/share/{body['id']}"
    assert response["Location"] == "http://testserver" + share_api
    other_team_token = apitoken_create(name="x", team=team_get_or_create(name=OTHER_TEAM), scope="read")[1]
    assert client.delete(share_api, headers=auth(other_team_token)).status_code == 404
    revoked = client.delete(share_api, headers=auth(token))
    assert revoked.status_code == 200 and revoked.json()["active"] is False
    assert personas.anonymous.get(path).status_code == 410

    bad = client.post(f"/api/v1/incidents/{incident.pk}/share", {"expires_in": -5},
                      content_type="application/json", headers=auth(token))
    assert bad.status_code == 400 and "expires_in" in bad.json()["error"]


def test_apitoken_create_with_team_and_scope_keeps_one_line_of_output(db: None) -> None:
    from io import StringIO

    from django.core.management import call_command

    out = StringIO()
    call_command("apitoken", "create", "--name", "cluster-c", "--team", "gpu-ops", "--scope", "upload", stdout=out)
    [token] = out.getvalue().splitlines()
    row = ApiToken.objects.get(name="cluster-c")
    assert (row.team.name, row.scope) == ("gpu-ops", "upload")
    default = StringIO()
    call_command("apitoken", "create", "--name", "plain", stdout=default)
    row = ApiToken.objects.get(name="plain")
    assert (row.team.name, row.scope, row.can_read, row.can_upload) == ("default", "read_upload", True, True)
    assert token != default.getvalue().strip()


def test_demo_user_belongs_to_the_team_of_the_demo_incidents(db: None, media_root: Path, settings: Any) -> None:
    from io import StringIO

    from django.contrib.auth.models import User
    from django.core.management import call_command

    from triage.incidents import demo

    settings.DEBUG = True
    # One cause is enough to show the wiring; loaddemo builds them all.
    original = demo.demo_incidents_load
    demo_incidents = original(causes=["shm_exhausted"])
    call_command("loaddemo", stdout=StringIO(), stderr=StringIO())
    user = User.objects.get(username="demo")
    assert user.check_password("demo")
    client = Client()
    client.force_login(user)
    assert client.get(f"/incidents/{demo_incidents[0].pk}/").status_code == 200
    assert demo_incidents[0].team.name == "default"
