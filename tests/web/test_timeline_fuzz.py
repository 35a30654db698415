"""The timeline endpoints never answer 500, whatever the stored timeline holds.

Odd but real inputs (no ranks, string hosts, one line, 10,000 ranks, times without dates, mixed
time zones) and a seeded fuzz over every field's type go through the real views (Django test
client, PostgreSQL), the figure and the Perfetto trace.
"""
from __future__ import annotations

import random
from typing import Any

import pytest
from django.test import Client

from tests.conftest import join_team

pytestmark = pytest.mark.django_db


@pytest.fixture
def client_in_team(django_user_model: Any) -> Client:
    user = join_team(django_user_model.objects.create_user("fuzz", password="pw"))
    client = Client()
    client.force_login(user)
    return client


def store(timeline: Any) -> Any:
    from triage.accounts.services import team_default
    from triage.incidents.models import Diagnosis, Incident

    incident = Incident.objects.create(team=team_default(), status=Incident.Status.READY)
    Diagnosis.objects.create(incident=incident, revision=0, data={"timeline": timeline})
    return incident


def get_both(client: Client, incident: Any) -> list[int]:
    codes = []
    for name in ("timeline", "trace"):
        response = client.get(f"/incidents/{incident.pk}/{name}.json")
        codes.append(response.status_code)
        assert response.status_code != 500, (name, response.content[:300])
    return codes


def rank(i: int, **over: Any) -> dict[str, Any]:
    base = {"rank": i, "host": f"node-{i // 8}", "device": i % 8, "pid": 1000 + i, "state": "ok",
            "start": "2026-12-01T14:20:00", "end": f"2026-12-01T14:2{i % 10}:00.{i % 1000:03d}123",
            "silent_since": None, "last_seq": 100 + i % 3, "segments": [], "last_line": None}
    base.update(over)
    return base


ODD = {
    "no ranks": {"axis": "time", "ranks": [], "events": [{"rank": None, "x": "2026-12-01T00:00:00", "kind": "xid"}]},
    "nothing": {},
    "not a dict": ["ranks"],
    "string hosts next to numbers": {"axis": "time", "ranks": [rank(0, host="0"), rank(1, host="localhost"),
                                                               rank(2, host=2), rank(3, host=None)]},
    "string ranks": {"axis": "position", "ranks": [rank(0, rank="0", start=1, end=5), rank(1, rank="one", start=2, end=3)]},
    "one line": {"axis": "position", "ranks": [{"rank": None, "host": None, "start": 1, "end": 1, "state": "errored",
                                                "row": "p:source|log.txt", "label": "log.txt"}],
                 "first_failure": {"rank": None, "row": "p:source|log.txt", "x": 1, "label": "it failed"}},
    "times without dates": {"axis": "time", "ranks": [rank(0, start="14:20:00", end="14:21:00.5"), rank(1, start="0816 20:39:36")],
                            "events": [{"rank": 0, "x": "14:20:30", "kind": "cuda_oom"}],
                            "first_failure": {"rank": 0, "x": "14:20:30"}},
    "mixed time zones": {"axis": "time", "ranks": [rank(0, start="2026-12-01T14:20:00+02:00", end="2026-12-01T14:21:00Z"),
                                                   rank(1, start="2026-12-01T12:20:00", end="2026-12-01T12:21:00.123456")],
                         "gpu_samples": [{"host": "node-0", "gpu": 0, "time": "2026-12-01T12:20:30Z", "util": 50},
                                         {"host": "node-0", "gpu": 0, "time": "2026-12-01T14:20:31", "util": "high"}]},
    "sequence with holes": {"axis": "sequence", "ranks": [rank(0, start=0, end=None, last_seq=None), rank(1, start=0, end=917, last_seq=917)]},
    "unknown axis": {"axis": "bananas", "ranks": [rank(0)]},
    "segments of nonsense": {"axis": "time", "ranks": [rank(0, segments=[{"state": None, "start": 3, "end": "x"}, "seg", None])]},
    "huge and NaN-ish numbers": {"axis": "position", "ranks": [rank(0, start=1e308, end=-1e308, last_seq=10**30)]},
}


@pytest.mark.parametrize("name", sorted(ODD))
def test_odd_timelines_are_drawn_or_refused_clearly(client_in_team: Client, name: str) -> None:
    assert get_both(client_in_team, store(ODD[name])) == [200, 200]


def test_ten_thousand_ranks(client_in_team: Client) -> None:
    timeline = {"axis": "time", "ranks": [rank(i) for i in range(10_000)],
                "events": [{"rank": i, "x": "2026-12-01T14:21:00", "kind": "nccl_warn", "source": f"r{i}.log", "line": 3}
                           for i in range(0, 10_000, 7)],
                "first_failure": {"rank": 9_999, "x": "2026-12-01T14:29:00"}}
    assert get_both(client_in_team, store(timeline)) == [200, 200]


def _junk(rng: random.Random) -> Any:
    return rng.choice([None, True, 0, -1, 3.5, 1e300, "", "x", "0", "2026-12-01T14:20:00", "14:20",
                       "2026-13-45T99:99:99", [], [1, 2], {}, {"a": 1}, 10**20, "<img src=x>"])


def test_fuzzed_fields_never_500(client_in_team: Client) -> None:
    rng = random.Random(11)
    keys = ["rank", "host", "device", "pid", "bus_id", "state", "start", "end", "silent_since", "last_seq",
            "last_line", "segments", "row", "label"]
    for _ in range(60):
        ranks = []
        for i in range(rng.randint(0, 6)):
            r = rank(i)
            for key in rng.sample(keys, rng.randint(1, 5)):
                r[key] = _junk(rng)
            ranks.append(r)
        timeline = {
            "axis": rng.choice(["time", "sequence", "position", None, 3]),
            "ranks": rng.choice([ranks, ranks, None, "ranks"]),
            "events": [{"rank": _junk(rng), "x": _junk(rng), "kind": _junk(rng), "source": _junk(rng),
                        "line": _junk(rng), "row": _junk(rng)} for _ in range(rng.randint(0, 4))],
            "gpu_samples": [{"host": _junk(rng), "gpu": _junk(rng), "time": _junk(rng), "util": _junk(rng)}
                            for _ in range(rng.randint(0, 3))],
            "first_failure": rng.choice([None, {"rank": _junk(rng), "x": _junk(rng), "row": _junk(rng)}, "ff"]),
            "resolution_s": _junk(rng),
        }
        assert set(get_both(client_in_team, store(timeline))) <= {200, 422}
