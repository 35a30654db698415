"""The ranker (ranking.rank_findings) orders findings on what their evidence is, never on numbers
a rule picked: confidence, then the role of the evidence (a named fault, a culprit inferred
across ranks, a symptom, context), then time and reading order, then the catalog entry's
priority. A finding's role and priority come from its culprit line's catalog entry unless its
rule says what its cross-rank structure knows; its confidence from that entry's confidence and
the facts its rule combined (model.Support), the same weights for every rule."""
from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from triage.engine.facts import Facts
from triage.engine.model import Event, Finding, Support
from triage.engine.ranking import rank_findings
from triage.engine.structured import StructuredDocs

T0 = datetime(2026, 12, 1, 14, 0, 0)


def _line(line: int, seconds: float | None, kind: str = "exception") -> Event:
    return Event(kind=kind, source="rank0.log", line=line, text=f"line {line}", order=line,
                 time=T0 + timedelta(seconds=seconds) if seconds is not None else None)


def _meaning(of: Event, role: str, priority: int, cause: str | None = "rank_crash", confidence: str = "medium",
             sig: str | None = None) -> Event:
    return Event(kind="signature", source=of.source, line=of.line, text=of.text, order=of.order, time=of.time,
                 data={"sig": sig or f"test.{role}", "cause": cause, "role": role, "confidence": confidence,
                       "priority": priority})


def _facts(*meanings: Event) -> Facts:
    facts = Facts(events=list(meanings), sources=[], docs=StructuredDocs(), problems=[])
    for m in meanings:
        facts.meaning.setdefault(m.source, {})[m.line] = m
    return facts


def _finding(cause: str, culprit: Event | None, *support: Support, role: str | None = None,
             rule: str | None = None) -> Finding:
    return Finding(cause=cause, rule=rule or f"{cause}.test", title=cause, detail="", fix="",
                   culprit=culprit, role=role, support=frozenset(support))


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
    symptom, fault = _finding("network", early), _finding("oom", late, Support.INCOMPLETE)
    out = rank_findings(_facts(_meaning(early, "symptom", 50, "network"), _meaning(late, "fault", 50, "oom")),
                        [fault, symptom])
    assert [f.cause for f in out] == ["network", "oom"]


def test_a_culprit_inferred_from_absence_ranks_below_a_named_fault_and_above_a_symptom() -> None:
    fault_line, echo = _line(9, 60), _line(1, 1)
    absent = _finding("collective_timeout_straggler", None, Support.POINTS, role="inferred")
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
    specific = _finding("other", line, Support.POINTS, rule="signature.test.specific", role="fault")
    generic.priority, specific.priority = 35, 45
    out = rank_findings(_facts(_meaning(line, "fault", 40)), [generic, specific])
    assert [f.cause for f in out] == ["other", "rank_crash"]


def _confidence(finding: Finding, *meanings: Event) -> str:
    rank_findings(_facts(*meanings), [finding])
    return finding.confidence


@pytest.mark.parametrize(("role", "entry", "expected"), [
    ("fault", "high", "high"), ("fault", "medium", "medium"), ("fault", "low", "low"),
    ("symptom", "high", "medium"), ("context", "high", "medium"),
])
def test_the_confidence_is_the_culprit_entrys_a_symptom_or_context_never_high(role: str, entry: str,
                                                                             expected: str) -> None:
    line = _line(3, 3)
    assert _confidence(_finding("oom", line), _meaning(line, role, 50, "oom", entry)) == expected


def test_an_entry_of_another_cause_lends_no_confidence() -> None:
    line = _line(3, 3)
    assert _confidence(_finding("shm_exhausted", line), _meaning(line, "fault", 50, "network", "high")) == "low"


@pytest.mark.parametrize(("facts", "expected"), [
    ((), "low"), ((Support.POINTS,), "medium"), ((Support.NAMES,), "high"),
    ((Support.POINTS, Support.CORROBORATED), "high"), ((Support.CORROBORATED,), "medium"),
    ((Support.NAMES, Support.CORROBORATED), "high"),
    ((Support.NAMES, Support.ALONE), "medium"), ((Support.NAMES, Support.EXPLAINED), "medium"),
    ((Support.NAMES, Support.UNPLACED), "medium"), ((Support.POINTS, Support.CORROBORATED, Support.ALONE), "medium"),
    ((Support.NAMES, Support.INCOMPLETE), "low"), ((Support.POINTS, Support.AMBIGUOUS), "low"),
    ((Support.NAMES, Support.OUTRANKED), "low"), ((Support.NAMES, Support.WORKED_AROUND), "low"),
])
def test_the_rules_facts_weigh_the_same_whatever_the_rule(facts: tuple[Support, ...], expected: str) -> None:
    for rule in ("oom.a", "network.b"):
        assert _confidence(_finding("oom", None, *facts, rule=rule)) == expected


def test_the_rules_reading_lifts_a_line_the_catalog_is_unsure_of_and_the_entry_lifts_the_rules() -> None:
    line = _line(3, 3)
    assert _confidence(_finding("rank_crash", line, Support.NAMES), _meaning(line, "fault", 50, "rank_crash", "low")) \
        == "high"
    assert _confidence(_finding("oom", line, Support.POINTS), _meaning(line, "fault", 50, "oom", "high")) == "high"


def test_a_symptom_corroborated_stays_medium_and_a_rules_fault_over_a_symptom_line_does_not() -> None:
    line = _line(3, 3)
    echo = _meaning(line, "symptom", 50, "network", "high")
    assert _confidence(_finding("network", line, Support.CORROBORATED), echo) == "medium"
    assert _confidence(_finding("network", line, Support.NAMES, role="fault"), echo) == "high"


@pytest.mark.parametrize("role", ["symptom", "inferred"])
def test_the_residual_cause_from_no_line_of_the_failing_process_is_low(role: str) -> None:
    # A launcher's record of who stopped, a peer's lost connection: who, not why.
    line = _line(3, 3)
    record = _finding("rank_crash", line, Support.POINTS, Support.CORROBORATED, role=role)
    assert _confidence(record, _meaning(line, "symptom", 50, "rank_crash", "high")) == "low"
    own = _finding("rank_crash", line, Support.NAMES, role="fault")
    assert _confidence(own, _meaning(line, "fault", 50, "rank_crash", "low")) == "high"


def test_of_two_readings_of_one_cause_equally_sure_the_one_that_says_more_is_kept() -> None:
    line = _line(3, 3)
    cut_off = _finding("rank_crash", line, Support.POINTS, Support.INCOMPLETE, role="symptom")
    catalog = _finding("rank_crash", line, rule="signature.test.killed")
    out = rank_findings(_facts(_meaning(line, "symptom", 50, "rank_crash", "medium")), [cut_off, catalog])
    assert out == [catalog] and catalog.confidence == "low"


def test_a_survivable_entry_is_never_above_medium() -> None:
    line = _line(3, 3)
    fallback = _meaning(line, "fault", 50, "network", "high", sig=_survivable())
    assert _confidence(_finding("network", line, Support.NAMES), fallback) == "medium"


def test_a_line_the_run_survived_is_low_context() -> None:
    line = _line(3, 3)
    f = _finding("network", line, Support.SURVIVED)
    assert _confidence(f, _meaning(line, "fault", 50, "network", "high")) == "low"
    assert f.role == "context"


def test_a_confidence_a_rule_wrote_is_not_kept() -> None:
    f = _finding("oom", None)
    f.confidence = "high"
    assert _confidence(f) == "low"


def test_the_catalogs_finding_of_a_cause_counts_only_where_it_is_more_confident_than_the_rules() -> None:
    line, other = _line(3, 3), _line(5, 1)
    rule = _finding("oom", line, Support.POINTS)
    catalog = _finding("oom", other, rule="signature.test.fault")
    kept = rank_findings(_facts(_meaning(line, "fault", 50, "oom", "low"), _meaning(other, "fault", 50, "oom", "medium")),
                         [catalog, rule])
    assert kept == [rule]
    catalog = _finding("oom", other, rule="signature.test.fault")
    kept = rank_findings(_facts(_meaning(line, "fault", 50, "oom", "low"), _meaning(other, "fault", 50, "oom", "high")),
                         [catalog, _finding("oom", line, Support.POINTS)])
    assert kept == [catalog]


def _survivable() -> str:
    from triage.engine.signatures import CATALOG

    return next(s.id for s in CATALOG if s.survivable)


def test_a_rules_finding_on_a_line_the_catalog_says_another_explains_is_low() -> None:
    # 'CUDA devices busy or unavailable' is outranked by a hardware fault the bundle names
    # (cuda.rt.devices_unavailable's outranked_by), whichever rule reads the line.
    busy, lost = _line(5, 5), _line(2, 2)
    busy_meaning = _meaning(busy, "fault", 50, "device_ordinal", "high", sig="cuda.rt.devices_unavailable")
    lost_meaning = _meaning(lost, "fault", 50, "hardware_fault", "high", sig="test.gpu_lost")
    f = _finding("device_ordinal", busy, Support.NAMES)
    facts = _facts(busy_meaning, lost_meaning)
    facts.by_kind["signature"].extend([busy_meaning, lost_meaning])
    rank_findings(facts, [f])
    assert (f.confidence, Support.OUTRANKED in f.support) == ("low", True)
    alone = _finding("device_ordinal", busy, Support.NAMES)
    assert _confidence(alone, busy_meaning) == "high"
