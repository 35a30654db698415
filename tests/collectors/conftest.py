"""Fixtures for the collectors' tests. No Django here: collectors/ is a standalone package."""
from __future__ import annotations

import os
import sys

# The helpers beside this file (fake_nvml, api_server) are imported by name; this works in
# pytest's default and importlib import modes alike. The test files carry distinct names for
# the same reason: this folder is not a package (a `collectors` package here would shadow the
# real one).
sys.path.insert(0, os.path.dirname(__file__))


import pytest  # noqa: E402


@pytest.fixture
def api_server():
    from api_server import ApiServer
    server = ApiServer().start()
    yield server
    server.stop()


@pytest.fixture
def spool_dir(tmp_path, monkeypatch):
    """Every test gets its own spool, never the user's ~/.cache."""
    d = tmp_path / "spool"
    monkeypatch.setenv("NCCL_TRIAGE_SPOOL", str(d))
    return d
