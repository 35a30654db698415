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
