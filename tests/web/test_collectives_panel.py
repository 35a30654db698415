"""The incident page's "collectives" panel, `manage.py diagnose --json` and the API: the same
flight-recorder verdict from the same bundle."""
from __future__ import annotations

import json
import pickle
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client

from tests.conftest import REPO, join_team, tar_gz
from triage.incidents.models import Incident
from triage.incidents.services import incident_diagnose, incident_ingest, incoming_from_path

pytestmark = pytest.mark.django_db
T0 = 1_764_685_321_000_000_000


def _entry(seq: int, done: bool) -> dict[str, Any]:
    return {"record_id": seq, "pg_id": 0, "process_group": ["0", "default_pg"], "collective_seq_id": seq, "p2p_seq_id": 0,
            "profiling_name": "nccl:all_reduce", "time_created_ns": T0 + seq * 10**9, "input_sizes": [[8]], "output_sizes": [[8]],
            "input_dtypes": ["Float"], "output_dtypes": ["Float"], "state": "completed" if done else "started",
            "retired": done, "is_p2p": False, "timeout_ms": 600000,
            "frames": [{"name": "train_step", "filename": "/job/<b>train</b>.py", "line": 40 + seq}]}


def bundle(tmp_path: Path) -> Path:
    files = {}
    for r in range(3):
        last = 4 if r == 1 else 5
        doc = {"version": "2.10", "pg_config": {"0": {"name": "0", "desc": "default_pg", "ranks": "[0, 1, 2]"}},
               "pg_status": {"0": {"last_enqueued_collective": last, "last_started_collective": last, "last_completed_collective": 4}},
               "entries": [_entry(s, s <= 4) for s in range(1, last + 1)]}
        files[f"job/fr/nccl_trace_rank_{r}"] = pickle.dumps(doc, protocol=2)
    path = tmp_path / "fr.tar.gz"
    path.write_bytes(tar_gz(files))
    return path


def diagnosed(path: Path) -> Incident:
    with incoming_from_path(path) as incoming:
        incident, _ = incident_ingest(bundles=[incoming])
    incident_diagnose(incident_id=incident.pk)
    incident.refresh_from_db()
    return incident


def test_the_panel_the_api_and_the_terminal_say_the_same(client: Client, api_token: str, media_root: Path, tmp_path: Path) -> None:
    path = bundle(tmp_path)
    incident = diagnosed(path)
    client.force_login(join_team(User.objects.create_user("sre", password="x")))
    page = client.get(f"/incidents/{incident.pk}/").content.decode()
    assert 'id="collectives"' in page
    assert "Rank 1 never enqueued all_reduce #5; ranks 0 and 2 waited in it" in page
    assert "first not completed by all: #5" in page
    assert '<tr class="bad">\n          <td>1</td>' in page  # the culprit's row
    assert "&lt;b&gt;train&lt;/b&gt;.py:45 in train_step" in page  # frames escaped
    api = client.get(f"/api/v1/incidents/{incident.pk}", headers={"Authorization": f"Bearer {api_token}"}).json()
    terminal = json.loads(subprocess.run([sys.executable, "manage.py", "diagnose", str(path), "--json"], cwd=REPO,
                                         capture_output=True, text=True, check=True).stdout)
    for d in (api["diagnosis"], terminal):
        assert d["findings"][0]["rule"] == "collective_timeout_straggler.flight_recorder_missing_rank"
        assert d["findings"][0]["ranks"] == [1]
        assert d["collectives"]["culprit"]["ranks"] == [1]
    # The same story; sources differ only by the label the dashboard gives each stored bundle.
    a, t = api["diagnosis"]["collectives"]["groups"][0], terminal["collectives"]["groups"][0]
    assert a["culprit"]["text"] == t["culprit"]["text"]
    assert ({r: {k: v for k, v in p.items() if k != "source"} for r, p in a["positions"].items()}
            == {r: {k: v for k, v in p.items() if k != "source"} for r, p in t["positions"].items()})


def test_no_dumps_no_panel(client: Client, media_root: Path, tmp_path: Path) -> None:
    path = tmp_path / "log.tar.gz"
    path.write_bytes(tar_gz({"rank0.log": b"hello\n"}))
    incident = diagnosed(path)
    client.force_login(join_team(User.objects.create_user("sre", password="x")))
    page = client.get(f"/incidents/{incident.pk}/").content.decode()
    assert 'id="collectives"' not in page
    assert "collectives" not in incident.diagnosis.data
