"""What x means in a timeline, and how rows are ordered: shared by the figure and the trace.

The engine gives x as ISO text when `axis == "time"` and as a number (collective sequence or
reading position) otherwise. We never invent times: a non-time axis stays a plain number and
the axis title says what it is.
"""
from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

AXIS_TITLES = {
    "time": "wall clock",
    "sequence": "collective sequence number (the logs have no timestamps)",
    # The engine counts each file's lines on their own (timeline._Positions): two files' positions
    # say nothing of which line came first.
    "position": "reading position within each log file (no timestamps or sequence numbers; files are not ordered "
                "against each other)",
}

_EPOCH = datetime(1970, 1, 1)
# Beyond these a value is not a time, rank or position the engine wrote: dropped as hostile.
_MAX_DIGITS = 20
_MAX_ABS = 1e15
_MAX_X_TEXT = 64


def parse_time(text: str) -> tuple[float, bool]:
    """ISO text -> (milliseconds since the epoch as wall time, whether it carried a zone).

    Plotly's date axes have no time zones: a number is drawn as a UTC wall clock. Zoned times
    are therefore converted to UTC, and zone-less log times are drawn as written.
    """
    t = datetime.fromisoformat(text)
    zoned = t.tzinfo is not None
    if zoned:
        t = t.astimezone(UTC).replace(tzinfo=None)
    return (t - _EPOCH).total_seconds() * 1000.0, zoned


@dataclass
class Axis:
    """Converts the engine's X values into plain numbers for one timeline."""

    kind: str  # time | sequence | position
    zoned: bool = False  # at least one time carried a zone (so the axis is UTC)
    # Rows whose lines carry times, of all rows: a non-time axis on logs that have some times
    # says so rather than claim there are none.
    timed_rows: int = 0
    rows: int = 0

    @classmethod
    def of(cls, timeline: dict[str, Any]) -> Axis:
        rows = [r for r in timeline.get("ranks") or [] if isinstance(r, dict)]
        timed = sum(1 for r in rows if isinstance(r.get("last_line"), dict) and r["last_line"].get("time"))
        return cls(str(timeline.get("axis") or "position"), timed_rows=timed, rows=len(rows))

    @property
    def is_time(self) -> bool:
        return self.kind == "time"

    def x(self, value: Any) -> float | None:
        if value is None:
            return None
        if self.is_time:
            if not isinstance(value, str):
                return None
            try:
                ms, zoned = parse_time(value)
            except (ValueError, OverflowError):
                return None
            self.zoned = self.zoned or zoned
            # Microseconds kept (three decimals of a millisecond): the engine keeps them.
            return round(ms, 3)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
            return value
        return None

    def title(self) -> str:
        if self.is_time:
            return "wall clock (UTC)" if self.zoned else "wall clock (as logged; time zone not stated)"
        if self.timed_rows and self.kind in ("sequence", "position"):
            what = "collective sequence number" if self.kind == "sequence" else "reading position within each log file"
            more = "" if self.kind == "sequence" else ", no collective sequence numbers"
            return f"{what} (timestamps on {self.timed_rows} of {self.rows} rows only: too few for a clock{more})"
        return AXIS_TITLES.get(self.kind, f"{self.kind} (not a time)")

    def describe(self, value: Any) -> str:
        """Short text for a hover or label: the clock time, or 'seq N' / 'position N'."""
        if value is None:
            return "unknown"
        if isinstance(value, str):
            try:
                t = datetime.fromisoformat(value)
            except ValueError:
                return value
            if not t.microsecond:
                return t.strftime("%H:%M:%S")
            return t.strftime("%H:%M:%S.%f") if t.microsecond % 1000 else t.strftime("%H:%M:%S.%f")[:-3]
        return f"{'seq' if self.kind == 'sequence' else 'position'} {value}"


def _natural(text: Any) -> tuple[Any, ...]:
    """node-2 before node-10; numbers and words never compared with each other (a host named
    `0` next to one named `localhost` must not break the sort)."""
    if text is None:
        return ((2, 0, ""),)
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p)
                 for p in re.split(r"(\d+)", str(text)) if p) or ((1, 0, ""),)


def _key_or_last(value: Any) -> tuple[int, Any]:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return (1, 0) if value is None else (0, _natural(value))
    return (0, ((0, value, ""),))


def row_sort_key(rank: dict[str, Any]) -> tuple[Any, ...]:
    """Rows grouped by host, then GPU, then rank; unknown values sort last."""
    return (
        _natural(rank.get("host")),
        _key_or_last(rank.get("device")),
        _key_or_last(rank.get("rank")),
        _key_or_last(rank.get("pid")),
    )


def row_label(rank: dict[str, Any]) -> str:
    if rank.get("label") and rank.get("rank") is None and rank.get("host") is None:
        return f"{rank['label']} (no rank, host or pid named)"
    host = rank.get("host") or "unknown host"
    parts = [host]
    if rank.get("device") is not None:
        parts.append(f"GPU {rank['device']}")
    if rank.get("rank") is not None:
        parts.append(f"rank {rank['rank']}")
    elif rank.get("pid") is not None:
        parts.append(f"pid {rank['pid']}")
    return " · ".join(parts)


# --- Input hygiene: a stored timeline may come from any engine version or a hand-made bundle --

def _int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().lstrip("-").isdigit() and len(value) < _MAX_DIGITS:
        return int(value)
    return None


def _text(value: Any, limit: int = 2000) -> str | None:
    if value is None or isinstance(value, (dict, list)):
        return None
    return str(value)[:limit]


def _x(value: Any) -> Any:
    """An x value as the engine writes it: ISO text or a finite number; anything else is None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return value if math.isfinite(value) and abs(value) < _MAX_ABS else None
    if isinstance(value, str):
        return value[:64]
    return None


def _line(value: Any) -> dict[str, Any] | None:
    if not isinstance(value, dict):
        return None
    return {"source": _text(value.get("source"), 500), "line": _int(value.get("line")),
            "text": _text(value.get("text")) or "", "time": _x(value.get("time"))}


def clean_timeline(timeline: Any) -> dict[str, Any]:
    """The timeline with every field of the type the figure and the trace expect; odd values
    (lists for hosts, text for ranks, NaN times...) become None instead of a server error."""
    if not isinstance(timeline, dict):
        return {"axis": "position", "ranks": [], "events": [], "gpu_samples": [], "first_failure": None}
    ranks = []
    for r in timeline.get("ranks") or []:
        if not isinstance(r, dict):
            continue
        ranks.append({
            "rank": _int(r.get("rank")), "host": _text(r.get("host"), 200), "device": _int(r.get("device")),
            "pid": _int(r.get("pid")), "bus_id": _text(r.get("bus_id"), 64),
            "state": _text(r.get("state"), 40) or "unknown",
            "start": _x(r.get("start")), "end": _x(r.get("end")), "silent_since": _x(r.get("silent_since")),
            "last_seq": _int(r.get("last_seq")), "last_line": _line(r.get("last_line")),
            "segments": [{"state": _text(s.get("state"), 40) or "unknown", "start": _x(s.get("start")),
                          "end": _x(s.get("end"))}
                         for s in r.get("segments") or [] if isinstance(s, dict)]
                        if isinstance(r.get("segments"), list) else [],
            "row": _text(r.get("row"), 300), "label": _text(r.get("label"), 300),
        })
    events = []
    for e in timeline.get("events") or [] if isinstance(timeline.get("events"), list) else []:
        if _event_ok(e):
            events.append(e)  # the common case, as the engine writes it: no copy (1,024 x 50 events)
        elif isinstance(e, dict):
            events.append({"rank": _int(e.get("rank")), "row": _text(e.get("row"), 300), "x": _x(e.get("x")),
                           "kind": _text(e.get("kind"), 40) or "event", "label": _text(e.get("label"), 300) or "",
                           "text": _text(e.get("text")) or "", "source": _text(e.get("source"), 500),
                           "line": _int(e.get("line"))})
    samples = []
    for g in timeline.get("gpu_samples") or [] if isinstance(timeline.get("gpu_samples"), list) else []:
        if (_sample_ok(g) and _number(g.get("mem_used")) == g.get("mem_used")
                and _number(g.get("mem_total")) == g.get("mem_total")):
            samples.append(g)
        elif isinstance(g, dict):
            samples.append({"host": _text(g.get("host"), 200), "gpu": _int(g.get("gpu")),
                            "time": _text(g.get("time"), 64),
                            "util": _number(g.get("util")), "mem_used": _number(g.get("mem_used")),
                            "mem_total": _number(g.get("mem_total"))})
    ff = timeline.get("first_failure")
    first = ({"rank": _int(ff.get("rank")), "row": _text(ff.get("row"), 300), "x": _x(ff.get("x")),
              "label": _text(ff.get("label"), 300)} if isinstance(ff, dict) else None)
    resolution = _number(timeline.get("resolution_s"))
    return {"axis": _text(timeline.get("axis"), 20) or "position", "ranks": ranks, "events": events,
            "gpu_samples": samples, "first_failure": first,
            "resolution_s": resolution if resolution and resolution > 0 else None,
            "collectives": _collectives(timeline.get("collectives"))}


def _collectives(c: Any) -> dict[str, Any] | None:
    """Flight-recorder progress (engine forensics.progress), every field checked."""
    if not isinstance(c, dict):
        return None
    series = []
    for s in c.get("series") or [] if isinstance(c.get("series"), list) else []:
        if not isinstance(s, dict) or _int(s.get("rank")) is None:
            continue
        points = []
        for p in s.get("points") or [] if isinstance(s.get("points"), list) else []:
            if isinstance(p, list) and len(p) >= 3 and _int(p[1]) is not None:  # noqa: PLR2004 - [x, seq, done]
                points.append([_text(p[0], 64), _int(p[1]), bool(p[2])] + [_text(x, 60) for x in p[3:5]])
        series.append({"rank": _int(s.get("rank")), "points": points})
    mismatched = [m for m in (_int(x) for x in c.get("mismatched") or [] if isinstance(c.get("mismatched"), list))
                  if m is not None]
    return {"first_incomplete": _int(c.get("first_incomplete")), "mismatched": mismatched, "series": series}


_SCALARS = (str, int, float)


def _event_ok(e: Any) -> bool:
    """An event already of the engine's shape (checked cheaply, field by field)."""
    if type(e) is not dict:
        return False
    g: Callable[[str], Any] = e.get
    rank, x, line = g("rank"), g("x"), g("line")
    if not (rank is None or type(rank) is int) or not (line is None or type(line) is int):
        return False
    if not (type(x) is str and len(x) <= _MAX_X_TEXT
            or type(x) in (int, float) and math.isfinite(x) and abs(x) < _MAX_ABS):
        return False
    for key in ("kind", "label", "text", "source", "row"):
        v = g(key)
        if v is not None and type(v) is not str:
            return False
    return True


def _sample_ok(g: Any) -> bool:
    if type(g) is not dict:
        return False
    host, gpu, time, util = g.get("host"), g.get("gpu"), g.get("time"), g.get("util")
    return ((host is None or type(host) is str) and (gpu is None or type(gpu) is int)
            and (time is None or type(time) is str) and (util is None or type(util) in (int, float)))


def _number(value: Any) -> float | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        return value
    return None
