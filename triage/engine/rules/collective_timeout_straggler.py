"""collective_timeout_straggler: watchdog timeouts. Who is behind: the rank with the lowest last
completed sequence number, a rank that never reports while the others time out, or ranks in
different collectives at the same sequence number (desync)."""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import cache
from statistics import median

from .. import identity
from ..facts import Facts, short_host
from ..model import Event, Evidence, Finding, Support, duration_text
from ..parsers.kernel import bus_key
from ..signatures import cause as traits
from ..signatures import fix_text
from .common import earliest, evidence, hosts_of, launcher_root_cause, ranks_of, spread_evidence, without

_SITE = identity.pattern("glog.print_site")

FIX = fix_text("collective_timeout_straggler")
# The line of FIX that fill_pids fills with the lagging ranks' pids where the logs name them; it
# is worded so that nothing is left to fill where they do not.
PY_SPY = "py-spy dump --pid <pid of the lagging rank>"
SHOWN_PIDS = 4


def fill_pids(fix: str, facts: Facts, ranks: list[int]) -> str:
    """FIX's py-spy line for these ranks: one line per rank whose pid the logs name, else every
    Python process of the host (the logs name no pid to give it)."""
    if PY_SPY not in fix:
        return fix
    procs = facts.processes  # the identity record of each rank (processes.py)
    known = [(r, procs[r]) for r in ranks if r in procs and procs[r].pid is not None]
    if known:
        lines = "\n".join(f"py-spy dump --pid {proc.pid}   # rank {r}" + (f" on {proc.host}" if proc.host else "")
                          for r, proc in known[:SHOWN_PIDS])
    else:
        lines = ('for pid in $(pgrep -f python); do py-spy dump --pid "$pid"; done   # on the lagging rank\'s host '
                 "(the logs name no pid)")
    return fix.replace(PY_SPY, lines)


MIN_GPUS_SAMPLED = 3  # fewer GPUs with NVML samples: no "the others" to compare with
IDLE_UTIL_PCT = 5  # a GPU below this (mean of its last samples) is idle
BUSY_UTIL_PCT = 50  # the median GPU at or above this is busy
STARTUP_SEQ = 3  # collectives up to this sequence number are the tiny ones right after start-up
SHOWN_LAGGARDS = 4  # laggards named in the title
SILENT_WORLD_MAX = 4096  # ranks are told silent by elimination up to this world size

@dataclass
class SilentRank:
    """A rank of the group that did not report what the others did (a timeout, a failure in
    the same collective): its last own line and that line's time."""

    rank: int
    last_line: Evidence | None
    last_time: datetime | None
    waiting: list[int] = field(default_factory=list)  # the ranks that reported it
    # The torch.distributed call it failed in when that differs from the group's (it skipped
    # or reordered a collective: the others wait in all_reduce, it in barrier).
    elsewhere: str | None = None
    group_call: str | None = None


def waiting_events(facts: Facts) -> list[Event]:
    """Lines where a rank says it gave up waiting in a collective: the NCCL watchdog's timeout,
    the heartbeat monitor, and what the catalog calls a collective-timeout symptom (gloo's
    'Timed out waiting Nms for recv', whatever the backend words it)."""
    return facts.kind("watchdog_timeout", "heartbeat_timeout") + [
        e for e in facts.kind("signature")
        if traits(e.data.get("cause")).stalls and e.data.get("role") == "symptom"
        # A line naming the peer that timed out ('dump signal from rank 3') tells of that
        # peer's timeout, not of its printer's.
        and not _tells_of_a_peer(e)]


def _tells_of_a_peer(ev: Event) -> bool:
    return _names_a_peer(str(ev.data.get("sig")))


@cache
def _names_a_peer(sig_id: str) -> bool:
    # Once per catalog entry: a fleet's watchdog lines are thousands of the same few entries.
    from ..signatures import BY_ID

    sig = BY_ID.get(sig_id)
    return sig is not None and sig.extract is not None and "(?P<peer>" in sig.extract


def failed_in_group(facts: Facts, waited: list[Event] | None = None) -> list[Event]:
    """What a rank of the group prints when the collective it is in fails: it gave up waiting
    (`waiting_events`), or its peer went away under it (what the catalog calls a symptom of a
    crashed rank: gloo's 'Connection closed by peer' once a waiting peer gave up and exited).
    Never the launcher's report about a rank (its failure table). `waited`: waiting_events(facts),
    where the caller has it already (each is a pass over every line the catalog read)."""
    return (waiting_events(facts) if waited is None else waited) + [
        e for e in facts.kind("signature")
        if e.data.get("role") == "symptom" and traits(e.data.get("cause")).residual
        and not e.data.get("launcher_report")]


def silent_ranks(facts: Facts, reported: list[Event]) -> list[SilentRank]:
    """Absence as evidence: the ranks of the world that did not print any of `reported` while
    most of the others did. Where the lines carry a sequence number the group is the ranks
    waiting at that collective; the world is NCCL's nranks, else the ranks the launcher's table
    and prefixes name (0..N-1, all of them present). Empty when more than a quarter of the
    world is silent (then nothing singles one out) or the world is not known. Reusable by any
    rule that has a set of lines "every healthy rank printed" (flight-recorder dumps,
    desync reports)."""
    waiting = {e.rank for e in reported if e.rank is not None and not e.data.get("launcher_report")}
    # A rank whose failure was in another torch.distributed call than the one every rank that
    # gave up waiting was in is not of the group: it was elsewhere (its peers left under it).
    calls: dict[int, set[str]] = defaultdict(set)
    for ev in facts.kind("exception"):
        if ev.rank is not None and ev.data.get("dist_call") and not ev.data.get("launcher_report"):
            calls[ev.rank].add(str(ev.data["dist_call"]))
    # The group's call is the one most of the reporting ranks failed in (at least two of them,
    # more than in any other call); a rank whose failure was only in other calls was elsewhere,
    # whether it then timed out itself or saw its peers leave.
    in_call: dict[str, set[int]] = defaultdict(set)
    for r in waiting:
        for c in calls.get(r, ()):
            in_call[c].add(r)
    sizes = sorted((len(rs), c) for c, rs in in_call.items())
    elsewhere: dict[int, str] = {}
    group_calls: set[str] = set()
    if sizes and sizes[-1][0] >= 2 and (  # noqa: PLR2004 - a call two ranks or more share
        len(sizes) == 1 or sizes[-1][0] > sizes[-2][0]):
        group_call = sizes[-1][1]
        group_calls = {group_call}
        for r in sorted(waiting):
            if calls.get(r) and group_call not in calls[r]:
                elsewhere[r] = sorted(calls[r])[0]
        waiting -= set(elsewhere)
    if not waiting:
        return []
    # Every rank something names: the rank table, the writers of prefixed lines ('[rank2]:'), and
    # the ranks a manifest gives a file of their own (a rank killed with no last words printed
    # no line the catalog reads, but its log is there).
    known = set(facts.ranks) | {int(w.split(":", 1)[1]) for src in facts.sources for w in src.last_by_writer
                                if w.startswith("rank:")}
    known |= {src.file_origin.rank for src in facts.sources if src.file_origin.rank is not None}
    world = facts.world_size
    if world is None and known and known == set(range(max(known) + 1)):
        world = max(known) + 1
    if (not world or world < 2 or world > SILENT_WORLD_MAX  # noqa: PLR2004 - one rank is no group
            or len(waiting) >= world or max(waiting) >= world):
        return []
    words_of = facts.all_last_words()
    silent = [r for r in range(world) if r not in waiting and not _cut_report(facts, r, words_of.get(r))]
    if not silent or len(silent) > max(1, world // 4):
        return []
    out = []
    for r in silent:
        words = words_of.get(r)
        out.append(SilentRank(rank=r, last_line=words[0] if words else None,
                              last_time=words[1] if words else None, waiting=sorted(waiting),
                              elsewhere=elsewhere.get(r), group_call=next(iter(group_calls)) if elsewhere else None))
    return out


def _print_site(text: str) -> str | None:
    m = _SITE.search(text)
    return m["site"] if m else None


def _cut_report(facts: Facts, rank: int, words: tuple[Evidence, datetime | None] | None) -> bool:
    """The rank's last line is one the catalog read nothing of (the excerpt cut it short) and
    its logger's header names the print site (glog's file:line) of another rank's line of the
    timeout's family: it printed that message, its words unknown, so it is not shown silent."""
    if words is None:
        return False
    line = words[0]
    site = _print_site(line.text)
    if site is None or any(e.source == line.source and e.line == line.line for e in facts.events):
        return False
    return any(e.rank is not None and e.rank != rank and traits(e.data.get("cause")).stalls
               and _print_site(e.text) == site for e in facts.kind("signature"))


def find(facts: Facts) -> list[Finding]:
    return _find_timeouts(facts) + _idle_gpu(facts)


def _idle_gpu(facts: Facts) -> list[Finding]:
    """NVML samples: one GPU near 0% over its last samples while the others are busy."""


    recent: dict[tuple[str | None, object], list[float]] = defaultdict(list)
    bus_of: dict[tuple[str | None, object], str] = {}
    where_of: dict[tuple[str | None, object], tuple[str, int]] = {}
    for s in facts.docs.nvml_samples:
        if not isinstance(s.get("util"), (int, float)):
            continue
        key = (short_host(s.get("host")), s.get("gpu"))
        recent[key].append(float(s["util"]))
        where_of[key] = (str(s.get("_source", "nvml-samples.jsonl")), int(s.get("_line", 1)))
        if s.get("pci_bus_id"):
            bus_of[key] = bus_key(str(s["pci_bus_id"]))
    if len(recent) < MIN_GPUS_SAMPLED:
        return []
    last = {k: sum(v[-5:]) / len(v[-5:]) for k, v in recent.items()}
    busy = median(last.values())
    idle = [k for k, u in last.items() if u < IDLE_UTIL_PCT]
    if busy < BUSY_UTIL_PCT or not idle or len(idle) > len(last) // 4:
        return []
    rank_by_bus = {(facts.ranks[r].host, b): r for r, b in facts.bus_of_rank.items() if r in facts.ranks}
    ranks = [rank_by_bus[(k[0], bus_of[k])] for k in idle if k in bus_of and (k[0], bus_of[k]) in rank_by_bus]
    names = ", ".join(f"{h} GPU {g}" for h, g in idle)
    return [Finding(
        cause="collective_timeout_straggler", rule="collective_timeout_straggler.idle_gpu",
        title=f"GPU idle while the others worked: {names}",
        detail=f"NVML samples show {names} near 0% utilisation over its last samples while the median GPU was at "
               f"{busy:.0f}%: "
               "its rank stopped feeding work (stuck, or waiting in a different collective).",
        fix=FIX, ranks=sorted(ranks), hosts=sorted({h for h, _ in idle if h}), silent=True,
        evidence=[Evidence(*where_of[(h, g)], f"{h} GPU {g}: {last[(h, g)]:.0f}% utilisation over its last samples")
                  for h, g in idle][:4],
        role="inferred", support=frozenset({Support.POINTS}),
    )]


def _odd_one_out(mismatch: list[Event]) -> int | None:
    """The rank every other reporting rank names as running a different collective: c10d's
    check on each rank says 'Rank <self> is running ..., but Rank <other> is running ...'.
    With two reporters each names the other, and nothing tells which one strayed."""
    named: dict[int, set[int]] = defaultdict(set)  # rank named -> the ranks that named it
    reporters = {e.data["rank_a"] for e in mismatch}
    for e in mismatch:
        named[e.data["rank_b"]].add(e.data["rank_a"])
    odd = [r for r, by in named.items() if len(by) >= 2 and by >= reporters - {r}]  # noqa: PLR2004 - two others
    return odd[0] if len(odd) == 1 else None


def _find_timeouts(facts: Facts) -> list[Finding]:
    timeouts = facts.kind("watchdog_timeout")
    waited = waiting_events(facts)
    progress = [e for e in facts.kind("watchdog_progress") if e.data.get("last_completed") is not None]
    fr = [e for e in facts.kind("fr_status") if e.seq is not None]
    desync_reports = facts.kind("desync_report")
    mismatch = facts.kind("collective_mismatch")
    heartbeat = facts.kind("heartbeat_timeout")
    if not (waited or progress or desync_reports or mismatch):
        return []
    findings: list[Finding] = []
    if mismatch:
        first = earliest(mismatch)
        assert first is not None
        strayed = _odd_one_out(mismatch)
        if strayed is not None:
            own = [e for e in mismatch if e.data["rank_a"] == strayed]
            culprit = earliest(own) or earliest(e for e in mismatch if e.data["rank_b"] == strayed)
            assert culprit is not None
            title = f"Rank {strayed} ran a different collective from the other ranks"
            ranks = [strayed]
        else:
            culprit, ranks = first, [first.data["rank_a"], first.data["rank_b"]]
            title = f"Ranks {first.data['rank_a']} and {first.data['rank_b']} ran different collectives"
        findings.append(Finding(
            cause="collective_timeout_straggler", rule="collective_timeout_straggler.mismatch",
            title=title,
            detail="TORCH_DISTRIBUTED_DEBUG=DETAIL caught a collective mismatch: the program issues collectives in a "
                   "different order or with different shapes on different ranks.",
            fix=FIX, ranks=ranks, hosts=hosts_of(mismatch),
            evidence=evidence(mismatch), role="fault", culprit=culprit,
            support=frozenset({Support.NAMES}),  # c10d's own check names the two calls
        ))
    desync = _desync(timeouts)
    failed = failed_in_group(facts, waited)
    laggards, reason, laggard_events = _laggards(facts, timeouts, progress + fr, desync_reports, failed)
    all_events = timeouts + progress + fr + desync_reports + heartbeat + without(waited, timeouts + heartbeat)
    tmo = next((e.data.get("timeout_ms") for e in timeouts if e.data.get("timeout_ms")), None)
    seq: int | None  # the desync's sequence number, else the first timeout's
    if desync:
        seq, ops, odd = desync
        findings.append(Finding(
            cause="collective_timeout_straggler", rule="collective_timeout_straggler.desync",
            title=f"Desync: ranks disagree on collective #{seq} ({', '.join(sorted(ops))})",
            detail=f"At the same sequence number {seq} the ranks' watchdogs report different operations or sizes: "
                   f"{', '.join(sorted(ops))}. "
                   "The ranks are not running the same program path.",
            fix=FIX, ranks=ranks_of(odd) if odd else ranks_of(timeouts), hosts=hosts_of(odd or timeouts),
            evidence=evidence(odd, 2) + spread_evidence(without(timeouts, odd), 6), role="inferred",
            support=frozenset({Support.NAMES}),  # the watchdogs' own records of one sequence number differ
            culprit=odd[0] if len(ranks_of(odd)) == 1 else (laggard_events[0] if laggard_events else None),
        ))
    if laggards:
        culprit = laggard_events[0] if laggard_events else None
        label = (", ".join(facts.rank_label(r) for r in laggards[:SHOWN_LAGGARDS])
                 + (" …" if len(laggards) > SHOWN_LAGGARDS else ""))
        last_words = [w for w in (facts.last_words(r) for r in laggards[:3]) if w is not None]
        findings.append(Finding(
            cause="collective_timeout_straggler", rule="collective_timeout_straggler.laggard",
            title=f"Straggler: {label} fell behind; the other ranks timed out waiting",
            detail=_laggard_detail(reason, laggards, facts, tmo, waited, failed),
            fix=FIX, ranks=laggards,
            hosts=sorted({facts.ranks[r].host or "" for r in laggards if r in facts.ranks and facts.ranks[r].host}),
            evidence=(evidence(laggard_events, 3) if laggard_events else [w for w, _t in last_words])
            + spread_evidence(without(all_events, laggard_events), 5),
            role="inferred", culprit=culprit, silent=True,
            # Sequence numbers or a desync report that show the rank behind agree with its absence.
            support=frozenset({Support.POINTS} if reason == "absent" else {Support.POINTS, Support.CORROBORATED}),
        ))
    elif timeouts or heartbeat:
        first = earliest(timeouts or heartbeat)
        assert first is not None
        seq = first.seq
        op = first.data.get("op")
        findings.append(Finding(
            cause="collective_timeout_straggler", rule="collective_timeout_straggler.timeout",
            title=f"Collective timeout: {op or 'a collective'}" + (f" #{seq}" if seq is not None else "")
            + _timing(facts, timeouts, tmo),
            detail=("The watchdog of " + ", ".join(f"rank {r}" for r in ranks_of(timeouts)[:6])
                    + " gave up waiting for a collective" + _timing(facts, timeouts, tmo, long=True)
                    + ". The ranks that never reached it are not in these logs"
                    + (" (the first tiny collective right after start-up: a peer was still loading or initialising)"
                       if seq is not None and seq <= STARTUP_SEQ else "")
                    + "; their logs are needed to name the straggler."),
            fix=FIX, ranks=[], hosts=hosts_of(timeouts), evidence=spread_evidence(timeouts + progress + heartbeat),
            role="symptom", culprit=None, support=frozenset({Support.POINTS}),
        ))
    return findings


def _desync(timeouts: list[Event]) -> tuple[int, set[str], list[Event]] | None:
    """Same sequence number, different operation: returns the sequence, the signatures, and
    the events of the minority signature (the odd rank(s) out, when there is a clear minority)."""
    by_seq: dict[tuple[object, int], dict[str, list[Event]]] = defaultdict(lambda: defaultdict(list))
    for ev in timeouts:
        if ev.seq is None:
            continue
        sig = (f"{ev.data.get('op')}({ev.data.get('numel_in')})" if ev.data.get("numel_in") is not None
               else str(ev.data.get("op")))
        by_seq[(ev.data.get("pg"), ev.seq)][sig].append(ev)
    for (_pg, seq), groups in sorted(by_seq.items(), key=lambda kv: kv[0][1]):
        if len(groups) > 1:
            sizes = sorted((len({e.rank for e in evs}), sig) for sig, evs in groups.items())
            odd = groups[sizes[0][1]] if sizes[0][0] < sizes[1][0] else []
            return seq, set(groups), odd
    return None


def _laggards(facts: Facts, timeouts: list[Event], progress: list[Event], reports: list[Event],
              waited: list[Event]) -> tuple[list[int], str, list[Event]]:
    if reports:
        lagging = sorted({r for e in reports for r in e.data.get("lagging", [])})
        if lagging:
            return lagging, "report", reports
    # Lowest last-completed sequence per process group.
    per_pg: dict[object, dict[int, tuple[int, Event]]] = defaultdict(dict)
    for ev in progress:
        if ev.rank is None or ev.seq is None:
            continue
        pg = ev.data.get("pg")
        current = per_pg[pg].get(ev.rank)
        if current is None or ev.seq < current[0]:
            per_pg[pg][ev.rank] = (ev.seq, ev)
    for ev in timeouts:
        # 'WorkNCCL(SeqNum=N)' timed out: N-1 completed on that rank (when no progress line says otherwise).
        if ev.rank is None or ev.seq is None:
            continue
        pg = ev.data.get("pg")
        if ev.rank not in per_pg[pg]:
            per_pg[pg][ev.rank] = (ev.seq - 1, ev)
    # Sequence numbers compare only within one process group. Lines that do not name their group
    # (torch before 2.2) and show one rank at several sequence numbers mix groups: no verdict.
    mixed: set[object] = set()
    seqs_seen: dict[tuple[object, int], set[int]] = defaultdict(set)
    for ev in timeouts:
        if ev.rank is not None and ev.seq is not None:
            seqs_seen[(ev.data.get("pg"), ev.rank)].add(ev.seq)
    for (pg, _rank), seqs in seqs_seen.items():
        if len(seqs) > 1:
            mixed.add(pg)
    for pg, ranks in per_pg.items():
        if len(ranks) < 2 or pg in mixed:  # noqa: PLR2004 - one rank has no one to lag behind
            continue
        low = min(seq for seq, _ in ranks.values())
        high = max(seq for seq, _ in ranks.values())
        if low < high:
            lag = sorted(r for r, (seq, _) in ranks.items() if seq == low)
            if len(lag) < len(ranks):
                return lag, "sequence", [ranks[r][1] for r in lag]
    # Ranks that never report while the others time out: they are stuck elsewhere (or dead).
    silent = silent_ranks(facts, waited)
    if silent:
        return [s.rank for s in silent], "absent", []
    return [], "", []


def _laggard_detail(reason: str, laggards: list[int], facts: Facts, tmo: int | None, waited: list[Event],
                    failed: list[Event]) -> str:
    who = ", ".join(f"rank {r}" for r in laggards[:6])
    if reason == "report":
        return f"PyTorch's desync report names {who} as the lagging rank(s) that caused the timeout."
    if reason == "sequence":
        seqs = {facts.ranks[r].last_seq for r in laggards if r in facts.ranks}
        seq_text = f" (last completed collective {min(s for s in seqs if s is not None)})" if any(s is not None
                                                                                                  for s in seqs) else ""
        return (f"{who} completed fewer collectives than the other ranks{seq_text}: they stopped first, and the others "
                f"timed out waiting for them" + _timing(facts, [], tmo, long=True) + ".")
    waiting = sorted({e.rank for e in waited if e.rank is not None})
    text = (f"{who} never reported the timeout that {', '.join(f'rank {r}' for r in waiting[:6])} reported: "
            "it was stuck elsewhere (a data loader, I/O, a branch only it runs) or already gone. This is inferred "
            "from absence.")
    for silent in silent_ranks(facts, failed):
        if silent.elsewhere:
            text += (f" Rank {silent.rank} failed in {silent.elsewhere}() while the others waited in "
                     f"{silent.group_call}(): it skipped or reordered a collective.")
    for r in laggards[:3]:
        words = facts.last_words(r)
        if words is not None:
            line, when = words
            text += (f" Rank {r}'s last line ({line.source}:{line.line}"
                     f"{', ' + when.strftime('%H:%M:%S') if when else ''}): {line.text.strip()[:200]}")
        else:
            text += f" Rank {r} has no line of its own in the bundle."
    root = launcher_root_cause(facts)
    if root is not None and root.rank not in laggards:
        # The launcher names whichever worker it saw exit first; under load that may be a rank
        # that had not yet printed its own timeout: say what is known of it either way, also
        # where its table orders nothing (ranks that timed out alike in the same second).
        own = earliest(e for e in facts.events if e.rank == root.rank and e.severity in ("error", "fatal")
                       and e.kind != "elastic_failure" and not e.data.get("launcher_report"))
        said = ("which only timed out waiting" if root.rank in waiting else
                f"which printed no timeout, only: {(own.message or own.text).strip()[:160]}" if own is not None else
                "which left no error of its own (no timeout or exception of it in the bundle)")
        text += (f" torchrun's 'first observed failure' is rank {root.rank}, {said}; "
                 f"the launcher saw it exit first, but {who} is the one the others waited for.")
    return text


def _timing(facts: Facts, timeouts: list[Event], tmo: int | None, *, long: bool = False) -> str:
    """The watchdog's timeout named as such, and how long the job hung: from the first wait
    (the first timed-out collective began `timeout` before its watchdog line) to the last line
    of any rank. Nothing when the logs give no times: the timeout is not the hang."""
    hang = None
    timed = [e.time for e in timeouts if e.time is not None]
    ends = [info.last_time for info in facts.ranks.values() if info.last_time is not None]
    if timed and ends and tmo:
        try:
            seconds = (max(ends) - (min(timed) - timedelta(milliseconds=tmo))).total_seconds()
        except TypeError:  # a zoned time against a local one: not comparable
            seconds = None
        if seconds is not None and seconds > 0:
            hang = duration_text(seconds)
    if long:
        text = f" (timeout {tmo // 1000} s)" if tmo else ""
        return text + (f"; the job hung {hang} from the first wait to the last line" if hang else "")
    parts = ([f"timeout {tmo // 1000} s"] if tmo else []) + ([f"hung {hang}"] if hang else [])
    return f" ({', '.join(parts)})" if parts else ""
