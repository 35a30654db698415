"""/metrics, the host API, the webhook command and regrouping, through real uploads in the
embedded mode (tasks run in-process after each commit)."""
from __future__ import annotations

from collections.abc import Callable
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.test import Client
from prometheus_client.parser import text_string_to_metric_families

from triage.accounts.services import apitoken_create, team_get_or_create
from triage.fleet.models import Occurrence, Problem, Webhook
from triage.incidents.services import incident_reparse

pytestmark = pytest.mark.django_db(transaction=True)


def post(client: Client, token: str, path: Path, **fields: str) -> str:
    with path.open("rb") as f:
        response = client.post("/api/v1/bundles", {"file": f, **fields}, headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 202, response.content
    return str(response.json()["incident"])


def metrics(client: Client, **headers: str) -> dict[str, Any]:
    response = client.get("/metrics", headers=headers)
    assert response.status_code == 200, response.content
    assert response["Content-Type"].startswith("text/plain")
    return {f.name: f for f in text_string_to_metric_families(response.content.decode())}


def test_metrics_parse_with_prometheus_client_and_count_what_happened(
    client: Client, api_token: str, media_root: Path, scenario_bundle: Callable[[str, int], Path],
) -> None:
    for n in range(3):  # three distinct failures (days) of node-b GPU 3
        post(client, api_token, scenario_bundle("hardware_fault", 0, n + 1), job=f"m-{n}")
    post(client, api_token, scenario_bundle("network", 1), job="m-net")

    families = metrics(client, Authorization=f"Bearer {api_token}")
    incidents = {(s.labels["cause"], s.labels["team"]): s.value for s in families["triage_incidents"].samples
                 if s.name == "triage_incidents_total"}
    assert incidents == {("hardware_fault", "default"): 3, ("network", "default"): 1}
    open_problems = [s.value for s in families["triage_problems_open"].samples]
    assert open_problems == [2]
    assert [s.value for s in families["triage_hosts_drain_recommended"].samples] == [1]
    parse = {s.name: s for s in families["triage_parse_duration_seconds"].samples}
    assert parse["triage_parse_duration_seconds_count"].value == 4
    assert parse["triage_parse_duration_seconds_sum"].value > 0
    assert "triage_queue_depth" in families


def test_metrics_need_a_token_or_an_allowed_address_and_a_token_sees_only_its_team(
    client: Client, api_token: str, media_root: Path, scenario_bundle: Callable[[str, int], Path], settings: Any,
) -> None:
    post(client, api_token, scenario_bundle("hardware_fault", 0), job="mine")
    other = apitoken_create(name="other", team=team_get_or_create(name="other-team"))[1]

    assert client.get("/metrics").status_code == 401
    assert client.get("/metrics", headers={"Authorization": "Bearer nope"}).status_code == 401
    upload_only = apitoken_create(name="up", scope="upload")[1]
    assert client.get("/metrics", headers={"Authorization": f"Bearer {upload_only}"}).status_code == 403
    theirs = metrics(client, Authorization=f"Bearer {other}")
    assert not [s for s in theirs["triage_incidents"].samples if s.name == "triage_incidents_total"]

    settings.TRIAGE_METRICS_ALLOW = ["127.0.0.0/8"]
    everyone = metrics(client)  # the test client comes from 127.0.0.1
    assert [s.value for s in everyone["triage_incidents"].samples if s.name == "triage_incidents_total"] == [1]


def test_the_host_api_answers_for_any_host_and_refuses_without_a_read_token(
    client: Client, api_token: str, media_root: Path, scenario_bundle: Callable[[str, int], Path],
) -> None:
    post(client, api_token, scenario_bundle("hardware_fault", 0), job="h-1")
    auth = {"Authorization": f"Bearer {api_token}"}
    body = client.get("/api/v1/hosts/node-b", headers=auth).json()
    assert body["incidents"] == 1 and body["drain"] == {"recommended": False, "reason": "", "action": None, "commands": None} and body["health"] is None
    assert client.get("/api/v1/hosts/nowhere", headers=auth).json()["incidents"] == 0
    assert client.get("/api/v1/hosts/node-b").status_code == 401
    other = apitoken_create(name="other", team=team_get_or_create(name="other-team"))[1]
    assert client.get("/api/v1/hosts/node-b", headers={"Authorization": f"Bearer {other}"}).json()["incidents"] == 0
    assert client.get("/api/v1/hosts/" + "x" * 300, headers=auth).status_code == 400


def test_a_smoke_result_is_the_hosts_health_in_the_api_and_on_its_page(
    client: Client, api_token: str, media_root: Path, tmp_path: Path, django_user_model: Any,
) -> None:
    import json

    from tests.conftest import join_team, tar_gz

    smoke = {"schema": "nccl-triage/smoke@1", "host": "node-c", "backend": "nccl", "world_size": 8, "ok": False,
             "busbw_gbps": None, "ranks": [{"rank": 0, "ok": True, "error": None},
                                           {"rank": 5, "ok": False, "error": "NCCL error: unhandled cuda error"}]}
    bundle = tmp_path / "smoke-node-c.tar.gz"
    bundle.write_bytes(tar_gz({"node-c/smoke.json": json.dumps(smoke).encode()}))
    post(client, api_token, bundle, job="smoke-node-c", host="node-c")

    health = client.get("/api/v1/hosts/node-c", headers={"Authorization": f"Bearer {api_token}"}).json()["health"]
    assert health["ok"] is False and health["backend"] == "nccl" and health["world_size"] == 8
    assert health["error"] == "NCCL error: unhandled cuda error"
    client.force_login(join_team(django_user_model.objects.create_user("sre")))
    page = client.get("/fleet/hosts/node-c/").content.decode()
    assert "NCCL error: unhandled cuda error" in page and "failed" in page


def test_rediagnosis_keeps_one_occurrence_and_the_problem_count(
    client: Client, api_token: str, media_root: Path, scenario_bundle: Callable[[str, int], Path],
) -> None:
    incident_id = post(client, api_token, scenario_bundle("hardware_fault", 0), job="again")
    problem = Problem.objects.get()
    from triage.incidents.models import Incident

    incident_reparse(incident=Incident.objects.get(pk=incident_id))
    assert Occurrence.objects.count() == 1
    assert Problem.objects.get().pk == problem.pk and Problem.objects.get().count == 1


def test_fleet_rebuild_regroups_incidents_diagnosed_before_the_fleet(
    client: Client, api_token: str, media_root: Path, scenario_bundle: Callable[[str, int], Path],
) -> None:
    for n in range(2):
        post(client, api_token, scenario_bundle("hardware_fault", 0, n + 1), job=f"old-{n}")
    Problem.objects.all().delete()
    Occurrence.objects.all().delete()
    out = StringIO()
    call_command("fleet_rebuild", stdout=out)
    assert "grouped 2 of 2" in out.getvalue()
    assert Problem.objects.get().count == 2


def test_pruned_incidents_leave_their_problems(
    client: Client, api_token: str, media_root: Path, scenario_bundle: Callable[[str, int], Path],
) -> None:
    from datetime import timedelta

    from django.utils import timezone

    from triage.incidents.models import Incident
    from triage.incidents.services import incident_prune

    ids = [post(client, api_token, scenario_bundle("hardware_fault", 0, n + 1), job=f"p-{n}") for n in range(2)]
    Incident.objects.filter(pk=ids[0]).update(created_at=timezone.now() - timedelta(days=40))
    assert incident_prune(older_than_days=30) == [ids[0]]
    assert Problem.objects.get().count == 1
    Incident.objects.filter(pk=ids[1]).delete()
    assert not Problem.objects.exists()


def test_the_webhook_command_adds_lists_and_removes(db: None) -> None:
    out = StringIO()
    call_command("webhook", "add", "https://hooks.example.com/x", "--events", "host.drain_recommended",
                 "--format", "slack", stdout=out)
    assert "secret (shown only now): " in out.getvalue()
    webhook = Webhook.objects.get()
    assert webhook.events == ["host.drain_recommended"] and webhook.format == "slack" and len(webhook.secret) >= 32
    listing = StringIO()
    call_command("webhook", "list", stdout=listing)
    assert "https://hooks.example.com/x" in listing.getvalue() and webhook.secret not in listing.getvalue()
    with pytest.raises(CommandError, match="not an http"):
        call_command("webhook", "add", "ftp://example.com/x")
    with pytest.raises(CommandError, match="no team"):
        call_command("webhook", "add", "https://example.com/x", "--team", "nobody")
    call_command("webhook", "remove", str(webhook.pk), stdout=StringIO())
    assert not Webhook.objects.exists()


def test_the_grafana_dashboard_queries_only_metrics_the_server_exports(
    client: Client, api_token: str, media_root: Path, scenario_bundle: Callable[[str, int], Path],
) -> None:
    import json
    import re

    from tests.conftest import REPO

    post(client, api_token, scenario_bundle("hardware_fault", 0), job="g-1")
    exported = {s.name for f in metrics(client, Authorization=f"Bearer {api_token}").values() for s in f.samples}
    dashboard = json.loads((REPO / "docs" / "grafana-fleet.json").read_text())
    exprs = [t["expr"] for p in dashboard["panels"] for t in p["targets"]]
    used = {name for e in exprs for name in re.findall(r"\b(triage_[a-z_]+)\b", e)}
    assert used and used <= exported, used - exported


def test_team_admins_manage_webhooks_on_the_settings_page_and_others_cannot(
    client: Client, django_user_model: Any,
) -> None:
    from tests.conftest import join_team

    admin = join_team(django_user_model.objects.create_user("admin"), role="admin")
    viewer = join_team(django_user_model.objects.create_user("viewer"), role="viewer")
    client.force_login(viewer)
    assert client.post("/fleet/webhooks", {"url": "https://x.example.com/h", "format": "generic"}).status_code == 403
    client.force_login(admin)
    team = admin.memberships.get().team_id
    bad = client.post("/fleet/webhooks", {"team": team, "url": "not a url", "format": "generic"})
    assert bad.status_code == 400 and not Webhook.objects.exists()
    response = client.post("/fleet/webhooks", {"team": team, "url": "https://x.example.com/h", "format": "slack",
                                               "events": ["problem.new"]})
    assert response.status_code == 302
    webhook = Webhook.objects.get()
    assert (webhook.format, webhook.events) == ("slack", ["problem.new"])
    assert "https://x.example.com/h" in client.get("/fleet/webhooks").content.decode()
    client.force_login(viewer)
    assert client.post(f"/fleet/webhooks/{webhook.pk}/delete").status_code == 404
    client.force_login(admin)
    assert client.post(f"/fleet/webhooks/{webhook.pk}/delete").status_code == 302
    assert not Webhook.objects.exists()


def test_another_teams_fleet_stays_out_of_sight(
    client: Client, api_token: str, media_root: Path, scenario_bundle: Callable[[str, int], Path],
    django_user_model: Any,
) -> None:
    from tests.conftest import join_team

    post(client, api_token, scenario_bundle("hardware_fault", 0), job="private")
    problem = Problem.objects.get()
    client.force_login(join_team(django_user_model.objects.create_user("outsider"), team="elsewhere"))
    fleet = client.get("/fleet/")
    assert fleet.status_code == 200 and "node-b" not in fleet.content.decode()
    assert client.get("/fleet/hosts/node-b/").status_code == 404
    assert client.get(f"/fleet/problems/{problem.pk}/").status_code == 404
    assert client.post(f"/fleet/problems/{problem.pk}/status").status_code == 404
    assert client.get("/fleet/hosts/node-b/gpus/dev:3/").status_code == 404
