"""Slurm for real (deploy/slurm): a job whose step exits non-zero has its output uploaded by
the epilog and becomes an incident named by the job id on a live server; a job that succeeds
uploads nothing; the prolog gate runs before each job and a refusing gate drains the node."""
from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import CORPUS_SAMPLES
from tests.slurm.conftest import Slurm, collector_command
from triage.incidents.models import Incident

pytestmark = pytest.mark.django_db(transaction=True)


def _settings(slurm: Slurm, live_server: Any, token: str, tmp_path: Path, **extra: str) -> None:
    token_file = tmp_path / "token"
    token_file.write_text(token)
    token_file.chmod(0o600)
    slurm.configure(**{
        "NCCL_TRIAGE_SERVER": live_server.url,
        "NCCL_TRIAGE_TOKEN_FILE": str(token_file),
        "NCCL_TRIAGE_CMD": collector_command(),
        "PYTHONPATH": str(Path(__file__).resolve().parents[2]),
        "NCCL_TRIAGE_SPOOL": str(tmp_path / "spool"),
        "NCCL_TRIAGE_GATE_ARGS": "--no-smoke --timeout 20",
        **extra,
    })


def test_a_job_whose_step_fails_becomes_an_incident_and_one_that_succeeds_does_not(
    slurm: Slurm, live_server: Any, api_token: str, tmp_path: Path,
) -> None:
    _settings(slurm, live_server, api_token, tmp_path)
    failing = slurm.submit(
        "#!/bin/bash\n"
        f"cat {CORPUS_SAMPLES['shm_exhausted']}\n"  # what the NCCL job printed before it died
        "srun bash -c 'echo step starting; exit 3'\n"
    )
    passing = slurm.submit("#!/bin/bash\nsrun bash -c 'echo all good'\n")

    assert slurm.wait_done(failing) == "FAILED"
    assert slurm.job_field(failing, "ExitCode") == "3:0"
    assert slurm.wait_done(passing) == "COMPLETED"

    incident = Incident.objects.filter(job=failing).first()  # the epilog ran before COMPLETING ended
    assert incident is not None, f"no incident for job {failing}\n{slurm.logs()}"
    bundle = incident.bundles.get()
    assert bundle.host == slurm.node
    incident.refresh_from_db()
    assert incident.status == Incident.Status.READY, incident.error
    assert incident.cause == "shm_exhausted"
    sources = {s["name"] for s in incident.diagnosis.data["sources"]}
    assert any(name.endswith(f"job-{failing}.out") for name in sources), sources
    assert not Incident.objects.filter(job=passing).exists()


def test_a_refusing_prolog_gate_drains_the_node_before_the_job_runs(
    slurm: Slurm, live_server: Any, api_token: str, tmp_path: Path,
) -> None:
    # --strict with a server that cannot be asked: the gate refuses (exit 3), as it would for a
    # host the dashboard recommends draining.
    _settings(slurm, live_server, api_token, tmp_path, NCCL_TRIAGE_SERVER="http://127.0.0.1:9",
              NCCL_TRIAGE_GATE_ARGS="--no-smoke --strict --timeout 5")
    marker = tmp_path / "ran"
    job = slurm.submit(f"#!/bin/bash\ntouch {marker}\n")
    try:
        deadline = time.monotonic() + 60
        while "drain" not in slurm.node_state():
            assert time.monotonic() < deadline, f"node {slurm.node_state()}\n{slurm.logs()}"
            time.sleep(0.2)
        assert "Prolog" in slurm.run("sinfo", "-h", "-R", "-o", "%E")
        assert not marker.exists()
    finally:
        slurm.run("scancel", job)
        _settings(slurm, live_server, api_token, tmp_path)
        slurm.run("scontrol", "update", f"nodename={slurm.node}", "state=resume")
        deadline = time.monotonic() + 60
        while slurm.node_state() != "idle" and time.monotonic() < deadline:
            time.sleep(0.2)


def test_the_drain_command_the_dashboard_gives_drains_the_node_with_its_reason(slurm: Slurm) -> None:
    """The page's Slurm command (triage/fleet/commands.py), run as an operator would paste it
    into a shell, against the real slurmctld: the node drains, with the reason whole (quotes and
    `$(...)` in it arrive as text), and nothing in it runs."""
    import subprocess

    from triage.fleet.commands import drain_commands

    reason = "nccl-triage 3f2a: Xid 79 on it's GPU 3 $(touch PWNED) \"x\""
    command = drain_commands(host=slurm.node, reason=reason)["slurm"]
    try:
        done = subprocess.run(["bash", "-c", command], cwd=slurm.root, env=slurm.env, capture_output=True,
                              text=True, timeout=60, check=False)
        assert done.returncode == 0, done.stderr
        deadline = time.monotonic() + 60
        while "drain" not in slurm.node_state():
            assert time.monotonic() < deadline, f"node {slurm.node_state()}\n{slurm.logs()}"
            time.sleep(0.2)
        # Double quotes are scontrol's delimiters: the command gives them as single ones.
        assert slurm.run("sinfo", "-h", "-R", "-o", "%E").strip() == reason.replace('"', "'")
        assert not (slurm.root / "PWNED").exists()
    finally:
        slurm.run("scontrol", "update", f"nodename={slurm.node}", "state=resume")
