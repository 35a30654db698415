"""`python -m collectors gate` as a Slurm prolog would run it: a real process, a real smoke
all-reduce (gloo, 2 CPU ranks), against a live server on a free port."""
from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from tests.conftest import REPO

pytestmark = pytest.mark.django_db(transaction=True)


def gate(*args: str, token: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NCCL_TRIAGE_TOKEN": token}
    env.pop("NCCL_TRIAGE_SERVER", None)
    # The safety net only: the gate itself must come back within its --timeout.
    return subprocess.run([sys.executable, "-m", "collectors", "gate", *args], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=120, check=False)


@pytest.fixture
def drained_node_b(client: Client, api_token: str, media_root: Path, scenario_bundle: Callable[[str, int], Path]) -> None:
    for n in range(3):  # Xid 79 on node-b GPU 3, three distinct failures: drain recommended
        with scenario_bundle("hardware_fault", 0, n + 1).open("rb") as f:
            response = client.post("/api/v1/bundles", {"file": f, "job": f"gate-{n}"},
                                   headers={"Authorization": f"Bearer {api_token}"})
        assert response.status_code == 202


@pytest.fixture
def silent_server() -> Iterator[str]:
    """Accepts connections and never answers."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(8)
        yield f"http://127.0.0.1:{s.getsockname()[1]}"


def test_the_gate_refuses_a_drained_host_and_passes_a_healthy_one(
    live_server: Any, api_token: str, drained_node_b: None,
) -> None:
    refused = gate("--server", live_server.url, "--host", "node-b", "--backend", "gloo", "--nproc", "2",
                   "--timeout", "90", token=api_token)
    assert refused.returncode == 2, refused.stderr
    lines = refused.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("nccl-triage gate: REFUSED: drain recommended for node-b: ")
    assert "GPU 3" in lines[0]

    passed = gate("--server", live_server.url, "--host", "node-a", "--backend", "gloo", "--nproc", "2",
                  "--timeout", "90", token=api_token)
    assert passed.returncode == 0, passed.stderr
    assert "no drain recommended for node-a" in passed.stdout and "smoke all-reduce passed (gloo, 2 ranks" in passed.stdout


def test_the_gate_gives_up_on_a_silent_server_within_its_timeout(silent_server: str, api_token: str) -> None:
    lenient = gate("--server", silent_server, "--host", "node-a", "--no-smoke", "--timeout", "2", token=api_token)
    assert lenient.returncode == 0
    assert "could not ask" in lenient.stdout and "timed out" in lenient.stdout
    strict = gate("--server", silent_server, "--host", "node-a", "--no-smoke", "--timeout", "2", "--strict",
                  token=api_token)
    assert strict.returncode == 3 and "REFUSED: could not ask" in strict.stderr


def test_the_gate_refuses_with_a_bad_token(live_server: Any, db: None) -> None:
    result = gate("--server", live_server.url, "--host", "node-a", "--no-smoke", "--strict", token="wrong")
    assert result.returncode == 3 and "the server answered 401" in result.stderr
