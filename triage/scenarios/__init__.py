"""Scenario generator: realistic multi-rank failure bundles with a known answer.

`build(cause, out_dir, seed=...)` writes one synthetic bundle (per-host logs, dmesg, snapshot,
manifest, optional NVML samples) plus `expected.json`; `build_scale` writes a large one for
benchmarks; `gloo` runs real CPU jobs that fail. Pure Python: no Django, no torch here.
"""
from __future__ import annotations

from datetime import datetime
from pathlib import Path

from .causes import BUILDERS, EXTRA_BUILDERS
from .cluster import make_job
from .scale import build_scale
from .story import Story

SCENARIO_CAUSES: tuple[str, ...] = tuple(BUILDERS)
EXTRA_SCENARIOS: tuple[str, ...] = tuple(EXTRA_BUILDERS)

__all__ = ["EXTRA_SCENARIOS", "SCENARIO_CAUSES", "build", "build_scale"]


def build(cause: str, out_dir: Path, *, seed: int = 0, start: datetime | None = None) -> Path:
    """Write the bundle for `cause` (or an extra scenario such as "unknown") and return its path.
    `start`: the job's start (UTC), to have the same cluster fail again another day (the same
    hosts and GPUs, a distinct failure)."""
    builder = BUILDERS.get(cause) or EXTRA_BUILDERS.get(cause)
    if builder is None:
        raise ValueError(f"unknown scenario {cause!r}; known: {', '.join(SCENARIO_CAUSES + EXTRA_SCENARIOS)}")
    job = make_job(seed)
    if start is not None:
        shift = start - job.start  # the hosts were rebooted as long before the job as in the original
        job.start = start
        for host in job.hosts:
            host.boot_time += shift
    story = Story(job)
    expected = builder(story)
    return story.write(Path(out_dir), f"{cause}-s{seed}", expected)
