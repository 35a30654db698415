"""The first-failure card, the ranks table, the timeline, the fleet occurrence and the host/GPU
pages read one identity record: for every scenario, uploaded as an archive with a random name,
they name the same rank, host, pid and GPU, and none of them the archive's name."""
from __future__ import annotations

import html
import json
import random
import re
import tarfile
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.test import Client

from tests.bundle_forms import random_name
from tests.conftest import join_team
from triage.fleet.models import Occurrence
from triage.fleet.services import fleet_incident_update
from triage.incidents.models import Incident
from triage.incidents.services import incident_diagnose, incident_ingest, incoming_from_path
from triage.scenarios import EXTRA_SCENARIOS, SCENARIO_CAUSES, build

pytestmark = pytest.mark.django_db


def _upload(bundle: Path, out: Path, rng: random.Random) -> tuple[Incident, str]:
    name = random_name(rng)
    archive = out / f"{name}.tgz"
    with tarfile.open(archive, "w:gz") as tar:
        for p in sorted(bundle.rglob("*")):
            if p.is_file() and p.name != "expected.json":
                tar.add(p, arcname=f"{name}/{p.relative_to(bundle).as_posix()}")
    with incoming_from_path(archive) as incoming:
        incident, _ = incident_ingest(bundles=[incoming])
    incident_diagnose(incident_id=incident.pk)
    fleet_incident_update(incident_id=incident.pk)
    incident.refresh_from_db()
    return incident, name


def _card(page: str, field: str) -> str:
    m = re.search(rf'<dd id="ff-{field}">(.*?)</dd>', page, re.S)
    assert m, field
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", m.group(1))).split())


@pytest.mark.parametrize("cause", SCENARIO_CAUSES + EXTRA_SCENARIOS)
def test_card_ranks_timeline_and_fleet_agree(client: Client, media_root: Path, tmp_path: Path, cause: str) -> None:
    bundle = build(cause, tmp_path / "built", seed=0)
    expected = json.loads((bundle / "expected.json").read_text())
    incident, name = _upload(bundle, tmp_path, random.Random(cause))
    client.force_login(join_team(User.objects.create_user("sre")))
    page = client.get(f"/incidents/{incident.pk}/").content.decode()
    data = incident.diagnosis.data
    ff = incident.first_failure or {}
    assert f"/fleet/hosts/{name}/" not in page and name not in _card(page, "host")

    rows = {r.rank: r for r in incident.rank_states.all()}
    timeline = {r["rank"]: r for r in data["timeline"]["ranks"] if r.get("rank") is not None}
    rank = ff.get("rank")
    if expected["rank"] is not None:
        assert rank == expected["rank"] and ff["host"] == expected["host"]
    if rank is not None:
        row = rows[rank]
        assert row.state != "ok", (cause, row.state)
        assert str(rank) in _card(page, "rank")
        assert "names no rank" not in _card(page, "rank") or ff.get("rank_from") not in (None, "log")
        for key in ("host", "pid", "device"):
            if ff.get(key) not in (None, ""):
                assert getattr(row, key) == ff[key], (cause, key, getattr(row, key), ff[key])
                if key in timeline.get(rank, {}):
                    assert timeline[rank][key] == ff[key], (cause, key)
        if ff.get("pid") is not None:
            assert f"pid {ff['pid']}" in _card(page, "pid")
        if ff.get("device") is not None:
            assert f"CUDA device {ff['device']}" in _card(page, "gpu")
    if ff.get("host"):
        assert ff["host"] in _card(page, "host")
        assert f'href="/fleet/hosts/{ff["host"]}/"' in page
    if ff.get("time"):
        assert "from the line itself" in _card(page, "time")

    occ = Occurrence.objects.filter(pk=incident.pk).first()
    if occ is not None and occ.host:
        assert occ.host == (ff.get("host") or occ.host) and occ.host != name
        host_page = client.get(f"/fleet/hosts/{occ.host}/")
        assert host_page.status_code == 200
        if occ.machine_reason.startswith("Xid"):
            # The GPU row's "Xids seen" is not 0 beside an Xid verdict on that GPU.
            text = host_page.content.decode()
            cells = re.findall(r'<td class="num">(\d+)</td><td class="num">(\d+)</td></tr>', text)
            assert cells and all(int(xids) >= 1 for xids, incidents in cells if int(incidents) >= 1), cells
