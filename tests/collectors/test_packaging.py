"""The collectors install on their own: a wheel (`nccl-triage-collectors`, console script
`nccl-triage`) into a fresh venv with no index and no Django, and a single-file zipapp that runs
with nothing but the interpreter (no site-packages at all).

Offline: the only wheels pip may use are the collectors' own (built here) and nvidia-ml-py
from the wheelhouse that `make venv` fills (NCCL_TRIAGE_WHEELHOUSE overrides).
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
WHEELHOUSE = Path(os.environ.get("NCCL_TRIAGE_WHEELHOUSE") or Path(sys.prefix) / "wheelhouse")
# No index, no user config, no cache: what is installed comes from the folders named, or fails.
OFFLINE = {"PIP_NO_INDEX": "1", "PIP_CONFIG_FILE": os.devnull, "PIP_NO_CACHE_DIR": "1",
           "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_FIND_LINKS": ""}


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "PYTHON", "VIRTUAL_ENV"))}
    return {**env, **OFFLINE, **extra}


def _run(args: list[str], cwd: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(args, cwd=cwd, env=_env(**extra), capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, f"{args}:\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
    return done


@pytest.fixture(scope="module")
def wheelhouse() -> Path:
    if not any(WHEELHOUSE.glob("nvidia_ml_py-*.whl")):
        pytest.fail(f"no nvidia-ml-py wheel in {WHEELHOUSE}: run `make venv` (it downloads one there)")
    return WHEELHOUSE


def test_the_wheel_installs_offline_in_a_fresh_venv_and_gives_nccl_triage(tmp_path: Path, wheelhouse: Path) -> None:
    # Built from a copy, so the source tree gets no build/ or egg-info.
    source = tmp_path / "src"
    shutil.copytree(REPO / "collectors", source, ignore=shutil.ignore_patterns("__pycache__", "build", "*.egg-info"))
    dist = tmp_path / "dist"
    _run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(dist), str(source)],
         cwd=tmp_path)
    wheels = list(dist.glob("nccl_triage_collectors-*.whl"))
    assert len(wheels) == 1, list(dist.iterdir())

    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", str(venv)], cwd=tmp_path)
    py = venv / "bin" / "python"
    _run([str(py), "-m", "pip", "install", "-q", "--find-links", str(dist), "--find-links", str(wheelhouse),
          "nccl-triage-collectors"], cwd=tmp_path)

    # A folder without the repository: only the installed package can answer.
    help_text = _run([str(venv / "bin" / "nccl-triage"), "--help"], cwd=tmp_path).stdout
    assert help_text.startswith("usage: nccl-triage ")
    for command in ("snapshot", "upload", "run", "smoke"):
        assert command in help_text
    snapshot = json.loads(_run([str(venv / "bin" / "nccl-triage"), "snapshot"], cwd=tmp_path).stdout)
    assert snapshot["schema"] == "nccl-triage/snapshot@1"
    # pynvml came with it (without a GPU NVML itself says why, not a missing module).
    assert "not importable" not in str(snapshot["nvml"].get("reason"))
    installed = _run([str(py), "-m", "pip", "list", "--format=json"], cwd=tmp_path).stdout
    names = {p["name"].lower() for p in json.loads(installed)}
    assert {"nccl-triage-collectors", "nvidia-ml-py"} <= names
    assert "django" not in names


def test_the_zipapp_runs_with_nothing_but_the_interpreter(tmp_path: Path, wheelhouse: Path) -> None:
    out = tmp_path / "nccl-triage.pyz"
    _run([sys.executable, str(REPO / "scripts" / "build-collector-pyz"), "--out", str(out), "--wheelhouse",
          str(wheelhouse)], cwd=REPO)
    alone = tmp_path / "node"
    alone.mkdir()
    shutil.copy2(out, alone / out.name)
    # -I: not the current folder, PYTHONPATH or user site; -S: no site-packages at all.
    help_text = _run([sys.executable, "-I", "-S", out.name, "--help"], cwd=alone).stdout
    assert help_text.startswith("usage: nccl-triage.pyz ")
    snapshot = json.loads(_run([sys.executable, "-I", "-S", out.name, "snapshot"], cwd=alone).stdout)
    assert snapshot["schema"] == "nccl-triage/snapshot@1"
    assert "not importable" not in str(snapshot["nvml"].get("reason"))
