"""Findings straight from the catalog: a line whose message names its cause (a WARN, a CUDA
error string, an Xid, a c10d or launcher message), wherever it appeared. One finding per cause:
the rank's own faults first, the earliest of the most confident; symptoms only when no fault of
that cause was seen, and never above `medium` (a symptom points at a cause, it does not prove it).
"""
from __future__ import annotations

import re
from collections import defaultdict

from ..facts import Facts
from ..model import CONFIDENCE_ORDER, Event, Finding
from ..signatures import CATALOG
from ..signatures.schema import Signature
from .common import earliest, evidence, hosts_of, later_on_same_process, normal_ends, ranks_of, upper_first, where

BY_ID: dict[str, Signature] = {s.id: s for s in CATALOG}
_PLACEHOLDER = re.compile(r"\{([a-z_]+)\}")
# Weights against the other rules (verdict.ROOT_WEIGHT is 75: at or above, a real fault).
WEIGHT = {("fault", "high"): 78, ("fault", "medium"): 72, ("fault", "low"): 40,
          ("symptom", "high"): 45, ("symptom", "medium"): 40, ("symptom", "low"): 25}


def fill(template: str, ev: Event) -> str:
    """The fix with what the finding knows filled in; unknown values stay visible placeholders."""
    known: dict[str, object] = {k: v for k, v in (ev.data.get("groups") or {}).items() if v}
    for key in ("device", "pid", "host", "rank"):
        value = getattr(ev, key)
        if value is not None:
            known.setdefault(key, value)
    if ev.device is not None:
        known.setdefault("gpu", ev.device)
    return _PLACEHOLDER.sub(lambda m: str(known[m.group(1)]) if m.group(1) in known else f"<{m.group(1)}>", template)


def _confidence(ev: Event) -> str:
    conf = str(ev.data.get("confidence") or "low")
    if ev.data.get("role") == "symptom" and conf == "high":
        return "medium"
    return conf


def _survivable(facts: Facts) -> list[Event]:
    """Where processes finished normally (common.normal_ends), or nothing when anything says a
    process failed: any error besides NCCL's own warnings (an exception, a watchdog, c10d's
    NCCL error report, an Xid). A fault followed by one of these on its own process was a
    warning NCCL printed and then worked around (a /sys path a container hides, an address
    change it recovered from): no cause of anything."""
    if any(e.severity in ("error", "fatal") and "NCCL WARN" not in e.text for e in facts.events):
        return []
    return normal_ends(facts)


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
        best = max(CONFIDENCE_ORDER[_confidence(e)] for e in pool)
        top = [e for e in pool if CONFIDENCE_ORDER[_confidence(e)] == best]
        first = earliest(top)
        assert first is not None
        sig = BY_ID[str(first.data["sig"])]
        role = str(first.data["role"])
        confidence = "low" if later_on_same_process(first, ends) else _confidence(first)
        findings.append(Finding(
            cause=cause,
            rule=f"signature.{sig.id}",
            confidence=confidence,
            title=f"{sig.title} on {where(facts, first)}",
            detail=(f"{upper_first(where(facts, first))} printed: {first.message[:300]}"
                    + ("" if role == "fault" else " This message usually follows a failure elsewhere; no fault of this "
                       "kind was found on the rank itself.")
                    + f" (signature {sig.id}: {sig.origin})"),
            fix=fill(sig.fix, first),
            ranks=ranks_of([first]), hosts=hosts_of([first]),
            evidence=evidence([first] + sorted(pool, key=lambda e: e.order)),
            weight=WEIGHT.get((role, confidence), 30) + min(sig.priority, 90) // 30,
            culprit=first,
        ))
    return findings
