"""A real incident page, and its share link logged out, in headless Chromium under the real
Content-Security-Policy header: no console error, no CSP violation, and the timeline draws."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.security.helpers import team_incident
from triage.accounts.services import sharelink_create

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_incident_page_works_under_the_csp(
    live_server: Any, django_user_model: Any, media_root: Path, shm_bundle: Path, chromium_path: str,
    monkeypatch: pytest.MonkeyPatch, settings: Any,
) -> None:
    from playwright.sync_api import sync_playwright

    from tests.conftest import join_team, launch_chromium, sign_in

    join_team(django_user_model.objects.create_user("sre", password="correct horse"), team="sre")
    incident = team_incident(shm_bundle, team="sre")
    _, secret = sharelink_create(incident=incident)
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    problems: list[str] = []
    with sync_playwright() as p:
        browser = launch_chromium(p, chromium_path)
        try:
            context = browser.new_context()
            page = context.new_page()
            page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
            page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
            # Chromium reports every CSP refusal as a console error: the list above catches them.
            page.goto(f"{live_server.url}/accounts/login/?next=/incidents/{incident.pk}/")
            sign_in(page)
            page.wait_for_url(f"**/incidents/{incident.pk}/")
            response = page.request.get(f"{live_server.url}/incidents/{incident.pk}/")
            assert response.headers["content-security-policy"] == settings.TRIAGE_CSP
            page.wait_for_function("() => window.__timelineDrawn === true", timeout=60_000)
            assert page.locator("#rank-timeline .main-svg").count() > 0

            anonymous = browser.new_context().new_page()
            anonymous.on("console", lambda m: problems.append(f"shared console {m.type}: {m.text}") if m.type == "error" else None)
            anonymous.on("pageerror", lambda e: problems.append(f"shared page error: {e}"))
            shared = anonymous.goto(f"{live_server.url}/s/{secret}/")
            assert shared is not None and shared.status == 200
            assert shared.headers["content-security-policy"] == settings.TRIAGE_CSP
            anonymous.wait_for_function("() => window.__timelineDrawn === true", timeout=60_000)
            assert "shm_exhausted" in anonymous.locator("#verdict").inner_text()
        finally:
            browser.close()
    assert problems == []
