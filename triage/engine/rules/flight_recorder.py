"""collective_timeout_straggler from PyTorch Flight Recorder dumps matched across ranks
(forensics.match): the rank that never enqueued the collective the others wait in, or that ran a
different op, size or dtype at the same sequence id, or had not started it."""
from __future__ import annotations

from typing import Any

from ..facts import Facts, dump_rank
from ..forensics.match import match
from ..model import Event, Evidence, Finding, Support, from_epoch
from ..signatures import cause as traits
from ..signatures import fix_text
from .collective_timeout_straggler import FIX

RULE = {
    "missing": "collective_timeout_straggler.flight_recorder_missing_rank",
    "op_mismatch": "collective_timeout_straggler.flight_recorder_mismatch",
    "size_mismatch": "collective_timeout_straggler.flight_recorder_mismatch",
    "dtype_mismatch": "collective_timeout_straggler.flight_recorder_mismatch",
    "lagging": "collective_timeout_straggler.flight_recorder_lagging_rank",
    "no_dump": "collective_timeout_straggler.flight_recorder_no_dump",
}
# The dumps record a different call at one sequence id (the fault itself), or a rank's
# absence from a collective the others are in (the culprit inferred from what is missing).
ROLE = {"missing": "inferred", "op_mismatch": "fault", "size_mismatch": "fault", "dtype_mismatch": "fault",
        "lagging": "inferred", "no_dump": "inferred"}
RECORDED = frozenset({"missing", "op_mismatch", "size_mismatch", "dtype_mismatch"})
TITLE = {
    "missing": "Straggler (flight recorder): {who} never enqueued {op} #{seq}",
    "op_mismatch": "Desync (flight recorder): {who} ran a different collective at #{seq}",
    "size_mismatch": "Desync (flight recorder): {who} ran #{seq} with different sizes",
    "dtype_mismatch": "Desync (flight recorder): {who} ran #{seq} with different dtypes",
    "lagging": "Straggler (flight recorder): {who} had not started {op} #{seq}",
    "no_dump": "Collective hang (flight recorder): {who} left no dump while the others waited in #{seq}",
}
FIX_DUMPS = fix_text("flight_recorder.dumps")

_cache: tuple[int, Any, dict[str, Any], list[dict[str, Any]]] | None = None


SHOWN_RANKS = 6  # ranks named in the title


def collectives(facts: Facts) -> dict[str, Any] | None:
    """The cross-rank report of the bundle's dumps (None without dumps), ranks taken from the
    collector manifest where it names the dump's file, else from the writer's file name."""
    records = facts.docs.flight_records
    if not records:
        return None
    if _cache is not None and _cache[0] == id(records) and _cache[1] is records:
        return _cache[2]
    report, _dumps = _match(facts)
    return report


def ranked_dumps(facts: Facts) -> list[dict[str, Any]]:
    """The dump summaries with the rank the report used."""
    collectives(facts)
    return _cache[3] if _cache is not None and _cache[1] is facts.docs.flight_records else []


def _match(facts: Facts) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    global _cache  # noqa: PLW0603 - the module-wide cache of the matched flight records
    records = facts.docs.flight_records
    dumps = []
    for name, rank, summary in records:
        if not isinstance(summary, dict) or "groups" not in summary:
            continue
        dumps.append(dict(summary, rank=dump_rank(facts, name, rank, summary)))
    report = match(dumps)
    _cache = (id(records), records, report, dumps)
    return report, dumps


def _own_faults(facts: Facts, ranks: list[int]) -> list[Event]:
    """A fault the culprit rank printed itself (an OOM, a crash, an Xid): that is the story,
    the dumps only show its consequence."""
    return [e for e in facts.kind("signature") if e.rank in ranks and e.data.get("role") == "fault"
            and e.data.get("cause") is not None and not traits(e.data.get("cause")).waits]


def find(facts: Facts) -> list[Finding]:
    report = collectives(facts)
    culprit = report["culprit"] if report else None
    if not culprit:
        return []
    kind, ranks, seq = culprit["kind"], culprit["ranks"], culprit["seq"]
    who = ", ".join(f"rank {r}" for r in ranks[:SHOWN_RANKS]) + (" …" if len(ranks) > SHOWN_RANKS else "")
    op = culprit["text"].split(" never enqueued ", 1)[-1].split(" #", 1)[0] if kind == "missing" else "collective"
    if kind == "lagging":
        op = culprit["text"].split(" had not started ", 1)[-1].split(" #", 1)[0]
    explained = _own_faults(facts, ranks)
    # The dumps record the culprit's absence from, or a different call at, the collective the
    # others are in (NAMES); a rank that had not started it or left no dump is inferred (POINTS).
    facts_of = {Support.NAMES if kind in RECORDED else Support.POINTS}
    detail = culprit["text"][:1].upper() + culprit["text"][1:] + "."
    if culprit["desc"] and culprit["desc"] not in ("default_pg", "undefined"):
        detail += f" Process group {culprit['pg']} ({culprit['desc']})."
    if explained:
        # The rank's own fault explains why it never got there: that finding leads.
        facts_of.add(Support.EXPLAINED)
        detail += f" Rank {explained[0].rank} had already failed on its own: {explained[0].message[:160]}"
    evidence = [Evidence(src, 1, text) for src, text in culprit["sources"]][:8]
    when = from_epoch(culprit["started_ns"] / 1e9) if culprit.get("started_ns") else None
    first_src = evidence[0].source if evidence else ""
    event = Event(kind="fr_culprit", source=first_src, line=1, text=culprit["text"][:500], severity="error",
                  message=culprit["text"][:500], rank=ranks[0] if ranks else None,
                  host=facts.ranks[ranks[0]].host if ranks and ranks[0] in facts.ranks else None, time=when, seq=seq)
    return [Finding(
        cause="collective_timeout_straggler", rule=RULE[kind], support=frozenset(facts_of),
        title=TITLE[kind].format(who=who or "some ranks", op=op, seq=seq),
        detail=detail, fix=FIX + FIX_DUMPS, ranks=list(ranks),
        hosts=sorted({facts.ranks[r].host or "" for r in ranks if r in facts.ranks and facts.ranks[r].host}),
        evidence=evidence, role=ROLE[kind], culprit=event if ranks else None,
    )]
