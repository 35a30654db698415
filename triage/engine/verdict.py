"""From findings to the verdict: order them, name the first failure, set each rank's state,
and write the one-line summary and the notes on what the data leaves unknown."""
from __future__ import annotations

from datetime import datetime
from typing import Any

from .facts import MAX_DEVICE_ORDINAL, Facts
from .model import Event, Finding, RankInfo, iso, yearless
from .processes import FIRST_FAILURE, NCCL_INIT, Process
from .rules.common import launcher_saw_it, upper_first
from .rules.rank_crash import crash_events, exit_events
from .signatures import cause as traits
from .timeparse import YEAR_UNKNOWN

SHARED_ERROR_MIN_CHARS = 12  # an error text this long is searched for in the other ranks' lines
ONE_NODE_MAX_PROCESSES = 8  # this many processes at most: a GPU index names a GPU of one node
LINK_ENDS = 2  # both ends of one broken link report it
SILENT_AFTER_S = 60  # a rank whose last line is this much older than the latest went silent
FILL_WORLD_MAX = 4096  # ranks with no line at all are listed up to this world size
SHOWN_MISSING = 12  # ranks with no lines named in the note
LONG_WATCHDOG_MS = 1_800_000  # 30 min: a watchdog timeout raised from the 10 min default
SHOWN_CANDIDATES = 8  # candidate hosts named for a source that names none
# first_failure.time_clock of a time the kernel printed or that its uptime gave (dmesg -T, or
# dmesg's seconds since boot plus the snapshot's boot time): its clock may drift from the wall
# clock the processes log by (util-linux dmesg(1)).
KERNEL_CLOCK = "kernel"


def single_node(facts: Facts) -> bool:
    """The bundle shows one machine at most: no second host, no NCCL init spanning nodes."""
    hosts = {e.host for e in facts.events if e.host}
    if len(hosts) > 1:
        return False
    return not any((e.data.get("nnodes") or 1) > 1 for e in facts.by_kind.get("nccl_init", []))


def _digits(value: object) -> int | None:
    return int(str(value)) if value is not None and str(value).isdigit() else None


def _ordinal(value: object) -> int | None:
    """A GPU index, or None for a number that cannot be one (a pid, a tid: facts.MAX_DEVICE_ORDINAL)."""
    n = value if isinstance(value, int) and not isinstance(value, bool) else _digits(value)
    return n if n is not None and 0 <= n <= MAX_DEVICE_ORDINAL else None


def infer_rank(facts: Facts, ev: Event, cause: str | None = None) -> tuple[int | None, str | None]:
    """The failing rank when the culprit line does not name it, and how it was found: the
    message naming the rank that failed (mpirun's first process, the store host a rank could
    not reach), the same error on exactly one named rank, the launcher's local rank for the
    culprit's pid or the GPU index on a single node (where torchrun puts local rank N on GPU N
    and ranks are local ranks). None when nothing says."""
    meaning = facts.meaning_of(ev)
    groups = dict((meaning.data.get("groups") if meaning is not None else None) or {})
    named = _digits(groups.get("culprit_rank"))
    if named is not None:
        return named, "named by the message"
    if ev.rank is not None:
        return ev.rank, "log"
    if meaning is not None and meaning.rank is not None:
        return meaning.rank, "log"
    if _digits(groups.get("rank")) is not None:
        return _digits(groups.get("rank")), "named by the message"
    # Other lines of the same cause that name the failing rank (mpirun's 'Process name' block).
    if cause is not None:
        named_ranks = {_digits((e.data.get("groups") or {}).get("culprit_rank")) for e in facts.kind("signature")
                       if e.data.get("cause") == cause} - {None}
        if len(named_ranks) == 1:
            return named_ranks.pop(), "named by the launcher"
    seen = launcher_saw_it(facts, ev)
    if seen is not None:
        return seen, "the launcher's first observed failure"
    # The same error printed by exactly one rank that is named.
    if meaning is not None:
        same = [e for e in facts.kind("signature") if e.data.get("sig") == meaning.data.get("sig")]
    else:
        same = facts.kind(ev.kind)
    error = str(ev.data.get("error") or "")
    if len(error) >= SHARED_ERROR_MIN_CHARS:
        same += [e for e in facts.events if e.rank is not None and error in e.text]
    ranks = {e.rank for e in same if e.rank is not None}
    if len(ranks) == 1:
        return ranks.pop(), "the same error on that rank"
    if not single_node(facts):
        return None, None
    local = ev.data.get("local_rank")
    if local is None and _digits(groups.get("local_rank")) is not None:
        # A launcher line reporting which child failed ('failed (exitcode: -9) local_rank: 3').
        return _digits(groups.get("local_rank")), "named by the launcher"
    if local is None and ev.pid is not None:
        # The launcher's report pairs the child's pid with its local rank.
        by_pid = {_digits((e.data.get("groups") or {}).get("pid")) or e.data.get("child_pid"): e.data.get("local_rank")
                  if e.data.get("local_rank") is not None else _digits((e.data.get("groups") or {}).get("local_rank"))
                  for e in facts.kind("signature", "process_exit")}
        local = by_pid.get(ev.pid)
    if isinstance(local, int):
        return local, "local rank on a single node"
    # The launcher's own record of the first failed child (torchrun's 'failed (exitcode: N)
    # local_rank: N', its Root Cause block): one named local rank on a single node.
    exited = [e for e in facts.kind("process_exit")
              if e.data.get("local_rank") is not None and e.data.get("exitcode") not in (None, -15, 0)]
    failed: set[Any] = {e.data.get("local_rank") for e in exited}
    # ... unless the culprit line is another process's own and that child is not shown crashing
    # (several processes crashed; the line's own rank is then unknown).
    children = {e.data.get("child_pid") or e.pid for e in exited}
    crashed = {e.data.get("tid") for e in facts.kind("crash_backtrace")} | {e.pid for e in crash_events(facts)}
    other = ev.pid is not None and ev.pid not in children and not children & crashed
    if len(failed) == 1 and not other:
        return int(failed.pop()), "the launcher's first failed process"
    device = ev.device if ev.device is not None else _ordinal(ev.data.get("gpu"))
    if device is None:
        device = _ordinal(groups.get("device")) if groups.get("device") is not None else _ordinal(groups.get("gpu"))
    if device is not None and _one_process_per_gpu(facts, ev.device is not None) and _device_names_rank(facts, device):
        return int(device), "GPU index on a single node"
    return None, None


def _device_names_rank(facts: Facts, device: int) -> bool:
    """GPU N names local rank N only where a process chose GPU N: device 0 is every process's
    device until it sets one (cudaGetDevice's default) and the only one it sees where the
    launcher or container gives each process one GPU (CUDA_VISIBLE_DEVICES: Ray's workers,
    Kubernetes' and Docker's device plugins), so '[0]' tells no rank unless an NCCL init line
    of the world pairs a rank with its cudaDev the same way (rank N on cudaDev N)."""
    if device != 0:
        return True
    world = facts.world_size
    return any(e.data.get("nranks") == world and e.data.get("rank") == e.data.get("cuda_dev")
               for e in facts.by_kind.get("nccl_init", []))


def _one_process_per_gpu(facts: Facts, from_prefix: bool) -> bool:
    """GPU N is local rank N only where each process drives one GPU: at most a node's worth of
    processes and no pid printing for two GPUs (one process with a thread per GPU, as nccl-tests
    and TensorFlow run, numbers GPUs, not ranks). NCCL's '[dev]' prefix is a communicator's
    device, so with the host:pid part cut off it does not show which process drives it."""
    pids = {e.pid for e in facts.events if e.pid is not None}
    if from_prefix and not pids:
        return False
    gpus: dict[int, set[int]] = {}
    for e in facts.events:
        if e.pid is not None and e.device is not None:
            gpus.setdefault(e.pid, set()).add(e.device)
    return (len(pids) <= ONE_NODE_MAX_PROCESSES and all(len(d) == 1 for d in gpus.values())
            and not _ranks_off_their_gpu(facts))


def _ranks_off_their_gpu(facts: Facts) -> bool:
    """A rank of the world whose init line names another GPU index (rank 8 on GPU 0: the node
    is not the job's first, or its ranks are laid out otherwise): GPU N is not rank N here."""
    world = facts.world_size
    return any(e.data.get("nranks") == world and e.data.get("rank") != e.data.get("cuda_dev")
               for e in facts.by_kind.get("nccl_init", []))


_NAMED = ("named by the message", "named by the launcher")


def _names_failing_rank(facts: Facts, verdict: Finding, ev: Event, rank_from: str | None) -> bool:
    if rank_from in _NAMED:
        return True
    meaning = facts.meaning_of(ev)
    if verdict.rule.startswith("signature.") and meaning is not None and meaning.data.get("role") == "symptom":
        return False  # a symptom is printed by a victim: it does not name the rank that failed
    # A cause the ranks share (the catalog's trait): the rank that printed the line is the failing
    # rank only when the log identifies it and no other rank failed the same way (every rank
    # failing to connect names no rank).
    if traits(verdict.cause).shared:
        if rank_from != "log" or verdict.confidence == "low":
            return False
        if meaning is not None:
            same = [e for e in facts.kind("signature") if e.data.get("sig") == meaning.data.get("sig")]
        else:
            same = facts.kind(ev.kind)
        # Both ends of one broken link report it; more ranks than that means a shared failure.
        printed = {e.rank for e in same if e.rank is not None}
        if len(printed) > LINK_ENDS:
            return False
        # Every rank of the job (or every rank the bundle knows, where its size is not said)
        # printed it: a two-rank job, two GPUs of one process. None of them is the one that
        # failed unless the times put the culprit's print first.
        ranks = facts.world_size or len(facts.ranks)
        if len(printed) > 1 and len(printed) >= ranks and _printed_alike_unordered(ev, same):
            return False
        return not _failed_alike_unordered(facts, ev)
    return True


def _failed_alike_unordered(facts: Facts, ev: Event) -> bool:
    """Another rank raised an error of its own too and the lines' times do not put the culprit's
    first: of ranks failing alike under a shared cause, the one whose text the excerpt kept
    whole is not thereby the first (file order is not failure order)."""
    others = [e for e in facts.kind("exception") if e.rank is not None and e.rank != ev.rank
              and e.severity in ("error", "fatal") and not e.data.get("launcher_report")]
    if not others:
        return False
    return ev.time is None or any(e.time is None or e.time <= ev.time for e in others)


def _printed_alike_unordered(ev: Event, same: list[Event]) -> bool:
    """No time puts the culprit's print of its message before every other rank's first timed
    print of it (the message quoted again untimed, in a traceback's 'Last error:', is that print
    repeated, not a new one; a rank with no timed print cannot be ordered at all)."""
    if ev.time is None:
        return True
    printed: dict[int, list[datetime]] = {}
    for e in same:
        if e.rank is not None and e.rank != ev.rank:
            printed.setdefault(e.rank, []).extend([e.time] if e.time is not None else [])
    return any(not times or min(times) <= ev.time for times in printed.values())


def first_failure(facts: Facts, findings: list[Finding]) -> tuple[dict[str, Any] | None, Event | None]:
    """The first failure: the contract's keys (rank, host, time, source, line, text: `time` is
    the evidence line's own time, null when that line has none) plus what else is known of the
    process: pid, device (CUDA ordinal), bus_id, and `time_estimate` / `time_estimate_basis`
    when the line has no time but its rank's or file's timed lines bound it."""
    if not findings:
        return None, None
    verdict = findings[0]
    if verdict.role == "context" and verdict.confidence == "low":
        # The best there is is a hint the run went on after (a fallback announced, nothing failing
        # since): no process failed, so none is named as the first failure.
        return None, None
    ev = verdict.culprit
    if ev is None and len(set(verdict.ranks)) == 1 and (verdict.ranks[0] in facts.ranks
                                                         or facts.last_words(verdict.ranks[0]) is not None):
        # One rank named but no line of its own (a straggler known by absence): its last line.
        # The time shown is that line's own (its last timed line), never the launcher's later
        # report about the rank.
        info = facts.ranks.get(verdict.ranks[0]) or RankInfo(rank=verdict.ranks[0])
        words = facts.last_words(verdict.ranks[0])
        line, when = words if words is not None else (info.last_line, info.last_time)
        if line is not None:
            return _with_process({
                "rank": info.rank,
                "host": info.host,
                "time": iso(when), "_when": when,
                "source": line.source,
                "line": line.line,
                "text": line.text,
                "rank_from": "absent",
            }, facts, None), None
    if ev is None:
        # No single culprit (mutual conflict, unknown straggler): point at the first evidence line.
        if not verdict.evidence:
            return None, None
        e = verdict.evidence[0]
        match = next((x for x in facts.events if x.source == e.source and x.line == e.line), None)
        return _with_process({
            "rank": None,
            "host": (verdict.hosts[0] if len(verdict.hosts) == 1 else (match.host if match else None)),
            "time": iso(match.time) if match else None, "_when": match.time if match else None,
            "source": e.source,
            "line": e.line,
            "text": e.text,
        }, facts, match), None
    rank, rank_from = infer_rank(facts, ev, verdict.cause)
    if rank is not None and not _names_failing_rank(facts, verdict, ev, rank_from):
        rank, rank_from = None, None
    own = facts.host_pid_rank.get((ev.host, ev.pid)) if ev.host and ev.pid is not None else None
    if own is not None and rank is not None and own != rank and rank_from != "log":
        # The quoted line's own process is a known rank: the card names that one, so its pid
        # and the rank's agree.
        rank, rank_from = own, "the line's process"
    host = ev.host or (facts.ranks[rank].host if rank in facts.ranks else None)
    if rank is not None and rank not in verdict.ranks:
        verdict.ranks.append(rank)
    return _with_process({
        "rank": rank,
        "host": host,
        "time": iso(ev.time), "_when": ev.time,
        "source": ev.source,
        "line": ev.line,
        "text": ev.text,
        "rank_from": rank_from,
    }, facts, ev), ev


def _subject_pid(ev: Event) -> int | None:
    """The pid of the process a line is about, where that is not its writer: a launcher's
    report of its worker (the parser's `child_pid`, or the catalog's `pid` group beside a
    `local_rank`), or a line with no writer's pid that names one (the catalog's `pid` group)."""
    groups = ev.data.get("groups") or {}
    said = ev.data.get("child_pid") or groups.get("pid")
    if not (isinstance(said, int) or (isinstance(said, str) and said.isdecimal() and said.isascii())):
        return None
    about_child = ev.data.get("local_rank") is not None or groups.get("local_rank") is not None
    return int(said) if about_child or ev.pid is None else None


LINE = "line"  # a value of the card read from its own line


def _identity_from(ff: dict[str, Any], ev: Event | None, proc: Process | None, pid: int | None,
                   device: int | None, bus: str | None) -> dict[str, str]:
    """Where each identity value of the card came from: its own line (`line`), else its rank's
    identity record (processes.py: `nccl`, `nccl_init`, `log`, `launcher_table`, ...), else
    the finding that names it (`finding`)."""
    out: dict[str, str] = {}
    said = {"host": ff.get("host"), "pid": pid, "device": device, "bus_id": bus}
    on_line = {"host": ev.host if ev is not None else None, "pid": ev.pid if ev is not None else None,
               "device": ev.device if ev is not None else None,
               "bus_id": ev.data.get("bus_id") if ev is not None else None}
    if ev is not None and pid is not None and pid != ev.pid:
        on_line["pid"] = pid if _subject_pid(ev) == pid else None  # (the worker a launcher's line names)
    for name, value in said.items():
        if value is None:
            continue
        if on_line[name] == value:
            out[name] = LINE
        elif proc is not None and getattr(proc, name) == value:
            out[name] = str(getattr(proc, "bus_from" if name == "bus_id" else f"{name}_from"))
        else:
            out[name] = NCCL_INIT if name == "bus_id" else "finding"
    return out


def _with_process(ff: dict[str, Any], facts: Facts, ev: Event | None) -> dict[str, Any]:
    """Adds pid, device, bus_id (from the line itself, else its rank) and a time estimate."""
    # The rank's identity record (processes.py): its pid from NCCL, its lines or the launcher's
    # table (torchrun's failure block names the worker's pid: "exitcode : 1 (pid: 24349)").
    proc = facts.processes.get(ff["rank"]) if ff["rank"] is not None else None
    info = facts.ranks.get(ff["rank"]) if ff["rank"] is not None else None
    # A launcher's line about its worker ('failed (exitcode: -9) local_rank: 3 (pid: 812917)')
    # is about the child it names, not about the launcher that printed it.
    subject = _subject_pid(ev) if ev is not None and ff["rank"] is not None else None
    pid = (subject if subject is not None else
           ev.pid if ev is not None and ev.pid is not None else (proc.pid if proc else None))
    device = ev.device if ev is not None and ev.device is not None else (proc.device if proc else None)
    bus = (proc.bus_id if proc else None) or (facts.bus_of_rank.get(ff["rank"]) if ff["rank"] is not None else None)
    if ev is not None and bus is None and isinstance(ev.data.get("bus_id"), str):
        bus = ev.data["bus_id"]
    ff["identity_from"] = _identity_from(ff, ev, proc, pid, device, bus)
    # A time the bundle gives no year for: null (never this machine's year) and, beside it, what
    # is known, '--MM-DDThh:mm:ss' (model.yearless).
    when = ff.pop("_when", None)
    ff.update(pid=pid, device=device, bus_id=bus, time_yearless=yearless(when), time_estimate=None,
              time_estimate_basis=None,
              time_clock=KERNEL_CLOCK if ff["time"] is not None and ev is not None and ev.data.get("kernel_clock")
              else None)
    if ff["time"] is None and ff["time_yearless"] is None:
        # The same failure often has a timed line elsewhere (torchelastic's error file, the
        # watchdog's teardown): the rank's first timed error, not before the line's lower bound.
        floor = ev.approx_time if ev is not None else None
        timed = [e for e in facts.events if ff["rank"] is not None and e.rank == ff["rank"] and e.time is not None
                 and e.severity in ("error", "fatal") and (floor is None or e.time >= floor)]
        first = min(timed, key=lambda e: (e.time, e.order)) if timed else None
        if first is not None:
            ff["time_estimate"] = iso(first.time)
            ff["time_estimate_basis"] = (f"the first timed error of rank {ff['rank']} ({first.source}:{first.line}); "
                                         "the line itself has no time")
        elif ev is not None and ev.approx_time is not None:
            ff["time_estimate"] = iso(ev.approx_time)
            ff["time_estimate_basis"] = "the last timed line before it in the same file (the line itself has no time)"
        elif info is not None and info.last_time is not None:
            ff["time_estimate"] = iso(info.last_time)
            ff["time_estimate_basis"] = f"the last timed line of rank {info.rank} (the line itself has no time)"
        if ff["time_estimate"] is None:  # its time too has no year in the bundle
            ff["time_estimate_basis"] = None
    return ff


def set_rank_states(facts: Facts, findings: list[Finding], culprit: Event | None,
                    ff: dict[str, Any] | None = None) -> None:

    # Crashed: a real fault of the rank's own (not the NCCL teardown a victim goes through).
    crashed = {e.rank for e in crash_events(facts) + exit_events(facts) if e.rank is not None}
    crashed |= {
        e.rank for e in facts.kind("cuda_oom", "host_oom_kill", "xid", "cuda_error")
        if e.rank is not None and e.data.get("fault_class") != "secondary"
    }
    errored = {e.rank for e in facts.events if e.rank is not None and e.severity in ("error", "fatal")} - crashed
    if (culprit is not None and culprit.rank is not None and findings
            and not traits(findings[0].cause).stalls):
        crashed.add(culprit.rank)
    named = ff.get("rank") if ff else None
    if named is not None and findings and not traits(findings[0].cause).stalls:
        # The first failure's rank, however it was found: never "ok" beside the card naming it.
        crashed.add(named)
    if named is not None and ff is not None:
        # One record per process: what the card knows of it and the ranks table say the same.
        info = facts.ranks.setdefault(named, RankInfo(rank=named))
        proc = facts.processes.of(named, FIRST_FAILURE)
        for name in ("host", "pid", "device", "bus_id"):
            said = ff.get(name)
            proc.offer(name, None if said == "" else said, FIRST_FAILURE)
        info.host, info.pid, info.device, info.bus_id = proc.host, proc.pid, proc.device, proc.bus_id
    silent: set[int] = set()
    if findings and findings[0].silent:
        # The ranks that fell behind or whose GPU went idle. A desync's or a mismatch's ranks did
        # report (another collective): they stay errored, as the timeline draws them.
        silent.update(findings[0].ranks)
    last_times = [r.last_time for r in facts.ranks.values() if r.last_time]
    latest = max(last_times) if last_times else None
    for rank, info in facts.ranks.items():
        if rank in crashed:
            info.state = "crashed"
        elif rank in silent:
            info.state = "silent"
        elif rank in errored:
            info.state = "errored"
        elif info.last_time and latest and (latest - info.last_time).total_seconds() > SILENT_AFTER_S:
            info.state = "silent"
        elif info.sources or info.last_line:
            info.state = "ok"
        else:
            info.state = "unknown"
    # The world may have ranks with no line at all in the bundle.
    if facts.world_size and facts.world_size <= FILL_WORLD_MAX:

        for r in range(facts.world_size):
            facts.ranks.setdefault(r, RankInfo(rank=r, state="unknown"))
        facts.ranks = dict(sorted(facts.ranks.items()))


def name_the_culprit(facts: Facts, findings: list[Finding], culprit: Event | None, named: int | None) -> None:
    """The verdict named the rank of a line whose own words did not (infer_rank: the launcher's
    local rank, its report, the same error on one rank): the top finding's title and detail,
    which its rule wrote of 'an unidentified process' or 'a process on <host>', say that rank."""
    if not findings or culprit is None or culprit.rank is not None or named is None:
        return
    unknown, known = facts.rank_label(None, culprit.host), facts.rank_label(named, culprit.host)
    top = findings[0]
    for name in ("title", "detail"):
        text = getattr(top, name)
        if unknown in text:
            setattr(top, name, text.replace(unknown, known))
        elif upper_first(unknown) in text:
            setattr(top, name, text.replace(upper_first(unknown), upper_first(known)))


def summary(facts: Facts, findings: list[Finding], culprit: Event | None, named: int | None = None) -> str:
    """The verdict in a sentence; `named`: the first failure's rank, where the verdict names
    one (first_failure): only then did the other ranks' errors follow it."""
    if not findings:
        if not facts.events:
            return "No failure found: the bundle has no log lines the engine recognises."
        return "No cause found with confidence: the logs show no error that names a failing rank."
    v = findings[0]
    when = f" at {culprit.time.strftime('%H:%M:%S')}" if culprit is not None and culprit.time else ""
    text = v.title.rstrip(".") + when
    victims = [r for r, info in facts.ranks.items()
               if info.state in ("errored", "crashed") and r != named]
    if named is not None and victims and not traits(v.cause).stalls:
        text += f"; the errors on {len(victims)} other rank{'s' if len(victims) != 1 else ''} followed it"
    if v.role == "context" and v.confidence == "low":
        text += " (a hint only: the program went on after it and nothing failed)"
    elif v.confidence == "low":
        text += " (low confidence: the logs are incomplete)"
    return text + "."


def notes(facts: Facts, findings: list[Finding]) -> list[str]:
    out: list[str] = []
    if any(t is not None and t.year == YEAR_UNKNOWN for info in facts.ranks.values()
           for t in (info.first_time, info.last_time)):
        out.append("The logs' times have no year (glog, syslog, vLLM) and nothing in the bundle writes one: those "
                   "times are given without a year (time_yearless), never this machine's.")
    out.extend(facts.time_notes)
    if not facts.has_nccl:
        out.append(
            "No NCCL debug lines: NCCL_DEBUG=INFO was probably not set, so which transport was used and which peer "
            "connection failed is unknown. Re-run with NCCL_DEBUG=INFO (and NCCL_DEBUG_FILE=/path/nccl.%h.%p.log)."
        )
    if facts.world_size:
        missing = [r for r, info in facts.ranks.items() if not info.sources and info.last_line is None]
        if missing:
            shown = ", ".join(map(str, missing[:SHOWN_MISSING])) + (" …" if len(missing) > SHOWN_MISSING else "")
            out.append(f"{len(missing)} of {facts.world_size} ranks have no lines in the bundle (ranks {shown}): "
                       "conclusions about them are inferred from absence.")
    timeouts: list[Any] = [e.data.get("timeout_ms") for e in facts.kind("watchdog_timeout") if e.data.get("timeout_ms")]
    crashed = bool(findings) and traits(findings[0].cause).rank_died
    if crashed and timeouts and max(timeouts) > LONG_WATCHDOG_MS:
        out.append(
            f"The collective timeout was raised to {max(timeouts) // 60000} min. Raising the timeout never fixes "
            "a crashed rank: "
            "the others only wait longer before failing."
        )
    killed_note = traits(findings[0].cause).killed_note if findings else ""
    if killed_note and any(e.data.get("signal") == "SIGKILL" for e in facts.events):
        out.append(killed_note)
    for _name, doc in facts.docs.smoke_results:
        if doc.get("ok") is False:
            failed = [r for r in doc.get("ranks") or [] if isinstance(r, dict) and not r.get("ok")]
            first_error = next((str(r.get("error")) for r in failed if r.get("error")), "no error text")
            out.append(f"Health check (smoke, {doc.get('backend')}) failed on {doc.get('host')}: "
                       f"{len(failed)} rank(s) failed; first error: {first_error[:200]}")
    if findings and findings[0].confidence == "low":
        out.append(
            "The verdict is a low-confidence guess: the lines here do not name the cause. To settle it, "
            "collect from every "
            "rank: the full stderr/stdout, NCCL_DEBUG=INFO output (NCCL_DEBUG_FILE=/tmp/nccl.%h.%p.log), "
            "TORCH_DISTRIBUTED_DEBUG=DETAIL for c10d, and `dmesg -T` plus `nvidia-smi -q` of each host "
            "(python -m collectors snapshot does the last two)."
        )
    for source, candidates in sorted(facts.host_unknown.items()):
        out.append(f"{source} names no host and the bundle has several: host unknown (one of "
                   f"{', '.join(candidates[:SHOWN_CANDIDATES])}"
                   + (" …" if len(candidates) > SHOWN_CANDIDATES else "")
                   + "). Collect it with the collector, which records the host.")
    if facts.problems:
        out.append(f"Parts of the bundle could not be read ({len(facts.problems)} problem(s)); the diagnosis uses "
                   "what could be read.")
    return out
