"""`run` and the collective forensics: the recorder variables under both names, ncclras
snapshots while the job runs (a stand-in `ncclras` on PATH: there is no GPU job here), dumps
recognised by content."""
from __future__ import annotations

import json
import os
import pickle
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from collectors.bundle import classify

REPO = Path(__file__).resolve().parents[2]
PY = sys.executable
RAS_TEXT = (
    "NCCL version 2.26.2+cuda12.8 compiled with CUDA 12.8\n"
    "CUDA runtime version 12080, driver version 12080\n\n"
    "Job summary\n===========\n\n"
    "  Nodes  Processes         GPUs  Processes     GPUs\n"
    "(total)   per node  per process    (total)  (total)\n"
    "      1          2            1          2        2\n"
)


def run_cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([PY, "-m", "collectors", "run", *args], cwd=REPO, capture_output=True, text=True,
                          timeout=120, env={**os.environ, **(env or {})}, check=False)


def test_recorder_variables_are_set_under_both_names(spool_dir: Path, tmp_path: Path) -> None:
    script = "import json, os; print(json.dumps({k: v for k, v in os.environ.items() if k.startswith('TORCH')}))"
    out = run_cli("--workdir", str(tmp_path / "w"), "--", PY, "-c", script)
    env = json.loads(out.stdout)
    fr = f"{tmp_path / 'w'}/fr/nccl_trace_rank_"
    assert env["TORCH_FR_BUFFER_SIZE"] == env["TORCH_NCCL_TRACE_BUFFER_SIZE"] == "2000"
    assert env["TORCH_FR_DUMP_ON_TIMEOUT"] == env["TORCH_NCCL_DUMP_ON_TIMEOUT"] == "1"
    assert env["TORCH_FR_DUMP_TEMP_FILE"] == env["TORCH_NCCL_DEBUG_INFO_TEMP_FILE"] == fr
    # The user's own choice under either name stands, and no second name is added.
    out = run_cli("--workdir", str(tmp_path / "v"), "--", PY, "-c", script, env={"TORCH_NCCL_TRACE_BUFFER_SIZE": "50"})
    env = json.loads(out.stdout)
    assert env["TORCH_NCCL_TRACE_BUFFER_SIZE"] == "50" and "TORCH_FR_BUFFER_SIZE" not in env


def test_ncclras_snapshots_are_packed_when_the_job_fails(spool_dir: Path, tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "ncclras"
    fake.write_text(f"#!{PY}\nimport sys\nsys.stdout.write({RAS_TEXT!r})\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    w = tmp_path / "w"
    out = run_cli("--workdir", str(w), "--ras-interval", "0.2", "--", PY, "-c", "import time, sys; time.sleep(1.5); sys.exit(3)",
                  env={"PATH": f"{bin_dir}:{os.environ['PATH']}"})
    assert out.returncode == 3
    text = (w / "ras" / "ncclras.txt").read_text()
    assert text.count("# ncclras snapshot at ") >= 2
    assert text.count("Job summary") == text.count("# ncclras snapshot at ")
    assert classify(w / "ras" / "ncclras.txt") == {"kind": "ncclras"}


def test_without_ncclras_nothing_is_written(spool_dir: Path, tmp_path: Path) -> None:
    w = tmp_path / "w"
    out = run_cli("--workdir", str(w), "--ras-interval", "0.1", "--", PY, "-c", "import time, sys; time.sleep(0.5); sys.exit(2)",
                  env={"PATH": os.path.dirname(PY)})
    assert out.returncode == 2
    assert not (w / "ras").exists()


def test_dumps_with_the_users_prefix_are_recognised_by_content(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    doc = {"version": "2.10", "pg_config": {}, "pg_status": {}, "entries": [{"profiling_name": "nccl:all_reduce"}]}
    (tmp_path / "mydump_3").write_bytes(pickle.dumps(doc, protocol=2))
    (tmp_path / "mydump_4.json").write_text(json.dumps(doc))
    (tmp_path / "run_2024.pkl").write_bytes(pickle.dumps(doc, protocol=2))
    (tmp_path / "notes_5").write_bytes(pickle.dumps({"x": 1}, protocol=2))
    for var in ("TORCH_FR_DUMP_TEMP_FILE", "TORCH_NCCL_DEBUG_INFO_TEMP_FILE"):
        monkeypatch.delenv(var, raising=False)
    # A dump by its content; its name's digits are no rank unless torch was given that prefix here.
    assert classify(tmp_path / "mydump_3") == {"kind": "flight_recorder"}
    assert classify(tmp_path / "run_2024.pkl") == {"kind": "flight_recorder"}
    monkeypatch.setenv("TORCH_FR_DUMP_TEMP_FILE", "/scratch/fr/mydump_")
    assert classify(tmp_path / "mydump_3") == {"kind": "flight_recorder", "rank": 3}
    assert classify(tmp_path / "mydump_4.json") == {"kind": "flight_recorder", "rank": 4}
    assert classify(tmp_path / "run_2024.pkl") == {"kind": "flight_recorder"}
    assert classify(tmp_path / "notes_5")["kind"] == "other"
