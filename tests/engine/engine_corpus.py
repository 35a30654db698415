"""The shared corpus of real logs, for the engine tests."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def shared_dir() -> Path:
    """`shared/` lies beside the repository (CI lays a copy there); override with NCCL_TRIAGE_SHARED."""
    env = os.environ.get("NCCL_TRIAGE_SHARED")
    for candidate in (Path(env) if env else None, REPO.parent / "shared", Path("/work/shared")):
        if candidate is not None and (candidate / "corpus" / "real").is_dir():
            return candidate
    pytest.fail("the shared corpus is missing: expected ../shared/corpus/real beside the repository")


def corpus_cases() -> list[Path]:
    try:
        root = shared_dir() / "corpus" / "real"
    except pytest.fail.Exception:  # collected before the failure can be reported per test
        return []
    return sorted(p for p in root.iterdir() if (p / "meta.json").is_file())


def load_meta(case: Path) -> dict:
    return json.loads((case / "meta.json").read_text())


def healthy_cases() -> list[Path]:
    """Real logs of runs that did not fail (with harmless lines that look alarming)."""
    try:
        root = shared_dir() / "corpus" / "healthy"
    except pytest.fail.Exception:
        return []
    return sorted(p for p in root.iterdir() if (p / "log.txt").is_file())
