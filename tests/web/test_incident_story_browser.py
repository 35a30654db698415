"""The incident page tells the whole story, in real Chromium, on real bundles (issue 11).

Bundles: a real torchrun/gloo job laid out as torchrun's --log-dir writes it, one real corpus log
(a single process, no rank), a desync bundle with sub-second glog times, an OOM bundle whose
survivors waited ten minutes in an all-reduce, and a rank crash with a token next to the bug.
Screenshots go to test-artifacts/ (described in docs/dashboard.md).
"""
from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.conftest import join_team, launch_chromium, sign_in
from tests.web import story_bundles

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
PASSWORD = "correct horse battery"


@pytest.fixture(scope="module")
def bundles(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("story")
    torchrun = story_bundles.torchrun_logdir_bundle(out)
    return {
        "torchrun": torchrun,
        "collector": story_bundles.collector_bundle(torchrun, out),
        "single": story_bundles.single_log(out),
        "desync": story_bundles.desync_bundle(out),
        "oom": story_bundles.oom_bundle(out),
        "crash": story_bundles.crash_bundle(out),
    }


@pytest.fixture(scope="module")
def browser(chromium_path_module: str) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    # Playwright's sync API keeps an event loop in this thread for the whole module; the live
    # server (another thread) does the page work, and this thread's database calls (ingest,
    # the flush between tests) are plain synchronous code.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as p:
            b = launch_chromium(p, chromium_path_module)
            yield b
            b.close()
    finally:
        os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)


@pytest.fixture(scope="module")
def chromium_path_module() -> str:
    import shutil

    path = shutil.which("chromium")
    if path is None:
        pytest.fail("Debian's chromium is not installed: run `make chromium` (scripts/ensure-chromium)")
    return path


class Session:
    """A signed-in browser context that records page errors and failed responses."""

    def __init__(self, browser: Any, base: str, *, dark: bool = False) -> None:
        self.base = base
        self.context = browser.new_context(viewport={"width": 1400, "height": 900},
                                           color_scheme="dark" if dark else "light")
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.server_errors: list[str] = []
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("response", lambda r: self.server_errors.append(r.url) if r.status >= 500 else None)
        self.page.goto(f"{base}/accounts/login/?next=/")
        sign_in(self.page, password=PASSWORD)
        self.page.wait_for_url(re.compile(r"/$"))

    def incident(self, incident: Any) -> Any:
        self.page.goto(f"{self.base}/incidents/{incident.pk}/")
        self.page.wait_for_function("() => window.__timelineDrawn === true", timeout=20_000)
        return self.page

    def figure(self, incident: Any) -> dict[str, Any]:
        response = self.page.request.get(f"{self.base}/incidents/{incident.pk}/timeline.json")
        assert response.status == 200, response.text()[:300]
        return response.json()

    def shot(self, name: str, *, full: bool = True, part: str | None = None) -> Path:
        ARTIFACTS.mkdir(exist_ok=True)
        path = ARTIFACTS / f"issue11-{name}.png"
        if part:
            self.page.locator(part).screenshot(path=str(path))
        else:
            self.page.screenshot(path=str(path), full_page=full)
        assert path.stat().st_size > 10_000
        return path

    def close(self) -> None:
        self.context.close()
        assert self.errors == [], self.errors
        assert self.server_errors == [], self.server_errors


@pytest.fixture
def site(live_server: Any, django_user_model: Any, media_root: Path, browser: Any) -> str:
    join_team(django_user_model.objects.create_user("sre", password=PASSWORD))
    return live_server.url


@pytest.fixture
def session(browser: Any, site: str) -> Iterator[Session]:
    s = Session(browser, site)
    yield s
    s.close()


def ingest(path: Path, *, job: str, host: str = "", title: str = "") -> Any:
    from triage.incidents.services import incident_ingest, incoming_from_path

    with incoming_from_path(path) as incoming:
        incident, _ = incident_ingest(bundles=[incoming], job=job, host=host, title=title)
    incident.refresh_from_db()
    assert incident.status == "ready", incident.error
    return incident


def trace_names(page: Any) -> list[str]:
    return page.evaluate("document.getElementById('rank-timeline').data.map(t => t.name || '')")


# --- 1. Redaction shows the bug and hides the secret -------------------------------------------

def test_redaction_keeps_the_keyerror_and_hides_the_token(session: Session, bundles: dict[str, Path]) -> None:
    incident = ingest(bundles["crash"], job="crash")
    page = session.incident(incident)
    assert "KeyError: 'input_ids'" in page.locator("#verdict").inner_text()
    # (6) The traceback line has no time of its own: the card gives the error file's, as an estimate.
    when = page.locator("#ff-time").inner_text()
    assert "about" in when and "estimated" in when and "error-7.json" in when, when
    assert "[redacted]" not in page.locator("#verdict").inner_text()
    page.goto(f"{session.base}/")
    assert "KeyError: 'input_ids'" in page.locator("table.incidents").inner_text()
    page.goto(f"{session.base}/incidents/{incident.pk}/log?source=crash/crash/node-a/job-env.txt")
    log = page.locator("#log").inner_text()
    assert "HF_TOKEN=[redacted]" in log and "TOKENIZERS_PARALLELISM=false" in log
    assert story_bundles.HF_TOKEN not in page.content()


# --- 2. A real torchrun bundle: no 500, folder names are not hosts ----------------------------

def test_a_torchrun_log_dir_bundle_draws_with_one_host(session: Session, bundles: dict[str, Path]) -> None:
    incident = ingest(bundles["torchrun"], job="gloo", host="node-x")
    page = session.incident(incident)
    figure = session.figure(incident)
    labels = figure["layout"]["meta"]["labels"]
    assert labels, "no rows"
    hosts = {label.split(" · ")[0] for label in labels}
    assert hosts <= {"node-x", "unknown host"}, hosts
    for bad in ("localhost", "attempt_0", "none_k2j1x9"):
        assert all(bad not in label for label in labels)
    table_hosts = set(page.locator("#ranks tbody tr td:nth-child(2)").all_inner_texts())
    assert table_hosts <= {"node-x", "?"}, table_hosts
    assert not ({"0", "1", "2", "localhost"} & table_hosts)
    assert "rank_crash" in page.locator("#verdict").inner_text()
    # Packed by the collector with --host node-x: still one machine, named node-x.
    collected = ingest(bundles["collector"], job="gloo-collector")
    labels = session.figure(collected)["layout"]["meta"]["labels"]
    assert labels and {label.split(" · ")[0] for label in labels} == {"node-x"}, labels
    assert collected.first_failure["host"] == "node-x"
    session.shot("torchrun-gloo")
    session.shot("torchrun-gloo-timeline", part="#timeline")


# --- 3. Sub-second times end to end -----------------------------------------------------------

def test_a_desync_with_sub_second_times_is_spread_over_its_milliseconds(session: Session, bundles: dict[str, Path]) -> None:
    incident = ingest(bundles["desync"], job="desync")
    ff = incident.first_failure
    assert ff["time"] == "2026-08-16T20:39:36.736842"  # the evidence line's own microseconds
    timeline = incident.diagnosis.data["timeline"]
    starts = {r["rank"]: r["start"] for r in timeline["ranks"] if r["rank"] is not None}
    assert len(set(starts.values())) == 8, starts  # eight ranks, eight instants
    page = session.incident(incident)
    assert "20:39:36.736842" in page.locator("#ff-time").inner_text()
    # The x axis is chosen from the data: seconds wide, not minutes, and ticks finer than a second.
    lo, hi = page.evaluate("document.getElementById('rank-timeline')._fullLayout.xaxis.range")
    span = page.evaluate(f"(new Date('{hi}'.replace(' ', 'T')+'Z') - new Date('{lo}'.replace(' ', 'T')+'Z'))")
    assert 0 < span < 15 * 60 * 1000
    # Rank 6 logged its watchdog: it is never drawn silent.
    rows = page.evaluate("document.getElementById('rank-timeline').layout.meta.labels")
    row6 = next(i for i, label in enumerate(rows) if label.endswith("rank 6"))
    silent_rows = page.evaluate("""() => { const gd = document.getElementById('rank-timeline');
        return gd.data.filter(t => (t.name || '').startsWith('silent')).flatMap(t => Array.from(t.y || []));}""")
    assert row6 not in silent_rows
    # The event markers of the eight watchdogs are at eight distinct instants.
    xs = page.evaluate("""() => { const gd = document.getElementById('rank-timeline');
        const t = gd._fullData.find(t => (t.name || '').startsWith('watchdog timeout'));
        return Array.from(t.x); }""")
    assert len(set(xs)) >= 8  # each rank's own instant (and the teardown lines after)
    session.shot("desync-subsecond")
    session.shot("desync-subsecond-timeline", part="#timeline")
    session.shot("desync-first-failure", part="#first-failure")


# --- 4. Ranks blocked in a collective ---------------------------------------------------------

def test_ranks_waiting_in_the_all_reduce_are_drawn_blocked_not_running(session: Session, bundles: dict[str, Path]) -> None:
    incident = ingest(bundles["oom"], job="oom")
    page = session.incident(incident)
    names = trace_names(page)
    assert "blocked in a collective" in names
    blocked_rows = page.evaluate("""() => { const gd = document.getElementById('rank-timeline');
        const t = gd.data.find(t => t.name === 'blocked in a collective');
        return [...new Set(Array.from(t.y).filter(y => y !== null))]; }""")
    assert len(blocked_rows) == 7
    # Ten minutes long: the watchdog's "ran for 600 s".
    timeline = incident.diagnosis.data["timeline"]
    spans = [s for r in timeline["ranks"] for s in r["segments"] if s["state"] == "blocked"]
    from datetime import datetime
    assert all(590 <= (datetime.fromisoformat(s["end"]) - datetime.fromisoformat(s["start"])).total_seconds() <= 610
               for s in spans)
    # The sequence panel counts whole collectives.
    ticks = page.locator("#rank-timeline .x2tick text").all_text_contents()
    assert ticks and all(re.fullmatch(r"[\d,]+", t) for t in ticks), ticks
    session.shot("oom-blocked", part="#timeline")


# --- 5 & 6 & 7. A single real log: rows, a complete first-failure card, filled fixes -----------

def test_a_single_log_has_a_row_a_full_first_failure_card_and_filled_commands(
    session: Session, bundles: dict[str, Path]
) -> None:
    incident = ingest(bundles["single"], job="trtllm")
    page = session.incident(incident)
    labels = session.figure(incident)["layout"]["meta"]["labels"]
    # The row is the card's process: labelled by the rank the card infers, else by its pid.
    assert any(label.startswith("VM-0-16-ubuntu · GPU 2 · ") and ("pid 392" in label or "rank 2" in label)
               for label in labels), labels
    ticks = page.locator("#rank-timeline .ytick text").all_text_contents()
    assert any("VM-0-16-ubuntu" in t for t in ticks)
    # The card says what is known and plainly what is not.
    assert "VM-0-16-ubuntu" in page.locator("#ff-host").inner_text()
    assert "392" in page.locator("#ff-pid").inner_text()
    assert "CUDA device 2" in page.locator("#ff-gpu").inner_text()
    # No line names a rank: the card says so, or shows the engine's inference as one.
    said = page.locator("#ff-rank").inner_text()
    assert "not named in the logs" in said or ("inferred" in said and "names no rank" in said), said
    assert page.locator("#ff-time").inner_text().strip()
    # The OOM fix (the catalog entry's for NCCL's own allocation): nvidia-smi for GPU 2; copy
    # buttons only on commands.
    commands = page.locator("#verdict .fix button.copy")
    copies = [commands.nth(i).get_attribute("data-copy") or "" for i in range(commands.count())]
    assert any(c.startswith("nvidia-smi --query-") and c.endswith("-i 2") for c in copies), copies
    assert all(not re.match(r"^[A-Z][a-z]+ [a-z]", c) for c in copies), copies
    assert "Free memory" in page.locator("#verdict .fix").inner_text()
    assert page.locator("#verdict .fix .cmd:has-text('Free memory')").count() == 0
    commands.first.click()
    # The label changes when the clipboard promise settles, so wait for it rather than read once.
    expect(commands.first).to_have_text("copied", timeout=5000)
    session.shot("single-log")
    session.shot("single-log-timeline", part="#timeline")
    session.shot("single-log-card-and-fix", part="#verdict")


def test_the_straggler_fix_names_the_pid_and_the_card_the_gpu(session: Session, bundles: dict[str, Path]) -> None:
    incident = ingest(bundles["desync"], job="desync-fix")
    page = session.incident(incident)
    card = page.locator("#first-failure").inner_text()
    assert "gpu-128" in card and "200880" in card and "CUDA device 3" in card
    copies = page.locator("#verdict .fix button.copy").evaluate_all("bs => bs.map(b => b.dataset.copy)")
    # The lagging rank's own pid, filled in (with a comment saying whose it is).
    assert any(c.split("#")[0].strip() == "py-spy dump --pid 200880" for c in copies), copies
    # The closing sentence of the fix is prose, not a command.
    assert not any(c.startswith("Raise the timeout") for c in copies)


# --- 8. The list helps triage -----------------------------------------------------------------

def test_the_list_shows_where_it_failed_and_searches_log_lines(session: Session, bundles: dict[str, Path]) -> None:
    single = ingest(bundles["single"], job="trtllm-list", title="TRT-LLM serving crash")
    ingest(bundles["desync"], job="desync-list")
    page = session.page
    page.goto(f"{session.base}/")
    row = page.locator("table.incidents tr", has_text="TRT-LLM serving crash")
    assert "VM-0-16-ubuntu" in row.locator("td.ff").inner_text() and "GPU 2" in row.locator("td.ff").inner_text()
    assert "cause-oom" in (row.locator("span.cause").get_attribute("class") or "")
    # A phrase from a log line (not in any title, job or summary) finds its incident.
    page.fill("input[data-search]", "enqueue.cc:43")
    page.press("input[data-search]", "Enter")
    page.wait_for_url(re.compile(r"q=enqueue"))
    found = page.locator("table.incidents tbody tr").all_inner_texts()
    assert len(found) == 1 and "TRT-LLM serving crash" in found[0]
    session.shot("list")
    # Title and job edited on the incident page.
    session.incident(single)
    page.click("#edit-incident summary")
    page.fill("#edit-title", "vLLM OOM on VM-0-16")
    page.fill("#edit-job", "job-4242")
    page.click("#edit-incident button[type=submit]")
    page.wait_for_selector("h1:has-text('vLLM OOM on VM-0-16')")
    assert "job-4242" in page.locator(".incident-head .meta").inner_text()


def test_a_title_can_be_given_on_upload(session: Session, bundles: dict[str, Path]) -> None:
    page = session.page
    page.goto(f"{session.base}/upload")
    page.set_input_files("#id_files", str(bundles["single"]))
    page.fill("#id_title", "Named at upload")
    page.click("#upload-submit")
    page.wait_for_url(re.compile(r"/incidents/\w+/$"), timeout=60_000)
    assert page.locator("h1").inner_text() == "Named at upload"


# --- 9. The log viewer ------------------------------------------------------------------------

def test_the_log_viewer_wraps_finds_colours_and_clamps(session: Session, bundles: dict[str, Path]) -> None:
    incident = ingest(bundles["desync"], job="desync-log")
    page = session.page
    source = "desync/desync/gpu-128/torchrun.log"
    page.goto(f"{session.base}/incidents/{incident.pk}/log?source={source}")
    cell = page.locator("#log td.tx").first
    assert cell.evaluate("c => getComputedStyle(c).whiteSpace") == "pre"
    page.check("#wrap-toggle")
    assert cell.evaluate("c => getComputedStyle(c).whiteSpace") == "pre-wrap"
    assert page.locator("#log td.tx.lvl-error").count() >= 4  # the watchdog lines
    page.fill("#log-find", "BROADCAST")
    page.press("#log-find", "Enter")
    page.wait_for_url(re.compile(r"find=BROADCAST"))
    target = page.locator("#log tr.target")
    assert "BROADCAST" in target.inner_text()
    assert page.locator("#log mark").first.inner_text() == "BROADCAST"
    session.shot("log-viewer", full=False)
    # Wrapping is remembered.
    page.goto(f"{session.base}/incidents/{incident.pk}/log?source={source}")
    assert page.locator("#wrap-toggle").is_checked()
    # A line past the end shows the last page, never "lines 24–23".
    page.goto(f"{session.base}/incidents/{incident.pk}/log?source={source}&line=99999")
    meta = page.locator("p.meta").inner_text()
    first, last = map(int, re.search(r"lines (\d+)–(\d+)", meta).groups())
    assert first <= last
    assert "past the end" in page.locator("#past-end").inner_text()


# --- 10. The small things ---------------------------------------------------------------------

def test_toolbar_share_keys_and_no_chart_studio(session: Session, bundles: dict[str, Path]) -> None:
    incident = ingest(bundles["desync"], job="desync-small")
    page = session.incident(incident)
    page.hover("#rank-timeline .nsewdrag")  # the toolbar shows on hover
    titles = page.locator("#rank-timeline .modebar-btn").evaluate_all("bs => bs.map(b => b.dataset.title)")
    assert any("png" in (t or "").lower() for t in titles), titles  # the toolbar is there ...
    assert not any("share chart" in (t or "").lower() or "chart studio" in (t or "").lower() for t in titles), titles
    modebar = page.locator("#rank-timeline .modebar").bounding_box()
    legend = page.locator("#rank-timeline .legend").bounding_box()
    assert modebar and legend
    overlap = not (modebar["y"] + modebar["height"] <= legend["y"] or legend["y"] + legend["height"] <= modebar["y"]
                   or modebar["x"] + modebar["width"] <= legend["x"] or legend["x"] + legend["width"] <= modebar["x"])
    assert not overlap
    share = page.locator("#share-top")
    assert share.is_visible() and share.bounding_box()["y"] < 200
    share.click()
    # The page focuses the form's select on the next tick (after the jump to #sharing): wait for it.
    expect(page.locator("#share-form select")).to_be_focused(timeout=5000)
    # j / k step through the findings, "/" jumps to search.
    page.locator("body").click(position={"x": 5, "y": 300})
    page.keyboard.press("j")
    assert page.evaluate("document.querySelector('article.finding.current').id") == "finding-1"
    page.keyboard.press("j")
    assert page.evaluate("document.querySelector('article.finding.current').id") == "finding-2"
    page.keyboard.press("k")
    assert page.evaluate("document.querySelector('article.finding.current').id") == "finding-1"
    page.keyboard.press("/")
    assert page.evaluate("document.activeElement.id") == "topbar-search"


def test_dark_mode_follows_the_system(browser: Any, site: str, bundles: dict[str, Path]) -> None:
    incident = ingest(bundles["oom"], job="oom-dark")
    dark = Session(browser, site, dark=True)
    try:
        page = dark.incident(incident)
        background = page.evaluate("getComputedStyle(document.body).backgroundColor")
        assert background == "rgb(15, 20, 26)", background
        paper = page.evaluate("document.getElementById('rank-timeline')._fullLayout.paper_bgcolor")
        assert paper == "#171e26"
        dark.shot("dark-mode", full=False)
    finally:
        dark.close()
