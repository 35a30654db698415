"""Every real case of the shared corpus is diagnosed to a cause an expert could defend from
the log alone (`acceptable` in its meta.json), and names the failing rank where the log does."""
from __future__ import annotations

from pathlib import Path

import pytest
from engine_corpus import corpus_cases, load_meta

from triage.engine import diagnose

CASES = corpus_cases()


def test_the_corpus_is_there() -> None:
    assert len(CASES) >= 10


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_it_diagnoses_an_acceptable_cause(case: Path) -> None:
    meta = load_meta(case)
    result = diagnose(case / "log.txt").to_dict()
    findings = result["findings"]
    acceptable = meta["acceptable"]
    if findings and findings[0]["cause"] in acceptable:
        return
    # 'unknown' means no finding, or a low-confidence one.
    assert "unknown" in acceptable, f"{case.name}: got {findings[0]['cause'] if findings else 'nothing'}, acceptable {acceptable}"
    assert not findings or findings[0]["confidence"] == "low", f"{case.name}: {findings[0]}"


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_it_names_the_failing_rank_when_the_log_does(case: Path) -> None:
    meta = load_meta(case)
    want = meta.get("failing_rank_from_log")
    result = diagnose(case / "log.txt").to_dict()
    if want is None:
        return
    assert result["first_failure"] is not None
    assert result["first_failure"]["rank"] == want


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_every_finding_cites_real_lines(case: Path) -> None:
    lines = (case / "log.txt").read_text(errors="replace").splitlines()
    result = diagnose(case / "log.txt").to_dict()
    for finding in result["findings"]:
        assert finding["evidence"], finding
        for ev in finding["evidence"]:
            if ev["source"] == "log.txt" and ev["line"] >= 1:
                assert ev["text"].strip()[:40] in lines[ev["line"] - 1] or ev["line"] == 1
