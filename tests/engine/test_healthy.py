"""Real logs of runs that did not fail must stay quiet: no finding, no first failure."""
from __future__ import annotations

from pathlib import Path

import pytest
from engine_corpus import healthy_cases

from triage.engine import diagnose

CASES = healthy_cases()


def test_the_healthy_corpus_is_there() -> None:
    assert len(CASES) >= 8


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_a_healthy_run_gets_no_finding(case: Path) -> None:
    d = diagnose(case / "log.txt").to_dict()
    assert [(f["rule"], f["confidence"]) for f in d["findings"]] == []
    assert d["first_failure"] is None
    assert d["summary"].startswith("No ")
