"""The pages at phone width (390×844) and desktop width (1,440×900), light and dark, in Debian's
Chromium: on the demo data (`loaddemo`'s fleet story) and on a real log uploaded through the
page. Nothing may be wider than the screen; the navigation, the list (cards on a phone), the
sticky verdict, the workflow and the timeline (scrolling sideways at its readable width) must be
there. Screenshots go to test-artifacts/responsive/ (gitignored) for people to look at; they are
not compared pixel by pixel (fonts and Plotly's anti-aliasing differ from machine to machine).
Every wait is on a condition, never a fixed sleep."""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import CORPUS, REPO, join_team, launch_chromium, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ARTIFACTS = REPO / "test-artifacts" / "responsive"
SIZES = {"phone": (390, 844), "desktop": (1440, 900)}
# A real log (corpus case with a known cause): its verdict names host, GPU and rank.
REAL_LOG = CORPUS / "nccl-1235" / "log.txt"


@pytest.fixture
def demo(media_root: Path) -> dict[str, Any]:
    """Two scenario incidents and the fleet story (a regression, a drain, a wandering job)."""
    from triage.fleet.models import Problem, WanderFlag
    from triage.incidents.demo import demo_fleet_load, demo_incidents_load

    demo_incidents_load(causes=["collective_timeout_straggler"])
    story = demo_fleet_load()
    regression = Problem.objects.get(regression=True)
    assert WanderFlag.objects.filter(active=True).exists()
    return {"incident": story[1], "problem": regression}


def no_overflow(page: Any, what: str) -> None:
    """Nothing on the page is wider than the viewport (no sideways scrolling of the page)."""
    widths = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth,"
                           " document.body.scrollWidth]")
    assert widths[0] <= widths[1] and widths[2] <= widths[1], f"{what}: page {widths[0]} px wide in a {widths[1]} px viewport"


def shot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=False)


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("size", list(SIZES))
def test_pages_fit_the_screen(
    live_server: Any, django_user_model: Any, demo: dict[str, Any], chromium_path: str,
    monkeypatch: pytest.MonkeyPatch, size: str, scheme: str,
) -> None:
    from playwright.sync_api import expect, sync_playwright

    join_team(django_user_model.objects.create_user("sre", password="correct horse"))
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    width, height = SIZES[size]
    phone = size == "phone"
    tag = f"{size}-{scheme}"
    errors: list[str] = []
    with sync_playwright() as p:
        browser = launch_chromium(p, chromium_path)
        try:
            context = browser.new_context(viewport={"width": width, "height": height}, color_scheme=scheme,
                                          device_scale_factor=1, is_mobile=phone, has_touch=phone)
            page = context.new_page()
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.goto(f"{live_server.url}/")
            sign_in(page)

            # The list: every nav link on screen; on a phone the rows are cards (no table header).
            table = page.locator("#incident-table")
            expect(table).to_be_visible()
            for link in ("Incidents", "Fleet", "Upload logs"):
                expect(page.locator(".topbar nav").get_by_text(link, exact=True)).to_be_in_viewport()
            expect(table.locator("thead")).to_be_hidden() if phone else expect(table.locator("thead")).to_be_visible()
            first = table.locator("tbody tr").first
            expect(first.locator("time.when")).to_have_text(re.compile(r"ago|just now"))
            dark = page.evaluate("() => matchMedia('(prefers-color-scheme: dark)').matches")
            assert dark == (scheme == "dark")
            no_overflow(page, f"list {tag}")
            shot(page, f"list-{tag}")

            # A demo incident: the sticky verdict bar stays on screen while scrolling to the end.
            incident = demo["incident"]
            page.goto(f"{live_server.url}/incidents/{incident.pk}/")
            expect(page.locator("#verdict")).to_contain_text("hardware_fault")
            page.wait_for_function("() => window.__timelineDrawn === true", timeout=60_000)
            no_overflow(page, f"incident {tag}")
            timeline = page.locator("#rank-timeline")
            box = timeline.bounding_box()
            assert box is not None and box["width"] >= 700, f"timeline squeezed to {box}"
            if phone:
                scroller = page.evaluate("() => { const s = document.querySelector('.timeline-scroll');"
                                         " return [s.scrollWidth, s.clientWidth]; }")
                assert scroller[0] > scroller[1], "the timeline scrolls sideways on a phone"
            expect(page.locator("#workflow")).to_contain_text("Seen before")
            shot(page, f"incident-{tag}")
            page.locator("#timeline").scroll_into_view_if_needed()
            shot(page, f"timeline-{tag}")
            page.evaluate("() => window.scrollTo(0, document.body.scrollHeight)")
            expect(page.locator("#verdict-bar")).to_be_in_viewport()
            expect(page.locator("#verdict-bar")).to_contain_text("node-b GPU 3")

            # The log viewer: long lines scroll inside their box, not the page.
            page.locator("#findings a.evidence").first.click()
            page.wait_for_url(re.compile(r"/log\?source="))
            expect(page.locator("tr.target")).to_have_count(1)
            no_overflow(page, f"log {tag}")
            shot(page, f"log-{tag}")

            # Fleet, with the wander flag, the drain and "Causes by day" over several days.
            page.goto(f"{live_server.url}/fleet/")
            expect(page.locator("#wander")).to_contain_text("failures wander across nodes")
            expect(page.locator("#drain")).to_contain_text("node-b")
            expect(page.locator("#cause-chart")).to_have_attribute("data-drawn", re.compile(r"^\d+$"))
            no_overflow(page, f"fleet {tag}")
            shot(page, f"fleet-{tag}")
            page.goto(f"{live_server.url}/fleet/problems/{demo['problem'].pk}/")
            expect(page.locator("#regression")).to_be_visible()
            expect(page.locator("#problem-resolution")).to_contain_text("reseated GPU 3")
            no_overflow(page, f"problem {tag}")
            shot(page, f"problem-{tag}")

            # A real log uploaded through the page at this size.
            page.goto(f"{live_server.url}/upload")
            no_overflow(page, f"upload {tag}")
            page.set_input_files("#id_files", str(REAL_LOG))
            page.click("#upload-submit")
            page.wait_for_url(re.compile(r"/incidents/\w+/$"), timeout=60_000)
            expect(page.locator("#verdict")).to_contain_text("oom", timeout=60_000)
            expect(page.locator("h1")).to_have_text("Out of memory on ng30903 GPU 3")
            page.wait_for_function("() => window.__timelineDrawn === true", timeout=60_000)
            no_overflow(page, f"uploaded incident {tag}")
            shot(page, f"upload-{tag}")
        finally:
            browser.close()
    assert errors == []


def test_keys_zone_and_dark_markers(
    live_server: Any, django_user_model: Any, demo: dict[str, Any], chromium_path: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """j / k walk the list and Enter opens the row; the zone setting changes every time shown
    (UTC on hover); in dark mode the first-error star is drawn light, not black."""
    from playwright.sync_api import expect, sync_playwright

    join_team(django_user_model.objects.create_user("sre", password="correct horse"))
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    errors: list[str] = []
    with sync_playwright() as p:
        browser = launch_chromium(p, chromium_path)
        try:
            context = browser.new_context(viewport={"width": 1440, "height": 900}, color_scheme="dark",
                                          timezone_id="Europe/Berlin")
            page = context.new_page()
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(f"{live_server.url}/")
            sign_in(page)
            rows = page.locator("#incident-table tbody tr")
            expect(rows.first).to_be_visible()
            for url in (f"/incidents/{demo['incident'].pk}/", "/fleet/", f"/fleet/problems/{demo['problem'].pk}/", "/"):
                page.goto(f"{live_server.url}{url}")
                for width in (700, 701, 800, 1024, 1100):  # the widths around the layout's breakpoints
                    page.set_viewport_size({"width": width, "height": 900})
                    page.wait_for_function(f"() => window.innerWidth === {width}")
                    no_overflow(page, f"{url} at {width} px")
                page.set_viewport_size({"width": 1440, "height": 900})
            expect(rows.first).to_be_visible()
            page.keyboard.press("j")
            expect(rows.nth(0)).to_have_class(re.compile(r"\bcurrent\b"))
            page.keyboard.press("j")
            page.keyboard.press("j")
            page.keyboard.press("k")
            expect(rows.nth(1)).to_have_class(re.compile(r"\bcurrent\b"))
            expect(rows.nth(0)).not_to_have_class(re.compile(r"\bcurrent\b"))
            target = rows.nth(1).locator("a").first.get_attribute("href")
            page.keyboard.press("Enter")
            page.wait_for_url(f"{live_server.url}{target}")

            # The creation time: the browser's zone by default, Tokyo once chosen, UTC on hover.
            created = page.locator(".incident-head time.when")
            expect(created).to_have_text(re.compile(r"GMT\+1|CET"))
            assert created.get_attribute("title").endswith(" UTC")
            page.select_option("#tz-select", "Asia/Tokyo")
            expect(created).to_have_text(re.compile(r"GMT\+9|JST"))
            page.reload()
            expect(created).to_have_text(re.compile(r"GMT\+9|JST"))
            page.select_option("#tz-select", "UTC")
            expect(created).to_have_text(re.compile(r"UTC"))

            page.goto(f"{live_server.url}/incidents/{demo['incident'].pk}/")
            page.wait_for_function("() => window.__timelineDrawn === true", timeout=60_000)
            colours = page.evaluate("() => document.getElementById('rank-timeline').data"
                                    ".filter(t => t.name && t.name.startsWith('first error')).map(t => t.marker.color)")
            assert colours and all(c.lower() != "#000000" for c in colours), colours
            strip = page.evaluate("() => { const l = document.getElementById('rank-timeline').layout;"
                                  " return l.yaxis3 ? [l.yaxis3.title.text, (l.yaxis3.ticktext || []).length] : null; }")
            if strip is not None:  # the demo bundle carries NVML samples when the scenario writes them
                assert strip[0] == "GPU util %" and strip[1] > 0
        finally:
            browser.close()
    assert errors == []


def test_causes_by_day_with_a_single_incident(
    live_server: Any, django_user_model: Any, media_root: Path, chromium_path: str, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """One incident on one day: a column on an axis a few days wide, not a millisecond."""
    from playwright.sync_api import expect, sync_playwright

    from triage.incidents.demo import demo_incidents_load

    demo_incidents_load(causes=["oom"])
    join_team(django_user_model.objects.create_user("sre", password="correct horse"))
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    with sync_playwright() as p:
        browser = launch_chromium(p, chromium_path)
        try:
            page = browser.new_page(viewport={"width": 390, "height": 844})
            page.goto(f"{live_server.url}/fleet/")
            sign_in(page)
            expect(page.locator("#cause-chart")).to_have_attribute("data-drawn", "1")
            span_days = page.evaluate("() => { const r = document.getElementById('cause-chart').layout.xaxis.range;"
                                      " return (new Date(r[1]) - new Date(r[0])) / 86400000; }")
            assert 1.5 <= span_days <= 3.5, span_days
            ticks = page.evaluate("() => Array.from(document.querySelectorAll('#cause-chart .xtick text'), t => t.textContent)")
            assert ticks and not any(re.search(r"\d\d:\d\d:\d\d\.\d", t) for t in ticks), ticks
            no_overflow(page, "fleet with one incident")
            shot(page, "fleet-one-incident-phone-light")
        finally:
            browser.close()
