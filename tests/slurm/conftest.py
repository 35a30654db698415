"""A real single-node Slurm for the tests: munged, slurmctld and slurmd from Debian's packages
(`make slurm`, scripts/ensure-slurm), started here in a folder of their own, on free loopback
ports, with deploy/slurm's prolog and epilog. Nothing of the system's Slurm is touched: the
daemons read this folder's slurm.conf (SLURM_CONF) and talk through this folder's munge socket.

The prolog and epilog get their settings from `slurm.env` in that folder, which a test writes
(server URL, token) before it submits a job.
"""
from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.collectors.api_server import free_port
from tests.conftest import REPO

PROGRAMS = ("munged", "slurmctld", "slurmd", "sbatch", "scontrol", "sinfo")


class Slurm:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.node = socket.gethostname().split(".")[0]
        self.conf = root / "slurm.conf"
        self.env_file = root / "slurm.env"
        self.processes: list[subprocess.Popen[bytes]] = []

    @property
    def env(self) -> dict[str, str]:
        return {**os.environ, "SLURM_CONF": str(self.conf)}

    def write_config(self) -> None:
        root = self.root
        for name in ("state", "spool", "jobs"):
            (root / name).mkdir()
        key = root / "munge.key"
        key.write_bytes(os.urandom(1024))
        key.chmod(0o400)
        # The deploy/slurm scripts, as a site installs them, pointed at this folder's settings.
        for name in ("prolog", "epilog"):
            wrapper = root / name
            wrapper.write_text(f"#!/bin/sh\nNCCL_TRIAGE_CONF={self.env_file} exec {REPO}/deploy/slurm/{name}.sh\n")
            wrapper.chmod(0o755)
        self.conf.write_text(f"""\
ClusterName=triagetest
SlurmctldHost={self.node}(127.0.0.1)
SlurmctldPort={free_port()}
SlurmdPort={free_port()}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={root}/munge.socket
StateSaveLocation={root}/state
SlurmdSpoolDir={root}/spool
SlurmctldPidFile={root}/slurmctld.pid
SlurmdPidFile={root}/slurmd.pid
SlurmctldLogFile={root}/slurmctld.log
SlurmdLogFile={root}/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
PrologFlags=Alloc
Prolog={root}/prolog
Epilog={root}/epilog
NodeName={self.node} NodeAddr=127.0.0.1 CPUs={os.cpu_count() or 1} State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
""")

    def start(self) -> None:
        root = self.root
        self._spawn("munged", ["munged", "-F", "-f", f"--socket={root}/munge.socket", f"--key-file={root}/munge.key",
                               f"--log-file={root}/munged.log", f"--pid-file={root}/munged.pid",
                               f"--seed-file={root}/munged.seed"])
        self._wait(lambda: (root / "munge.socket").exists(), "munged")
        self._spawn("slurmctld", ["slurmctld", "-D", "-f", str(self.conf)])
        self._spawn("slurmd", ["slurmd", "-D", "-f", str(self.conf)])
        self._wait(lambda: self.node_state() == "idle", "the node to be idle")

    def _spawn(self, name: str, command: list[str]) -> None:
        with (self.root / f"{name}.out").open("wb") as out:
            self.processes.append(subprocess.Popen(command, env=self.env, stdout=out, stderr=subprocess.STDOUT,
                                                   start_new_session=True))

    def _wait(self, ready: object, what: str, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while not ready():  # type: ignore[operator]
            dead = [p.args[0] for p in self.processes if p.poll() is not None]
            if dead or time.monotonic() > deadline:
                raise AssertionError(f"waiting for {what}: {dead or 'timed out'}\n{self.logs()}")
            time.sleep(0.2)

    def stop(self) -> None:
        for proc in reversed(self.processes):
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
                try:
                    proc.wait(15)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()

    def run(self, *args: str) -> str:
        done = subprocess.run(list(args), env=self.env, capture_output=True, text=True, timeout=60, check=False)
        assert done.returncode == 0, f"{args}: {done.stderr}\n{self.logs()}"
        return done.stdout

    def node_state(self) -> str:
        done = subprocess.run(["sinfo", "-h", "-N", "-o", "%T"], env=self.env, capture_output=True, text=True, timeout=30, check=False)
        return done.stdout.strip()

    def submit(self, script: str) -> str:
        path = self.root / "jobs" / f"job-{time.monotonic_ns()}.sh"
        path.write_text(script)
        return self.run("sbatch", "--parsable", "-o", str(self.root / "jobs" / "job-%j.out"), str(path)).strip()

    def job_field(self, job: str, field: str) -> str:
        line = self.run("scontrol", "-o", "show", "job", job)
        for item in line.split():
            if item.startswith(field + "="):
                return item.split("=", 1)[1]
        return ""

    def wait_done(self, job: str, timeout: float = 120) -> str:
        """The job's final state, once its epilog has run (COMPLETING ends with the epilog)."""
        deadline = time.monotonic() + timeout
        while True:
            state = self.job_field(job, "JobState")
            if state in ("COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY"):
                return state
            if time.monotonic() > deadline:
                raise AssertionError(f"job {job} still {state}\n{self.logs()}")
            time.sleep(0.2)

    def configure(self, **settings: str) -> None:
        self.env_file.write_text("".join(f"{k}={_quote(v)}\n" for k, v in settings.items()))

    def logs(self) -> str:
        out = []
        for name in ("slurmctld.log", "slurmd.log", "munged.log"):
            path = self.root / name
            if path.exists():
                out.append(f"--- {name}\n" + path.read_text(errors="replace")[-2000:])
        return "\n".join(out)


def _quote(value: str) -> str:
    return "'" + value.replace("'", "'\\''") + "'"


@pytest.fixture(scope="module")
def slurm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Slurm]:
    missing = [p for p in PROGRAMS if shutil.which(p) is None]
    if missing:
        pytest.fail(f"Slurm is not installed ({', '.join(missing)} missing): run `make slurm` (scripts/ensure-slurm)")
    if os.geteuid() != 0:
        pytest.fail("the Slurm tests run slurmd as root (it starts jobs as their user)")
    cluster = Slurm(tmp_path_factory.mktemp("slurm"))
    cluster.write_config()
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()


def collector_command() -> str:
    """How the prolog and epilog run the collectors here: this Python, the repository's package."""
    return f"{sys.executable} -m collectors"
