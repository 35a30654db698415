"""The data the rank timeline draws (docs/engine-api.md): per rank, when it was active, what
state it ended in and which events mark it, on an honest axis: wall time where the logs have
it, else collective sequence numbers, else the reading position within each source (never an
order across files the logs do not give)."""
from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from .facts import Facts
from .forensics.progress import collective_progress
from .model import Event, Evidence, RankInfo, duration_text, iso_on_axis
from .rules.flight_recorder import collectives, ranked_dumps
from .timeparse import YEAR_UNKNOWN


def _at(t: datetime | None) -> str | None:
    # The axis orders times whose year is unknown too (model.iso_on_axis); the figure then
    # shows no year.
    return iso_on_axis(t) if t is not None else None

MARKER_KINDS = {
    "cuda_oom": "cuda_oom",
    "xid": "xid",
    "watchdog_timeout": "watchdog_timeout",
    "process_exit": "exit_signal",
    "elastic_failure": "exit_signal",
    "crash_signal": "exit_signal",
    "host_oom_kill": "exit_signal",
    "exception": "exception",
    "cuda_error": "first_error",
}
MAX_EVENTS_PER_RANK = 50
# Rows for processes the logs name without a rank (host:pid [device] of NCCL lines): enough for
# any single-node log, bounded for a bundle full of anonymous lines.
MAX_PROCESS_ROWS = 256
# A rank "blocked in a collective" is drawn as its own state, never as "running".
BLOCKED = "blocked"
# Rows of a fleet's ranks mostly hold the same segments (the same states between the same
# instants): one dict each, shared by the rows that draw it (16,384 ranks held 49,000 dicts,
# 0.6 KB a rank at the diagnosis' peak). Bounded: ranks that each ended at their own instant
# share nothing, and the table is then only a cost.
MAX_SHARED_SEGMENTS = 4096


def _process_key(ev: Event) -> tuple[str | None, int | None, int | None] | None:
    if ev.host is None and ev.pid is None and ev.device is None:
        return None
    return (ev.host, ev.pid, ev.device)


def _row_id(key: tuple[Any, ...]) -> str:
    return "p:" + "|".join("" if v is None else str(v) for v in key)


def _axis(ranks: dict[int, RankInfo], processes: dict[Any, RankInfo]) -> str:
    """Time when at least half the rows have times, else NCCL sequence numbers, else position."""
    timed = [r for r in ranks.values() if r.last_time is not None] + [p for p in processes.values() if p.last_time]
    with_seq = [r for r in ranks.values() if r.last_seq is not None]
    total = len(ranks) + len(processes)
    if total and len(timed) >= max(1, total // 2):
        return "time"
    if with_seq:
        return "sequence"
    return "position"


def _markers(
    facts: Facts, ranks: dict[int, RankInfo], processes: dict[tuple[Any, ...], RankInfo], x_of: Callable[[Event], Any],
) -> list[dict[str, Any]]:
    """The event markers drawn on the rows, at most MAX_EVENTS_PER_RANK a row."""
    events: list[dict[str, Any]] = []
    per_row: dict[Any, int] = {}
    first_error_seen: set[Any] = set()
    # Made at the first line no rank is known for: a fleet's lines all name one, and this set of
    # every rank's (host, pid) is 0.1 KB a rank at the diagnosis' peak.
    ranked_processes: set[tuple[str | None, int | None]] | None = None
    for ev in facts.events:
        kind = MARKER_KINDS.get(ev.kind) or (
            "nccl_warn" if ev.kind.startswith("nccl") and ev.severity in ("warn", "error") else None
        )
        if kind is None:
            continue
        who: Any = ev.rank
        row_id = None
        if who is None:
            pkey = _process_key(ev)
            if pkey is None or pkey not in processes:
                continue
            if ranked_processes is None:
                ranked_processes = {(p.host, p.pid) for p in facts.processes.values() if p.pid is not None}
            if (ev.host, ev.pid) in ranked_processes:
                continue
            who = row_id = _row_id(pkey)
        x = x_of(ev)
        if x is None:
            continue
        if ev.severity in ("error", "fatal") and who not in first_error_seen:
            first_error_seen.add(who)
            kind_out = "first_error" if kind not in ("cuda_oom", "xid", "watchdog_timeout") else kind
        else:
            kind_out = kind
        n = per_row.get(who, 0)
        if n >= MAX_EVENTS_PER_RANK:
            continue
        per_row[who] = n + 1
        item = {
            "rank": ev.rank,
            "x": x,
            "kind": kind_out,
            "label": (ev.message or ev.text)[:120],
            "text": ev.text[:300],
            "source": ev.source,
            "line": ev.line,
        }
        if row_id is not None:
            item["row"] = row_id
        events.append(item)
    return events


class _Positions:
    """Reading position within each source: a line's place among the lines read from its own
    file, counted from 1. Logs with neither times nor sequence numbers say nothing of the order
    of lines in different files (which file is read first is the reader's choice: facts'
    content order), so no position of one file is ever placed after one of another: each
    source starts again at 1. The events of a source are consecutive in reading order
    (facts._content_order), so its first event's order marks where it starts."""

    def __init__(self, events: list[Event]) -> None:
        starts: dict[str, int] = {}
        for ev in events:
            if ev.order > 0 and (ev.source not in starts or ev.order < starts[ev.source]):
                starts[ev.source] = ev.order
        self.starts = sorted(starts.values())

    def __call__(self, order: int | None) -> int | None:
        if order is None or order <= 0:
            return order  # (documents' events: no reading position)
        start = self.starts[bisect_right(self.starts, order) - 1] if self.starts and order >= self.starts[0] else 1
        return order - start + 1


def build_timeline(facts: Facts, culprit: Event | None, ff: dict[str, Any] | None = None) -> dict[str, Any]:
    ranks = facts.ranks
    processes = _processes(facts)
    axis = _axis(ranks, processes)
    position = _Positions(facts.events) if axis == "position" else None

    def x_of(ev: Event) -> Any:
        if axis == "time":
            return _at(ev.time) if ev.time else None
        if axis == "sequence":
            return ev.seq
        return position(ev.order) if position is not None else ev.order

    rows = _rank_rows(facts, axis, position)
    culprit_key = ((_process_key(culprit) or ("source", culprit.source))
                   if culprit is not None and culprit.rank is None else None)
    if culprit is None and ff and ff.get("rank") is None:
        # No culprit event, but the first failure's line names its process (host:pid [GPU]).
        culprit_key = (ff.get("host"), ff.get("pid"), ff.get("device"))
        if culprit_key in processes:
            culprit = next((e for e in facts.events if e.source == ff.get("source") and e.line == ff.get("line")), None)
    for key, info in processes.items():
        if key == culprit_key:
            info.state = "crashed"
        row = _row(info, axis, rank=None, row_id=_row_id(key), position=position)
        if key[0] == "source":
            row["label"] = str(key[1])
        rows.append(row)
    _add_segments(facts, rows, axis, x_of, position)
    events = _markers(facts, ranks, processes, x_of)
    return {
        "axis": axis,
        "ranks": rows,
        "events": events,
        "first_failure": (_first_failure(facts, culprit, axis, x_of, ff, position)
                          or _process_failure(culprit, culprit_key, processes, x_of)),
        "gpu_samples": _gpu_samples(facts),
        # Finest time step the logs printed: 1 s when every drawn time is whole seconds (torch's
        # C++ logger, NCCL's default), so the figure never spreads them on a millisecond axis.
        "resolution_s": _resolution(rows) if axis == "time" else None,
        # False when the times drawn have no year and the bundle writes none (timeparse.YEAR_UNKNOWN).
        "year_known": not any(t is not None and t.year == YEAR_UNKNOWN
                              for info in ranks.values() for t in (info.first_time, info.last_time)),
        # Flight-recorder dumps: each rank's collectives (seq over time), the wavefront, mismatches.
        "collectives": collective_progress(collectives(facts), ranked_dumps(facts)),
    }


def _rank_rows(facts: Facts, axis: str, position: _Positions | None = None) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    # A rank that logged its own watchdog or error was not silent, whatever the verdict's
    # straggler logic concluded: it is drawn as errored.
    spoke = {e.rank for e in facts.events if e.rank is not None and e.severity in ("error", "fatal")}
    for rank, info in facts.ranks.items():
        row = _row(info, axis, rank=rank, row_id=None, position=position)
        if row["state"] == "silent" and rank in spoke:
            row["state"], row["silent_since"] = "errored", None
        rows.append(row)
    return rows


def _add_segments(facts: Facts, rows: list[dict[str, Any]], axis: str, x_of: Callable[[Event], Any],
                  position: _Positions | None = None) -> None:
    """Each row's segments. A function of its own: what it works from (a span and a first
    error a rank) is let go before the markers are drawn, the diagnosis' peak."""
    end_all: Any = None
    for row in rows:
        end = row["end"]
        if end is not None and (end_all is None or end > end_all):
            end_all = end
    blocked = _blocked_spans(facts, axis, position)
    first_error = _first_error_x(facts, x_of)
    shared: dict[tuple[Any, ...], dict[str, Any]] = {}
    for row in rows:
        row["blocked"] = blocked.get(row["rank"]) if row["rank"] is not None else None
        row["first_error"] = first_error.get(row["rank"] if row["rank"] is not None else row.get("row"))
        row["segments"] = _segments(row, end_all, shared)


def _row(info: RankInfo, axis: str, *, rank: int | None, row_id: str | None,
         position: _Positions | None = None) -> dict[str, Any]:
    start: str | int | None
    end: str | int | None
    if axis == "time":
        start, end = _at(info.first_time), _at(info.last_time)
    elif axis == "sequence":
        start, end = (0, info.last_seq) if info.last_seq is not None else (None, None)
    elif position is not None:
        start, end = position(info.first_order), position(info.last_order)
        if start is not None and end is not None and end < start:
            start = 1  # (a row over several sources: from the start of the one it ends in)
    else:
        start, end = info.first_order, info.last_order
    row: dict[str, Any] = {
        "rank": rank,
        "host": info.host,
        "device": info.device,
        "pid": info.pid,
        "bus_id": info.bus_id,
        "state": info.state,
        "start": start,
        "end": end,
        "silent_since": end if info.state in ("silent", "crashed") else None,
        "last_seq": info.last_seq,
        "last_line": (
            {"source": info.last_line.source, "line": info.last_line.line, "text": info.last_line.text[:300],
             "time": _at(info.last_time)}
            if info.last_line else None
        ),
        "segments": [],
    }
    if row_id is not None:
        row["row"] = row_id
    return row


def _processes(facts: Facts) -> dict[tuple[Any, ...], RankInfo]:
    """Processes the logs name by host, pid or GPU but never by rank: one row each, so a single
    log of one process is drawn. With nothing named at all, one row per source file."""
    ranked = {(p.host, p.pid) for p in facts.processes.values() if p.pid is not None}  # (processes.py)
    groups: dict[tuple[Any, ...], list[Event]] = {}
    for ev in facts.events:
        key = _process_key(ev) if ev.rank is None else None
        if key is not None and facts.ranks and key[1] is None and key[2] is None:
            continue  # a host's own lines (kernel, snapshot) next to ranked rows: no process to draw
        if key is not None and (ev.host, ev.pid) not in ranked and (key in groups or len(groups) < MAX_PROCESS_ROWS):
            groups.setdefault(key, []).append(ev)
    if not groups and not facts.ranks:
        for ev in facts.events:
            if ("source", ev.source) in groups or len(groups) < MAX_PROCESS_ROWS:
                groups.setdefault(("source", ev.source), []).append(ev)
    out: dict[tuple[Any, ...], RankInfo] = {}
    for key, evs in groups.items():
        times = [e.time for e in evs if e.time is not None]
        last = max(evs, key=lambda e: e.order)
        out[key] = RankInfo(
            rank=None, host=key[0] if key[0] != "source" else None,
            pid=key[1] if key[0] != "source" else None, device=key[2] if key[0] != "source" else None,
            first_time=min(times) if times else None, last_time=max(times) if times else None,
            first_order=min(e.order for e in evs), last_order=last.order,
            last_line=Evidence(last.source, last.line, last.text),
            state="errored" if any(e.severity in ("error", "fatal") for e in evs) else "ok",
        )
    return out


def _first_error_x(facts: Facts, x_of: Any) -> dict[Any, Any]:
    """rank (or process row id) -> x of its first error or fatal line that has a place on the axis."""
    out: dict[Any, Any] = {}
    for ev in facts.events:
        if ev.severity not in ("error", "fatal"):
            continue
        key = _process_key(ev) if ev.rank is None else None
        who = ev.rank if ev.rank is not None else (_row_id(key) if key is not None else _row_id(("source", ev.source)))
        x = x_of(ev)
        if x is not None and (who not in out or x < out[who]):
            out[who] = x
    return out


def _resolution(rows: list[dict[str, Any]]) -> float:
    times = [t for r in rows for t in (r["start"], r["end"]) if isinstance(t, str)]
    return 1.0 if times and all("." not in t for t in times) else 1e-6


def _blocked_spans(facts: Facts, axis: str, position: _Positions | None = None) -> dict[int, tuple[Any, Any]]:
    """rank -> (start, end) of the span it spent inside a collective that never completed.

    Time axis: the watchdog says how long the collective ran before it gave up ("ran for N ms",
    else its timeout), so the span ends at the watchdog line and starts that long before. Sequence
    axis: from the last completed to the stuck collective. Reading position: from the rank's last
    line before the watchdog (its last sign of progress) to the watchdog line."""
    out: dict[int, tuple[Any, Any]] = {}
    last_ok: dict[int, int] = {}
    completed: dict[int, int] = {}
    for ev in sorted(facts.events, key=lambda e: e.order):
        if ev.rank is None:
            continue
        if ev.kind == "watchdog_progress" and ev.data.get("last_completed") is not None:
            completed[ev.rank] = ev.data["last_completed"]
        if ev.kind != "watchdog_timeout" or ev.rank in out:
            if ev.severity not in ("error", "fatal") and ev.rank not in out:
                last_ok[ev.rank] = ev.order
            continue
        if axis == "time" and ev.time is not None:
            ran_ms = ev.data.get("ran_ms") or ev.data.get("timeout_ms")
            if ran_ms:
                out[ev.rank] = (_at(ev.time - timedelta(milliseconds=ran_ms)), _at(ev.time))
        elif axis == "sequence" and ev.seq is not None:
            out[ev.rank] = (completed.get(ev.rank, ev.seq - 1), ev.seq)
        elif axis == "position" and ev.rank in last_ok:
            start, end = (last_ok[ev.rank], ev.order) if position is None else (position(last_ok[ev.rank]),
                                                                               position(ev.order))
            out[ev.rank] = (start if start is not None and end is not None and start <= end else end, end)
    # Progress lines seen after the watchdog ("last completed NCCL work: N") refine the start.
    if axis == "sequence":
        for rank, (_start, end) in list(out.items()):
            if rank in completed and completed[rank] < end:
                out[rank] = (completed[rank], end)
    return out


def _segments(row: dict[str, Any], end_all: Any,
              shared: dict[tuple[Any, ...], dict[str, Any]]) -> list[dict[str, Any]]:
    start, end = row["start"], row["end"]
    blocked = row.pop("blocked", None)
    if start is None or end is None:
        return []
    segments: list[dict[str, Any]] = []
    if blocked is not None:
        b0, b1 = blocked
        b1 = max(b1, b0)
        if start < b0:
            segments.append(_segment(shared, "running", start, b0))
        segments.append(_segment(shared, BLOCKED, b0, b1))
        if b1 < end:
            # After the watchdog gave up the rank is tearing down, not training.
            after = row["state"] if row["state"] in ("errored", "crashed") else "running"
            segments.append(_segment(shared, after, b1, end))
    else:
        failed = row.pop("first_error", None)
        if failed is not None and row["state"] in ("errored", "crashed") and start <= failed < end:
            # From its first error on, the rank is failing, not running (the teardown lines
            # that follow are not progress).
            segments.append(_segment(shared, "running", start, failed))
            segments.append(_segment(shared, row["state"], failed, end))
        else:
            segments.append(_segment(shared, "running", start, end))
    row.pop("first_error", None)
    state = row["state"]
    if state in ("crashed", "errored"):
        segments.append(_segment(shared, state, end, end))
    if state in ("silent", "crashed") and end_all is not None and end_all != end:
        segments.append(_segment(shared, "silent", end, end_all))
    return segments


def _segment(shared: dict[tuple[Any, ...], dict[str, Any]], state: str, start: Any, end: Any) -> dict[str, Any]:
    """A segment dict, the one already made for an equal segment where there is one (see
    MAX_SHARED_SEGMENTS); the key holds the types too (1 and 1.0 are equal, not printed alike)."""
    key = (state, start, end, type(start), type(end))
    segment = shared.get(key)
    if segment is None:
        segment = {"state": state, "start": start, "end": end}
        if len(shared) < MAX_SHARED_SEGMENTS:
            shared[key] = segment
    return segment


def _first_failure(facts: Facts, culprit: Event | None, axis: str, x_of: Any,
                   ff: dict[str, Any] | None, position: _Positions | None = None) -> dict[str, Any] | None:
    def place(order: int | None) -> int | None:
        return position(order) if position is not None else order

    if (culprit is None or culprit.rank is None) and ff and ff.get("rank") is not None:
        info = facts.ranks.get(ff["rank"])
        if info is None:
            return None
        x = _at(info.last_time) if axis == "time" else (info.last_seq if axis == "sequence" else place(info.last_order))
        label = f"{facts.rank_label(info.rank)} went silent" + (
            f" at {info.last_time.strftime('%H:%M:%S')}" if axis == "time" and info.last_time else ""
        )
        return {"rank": info.rank, "x": x, "label": label} if x is not None else None
    if culprit is None or culprit.rank is None:
        return None
    info = facts.ranks.get(culprit.rank)
    who = facts.rank_label(culprit.rank, culprit.host)
    label = f"{who} failed first"
    if axis == "time" and culprit.time is not None:
        others = [r.last_time for r in facts.ranks.values() if r.rank != culprit.rank and r.last_time]
        label = f"{who} failed at {_clock(culprit.time)}"
        if culprit.data.get("kernel_clock"):
            label += " (the kernel's clock, which may drift from the logs')"
        if others:
            gap = (max(others) - culprit.time).total_seconds()
            if gap > 0:
                label += f", {duration_text(gap)} before the others stopped"
    elif axis == "sequence" and info and info.last_seq is not None:
        label = f"{who} stopped after collective {info.last_seq}"
    x = x_of(culprit)
    if x is None and axis == "time" and ff and ff.get("time_estimate"):
        # An untimed culprit line with a timed twin (the error file, the teardown): that time.
        x = ff["time_estimate"]
        label = f"{who} failed first (about {_clock(datetime.fromisoformat(x))})"
    if x is None and info is not None:
        # An untimed culprit line: where its rank's activity ended, on the same axis.
        x = _at(info.last_time or culprit.approx_time) if axis == "time" else (
            info.last_seq if axis == "sequence" else place(info.last_order))
    return {"rank": culprit.rank, "x": x, "label": label} if x is not None else None


def _clock(t: datetime) -> str:
    return t.strftime("%H:%M:%S.%f") if t.microsecond else t.strftime("%H:%M:%S")


def _process_failure(culprit: Event | None, key: Any, processes: dict[Any, RankInfo],
                     x_of: Any) -> dict[str, Any] | None:
    """The first failure of a process known only by host, pid and GPU: its row, not a rank."""
    if culprit is None or key is None or key not in processes:
        return None
    x = x_of(culprit)
    info = processes[key]
    if x is None:
        x = x_of(Event(kind="", source="", line=0, text="", time=info.last_time, order=info.last_order or 0))
    who = f"the process writing {key[1]}" if key[0] == "source" else " ".join(p for p in (
        f"pid {info.pid}" if info.pid is not None else None,
        f"on {info.host}" if info.host else None,
        f"(GPU {info.device})" if info.device is not None else None) if p) or "a process"
    return {"rank": None, "row": _row_id(key), "x": x, "label": f"{who} failed first"} if x is not None else None


def _gpu_samples(facts: Facts) -> list[dict[str, Any]]:
    out = []
    for s in facts.docs.nvml_samples[:20000]:
        out.append({
            "host": s.get("host"),
            "gpu": s.get("gpu"),
            "time": s.get("time"),
            "util": s.get("util"),
            "mem_used": s.get("mem_used"),
            "mem_total": s.get("mem_total"),
        })
    return out
