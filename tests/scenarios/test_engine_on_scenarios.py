"""The key test: the engine names the expected cause and culprit on every scenario.

Scenarios are not adjusted to the engine: a failure here is either an engine gap or an
unrealistic scenario, and only the latter is fixed on this side.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import SEEDS

from triage.scenarios import SCENARIO_CAUSES


def diagnose_dict(bundle: Path) -> dict:
    from triage.engine import diagnose
    return diagnose(str(bundle)).to_dict()


def explain(d: dict) -> str:
    top = d["findings"][0] if d["findings"] else None
    return (f"summary={d['summary']!r} verdict={top and (top['cause'], top['rule'], top['confidence'], top['title'])!r} "
            f"first_failure={d['first_failure'] and {k: d['first_failure'].get(k) for k in ('rank', 'host', 'time', 'text')}!r} "
            f"others={[(f['cause'], f['rule']) for f in d['findings'][1:4]]!r}")


def check(bundle: Path) -> None:
    expected = json.loads((bundle / "expected.json").read_text())
    d = diagnose_dict(bundle)
    assert d["findings"], explain(d)
    assert d["findings"][0]["cause"] == expected["cause"], explain(d)
    if expected["rank"] is not None:
        assert d["first_failure"] is not None and d["first_failure"]["rank"] == expected["rank"], explain(d)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("cause", SCENARIO_CAUSES)
def test_synthetic(built, cause, seed):
    check(built(cause, seed))


@pytest.mark.parametrize("seed", SEEDS)
def test_unknown_has_nothing_above_low(built, seed):
    """The logs just stop and the scheduler cancels the job: at most a low-confidence note (the
    agent was told to stop), never a cause with confidence, and no failing rank."""
    d = diagnose_dict(built("unknown", seed))
    assert all(f["confidence"] == "low" for f in d["findings"]), explain(d)
    assert d["first_failure"] is None or d["first_failure"]["rank"] is None, explain(d)
    assert any("NCCL_DEBUG" in note for note in d["notes"]), d["notes"]


@pytest.mark.parametrize("name", ["exception", "sigkill", "rendezvous"])
def test_real_gloo_run(gloo_runs, name):
    check(gloo_runs[name].bundle)


def test_scale_bundle(tmp_path):
    from triage.scenarios import build_scale
    check(build_scale(tmp_path, ranks=128, hosts=16, events_per_rank=20, seed=1))
