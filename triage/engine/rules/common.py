"""Helpers shared by the rules: evidence selection and the standard triage checklist."""
from __future__ import annotations

from collections.abc import Iterable

from ..facts import Facts, event_sort_key
from ..model import Event, Evidence
from ..signatures import BY_ID, CATALOG

MAX_EVIDENCE = 8
SURVIVABLE = frozenset(s.id for s in CATALOG if s.survivable)
ENDS_WORK = frozenset(s.id for s in CATALOG if s.marks_end)

def evidence(events: Iterable[Event], limit: int = MAX_EVIDENCE) -> list[Evidence]:
    """The earliest lines first, at most one per (source, line), capped."""
    seen: set[tuple[str, int]] = set()
    out: list[Evidence] = []
    for ev in sorted(events, key=event_sort_key):
        key = (ev.source, ev.line)
        if key in seen:
            continue
        seen.add(key)
        out.append(ev.evidence)
        if len(out) >= limit:
            break
    return out


def without(events: list[Event], drop: Iterable[Event]) -> list[Event]:
    """`events` less those in `drop`, by identity: `e not in drop` compares whole dataclasses,
    quadratic in the events (a 16,384-rank watchdog storm spent 20 s on it)."""
    ids = {id(e) for e in drop}
    return [e for e in events if id(e) not in ids]


def spread_evidence(events: list[Event], limit: int = MAX_EVIDENCE) -> list[Evidence]:
    """Evidence from as many ranks as possible: the first line of each rank, then the rest."""
    by_rank: dict[object, Event] = {}
    for ev in sorted(events, key=event_sort_key):
        by_rank.setdefault((ev.rank, ev.host, ev.pid), ev)
    firsts = list(by_rank.values())
    rest = without(events, firsts)
    rest_limit = max(0, limit - len(firsts))
    return evidence(firsts, limit) + evidence(rest, rest_limit)[: max(0, limit - min(len(firsts), limit))]


def ranks_of(events: Iterable[Event]) -> list[int]:
    return sorted({e.rank for e in events if e.rank is not None})


def hosts_of(events: Iterable[Event]) -> list[str]:
    return sorted({e.host for e in events if e.host})


def earliest(events: Iterable[Event]) -> Event | None:
    ordered = sorted(events, key=event_sort_key)
    return ordered[0] if ordered else None


def downstream_exceptions(facts: Facts) -> set[int]:
    """The exceptions (by id) that report another failure rather than being one: the catalog
    reads their line as a symptom (a peer gone, a watchdog timeout, a store timeout, the
    launcher relaying a child's failure), or the exception is c10d relaying an NCCL result (its
    line is c10d's NCCL error report: what NCCL failed on is read from that report and from
    NCCL's own WARN, by the catalog), or the application raised it from such an exception
    (`raise ... from e`: the traceback's 'direct cause' chain), as training loops wrap errors."""
    relayed = {(e.source, e.line) for e in facts.kind("torch_nccl_error")}
    out: set[int] = set()
    downstream_at: set[tuple[str, int]] = set()
    # In reading order, so that a wrapper is seen after the exception it was raised from.
    for ev in sorted(facts.kind("exception"), key=lambda e: (e.source, e.line)):
        meaning = facts.meaning_of(ev)
        wraps = ev.data.get("raised_from_line")
        if ((meaning is not None and meaning.data.get("role") == "symptom") or (ev.source, ev.line) in relayed
                or (wraps is not None and (ev.source, wraps) in downstream_at)):
            out.add(id(ev))
            downstream_at.add((ev.source, ev.line))
    return out


def read_as(facts: Facts, events: Iterable[Event], cause: str, roles: tuple[str, ...] = ("fault", "symptom"),
            fabric: str | None = None) -> list[Event]:
    """The events whose line the catalog reads as `cause` in one of `roles` (and, with `fabric`,
    about that part of the fabric: the entry's `fabric`, `ib` or `socket`): the parser gave who and where,
    the catalog says what it means. A `survivable` entry (the program goes on) is left to the
    catalog's own finding, which counts it only where the run then failed."""
    out = []
    for ev in events:
        meaning = facts.meaning_of(ev)
        if (meaning is not None and meaning.data.get("cause") == cause and meaning.data.get("role") in roles
                and (fabric is None or _fabric(meaning) == fabric)
                and str(meaning.data.get("sig")) not in SURVIVABLE):
            out.append(ev)
    return out


def _fabric(meaning: Event) -> str | None:
    sig = BY_ID.get(str(meaning.data.get("sig")))
    return sig.fabric if sig is not None else None


def nccl_lines(facts: Facts) -> list[Event]:
    """Every NCCL WARN and INFO line (a WARN's text quoted by c10d after 'Last error:' too)."""
    return facts.kind("nccl_warn", "nccl_info")


def upper_first(text: str) -> str:
    return text[:1].upper() + text[1:]


def where(facts: Facts, ev: Event | None) -> str:
    if ev is None:
        return "an unidentified process"
    return facts.rank_label(ev.rank, ev.host)




def normal_ends(facts: Facts) -> list[Event]:
    """Where a process shows it got to the end of its work: NCCL's init.cc tearing a
    communicator down (`- Destroy COMPLETE`, or `- Abort COMPLETE` as torch does at exit without
    destroy_process_group), or a line the catalog says marks the end of the work (`marks_end`:
    torchrun's agent reporting its workers finished)."""
    ends = [e for e in facts.kind("nccl_init") if e.data.get("phase") in ("Destroy COMPLETE", "Abort COMPLETE")]
    return ends + [e for e in facts.kind("signature") if e.data.get("sig") in ENDS_WORK]


def _same_place(a: Event, b: Event) -> bool:
    return a.source == b.source or (a.host is not None and a.host == b.host)


def later_on_same_process(ev: Event, after: Iterable[Event]) -> bool:
    """One of `after` comes later than `ev` in the same source or on the same host."""
    return any(e.order > ev.order and _same_place(e, ev) for e in after)


def earlier_on_same_process(ev: Event, before: Iterable[Event]) -> bool:
    """One of `before` comes earlier than `ev` in the same source or on the same host."""
    return any(e.order < ev.order and _same_place(e, ev) for e in before)


def launcher_first_failure(facts: Facts) -> Event | None:
    """torchrun's own record of the first failed process: the `Root Cause (first observed
    failure)` entry of its ChildFailedError table (torch/distributed/elastic/multiprocessing/
    errors: the failure with the earliest time, one-second resolution), read against the agent's
    own log (_first_not_stopped). None where no table names a rank, or where agents' tables (one
    per node) name different ranks in the same second."""
    roots = [root for e in _root_causes(facts) if (root := _first_not_stopped(facts, e)) is not None]
    if not roots:
        return None
    first = earliest(roots)
    assert first is not None
    if any(e.rank != first.rank and e.time == first.time for e in roots):
        return None
    return first


def launcher_root_cause(facts: Facts) -> Event | None:
    """The rank torchrun's table prints as its Root Cause, as printed (the earliest where agents'
    tables, one per node, name several): what the launcher told the user, to be answered where the
    verdict names another rank. launcher_first_failure is what the engine orders by."""
    return earliest(_root_causes(facts))


def _root_causes(facts: Facts) -> list[Event]:
    """The Root Cause entry of each torchrun failure table (one per node's agent) that names a rank."""
    return [e for e in facts.kind("elastic_failure") if e.data.get("root_cause") and e.rank is not None]


def _stopped_by_agent(facts: Facts, failure: Event) -> bool:
    """Whether the failure's exit is the agent's own stop: the agent's log says it sent this
    process the signal the table says it died of (the catalog's `stopped_pid`, `stopped_signal`).
    The agent stops the survivors once it has observed a failure, so such a process was not the
    first to fail, whatever its time says: the table takes the time of a process that wrote an
    error file from that file (when its exception was recorded), of one that did not from when
    the agent saw it exit (errors.ProcessFailure), and the two clocks do not order each other."""
    if failure.pid is None or failure.data.get("signal") is None:
        return False
    for ev in facts.kind("signature"):
        groups = ev.data.get("groups") or {}
        if (groups.get("stopped_pid") == str(failure.pid) and groups.get("stopped_signal") == failure.data["signal"]
                and _same_place(ev, failure)):
            return True
    return False


def _first_not_stopped(facts: Facts, root: Event) -> Event | None:
    """The table's Root Cause, or where that is a process the agent itself stopped, the one
    failure of the same table that it did not stop (None where that is not one rank, and where
    the table's times do not put the Root Cause first: another process's failure it did not stop
    in the same second, or timed by another clock)."""
    table = [e for e in facts.kind("elastic_failure") if e.source == root.source and e.host == root.host
             and e.rank is not None and not _stopped_by_agent(facts, e)]
    if not _stopped_by_agent(facts, root):
        # A time from an error file against one the agent took when it saw a process exit
        # (`error_file: <N/A>`, often a signal): the root's exception came first, but not
        # necessarily before the other process died.
        if _wrote_error_file(root) and any(e.rank != root.rank and not _wrote_error_file(e) for e in table):
            return None
        # torch takes the earliest time, whole seconds, and among equal times the first failure
        # it recorded (the lowest local rank): a tie is no order.
        if root.time is not None and any(e.rank != root.rank and e.time == root.time for e in table):
            return None
        return root
    ranks = {e.rank for e in table}
    return earliest(table) if len(ranks) == 1 else None


def _wrote_error_file(failure: Event) -> bool:
    path = failure.data.get("error_file")
    return bool(path) and path != "<N/A>"


def before_launcher_saw(ev: Event, root: Event) -> bool:
    """Whether the line's own time puts it before the second in which torchrun recorded its first
    observed failure (the table prints whole seconds): a fault shown earlier by time."""
    if ev.time is None or root.time is None:
        return False
    try:
        return ev.time < root.time
    except TypeError:  # a zoned time against a local one: no order
        return False


def launcher_saw_it(facts: Facts, ev: Event) -> int | None:
    """The rank of torchrun's first observed failure (its table's Root Cause) where a crash line
    that names no rank is that process's: its pid, or the signal the table says it died of where
    no other failure in the tables died of it (faulthandler's 'Fatal Python error: Segmentation
    fault' beside 'exitcode : -11 (pid: N)', 'Signal 11 (SIGSEGV) received by PID N')."""
    if ev.kind not in ("crash_signal", "signal_received"):
        return None
    seen = launcher_first_failure(facts)
    if seen is None:
        return None
    if ev.pid is not None:
        return seen.rank if ev.pid == seen.pid else None
    sig = ev.data.get("signal")
    if sig is None or sig != seen.data.get("signal"):
        return None
    alike = {e.rank for e in facts.kind("elastic_failure") if e.data.get("signal") == sig}
    return seen.rank if alike == {seen.rank} else None


def defer_to_launcher(facts: Facts, crashes: list[Event]) -> list[Event]:
    """The crashes to take the first from: where torchrun's table saw another rank's process fail
    first and no crash on a rank other than that one is shown by its own time before the table's
    second (a traceback printed later, often the crash's echo), only that process's crashes
    (its rank's, or a line naming no rank that launcher_saw_it gives it; none where it printed
    none: its exit, as the launcher reports it, is then the first failure)."""
    first = earliest(crashes)
    seen = launcher_first_failure(facts)
    if first is None or seen is None or first.rank is None or first.rank == seen.rank:
        return crashes
    if any(e.rank != seen.rank and before_launcher_saw(e, seen) for e in crashes):
        return crashes
    return [e for e in crashes if e.rank == seen.rank or (e.rank is None and launcher_saw_it(facts, e) == seen.rank)]
