"""Colours and marker symbols of the rank timeline, shared by the figure and its tests.

Colours follow the Okabe-Ito palette so that states stay distinguishable for colour-blind
readers; "silent" is a pale grey because it is the absence of evidence, not a state we saw.
"""
from __future__ import annotations

# Segment states (engine timeline vocabulary) and rank summary states (docs/design.md vocabulary).
STATE_COLOURS: dict[str, str] = {
    "initialising": "#56B4E9",
    "running": "#009E73",
    "waiting": "#E69F00",
    # Inside a collective that never completed (watchdog, flight recorder): not progress.
    "blocked": "#C98B00",
    "errored": "#D55E00",
    "crashed": "#7A0019",
    "exited": "#7A0019",
    "silent": "#BDBDBD",
    "ok": "#0072B2",
    "unknown": "#888888",
}

# Drawing order: later states are drawn on top, so a short "errored" span is not hidden by
# the long "running" span around it.
STATE_ORDER: tuple[str, ...] = (
    "silent",
    "initialising",
    "running",
    "ok",
    "unknown",
    "waiting",
    "blocked",
    "errored",
    "exited",
    "crashed",
)

# (label, plotly symbol, colour, size). Only symbols that scattergl can draw.
EVENT_STYLES: dict[str, tuple[str, str, str, int]] = {
    "first_error": ("first error", "star", "#000000", 14),
    "nccl_warn": ("NCCL WARN", "triangle-up", "#E69F00", 8),
    "cuda_oom": ("CUDA OOM", "square", "#CC79A7", 10),
    "xid": ("Xid", "diamond", "#D55E00", 11),
    "watchdog_timeout": ("watchdog timeout", "hourglass", "#0072B2", 10),
    "exit_signal": ("exit signal", "x", "#7A0019", 10),
    "exception": ("exception", "cross", "#6A3D9A", 9),
}
UNKNOWN_EVENT_STYLE: tuple[str, str, str, int] = ("other event", "circle-open", "#555555", 8)


def state_colour(state: str | None) -> str:
    return STATE_COLOURS.get(state or "unknown", STATE_COLOURS["unknown"])


def state_rank(state: str) -> int:
    """Position in the drawing order; unknown names go just before the error states."""
    try:
        return STATE_ORDER.index(state)
    except ValueError:
        return STATE_ORDER.index("unknown")


def event_style(kind: str) -> tuple[str, str, str, int]:
    return EVENT_STYLES.get(kind, (kind.replace("_", " "), *UNKNOWN_EVENT_STYLE[1:]))
