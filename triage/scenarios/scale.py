"""A large bundle for benchmarks: many ranks, many events, one culprit (hung-rank crash story).

The culprit raises an exception and hangs in teardown; every other rank times out in the same
all-reduce, so the timeline has one early error and `ranks - 1` later watchdog timeouts.
"""
from __future__ import annotations

from pathlib import Path

from . import common as C
from .causes import _die_with_exception
from .cluster import make_job
from .story import Story


def build_scale(out_dir: Path, *, ranks: int, hosts: int, events_per_rank: int = 50, seed: int = 0) -> Path:
    if ranks % hosts:
        raise ValueError(f"ranks ({ranks}) must be a multiple of hosts ({hosts})")
    job = make_job(seed, hosts=hosts, gpus_per_host=ranks // hosts, name_prefix="gpu")
    job.layout = "rank_logs"
    story = Story(job)
    C.init(story)
    t = C.INIT_DONE + C.STEP_S * events_per_rank
    C.train(story, {r.rank: t for r in job.ranks}, log_every=1)
    culprit = job.ranks[job.rng.randrange(1, ranks)]
    pending = C.pending_at(story, t)
    _die_with_exception(story, culprit, t, [(C.TRAIN_PY, 142, "train_step", "loss.backward()")],
                        ["RuntimeError: Function 'MulBackward0' returned nan values in its 0th output."], hang=True)
    for r in job.ranks:
        if r is not culprit:
            C.watchdog_timeout(story, r, pending, completed=pending.seq - 1)
    C.finish(story)
    expected = {"cause": "rank_crash", "rank": culprit.rank, "host": culprit.host.name}
    return story.write(out_dir, f"scale-{ranks}r-{hosts}h-s{seed}", expected)
