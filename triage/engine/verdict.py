"""From findings to the verdict: order them, name the first failure, set each rank's state,
and write the one-line summary and the notes on what the data leaves unknown."""
from __future__ import annotations

from datetime import datetime
from typing import Any

from .facts import Facts
from .model import CONFIDENCE_ORDER, Event, Finding, RankInfo, iso
from .rules.rank_crash import crash_events, exit_events

ROOT_WEIGHT = 75  # at or above: a real fault, not a downstream symptom


def rank_findings(findings: list[Finding]) -> list[Finding]:
    """Most likely first: confidence, then real faults before symptoms, then the earliest
    fault, then the rule's own weight."""

    def key(f: Finding) -> tuple[Any, ...]:
        c = f.culprit
        t = (c.time or c.approx_time or datetime.max) if c is not None else datetime.max
        return (-CONFIDENCE_ORDER.get(f.confidence, 0), f.weight < ROOT_WEIGHT, t, -f.weight)

    ordered = sorted(findings, key=key)
    # One finding per (rule, culprit): rules may see the same fault through two paths.
    seen: set[tuple[str, int | None]] = set()
    out = []
    for f in ordered:
        k = (f.rule, id(f.culprit) if f.culprit is not None else None)
        if k in seen:
            continue
        seen.add(k)
        out.append(f)
    return out


def first_failure(facts: Facts, findings: list[Finding]) -> tuple[dict[str, Any] | None, Event | None]:
    """The first failure: the contract's keys (rank, host, time, source, line, text: `time` is
    the evidence line's own time, null when that line has none) plus what else is known of the
    process: pid, device (CUDA ordinal), bus_id, and `time_estimate` / `time_estimate_basis`
    when the line has no time but its rank's or file's timed lines bound it."""
    if not findings:
        return None, None
    verdict = findings[0]
    ev = verdict.culprit
    if ev is None and len(set(verdict.ranks)) == 1 and verdict.ranks[0] in facts.ranks:
        # One rank named but no line of its own (a straggler known by absence): its last line.
        info = facts.ranks[verdict.ranks[0]]
        if info.last_line is not None:
            return _with_process({
                "rank": info.rank,
                "host": info.host,
                "time": iso(info.last_time),
                "source": info.last_line.source,
                "line": info.last_line.line,
                "text": info.last_line.text,
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
            "time": iso(match.time) if match else None,
            "source": e.source,
            "line": e.line,
            "text": e.text,
        }, facts, match), None
    host = ev.host or (facts.ranks[ev.rank].host if ev.rank in facts.ranks else None)
    return _with_process({
        "rank": ev.rank,
        "host": host,
        "time": iso(ev.time),
        "source": ev.source,
        "line": ev.line,
        "text": ev.text,
    }, facts, ev), ev


def _with_process(ff: dict[str, Any], facts: Facts, ev: Event | None) -> dict[str, Any]:
    """Adds pid, device, bus_id (from the line itself, else its rank) and a time estimate."""
    info = facts.ranks.get(ff["rank"]) if ff["rank"] is not None else None
    pid = ev.pid if ev is not None and ev.pid is not None else (info.pid if info else None)
    device = ev.device if ev is not None and ev.device is not None else (info.device if info else None)
    bus = (info.bus_id if info else None) or (facts.bus_of_rank.get(ff["rank"]) if ff["rank"] is not None else None)
    if ev is not None and bus is None and isinstance(ev.data.get("bus_id"), str):
        bus = ev.data["bus_id"]
    ff.update(pid=pid, device=device, bus_id=bus, time_estimate=None, time_estimate_basis=None)
    if ff["time"] is None:
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
    return ff


def set_rank_states(facts: Facts, findings: list[Finding], culprit: Event | None) -> None:

    # Crashed: a real fault of the rank's own (not the NCCL teardown a victim goes through).
    crashed = {e.rank for e in crash_events(facts) + exit_events(facts) if e.rank is not None}
    crashed |= {
        e.rank for e in facts.kind("cuda_oom", "host_oom_kill", "xid", "cuda_error")
        if e.rank is not None and e.data.get("fault_class") != "secondary"
    }
    errored = {e.rank for e in facts.events if e.rank is not None and e.severity in ("error", "fatal")} - crashed
    if culprit is not None and culprit.rank is not None and findings and findings[0].cause != "collective_timeout_straggler":
        crashed.add(culprit.rank)
    silent: set[int] = set()
    if findings and findings[0].cause == "collective_timeout_straggler":
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
        elif info.last_time and latest and (latest - info.last_time).total_seconds() > 60:
            info.state = "silent"
        elif info.sources or info.last_line:
            info.state = "ok"
        else:
            info.state = "unknown"
    # The world may have ranks with no line at all in the bundle.
    if facts.world_size and facts.world_size <= 4096:

        for r in range(facts.world_size):
            facts.ranks.setdefault(r, RankInfo(rank=r, state="unknown"))
        facts.ranks = dict(sorted(facts.ranks.items()))


def summary(facts: Facts, findings: list[Finding], culprit: Event | None) -> str:
    if not findings:
        if not facts.events:
            return "No failure found: the bundle has no log lines the engine recognises."
        return "No cause found with confidence: the logs show no error that names a failing rank."
    v = findings[0]
    when = f" at {culprit.time.strftime('%H:%M:%S')}" if culprit is not None and culprit.time else ""
    text = v.title.rstrip(".") + when
    victims = [r for r, info in facts.ranks.items() if info.state in ("errored", "crashed") and (culprit is None or r != culprit.rank)]
    if culprit is not None and culprit.rank is not None and victims and v.cause != "collective_timeout_straggler":
        text += f"; the errors on {len(victims)} other rank{'s' if len(victims) != 1 else ''} followed it"
    if v.confidence == "low":
        text += " (low confidence: the logs are incomplete)"
    return text + "."


def notes(facts: Facts, findings: list[Finding]) -> list[str]:
    out: list[str] = []
    if not facts.has_nccl:
        out.append(
            "No NCCL debug lines: NCCL_DEBUG=INFO was probably not set, so which transport was used and which peer "
            "connection failed is unknown. Re-run with NCCL_DEBUG=INFO (and NCCL_DEBUG_FILE=/path/nccl.%h.%p.log)."
        )
    if facts.world_size:
        missing = [r for r, info in facts.ranks.items() if not info.sources and info.last_line is None]
        if missing:
            shown = ", ".join(map(str, missing[:12])) + (" …" if len(missing) > 12 else "")
            out.append(f"{len(missing)} of {facts.world_size} ranks have no lines in the bundle (ranks {shown}): conclusions about them are inferred from absence.")
    timeouts = [e.data.get("timeout_ms") for e in facts.kind("watchdog_timeout") if e.data.get("timeout_ms")]
    if findings and findings[0].cause in ("rank_crash", "oom", "hardware_fault") and timeouts and max(timeouts) > 1_800_000:
        out.append(
            f"The collective timeout was raised to {max(timeouts) // 60000} min. Raising the timeout never fixes a crashed rank: "
            "the others only wait longer before failing."
        )
    if findings and findings[0].cause in ("rank_crash",) and any(e.data.get("signal") == "SIGKILL" for e in facts.events):
        out.append("A process was killed with SIGKILL: check `dmesg` for the host OOM killer and the scheduler for limits.")
    for _name, doc in facts.docs.smoke_results:
        if doc.get("ok") is False:
            failed = [r for r in doc.get("ranks") or [] if isinstance(r, dict) and not r.get("ok")]
            first_error = next((str(r.get("error")) for r in failed if r.get("error")), "no error text")
            out.append(f"Health check (smoke, {doc.get('backend')}) failed on {doc.get('host')}: "
                       f"{len(failed)} rank(s) failed; first error: {first_error[:200]}")
    if facts.problems:
        out.append(f"Parts of the bundle could not be read ({len(facts.problems)} problem(s)); the diagnosis uses what could be read.")
    return out
