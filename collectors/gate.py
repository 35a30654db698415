"""`gate`: may this node take a job? For a Slurm prolog or a Kubernetes init container.

Asks the dashboard for the host's drain state (GET /api/v1/hosts/<host>), then runs the smoke
all-reduce on the node. Exits 0 when the node may take the job, non-zero with one line saying
why not. The whole check never takes longer than `timeout`: the smoke runs as a child process
group that is killed at the deadline, and the HTTP request gets what time is left.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

EXIT_OK = 0
EXIT_SMOKE_FAILED = 1
EXIT_DRAIN = 2
EXIT_SERVER = 3  # the server could not be asked, and --strict says that is a refusal


@dataclass
class GateOptions:
    host: str
    server: str | None = None
    token: str | None = None
    timeout: float = 60.0
    smoke: bool = True
    backend: str = "auto"
    nproc: int | None = None
    size_mb: float = 4.0
    iters: int = 5
    strict: bool = False


@dataclass
class GateResult:
    code: int
    reason: str


def host_state(*, server: str, token: str, host: str, timeout: float) -> dict[str, Any]:
    """The server's view of this host. Raises OSError (unreachable, timeout) or ValueError
    (an answer that is not the expected JSON, or an error status, with the server's message)."""
    url = server.rstrip("/") + "/api/v1/hosts/" + urllib.parse.quote(host, safe="")
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}", "Accept": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=max(0.5, timeout)) as response:  # noqa: S310 - configured URL
            body = json.loads(response.read(1024 * 1024))
    except urllib.error.HTTPError as e:
        try:
            message = json.loads(e.read(64 * 1024)).get("error") or ""
        except (ValueError, AttributeError, OSError):
            message = ""
        raise ValueError(f"the server answered {e.code}{': ' + message if message else ''}") from None
    except json.JSONDecodeError:
        raise ValueError("the server's answer is not JSON") from None
    if not isinstance(body, dict) or not isinstance(body.get("drain"), dict):
        raise ValueError("the server's answer has no drain state")
    return body


def _run_smoke(opts: GateOptions, budget: float) -> GateResult:
    package_parent = str(Path(__file__).resolve().parent.parent)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (package_parent, os.environ.get("PYTHONPATH")) if p))
    command = [sys.executable, "-m", "collectors", "smoke", "--json", "--backend", opts.backend,
               "--size-mb", str(opts.size_mb), "--iters", str(opts.iters), "--timeout", str(max(1.0, budget - 2))]
    if opts.nproc:
        command += ["--nproc", str(opts.nproc)]
    # Its own process group: at the deadline the smoke and every rank it started go together.
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=budget)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        return GateResult(EXIT_SMOKE_FAILED, f"smoke all-reduce did not finish within {budget:.0f} s")
    try:
        result = json.loads(out)
    except ValueError:
        return GateResult(EXIT_SMOKE_FAILED, f"smoke all-reduce exited {proc.returncode} without a result")
    if result.get("ok"):
        bw = result.get("busbw_gbps")
        return GateResult(EXIT_OK, f"smoke all-reduce passed ({result.get('backend')}, {result.get('world_size')} ranks"
                                   f"{f', {bw:.2f} GB/s' if isinstance(bw, (int, float)) else ''})")
    failed = [r for r in result.get("ranks") or [] if not r.get("ok")]
    first = failed[0] if failed else {}
    return GateResult(EXIT_SMOKE_FAILED,
                      f"smoke all-reduce failed on rank(s) {', '.join(str(r.get('rank')) for r in failed)}"
                                         f"{': ' + str(first.get('error'))[:200] if first.get('error') else ''}")


def run_gate(opts: GateOptions) -> GateResult:
    deadline = time.monotonic() + opts.timeout
    notes = []
    if opts.server and opts.token:
        try:
            # The server is asked first: a drained node is refused without spending a smoke run.
            state = host_state(server=opts.server, token=opts.token, host=opts.host,
                               timeout=min(15.0, max(0.5, deadline - time.monotonic())))
        except (OSError, ValueError) as e:
            why = f"could not ask {opts.server} about {opts.host}: {getattr(e, 'reason', e)}"
            if opts.strict:
                return GateResult(EXIT_SERVER, why)
            notes.append(why)
        else:
            drain = state["drain"]
            if drain.get("recommended"):
                return GateResult(EXIT_DRAIN,
                                  f"drain recommended for {opts.host}: {drain.get('reason') or 'no reason given'}")
            notes.append(f"server: no drain recommended for {opts.host}")
    elif opts.strict:
        return GateResult(EXIT_SERVER,
                          "--strict needs --server and --token (or $NCCL_TRIAGE_SERVER / $NCCL_TRIAGE_TOKEN)")
    if opts.smoke:
        left = deadline - time.monotonic()
        if left < 1:
            return GateResult(EXIT_SMOKE_FAILED, f"no time left for the smoke all-reduce within {opts.timeout:.0f} s")
        smoke = _run_smoke(opts, left)
        if smoke.code != EXIT_OK:
            return smoke
        notes.append(smoke.reason)
    return GateResult(EXIT_OK, "; ".join(notes) or "nothing to check")
