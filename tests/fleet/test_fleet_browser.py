"""Headless Chromium (Debian's, through Playwright) on the fleet, problem, host and GPU pages."""
from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from tests.conftest import join_team, launch_chromium, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_from_the_fleet_to_the_problem_the_host_and_the_gpu(
    live_server: Any, client: Client, api_token: str, django_user_model: Any, media_root: Path,
    scenario_bundle: Callable[[str, int], Path], chromium_path: str, monkeypatch: pytest.MonkeyPatch,
) -> None:
    from playwright.sync_api import expect, sync_playwright

    ids = []
    for job, bundle in [(f"b-{n}", scenario_bundle("hardware_fault", 0, n + 1)) for n in range(3)] + [("b-net", scenario_bundle("network", 2))]:
        with bundle.open("rb") as f:
            response = client.post("/api/v1/bundles", {"file": f, "job": job}, headers={"Authorization": f"Bearer {api_token}"})
        assert response.status_code == 202
        ids.append(response.json()["incident"])
    join_team(django_user_model.objects.create_user("sre", password="correct horse"))
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    errors: list[str] = []
    with sync_playwright() as p:
        browser = launch_chromium(p, chromium_path)
        try:
            page = browser.new_page()
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.goto(f"{live_server.url}/fleet/")
            sign_in(page)

            # Fleet: the drained host, problems by count, the cause chart drawn.
            expect(page.locator("#drain")).to_contain_text("node-b")
            expect(page.locator("#drain")).to_contain_text("GPU 3")
            rows = page.locator("#problems tbody tr")
            expect(rows).to_have_count(2)
            expect(rows.first).to_contain_text("hardware_fault")
            expect(rows.first.locator("td.num").first).to_have_text("3")
            expect(page.locator("#cause-chart")).to_have_attribute("data-drawn", re.compile(r"^[12]$"))
            expect(page.locator("#hosts tbody tr").first).to_contain_text("node-b")

            # Problem: why these incidents group, the three of them, resolve it.
            rows.first.locator("a").first.click()
            page.wait_for_url(re.compile(r"/fleet/problems/\d+/$"))
            expect(page.locator("#problem-count")).to_have_text("3")
            expect(page.locator("#grouped-because")).to_contain_text("culprit host node-b")
            expect(page.locator("#grouped-because")).to_contain_text("Xid 79")
            expect(page.locator("#problem-drain")).to_contain_text("Drain recommended")
            expect(page.locator("#problem-incidents tbody tr")).to_have_count(3)
            page.click("#resolve")
            expect(page.locator("#problem-status")).to_have_text("resolved")

            # Host: drain, the incidents chart, its GPUs; then the culprit GPU's Xid history.
            page.locator("h1 a").click()
            page.wait_for_url(re.compile(r"/fleet/hosts/node-b/$"))
            expect(page.locator("#host-drain")).to_contain_text("Drain recommended")
            expect(page.locator("#host-chart")).to_have_attribute("data-drawn", "1")
            expect(page.locator("#host-incidents tbody tr")).to_have_count(3)
            gpu_row = page.locator("#host-gpus tbody tr", has_text="GPU 3")
            expect(gpu_row.locator("td.num").last).to_have_text("3")
            gpu_row.locator("a").first.click()
            page.wait_for_url(re.compile(r"/fleet/hosts/node-b/gpus/uuid:GPU-[^/]+/$"))
            expect(page.locator("#gpu-history")).to_contain_text("Xid")
            expect(page.locator("#gpu-chart")).to_have_attribute("data-drawn", "1")

            # The incident page links to its problem and its host.
            page.goto(f"{live_server.url}/incidents/{ids[0]}/")
            expect(page.locator("#fleet-panel")).to_contain_text("Problem #")
            page.locator("#first-failure a[href=\"/fleet/hosts/node-b/\"]").click()
            page.wait_for_url(re.compile(r"/fleet/hosts/node-b/$"))
            # ... and a GPU of the ranks table to that GPU's page, found through the snapshot.
            page.go_back()
            page.locator("#ranks a[href=\"/fleet/hosts/node-b/gpus/dev:3/\"]").click()
            page.wait_for_url(re.compile(r"/fleet/hosts/node-b/gpus/uuid:GPU-[^/]+/$"))
            expect(page.locator("#gpu-incidents tbody tr")).to_have_count(3)
        finally:
            browser.close()
    assert errors == []
