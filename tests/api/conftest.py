from __future__ import annotations

import tarfile
from pathlib import Path

import pytest


@pytest.fixture
def slow_bundle(tmp_path: Path) -> Path:
    """A rank_crash bundle big enough that its parse takes a few seconds (scenario scale builder)."""
    from triage.scenarios import build_scale

    folder = build_scale(tmp_path / "scale", ranks=32, hosts=4, events_per_rank=1500, seed=1)
    archive = tmp_path / "scale.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(folder, arcname=folder.name)
    return archive
