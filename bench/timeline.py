"""Benchmark: rank timeline size and draw time at 64 and 1,024 ranks (issue targets in brackets).

    .venv/bin/python bench/timeline.py [--runs 3]

For each size: build the figure from a synthetic timeline (50 events per rank, NVML samples),
report its JSON size [< 2 MB at 1,024 ranks] and build time, then open the page in headless
Chromium and time navigation start -> the plot's first "afterplot" [< 2 s at 1,024 ranks]: the first
load of each size cold, then the median of --runs loads with plotly.js in the browser cache,
read from `window.__timelineDrawnAt` (performance.now() when timeline.js saw it).
The page is tests/timeline's harness: the incident page's markup, scripts and strict CSP.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests/timeline")]

from playwright.sync_api import sync_playwright  # noqa: E402
from timeline_harness import chromium_launch_args, serve  # noqa: E402

from triage.timeline.figure import build_figure  # noqa: E402
from triage.timeline.perfetto import build_trace  # noqa: E402
from triage.timeline.synthetic import make_timeline  # noqa: E402

SIZES = {"64": (64, 8), "1024": (1024, 128)}
EVENTS_PER_RANK = 50


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="page loads per size (median reported)")
    args = parser.parse_args()
    timelines = {name: make_timeline(n, hosts, EVENTS_PER_RANK) for name, (n, hosts) in SIZES.items()}
    results: dict[str, dict[str, float]] = {}
    for name, timeline in timelines.items():
        start = time.perf_counter()
        figure = build_figure(timeline)
        build_s = time.perf_counter() - start
        start = time.perf_counter()
        trace = build_trace(timeline)
        trace_s = time.perf_counter() - start
        results[name] = {
            "ranks": len(timeline["ranks"]),
            "events": len(timeline["events"]),
            "figure_bytes": len(json.dumps(figure, separators=(",", ":"))),
            "figure_build_s": round(build_s, 3),
            "trace_bytes": len(json.dumps(trace, separators=(",", ":"))),
            "trace_build_s": round(trace_s, 3),
        }
    with serve(timelines) as base, sync_playwright() as p:
        browser = p.chromium.launch(**chromium_launch_args())
        for name in timelines:
            draws = []
            # A fresh context per size: the first load is cold (plotly.js fetched and compiled),
            # later ones reuse the HTTP and V8 code caches like an SRE's second incident page.
            context = browser.new_context(viewport={"width": 1400, "height": 900})
            for _ in range(args.runs + 1):
                page = context.new_page()
                errors: list[str] = []
                page.on("console", lambda m, errors=errors: errors.append(m.text) if m.type == "error" else None)
                page.goto(f"{base}/{name}/")
                page.wait_for_function("() => window.__timelineDrawn === true", timeout=60_000)
                draws.append(page.evaluate("() => window.__timelineDrawnAt") / 1000.0)
                if errors:
                    raise SystemExit(f"console errors at {name} ranks: {errors}")
                page.close()
            context.close()
            results[name]["draw_s_cold"] = round(draws[0], 3)
            results[name]["draw_s_median"] = round(statistics.median(draws[1:]), 3)
            results[name]["draw_s_runs"] = [round(d, 3) for d in draws]  # type: ignore[assignment]
        browser.close()
    print(json.dumps(results, indent=2))
    big = results["1024"]
    ok = big["figure_bytes"] < 2_000_000 and big["draw_s_median"] < 2.0
    print(f"1,024 ranks: figure {big['figure_bytes'] / 1e6:.2f} MB (< 2 MB), drawn in "
          f"{big['draw_s_median']:.2f} s (< 2 s): "
          f"{'OK' if ok else 'OVER TARGET'} (cold first load {big['draw_s_cold']:.2f} s); "
          f"64 ranks: {results['64']['figure_bytes'] / 1e6:.2f} MB, {results['64']['draw_s_median']:.2f} s "
          f"(cold {results['64']['draw_s_cold']:.2f} s)")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
