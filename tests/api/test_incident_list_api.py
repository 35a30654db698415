"""GET /api/v1/incidents: the list page's filters and paging, for bots, with a read token."""
from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from triage.accounts.models import ApiToken
from triage.accounts.services import apitoken_create, team_default, team_get_or_create
from triage.incidents.models import Finding, Incident

pytestmark = pytest.mark.django_db


def make(team: Any, n: int, **fields: Any) -> list[Incident]:
    return [Incident.objects.create(team=team, status=Incident.Status.READY, title=f"{fields.get('cause', 'x')}-{i}",
                                    **fields) for i in range(n)]


def get(client: Client, token: str, query: str = "") -> Any:
    return client.get(f"/api/v1/incidents{query}", HTTP_AUTHORIZATION=f"Bearer {token}")


def test_it_lists_pages_and_filters_the_tokens_team_only() -> None:
    team = team_default()
    make(team, 55, cause="oom", first_failure={"rank": 3, "host": "node-b", "device": 3, "pid": 51205, "time": None})
    make(team, 3, cause="network", job="")
    make(team_get_or_create(name="other"), 4, cause="oom")
    _, token = apitoken_create(name="bot", team=team, scope=ApiToken.Scope.READ)
    client = Client()
    first = get(client, token).json()
    assert first["count"] == 58 and first["pages"] == 2 and len(first["results"]) == 50
    assert first["next"].endswith("page=2") and first["previous"] is None
    assert get(client, token, "?page=2").json()["results"].__len__() == 8
    oom = get(client, token, "?cause=oom").json()
    assert oom["count"] == 55
    assert oom["results"][0]["first_failure"] == {"rank": 3, "host": "node-b", "pid": 51205, "device": 3,
                                                  "bus_id": None, "time": None}
    assert get(client, token, "?cause=network").json()["count"] == 3


def test_it_searches_log_lines_like_the_page() -> None:
    team = team_default()
    incident = make(team, 1, cause="oom")[0]
    make(team, 2, cause="oom")
    Finding.objects.create(incident=incident, position=0, cause="oom", rule="oom", confidence="high", title="OOM",
                           evidence=[{"source": "a.log", "line": 3, "text": "NCCL WARN Cuda failure 'out of memory'"}])
    _, token = apitoken_create(name="bot", team=team, scope=ApiToken.Scope.READ)
    found = get(Client(), token, "?q=Cuda failure").json()
    assert [r["id"] for r in found["results"]] == [incident.pk]


def test_bad_input_is_a_clear_400_and_upload_tokens_may_not_read() -> None:
    team = team_default()
    _, reader = apitoken_create(name="bot", team=team, scope=ApiToken.Scope.READ)
    _, uploader = apitoken_create(name="collector", team=team, scope=ApiToken.Scope.UPLOAD)
    client = Client()
    bad = get(client, reader, "?date_from=yesterday")
    assert bad.status_code == 400 and "date_from" in bad.json()["error"]
    assert get(client, reader, "?page=99").status_code == 400
    assert get(client, uploader).status_code == 403
    assert client.get("/api/v1/incidents").status_code == 401
