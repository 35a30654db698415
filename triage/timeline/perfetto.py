"""The rank timeline as a Chrome/Perfetto trace (Trace Event Format JSON).

pid = rank (one process per rank, sorted like the figure's rows), one thread (track) per state
with complete ("X") slices, a "markers" track with instant ("i") events for NCCL WARN, OOM,
Xid ..., and a global instant for the first failure. `ts` is in microseconds: since the first
timestamp when the logs have times; otherwise the sequence number or reading position is used
as if it were microseconds, and `otherData` says so, so nobody reads it as time.
"""
from __future__ import annotations

from typing import Any

from .axis import Axis, clean_timeline, row_label, row_sort_key
from .palette import STATE_ORDER, event_style

MARKERS_TID = 100
# Ranks the engine could not number still need a distinct pid; keep them clear of real ranks.
UNNAMED_PID_BASE = 1_000_000


def _tid(state: str) -> int:
    return STATE_ORDER.index(state) + 1 if state in STATE_ORDER else len(STATE_ORDER) + 1


class _Clock:
    """X values -> integer microseconds for `ts`."""

    def __init__(self, axis: Axis, timeline: dict[str, Any]) -> None:
        self.axis = axis
        self.t0_ms: float | None = None
        self.t0_text: str | None = None
        if axis.is_time:
            for value in _all_x(timeline):
                ms = axis.x(value)
                if ms is not None and (self.t0_ms is None or ms < self.t0_ms):
                    self.t0_ms, self.t0_text = ms, value

    def ts(self, value: Any) -> int | None:
        x = self.axis.x(value)
        if x is None:
            return None
        if self.axis.is_time:
            return int(round((x - (self.t0_ms or 0.0)) * 1000))
        return int(round(x))


def _all_x(timeline: dict[str, Any]) -> list[Any]:
    values: list[Any] = []
    for r in timeline.get("ranks") or []:
        values += [r.get("start"), r.get("end")]
        values += [s.get("start") for s in r.get("segments") or []]
    values += [e.get("x") for e in timeline.get("events") or []]
    return [v for v in values if v is not None]


def build_trace(timeline: dict[str, Any]) -> dict[str, Any]:
    timeline = clean_timeline(timeline)
    axis = Axis.of(timeline)
    clock = _Clock(axis, timeline)
    ranks = sorted((r for r in timeline.get("ranks") or [] if isinstance(r, dict)), key=row_sort_key)
    events: list[dict[str, Any]] = []
    pid_of_rank: dict[int, int] = {}
    end = max((t for t in (clock.ts(v) for v in _all_x(timeline)) if t is not None), default=None)
    unit = "" if axis.is_time else f" (x = {axis.kind}, not time)"

    for index, rank in enumerate(ranks):
        pid = rank["rank"] if isinstance(rank.get("rank"), int) else UNNAMED_PID_BASE + index
        if isinstance(rank.get("rank"), int):
            pid_of_rank.setdefault(rank["rank"], pid)
        name = f"rank {rank['rank']} · " if rank.get("rank") is not None else "unnamed rank · "
        place = row_label({k: v for k, v in rank.items() if k != "rank"})
        events.append({"ph": "M", "name": "process_name", "pid": pid, "args": {"name": f"{name}{place}{unit}"}})
        events.append({"ph": "M", "name": "process_sort_index", "pid": pid, "args": {"sort_index": index}})
        events.append({"ph": "M", "name": "process_labels", "pid": pid,
                       "args": {"labels": f"state: {rank.get('state') or 'unknown'}"}})
        segments = [s for s in rank.get("segments") or [] if isinstance(s, dict)]
        since = clock.ts(rank.get("silent_since"))
        if (since is not None and end is not None and since < end
                and not any(s.get("state") == "silent" for s in segments)):
            segments.append({"state": "silent", "_ts": since, "_end": end})
        states_seen: set[str] = set()
        for seg in segments:
            state = str(seg.get("state") or "unknown")
            start = seg.get("_ts", clock.ts(seg.get("start")))
            stop = seg.get("_end", clock.ts(seg.get("end")))
            if start is None:
                continue
            states_seen.add(state)
            events.append({"ph": "X", "name": state, "cat": "state", "pid": pid, "tid": _tid(state),
                           "ts": start, "dur": max(0, (stop if stop is not None else start) - start)})
        for state in sorted(states_seen, key=_tid):
            events.append({"ph": "M", "name": "thread_name", "pid": pid, "tid": _tid(state), "args": {"name": state}})
            events.append({"ph": "M", "name": "thread_sort_index", "pid": pid, "tid": _tid(state),
                           "args": {"sort_index": _tid(state)}})
        events.append({"ph": "M", "name": "thread_name", "pid": pid, "tid": MARKERS_TID, "args": {"name": "markers"}})

    for ev in timeline.get("events") or []:
        if not isinstance(ev, dict):
            continue
        pid = pid_of_rank.get(ev.get("rank")) if ev.get("rank") is not None else None  # type: ignore[arg-type]
        ts = clock.ts(ev.get("x"))
        if pid is None or ts is None:
            continue
        kind = str(ev.get("kind") or "event")
        events.append({"ph": "i", "s": "t", "name": ev.get("label") or event_style(kind)[0], "cat": kind,
                       "pid": pid, "tid": MARKERS_TID, "ts": ts,
                       "args": {"text": ev.get("text"), "source": ev.get("source"), "line": ev.get("line")}})

    first = timeline.get("first_failure")
    if isinstance(first, dict) and clock.ts(first.get("x")) is not None:
        events.append({"ph": "i", "s": "g", "name": first.get("label") or "first failure", "cat": "first_failure",
                       "pid": pid_of_rank.get(first.get("rank"), 0), "tid": MARKERS_TID,  # type: ignore[arg-type]
                       "ts": clock.ts(first.get("x")), "args": {"rank": first.get("rank")}})

    other: dict[str, Any] = {"generator": "nccl-triage", "axis": axis.kind}
    if axis.is_time:
        other["ts"] = f"microseconds since {clock.t0_text} ({axis.title()})"
    else:
        other["ts"] = (f"the {axis.kind} number used as microseconds: the logs have no timestamps, "
                       "so durations here are not times")
    return {"traceEvents": events, "displayTimeUnit": "ms", "otherData": other}

