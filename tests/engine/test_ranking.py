"""The ranker (ranking.rank_findings) orders findings on what their evidence is, never on numbers
a rule picked: confidence, then the role of the evidence (a named fault, a culprit inferred
across ranks, a symptom, context), then time and reading order, then the catalog entry's
priority. A finding's role and priority come from its culprit line's catalog entry unless its
rule says what its cross-rank structure knows."""
from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from triage.engine.facts import Facts
from triage.engine.model import Event, Finding
from triage.engine.ranking import rank_findings
from triage.engine.structured import StructuredDocs

T0 = datetime(2026, 12, 1, 14, 0, 0)


def _line(line: int, seconds: float | None, kind: str = "exception") -> Event:
    return Event(kind=kind, source="rank0.log", line=line, text=f"line {line}", order=line,
                 time=T0 + timedelta(seconds=seconds) if seconds is not None else None)


def _meaning(of: Event, role: str, priority: int, cause: str | None = "rank_crash") -> Event:
    return Event(kind="signature", source=of.source, line=of.line, text=of.text, order=of.order, time=of.time,
                 data={"sig": f"test.{role}", "cause": cause, "role": role, "confidence": "medium",
                       "priority": priority})


def _facts(*meanings: Event) -> Facts:
    facts = Facts(events=list(meanings), sources=[], docs=StructuredDocs(), problems=[])
    for m in meanings:
        facts.meaning.setdefault(m.source, {})[m.line] = m
    return facts


def _finding(cause: str, culprit: Event | None, confidence: str = "medium", role: str | None = None,
             rule: str | None = None) -> Finding:
    return Finding(cause=cause, rule=rule or f"{cause}.test", confidence=confidence, title=cause, detail="", fix="",
                   culprit=culprit, role=role)


def test_the_role_and_priority_are_the_culprit_lines_catalog_entrys() -> None:
    line = _line(3, 1)
    f = _finding("network", line)
    rank_findings(_facts(_meaning(line, "symptom", 70, "network")), [f])
    assert (f.role, f.priority) == ("symptom", 70)


def test_a_rule_that_knows_more_than_the_line_keeps_its_role() -> None:
    line = _line(3, 1)
    f = _finding("rendezvous_hang", line, role="fault")
    rank_findings(_facts(_meaning(line, "symptom", 75, "rendezvous_hang")), [f])
    assert (f.role, f.priority) == ("fault", 75)


@pytest.mark.parametrize(("catalog_role", "tier_role"), [("context", "context"), ("harmless", "context")])
def test_a_line_the_catalog_calls_context_ranks_below_a_symptom(catalog_role: str, tier_role: str) -> None:
    retry, echo = _line(1, 1), _line(2, 2)
    read_as_failure = _finding("network", retry)
    symptom = _finding("rank_crash", echo)
    out = rank_findings(_facts(_meaning(retry, catalog_role, 76, "rendezvous_hang"),
                               _meaning(echo, "symptom", 30)), [read_as_failure, symptom])
    assert [f.cause for f in out] == ["rank_crash", "network"]
    assert read_as_failure.role == tier_role


@pytest.mark.parametrize("listed", ["symptom first", "fault first"])
def test_a_named_fault_outranks_an_earlier_symptom_of_equal_confidence(listed: str) -> None:
    early, late = _line(1, 1), _line(9, 60)
    symptom, fault = _finding("network", early), _finding("oom", late)
    findings = [symptom, fault] if listed == "symptom first" else [fault, symptom]
    out = rank_findings(_facts(_meaning(early, "symptom", 90, "network"), _meaning(late, "fault", 10, "oom")), findings)
    assert [f.cause for f in out] == ["oom", "network"]


def test_confidence_comes_before_the_role() -> None:
    early, late = _line(1, 1), _line(9, 60)
    symptom, fault = _finding("network", early, "high"), _finding("oom", late, "low")
    out = rank_findings(_facts(_meaning(early, "symptom", 50, "network"), _meaning(late, "fault", 50, "oom")),
                        [fault, symptom])
    assert [f.cause for f in out] == ["network", "oom"]


def test_a_culprit_inferred_from_absence_ranks_below_a_named_fault_and_above_a_symptom() -> None:
    fault_line, echo = _line(9, 60), _line(1, 1)
    absent = _finding("collective_timeout_straggler", None, role="inferred")
    fault = _finding("oom", fault_line)
    symptom = _finding("network", echo)
    out = rank_findings(_facts(_meaning(fault_line, "fault", 50, "oom"), _meaning(echo, "symptom", 50, "network")),
                        [symptom, absent, fault])
    assert [f.cause for f in out] == ["oom", "collective_timeout_straggler", "network"]
    assert absent.role == "inferred"


def test_a_finding_with_no_culprit_and_no_role_is_inferred_and_one_with_an_unknown_line_a_fault() -> None:
    nothing, unknown = _finding("other", None), _finding("rank_crash", _line(4, 4))
    rank_findings(_facts(), [nothing, unknown])
    assert (nothing.role, unknown.role) == ("inferred", "fault")


def test_the_earliest_fault_first_whatever_the_priorities() -> None:
    early, late = _line(5, 1), _line(2, 30)
    first, second = _finding("rank_crash", early), _finding("oom", late)
    out = rank_findings(_facts(_meaning(early, "fault", 15), _meaning(late, "fault", 90, "oom")), [second, first])
    assert [f.cause for f in out] == ["rank_crash", "oom"]


def test_untimed_lines_rank_in_reading_order_before_priority() -> None:
    early, late = _line(1, None), _line(8, None)
    first, second = _finding("network", early), _finding("rank_crash", late)
    out = rank_findings(_facts(_meaning(early, "symptom", 70, "network"), _meaning(late, "symptom", 75)),
                        [second, first])
    assert [f.cause for f in out] == ["network", "rank_crash"]


def test_the_catalog_priority_breaks_a_tie_on_one_line() -> None:
    line = _line(3, 3)
    generic = _finding("rank_crash", line, rule="signature.test.generic")
    specific = _finding("other", line, rule="signature.test.specific", role="fault")
    generic.priority, specific.priority = 35, 45
    out = rank_findings(_facts(_meaning(line, "fault", 40)), [generic, specific])
    assert [f.cause for f in out] == ["other", "rank_crash"]
