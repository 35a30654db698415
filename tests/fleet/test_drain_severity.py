"""The host's decision (drain, reset, watch) from the catalog entries' severity and counts over
time, on diagnoses stored as the engine writes them (no engine run, no worker)."""
from __future__ import annotations

from typing import Any

import pytest
from django.apps import apps

from tests.fleet.test_fingerprint import diagnosis, xid_line
from triage.accounts.services import team_default
from triage.fleet.models import Occurrence
from triage.fleet.selectors import drained_hosts, host_drain, host_summary, watched_hosts
from triage.fleet.services import fleet_incident_update
from triage.incidents.models import Diagnosis, Incident

pytestmark = pytest.mark.django_db

GPU3 = {"index": 3, "uuid": "GPU-aaaa-3", "pci_bus_id": "00000000:5D:00.0"}
GPU4 = {"index": 4, "uuid": "GPU-aaaa-4", "pci_bus_id": "00000000:9A:00.0"}
WORDS = {94: "Contained: SM (0x1). RST: No, D-RST: No", 79: "GPU has fallen off the bus."}


def stored(data: dict[str, Any]) -> Occurrence:
    """A ready incident with `data` as its diagnosis, grouped: a distinct failure (its own day)."""
    n = Incident.objects.count()
    data["first_failure"]["time"] = f"2026-06-{n + 1:02d}T08:00:00Z"
    team = team_default()
    incident = Incident.objects.create(team=team, status=Incident.Status.READY, revision=1, job=f"job-{n}",
                                       cause=data["findings"][0]["cause"], first_failure=data["first_failure"])
    Diagnosis.objects.create(incident=incident, revision=1, data=data)
    occurrence = fleet_incident_update(incident_id=incident.pk)
    assert occurrence is not None
    return occurrence


def xids(codes: list[int], *, host: str = "node-b", bus: str = "5d", gpus: list[dict[str, Any]] | None = None) -> None:
    for n, code in enumerate(codes):
        stored(diagnosis(host=host, text=xid_line(code, bus=bus, pid=1000 + n, words=WORDS.get(code, "")),
                         snapshot_gpus=gpus or [GPU3, GPU4]))


def test_xid_94_alone_is_watched_not_drained() -> None:
    """DCGM's error table: Xid 94 is contained to the application (monitor only). Three of them on
    one GPU are the same GPU failing again (watch it), never a drain."""
    xids([94, 94, 94])
    decision = host_drain(team_id=team_default().pk, host="node-b")
    assert (decision.recommended, decision.action, decision.gpu) == (False, "watch", "uuid:GPU-aaaa-3")
    assert "GPU 3" in decision.reason and "Xid 94 ×3" in decision.reason and decision.commands is None
    assert decision.incidents == 3
    assert drained_hosts(team_ids=[team_default().pk]) == []
    summary = host_summary(team_id=team_default().pk, host="node-b")
    assert summary["drain"]["recommended"] is False and summary["drain"]["action"] == "watch"
    assert summary["machine_fault_incidents"] == 3


def test_xid_79_drains() -> None:
    xids([79, 79])
    assert host_drain(team_id=team_default().pk, host="node-b").action == ""  # below the threshold
    xids([79])
    decision = host_drain(team_id=team_default().pk, host="node-b")
    assert (decision.recommended, decision.action, decision.gpu) == (True, "drain", "uuid:GPU-aaaa-3")
    assert "Xid 79 ×3" in decision.reason and decision.commands is not None
    assert [d.host for d in drained_hosts(team_ids=[team_default().pk])] == ["node-b"]


@pytest.mark.parametrize("code", [63, 64])
def test_xid_63_and_64_say_reset(code: int) -> None:
    xids([code, code, code])
    decision = host_drain(team_id=team_default().pk, host="node-b")
    assert (decision.recommended, decision.action) == (True, "reset")
    assert f"Xid {code} ×3" in decision.reason and "reset the GPU" in decision.reason


def test_a_drain_among_resets_drains_and_a_contained_xid_does_not_make_up_the_count() -> None:
    xids([63, 94, 79])  # one reset, one fault seen only, one drain: two toward the threshold
    assert host_drain(team_id=team_default().pk, host="node-b").recommended is False
    xids([64])
    assert host_drain(team_id=team_default().pk, host="node-b").action == "drain"


def test_the_same_gpu_failing_across_incidents_is_flagged_and_other_gpus_are_not_it() -> None:
    xids([94, 94], bus="5d")
    for n in range(2):
        stored(diagnosis(text=xid_line(94, bus="9a", pid=2000 + n, words=WORDS[94]), snapshot_gpus=[GPU3, GPU4]))
    decision = host_drain(team_id=team_default().pk, host="node-b")
    # Four faults of the machine seen on the host, no GPU three times: the host is watched.
    assert (decision.recommended, decision.action, decision.gpu) == (False, "watch", "")
    assert "culprit of 4 incidents" in decision.reason
    stored(diagnosis(text=xid_line(94, bus="5d", pid=3000, words=WORDS[94]), snapshot_gpus=[GPU3, GPU4]))
    assert host_drain(team_id=team_default().pk, host="node-b").gpu == "uuid:GPU-aaaa-3"


def test_rows_stored_before_severity_existed_are_read_again() -> None:
    """Migration 0007's reading of existing rows: an occurrence counted against the machine under
    the old rule (every hardware_fault) gets its entry's severity from its stored diagnosis."""
    migration = __import__("triage.fleet.migrations.0007_occurrence_severity_xid", fromlist=["read_again"])
    xids([94, 79, 63])
    Occurrence.objects.update(severity="", xid=None, machine_reason="GPU hardware fault")
    migration.read_again(apps, None)
    got = sorted(Occurrence.objects.values_list("xid", "severity", "machine_reason", "machine_fault"))
    assert got == [(63, "reset", "Xid 63", True), (79, "drain", "Xid 79", True), (94, "", "Xid 94", True)]


def test_the_host_page_says_watch_and_reset(client: Any) -> None:
    from django.contrib.auth import get_user_model

    from tests.conftest import join_team

    user = get_user_model().objects.create_user("sre", password="correct horse")
    join_team(user, team=team_default().name)
    client.force_login(user)
    xids([94, 94, 94], host="node-w")
    page = client.get("/fleet/hosts/node-w/").content.decode()
    assert 'id="host-watch"' in page and "Xid 94 ×3" in page and "Drain recommended" not in page
    xids([63, 63, 63], host="node-r")
    page = client.get("/fleet/hosts/node-r/").content.decode()
    assert "Drain recommended</strong> (then reset the GPU)" in page and "Xid 63 ×3" in page


def test_the_fleet_page_lists_the_hosts_to_watch_apart_from_the_drains(client: Any) -> None:
    from django.contrib.auth import get_user_model

    from tests.conftest import join_team

    user = get_user_model().objects.create_user("sre", password="correct horse")
    join_team(user, team=team_default().name)
    client.force_login(user)
    xids([94, 94], host="node-w")
    assert watched_hosts(team_ids=[team_default().pk]) == []  # below the threshold
    page = client.get("/fleet/").content.decode()
    assert 'id="watch"' not in page
    xids([94], host="node-w")
    xids([79, 79, 79], host="node-d")
    watched = watched_hosts(team_ids=[team_default().pk])
    assert [(d.host, d.action, d.gpu) for d in watched] == [("node-w", "watch", "uuid:GPU-aaaa-3")]
    assert [d.host for d in drained_hosts(team_ids=[team_default().pk])] == ["node-d"]
    page = client.get("/fleet/").content.decode()
    watch = page[page.index('id="watch"'):]
    watch = watch[: watch.index("</section>")]
    assert "node-w" in watch and "Xid 94 ×3" in watch and "/fleet/hosts/node-w/gpus/" in watch
    assert "node-d" not in watch
    drain = page[page.index('id="drain"'):]
    assert "node-d" in drain[: drain.index("</section>")] and "node-w" not in drain[: drain.index("</section>")]
