"""POST /api/v1/bundles and GET /api/v1/incidents/<id> (docs/bundle-format.md)."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from triage.incidents.models import Bundle, Incident

pytestmark = pytest.mark.django_db


def upload(client: Client, token: str | None, path: Path, **fields: str) -> Any:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    with path.open("rb") as f:
        return client.post("/api/v1/bundles", {"file": f, **fields}, headers=headers)


def test_it_requires_a_token(client: Client, media_root: Path, shm_bundle: Path) -> None:
    response = upload(client, None, shm_bundle)
    assert response.status_code == 401
    assert response["WWW-Authenticate"].startswith("Bearer")
    assert upload(client, "nct_not-a-real-token", shm_bundle).status_code == 401
    assert Incident.objects.count() == 0


def test_it_accepts_a_bundle_and_diagnoses_it(
    client: Client, api_token: str, media_root: Path, shm_bundle: Path, django_capture_on_commit_callbacks
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        response = upload(client, api_token, shm_bundle, job="slurm-81723", host="node-a")
    assert response.status_code == 202
    body = response.json()
    assert set(body) == {"incident", "url", "api"}
    assert body["url"] == f"http://testserver/incidents/{body['incident']}/"
    assert body["api"] == f"http://testserver/api/v1/incidents/{body['incident']}"
    bundle = Bundle.objects.get(incident_id=body["incident"])
    assert (bundle.host, bundle.original_name, bundle.uploaded_by_token.name) == (
        "node-a", "node-a.tar.gz", "test-collector"
    )

    status = client.get(body["api"], headers={"Authorization": f"Bearer {api_token}"})
    assert status.status_code == 200
    data = status.json()
    assert data["status"] == "ready" and data["error"] is None
    assert data["diagnosis"]["findings"][0]["cause"] == "shm_exhausted"


def test_the_same_job_joins_one_incident(client: Client, api_token: str, media_root: Path, shm_bundle: Path, tmp_path: Path) -> None:
    other = tmp_path / "node-b.log"
    other.write_bytes(b"node-b rank 1 log\n")
    first = upload(client, api_token, shm_bundle, job="slurm-9").json()
    second = upload(client, api_token, other, job="slurm-9").json()
    again = upload(client, api_token, shm_bundle, job="slurm-9").json()
    assert first["incident"] == second["incident"] == again["incident"]
    assert Bundle.objects.filter(incident_id=first["incident"]).count() == 2


def test_a_bundle_over_the_limit_gets_413(client: Client, api_token: str, media_root: Path, settings: Any, tmp_path: Path) -> None:
    settings.TRIAGE_MAX_BUNDLE_BYTES = 1024 * 1024
    big = tmp_path / "big.log"
    big.write_bytes(b"y" * (2 * 1024 * 1024))
    response = upload(client, api_token, big)
    assert response.status_code == 413
    assert "1 MiB limit" in response.json()["error"]
    assert response["X-Bundle-Size-Limit"] == str(1024 * 1024)
    assert Incident.objects.count() == 0
    assert [p for p in media_root.rglob("*") if p.is_file()] == []  # refused before reading


def test_a_file_is_required(client: Client, api_token: str, media_root: Path) -> None:
    response = client.post("/api/v1/bundles", {"job": "x"}, headers={"Authorization": f"Bearer {api_token}"})
    assert response.status_code == 400
    assert "file" in response.json()["error"]


def test_an_unknown_incident_is_404(client: Client, api_token: str) -> None:
    response = client.get("/api/v1/incidents/nope", headers={"Authorization": f"Bearer {api_token}"})
    assert response.status_code == 404
