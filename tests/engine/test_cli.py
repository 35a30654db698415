"""`manage.py diagnose PATH [--json]` end to end, with no database or Redis configured."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest
from engine_corpus import REPO, shared_dir

from triage.engine.model import CAUSES

CASE = "nccl-290"  # shm_exhausted, a plain single log


def run_cli(*args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    return subprocess.run(
        [sys.executable, "manage.py", "diagnose", *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.fixture(scope="module")
def case_log() -> Path:
    path = shared_dir() / "corpus" / "real" / CASE / "log.txt"
    assert path.is_file()
    return path


def test_text_output(case_log):
    r = run_cli(str(case_log))
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert out.startswith("VERDICT  shm_exhausted")
    assert "FIRST FAILURE" in out
    assert "FIX:" in out
    assert "posix_fallocate" in out


def test_json_output_contract(case_log):
    r = run_cli(str(case_log), "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)  # exactly one object
    assert isinstance(d, dict)
    for key in ("schema", "summary", "findings", "first_failure", "ranks"):
        assert key in d
    assert d["schema"] == "nccl-triage/diagnosis@1"
    assert isinstance(d["summary"], str) and d["summary"]
    assert d["findings"], "no finding"
    assert d["findings"][0]["cause"] == "shm_exhausted"
    for f in d["findings"]:
        assert set(f) == {"cause", "rule", "confidence", "title", "detail", "fix", "ranks", "hosts", "evidence"}
        assert f["cause"] in CAUSES
        assert f["confidence"] in ("high", "medium", "low")
        assert all(isinstance(r, int) for r in f["ranks"])
        for ev in f["evidence"]:
            assert set(ev) == {"source", "line", "text"}
            assert isinstance(ev["line"], int) and ev["line"] >= 1
    ff = d["first_failure"]
    assert ff is None or {"rank", "source", "line", "text"} <= set(ff)
    for rank in d["ranks"]:
        assert rank["state"] in ("ok", "errored", "crashed", "silent", "unknown")


def test_missing_path_exit_2(tmp_path):
    missing = tmp_path / "nope.tar.gz"
    r = run_cli(str(missing))
    assert r.returncode == 2
    assert r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ")
    assert str(missing) in lines[0]


def test_binary_junk_exit_2(tmp_path):
    junk = tmp_path / "junk.bin"
    junk.write_bytes(b"\0" + os.urandom(50_000))
    r = run_cli(str(junk), "--json")
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ")


def test_unknown_is_still_exit_0(tmp_path):
    log = tmp_path / "quiet.log"
    log.write_text("hello\nnothing to see here\n")
    r = run_cli(str(log), "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["schema"] == "nccl-triage/diagnosis@1"


def _verdict(path: Path) -> tuple:
    r = run_cli(str(path), "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    v = d["findings"][0] if d["findings"] else None
    return (v["cause"], v["rule"], tuple(v["ranks"])) if v else None


def test_dir_zip_targz_same_verdict(tmp_path, case_log):
    folder = tmp_path / "bundle"
    folder.mkdir()
    shutil.copy(case_log, folder / "log.txt")
    zpath = tmp_path / "bundle.zip"
    with zipfile.ZipFile(zpath, "w", compression=zipfile.ZIP_DEFLATED) as z:
        z.write(case_log, "log.txt")
    tpath = tmp_path / "bundle.tar.gz"
    with tarfile.open(tpath, "w:gz") as t:
        t.add(case_log, "log.txt")
    from_dir = _verdict(folder)
    assert from_dir is not None and from_dir[0] == "shm_exhausted"
    assert _verdict(tpath) == from_dir
    assert _verdict(zpath) == from_dir
