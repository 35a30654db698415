"""Uploaded through the API (and once through the browser) under a random archive name, a
bundle gets the same cause, rank, host, GPU and pid as `diagnose` on its folder: the archive's
name (the upload's label, the prefix of every source) never becomes a host or a rank."""
from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from tests.bundle_forms import forms, identity
from triage.engine import diagnose
from triage.scenarios import SCENARIO_CAUSES, build, gloo

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def gloo_stall(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real torchrun job (gloo, CPU): rank 1 of 3 stops in its data loader, the others time out."""
    return gloo.run_stall(tmp_path_factory.mktemp("gloo"), nproc=3, fail_rank=1).bundle


def _uploaded(client: Client, token: str, path: Path, django_capture_on_commit_callbacks: Any) -> dict[str, Any]:
    with django_capture_on_commit_callbacks(execute=True), path.open("rb") as f:
        response = client.post("/api/v1/bundles", {"file": f}, headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 202, response.content
    body = client.get(response.json()["api"], headers={"Authorization": f"Bearer {token}"}).json()
    assert body["status"] == "ready", body
    return body["diagnosis"]


def _check(client: Client, token: str, bundle: Path, out: Path, seed: int, capture: Any) -> dict[str, Any]:
    want = identity(diagnose(str(bundle)).to_dict())
    names: list[str] = []
    for form, path in forms(bundle, out, random.Random(seed), names):
        if form == "folder":
            continue
        got = _uploaded(client, token, path, capture)
        assert identity(got) == want, f"{bundle.name} uploaded as {form} ({path.name})"
        hosts = {(got["first_failure"] or {}).get("host")} | {r["host"] for r in got["ranks"]}
        assert not hosts & set(names), hosts
    return got


@pytest.mark.parametrize("cause", SCENARIO_CAUSES)
def test_a_scenario_uploaded_under_a_random_name_says_the_same(
    client: Client, api_token: str, media_root: Path, tmp_path: Path, cause: str, django_capture_on_commit_callbacks: Any,
) -> None:
    bundle = build(cause, tmp_path / "built", seed=1)
    _check(client, api_token, bundle, tmp_path / "forms", len(cause), django_capture_on_commit_callbacks)


def test_a_real_gloo_job_uploaded_under_a_random_name_names_the_silent_rank(
    client: Client, api_token: str, media_root: Path, tmp_path: Path, gloo_stall: Path, django_capture_on_commit_callbacks: Any,
) -> None:
    got = _check(client, api_token, gloo_stall, tmp_path / "forms", 3, django_capture_on_commit_callbacks)
    ff = got["first_failure"]
    assert got["findings"][0]["rule"] == "collective_timeout_straggler.laggard"
    assert ff["rank"] == 1 and ff["pid"] is not None and ff["host"] == gloo._host()


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_browser_upload_under_a_random_name_names_the_silent_rank(
    live_server: Any, django_user_model: Any, media_root: Path, tmp_path: Path, gloo_stall: Path, chromium_path: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from playwright.sync_api import expect, sync_playwright

    from tests.conftest import join_team, launch_chromium, sign_in

    want = diagnose(str(gloo_stall)).to_dict()["first_failure"]
    names: list[str] = []
    archive = dict(forms(gloo_stall, tmp_path / "forms", random.Random(7), names))["zip"]
    join_team(django_user_model.objects.create_user("sre", password="correct horse"))
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    with sync_playwright() as p:
        browser = launch_chromium(p, chromium_path)
        try:
            page = browser.new_page()
            page.goto(f"{live_server.url}/upload")
            sign_in(page)
            page.set_input_files("#id_files", str(archive))
            page.click("#upload-submit")
            page.wait_for_url(re.compile(r"/incidents/\w+/$"), timeout=60_000)
            expect(page.locator("#incident-status")).to_have_text("ready", timeout=60_000)
            expect(page.locator("#ff-rank strong")).to_have_text(str(want["rank"]))
            expect(page.locator("#ff-host strong")).to_have_text(want["host"])
            expect(page.locator("#ff-pid strong")).to_have_text(str(want["pid"]))
            for name in names:
                expect(page.locator("#ff-host")).not_to_contain_text(name)
            expect(page.locator(f"#ranks tr.state-silent >> text={want['rank']}").first).to_be_visible()
        finally:
            browser.close()
