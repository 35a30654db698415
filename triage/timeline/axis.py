"""What x means in a timeline, and how rows are ordered: shared by the figure and the trace.

The engine gives x as ISO text when `axis == "time"` and as a number (collective sequence or
reading position) otherwise. We never invent times: a non-time axis stays a plain number and
the axis title says what it is.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

AXIS_TITLES = {
    "time": "wall clock",
    "sequence": "collective sequence number (the logs have no timestamps)",
    "position": "reading position in the logs (no timestamps or sequence numbers)",
}

_EPOCH = datetime(1970, 1, 1)


def parse_time(text: str) -> tuple[float, bool]:
    """ISO text -> (milliseconds since the epoch as wall time, whether it carried a zone).

    Plotly's date axes have no time zones: a number is drawn as a UTC wall clock. Zoned times
    are therefore converted to UTC, and zone-less log times are drawn as written.
    """
    t = datetime.fromisoformat(text)
    zoned = t.tzinfo is not None
    if zoned:
        t = t.astimezone(timezone.utc).replace(tzinfo=None)
    return (t - _EPOCH).total_seconds() * 1000.0, zoned


@dataclass
class Axis:
    """Converts the engine's X values into plain numbers for one timeline."""

    kind: str  # time | sequence | position
    zoned: bool = False  # at least one time carried a zone (so the axis is UTC)

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
            except ValueError:
                return None
            self.zoned = self.zoned or zoned
            return round(ms)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return None
        return value

    def title(self) -> str:
        if self.is_time:
            return "wall clock (UTC)" if self.zoned else "wall clock (as logged; time zone not stated)"
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
            return t.strftime("%H:%M:%S.%f")[:-3] if t.microsecond else t.strftime("%H:%M:%S")
        return f"{'seq' if self.kind == 'sequence' else 'position'} {value}"


def _natural(text: str | None) -> tuple[Any, ...]:
    """node-2 before node-10."""
    if text is None:
        return ((1, ""),)
    return tuple((0, int(p)) if p.isdigit() else (0, p) for p in re.split(r"(\d+)", text) if p) or ((0, ""),)


def _key_or_last(value: Any) -> tuple[int, Any]:
    return (1, 0) if value is None else (0, value)


def row_sort_key(rank: dict[str, Any]) -> tuple[Any, ...]:
    """Rows grouped by host, then GPU, then rank; unknown values sort last."""
    return (
        _natural(rank.get("host")),
        _key_or_last(rank.get("device")),
        _key_or_last(rank.get("rank")),
        _key_or_last(rank.get("pid")),
    )


def row_label(rank: dict[str, Any]) -> str:
    host = rank.get("host") or "unknown host"
    parts = [host]
    if rank.get("device") is not None:
        parts.append(f"GPU {rank['device']}")
    if rank.get("rank") is not None:
        parts.append(f"rank {rank['rank']}")
    elif rank.get("pid") is not None:
        parts.append(f"pid {rank['pid']}")
    return " · ".join(parts)
