"""collective_timeout_straggler: watchdog timeouts. Who is behind: the rank with the lowest last
completed sequence number, a rank that never reports while the others time out, or ranks in
different collectives at the same sequence number (desync)."""
from __future__ import annotations

from collections import defaultdict
from statistics import median

from ..facts import Facts, short_host
from ..model import Event, Evidence, Finding
from ..parsers.kernel import bus_key
from .common import earliest, evidence, hosts_of, ranks_of, spread_evidence, without

MIN_GPUS_SAMPLED = 3  # fewer GPUs with NVML samples: no "the others" to compare with
IDLE_UTIL_PCT = 5  # a GPU below this (mean of its last samples) is idle
BUSY_UTIL_PCT = 50  # the median GPU at or above this is busy
STARTUP_SEQ = 3  # collectives up to this sequence number are the tiny ones right after start-up
SHOWN_LAGGARDS = 4  # laggards named in the title

FIX = (
    "Find what the lagging rank was doing instead of joining the collective: a slow step only it "
    "runs (data loading, checkpoint I/O, weight loading, a Python branch on rank), or a different "
    "order of collectives (desync). Dump the stacks of a hung job and compare ranks:\n"
    "py-spy dump --pid <pid of the lagging rank>\n"
    "TORCH_NCCL_TRACE_BUFFER_SIZE=2000 TORCH_NCCL_DUMP_ON_TIMEOUT=1  # flight recorder on the next run\n"
    "python -m torch.distributed.flight_recorder.fr_trace <dump dir>\n"
    "Raise the timeout (init_process_group(timeout=...)) only when a known slow step, such as weight "
    "loading at start-up, legitimately exceeds it."
)


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
        cause="collective_timeout_straggler", rule="collective_timeout_straggler.idle_gpu", confidence="medium",
        title=f"GPU idle while the others worked: {names}",
        detail=f"NVML samples show {names} near 0% utilisation over its last samples while the median GPU was "
               f"at {busy:.0f}%: "
               "its rank stopped feeding work (stuck, or waiting in a different collective).",
        fix=FIX, ranks=sorted(ranks), hosts=sorted({h for h, _ in idle if h}),
        evidence=[Evidence(*where_of[(h, g)], f"{h} GPU {g}: {last[(h, g)]:.0f}% utilisation over its last samples")
                  for h, g in idle][:4],
        weight=48,
    )]


def _find_timeouts(facts: Facts) -> list[Finding]:
    timeouts = facts.kind("watchdog_timeout")
    progress = [e for e in facts.kind("watchdog_progress") if e.data.get("last_completed") is not None]
    fr = [e for e in facts.kind("fr_status") if e.seq is not None]
    desync_reports = facts.kind("desync_report")
    mismatch = facts.kind("collective_mismatch")
    heartbeat = facts.kind("heartbeat_timeout")
    if not (timeouts or progress or desync_reports or mismatch or heartbeat):
        return []
    findings: list[Finding] = []
    if mismatch:
        first = earliest(mismatch)
        assert first is not None
        findings.append(Finding(
            cause="collective_timeout_straggler", rule="collective_timeout_straggler.mismatch", confidence="high",
            title=f"Ranks {first.data['rank_a']} and {first.data['rank_b']} ran different collectives",
            detail="TORCH_DISTRIBUTED_DEBUG=DETAIL caught a collective mismatch: the program issues collectives in a "
                   "different order or with different shapes on different ranks.",
            fix=FIX, ranks=[first.data["rank_a"], first.data["rank_b"]], hosts=hosts_of(mismatch),
            evidence=evidence(mismatch), weight=82, culprit=first,
        ))
    desync = _desync(timeouts)
    laggards, reason, laggard_events = _laggards(facts, timeouts, progress + fr, desync_reports)
    all_events = timeouts + progress + fr + desync_reports + heartbeat
    tmo = next((e.data.get("timeout_ms") for e in timeouts if e.data.get("timeout_ms")), None)
    seq: int | None  # the desync's sequence number, else the first timeout's
    if desync:
        seq, ops, odd = desync
        findings.append(Finding(
            cause="collective_timeout_straggler", rule="collective_timeout_straggler.desync", confidence="high",
            title=f"Desync: ranks disagree on collective #{seq} ({', '.join(sorted(ops))})",
            detail=f"At the same sequence number {seq} the ranks' watchdogs report different operations or sizes: "
                   f"{', '.join(sorted(ops))}. "
                   "The ranks are not running the same program path.",
            fix=FIX, ranks=ranks_of(odd) if odd else ranks_of(timeouts), hosts=hosts_of(odd or timeouts),
            evidence=evidence(odd, 2) + spread_evidence(without(timeouts, odd), 6), weight=58,
            culprit=odd[0] if len(ranks_of(odd)) == 1 else (laggard_events[0] if laggard_events else None),
        ))
    if laggards:
        culprit = laggard_events[0] if laggard_events else None
        label = (", ".join(facts.rank_label(r) for r in laggards[:SHOWN_LAGGARDS])
                 + (" …" if len(laggards) > SHOWN_LAGGARDS else ""))
        findings.append(Finding(
            cause="collective_timeout_straggler", rule="collective_timeout_straggler.laggard",
            confidence="high" if reason != "absent" else "medium",
            title=f"Straggler: {label} fell behind; the other ranks timed out waiting",
            detail=_laggard_detail(reason, laggards, facts, tmo),
            fix=FIX, ranks=laggards,
            hosts=sorted({facts.ranks[r].host or "" for r in laggards if r in facts.ranks and facts.ranks[r].host}),
            evidence=evidence(laggard_events, 3) + spread_evidence(without(all_events, laggard_events), 5),
            weight=52, culprit=culprit,
        ))
    elif timeouts or heartbeat:
        first = earliest(timeouts or heartbeat)
        assert first is not None
        seq = first.seq
        op = first.data.get("op")
        findings.append(Finding(
            cause="collective_timeout_straggler", rule="collective_timeout_straggler.timeout",
            confidence="medium",
            title=f"Collective timeout: {op or 'a collective'}" + (f" #{seq}" if seq is not None else "")
                  + (f" after {tmo // 1000} s" if tmo else ""),
            detail=("The watchdog of " + ", ".join(f"rank {r}" for r in ranks_of(timeouts)[:6])
                    + " gave up waiting for a collective. The ranks that never reached it are not in these logs"
                    + (" (the first tiny collective right after start-up: a peer was still loading or initialising)"
                       if seq is not None and seq <= STARTUP_SEQ else "")
                    + "; their logs are needed to name the straggler."),
            fix=FIX, ranks=[], hosts=hosts_of(timeouts), evidence=spread_evidence(timeouts + progress + heartbeat),
            weight=45, culprit=None,
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


def _laggards(facts: Facts, timeouts: list[Event], progress: list[Event],
              reports: list[Event]) -> tuple[list[int], str, list[Event]]:
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
    reporting = {e.rank for e in timeouts if e.rank is not None}
    world = facts.world_size
    if world and reporting and len(reporting) >= world // 2 and len(reporting) < world:
        silent = [r for r in range(world) if r not in reporting]
        if silent and len(silent) <= max(1, world // 4):
            return silent, "absent", []
    return [], "", []


def _laggard_detail(reason: str, laggards: list[int], facts: Facts, tmo: int | None) -> str:
    who = ", ".join(f"rank {r}" for r in laggards[:6])
    if reason == "report":
        return f"PyTorch's desync report names {who} as the lagging rank(s) that caused the timeout."
    if reason == "sequence":
        seqs = {facts.ranks[r].last_seq for r in laggards if r in facts.ranks}
        seq_text = (f" (last completed collective {min(s for s in seqs if s is not None)})"
                    if any(s is not None for s in seqs) else "")
        return (f"{who} completed fewer collectives than the other ranks{seq_text}: they stopped first, and the others "
                f"timed out waiting for them" + (f" after {tmo // 1000} s" if tmo else "") + ".")
    return (f"{who} never reported a watchdog timeout while the other ranks did: they were stuck elsewhere "
            "or already gone. "
            "Their logs are missing or silent, so this is inferred from absence.")
