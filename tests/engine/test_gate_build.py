"""The install step (`python -m triage.engine.gate --build`, run by the Makefile and the
Dockerfile) compiles everything the first diagnosis would otherwise build: after it, a fresh
process diagnoses without writing anything new to the cache."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
LOG = "gpu-node-001:40001:40078 [1] NCCL INFO NCCL version 2.21.5+cuda12.4\n[rank1]: torch.OutOfMemoryError: CUDA out of memory.\n"


def _run(args: list[str], cache: Path) -> subprocess.CompletedProcess[str]:
    # The engine's private state directory (triage/engine/statedir.py), this test's own.
    env = {k: v for k, v in os.environ.items() if k != "NCCL_TRIAGE_CACHE"}
    env.update(NCCL_TRIAGE_STATE_DIR=str(cache), PYTHONPATH=str(REPO))
    return subprocess.run([sys.executable, *args], cwd=REPO, env=env, capture_output=True, text=True, check=True)


def _files(cache: Path) -> set[str]:
    return {p.name for p in cache.iterdir()} if cache.exists() else set()


def test_the_build_step_leaves_nothing_for_the_first_diagnosis(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    log = tmp_path / "rank1.log"
    log.write_text(LOG)
    out = _run(["-m", "triage.engine.gate", "--build"], cache)
    assert "scan gate ready" in out.stdout
    built = _files(cache)
    assert any(name.startswith("gate-") for name in built)
    assert sum(name.startswith("hs-") for name in built) >= (4 if "hyperscan" in out.stdout else 0)
    _run(["-c", f"from triage.engine import diagnose; print(diagnose({str(log)!r}).findings[0].cause)"], cache)
    assert _files(cache) == built


def test_without_it_the_first_diagnosis_builds_them(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    log = tmp_path / "rank1.log"
    log.write_text(LOG)
    _run(["-c", f"from triage.engine import diagnose; print(diagnose({str(log)!r}).findings[0].cause)"], cache)
    assert any(name.startswith("gate-") for name in _files(cache))


def test_the_gate_keywords_are_the_parsers_declarations_and_the_catalog() -> None:
    # No hand list in scan.py: the structural keywords are what each parser module declares it
    # must see (parsers.GATE_MEANING / GATE_IDENTITY), the rest of MEANING/IDENTITY is the
    # catalog's cover (caseless literals), and ONCE is the gate's own sample of trouble words.
    from triage.engine import parsers, scan

    assert not hasattr(scan, "MEANING_KEYWORDS") and not hasattr(scan, "IDENTITY_KEYWORDS")
    ps = scan.pattern_set()
    hand = {(p, c) for p, c, caseless in zip(ps.patterns, ps.classes, ps.caseless, strict=True)
            if not caseless and c in (scan.MEANING, scan.IDENTITY)}
    declared = {(p, scan.MEANING) for p in parsers.GATE_MEANING} | {(p, scan.IDENTITY) for p in parsers.GATE_IDENTITY}
    assert hand == declared
    for module in (parsers.nccl, parsers.torch_c10d, parsers.python_tb, parsers.process_exit, parsers.kernel,
                   parsers.cuda):
        assert module.GATE_MEANING, module.__name__
