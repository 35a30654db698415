"""End to end: `python -m collectors run` wraps a real 2-rank torchrun (gloo) job whose rank 1
crashes, uploads to a live server over HTTP, a real Celery worker diagnoses the bundle, and the
incident names rank_crash on rank 1.

Needs what the dashboard's worker tests need: PostgreSQL and Redis (`make services`), the
`worker` fixture of tests/api/test_worker.py and pytest-django's `live_server`.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import urllib.request
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest
from api_server import free_port
from django.urls import resolve, reverse
from test_collector_run import TRAIN, kill_recorded_pids

from tests.api.test_worker import Worker, worker  # noqa: F401  (the real Celery worker fixture)

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

REPO = Path(__file__).resolve().parents[2]


def get_json(url: str, token: str) -> dict[str, Any]:
    req = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(req, timeout=30) as resp:
        return json.loads(resp.read())


def test_run_wrapping_torchrun_uploads_and_the_incident_names_rank_crash_on_rank_1(
        live_server: Any, api_token: str, worker: Worker, tmp_path: Path) -> None:  # noqa: F811
    worker.start()
    train = tmp_path / "train.py"
    train.write_text(TRAIN)
    torchrun = str(Path(sys.executable).with_name("torchrun"))
    job = f"e2e-{uuid.uuid4().hex[:8]}"
    try:
        out = subprocess.run(
            [sys.executable, "-m", "collectors", "run", "--server", live_server.url, "--token", api_token,
             "--job", job, "--host", "node-a", "--spool", str(tmp_path / "spool"), "--workdir", str(tmp_path / "w"),
             "--", torchrun, "--nproc-per-node", "2", "--master-port", str(free_port()), str(train)],
            cwd=REPO, capture_output=True, text=True, timeout=240, env={**os.environ, "OMP_NUM_THREADS": "1"}, check=False)
    finally:
        kill_recorded_pids(tmp_path)
    assert out.returncode == 1, out.stderr[-3000:]
    m = re.search(r"incident: (\S+)", out.stderr)
    assert m, out.stderr[-3000:]
    match = resolve(urlparse(m[1]).path)
    incident_id = (list(match.args) + list(match.kwargs.values()))[0]
    api_url = live_server.url + reverse("api:incident-detail", args=[incident_id])

    deadline = time.monotonic() + 120
    while (body := get_json(api_url, api_token))["status"] not in ("ready", "failed"):
        assert time.monotonic() < deadline, f"still {body['status']}; worker log:\n{worker.output()}"
        time.sleep(0.2)
    assert body["status"] == "ready", body["error"]
    diagnosis = body["diagnosis"]
    verdict = diagnosis["findings"][0]
    assert verdict["cause"] == "rank_crash", json.dumps(diagnosis["findings"], indent=1)[:3000]
    assert verdict["ranks"] == [1], json.dumps({k: diagnosis[k] for k in ("findings", "first_failure", "ranks")}, indent=1)[:4000]
    assert diagnosis["first_failure"]["rank"] == 1
