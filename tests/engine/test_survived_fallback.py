"""A framework's own fallback warning (vLLM: "Setup Custom allreduce failed with CUDART error: peer
access is not supported ... To silence this warning ...") is a finding only where the run then
failed: with nothing failing after it, it is context at low confidence, never a high
p2p_unsupported; the catalog entry says so (`survivable`), no rule does."""
from __future__ import annotations

from pathlib import Path

from triage.engine import diagnose

WARNING = ("WARNING 12-01 14:30:05 custom_all_reduce.py:134] Setup Custom allreduce failed with CUDART error: peer "
           "access is not supported between these two devices. To silence this warning, specify "
           "disable_custom_all_reduce=True explicitly.\n")
SERVED = ("INFO 12-01 14:31:00 metrics.py:341] Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: "
          "35.1 tokens/s\n")
FAILED = ('Traceback (most recent call last):\n  File "serve.py", line 9, in <module>\n'
          "RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:1269, unhandled cuda error, NCCL version 2.18.1\n")


def _diagnose(tmp_path: Path, text: str) -> dict:  # type: ignore[type-arg]
    (tmp_path / "worker.log").write_text(text)
    return diagnose(tmp_path).to_dict()


def test_a_fallback_the_run_survived_is_a_low_hint_with_no_first_failure(tmp_path: Path) -> None:
    d = _diagnose(tmp_path, WARNING + SERVED)
    assert [(f["cause"], f["rule"], f["confidence"]) for f in d["findings"]] == [
        ("p2p_unsupported", "signature.vllm.custom_allreduce_setup_failed", "low")]
    assert d["first_failure"] is None
    assert "a hint only" in d["summary"]


def test_the_same_fallback_before_a_failure_is_a_medium_finding(tmp_path: Path) -> None:
    d = _diagnose(tmp_path, WARNING + SERVED + FAILED)
    top = d["findings"][0]
    assert (top["cause"], top["rule"], top["confidence"]) == (
        "p2p_unsupported", "signature.vllm.custom_allreduce_setup_failed", "medium")
    assert "peer access is not supported" in top["fix"]  # the extract's {error} filled in
