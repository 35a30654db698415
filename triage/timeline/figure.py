"""The rank timeline as a Plotly figure: which rank went silent, where, and when.

Input is the engine's `timeline` dict (docs/engine-api.md); output is a JSON-able Plotly figure
(`{"data": [...], "layout": {...}}`) that static/js/timeline.js hands to `Plotly.newPlot`.

It has to stay fast and small at 1,024 ranks, so:
- one WebGL trace per *state* and per *event kind*, never per rank (a trace per rank costs a
  draw call and a legend entry each);
- span lines of one state share one array, separated by gaps (null);
- log sources are listed once in `layout.meta.sources` and referenced by index;
- per-event hover text is dropped to shorter forms when it would blow the size budget.

Every string that came from a log (line text, host names, labels) is HTML-escaped, because
Plotly renders a subset of HTML in hover text and annotations.
"""
from __future__ import annotations

import base64
import html
import re
from array import array
from typing import Any

import plotly.graph_objects as go

from .axis import Axis, clean_timeline, parse_time, row_label, row_sort_key
from .palette import EVENT_STYLES, event_style, state_colour, state_rank

# Bytes of per-event hover text we allow before falling back to shorter hover texts; the
# whole figure must stay under 2 MB at 1,024 ranks x 50 events.
EVENT_TEXT_BUDGET = 450_000
# Heatmap cells (rows x time buckets) of GPU health; two numbers per cell go into the JSON.
GPU_CELL_BUDGET = 24_000
LINE_TEXT_LIMIT = 140
# Up to this many rows every row gets its own y tick label; above it, hosts are labelled.
ROW_LABEL_LIMIT = 64
# Above this many rows (or values) markers shrink and numeric arrays go out as typed arrays.
DENSE = 256
MS_PER_S = 1000
# Time axes: pad a spread under this (ms) by half a millisecond; hover in microseconds under
# the next, tick in milliseconds under the last.
TINY_SPREAD_MS, MICROSECOND_SPREAD_MS, MILLISECOND_SPREAD_MS = 5, 50, 5000
MAX_INTEGER_TICKS = 6
# Past this fraction of the x range the first-failure label hangs left of its line.
LABEL_FLIP_AT = 0.5

_GAP = None  # Plotly breaks a line at a null


def esc(text: Any) -> str:
    """Escape log-derived text for Plotly hover/annotation strings (which render some HTML)."""
    return html.escape(str(text), quote=False)


def _f8(values: list[float]) -> dict[str, str] | list[float]:
    """Large numeric arrays as Plotly typed-array specs: 10.7 bytes per time instead of 14."""
    if len(values) < DENSE:
        return values
    return {"dtype": "f8", "bdata": base64.b64encode(array("d", values).tobytes()).decode("ascii")}


def _clip(text: str, limit: int = LINE_TEXT_LIMIT) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


class _Sources:
    """Log source names listed once; points refer to them by index (keeps the JSON small)."""

    def __init__(self) -> None:
        self.names: list[str] = []
        self._index: dict[str, int] = {}

    def ref(self, source: Any, line: Any) -> list[int] | None:
        if not isinstance(source, str) or not isinstance(line, int):
            return None
        if source not in self._index:
            self._index[source] = len(self.names)
            self.names.append(source)
        return [self._index[source], line]


class _Rows:
    """Row index of every rank and GPU: ranks grouped by host, GPUs next to their rank."""

    def __init__(self, ranks: list[dict[str, Any]], gpu_samples: list[dict[str, Any]]) -> None:
        self.ranks = sorted(ranks, key=row_sort_key)
        self.labels = [row_label(r) for r in self.ranks]
        self.hosts: list[str | None] = [r.get("host") for r in self.ranks]
        self.of_rank: dict[int, int] = {}
        self.of_row: dict[str, int] = {}  # rows of processes without a rank, by the engine's row id
        self.of_gpu: dict[tuple[str, int], int] = {}
        for i, r in enumerate(self.ranks):
            if r.get("rank") is not None:
                self.of_rank.setdefault(r["rank"], i)
            if r.get("row"):
                self.of_row.setdefault(r["row"], i)
            if r.get("host") is not None and r.get("device") is not None:
                self.of_gpu.setdefault((r["host"], r["device"]), i)
        # GPUs sampled by NVML that no rank log names still get a row: an idle GPU that no
        # rank claimed is itself a clue (wrong CUDA_VISIBLE_DEVICES).
        extra = sorted(
            {(s.get("host"), s.get("gpu")) for s in gpu_samples} - set(self.of_gpu),
            key=lambda hg: row_sort_key({"host": hg[0], "device": hg[1]}),
        )
        for host, gpu in extra:
            if host is None or gpu is None:
                continue
            self.of_gpu[(host, gpu)] = len(self.labels)
            self.labels.append(f"{host} · GPU {gpu} (no rank log)")
            self.hosts.append(host)

    def __len__(self) -> int:
        return len(self.labels)

    def find(self, item: dict[str, Any]) -> int | None:
        """The row of an event or first-failure mark: its rank's, else its process row's."""
        if item.get("rank") is not None and item["rank"] in self.of_rank:
            return self.of_rank[item["rank"]]
        return self.of_row.get(item["row"]) if item.get("row") else None


def build_figure(timeline: dict[str, Any]) -> dict[str, Any]:
    """Engine timeline dict -> Plotly figure dict (see module docstring)."""
    timeline = clean_timeline(timeline)
    axis = Axis.of(timeline)
    gpu_samples = [s for s in timeline.get("gpu_samples") or [] if isinstance(s, dict)]
    rows = _Rows([r for r in timeline.get("ranks") or [] if isinstance(r, dict)], gpu_samples)
    sources = _Sources()
    n = len(rows)
    notes: list[str] = []

    by_state, global_end = _span_traces(rows, axis)
    events, event_xs, skipped = _event_traces(timeline.get("events") or [], rows, axis, sources)
    if event_xs:
        global_end = max(global_end or event_xs[-1], *event_xs)
    if skipped:
        notes.append(f"{skipped} events without a rank or position are not drawn")
    spans = _with_silent_tails(by_state, rows, axis, global_end)
    rank_points = _rank_traces(rows, axis)
    seq = _sequence_trace(rows)
    gpu = _gpu_trace(gpu_samples, rows, axis) if gpu_samples else None
    if gpu_samples and gpu is None:
        notes.append("GPU samples could not be placed on a time axis")

    progress, wavefront = _collective_traces(timeline.get("collectives"), rows, axis)
    data = spans + rank_points + events + progress + ([seq] if seq else []) + ([gpu] if gpu else [])
    layout = _layout(rows, axis, with_seq=seq is not None, gpu=gpu)
    if wavefront is not None:
        layout["shapes"].append({"type": "line", "xref": "x", "yref": "y domain", "x0": wavefront[0],
                                 "x1": wavefront[0],
                                 "y0": 0, "y1": 1, "line": {"color": "#0072B2", "width": 1.5, "dash": "dot"},
                                 "name": "wavefront"})
        layout["annotations"].append({"x": wavefront[0], "xref": "x", "y": 1.0, "yref": "y domain", "yanchor": "bottom",
                                      "text": esc(wavefront[1]), "showarrow": False,
                                      "font": {"color": "#0072B2", "size": 10},
                                      "name": "wavefront"})
    bounds = _fix_x_range(layout, axis, spans, rank_points, event_xs, timeline.get("resolution_s"))
    if axis.is_time and timeline.get("year_known") is False:
        # The logs' times have no year and the bundle writes none (engine timeparse.YEAR_UNKNOWN):
        # dates drawn without one, never a stand-in year on the ticks.
        layout["xaxis"]["tickformat"] = layout["xaxis"].get("tickformat") or "%H:%M:%S\n%b %d"
        layout["xaxis"]["hoverformat"] = "%b %d " + layout["xaxis"].get("hoverformat", "%H:%M:%S.%L")
        notes.append("the logs' times have no year and the bundle writes none: drawn without one")
    if seq is not None:
        _integer_ticks(layout["xaxis2"], [x for x in seq.x or [] if x is not None])
    if not rows.ranks:
        notes.append("no process in these logs could be placed on a row")
    shown = {t.legendgroup for t in rank_points}
    for trace in spans:
        # The rank-state entry ("errored: 7 ranks") already stands for this group.
        trace.showlegend = trace.legendgroup not in shown
    _mark_first_failure(layout, timeline.get("first_failure"), rows, axis, bounds)
    layout["meta"] = {
        "axis": axis.kind,
        "sources": sources.names,
        "labels": [esc(t) for t in rows.labels],
        "rows": [sources.ref((r.get("last_line") or {}).get("source"), (r.get("last_line") or {}).get("line"))
                 for r in rows.ranks] + [None] * (n - len(rows.ranks)),
        "notes": notes,
    }
    figure = go.Figure(data=data, layout=layout)
    plotly_json: dict[str, Any] = figure.to_plotly_json()
    return plotly_json


def _fix_x_range(
    layout: dict[str, Any], axis: Axis, spans: list[go.Scattergl], ranks: list[go.Scattergl], event_xs: list[float],
    resolution_s: float | None = None,
) -> tuple[float, float] | None:
    """Set the x range from the spread of the data (Plotly would otherwise widen it to fit
    annotation text), never narrower than the resolution the logs printed: times logged to the
    second are not spread over a 2 ms axis as if they were precise."""
    xs = [x for t in spans + ranks for x in _plain(t.x) if x is not None] + event_xs
    if not xs:
        return None
    lo, hi = min(xs), max(xs)
    spread = hi - lo
    if axis.is_time:
        step_ms = (resolution_s or 0.001) * 1000.0
        pad = max(spread * 0.02, step_ms / 2, 0.5 if spread < TINY_SPREAD_MS else 0.0)
        if spread < step_ms:
            pad = max(pad, step_ms)
        layout["xaxis"]["range"] = [_ms_text(lo - pad), _ms_text(hi + pad)]
        # Hover and ticks as fine as the data: microseconds for sub-millisecond spreads.
        if step_ms >= MS_PER_S:
            layout["xaxis"]["hoverformat"] = "%H:%M:%S"
        elif spread < MICROSECOND_SPREAD_MS:
            layout["xaxis"]["hoverformat"] = "%H:%M:%S.%6f"
            layout["xaxis"]["tickformat"] = "%H:%M:%S.%6f"
        elif spread < MILLISECOND_SPREAD_MS:
            layout["xaxis"]["tickformat"] = "%H:%M:%S.%3f"
    else:
        pad = spread * 0.02 or 1.0
        layout["xaxis"]["range"] = [lo - pad, hi + pad]
    return lo, hi


def _plain(values: Any) -> list[Any]:
    """Plotly keeps large arrays as typed-array specs: back to numbers for range maths."""
    if isinstance(values, dict) and values.get("bdata"):
        return list(array("d", base64.b64decode(values["bdata"])))
    return list(values or [])


def _integer_ticks(xaxis: dict[str, Any], values: list[Any]) -> None:
    """Collective sequence numbers are whole: no 917.5 tick, whatever the zoom."""
    xaxis.update(tickformat="d", hoverformat="d")
    if values:
        span = max(values) - min(values)
        step = next(m * 10**k for k in range(16) for m in (1, 2, 5) if span / (m * 10**k) <= MAX_INTEGER_TICKS)
        xaxis["dtick"] = step
        xaxis["range"] = [min(values) - max(1, step) / 2, max(values) + max(1, step) / 2]


def _ms_text(ms: float) -> str:
    """Milliseconds since the epoch -> Plotly's date text (no zone: Plotly has none)."""
    from datetime import datetime, timedelta

    return (datetime(1970, 1, 1) + timedelta(milliseconds=ms)).isoformat(sep=" ", timespec="microseconds")


def _segments(rank: dict[str, Any]) -> list[dict[str, Any]]:
    segs = [s for s in rank.get("segments") or [] if isinstance(s, dict)]
    if not segs and rank.get("start") is not None:
        # No state breakdown: the rank was logging from its first to its last line, that's all.
        segs = [{"state": "unknown", "start": rank.get("start"), "end": rank.get("end")}]
    return segs


def _span_traces(rows: _Rows, axis: Axis) -> tuple[dict[str, tuple[list[Any], list[Any]]], float | None]:
    """state -> (xs, ys) with gaps, and the latest x seen (where 'silent' tails end)."""
    by_state: dict[str, tuple[list[Any], list[Any]]] = {}
    end: float | None = None
    for row, rank in enumerate(rows.ranks):
        for seg in _segments(rank):
            x0, x1 = axis.x(seg.get("start")), axis.x(seg.get("end"))
            if x0 is None:
                continue
            x1 = x0 if x1 is None else x1
            xs, ys = by_state.setdefault(str(seg.get("state") or "unknown"), ([], []))
            xs += [x0, x1, _GAP]
            ys += [row, row, _GAP]
            end = x1 if end is None else max(end, x1)
        rank_end = axis.x(rank.get("end"))
        if rank_end is not None:
            end = rank_end if end is None else max(end, rank_end)
    return by_state, end


def _with_silent_tails(
    by_state: dict[str, tuple[list[Any], list[Any]]], rows: _Rows, axis: Axis, end: float | None
) -> list[go.Scattergl]:
    """Ranks that went quiet show a 'silent' span up to the end of the whole timeline."""
    if end is not None:
        for row, rank in enumerate(rows.ranks):
            since = axis.x(rank.get("silent_since"))
            has_silent = any(s.get("state") == "silent" for s in _segments(rank))
            if since is not None and not has_silent and since < end:
                xs, ys = by_state.setdefault("silent", ([], []))
                xs += [since, end, _GAP]
                ys += [row, row, _GAP]
    width = _line_width(len(rows))
    traces = []
    for state in sorted(by_state, key=state_rank):
        xs, ys = by_state[state]
        traces.append(
            go.Scattergl(
                x=xs[:-1], y=ys[:-1], mode="lines", legendgroup=state,
                name="blocked in a collective" if state == "blocked" else state,
                line={"color": state_colour(state), "width": width if state != "silent" else max(1.0, width / 2)},
                hoverinfo="skip", connectgaps=False,
            )
        )
    return traces


def _line_width(n_rows: int) -> float:
    return round(min(12.0, max(1.5, _main_height(n_rows) / max(n_rows, 1) * 0.7)), 1)


def _rank_hover(rank: dict[str, Any], axis: Axis) -> str:
    who = f"<b>rank {esc(rank['rank'])}</b>" if rank.get("rank") is not None else "<b>process without a rank</b>"
    place = [esc(rank.get("host") or "unknown host")]
    if rank.get("device") is not None:
        gpu = f"GPU {esc(rank['device'])}"
        if rank.get("bus_id"):
            gpu += f" (bus {esc(rank['bus_id'])})"
        place.append(gpu)
    if rank.get("pid") is not None:
        place.append(f"pid {esc(rank['pid'])}")
    state = f"state: {esc(rank.get('state') or 'unknown')}"
    if rank.get("silent_since") is not None:
        state += f" · silent since {esc(axis.describe(rank['silent_since']))}"
    if rank.get("last_seq") is not None:
        state += f" · last seq {esc(rank['last_seq'])}"
    lines = [f"{who} · {' · '.join(place)}", state]
    blocked = next((s for s in rank.get("segments") or [] if s.get("state") == "blocked"), None)
    if blocked is not None:
        lines.append(f"blocked in a collective from {esc(axis.describe(blocked.get('start')))} "
                     f"to {esc(axis.describe(blocked.get('end')))}")
    last = rank.get("last_line") or {}
    if last:
        when = esc(axis.describe(last["time"]) if last.get("time") else "no time")
        lines.append(f"last line ({when}) {esc(last.get('source'))}:{esc(last.get('line'))}")
        lines.append(esc(_clip(last.get("text") or "")))
    return "<br>".join(lines)


def _rank_traces(rows: _Rows, axis: Axis) -> list[go.Scattergl]:
    """One marker per rank at its last line, one trace per rank state; names carry counts."""
    by_state: dict[str, tuple[list[Any], list[int], list[str]]] = {}
    for row, rank in enumerate(rows.ranks):
        x = axis.x(rank.get("end"))
        if x is None:
            x = axis.x(rank.get("start"))
        if x is None:
            continue
        xs, ys, texts = by_state.setdefault(str(rank.get("state") or "unknown"), ([], [], []))
        xs.append(x)
        ys.append(row)
        texts.append(_rank_hover(rank, axis))
    traces = []
    for state in sorted(by_state, key=state_rank):
        xs, ys, texts = by_state[state]
        count = len(xs)
        traces.append(
            go.Scattergl(
                x=xs, y=ys, mode="markers", name=f"{state}: {count} rank{'s' if count != 1 else ''}",
                legendgroup=state, legendrank=100,
                marker={"color": state_colour(state), "size": 7 if len(rows) <= DENSE else 4,
                        "line": {"color": "#ffffff", "width": 1}},
                hovertext=texts, hovertemplate="%{hovertext}<extra></extra>",
            )
        )
    return traces


def _event_traces(
    events: list[Any], rows: _Rows, axis: Axis, sources: _Sources
) -> tuple[list[go.Scattergl], list[float], int]:
    """One marker trace per event kind.

    Who (the row label) is not repeated per event: timeline.js fills each point's `hovertext`
    from `layout.meta.labels[y]`, which saves ~1 MB at 1,024 ranks x 50 events. The line text
    goes in `text` while it fits EVENT_TEXT_BUDGET. `customdata` is the line number when the
    event comes from the row's own last-line source, else `[source index, line]`.
    """
    row_sources = [(r.get("last_line") or {}).get("source") for r in rows.ranks]
    by_kind: dict[str, list[tuple[float, int, Any, dict[str, Any]]]] = {}
    skipped = 0
    for ev in events:
        if not isinstance(ev, dict):
            continue
        row = rows.find(ev)
        x = axis.x(ev.get("x"))
        if row is None or x is None:
            skipped += 1
            continue
        kind = re.sub(r"[^a-z0-9_]", "", str(ev.get("kind") or "event").lower()) or "event"
        ref: Any = sources.ref(ev.get("source"), ev.get("line"))
        if ref is not None and ev.get("source") == row_sources[row]:
            ref = ref[1]
        by_kind.setdefault(kind, []).append((x, row, ref, ev))
    all_points = [p for points in by_kind.values() for p in points]
    with_text = sum(len(_event_text(p[3])) + 3 for p in all_points) <= EVENT_TEXT_BUDGET
    traces = []
    order = list(EVENT_STYLES)
    for kind in sorted(by_kind, key=lambda k: (order.index(k) if k in order else len(order), k)):
        points = by_kind[kind]
        label, symbol, colour, size = event_style(kind)
        # At hundreds of rows, full-size markers would paint over the spans and the culprit's row.
        size = int(min(size, max(3, _main_height(len(rows)) / max(len(rows), 1) * 2.5)))
        head = f"<b>{esc(label)}</b> · %{{hovertext}}<br>%{{x}}"
        trace = go.Scattergl(
            x=_f8([p[0] for p in points]), y=[p[1] for p in points], mode="markers",
            name=f"{label} ({len(points)})", legendgroup=f"event:{kind}",
            marker={"symbol": symbol, "color": colour, "size": size,
                    "line": {"color": "#000000" if kind == "first_error" else colour, "width": 1}},
            customdata=[p[2] for p in points],
            hovertemplate=head + ("<br>%{text}" if with_text else " · click to open the line") + "<extra></extra>",
            meta={"rowhover": True},
        )
        if with_text:
            trace.text = [_event_text(p[3]) for p in points]
        traces.append(trace)
    return traces, [p[0] for p in all_points], skipped


COLLECTIVE_STYLES = {
    # kind: (legend, symbol, colour)
    "done": ("collective completed (flight recorder)", "circle", "#9E9E9E"),
    "open": ("collective not completed (flight recorder)", "circle-open", "#E69F00"),
    "mismatch": ("collective mismatched across ranks", "x", "#C00000"),
}


def _collective_traces(progress: Any, rows: _Rows, axis: Axis) -> tuple[list[go.Scattergl], tuple[float, str] | None]:
    """Each rank's collectives from its flight-recorder dump, on its own row: where the axis is
    time, at the time it enqueued them; on a sequence axis, at their sequence id. The wavefront
    (the first collective some rank did not complete) is a dotted line."""
    if not isinstance(progress, dict) or axis.kind not in ("time", "sequence"):
        return [], None
    mismatched = set(progress.get("mismatched") or [])
    front = progress.get("first_incomplete")
    by_kind: dict[str, tuple[list[float], list[int], list[str]]] = {k: ([], [], []) for k in COLLECTIVE_STYLES}
    front_x: list[float] = []
    for s in progress.get("series") or []:
        row = rows.find({"rank": s.get("rank")})
        if row is None:
            continue
        for point in s.get("points") or []:
            when, seq, done = point[0], point[1], point[2]
            x = axis.x(when) if axis.is_time else axis.x(seq)
            if x is None:
                continue
            kind = "mismatch" if seq in mismatched else "done" if done else "open"
            op = f"{point[3]} " if len(point) > 3 and point[3] else ""  # noqa: PLR2004 - point[3]
            state = f" ({point[4]})" if len(point) > 4 and point[4] else ""  # noqa: PLR2004 - point[4]
            xs, ys, texts = by_kind[kind]
            xs.append(x)
            ys.append(row)
            texts.append(esc(f"{op}#{seq}{state}" + ("" if done else ", not completed")))
            if seq == front:
                front_x.append(x)
    traces = []
    for kind, (xs, ys, texts) in by_kind.items():
        if not xs:
            continue
        label, symbol, colour = COLLECTIVE_STYLES[kind]
        traces.append(go.Scattergl(
            x=_f8(xs), y=ys, mode="markers", name=f"{label} ({len(xs)})", legendgroup=f"collective:{kind}",
            marker={"symbol": symbol, "color": colour, "size": 5 if kind == "done" else 8,
                    "line": {"color": colour, "width": 1}},
            text=texts, hovertemplate="%{hovertext}<br>%{text}<extra></extra>", meta={"rowhover": True},
        ))
    wavefront = None
    if front is not None and front_x:
        wavefront = (min(front_x), f"wavefront: #{front} not completed by every rank")
    elif front is not None and not axis.is_time:
        wavefront = (float(front), f"wavefront: #{front} not completed by every rank")
    return traces, wavefront


def _event_text(ev: dict[str, Any]) -> str:
    label, text = esc(_clip(ev.get("label") or "", 60)), esc(_clip(ev.get("text") or ""))
    return f"{label}<br>{text}" if label else text


def _sequence_trace(rows: _Rows) -> go.Scattergl | None:
    """Last completed collective per rank: the straggler is the one behind, clocks or not."""
    points = [(r["last_seq"], i, r) for i, r in enumerate(rows.ranks) if isinstance(r.get("last_seq"), int)]
    if not points:
        return None
    top = max(p[0] for p in points)
    behind_colour, level_colour = "#D55E00", "#009E73"
    texts = [f"{top - seq} behind the most advanced" if seq < top else "most advanced" for seq, _r, _k in points]
    behind = sum(1 for p in points if p[0] < top)
    return go.Scattergl(
        x=[p[0] for p in points], y=[p[1] for p in points], mode="markers", xaxis="x2", yaxis="y2",
        name=f"last completed collective ({behind} behind)", legendgroup="seq",
        marker={"color": [behind_colour if p[0] < top else level_colour for p in points],
                "size": 7 if len(rows) <= DENSE else 4, "symbol": "line-ns-open" if len(rows) > DENSE else "circle"},
        text=texts, hovertemplate="%{hovertext}<br>last completed collective: seq %{x} (%{text})<extra></extra>",
        meta={"rowhover": True},
    )


def _gpu_trace(samples: list[dict[str, Any]], rows: _Rows, axis: Axis) -> go.Heatmap | None:
    """NVML utilisation per GPU row over time buckets; memory use in the hover."""
    parsed: list[tuple[float, int, float | None, float | None]] = []
    for s in samples:
        row = rows.of_gpu.get((s.get("host"), s.get("gpu")))  # type: ignore[arg-type]
        if row is None or not isinstance(s.get("time"), str):
            continue
        try:
            t, _zoned = parse_time(s["time"])
        except ValueError:
            continue
        util = s.get("util") if isinstance(s.get("util"), (int, float)) else None
        used, total = s.get("mem_used"), s.get("mem_total")
        mem = (100.0 * used / total
               if isinstance(used, (int, float)) and isinstance(total, (int, float)) and total else None)
        parsed.append((t, row, util, mem))
    if not parsed:
        return None
    t0, t1 = min(p[0] for p in parsed), max(p[0] for p in parsed)
    distinct = len({p[0] for p in parsed})
    n = len(rows)
    buckets = max(1, min(distinct, 240, max(8, GPU_CELL_BUDGET // max(n, 1))))
    width = (t1 - t0) / buckets if t1 > t0 else 1000.0
    sums: dict[tuple[int, int], list[float]] = {}
    for t, row, util, mem in parsed:
        b = min(buckets - 1, int((t - t0) / width)) if t1 > t0 else 0
        acc = sums.setdefault((row, b), [0.0, 0, 0.0, 0])
        if util is not None:
            acc[0] += util
            acc[1] += 1
        if mem is not None:
            acc[2] += mem
            acc[3] += 1
    z: list[list[int | None]] = [[None] * buckets for _ in range(n)]
    mem_z: list[list[int | None]] = [[None] * buckets for _ in range(n)]
    for (row, b), (u, un, m, mn) in sums.items():
        z[row][b] = round(u / un) if un else None
        mem_z[row][b] = round(m / mn) if mn else None
    return go.Heatmap(
        z=z, customdata=mem_z, x=[round(t0 + (b + 0.5) * width) for b in range(buckets)], y=list(range(n)),
        xaxis="x3", yaxis="y3", zmin=0, zmax=100, colorscale="Viridis", name="GPU utilisation",
        colorbar={"title": {"text": "GPU %"}, "len": 0.25, "y": 0, "yanchor": "bottom", "thickness": 12},
        hovertemplate="GPU util %{z}% · memory %{customdata}% used<br>%{x}<extra></extra>",
        hoverongaps=False,
    )


def _main_height(n_rows: int) -> int:
    return int(min(max(n_rows * 18, 220), 1100))


def _layout(rows: _Rows, axis: Axis, *, with_seq: bool, gpu: go.Heatmap | None) -> dict[str, Any]:
    n = len(rows)
    main_px = _main_height(n)
    gpu_px = 0 if gpu is None else int(min(max(n * 4, 120), 260))
    gap_px = 60 if gpu is not None else 0
    # The legend sits under the plot, clear of Plotly's toolbar (top right) and of the first-failure
    # label (top of the plot).
    top, bottom = 60, 150
    plot_px = main_px + gap_px + gpu_px
    main_bottom = (gpu_px + gap_px) / plot_px
    yaxis: dict[str, Any] = {
        # Every row on screen, including one with nothing to place on this axis (a rank with no
        # timed line): autorange would fit only the rows that have data.
        "autorange": False, "zeroline": False, "showgrid": False, "domain": [main_bottom, 1.0],
        "range": [max(n, 1) - 0.5, -0.5], "tickfont": {"size": 11 if n <= ROW_LABEL_LIMIT else 9}, "fixedrange": False,
    }
    if n <= ROW_LABEL_LIMIT:
        yaxis.update(tickmode="array", tickvals=list(range(n)), ticktext=[esc(t) for t in rows.labels])
    else:
        starts = [i for i, h in enumerate(rows.hosts) if i == 0 or rows.hosts[i - 1] != h]
        yaxis.update(tickmode="array", tickvals=starts, ticktext=[esc(rows.hosts[i] or "unknown host") for i in starts],
                     title={"text": f"{n} rows, grouped by host"})
    xaxis: dict[str, Any] = {"domain": [0.0, 0.82 if with_seq else 1.0], "title": {"text": axis.title()},
                             "showgrid": True, "gridcolor": "#eeeeee", "zeroline": False, "anchor": "y"}
    if axis.is_time:
        xaxis.update(type="date", hoverformat="%H:%M:%S.%L")
    else:
        xaxis.update(type="linear")
    layout: dict[str, Any] = {
        "height": top + bottom + plot_px,
        "margin": {"l": 190 if n <= ROW_LABEL_LIMIT else 110, "r": 30, "t": top, "b": bottom},
        "xaxis": xaxis, "yaxis": yaxis,
        "legend": {"orientation": "h", "itemsizing": "constant", "x": 0, "xanchor": "left", "y": 0, "yanchor": "bottom",
                   "yref": "container", "font": {"size": 11}},
        "hovermode": "closest", "plot_bgcolor": "#ffffff", "paper_bgcolor": "#ffffff",
        "font": {"family": "system-ui, sans-serif", "size": 12},
        "shapes": _host_bands(rows), "annotations": [], "uirevision": "timeline",
    }
    if with_seq:
        layout["xaxis2"] = {"domain": [0.86, 1.0], "anchor": "y2", "title": {"text": "last collective seq"},
                            "showgrid": True, "gridcolor": "#eeeeee", "zeroline": False}
        layout["yaxis2"] = {"matches": "y", "anchor": "x2", "showticklabels": False, "domain": [main_bottom, 1.0],
                            "autorange": "reversed", "showgrid": False}
    if gpu is not None:
        gpu_top = gpu_px / plot_px
        layout["xaxis3"] = {"domain": xaxis["domain"], "anchor": "y3", "type": "date", "hoverformat": "%H:%M:%S",
                            "title": {"text": "GPU utilisation (NVML samples)"}}
        if axis.is_time:
            layout["xaxis3"]["matches"] = "x"
        else:
            layout["xaxis3"]["title"]["text"] = "GPU utilisation (NVML wall clock; log rows have no times, not aligned)"
        # The strip's rows are the timeline's rows: labelled the same, so a GPU is read off by name.
        layout["yaxis3"] = {"matches": "y", "anchor": "x3", "domain": [0.0, gpu_top], "autorange": "reversed",
                            "showgrid": False, "title": {"text": "GPU util %", "font": {"size": 11}},
                            **{k: yaxis[k] for k in ("tickmode", "tickvals", "ticktext", "tickfont") if k in yaxis}}
    return layout


def _host_bands(rows: _Rows) -> list[dict[str, Any]]:
    """Shade every other host so the eye can follow a host group across the page."""
    bands: list[dict[str, Any]] = []
    start, index = 0, 0
    for i in range(1, len(rows) + 1):
        if i == len(rows) or rows.hosts[i] != rows.hosts[start]:
            if index % 2 == 1:
                bands.append({"type": "rect", "xref": "x domain", "yref": "y", "x0": 0, "x1": 1,
                              "y0": start - 0.5, "y1": i - 0.5, "fillcolor": "#f3f5f8", "line": {"width": 0},
                              "layer": "below"})
            start, index = i, index + 1
    return bands


def _mark_first_failure(
    layout: dict[str, Any], first: Any, rows: _Rows, axis: Axis, bounds: tuple[float, float] | None = None
) -> None:
    """Vertical line at the first failure, the culprit's row outlined, and the story in words."""
    if not isinstance(first, dict):
        return
    row = rows.find(first)
    x = axis.x(first.get("x"))
    if x is None and row is not None:
        # An x that does not fit the axis (e.g. a reading position on a time axis) is not
        # drawn as is; the culprit's own silence is the same moment on this axis.
        culprit = rows.ranks[row]
        since = culprit.get("silent_since")
        x = axis.x(since) if since is not None else axis.x(culprit.get("end"))
    colour = "#C00000"
    if row is not None:
        layout["shapes"].append({"type": "rect", "xref": "x domain", "yref": "y", "x0": 0, "x1": 1,
                                 "y0": row - 0.5, "y1": row + 0.5, "fillcolor": "rgba(192,0,0,0.10)",
                                 "line": {"color": colour, "width": 1}, "layer": "below", "name": "first-failure-row"})
        yaxis = layout["yaxis"]
        if len(rows) > ROW_LABEL_LIMIT:
            yaxis["tickvals"] = list(yaxis["tickvals"]) + [row]
            yaxis["ticktext"] = list(yaxis["ticktext"]) + [f"<b>▶ {esc(rows.labels[row])}</b>"]
        else:
            yaxis["ticktext"][row] = f"<b>▶ {yaxis['ticktext'][row]}</b>"
    if x is not None:
        layout["shapes"].append({"type": "line", "xref": "x", "yref": "y domain", "x0": x, "x1": x, "y0": 0, "y1": 1,
                                 "line": {"color": colour, "width": 2, "dash": "dash"}, "name": "first-failure"})
    label = first.get("label") or (
        f"first failure: rank {first.get('rank')}" if first.get("rank") is not None else "first failure"
    )
    if row is None and x is None:
        return
    annotation: dict[str, Any] = {"text": f"<b>{esc(_clip(label, 140))}</b>", "showarrow": False,
                                  "font": {"color": colour},
                                  "bgcolor": "rgba(255,255,255,0.9)", "bordercolor": colour, "borderwidth": 1,
                                  "name": "first-failure"}
    if x is not None:
        # Near the right edge the label would run off the plot: hang it to the left of the line.
        right_half = (bounds is not None and bounds[1] > bounds[0]
                      and (x - bounds[0]) / (bounds[1] - bounds[0]) > LABEL_FLIP_AT)
        annotation.update(x=x, xref="x", y=1, yref="y domain", yanchor="bottom",
                          xanchor="right" if right_half else "left", yshift=4)
    else:
        annotation.update(x=0, xref="x domain", y=1, yref="y domain", yanchor="bottom", xanchor="left", yshift=4)
    layout["annotations"].append(annotation)
