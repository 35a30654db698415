"""Cause-specific prose lives in the catalog: a rule's finding whose line the catalog reads as the
finding's own cause carries that entry's fix with the line's values filled in; the rule's own
fix is only for what the catalog does not read that way (another cause, a catch-all, no line)."""
from __future__ import annotations

from pathlib import Path

import pytest

from triage.engine import diagnose
from triage.engine.facts import Facts
from triage.engine.model import Event
from triage.engine.rules.signature import BY_ID, catalog_fix
from triage.engine.structured import StructuredDocs

OWN = "the rule's own fix"


def _with_meaning(sig_id: str, groups: dict[str, str] | None = None, device: int | None = None) -> tuple[Facts, Event]:
    sig = BY_ID[sig_id]
    line = Event(kind="parsed", source="rank0.log", line=7, text="...", order=7, device=device)
    meaning = Event(kind="signature", source="rank0.log", line=7, text="...", order=7, device=device,
                    data={"sig": sig.id, "cause": sig.cause, "role": sig.role, "confidence": sig.confidence,
                          "priority": sig.priority, "groups": groups or {}})
    facts = Facts(events=[line, meaning], sources=[], docs=StructuredDocs(), problems=[])
    facts.meaning.setdefault(line.source, {})[line.line] = meaning
    return facts, line


def test_the_catalog_entrys_fix_with_the_lines_values() -> None:
    facts, line = _with_meaning("torch.cuda.oom", {"requested": "564.00 MiB"})
    fix = catalog_fix(facts, line, "oom", OWN)
    assert fix == BY_ID["torch.cuda.oom"].fix.replace("{requested}", "564.00 MiB")


def test_an_unknown_value_stays_a_visible_placeholder() -> None:
    facts, line = _with_meaning("cuda.rt.ecc_uncorrectable", device=None)
    assert "-i <device>" in catalog_fix(facts, line, "hardware_fault", OWN)
    facts, line = _with_meaning("cuda.rt.ecc_uncorrectable", device=3)
    assert "-i 3" in catalog_fix(facts, line, "hardware_fault", OWN)


@pytest.mark.parametrize(("sig_id", "cause"), [
    ("shell.killed", "rank_crash"),  # the catalog reads the line as another cause (the OOM killer)
    ("torch.exc.python_generic", "rank_crash"),  # a catch-all has nothing specific to say
])
def test_the_rules_own_fix_where_the_catalog_says_nothing_specific_of_that_cause(sig_id: str, cause: str) -> None:
    facts, line = _with_meaning(sig_id)
    assert catalog_fix(facts, line, cause, OWN) == OWN


def test_the_rules_own_fix_for_a_line_the_catalog_does_not_know_or_no_line() -> None:
    facts = Facts(events=[], sources=[], docs=StructuredDocs(), problems=[])
    line = Event(kind="parsed", source="rank0.log", line=1, text="...")
    assert catalog_fix(facts, line, "oom", OWN) == OWN
    assert catalog_fix(facts, None, "oom", OWN) == OWN


def test_a_rule_finding_end_to_end_carries_the_filled_catalog_fix(tmp_path: Path) -> None:
    log = tmp_path / "rank1.log"
    log.write_text("[rank1]: " + BY_ID["torch.cuda.oom"].samples[0] + "\n")
    top = diagnose(log).findings[0]
    assert top.rule == "oom.cuda_oom"
    assert top.fix.startswith("The GPU had no room for 564.00 MiB.")
