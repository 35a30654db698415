"""With no configuration at all, the project runs on SQLite with tasks in-process."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO, sample_log

SCRIPT = """
from pathlib import Path
from django.conf import settings
from django.db import connection
from triage.incidents.models import Incident
from triage.incidents.services import incident_ingest, incoming_from_path

assert connection.vendor == "sqlite", connection.vendor
assert Path(settings.DATABASES["default"]["NAME"]) == settings.BASE_DIR / "db.sqlite3"
assert settings.CELERY_TASK_ALWAYS_EAGER
with incoming_from_path(Path("node-a.log")) as incoming:
    incident, _ = incident_ingest(bundles=[incoming], job="embedded")
incident.refresh_from_db()
print("STATUS", incident.status, incident.cause)
"""


def test_migrate_and_a_diagnosis_on_the_embedded_default(tmp_path: Path) -> None:
    # A copy of the project, so the default db.sqlite3 (next to manage.py) is a fresh one.
    project = tmp_path / "project"
    project.mkdir()
    shutil.copy(REPO / "manage.py", project)
    for folder in ("triage", "templates"):
        shutil.copytree(REPO / folder, project / folder, ignore=shutil.ignore_patterns("__pycache__"))
    (project / "node-a.log").write_bytes(sample_log("shm_exhausted"))
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE", "MEDIA_ROOT")}

    def manage(*args: str) -> str:
        done = subprocess.run([sys.executable, "manage.py", *args], cwd=project, env=env,
                              capture_output=True, text=True, timeout=300, check=False)
        assert done.returncode == 0, done.stderr[-3000:]
        return done.stdout

    manage("migrate", "--noinput", "-v", "0")
    assert (project / "db.sqlite3").exists()
    token = manage("apitoken", "create", "--name", "embedded").strip()
    assert token.startswith("nct_")
    out = manage("shell", "-c", SCRIPT)
    assert "STATUS ready shm_exhausted" in out
    assert list((project / "media" / "bundles").rglob("node-a.log"))


def test_make_runs_mode_serves_a_plain_404_and_no_debug_page(tmp_path: Path) -> None:
    """`make run`'s server (rundev on the embedded default, after collectstatic as the Makefile
    does): an unknown address is a plain 404 page, not Django's list of every URL pattern, and
    the pages still render (no 500 from DEBUG off)."""
    import socket
    import time
    import urllib.error
    import urllib.request

    project = tmp_path / "project"
    project.mkdir()
    shutil.copy(REPO / "manage.py", project)
    for folder in ("triage", "templates", "static"):
        shutil.copytree(REPO / folder, project / folder, ignore=shutil.ignore_patterns("__pycache__"))
    env = {k: v for k, v in os.environ.items()
           if k not in ("DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE", "MEDIA_ROOT", "DEBUG", "SECRET_KEY")}
    for step in (["migrate", "--noinput", "-v", "0"], ["collectstatic", "--noinput", "-v", "0"]):
        done = subprocess.run([sys.executable, "manage.py", *step], cwd=project, env=env, capture_output=True,
                              text=True, timeout=300, check=False)
        assert done.returncode == 0, done.stderr[-3000:]
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen([sys.executable, "manage.py", "rundev", "--noreload", "--port", str(port)], cwd=project,
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

    def get(path: str) -> tuple[int, str]:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as r:  # noqa: S310 - loopback
                return r.status, r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode()

    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert server.poll() is None and time.monotonic() < deadline, "rundev did not start"
                time.sleep(0.2)
        status, body = get("/no/such/page")
        assert status == 404
        assert "URLconf" not in body and "api/v1/" not in body and "DEBUG = True" not in body
        assert "Not found" in body
        status, body = get("/accounts/login/")
        assert status == 200 and 'name="password"' in body
        status, body = get("/api/v1/nothing")
        assert status in (401, 404) and "URLconf" not in body
        assert (project / ".secret_key").stat().st_mode & 0o077 == 0
    finally:
        server.terminate()
        out = server.communicate(timeout=30)[0]
    assert "Traceback" not in out, out[-3000:]
