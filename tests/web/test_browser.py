"""Headless Chromium (Debian's, through Playwright): upload in the page, see the verdict,
open an evidence line in the log viewer."""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import join_team, launch_chromium, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_upload_see_the_verdict_and_open_the_evidence(
    live_server: Any, django_user_model: Any, media_root: Path, shm_bundle: Path, chromium_path: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from playwright.sync_api import expect, sync_playwright

    join_team(django_user_model.objects.create_user("sre", password="correct horse"))
    # Playwright's sync API keeps an event loop in this thread; the live server (another thread)
    # does the database work, this thread only asks Django for nothing but settings.
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    errors: list[str] = []
    with sync_playwright() as p:
        browser = launch_chromium(p, chromium_path)
        try:
            page = browser.new_page()
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(f"{live_server.url}/upload")
            sign_in(page)
            expect(page.locator("#dropzone")).to_be_visible()
            expect(page.locator(".hint").first).to_contain_text("MiB per file")

            page.set_input_files("#id_files", str(shm_bundle))
            expect(page.locator("#chosen li")).to_have_text(re.compile(r"node-a\.tar\.gz \(\d"))
            page.fill("#id_job", "browser-job-1")
            page.click("#upload-submit")

            page.wait_for_url(re.compile(r"/incidents/\w+/$"), timeout=60_000)
            verdict = page.locator("#verdict")
            expect(verdict).to_contain_text("shm_exhausted", timeout=60_000)
            expect(page.locator("#incident-status")).to_have_text("ready")

            evidence = page.locator("#findings a.evidence").first
            line_text = evidence.locator("code").inner_text()
            evidence.click()
            page.wait_for_url(re.compile(r"/log\?source="))
            target = page.locator("tr.target")
            expect(target).to_have_count(1)
            expect(target.locator("td.tx")).to_have_text(line_text)
            expect(target).to_be_in_viewport()
        finally:
            browser.close()
    assert errors == []


def test_files_chosen_before_the_script_ran_are_listed(
    live_server: Any, django_user_model: Any, media_root: Path, shm_bundle: Path, chromium_path: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """On a slow link the deferred upload.js can arrive after the user picked files: the change
    event has fired already, and the list and the size check must still show them."""
    from playwright.sync_api import Route, expect, sync_playwright

    join_team(django_user_model.objects.create_user("sre", password="correct horse"))
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    errors: list[str] = []
    with sync_playwright() as p:
        browser = launch_chromium(p, chromium_path)
        try:
            page = browser.new_page()
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(f"{live_server.url}/upload")
            sign_in(page)
            expect(page.locator("#dropzone")).to_be_visible()

            # The page's own script tag gets an empty body; the real script is added (same
            # origin, so the CSP allows it) once the files are chosen.
            def held_back(route: Route) -> None:
                route.fulfill(status=200, content_type="text/javascript", body="")

            page.route("**/js/upload.js", held_back)
            page.reload()
            page.wait_for_load_state("load")
            page.set_input_files("#id_files", str(shm_bundle))
            expect(page.locator("#chosen li")).to_have_count(0)
            page.unroute("**/js/upload.js")
            script = page.locator("script[src*='js/upload.js']").get_attribute("src")
            page.add_script_tag(url=f"{script}?late=1")
            expect(page.locator("#chosen li")).to_have_text(re.compile(r"node-a\.tar\.gz \(\d"))
        finally:
            browser.close()
    assert errors == []
