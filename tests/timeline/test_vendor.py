"""The vendored plotly.js is served locally, matches plotly.py's version, and is the CSP-safe build."""
from __future__ import annotations

import re

import plotly.offline
from timeline_harness import ROOT

VENDORED = ROOT / "static/vendor/plotly.min.js"


def header() -> str:
    with VENDORED.open("rb") as f:
        return f.read(400).decode("utf-8", "replace")


def test_it_is_the_version_plotly_py_embeds() -> None:
    found = re.search(r"\* plotly\.js \(strict - minified[^)]*\) v(\d+\.\d+\.\d+)", header())
    assert found, header()
    assert found.group(1) == plotly.offline.get_plotlyjs_version()


def test_it_is_the_strict_build_that_needs_no_eval() -> None:
    body = VENDORED.read_text("utf-8")
    # The standard build compiles WebGL glue with Function(...); the strict build must not,
    # or scattergl breaks under script-src 'self'. One `new Function("return this")` (a
    # global-object lookup that is never reached in browsers) is tolerated.
    assert "(strict" in header()
    assert body.count("new Function(") <= 1
    assert body.count("Function(") <= 4  # only global-object lookups, never code generation
    assert "var Plotly=" in body  # the bundle defines the global the timeline script uses


def test_it_carries_the_traces_the_timeline_draws() -> None:
    body = VENDORED.read_text("utf-8")
    # Every trace type the figure builder emits (and the SVG fallback) must be in the partial bundle.
    for trace in ("scattergl", "scatter", "heatmap"):
        assert f'name:"{trace}"' in body, trace


def test_its_origin_is_written_down() -> None:
    readme = (ROOT / "static/vendor/README.md").read_text("utf-8")
    assert f"plotly.js@{plotly.offline.get_plotlyjs_version()}" in readme
    assert (ROOT / "tools/plotly-bundle/package.json").read_text("utf-8").count(
        f'"plotly.js": "{plotly.offline.get_plotlyjs_version()}"'
    ) == 1
