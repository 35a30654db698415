"""rank_crash: a rank died first (Python exception, segfault, abort, killed); the NCCL errors
of the other ranks are downstream. Raising the timeout is never the fix for a crashed rank."""
from __future__ import annotations

import signal

from ..facts import Facts
from ..model import Event, Finding, Support
from ..ranking import sure
from ..signatures import cause as traits
from ..signatures import fix_text
from .collective_timeout_straggler import failed_in_group, silent_ranks, waiting_events
from .common import (
    defer_to_launcher,
    downstream_exceptions,
    earliest,
    evidence,
    hosts_of,
    ranks_of,
    upper_first,
    where,
)
from .signature import catalog_fix

FIX = fix_text("rank_crash")
FIX_SIGKILL = fix_text("rank_crash.sigkill")
FIX_SEGV = fix_text("rank_crash.segv")
APP_CLASS = "app"  # readings.cuda_class: a CUDA error the catalog reads as the program's own
SIGNAL_EXITS = {"SIGKILL", "SIGSEGV", "SIGABRT", "SIGBUS", "SIGILL", "SIGFPE"}


def named_elsewhere(facts: Facts, ev: Event) -> bool:
    """The catalog says what this line means, and it is not 'a rank crashed': an exception whose
    own text names a store timeout, a duplicate GPU or a network error is that cause's evidence
    (the signature rule reports it), and a symptom is downstream of another rank's failure."""
    meaning = facts.meaning_of(ev)
    if meaning is None or meaning.data.get("role") not in ("fault", "symptom"):
        return False
    return not traits(meaning.data.get("cause")).residual or meaning.data.get("role") == "symptom"


def _names_other_fault(facts: Facts, ev: Event) -> bool:
    """The catalog reads the line as a fault of another cause (`other` too: an MPS daemon, a
    licence, a driver that cannot initialise are no bug of the rank's), and is not unsure of it."""
    meaning = facts.meaning_of(ev)
    if meaning is None or meaning.data.get("role") != "fault":
        return False
    named = meaning.data.get("cause")
    return named is not None and not traits(named).residual and sure(meaning)


def crash_events(facts: Facts) -> list[Event]:
    """Real faults of a process, excluding downstream NCCL/dist errors and exceptions whose own
    message names a more specific cause."""
    out: list[Event] = []
    # A traceback cut off before its exception line names nothing: it counts only where no line
    # of the bundle says anything at all.
    said = any(e.data.get("cause") for e in facts.kind("signature"))
    downstream = downstream_exceptions(facts)
    # An exception whose line is a CUDA error is that error's: the cuda_error event below says it.
    cuda_lines = {(e.source, e.line) for e in facts.kind("cuda_error", "cuda_oom")}
    for ev in facts.kind("exception"):
        if (id(ev) in downstream or named_elsewhere(facts, ev) or (said and ev.data.get("cut_off"))
                or (ev.source, ev.line) in cuda_lines):
            continue
        out.append(ev)
    torn_down = watchdog_ranks(facts)
    for ev in facts.kind("crash_signal", "signal_received"):
        if ev.data.get("signal") == "SIGABRT" and (ev.rank in torn_down or (ev.rank is None and torn_down)):
            continue  # the watchdog's own abort after a timeout
        if ev.data.get("signal") == "SIGBUS" or named_elsewhere(facts, ev):
            continue  # a bus error is /dev/shm running out (shm_exhausted reads it)
        out.append(ev)
    # 'terminate called ...' is only as much a root cause as its what(): an NCCL error
    # rethrown by the watchdog is downstream (the catalog reads it), an application exception is not.
    for ev in facts.kind("terminate_what"):
        if not named_elsewhere(facts, ev):
            out.append(ev)
    for ev in facts.kind("cuda_error"):
        # The parser's short table leaves most cudaError_t texts 'other'; the catalog knows them
        # all (peer access unsupported is P2P, not the rank's own bug). The line may also carry
        # a wrapper the catalog reads as a symptom (the watchdog rethrowing it): the CUDA error
        # is still this rank's own.
        if ev.data.get("error_class") in ("app", "app_or_hw", "other", "driver") and not _names_other_fault(facts, ev):
            out.append(ev)
    for ev in facts.kind("xid"):
        if ev.data.get("fault_class") == "app":
            out.append(ev)
    return out


def fault_elsewhere(facts: Facts, ev: Event, cause: str) -> bool:
    """Another process (another rank, or another file where ranks are unknown) had a fault of
    its own, other than `cause`: then `ev`, a peer's dropped link or store error, is its echo."""
    return any((e.rank != ev.rank or e.source != ev.source) and e.data.get("cause") != cause for e in own_faults(facts))


def own_faults(facts: Facts) -> list[Event]:
    """Faults that end a process: crashes, OOMs, hardware Xids, and any catalog fault the catalog
    is sure of whose cause is not a slow rank (a wrong device or version kills a rank as surely
    as an OOM)."""
    return crash_events(facts) + facts.kind("cuda_oom", "host_oom_kill") + [
        e for e in facts.kind("xid") if e.data.get("fault_class") == "hardware"
    ] + [e for e in facts.kind("signature") if e.data.get("role") == "fault" and sure(e)
         and e.data.get("cause") is not None and not traits(e.data.get("cause")).stalls]


def watchdog_ranks(facts: Facts) -> set[int | None]:
    """Ranks whose watchdog gave up: they abort themselves (SIGABRT, -6) as NCCL's teardown."""
    return {e.rank for e in facts.kind("watchdog_timeout", "watchdog_terminated", "heartbeat_timeout",
                                       "torch_nccl_error")}


def exit_events(facts: Facts) -> list[Event]:
    torn_down = watchdog_ranks(facts)
    # A rank whose only exceptions are downstream (peer gone, NCCL error) exited because of
    # another rank, even when the launcher observed its exit first.
    exceptions = facts.kind("exception")
    downstream = downstream_exceptions(facts)
    victims = {e.rank for e in exceptions if e.rank is not None and id(e) in downstream} - {
        e.rank for e in exceptions if id(e) not in downstream
    }
    out = []
    for ev in facts.kind("process_exit", "elastic_failure"):
        code = ev.data.get("exitcode")
        if code == -signal.SIGTERM:  # the launcher stopping survivors after another rank failed
            continue
        if code == -signal.SIGABRT and (ev.rank in torn_down or (ev.rank is None and torn_down)):
            continue
        if code is not None and code > 0 and ev.rank in victims:
            continue
        out.append(ev)
    return out


def hardware_ranks(facts: Facts) -> tuple[set[int], set[str]]:
    xids = [e for e in facts.kind("xid") if e.data.get("fault_class") == "hardware"]
    return {e.rank for e in xids if e.rank is not None}, {e.host for e in xids if e.host and e.rank is None}


def find(facts: Facts) -> list[Finding]:
    hw_ranks, hw_hosts = hardware_ranks(facts)
    # A crash on a GPU with a hardware Xid is that fault's consequence: hardware_fault reports it.
    crashes = [e for e in crash_events(facts) if e.rank not in hw_ranks and not (e.rank is None and e.host in hw_hosts)]
    exits = exit_events(facts)
    findings: list[Finding] = []
    crashes = defer_to_launcher(facts, crashes)
    first = earliest(crashes)
    if first is not None:
        same_rank_exits = [e for e in exits if e.rank is not None and e.rank == first.rank]
        what = _describe(first)
        sig = first.data.get("signal")
        fix = FIX_SIGKILL if sig == "SIGKILL" else FIX_SEGV if sig in ("SIGSEGV", "SIGABRT") else FIX
        # The first own fault of a process; where several processes crashed and the first one's
        # rank is unknown, which came first is not placed. A traceback without its exception
        # line names no cause at all.
        # A CUDA error the catalog does not place (its class `other` or `driver`: no entry, or one
        # unsure of it) is the rank's own failure, but not named as its program's: it points.
        placed = first.kind != "cuda_error" or first.data.get("error_class") == APP_CLASS
        crash_facts = {Support.NAMES if placed else Support.POINTS}
        if first.rank is None and len(ranks_of(crashes)) > 1:
            crash_facts.add(Support.UNPLACED)
        if first.data.get("cut_off"):
            crash_facts.add(Support.INCOMPLETE)
        findings.append(Finding(
            cause="rank_crash",
            rule={"exception": "rank_crash.exception", "cuda_error": "rank_crash.cuda_error",
                  "xid": "rank_crash.xid"}.get(first.kind, "rank_crash.signal"),
            title=f"{upper_first(where(facts, first))} crashed first: {what}",
            detail=(f"{upper_first(where(facts, first))} failed with {what}"
                    + (f" at {first.data['frame']}" if first.data.get("frame") else "")
                    + ". Errors on the other ranks (NCCL errors, watchdog timeouts, SIGTERM from the launcher) "
                      "follow from it."),
            fix=catalog_fix(facts, first, "rank_crash", fix),
            ranks=ranks_of([first] + same_rank_exits), hosts=hosts_of([first] + same_rank_exits),
            evidence=evidence([first] + crashes + same_rank_exits), culprit=first,
            # The rank's own failure, whatever wrapper the catalog reads around it (a CUDA error
            # the watchdog rethrows).
            role="fault", support=frozenset(crash_facts),
        ))
        return findings
    if exits:
        root = [e for e in exits if e.data.get("root_cause")] or exits
        first = earliest(root)
        assert first is not None
        code = first.data.get("exitcode")
        sig = first.data.get("signal")
        if sig == "SIGBUS":
            return findings  # shm_exhausted reads SIGBUS
        what = (f"exit code {code}" + (f" ({sig})" if sig else "") if code is not None
                else "an exit whose code was cut off")
        fix = FIX_SIGKILL if sig == "SIGKILL" else FIX_SEGV if sig in ("SIGSEGV", "SIGABRT") else FIX
        known = first.rank is not None and code is not None
        # An exit code the process chose (1: Python gave up) says only that it failed; where the
        # logs name a fault, that fault is why, and this exit tells who stopped first.
        explained = sig is None and code is not None and code > 0 and bool(own_faults(facts))
        # torchrun's 'first observed failure' is the first entry of its failures sorted by time
        # (one-second resolution): other ranks that exited the same way in the same second make
        # that choice arbitrary, so no single rank is named.
        when = first.data.get("failure_time")
        tied = [e for e in exits if e is not first and e.kind == "elastic_failure" and when is not None
                and e.data.get("failure_time") == when and e.data.get("exitcode") == code] if sig is None else []
        if tied:
            root = [first] + tied
        who = (f"ranks {', '.join(str(r) for r in ranks_of(root))} (the same second)" if tied
               else where(facts, first))
        findings.append(Finding(
            cause="rank_crash", rule="rank_crash.exit",
            title=f"{upper_first(who)} exited first with {what}",
            detail=(f"The launcher reports {who} exiting with {what}"
                    + (", after a fault named in these logs (see the other findings): that fault is the likely reason. "
                       if explained else " and no traceback in these logs. ")
                    + "The other ranks were stopped after it."
                    + ("" if explained else " Its own stderr/log is needed to say why.")),
            fix=fix, ranks=ranks_of(root), hosts=hosts_of(root), evidence=evidence(root),
            # Who stopped first, inferred from the launcher's record; an echo where a fault named
            # in the logs explains it or the record names no process.
            role="inferred" if known and not explained else "symptom", culprit=None if tied else first,
            # A record with no rank or no exit code tells neither who nor how.
            support=frozenset({Support.POINTS} if known else {Support.POINTS, Support.INCOMPLETE}),
        ))
    return findings or _left_first(facts)


def _left_first(facts: Facts) -> list[Finding]:
    """No rank's own failure and no launcher record of an exit (torchrun crashed before its
    report, or there is no launcher log): where every rank of the world but one saw its peer go
    (what the catalog calls a symptom of a crashed rank: gloo's 'Connection closed by peer') and
    that one printed nothing of the kind, it is the one that left first, with no last words.
    Timeouts are the straggler rule's (a rank that stopped while the others waited)."""
    waited = waiting_events(facts)
    if waited:
        return []
    lost = failed_in_group(facts, waited)
    silent = silent_ranks(facts, lost)
    if len(silent) != 1 or silent[0].elsewhere:
        return []
    gone = silent[0]
    label = facts.rank_label(gone.rank)
    info = facts.ranks.get(gone.rank)
    own_files = [src.file_origin.host for src in facts.sources if src.file_origin.rank == gone.rank]
    return [Finding(
        cause="rank_crash", rule="rank_crash.left_first",
        title=f"{upper_first(label)} left first with no error of its own; the other ranks lost their connection to it",
        detail=(f"{', '.join(f'Rank {r}' for r in gone.waiting)} reported that a peer closed its connection; "
                f"{label} printed no error"
                + (f" (its last line, {gone.last_line.source}:{gone.last_line.line}: "
                   f"{gone.last_line.text.strip()[:200]})" if gone.last_line else "")
                + ". A process that stops with no last words was most often killed (SIGKILL). This is inferred from "
                  "absence."),
        fix=FIX_SIGKILL, ranks=[gone.rank],
        hosts=sorted({h for h in [info.host if info else None, *own_files] if h}),
        evidence=([gone.last_line] if gone.last_line else []) + evidence(lost, 4),
        role="inferred", culprit=None, support=frozenset({Support.POINTS}),
    )]


def _describe(ev: Event) -> str:
    if ev.kind == "exception":
        if ev.data.get("cut_off"):
            return "a Python exception (traceback cut off before its message)"
        msg = ev.data.get("exc_message") or ""
        return f"{ev.data.get('exc_type')}: {msg[:160]}" if msg else str(ev.data.get("exc_type"))
    if ev.kind == "cuda_error":
        return f"CUDA error: {ev.data.get('error')}"
    if ev.kind == "xid":
        return f"Xid {ev.data.get('xid')} ({ev.data.get('xid_name')})"
    if ev.kind == "terminate_what":
        return f"an uncaught C++ exception ({str(ev.data.get('what'))[:160]})"
    return f"{ev.data.get('signal') or 'a signal'} ({ev.data.get('what') or 'native crash'})"
