"""diagnose(): bundle -> sources -> events -> facts -> findings -> Diagnosis."""
from __future__ import annotations

import gc

from .bundle import BundleError, Input, Limits
from .facts import build_facts
from .model import Diagnosis, one_text_per_time
from .parallel import read_state
from .partial import PartialState, merge
from .ranking import rank_findings
from .rules import run_rules
from .rules.flight_recorder import collectives
from .timeline import build_timeline
from .verdict import first_failure, name_the_culprit, notes, set_rank_states, summary


def diagnose(inputs: Input, *, limits: Limits | None = None, year: int | None = None,
             workers: int | None = None) -> Diagnosis:
    """Diagnose a bundle (path) or several labelled bundles ([(label, path), ...]). A large
    folder is read on `workers` processes (default: the cores available; parallel.py), with
    the diagnosis of reading it on one.

    Raises BundleError only when nothing at all could be read.
    """
    return conclude([read_state(inputs, limits=limits, year=year, workers=workers)])


def conclude(states: list[PartialState]) -> Diagnosis:
    """Merge partial states (see partial.py) and run the rules: the diagnosis of all of them."""
    # What was read lives until the diagnosis is made and holds no cycles: kept out of the
    # collector's passes meanwhile (a bundle of 16,384 ranks holds 365,000 events, and each full
    # collection walked them all again: 20% of the rules' time).
    gc.freeze()
    try:
        with one_text_per_time():
            return _conclude(states)
    finally:
        gc.unfreeze()


def _conclude(states: list[PartialState]) -> Diagnosis:
    state = states[0] if len(states) == 1 else merge(states)
    collected, problems = state.collected, state.problems
    readable = [s for s in collected.sources if s.kind not in ("binary", "empty")]
    if not readable and problems:
        raise BundleError(problems[0])
    if not collected.sources and not problems:
        raise BundleError("the bundle contains no files")

    facts = build_facts(collected, problems)
    findings = rank_findings(facts, run_rules(facts))
    ff, culprit = first_failure(facts, findings)
    set_rank_states(facts, findings, culprit, ff)
    named = ff.get("rank") if ff else None
    name_the_culprit(facts, findings, culprit, named)
    told, unknown = summary(facts, findings, culprit, named), notes(facts, findings)
    # The verdict is made: the timeline reads only the events and the rank table, and drawing
    # it is the peak of a diagnosis (see Facts.release_indexes).
    facts.release_indexes()
    return Diagnosis(
        summary=told,
        findings=findings,
        first_failure=ff,
        ranks=list(facts.ranks.values()),
        problems=list(problems),
        notes=unknown,
        sources=[
            {
                "name": s.name,
                "kind": s.kind,
                "lines": s.lines,
                "bytes": s.bytes,
                "host": s.file_origin.host,
                "rank": s.file_origin.rank,
            }
            for s in sorted(collected.sources, key=lambda s: s.name)  # (read in content order: facts)
        ],
        versions=facts.versions,
        timeline=build_timeline(facts, culprit, ff),
        snapshots=[doc for _name, doc in collected.docs.snapshots],
        health=[doc for _name, doc in collected.docs.smoke_results],
        collectives=collectives(facts),
    )


