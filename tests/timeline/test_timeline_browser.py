"""The timeline page in headless Chromium, under a strict CSP, with nothing leaving localhost."""
from __future__ import annotations

import shutil
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest
from timeline_harness import ROOT, chromium_launch_args, serve

from triage.timeline.synthetic import make_timeline

playwright_sync = pytest.importorskip("playwright.sync_api")
pytestmark = pytest.mark.skipif(shutil.which("chromium") is None, reason="chromium not installed (make chromium)")

ARTIFACTS = ROOT / "test-artifacts"
LOCAL_HOSTS = {"127.0.0.1", "localhost"}


def hostile_timeline() -> dict[str, Any]:
    """8 ranks on 2 hosts; rank 3's last line tries to inject HTML into the hover."""
    timeline = make_timeline(8, 2, 6)
    timeline["ranks"][3]["last_line"]["text"] = '<img src=x onerror="window.__pwned=1"><b>bold</b> & more'
    timeline["events"][0]["text"] = "<script>window.__pwned=1</script>"
    return timeline


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    with serve({"small": hostile_timeline(), "seq": make_timeline(16, 2, 4, axis="sequence")}) as base:
        yield base


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with playwright_sync.sync_playwright() as p:
        b = p.chromium.launch(**chromium_launch_args())
        yield b
        b.close()


class Page:
    """A page that records console errors, page errors and any request leaving localhost."""

    def __init__(self, browser: Any) -> None:
        self.context = browser.new_context(viewport={"width": 1400, "height": 900})
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.outside: list[str] = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.route("**/*", self._route)

    def _route(self, route: Any) -> None:
        host = urlsplit(route.request.url).hostname
        if route.request.url.startswith(("data:", "blob:")) or host in LOCAL_HOSTS:
            route.continue_()
        else:
            self.outside.append(route.request.url)
            route.abort()

    def open(self, url: str) -> Any:
        self.page.goto(url)
        self.page.wait_for_function("() => window.__timelineDrawn === true", timeout=15_000)
        return self.page

    def close(self) -> None:
        self.context.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Page]:
    p = Page(browser)
    yield p
    p.close()


def test_it_draws_the_timeline_with_no_errors_and_nothing_leaving_localhost(site: str, page: Page) -> None:
    pg = page.open(f"{site}/small/")
    ARTIFACTS.mkdir(exist_ok=True)
    pg.screenshot(path=str(ARTIFACTS / "timeline-8-ranks.png"), full_page=True)
    assert (ARTIFACTS / "timeline-8-ranks.png").stat().st_size > 10_000

    assert page.errors == []
    assert page.outside == []
    # WebGL traces really drew (scattergl uses a GL canvas, not SVG paths).
    assert pg.locator("#rank-timeline canvas.gl-canvas-context").count() == 1
    # Plotly reports a failed WebGL start (e.g. eval blocked by the CSP) only as this text.
    assert pg.get_by_text("WebGL is not supported").count() == 0
    assert "scattergl" in pg.evaluate("document.getElementById('rank-timeline').data.map(t => t.type)")


def test_it_marks_the_silent_rank(site: str, page: Page) -> None:
    pg = page.open(f"{site}/small/")
    annotation = pg.locator("#rank-timeline .annotation-text").first.text_content() or ""
    assert "rank 3 (node-000 GPU 3) silent since" in annotation
    ticks = pg.locator("#rank-timeline .ytick text").all_text_contents()
    assert "▶ node-000 · GPU 3 · rank 3" in ticks
    assert pg.locator("#rank-timeline path[data-index]").count() >= 1  # shapes (bands, line) drawn


def hover_point(pg: Any, trace_prefix: str) -> str:
    """Move the real mouse onto the first point of a trace; return the hover label's text."""
    x, y = pg.evaluate("""(prefix) => {
        const gd = document.getElementById('rank-timeline');
        const t = gd._fullData.find(t => t.name.startsWith(prefix));
        const xa = gd._fullLayout[t.xaxis.replace('x', 'xaxis')], ya = gd._fullLayout[t.yaxis.replace('y', 'yaxis')];
        const box = gd.getBoundingClientRect();
        return [box.left + xa._offset + xa.d2p(t.x[0]), box.top + ya._offset + ya.d2p(t.y[0])];
    }""", trace_prefix)
    pg.mouse.move(x, y)
    pg.wait_for_selector("#rank-timeline .hoverlayer .hovertext", timeout=5_000)
    return pg.locator("#rank-timeline .hoverlayer").text_content() or ""


def test_it_never_renders_html_from_log_lines(site: str, page: Page) -> None:
    pg = page.open(f"{site}/small/")
    hover = hover_point(pg, "crashed:")
    assert "rank 3" in hover and "node-000" in hover
    # The markup arrives as literal text, not as an <img> or bold element.
    assert '<img src=x onerror="window.__pwned=1"><b>bold</b> & more' in hover
    assert pg.locator("#rank-timeline .hoverlayer img").count() == 0
    assert pg.evaluate("window.__pwned === undefined") is True
    assert page.errors == []


def test_event_hover_names_the_rank_it_belongs_to(site: str, page: Page) -> None:
    pg = page.open(f"{site}/small/")
    hover = hover_point(pg, "CUDA OOM")
    assert "CUDA OOM" in hover and "node-000 · GPU 3 · rank 3" in hover


def test_clicking_a_rank_opens_the_log_viewer_at_its_last_line(site: str, page: Page) -> None:
    pg = page.open(f"{site}/small/")
    with pg.expect_navigation():
        pg.evaluate("""() => {
            const gd = document.getElementById('rank-timeline');
            const i = gd.data.findIndex(t => t.name.startsWith('crashed:'));
            gd.emit('plotly_click', {points: [{curveNumber: i, pointNumber: 0, y: gd.data[i].y[0],
                                               customdata: undefined, data: gd.data[i]}]});
        }""")
    url = urlsplit(pg.url)
    assert url.path == "/log/"
    assert url.query == "source=node-000%2Frank3.log"
    assert url.fragment == "L-1018"


def test_it_offers_the_perfetto_trace(site: str, page: Page) -> None:
    pg = page.open(f"{site}/small/")
    link = pg.locator("a.timeline-trace-link")
    assert link.get_attribute("href") == "/small/trace.json"
    body = pg.evaluate("fetch('/small/trace.json').then(r => r.json())")
    assert body["displayTimeUnit"] == "ms"


def test_a_timeline_without_timestamps_says_so_on_its_axis(site: str, page: Page) -> None:
    pg = page.open(f"{site}/seq/")
    titles = " ".join(pg.locator("#rank-timeline .g-xtitle").all_text_contents())
    assert "collective sequence number (the logs have no timestamps)" in titles
    pg.screenshot(path=str(ARTIFACTS / "timeline-sequence-axis.png"), full_page=True)
    assert page.errors == []
