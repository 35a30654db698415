"""build_figure and build_trace on timelines built here, following docs/engine-api.md."""
from __future__ import annotations

import json

from triage.timeline.figure import build_figure
from triage.timeline.perfetto import build_trace
from triage.timeline.synthetic import make_timeline


def test_it_draws_one_trace_per_state_and_event_kind_not_per_rank() -> None:
    figure = build_figure(make_timeline(256, 32, 10))
    assert len(figure["data"]) < 25
    assert {t["type"] for t in figure["data"]} == {"scattergl", "heatmap"}
    names = [t["name"] for t in figure["data"]]
    assert "errored: 255 ranks" in names and "crashed: 1 rank" in names


def test_1024_ranks_with_50_events_each_stay_under_2_mb() -> None:
    figure = build_figure(make_timeline(1024, 128, 50))
    assert len(json.dumps(figure, separators=(",", ":"))) < 2_000_000


def test_log_text_is_escaped_everywhere_it_is_shown() -> None:
    timeline = make_timeline(4, 1, 2)
    timeline["ranks"][0]["host"] = "<b>node</b>"
    timeline["ranks"][1]["last_line"]["text"] = "<a href=x>&</a>"
    timeline["first_failure"]["label"] = "<script>x</script>"
    text = json.dumps(build_figure(timeline))
    assert "<script>" not in text and "<a href" not in text and "<b>node</b>" not in text
    assert "&lt;a href=x&gt;&amp;&lt;/a&gt;" in text and "&lt;script&gt;" in text


def test_a_sequence_axis_is_named_and_never_turned_into_times() -> None:
    figure = build_figure(make_timeline(8, 1, 3, axis="sequence"))
    xaxis = figure["layout"]["xaxis"]
    assert xaxis["type"] == "linear"
    assert xaxis["title"]["text"] == "collective sequence number (the logs have no timestamps)"


def test_the_straggler_stands_out_in_collective_progress() -> None:
    figure = build_figure(make_timeline(8, 1, 3, axis="sequence"))
    seq = next(t for t in figure["data"] if t.get("xaxis") == "x2")
    assert seq["name"] == "last completed collective (1 behind)"
    behind = [y for y, c in zip(seq["y"], seq["marker"]["color"], strict=False) if c == "#D55E00"]
    assert [figure["layout"]["meta"]["labels"][y] for y in behind] == ["node-000 · GPU 3 · rank 3"]


def test_clicks_find_each_rank_last_line_through_meta() -> None:
    figure = build_figure(make_timeline(4, 1, 2))
    meta = figure["layout"]["meta"]
    source_index, line = meta["rows"][3]
    assert (meta["sources"][source_index], line) == ("node-000/rank3.log", 1006)


def test_the_perfetto_trace_has_a_process_per_rank_and_a_track_per_state() -> None:
    trace = build_trace(make_timeline(4, 1, 2))
    events = trace["traceEvents"]
    names = {e["pid"]: e["args"]["name"] for e in events if e["name"] == "process_name"}
    assert names[3] == "rank 3 · node-000 · GPU 3 · pid 4003"
    threads = {(e["pid"], e["args"]["name"]) for e in events if e["name"] == "thread_name"}
    assert {(3, "crashed"), (3, "silent"), (3, "markers"), (0, "errored")} <= threads
    slices = [e for e in events if e["ph"] == "X" and e["pid"] == 3 and e["name"] == "silent"]
    assert slices and slices[0]["ts"] == 120_000_000  # silent from 120 s after the first line
    assert any(e["ph"] == "i" and e["s"] == "g" for e in events)
    assert trace["displayTimeUnit"] == "ms"
