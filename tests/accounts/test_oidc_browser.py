"""Sign-in with the identity provider, end to end: headless Chromium, the live dashboard and a
real OpenID Connect provider on loopback (tests/accounts/idp), the whole authorization-code
flow with PKCE, the person's groups at the provider deciding their teams at the dashboard."""
from __future__ import annotations

import re
import threading
from pathlib import Path
from typing import Any

import pytest

from tests.accounts.conftest import Provider
from tests.conftest import launch_chromium
from tests.security.helpers import team_incident

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _sign_in_at_provider(page: Any, live_server: Any, provider: Provider, name: str, password: str) -> None:
    from playwright.sync_api import expect

    page.goto(f"{live_server.url}/")
    page.wait_for_url(re.compile(r"/accounts/login/"))
    button = page.locator("#oidc-sign-in")
    expect(button).to_have_text("Sign in with Test IdP")
    button.click()
    # At the provider's own page, on its own origin.
    page.wait_for_url(re.compile(rf"^http://127\.0\.0\.1:{provider.port}/login/"))
    page.fill("#idp-username", name)
    page.fill("#idp-password", password)
    page.click("#idp-submit")
    page.wait_for_url(f"{live_server.url}/")


def _incident_links(page: Any) -> set[str]:
    hrefs = page.locator("a[href^='/incidents/']").evaluate_all("links => links.map(a => a.getAttribute('href'))")
    return {h for h in hrefs if re.fullmatch(r"/incidents/\w+/", h)}


def _memberships() -> list[tuple[str, str]]:
    """(team, role) of every membership, read in a thread of its own: inside Playwright's sync
    API, Django would open a connection for the browser's context and never close it."""
    from django.db import connections

    from triage.accounts.models import Membership

    found: list[tuple[str, str]] = []

    def read() -> None:
        try:
            found.extend(Membership.objects.values_list("team__name", "role"))
        finally:
            connections.close_all()

    reader = threading.Thread(target=read)
    reader.start()
    reader.join()
    return found


def _status_of(page: Any, url: str) -> int:
    response = page.goto(url)
    assert response is not None
    return int(response.status)


def test_a_new_sre_signs_in_and_sees_their_team_and_nothing_of_another(
    oidc_on: Provider, live_server: Any, shm_bundle: Path, media_root: Path, chromium_path: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from django.contrib.auth import get_user_model

    from triage.accounts.models import Membership

    provider = oidc_on
    provider.person("alice", "alice-at-idp", "gpu-sre")
    provider.person("bob", "bob-at-idp", "ml-research")
    cluster_a = team_incident(shm_bundle, team="cluster-a", job="cluster-a-job")
    research = team_incident(shm_bundle, team="ml-research", job="research-job")
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    errors: list[str] = []
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = launch_chromium(p, chromium_path)
        try:
            alice = browser.new_context().new_page()
            alice.on("pageerror", lambda e: errors.append(str(e)))
            _sign_in_at_provider(alice, live_server, provider, "alice", "alice-at-idp")
            assert _incident_links(alice) == {f"/incidents/{cluster_a.pk}/"}
            assert "Sign out alice" in alice.locator("header").inner_text()
            assert _status_of(alice, f"{live_server.url}/incidents/{cluster_a.pk}/") == 200
            assert _status_of(alice, f"{live_server.url}/incidents/{research.pk}/") == 404

            bob = browser.new_context().new_page()
            _sign_in_at_provider(bob, live_server, provider, "bob", "bob-at-idp")
            assert _incident_links(bob) == {f"/incidents/{research.pk}/"}
            assert _status_of(bob, f"{live_server.url}/incidents/{cluster_a.pk}/") == 404
            assert _status_of(bob, f"{live_server.url}/incidents/{cluster_a.pk}/log?source=0") == 404
            bob.goto(f"{live_server.url}/?q=cluster-a-job")
            assert _incident_links(bob) == set()
        finally:
            browser.close()
    assert errors == []
    # Made at the first sign-in, with no password of the dashboard's, in the mapped teams only.
    users = get_user_model().objects
    assert not users.get(username="alice").has_usable_password()
    assert {(m.user.username, m.team.name, m.role) for m in Membership.objects.select_related("user", "team")} == {
        ("alice", "cluster-a", "member"), ("bob", "ml-research", "viewer"),
    }


def test_a_group_taken_away_at_the_provider_takes_the_team_away_at_the_next_sign_in(
    oidc_on: Provider, live_server: Any, shm_bundle: Path, media_root: Path, chromium_path: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from playwright.sync_api import expect, sync_playwright

    provider = oidc_on
    provider.person("carol", "carol-at-idp", "gpu-sre", "gpu-leads")
    cluster_a = team_incident(shm_bundle, team="cluster-a", job="cluster-a-job")
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    with sync_playwright() as p:
        browser = launch_chromium(p, chromium_path)
        try:
            page = browser.new_context().new_page()
            _sign_in_at_provider(page, live_server, provider, "carol", "carol-at-idp")
            assert _incident_links(page) == {f"/incidents/{cluster_a.pk}/"}
            # The highest role of her groups.
            assert _memberships() == [("cluster-a", "admin")]

            # Signing out here signs out at the provider too: the next sign-in asks again.
            page.click("header button:has-text('Sign out carol')")
            page.wait_for_url(f"{live_server.url}/accounts/login/")
            expect(page.locator("#oidc-sign-in")).to_be_visible()

            provider.person("carol", "carol-at-idp")  # no groups any more
            _sign_in_at_provider(page, live_server, provider, "carol", "carol-at-idp")
            assert _incident_links(page) == set()
            assert _status_of(page, f"{live_server.url}/incidents/{cluster_a.pk}/") == 404
        finally:
            browser.close()
    assert _memberships() == []
