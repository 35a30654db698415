"""Private state: what the engine and beat load as code (compiled databases, the beat schedule)
is only ever read from a directory this user created 0700. A second local user, created here
and run with setpriv, plants a beat schedule, a 0777 cache folder and symlinks: the app refuses
or ignores them, and writes nothing through them.

These tests need root (to create the second user), as the issue's probes ran."""
from __future__ import annotations

import os
import pathlib
import pwd
import shelve
import shutil
import stat
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO
from triage.engine import statedir

REDIS_URL = os.environ.get("TRIAGE_TEST_REDIS_URL", "redis://127.0.0.1:6379/13")


class Mallory:
    """Another local user: runs commands with its own uid and gid, no supplementary groups."""

    def __init__(self, name: str) -> None:
        self.name = name
        entry = pwd.getpwnam(name)
        self.uid, self.gid = entry.pw_uid, entry.pw_gid

    def run(self, *command: str) -> None:
        subprocess.run(["setpriv", f"--reuid={self.uid}", f"--regid={self.gid}", "--clear-groups", *command],
                       check=True, capture_output=True, timeout=30)


@pytest.fixture
def mallory() -> Iterator[Mallory]:
    assert os.geteuid() == 0, "these tests create a second local user: run them as root"
    name = f"mallory{uuid.uuid4().hex[:8]}"
    subprocess.run(["useradd", "--no-create-home", "--shell", "/usr/sbin/nologin", name], check=True, timeout=30)
    try:
        yield Mallory(name)
    finally:
        subprocess.run(["userdel", name], check=False, timeout=30)


@pytest.fixture
def shared_tmp() -> Iterator[Path]:
    """A directory like /tmp (1777) that both users can reach (pytest's own tmp is root-only)."""
    path = Path(tempfile.mkdtemp(prefix="i18-shared-", dir="/tmp"))
    path.chmod(0o1777)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def victim(tmp_path: Path) -> Path:
    """A file only root may write: nothing may ever write through a planted link to it."""
    path = tmp_path / "root-only"
    path.write_bytes(b"root's own bytes\n")
    path.chmod(0o600)
    return path


def python(code: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if k not in ("NCCL_TRIAGE_STATE_DIR", "NCCL_TRIAGE_CACHE",
                                                              "TRIAGE_STATE_DIR", "XDG_CACHE_HOME")}
    return subprocess.run([sys.executable, "-c", code], cwd=REPO, env={**base, **env}, capture_output=True,
                          text=True, timeout=300, check=False)


def cache_names() -> list[str]:
    """The names the cache files of this catalog have (built in a private directory of ours)."""
    folder = Path(tempfile.mkdtemp(prefix="i18-names-"))
    try:
        done = python("from triage.engine import gate; gate.build_cache()", {"NCCL_TRIAGE_STATE_DIR": str(folder / "s")})
        assert done.returncode == 0, done.stderr[-2000:]
        return sorted(p.name for p in (folder / "s").iterdir())
    finally:
        shutil.rmtree(folder)


def test_a_cache_folder_another_user_made_0777_is_refused_its_files_are_not_loaded_and_nothing_is_written(
    mallory: Mallory, shared_tmp: Path, victim: Path,
) -> None:
    names = cache_names()
    assert any(n.startswith("gate-") for n in names)
    folder = shared_tmp / "cache" / "nccl-triage"
    mallory.run("mkdir", "-p", str(folder))
    mallory.run("chmod", "0777", str(shared_tmp / "cache"), str(folder))
    # A planted gate whose only pattern would be mallory's, and links to root's file under
    # every name the cache writes and every temporary name the old code used.
    planted = shared_tmp / "planted.json"
    planted.write_text('[["mallory-was-here", 0, false, ["mallory"]]]')
    for name in names:
        mallory.run("ln", "-s", str(victim), str(folder / f".{name}.tmp"))
        if name.startswith("gate-"):
            mallory.run("cp", str(planted), str(folder / name))
        else:
            mallory.run("ln", "-s", str(victim), str(folder / name))
    before = sorted(os.listdir(folder))

    env = {"XDG_CACHE_HOME": str(shared_tmp / "cache")}
    refused = python("from triage.engine import gate; gate.build_cache()", env)
    assert refused.returncode != 0
    assert f"refusing state directory {folder}" in refused.stderr and f"owned by uid {mallory.uid}" in refused.stderr

    # The engine itself still diagnoses, without the cache: the planted gate is not loaded.
    engine = python("from triage.engine import scan; print('mallory-was-here' in scan.pattern_set().patterns)", env)
    assert engine.returncode == 0 and engine.stdout.split() == ["False"], engine.stderr[-2000:]
    assert "compiled patterns not cached: refusing state directory" in engine.stderr

    # The service does not start on it, and says why.
    service = python("import django; django.setup()", {**env, "DJANGO_SETTINGS_MODULE": "triage.settings"})
    assert service.returncode != 0
    assert "TRIAGE_STATE_DIR: refusing state directory" in service.stderr

    assert victim.read_bytes() == b"root's own bytes\n"
    assert sorted(os.listdir(folder)) == before
    assert all(os.lstat(folder / n).st_uid == mallory.uid for n in before)


@pytest.mark.parametrize("shape", ["mode 0777 of ours", "a symlink to mallory's folder", "owned by mallory, 0700"])
def test_a_state_dir_of_the_wrong_shape_is_refused_with_what_to_fix(
    mallory: Mallory, shared_tmp: Path, shape: str,
) -> None:
    folder = shared_tmp / "state"
    if shape == "mode 0777 of ours":
        folder.mkdir()
        folder.chmod(0o777)
        expected = "has mode 0777; it must be 0700"
    elif shape == "a symlink to mallory's folder":
        mallory.run("mkdir", "-m", "0700", str(shared_tmp / "mallory"))
        mallory.run("ln", "-s", str(shared_tmp / "mallory"), str(folder))
        expected = "is a symbolic link"
    else:
        mallory.run("mkdir", "-m", "0700", str(folder))
        expected = f"is owned by uid {mallory.uid}"
    with pytest.raises(statedir.UnsafeStateDir, match=expected) as refused:
        statedir.ensure_private(folder)
    assert "NCCL_TRIAGE_STATE_DIR" in str(refused.value)


def test_the_state_dir_is_made_0700_and_a_tampered_cache_file_is_rebuilt_not_loaded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    from triage.engine import scan

    folder = tmp_path / "deep" / "state"
    monkeypatch.setenv("NCCL_TRIAGE_STATE_DIR", str(folder))
    assert statedir.state_dir() == folder
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700

    built: list[str] = []

    def build() -> bytes:
        built.append("x")
        return b"the real payload"

    def cached() -> bytes:
        return scan._disk_cached("thing-abc.bin", lambda b: b, build, lambda b: b)

    assert cached() == b"the real payload" and len(built) == 1
    assert cached() == b"the real payload" and len(built) == 1  # loaded, not built
    path = folder / "thing-abc.bin"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    # Same header, other payload: its hash does not match.
    path.write_bytes(path.read_bytes().replace(b"the real payload", b"evil bytes here!"))
    assert cached() == b"the real payload" and len(built) == 2
    # Another cache file's header (a different key) under this name.
    path.write_bytes(statedir.pack("thing-other.bin", b"evil bytes here!"))
    assert cached() == b"the real payload" and len(built) == 3
    # A symlink under the name is not followed on reading, and replaced (not written through).
    target = tmp_path / "elsewhere"
    target.write_bytes(statedir.pack("thing-abc.bin", b"evil bytes here!"))
    path.unlink()
    path.symlink_to(target)
    assert cached() == b"the real payload" and len(built) == 4
    assert not path.is_symlink() and target.read_bytes() == statedir.pack("thing-abc.bin", b"evil bytes here!")
    assert sorted(p.name for p in folder.iterdir()) == ["thing-abc.bin"]  # no temporary file left


class _Touch:
    """Unpickling this creates a file: code run by whoever loads the pickle."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __reduce__(self) -> tuple[Any, tuple[Path]]:
        return (pathlib.Path.touch, (self.path,))


def test_beat_never_loads_a_schedule_another_user_planted(
    mallory: Mallory, shared_tmp: Path, tmp_path: Path,
) -> None:
    """Mallory plants a schedule (a pickle that runs code) where beat used to keep it, a
    predictable name in the shared temporary directory; beat runs, keeps its own schedule in
    its private state directory, and the planted code never runs."""
    marker = shared_tmp / "planted-code-ran"
    staging = Path(tempfile.mkdtemp(prefix="i18-beat-"))
    try:
        with shelve.open(str(staging / "schedule")) as planted:
            planted["entries"] = _Touch(marker)
            planted["tz"] = _Touch(marker)
        staging.chmod(0o755)  # mallory copies it from here
        for f in staging.iterdir():
            f.chmod(0o644)
            old_name = f.name.replace("schedule", f"nccl-triage-celerybeat-schedule-{os.getuid()}")
            mallory.run("cp", str(f), str(shared_tmp / old_name))
    finally:
        shutil.rmtree(staging)

    home = tmp_path / "home"
    env = {
        **{k: v for k, v in os.environ.items() if k not in ("NCCL_TRIAGE_STATE_DIR", "TRIAGE_STATE_DIR")},
        "TMPDIR": str(shared_tmp), "XDG_CACHE_HOME": str(home / ".cache"), "DJANGO_SETTINGS_MODULE": "triage.settings",
        "REDIS_URL": REDIS_URL, "CELERY_KEY_PREFIX": f"triage-test-{uuid.uuid4().hex[:12]}:",
    }
    state = home / ".cache" / "nccl-triage"
    log = tmp_path / "beat.log"
    with log.open("wb") as out:
        beat = subprocess.Popen([sys.executable, "-m", "celery", "-A", "triage", "beat", "--loglevel=INFO"],
                                cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while not list(state.glob("celerybeat-schedule*")):
            assert beat.poll() is None and time.monotonic() < deadline, log.read_text()[-3000:]
            time.sleep(0.2)
    finally:
        beat.terminate()
        beat.wait(timeout=30)
    assert stat.S_IMODE(state.stat().st_mode) == 0o700 and state.stat().st_uid == os.geteuid()
    assert not marker.exists()
    assert "celerybeat-schedule" in log.read_text()


def test_beat_refuses_to_start_on_a_state_dir_another_user_made(mallory: Mallory, shared_tmp: Path) -> None:
    folder = shared_tmp / "cache" / "nccl-triage"
    mallory.run("mkdir", "-p", "-m", "0777", str(folder))
    mallory.run("chmod", "0777", str(shared_tmp / "cache"), str(folder))
    mallory.run("touch", str(folder / "celerybeat-schedule"))
    env = {k: v for k, v in os.environ.items() if k not in ("NCCL_TRIAGE_STATE_DIR", "TRIAGE_STATE_DIR")}
    env.update({"XDG_CACHE_HOME": str(shared_tmp / "cache"), "DJANGO_SETTINGS_MODULE": "triage.settings",
                "REDIS_URL": REDIS_URL})
    done = subprocess.run([sys.executable, "-m", "celery", "-A", "triage", "beat"], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode != 0
    assert "refusing state directory" in done.stdout + done.stderr
    assert os.stat(folder / "celerybeat-schedule").st_size == 0
    assert sorted(os.listdir(folder)) == ["celerybeat-schedule"]
