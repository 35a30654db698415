"""Scenario generator: realistic multi-rank failure bundles with a known answer.

`build(cause, out_dir, seed=...)` writes one synthetic bundle (per-host logs, dmesg, snapshot,
manifest, optional NVML samples) plus `expected.json`; `build_scale` writes a large one for
benchmarks; `gloo` runs real CPU jobs that fail. Pure Python: no Django, no torch here.
"""
from __future__ import annotations

from pathlib import Path

from .causes import BUILDERS, EXTRA_BUILDERS
from .cluster import make_job
from .scale import build_scale
from .story import Story

SCENARIO_CAUSES: tuple[str, ...] = tuple(BUILDERS)
EXTRA_SCENARIOS: tuple[str, ...] = tuple(EXTRA_BUILDERS)

__all__ = ["EXTRA_SCENARIOS", "SCENARIO_CAUSES", "build", "build_scale"]


def build(cause: str, out_dir: Path, *, seed: int = 0) -> Path:
    """Write the bundle for `cause` (or an extra scenario such as "unknown") and return its path."""
    builder = BUILDERS.get(cause) or EXTRA_BUILDERS.get(cause)
    if builder is None:
        raise ValueError(f"unknown scenario {cause!r}; known: {', '.join(SCENARIO_CAUSES + EXTRA_SCENARIOS)}")
    story = Story(make_job(seed))
    expected = builder(story)
    return story.write(Path(out_dir), f"{cause}-s{seed}", expected)
