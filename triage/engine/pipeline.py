"""diagnose(): bundle -> sources -> events -> facts -> findings -> Diagnosis."""
from __future__ import annotations

from datetime import datetime

from .bundle import Budget, BundleError, Input, LimitExceeded, Limits, iter_members
from .facts import build_facts
from .model import Diagnosis
from .reader import READ_ERRORS, Collected, read_member
from .rules import run_rules
from .scan import prefilter
from .timeline import build_timeline
from .timeparse import Clock
from .verdict import first_failure, notes, rank_findings, set_rank_states, summary


def diagnose(inputs: Input, *, limits: Limits | None = None, year: int | None = None) -> Diagnosis:
    """Diagnose a bundle (path) or several labelled bundles ([(label, path), ...]).

    Raises BundleError only when nothing at all could be read.
    """
    budget = Budget(limits or Limits())
    collected = Collected()
    engine = prefilter()
    clock = Clock(year=year or datetime.now().year)
    members = iter_members(inputs, budget)
    try:
        for member in members:
            try:
                read_member(member, collected, budget, engine, clock)
            except LimitExceeded as exc:
                budget.note(f"limit reached: {exc}; the rest was not read")
                break
            except READ_ERRORS as exc:
                budget.note(f"{member.name}: unreadable or truncated ({_short(exc)}); kept what was read before")
    except BundleError:
        raise
    except LimitExceeded as exc:
        budget.note(f"limit reached: {exc}; the rest was not read")
    except READ_ERRORS as exc:
        budget.note(f"bundle unreadable or truncated ({_short(exc)}); kept what was read before")
    finally:
        members.close()
    readable = [s for s in collected.sources if s.kind not in ("binary", "empty")]
    if not readable and budget.problems:
        raise BundleError(budget.problems[0])
    if not collected.sources and not budget.problems:
        raise BundleError("the bundle contains no files")

    facts = build_facts(collected, budget.problems)
    findings = rank_findings(run_rules(facts))
    ff, culprit = first_failure(facts, findings)
    set_rank_states(facts, findings, culprit)
    return Diagnosis(
        summary=summary(facts, findings, culprit),
        findings=findings,
        first_failure=ff,
        ranks=list(facts.ranks.values()),
        problems=list(budget.problems),
        notes=notes(facts, findings),
        sources=[
            {
                "name": s.name,
                "kind": s.kind,
                "lines": s.lines,
                "bytes": s.bytes,
                "host": s.file_origin.host,
                "rank": s.file_origin.rank,
            }
            for s in collected.sources
        ],
        versions=facts.versions,
        timeline=build_timeline(facts, culprit, ff),
        snapshots=[doc for _name, doc in collected.docs.snapshots],
        health=[doc for _name, doc in collected.docs.smoke_results],
    )


def _short(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0][:200]
