"""Every input gets an answer, never a 500: limits refused the same way on both paths, JSON for
every API error, 503 with Retry-After when the database or the file store is down."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.db import connection
from django.test import Client

from tests.collectors.api_server import free_port
from tests.conftest import join_team, sample_log
from triage.incidents.models import Bundle, Incident

pytestmark = pytest.mark.django_db


def api_post(client: Client, token: str, **data: Any) -> Any:
    return client.post("/api/v1/bundles", data, headers={"Authorization": f"Bearer {token}"})


def log_file(tmp_path: Path, content: bytes | None = None, name: str = "rank0.log") -> Any:
    path = tmp_path / name
    path.write_bytes(sample_log() if content is None else content)
    return path.open("rb")


@pytest.fixture
def browser(django_user_model: Any) -> Client:
    client = Client()
    client.force_login(join_team(django_user_model.objects.create_user("sre")))
    return client


def browser_upload(client: Client, file: Any, **fields: str) -> Any:
    return client.post("/upload", {"files": [file], **fields}, headers={"Accept": "application/json"})


def test_a_job_name_over_200_characters_is_refused_on_both_paths_never_cut(
    client: Client, api_token: str, browser: Client, media_root: Path, tmp_path: Path
) -> None:
    # Cut to 200, these three would have joined one incident.
    for n in range(3):
        response = api_post(client, api_token, file=log_file(tmp_path), job="j" * 200 + str(n))
        assert response.status_code == 400
        assert response.json() == {"error": "job is longer than 200 characters"}
    assert browser_upload(browser, log_file(tmp_path), job="j" * 201).status_code == 400
    assert not Incident.objects.exists()


def test_an_empty_file_is_refused_on_both_paths(
    client: Client, api_token: str, browser: Client, media_root: Path, tmp_path: Path
) -> None:
    response = api_post(client, api_token, file=log_file(tmp_path, b""))
    assert response.status_code == 400
    assert response.json() == {"error": "rank0.log: the file is empty"}
    assert browser_upload(browser, log_file(tmp_path, b"")).status_code == 400
    assert not Incident.objects.exists() and not Bundle.objects.exists()


def test_api_errors_are_json_whoever_answers(client: Client, api_token: str) -> None:
    auth = {"Authorization": f"Bearer {api_token}"}
    unknown = client.get("/api/v1/no-such-endpoint", headers=auth)
    assert unknown.status_code == 404 and unknown.json() == {"error": "not found"}
    wrong_method = client.get("/api/v1/bundles", headers=auth)
    assert wrong_method.status_code == 405 and wrong_method.json() == {"error": "method not allowed"}
    assert wrong_method["Allow"] == "POST"
    # A multipart body cut in the middle: Django's own 400.
    broken = client.generic(
        "POST", "/api/v1/bundles", b"--x\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a\"\r\n",
        content_type="multipart/form-data", headers=auth,
    )
    assert broken.status_code == 400 and broken["Content-Type"] == "application/json"


def test_a_bug_in_an_api_view_is_a_json_500_even_with_debug_on(
    client: Client, api_token: str, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import triage.api.views

    settings.DEBUG = True

    def bug(**_: Any) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(triage.api.views, "incident_get", bug)
    quiet = Client(raise_request_exception=False)
    response = quiet.get("/api/v1/incidents/abc", headers={"Authorization": f"Bearer {api_token}"})
    assert response.status_code == 500
    assert response.json() == {"error": "internal error; it was logged"}


def test_a_file_store_that_fails_is_a_503_with_nothing_half_written(
    client: Client, api_token: str, media_root: Path, tmp_path: Path
) -> None:
    media_root.mkdir(parents=True)
    (media_root / "bundles").write_bytes(b"")  # the store cannot create its folders: a real OSError
    response = api_post(client, api_token, file=log_file(tmp_path))  # job-less: its incident goes with it
    assert response.status_code == 503
    assert response["Retry-After"].isdigit()
    assert "nothing was stored" in response.json()["error"]
    assert not Incident.objects.exists() and not Bundle.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_a_database_outage_is_a_503_not_a_403_nor_a_500(
    api_token: str, django_user_model: Any, media_root: Path, tmp_path: Path
) -> None:
    browser = Client(raise_request_exception=False)
    browser.force_login(join_team(django_user_model.objects.create_user("sre")))
    api = Client(raise_request_exception=False)
    saved = connection.settings_dict["PORT"]
    connection.close()
    connection.settings_dict["PORT"] = str(free_port())  # nothing listens there: PostgreSQL is "down"
    try:
        upload = api_post(api, api_token, file=log_file(tmp_path), job="db-down")
        page = browser.get("/")
        browser_post = browser_upload(browser, log_file(tmp_path))
    finally:
        connection.close()
        connection.settings_dict["PORT"] = saved
    assert upload.status_code == 503 and upload["Retry-After"].isdigit()
    assert "database is unreachable" in upload.json()["error"]
    assert page.status_code == 503 and page["Retry-After"].isdigit()
    assert browser_post.status_code == 503
    assert not Incident.objects.exists()


def test_a_malformed_multipart_body_is_a_400_in_the_browser_too(browser: Client) -> None:
    quiet = Client(raise_request_exception=False)
    quiet.cookies = browser.cookies
    response = quiet.generic("POST", "/upload", b"--x\r\n", content_type="multipart/form-data")
    assert response.status_code == 400
