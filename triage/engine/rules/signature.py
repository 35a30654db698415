"""Findings straight from the catalog: a line whose message names its cause (a WARN, a CUDA
error string, an Xid, a c10d or launcher message), wherever it appeared. One finding per cause:
the rank's own faults first, the earliest of the most confident; symptoms only when no fault of
that cause was seen, and never above `medium` (a symptom points at a cause, it does not prove it).
"""
from __future__ import annotations

import re
from collections import defaultdict

from ..facts import Facts
from ..model import Event, Finding, Support
from ..ranking import HIGH, line_level, outranked, sure
from ..signatures import BY_ID
from ..signatures import cause as traits
from ..signatures.schema import CATCH_ALL_PRIORITY, Signature
from .common import (
    defer_to_launcher,
    earliest,
    evidence,
    hosts_of,
    later_on_same_process,
    normal_ends,
    ranks_of,
    upper_first,
    where,
)

_PLACEHOLDER = re.compile(r"\{([a-z_]+)\}")


# How prose reads where a value is not in the logs: the word that stands for it, or "" to leave
# it out ("Process {process} (pid 2203)" -> "Process (pid 2203)").
_UNKNOWN_WORDS = {"process": "the process", "name": "the process", "pid": "its process", "host": "its host",
                  "rank": "the rank", "culprit_rank": "the rank", "device": "its GPU", "gpu": "its GPU"}
_LABELLED = re.compile(r"(?:\b(?:pid|[Rr]ank|GPU|[Dd]evice|[Hh]ost|[Nn]ode) )?<<(?P<key>[a-z_]+)>>")
_PAREN = re.compile(r" ?\(([^()]*)\)")


def fill(template: str, ev: Event, facts: Facts | None = None) -> str:
    """The fix with what the finding knows filled in: the line's own values, then its rank's
    (pid, host, GPU from the rank table). In a command (`$ ` lines) an unknown value stays a
    visible `<name>` argument, for whoever runs it (the page fills it where it knows it); in
    prose it is worded away, so no `<process>` is left in a sentence: a parenthesis loses it
    (and is dropped when nothing is left), elsewhere a word stands for it."""
    known: dict[str, object] = {k: v for k, v in (ev.data.get("groups") or {}).items() if v}
    for key in ("device", "pid", "host", "rank"):
        value = getattr(ev, key)
        if value is not None:
            known.setdefault(key, value)
    info = facts.ranks.get(ev.rank) if facts is not None and ev.rank is not None else None
    if info is not None:
        own = {"host": info.host, "device": info.device, "pid": info.pid if ev.host in (None, info.host) else None}
        for key, value in own.items():
            if value is not None:
                known.setdefault(key, value)
    if "device" in known:
        known.setdefault("gpu", known["device"])
    lines = []
    for line in template.split("\n"):
        if line.startswith("$ "):
            lines.append(_PLACEHOLDER.sub(lambda m: str(known[m[1]]) if m[1] in known else f"<{m[1]}>", line))
        else:
            lines.append(_prose(_PLACEHOLDER.sub(lambda m: str(known[m[1]]) if m[1] in known else f"<<{m[1]}>>", line)))
    return "\n".join(lines)


def _prose(line: str) -> str:
    if "<<" not in line:
        return line

    def paren(m: re.Match[str]) -> str:
        inner = _LABELLED.sub("", m[1]).strip(" ,;:")
        return f" ({inner})" if inner else ""

    line = _PAREN.sub(lambda m: paren(m) if "<<" in m[1] else m[0], line)
    line = re.sub(r"\b([Pp]rocess) <<(?:process|name)>> ", r"\1 ", line)
    worded = re.sub(r"  +", " ", _LABELLED.sub(lambda m: _UNKNOWN_WORDS.get(m["key"], "(not in the log)"), line))
    return worded[:1].upper() + worded[1:] if line[:1].isupper() else worded


def catalog_fix(facts: Facts, ev: Event | None, cause: str, own: str) -> str:
    """The fix of a rule's finding whose line is `ev`: the line's catalog entry's, with what the
    line tells filled in, where the catalog reads that line as the finding's own cause and says
    something specific (no catch-all); else `own`, the rule's fix for what only the rule sees (a
    line the catalog reads otherwise or does not know)."""
    meaning = None if ev is None else facts.meaning_of(ev)
    if meaning is None or meaning.data.get("cause") != cause or meaning.data.get("role") not in ("fault", "symptom"):
        return own
    sig = BY_ID.get(str(meaning.data.get("sig")))
    if sig is None or sig.priority <= CATCH_ALL_PRIORITY:
        return own
    return fill(sig.fix, meaning, facts)


def _survivable(facts: Facts) -> list[Event]:
    """Where processes finished normally (common.normal_ends), or nothing when anything says a
    process failed: any error besides NCCL's own warnings (an exception, a watchdog, c10d's
    NCCL error report, an Xid). A fault followed by one of these on its own process was a
    warning NCCL printed and then worked around (a /sys path a container hides, an address
    change it recovered from): no cause of anything."""
    warns = {(e.source, e.line) for e in facts.kind("nccl_warn")}
    if any(e.severity in ("error", "fatal") and (e.source, e.line) not in warns for e in facts.events):
        return []
    return normal_ends(facts)


def _failure_besides(facts: Facts, ev: Event, after: bool) -> bool:
    """Anything else in the bundle says a process failed: an error or fatal line other than
    `ev`'s own (and other than survivable entries); with `after`, not earlier on `ev`'s process."""
    for e in facts.events:
        if e.line == ev.line and e.source == ev.source:
            continue
        if after and e.order < ev.order and e.source == ev.source:
            continue
        if e.kind == "signature":
            sig = BY_ID.get(str(e.data.get("sig")))
            if (sig is not None and not sig.survivable and e.data.get("role") in ("fault", "symptom")
                    and e.data.get("cause") and sure(e)):
                return True
        elif e.severity in ("error", "fatal") and e.data.get("exitcode") != 0:
            return True
    return False


def earned(facts: Facts, ev: Event, sig: Signature) -> tuple[frozenset[Support], str]:
    """What the bundle adds to the entry's line (the facts the ranker weighs), and why it makes
    the line weigh less: a survivable message the program went on from with nothing failing
    after it; a line another one in the bundle explains (`outranked_by`); a line the catalog
    names the cause by with nothing failing around it, which nothing else confirms."""
    if sig.survivable and not _failure_besides(facts, ev, after=True):
        return (frozenset({Support.SURVIVED}),
                " The program said it falls back and goes on, and nothing failed after it.")
    above = outranked(facts, sig)
    if above is not None:
        return (frozenset({Support.OUTRANKED}),
                f" Outranked by an earlier-named cause in the same bundle: {above.message[:160]}")
    if not sig.survivable and line_level(ev) == HIGH and not _failure_besides(facts, ev, after=False):
        return frozenset({Support.ALONE}), " It is the only failing line in these logs; nothing else confirms it."
    return frozenset(), ""


def find(facts: Facts) -> list[Finding]:
    by_cause: dict[str, list[Event]] = defaultdict(list)
    for ev in facts.kind("signature"):
        if ev.data.get("role") in ("fault", "symptom") and ev.data.get("cause"):
            by_cause[str(ev.data["cause"])].append(ev)
    findings: list[Finding] = []
    ends = _survivable(facts) if by_cause else []
    for cause, events in by_cause.items():
        faults = [e for e in events if e.data.get("role") == "fault"]
        pool = faults or events
        best = max(line_level(e) for e in pool)
        top = [e for e in pool if line_level(e) == best]
        if traits(cause).residual:
            # A crash that names nothing more specific (the residual cause) on a rank other than the
            # one torchrun's table saw fail first, and no line shows by time before it: that one's line,
            # or none (the crash rule's exit report stands).
            top = defer_to_launcher(facts, top)
        first = earliest(top)
        if first is None:
            continue
        sig = BY_ID[str(first.data["sig"])]
        role = str(first.data["role"])
        # A fallback the program announced and then went on from, with nothing failing after it
        # (SURVIVED): context for whoever reads the report, not a failure (no first failure, no
        # crashed rank).
        facts_of, why = earned(facts, first, sig)
        if later_on_same_process(first, ends):
            facts_of |= {Support.WORKED_AROUND}
        findings.append(Finding(
            cause=cause,
            rule=f"signature.{sig.id}",
            title=f"{sig.title} on {where(facts, first)}",
            detail=(f"{upper_first(where(facts, first))} printed: {first.message[:300]}"
                    + ("" if role == "fault" else " This message usually follows a failure elsewhere; no fault of this "
                       "kind was found on the rank itself.")
                    + why + f" (signature {sig.id}: {sig.origin})"),
            fix=fill(sig.fix, first, facts),
            ranks=ranks_of([first]), hosts=hosts_of([first]),
            evidence=evidence([first] + sorted(pool, key=lambda e: e.order)),
            culprit=first, support=facts_of,
        ))
    return findings
