"""incidents.memory: a function run in a child under a memory limit of its own; its answer,
its exception, or why it stopped."""
from __future__ import annotations

import os
import signal

import pytest

from triage.incidents.memory import DiagnosisOutOfMemory, mapped_bytes, run_limited


def test_the_answer_comes_back() -> None:
    assert run_limited(lambda: {"schema": "x", "ranks": [1, 2]}, limit_mb=256) == {"schema": "x", "ranks": [1, 2]}


def test_past_the_limit_it_is_stopped_with_the_reason_and_this_process_goes_on() -> None:
    before = mapped_bytes()
    with pytest.raises(DiagnosisOutOfMemory, match=r"needed more than 64 MB of memory \(TRIAGE_DIAGNOSIS_MEMORY_MB\)"):
        run_limited(lambda: bytearray(512 * 1024 * 1024), limit_mb=64)
    assert mapped_bytes() < before + 64 * 1024 * 1024  # the child's memory was never ours
    assert run_limited(lambda: len(bytearray(16 * 1024 * 1024)), limit_mb=64) == 16 * 1024 * 1024


def test_its_exception_is_raised_here() -> None:
    def fails() -> None:
        raise ValueError("bad input")

    with pytest.raises(ValueError, match="bad input"):
        run_limited(fails, limit_mb=64)


def test_a_child_killed_outright_is_reported() -> None:
    with pytest.raises(DiagnosisOutOfMemory, match=r"killed by signal 9 \(SIGKILL\)"):
        run_limited(lambda: os.kill(os.getpid(), signal.SIGKILL), limit_mb=64)
