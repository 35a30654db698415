"""The data the rank timeline draws (docs/engine-api.md): per rank, when it was active, what
state it ended in and which events mark it, on an honest axis: wall time where the logs have
it, else collective sequence numbers, else reading position."""
from __future__ import annotations

from typing import Any

from .facts import Facts
from .model import Event, iso

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


def build_timeline(facts: Facts, culprit: Event | None, ff: dict[str, Any] | None = None) -> dict[str, Any]:
    ranks = facts.ranks
    timed = [r for r in ranks.values() if r.last_time is not None]
    with_seq = [r for r in ranks.values() if r.last_seq is not None]
    if ranks and len(timed) >= max(1, len(ranks) // 2):
        axis = "time"
    elif with_seq:
        axis = "sequence"
    else:
        axis = "position"

    def x_of(ev: Event) -> Any:
        if axis == "time":
            return iso(ev.time) if ev.time else None
        if axis == "sequence":
            return ev.seq
        return ev.order

    end_all: Any = None
    rows: list[dict[str, Any]] = []
    for rank, info in ranks.items():
        if axis == "time":
            start, end = iso(info.first_time), iso(info.last_time)
        elif axis == "sequence":
            start, end = 0, info.last_seq
        else:
            start, end = info.first_order, info.last_order
        if end is not None and (end_all is None or end > end_all):
            end_all = end
        rows.append({
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
                {"source": info.last_line.source, "line": info.last_line.line, "text": info.last_line.text[:300], "time": iso(info.last_time)}
                if info.last_line else None
            ),
            "segments": [],
        })
    for row in rows:
        row["segments"] = _segments(row, end_all)

    events: list[dict[str, Any]] = []
    per_rank: dict[Any, int] = {}
    first_error_seen: set[Any] = set()
    for ev in facts.events:
        kind = MARKER_KINDS.get(ev.kind) or ("nccl_warn" if ev.kind.startswith("nccl") and ev.severity in ("warn", "error") else None)
        if kind is None or ev.rank is None:
            continue
        x = x_of(ev)
        if x is None:
            continue
        if ev.severity in ("error", "fatal") and ev.rank not in first_error_seen:
            first_error_seen.add(ev.rank)
            kind_out = "first_error" if kind not in ("cuda_oom", "xid", "watchdog_timeout") else kind
        else:
            kind_out = kind
        n = per_rank.get(ev.rank, 0)
        if n >= MAX_EVENTS_PER_RANK:
            continue
        per_rank[ev.rank] = n + 1
        events.append({
            "rank": ev.rank,
            "x": x,
            "kind": kind_out,
            "label": (ev.message or ev.text)[:120],
            "text": ev.text[:300],
            "source": ev.source,
            "line": ev.line,
        })
    return {
        "axis": axis,
        "ranks": rows,
        "events": events,
        "first_failure": _first_failure(facts, culprit, axis, x_of, ff),
        "gpu_samples": _gpu_samples(facts),
    }


def _segments(row: dict[str, Any], end_all: Any) -> list[dict[str, Any]]:
    start, end = row["start"], row["end"]
    if start is None or end is None:
        return []
    segments = [{"state": "running", "start": start, "end": end}]
    state = row["state"]
    if state in ("crashed", "errored"):
        segments.append({"state": state, "start": end, "end": end})
    if state in ("silent", "crashed") and end_all is not None and end_all != end:
        segments.append({"state": "silent", "start": end, "end": end_all})
    return segments


def _first_failure(facts: Facts, culprit: Event | None, axis: str, x_of: Any, ff: dict[str, Any] | None) -> dict[str, Any] | None:
    if (culprit is None or culprit.rank is None) and ff and ff.get("rank") is not None:
        info = facts.ranks.get(ff["rank"])
        if info is None:
            return None
        x = iso(info.last_time) if axis == "time" else (info.last_seq if axis == "sequence" else info.last_order)
        label = f"{facts.rank_label(info.rank)} went silent" + (f" at {info.last_time.strftime('%H:%M:%S')}" if axis == "time" and info.last_time else "")
        return {"rank": info.rank, "x": x, "label": label} if x is not None else None
    if culprit is None or culprit.rank is None:
        return None
    info = facts.ranks.get(culprit.rank)
    who = facts.rank_label(culprit.rank, culprit.host)
    label = f"{who} failed first"
    if axis == "time" and culprit.time is not None:
        others = [r.last_time for r in facts.ranks.values() if r.rank != culprit.rank and r.last_time]
        label = f"{who} failed at {culprit.time.strftime('%H:%M:%S')}"
        if others:
            gap = (max(others) - culprit.time).total_seconds()
            if gap > 0:
                label += f", {gap:.0f} s before the others stopped"
    elif axis == "sequence" and info and info.last_seq is not None:
        label = f"{who} stopped after collective {info.last_seq}"
    x = x_of(culprit)
    if x is None and info is not None:
        # An untimed culprit line: where its rank's activity ended, on the same axis.
        x = iso(info.last_time or culprit.approx_time) if axis == "time" else (
            info.last_seq if axis == "sequence" else info.last_order)
    return {"rank": culprit.rank, "x": x, "label": label} if x is not None else None


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
