"""On call from a phone at 3 a.m., in Debian's Chromium at 390 px: every tap target on the list,
incident, fleet and upload pages is at least 44 × 44 px; and the whole story: an incident is
assigned to a new SRE, the team's Slack-compatible webhook receives it (signature verified with
the `standardwebhooks` library), the SRE opens the link it carries, acknowledges with a tap and
copies the drain command the page gives, whose text is checked."""
from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User

from tests.conftest import join_team, launch_chromium, sign_in
from tests.web.test_notifications import VerifyingReceiver
from tests.web.test_responsive_browser import demo  # noqa: F401 - a fixture
from tests.web.test_workflow import diagnosed, xid_bundle  # noqa: F401 - xid_bundle is a fixture
from triage.fleet.models import Webhook, new_webhook_secret
from triage.fleet.services import webhook_add

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 1, "is_mobile": True, "has_touch": True}
# Every element a person can tap, as the issue lists them; visible ones only (not inside a
# closed <details> or dialog, not display:none), wherever they are scrolled.
SMALL_TARGETS = """() => Array.from(document.querySelectorAll('a, button, input, select, summary, [role=button]'))
  .filter(el => el.type !== 'hidden' && el.checkVisibility({visibilityProperty: true}))
  .map(el => { const r = el.getBoundingClientRect();
    return {tag: el.tagName, id: el.id, cls: String(el.className), text: (el.textContent || el.value || '').trim().slice(0, 40),
            w: Math.round(r.width * 10) / 10, h: Math.round(r.height * 10) / 10}; })
  .filter(b => b.w < 44 || b.h < 44)"""


def signed_in_phone(browser: Any, url: str, username: str = "sre") -> Any:
    """A 390 px touch page that opened `url`, signed in through the login page and got back there."""
    page = browser.new_context(**PHONE).new_page()
    page.goto(url)
    sign_in(page, username)
    page.wait_for_url(url)
    return page


@pytest.fixture(autouse=True)
def loopback_webhooks(settings: Any) -> None:
    settings.TRIAGE_WEBHOOK_ALLOW_NETWORKS = ["127.0.0.1/32"]
    settings.TRIAGE_WEBHOOK_MAX_RETRIES = 0


def test_every_tap_target_is_at_least_44_px_on_a_phone(
    live_server: Any, demo: dict[str, Any], chromium_path: str, monkeypatch: pytest.MonkeyPatch,  # noqa: F811
) -> None:
    from playwright.sync_api import sync_playwright

    join_team(User.objects.create_user("sre", password="correct horse"), role="admin")
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    incident = demo["incident"]
    with sync_playwright() as p:
        browser = launch_chromium(p, chromium_path)
        try:
            page = signed_in_phone(browser, f"{live_server.url}/")
            small: dict[str, list[Any]] = {}
            for name, path, ready in (
                ("list", "/", "#incident-table"),
                ("incident", f"/incidents/{incident.pk}/", "#drain-host"),
                ("fleet", "/fleet/", "#drain"),
                ("upload", "/upload", "#upload-submit"),
            ):
                page.goto(f"{live_server.url}{path}")
                page.wait_for_selector(ready)
                if name == "incident":
                    page.wait_for_function("() => window.__timelineDrawn === true", timeout=60_000)
                if name == "fleet":
                    page.wait_for_selector("#cause-chart[data-drawn]")
                counted = page.evaluate("() => document.querySelectorAll('a, button, input, select, summary').length")
                assert counted > 5, f"{name}: nothing to measure"
                small[name] = page.evaluate(SMALL_TARGETS)
            assert small == {"list": [], "incident": [], "fleet": [], "upload": []}
            # "?" shows the keyboard shortcuts; Escape closes them.
            page.goto(f"{live_server.url}/")
            help_box = page.locator("#shortcuts")
            assert not help_box.is_visible()
            page.keyboard.press("?")
            assert help_box.is_visible() and "j" in help_box.inner_text()
            page.keyboard.press("Escape")
            page.wait_for_function("() => !document.getElementById('shortcuts').open")
            # The verdict bar names where it failed before the title is cut.
            page.goto(f"{live_server.url}/incidents/{incident.pk}/")
            where = page.locator("#vb-where")
            assert where.inner_text() == "node-b GPU 3 · rank 7"
            box, bar = where.bounding_box(), page.locator("#verdict-bar").bounding_box()
            assert box is not None and bar is not None and box["x"] + box["width"] <= bar["x"] + bar["width"]
            assert page.locator("#ranks-hint").is_visible()
        finally:
            browser.close()


def test_a_new_sre_is_told_on_slack_acknowledges_on_a_phone_and_copies_the_drain_command(
    live_server: Any, media_root: Path, xid_bundle: Path, chromium_path: str,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from playwright.sync_api import expect, sync_playwright
    from standardwebhooks.webhooks import Webhook as StandardWebhook

    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    incident = diagnosed(xid_bundle, job="llama-70b")
    join_team(User.objects.create_user("lead", password="correct horse"))
    join_team(User.objects.create_user("sre", password="correct horse"))
    slack = VerifyingReceiver(new_webhook_secret()).start()
    webhook_add(team=incident.team, url=slack.url, secret=str(slack.secret), format=Webhook.Format.SLACK)
    try:
        with sync_playwright() as p:
            browser = launch_chromium(p, chromium_path)
            try:
                # The lead, at a desk, assigns the incident to the new SRE.
                lead = browser.new_context(viewport={"width": 1440, "height": 900}).new_page()
                lead.goto(f"{live_server.url}/incidents/{incident.pk}/")
                sign_in(lead, "lead")
                lead.wait_for_url(re.compile(r"/incidents/\w+/$"))
                lead.select_option("#wf-assignee-select", "sre")
                lead.click("#workflow-form button[type=submit]")
                expect(lead.locator("#wf-assignee")).to_have_text("sre")

                # Slack got it, signed: verified again here from what the receiver kept.
                [told] = slack.accepted("incident.assigned")
                message = StandardWebhook(slack.secret).verify(told.body, told.headers)
                assert list(message) == ["text"]
                assert "hardware_fault on node-b GPU 3, rank 7 — assigned to sre by lead" in message["text"]
                link = message["text"].split()[-1]
                assert link == f"{live_server.url}/incidents/{incident.pk}/"

                # The SRE's phone: the link from Slack, sign in, no zoom, tap Acknowledge.
                context = browser.new_context(**PHONE)
                context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server.url)
                phone = context.new_page()
                phone.goto(link)
                sign_in(phone)
                phone.wait_for_url(link)
                assert phone.evaluate("() => document.documentElement.scrollWidth") <= 390
                expect(phone.locator("#verdict-bar")).to_contain_text("node-b GPU 3 · rank 7")
                ack = phone.locator("#ack-button")
                box = ack.bounding_box()
                assert box is not None and box["width"] >= 44 and box["height"] >= 44
                ack.tap()
                expect(phone.locator("#wf-status")).to_have_text("acknowledged")
                assert phone.locator("#ack-button").count() == 0
                expect(phone.locator("#history")).to_contain_text("lead assigned it to sre")
                expect(phone.locator("#history")).to_contain_text("sre acknowledged it")
                acked = slack.accepted("incident.acknowledged")
                assert len(acked) == 1 and "acknowledged by sre" in acked[0].payload["text"]

                # The drain command the page gives, copied with a tap: the real host and reason.
                copy = phone.locator("#drain-host button.copy").first
                copy.scroll_into_view_if_needed()
                copy.tap()
                expect(copy).to_have_text("copied")
                copied = phone.evaluate("() => navigator.clipboard.readText()")
                assert copied == (f"scontrol update NodeName=node-b State=DRAIN "
                                  f"Reason='nccl-triage {incident.pk}: Xid 79 on node-b GPU 3 — job llama-70b'")
            finally:
                browser.close()
    finally:
        slack.stop()


def test_an_upload_can_be_cancelled_and_nothing_is_stored(
    live_server: Any, media_root: Path, chromium_path: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
) -> None:
    """The network throttled (Chromium's own emulation, 256 KiB/s up) so the upload is still
    going when "Cancel upload" is tapped: no incident, no bundle, and the page says so.

    Chromium's emulation paces the progress events, but over loopback the body may still reach
    the server at once (seen on an idle machine: the whole 8.7 MB upload was stored before the
    tap). So the server reads it as over a slow link too (1 MiB/s, sleeping per chunk the upload
    handler is given), and the file (about 49 MB) is larger than what the two loopback socket
    buffers can hold for it: most of it is still on the client when the tap aborts."""
    from playwright.sync_api import expect, sync_playwright

    from triage.incidents.models import Bundle, Incident
    from triage.incidents.uploads import HashingUploadHandler

    receive = HashingUploadHandler.receive_data_chunk

    def slow_link(self: HashingUploadHandler, raw_data: bytes, start: int) -> None:
        time.sleep(len(raw_data) / (1024 * 1024))
        return receive(self, raw_data, start)

    monkeypatch.setattr(HashingUploadHandler, "receive_data_chunk", slow_link)

    join_team(User.objects.create_user("sre", password="correct horse"))
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    big = tmp_path / "rank0.log"
    big.write_bytes(b"NCCL INFO nothing wrong here\n" * 1_700_000)  # about 49 MB
    with sync_playwright() as p:
        browser = launch_chromium(p, chromium_path)
        try:
            page = signed_in_phone(browser, f"{live_server.url}/upload")
            cdp = page.context.new_cdp_session(page)
            cdp.send("Network.enable")
            cdp.send("Network.emulateNetworkConditions", {"offline": False, "latency": 0,
                                                          "downloadThroughput": -1, "uploadThroughput": 256 * 1024})
            page.set_input_files("#id_files", str(big))
            assert page.locator("#upload-cancel").is_hidden()  # nothing to cancel yet
            page.locator("#upload-submit").tap()
            cancel = page.locator("#upload-cancel")
            expect(cancel).to_be_visible()
            expect(page.locator("#upload-progress-text")).to_contain_text("of")
            box = cancel.bounding_box()
            assert box is not None and box["width"] >= 44 and box["height"] >= 44
            cancel.tap()
            expect(page.locator("#upload-error")).to_contain_text("Upload cancelled: nothing was stored")
            expect(cancel).to_be_hidden()
            assert page.locator("#upload-submit").is_enabled()
        finally:
            browser.close()
    assert not Incident.objects.exists() and not Bundle.objects.exists()
    assert not list((media_root / "bundles").rglob("*.log")) if (media_root / "bundles").exists() else True
