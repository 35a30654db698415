"""Fixtures shared by the dashboard tests (incidents, api, web, deploy). Engine, scenario,
timeline and collector tests need none of this: nothing here is autouse."""
from __future__ import annotations

import io
import os
import shutil
import tarfile
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parent.parent


def _shared_folder() -> Path:
    """The shared data folder: NCCL_TRIAGE_SHARED, else `shared/` beside the repository (CI
    copies it there), else /work/shared (the development machines)."""
    override = os.environ.get("NCCL_TRIAGE_SHARED")
    if override:
        return Path(override)
    beside = Path(__file__).resolve().parents[2] / "shared"
    return beside if beside.is_dir() else Path("/work/shared")


# `make test` runs the suite in xdist workers with `--dist loadfile`: each file's tests go to one
# worker, so module fixtures (a Slurm cluster, a browser, real gloo jobs) are made once and a
# file's tests keep their order. Files that share a session fixture too costly to make once per
# worker share a worker too (file -> the file whose worker it joins).
SHARE_A_WORKER = {
    # gloo_runs (tests/scenarios/conftest.py): seven real torchrun jobs, about a minute.
    "tests/scenarios/test_gloo.py": "tests/scenarios/test_engine_on_scenarios.py",
    # slow_bundle (tests/api/conftest.py): a 65 MB scale bundle, seconds to build.
    "tests/api/test_outages.py": "tests/api/test_worker.py",
}


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """--dist loadfile with the files of SHARE_A_WORKER joined (xdist's own xdist_group marks
    cannot be used: xdist 3.8 renames the node id in a way pytest 9.2 no longer reads)."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    gone = sorted(p for pair in SHARE_A_WORKER.items() for p in pair if not (REPO / p).is_file())
    if gone:
        raise pytest.UsageError(f"tests/conftest.py SHARE_A_WORKER names files that are not there: {gone}")

    class SharedFileScheduling(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            path = super()._split_scope(nodeid)
            return SHARE_A_WORKER.get(path, path)

    return SharedFileScheduling(config, log)


SHARED = _shared_folder()
CORPUS = SHARED / "corpus" / "real"
# Real logs whose cause is known (their meta.json): the raw material of dashboard tests.
CORPUS_SAMPLES = {"shm_exhausted": CORPUS / "nccl-290" / "log.txt"}


@pytest.fixture
def media_root(settings: Any, tmp_path: Path) -> Path:
    """Bundles of this test go to a fresh folder."""
    root = tmp_path / "media"
    settings.MEDIA_ROOT = root
    return root


def sample_log(cause: str = "shm_exhausted") -> bytes:
    return CORPUS_SAMPLES[cause].read_bytes()


def tar_bytes(files: dict[str, bytes], mode: str = "w") -> bytes:
    """An in-memory tar of these files (mode "w:gz" etc. compresses it)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode=mode) as tar:  # type: ignore[call-overload]
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def tar_gz(files: dict[str, bytes]) -> bytes:
    """An in-memory .tar.gz of these files."""
    return tar_bytes(files, "w:gz")


@pytest.fixture
def shm_bundle(tmp_path: Path) -> Path:
    """A one-host bundle (.tar.gz) whose log shows /dev/shm exhausted (corpus nccl-290)."""
    path = tmp_path / "node-a.tar.gz"
    path.write_bytes(tar_gz({"node-a/log.txt": sample_log("shm_exhausted")}))
    return path


@pytest.fixture
def corrupt_bundle(tmp_path: Path) -> Path:
    """Named like an archive, unreadable from its first byte."""
    path = tmp_path / "broken.tar.gz"
    path.write_bytes(b"\x1f\x8b\x08\x00" + bytes(range(256)) * 64)
    return path


@pytest.fixture
def api_token(db: None) -> str:
    """A read-and-upload token of the default team (as `apitoken create --name` makes)."""
    from triage.accounts.services import apitoken_create

    return apitoken_create(name="test-collector")[1]


def join_team(user: Any, *, team: str | None = None, role: str = "member") -> Any:
    """Make `user` a member of `team` (the default team when None); returns the user."""
    from triage.accounts.services import membership_set, team_default, team_get_or_create

    membership_set(team=team_get_or_create(name=team) if team else team_default(), user=user, role=role)
    return user


# Debian's chromium under Playwright, as every browser test runs it.
CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]


def launch_chromium(playwright: Any, path: str | None) -> Any:
    return playwright.chromium.launch(executable_path=path, headless=True, args=CHROMIUM_FLAGS)


def sign_in(page: Any, username: str = "sre", password: str = "correct horse") -> None:
    """Fill the login form the page shows and submit it."""
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.click("button[type=submit]")


@pytest.fixture
def chromium_path() -> str:
    path = shutil.which("chromium")
    if path is None:
        pytest.fail("Debian's chromium is not installed: run `make chromium` (scripts/ensure-chromium)")
    return path
