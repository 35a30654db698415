from __future__ import annotations

import tarfile
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def slow_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A rank_crash bundle (scenario scale builder, ~65 MB) whose parse takes about a second:
    long enough to kill a worker in the middle of it. Built once (seconds); uploads only read it."""
    from triage.scenarios import build_scale

    tmp_path = tmp_path_factory.mktemp("slow-bundle")
    folder = build_scale(tmp_path / "scale", ranks=32, hosts=4, events_per_rank=20_000, seed=1)
    archive = tmp_path / "scale.tar"
    with tarfile.open(archive, "w") as tar:
        tar.add(folder, arcname=folder.name)
    return archive
