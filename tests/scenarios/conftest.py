"""Fixtures: synthetic bundles built once per session, and the real gloo runs run once."""
from __future__ import annotations

from pathlib import Path

import pytest

from triage.scenarios import EXTRA_SCENARIOS, SCENARIO_CAUSES, build, gloo

SEEDS = (0, 1, 2, 3)
ALL_SCENARIOS = SCENARIO_CAUSES + EXTRA_SCENARIOS


@pytest.fixture(scope="session")
def scenario_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("scenarios")


@pytest.fixture(scope="session")
def built(scenario_dir):
    cache: dict[tuple[str, int], Path] = {}

    def get(cause: str, seed: int) -> Path:
        if (cause, seed) not in cache:
            cache[(cause, seed)] = build(cause, scenario_dir, seed=seed)
        return cache[(cause, seed)]
    return get


@pytest.fixture(scope="session")
def gloo_runs(tmp_path_factory) -> dict[str, gloo.RunResult]:
    out = tmp_path_factory.mktemp("gloo")
    return {
        "exception": gloo.run_exception(out),
        "sigkill": gloo.run_sigkill(out),
        "rendezvous": gloo.run_rendezvous(out),
        # One rank stops (data loader) or skips a collective: the rank named is the silent one,
        # whatever torchrun's "first observed failure" says. Several ranks and world sizes.
        "stall-4-2": gloo.run_stall(out, nproc=4, fail_rank=2),
        "stall-2-0": gloo.run_stall(out, nproc=2, fail_rank=0),
        "skip-3-1": gloo.run_skip(out, nproc=3, fail_rank=1),
        "exception-2-0": gloo.run_exception(out, nproc=2, fail_rank=0),
    }
