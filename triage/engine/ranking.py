"""How sure a finding is and where it stands among the others: derived in one place from the
catalog entry of its culprit line (the entry's `confidence`, `role`, `priority`, `survivable`)
and from the facts its rule combined (model.Support), never from a number a rule picked.

A finding's confidence (`confidence`):

- its basis: what the culprit line's entry says on its own where the entry reads the finding's
  own cause (`high` where the message names the cause, `medium` where it points to it, `low` a
  guess), or what the rule's own reading is where it knows more than that line (`Support.NAMES`:
  the fault itself, such as a rank's own failure first in time or versions that differ;
  `Support.POINTS`: a culprit inferred from what the ranks did or did not print); else `low`;
- one step up where a second, independent source agrees (`CORROBORATED`);
- never above `medium` for what follows a failure elsewhere or only sets the scene (the roles
  `symptom` and `context`), for a line the program says it survives (`survivable`), for what
  nothing else in the bundle confirms (`ALONE`), what a fault elsewhere explains (`EXPLAINED`),
  and where several processes show it and which came first is unknown (`UNPLACED`);
- `low` where the evidence is cut off (`INCOMPLETE`), fits another cause as well (`AMBIGUOUS`),
  is explained by a line the catalog names (`OUTRANKED`), or was gone past: the program said it
  goes on and nothing failed after it (`SURVIVED`, then context), or its process reached a
  normal end after it (`WORKED_AROUND`); and where the cause is the residual one (causes.toml
  `residual`: what is left when nothing names more) and no line of the failing process's own is
  its evidence (the roles `symptom` and `inferred`: a launcher's record of who stopped, a peer's
  lost connection, RAS declaring a process dead): that says who stopped, not why.

The order (`rank_findings`): confidence; then what the evidence is (model.ROLE_TIER); then the
earliest; then a finding that names its line; then a cause's own rule before the catalog's; then
reading order; then the entry's priority.
"""
from __future__ import annotations

from datetime import datetime
from typing import Any

from .facts import Facts, event_sort_key
from .model import CONFIDENCE_ORDER, DEFAULT_PRIORITY, ROLE_TIER, Event, Finding, Support
from .signatures import BY_ID
from .signatures import cause as traits
from .signatures.readings import class_cause
from .signatures.schema import Signature

LOW, MEDIUM, HIGH = 1, 2, 3
_NAMES = {level: name for name, level in CONFIDENCE_ORDER.items()}
# The facts that make a finding a guess, and those that keep it below `high`.
_LOWERING = frozenset({Support.INCOMPLETE, Support.AMBIGUOUS, Support.OUTRANKED, Support.SURVIVED,
                       Support.WORKED_AROUND})
_CAPPING = frozenset({Support.ALONE, Support.EXPLAINED, Support.UNPLACED})
_CAPPED_ROLES = frozenset({"symptom", "context"})
_NOT_ITS_OWN = frozenset({"symptom", "inferred"})  # evidence that is not the failing process's own line
_READING = {Support.NAMES: HIGH, Support.POINTS: MEDIUM}


def line_level(meaning: Event | None) -> int:
    """What a line the catalog reads supports on its own: its entry's confidence, a symptom's
    never above medium (a symptom points at a cause, it does not prove it)."""
    if meaning is None:
        return LOW
    level = CONFIDENCE_ORDER.get(str(meaning.data.get("confidence")), LOW)
    return min(level, MEDIUM) if meaning.data.get("role") in _CAPPED_ROLES else level


def sure(meaning: Event | None) -> bool:
    """The catalog is not unsure of the line (its entry's confidence is above `low`)."""
    return meaning is not None and CONFIDENCE_ORDER.get(str(meaning.data.get("confidence")), LOW) > LOW


def outranked(facts: Facts, sig: Signature) -> Event | None:
    """The first line of the bundle that the entry says explains it (`outranked_by`): another
    entry's line, or any fault of a named cause (for `cause:hardware_fault`, also the kernel's
    Xid lines the catalog calls hardware)."""
    if not sig.outranked_by:
        return None
    found: list[Event] = []
    for ref in sig.outranked_by:
        cause = ref[len("cause:"):] if ref.startswith("cause:") else None
        for e in facts.kind("signature"):
            if (e.data.get("sig") == ref or (cause is not None and e.data.get("cause") == cause
                                             and e.data.get("role") == "fault" and sure(e))):
                found.append(e)
        if cause is not None:
            found.extend(e for e in facts.kind("xid") if e.data.get("cause") == cause
                         or class_cause(e.data.get("fault_class")) == cause)
    return min(found, key=event_sort_key) if found else None


def support(facts: Facts, f: Finding) -> Event | None:
    """Fills the finding's `role` and `priority` where its rule left them to the catalog: the
    role and priority of the culprit line's catalog entry (a retry the catalog calls context
    stays context, whatever a rule reads into it). A culprit the catalog does not know is the
    rule's own reading of a failing line (a fault); a finding with no culprit line and no role
    of its rule's is inferred; a line the run survived is context; a line the catalog says is
    explained by another (`outranked_by`) that is in the bundle is outranked. Returns the culprit
    line's catalog reading."""
    c = f.culprit
    meaning = None if c is None else facts.meaning_of(c)
    role = meaning.data.get("role") if meaning is not None else None
    if Support.SURVIVED in f.support:
        f.role = "context"
    entry = BY_ID.get(str(meaning.data.get("sig"))) if meaning is not None else None
    if entry is not None and outranked(facts, entry) is not None:
        # Whichever rule read the line: what the catalog says explains it is in the bundle.
        f.support |= {Support.OUTRANKED}
    if f.role is None:
        # The catalog's `harmless` is context here: a rule that still read a finding from it.
        f.role = (("context" if role == "harmless" else str(role)) if role is not None
                  else "fault" if c is not None else "inferred")
    if f.priority is None:
        f.priority = int((meaning.data.get("priority") if meaning is not None else None) or DEFAULT_PRIORITY)
    return meaning


def confidence(f: Finding, meaning: Event | None) -> str:
    """The finding's confidence from its culprit line's catalog reading and its rule's facts
    (the module's doc). `f.role` is filled (support)."""
    return _NAMES[strength(f, meaning)[0]]


def strength(f: Finding, meaning: Event | None) -> tuple[int, int]:
    """(The finding's confidence level, what its evidence says before the residual cause's
    cap): of two readings of one cause equally sure, the second tells which says more (a
    launcher line the catalog reads as a killed rank, over the same record read with its exit
    code cut off)."""
    level = _level(f, meaning)
    if f.role in _NOT_ITS_OWN and traits(f.cause).residual:
        return LOW, level
    return level, level


def _level(f: Finding, meaning: Event | None) -> int:
    s = f.support
    if s & _LOWERING:
        return LOW
    basis = max((_READING[x] for x in s if x in _READING), default=LOW)
    if meaning is not None and meaning.data.get("cause") == f.cause:
        entry = BY_ID.get(str(meaning.data.get("sig")))
        basis = max(basis, line_level(meaning))
        if entry is not None and entry.survivable:
            basis = min(basis, MEDIUM)
    if Support.CORROBORATED in s:
        basis = min(HIGH, basis + 1)
    if f.role in _CAPPED_ROLES or s & _CAPPING:
        basis = min(basis, MEDIUM)
    return basis


def rank_findings(facts: Facts, findings: list[Finding]) -> list[Finding]:
    """Each finding's role, priority and confidence (support, confidence), then the findings
    most likely first: confidence; then what the evidence is (a named fault, a culprit inferred
    across ranks, a symptom, context: model.ROLE_TIER); then the earliest; then what the evidence
    says before the residual cause's cap (strength); then the cause's own rule before the
    catalog's; then reading order; then the catalog entry's priority (the more specific message
    of one line)."""
    strengths: dict[int, tuple[int, int]] = {}
    for f in findings:
        strengths[id(f)] = strength(f, support(facts, f))
        f.confidence = _NAMES[strengths[id(f)][0]]

    def key(f: Finding) -> tuple[Any, ...]:
        c = f.culprit
        t = (c.time or c.approx_time or datetime.max) if c is not None else datetime.max
        # At equal confidence, tier and time, a finding that names its line before one that
        # names none; then the one whose evidence says more (strength); then a cause's own rule
        # (richer detail) before the catalog's; then reading order, the clock of untimed lines (a
        # log that gains times keeps its verdict); the priority only orders the readings of one
        # line.
        return (-CONFIDENCE_ORDER.get(f.confidence, 0), ROLE_TIER[f.role or "inferred"], t, c is None,
                -strengths[id(f)][1], f.rule.startswith("signature."), c.order if c is not None else 0,
                -(f.priority or DEFAULT_PRIORITY))

    # A cause's own rule reads its evidence more closely than the catalog (sequence numbers,
    # PCI buses, snapshots): where both found the cause, the catalog's finding only counts when
    # it is more confident, or as confident and its evidence says more (strength).
    best_rule: dict[str, tuple[int, int]] = {}
    for f in findings:
        if not f.rule.startswith("signature."):
            best_rule[f.cause] = max(best_rule.get(f.cause, (0, 0)), strengths[id(f)])
    findings = [f for f in findings if not f.rule.startswith("signature.")
                or strengths[id(f)] > best_rule.get(f.cause, (0, 0))]
    ordered = sorted(findings, key=key)
    # One finding per cause: the rules and the catalog may see the same fault through two paths,
    # and a second finding of the verdict's own cause only repeats it.
    seen: set[str] = set()
    out = []
    for f in ordered:
        if f.cause in seen:
            continue
        seen.add(f.cause)
        out.append(f)
    return out
