"""What the browser gets: escaped log text and file names, secrets redacted, CSP and CSRF,
secure cookie/HSTS settings with DEBUG off; and retention."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from datetime import timedelta
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from tests.conftest import REPO, join_team, sample_log, tar_gz
from tests.security.helpers import files_under, team_incident
from triage.accounts.services import apitoken_create, sharelink_create
from triage.incidents.models import Bundle, Finding, Incident

pytestmark = pytest.mark.django_db

HOSTILE_LINE = b'<script>alert(1)</script> NCCL WARN <img src=x onerror=alert(2)> "quoted" \'single\''
HOSTILE_NAME = '<img src=x onerror=alert(3)>.log'
SECRETS = (
    b"export HF_TOKEN=hf_SeCrEt111\n"
    b"PASSWORD=SeCrEt222 python train.py\n"
    b"curl -H 'Authorization: Bearer SeCrEt333' http://x\n"
    b"python train.py --api-key SeCrEt444 --lr 0.1\n"
)


@pytest.fixture
def sre(client: Client, django_user_model: Any) -> Client:
    client.force_login(join_team(django_user_model.objects.create_user("sre"), team="sre"))
    return client


def test_log_lines_and_file_names_are_escaped_everywhere(sre: Client, media_root: Path, tmp_path: Path) -> None:
    path = tmp_path / "b.tar.gz"
    path.write_bytes(tar_gz({"node-a/log.txt": sample_log() + b"\n" + HOSTILE_LINE + b"\n"}))
    incident = team_incident(path, team="sre", title=HOSTILE_NAME)
    Bundle.objects.filter(incident=incident).update(original_name=HOSTILE_NAME)
    pages = {
        "list": sre.get("/").content.decode(),
        "page": sre.get(f"/incidents/{incident.pk}/").content.decode(),
        "log": sre.get(f"/incidents/{incident.pk}/log", {"source": "b/node-a/log.txt", "line": 1}).content.decode(),
    }
    for name, html in pages.items():
        assert "<script>alert" not in html and "<img src=x" not in html, name
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in pages["log"]
    assert "&lt;img src=x onerror=alert(3)&gt;.log" in pages["page"]
    # The timeline's hover and annotation strings are HTML-escaped before they reach plotly.
    figure = sre.get(f"/incidents/{incident.pk}/timeline.json").content.decode()
    assert "<script>alert" not in figure and "<img src=x" not in figure


def test_every_page_has_the_csp_and_no_inline_script(sre: Client, media_root: Path, shm_bundle: Path, settings: Any) -> None:
    incident = team_incident(shm_bundle, team="sre")
    _, secret = sharelink_create(incident=incident)
    for client, url in ((sre, "/"), (sre, "/upload"), (sre, f"/incidents/{incident.pk}/"),
                        (Client(), f"/s/{secret}/"), (Client(), "/accounts/login/")):
        response = client.get(url)
        assert response.status_code == 200, url
        assert response["Content-Security-Policy"] == settings.TRIAGE_CSP
        assert "script-src 'self';" in response["Content-Security-Policy"]
        html = response.content.decode()
        assert re.findall(r"<script(?![^>]*\bsrc=)[^>]*>", html) == [], url  # no inline <script>
        assert re.findall(r"\son[a-z]+\s*=", html) == [], url  # no inline handlers
        assert response["X-Frame-Options"] == "DENY"


def test_every_form_needs_the_csrf_token(media_root: Path, shm_bundle: Path, django_user_model: Any) -> None:
    incident = team_incident(shm_bundle, team="sre")
    link, _ = sharelink_create(incident=incident)
    client = Client(enforce_csrf_checks=True)
    user = join_team(django_user_model.objects.create_user("admin"), team="sre", role="admin")
    client.force_login(user)
    page = client.get(f"/incidents/{incident.pk}/").content.decode()
    assert page.count('name="csrfmiddlewaretoken"') >= 3  # share, revoke, reparse, sign out
    for url, data in (
        ("/upload", {"job": "x"}),
        (f"/incidents/{incident.pk}/reparse", {}),
        (f"/incidents/{incident.pk}/shares", {"expires_in": "86400"}),
        (f"/incidents/{incident.pk}/shares/{link.pk}/revoke", {}),
        ("/accounts/logout/", {}),
    ):
        assert client.post(url, data).status_code == 403, url
    link.refresh_from_db()
    assert link.revoked_at is None and incident.share_links.count() == 1


def test_with_debug_off_cookies_are_secure_and_hsts_is_on() -> None:
    script = (
        "import json; from django.conf import settings as s; print(json.dumps([s.SESSION_COOKIE_SECURE, "
        "s.CSRF_COOKIE_SECURE, s.SECURE_HSTS_SECONDS, s.SESSION_COOKIE_HTTPONLY, s.SECURE_CONTENT_TYPE_NOSNIFF]))"
    )
    env = {**os.environ, "DEBUG": "0", "SECRET_KEY": "x" * 50, "DJANGO_SETTINGS_MODULE": "triage.settings"}
    done = subprocess.run([sys.executable, "-c", f"import django; django.setup(); {script}"], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=60, check=True)
    secure_session, secure_csrf, hsts, httponly, nosniff = json.loads(done.stdout.strip().splitlines()[-1])
    assert secure_session and secure_csrf and httponly and nosniff
    assert hsts >= 180 * 86400


def test_secrets_are_redacted_in_every_view_but_kept_in_the_raw_file(
    sre: Client, media_root: Path, tmp_path: Path
) -> None:
    raw = tar_gz({"node-a/log.txt": SECRETS + sample_log()})
    path = tmp_path / "s.tar.gz"
    path.write_bytes(raw)
    incident = team_incident(path, team="sre")
    # Evidence quoting a secret (the engine cites whatever line it cites).
    Finding.objects.filter(incident=incident, position=0).update(
        evidence=[{"source": "s/node-a/log.txt", "line": 1, "text": "export HF_TOKEN=hf_SeCrEt111"}]
    )
    _, secret = sharelink_create(incident=incident)
    _, token = apitoken_create(name="reader", team=incident.team, scope="read")
    views = {
        "log": sre.get(f"/incidents/{incident.pk}/log", {"source": "s/node-a/log.txt", "line": 1}),
        "page": sre.get(f"/incidents/{incident.pk}/"),
        "shared page": Client().get(f"/s/{secret}/"),
        "shared log": Client().get(f"/s/{secret}/log", {"source": "s/node-a/log.txt", "line": 1}),
        "timeline": sre.get(f"/incidents/{incident.pk}/timeline.json"),
        "api": Client().get(f"/api/v1/incidents/{incident.pk}", headers={"Authorization": f"Bearer {token}"}),
    }
    for name, response in views.items():
        text = response.content.decode()
        assert response.status_code == 200, name
        assert "SeCrEt" not in text, name
    log = views["log"].content.decode()
    assert "HF_TOKEN=[redacted]" in log and "PASSWORD=[redacted]" in log
    assert "Bearer [redacted]" in log and "--api-key [redacted]" in log
    assert "HF_TOKEN=[redacted]" in views["page"].content.decode()  # the evidence line
    bundle = incident.bundles.get()
    download = sre.get(f"/incidents/{incident.pk}/bundles/{bundle.pk}/download")
    assert b"".join(download.streaming_content) == raw  # untouched, for team members only


def test_retention_prunes_old_incidents_rows_and_raw_files(media_root: Path, shm_bundle: Path, tmp_path: Path, settings: Any) -> None:
    old = team_incident(shm_bundle, team="sre", job="old")
    recent_log = tmp_path / "recent.log"
    recent_log.write_bytes(b"recent\n")
    recent = team_incident(recent_log, team="sre", job="recent")
    Incident.objects.filter(pk=old.pk).update(created_at=timezone.now() - timedelta(days=40))
    old_files = files_under(media_root / "bundles" / old.pk)
    assert old_files

    out = StringIO()
    call_command("prune_incidents", "--days", "30", "--dry-run", stdout=out)
    assert "would delete 1 incident(s)" in out.getvalue() and old.pk in out.getvalue()
    assert Incident.objects.filter(pk=old.pk).exists() and all(p.exists() for p in old_files)

    from triage.incidents.tasks import incident_prune_task

    settings.TRIAGE_RETENTION_DAYS = 0
    assert incident_prune_task() == 0  # 0 days: keep forever
    settings.TRIAGE_RETENTION_DAYS = 30
    assert incident_prune_task() == 1
    assert not Incident.objects.filter(pk=old.pk).exists()
    assert not Bundle.objects.filter(incident_id=old.pk).exists()
    assert not (media_root / "bundles" / old.pk).exists()
    assert Incident.objects.filter(pk=recent.pk).exists() and files_under(media_root / "bundles" / recent.pk)
    assert "incidents-prune" in settings.CELERY_BEAT_SCHEDULE
