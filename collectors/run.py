"""`run`: wrap a launch (torchrun, srun, a script), make its failure diagnosable, upload on failure.

The wrapper sets the debug variables the user has not set, tees the output to a log, samples
NVML in a thread, forwards signals to the child's process group, and when the command fails
collects snapshot + logs + dumps into a bundle and uploads it. It always exits with the child's
status (128+N for signal N, like a shell), so it can replace the bare command in any script.
"""
from __future__ import annotations

import contextlib
import glob
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from collectors.bundle import BundleFile, gather, write_bundle
from collectors.environment import job_id_from_env
from collectors.host import hostname
from collectors.kernel_log import read_kernel_log
from collectors.sampler import NvmlSampler
from collectors.snapshot import write_snapshot
from collectors.upload import Outcome, RetryPolicy, Spool, default_spool_dir, deliver, flush_spool

FORWARDED_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT,
                     signal.SIGUSR1, signal.SIGUSR2)


def diagnostic_env(environ: Mapping[str, str], workdir: Path) -> tuple[dict[str, str], list[str]]:
    """The child's environment: the user's, plus what makes a failure diagnosable where unset.

    Returns the environment and the names this function added. Aliases count as set: a user who
    chose TORCH_FR_DUMP_TEMP_FILE keeps their path and gets no second one from us.
    """
    env = dict(environ)
    added: list[str] = []

    def default(name: str, value: str, *aliases: str) -> None:
        if name in env or any(a in env for a in aliases):
            return
        env[name] = value
        added.append(name)

    def both(names: tuple[str, str], value: str) -> None:
        # torch >= 2.6 reads TORCH_FR_* (gloo's recorder too), older torch TORCH_NCCL_* only:
        # set both, unless the user set either.
        if any(n in env for n in names):
            return
        for n in names:
            env[n] = value
            added.append(n)

    default("NCCL_DEBUG", "INFO")
    # %h/%p are expanded by NCCL: one file per process, so ranks never interleave mid-line.
    default("NCCL_DEBUG_FILE", str(workdir / "nccl" / "nccl-%h.%p.log"))
    # Same shape as NCCL's default "[%F %T] " (parsers know it) plus microseconds; local time,
    # whose zone the snapshot records. Timestamps on INFO too, not only WARN (the default).
    default("NCCL_DEBUG_TIMESTAMP_FORMAT", "[%F %T.%6f] ")
    default("NCCL_DEBUG_TIMESTAMP_LEVELS", "WARN,INFO")
    both(("TORCH_NCCL_TRACE_BUFFER_SIZE", "TORCH_FR_BUFFER_SIZE"), "2000")
    both(("TORCH_NCCL_DUMP_ON_TIMEOUT", "TORCH_FR_DUMP_ON_TIMEOUT"), "1")
    both(("TORCH_NCCL_DEBUG_INFO_TEMP_FILE", "TORCH_FR_DUMP_TEMP_FILE"), str(workdir / "fr" / "nccl_trace_rank_"))
    default("TORCHELASTIC_ERROR_FILE", str(workdir / "elastic" / "error.json"))
    # torchrun reads its --log-dir from PET_LOG_DIR: per-rank error.json files land in our folder.
    default("PET_LOG_DIR", str(workdir / "torchelastic"))
    # Output of a crashing Python rank is lost in its buffer unless unbuffered.
    default("PYTHONUNBUFFERED", "1")
    for sub in ("nccl", "fr", "elastic", "torchelastic", "ras"):
        (workdir / sub).mkdir(parents=True, exist_ok=True)
    return env, added


RAS_TIMEOUT = 10.0  # ncclras's own default is 5 s; a large job's answer can take longer


class RasSampler(threading.Thread):
    """`ncclras` (NCCL >= 2.24, where it is on PATH) every `interval` seconds while the job runs,
    and once more on demand (a signal to a hung job): successive snapshots, each headed by
    '# ncclras snapshot at <time>', appended to ras/ncclras.txt. The engine diffs them."""

    def __init__(self, path: Path, interval: float, environ: Mapping[str, str]) -> None:
        super().__init__(daemon=True, name="ncclras")
        self.path = path
        self.interval = interval
        self.env = dict(environ)
        self.binary = shutil.which("ncclras", path=self.env.get("PATH"))
        self.stopped = threading.Event()
        self.lock = threading.Lock()

    def start(self) -> RasSampler:  # type: ignore[override]
        if self.binary and self.interval > 0:
            super().start()
        return self

    def run(self) -> None:
        while not self.stopped.wait(self.interval):
            self.snapshot()

    def snapshot(self, timeout: float = RAS_TIMEOUT) -> bool:
        if not self.binary:
            return False
        try:
            out = subprocess.run([self.binary, "-t", str(int(timeout))], capture_output=True, timeout=timeout + 2,
                                 env=self.env, check=False)
        except (OSError, subprocess.SubprocessError):
            return False
        if out.returncode != 0 or not out.stdout.strip():
            return False  # no NCCL job listening (not started yet, or gone)
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S")
        with self.lock, open(self.path, "ab") as f:
            f.write(f"# ncclras snapshot at {stamp}\n".encode() + out.stdout.rstrip(b"\n") + b"\n\n")
        return True

    def stop(self) -> None:
        self.stopped.set()


def exit_status(returncode: int) -> int:
    return 128 - returncode if returncode < 0 else returncode


class _Tee(threading.Thread):
    """Copies one child pipe to our own stream at once and, whole lines only, to the shared log."""

    def __init__(self, pipe: IO[bytes], echo: IO[bytes], log: IO[bytes], lock: threading.Lock) -> None:
        super().__init__(daemon=True)
        self.pipe, self.echo, self.log, self.lock = pipe, echo, log, lock

    def run(self) -> None:
        pending = b""
        fd = self.pipe.fileno()
        while chunk := os.read(fd, 65536):
            try:
                self.echo.write(chunk)
                self.echo.flush()
            except (OSError, ValueError):
                pass  # our own terminal went away; keep the log going
            pending += chunk
            complete, sep, pending = pending.rpartition(b"\n")
            if sep:
                with self.lock:
                    self.log.write(complete + sep)
                    self.log.flush()
        if pending:
            with self.lock:
                self.log.write(pending + b"\n")
                self.log.flush()


@dataclass
class RunOptions:
    command: list[str]
    server: str | None
    token: str | None
    job: str | None = None
    host: str | None = None
    workdir: Path | None = None
    keep: bool = False
    sample_interval: float = 5.0
    ras_interval: float = 60.0  # ncclras snapshots; 0: none
    spool: Path | None = None
    policy: RetryPolicy = field(default_factory=RetryPolicy)


def _say(msg: str) -> None:
    print(f"nccl-triage: {msg}", file=sys.stderr, flush=True)


def _user_paths(env: Mapping[str, str], added: list[str], started: float) -> list[Path]:
    """Files the user pointed the debug variables at outside our folder, written during this run."""
    patterns = []
    if "NCCL_DEBUG_FILE" not in added and env.get("NCCL_DEBUG_FILE"):
        patterns.append(env["NCCL_DEBUG_FILE"].replace("%%", "\0").replace("%h", "*").replace("%p", "*")
                        .replace("\0", "%"))
    for name in ("TORCH_FR_DUMP_TEMP_FILE", "TORCH_NCCL_DEBUG_INFO_TEMP_FILE"):
        if name not in added and env.get(name):
            patterns.append(env[name] + "*")
            break
    if "TORCHELASTIC_ERROR_FILE" not in added and env.get("TORCHELASTIC_ERROR_FILE"):
        patterns.append(env["TORCHELASTIC_ERROR_FILE"])
    found = []
    for pattern in patterns:
        for p in sorted(glob.glob(os.path.expanduser(pattern))):
            path = Path(p)
            if path.is_file() and path.stat().st_mtime >= started - 1:
                found.append(path)
    return found


_FAILURE_FIELD = re.compile(r"^\s+(?P<key>rank|error_file)\s*: (?P<value>.+?)\s*$")


def elastic_error_ranks(output: str) -> tuple[dict[str, int], int | None]:
    """From torchrun's ChildFailedError block: error_file path -> global rank, and the root cause's rank.

    torchelastic names per-worker error files by local rank only; the block in the agent's output
    is the one place that pairs each file with its global rank.
    """
    by_file: dict[str, int] = {}
    root: int | None = None
    rank: int | None = None
    in_root = False
    for line in output.splitlines():
        if line.startswith("Root Cause (first observed failure):"):
            in_root = True
        m = _FAILURE_FIELD.match(line)
        if not m:
            continue
        if m["key"] == "rank":
            rank = int(m["value"].split()[0]) if m["value"].split()[0].isdigit() else None
            if in_root and root is None:
                root = rank
        elif rank is not None and m["value"] != "<N/A>":
            by_file[os.path.realpath(m["value"])] = rank
    return by_file, root


def _name_elastic_ranks(files: list[BundleFile], output: Path, env: Mapping[str, str]) -> None:
    try:
        by_file, root = elastic_error_ranks(output.read_text(errors="replace"))
    except OSError:
        return
    agent_file = os.path.realpath(env.get("TORCHELASTIC_ERROR_FILE",
                                          "")) if env.get("TORCHELASTIC_ERROR_FILE") else None
    for f in files:
        if f.meta.get("kind") != "elastic_error" or "rank" in f.meta:
            continue
        real = os.path.realpath(f.path)
        if real in by_file:
            f.meta["rank"] = by_file[real]
        elif real == agent_file and root is not None:
            f.meta["rank"] = root   # the agent copies the root cause's error file to its own


def collect(workdir: Path, env: Mapping[str, str], added: list[str], started: float) -> list[BundleFile]:
    write_snapshot(workdir / "snapshot.json", dict(env))
    klog = read_kernel_log()
    if klog.text is not None:
        (workdir / "dmesg.txt").write_text(klog.text)
    # Empty placeholder folders say nothing; drop them so the manifest lists only evidence.
    for sub in ("nccl", "fr", "elastic", "torchelastic", "ras"):
        d = workdir / sub
        if d.is_dir() and not any(d.rglob("*")):
            d.rmdir()
    entries = sorted(workdir.iterdir()) + _user_paths(env, added, started)
    files = gather(entries)
    _name_elastic_ranks(files, workdir / "output.log", env)
    return files


def run(opts: RunOptions) -> int:
    host = opts.host or hostname()
    job = opts.job or job_id_from_env(os.environ) or f"{host}-{time.strftime('%Y%m%d-%H%M%S')}"
    workdir = opts.workdir or Path(tempfile.mkdtemp(prefix="nccl-triage-run-"))
    workdir.mkdir(parents=True, exist_ok=True)
    env, added = diagnostic_env(os.environ, workdir)
    if added:
        _say(f"set {', '.join(added)}; collecting into {workdir}")

    started = time.time()
    sampler = NvmlSampler(workdir / "nvml-samples.jsonl", opts.sample_interval, host).start()
    ras = RasSampler(workdir / "ras" / "ncclras.txt", opts.ras_interval, env).start()
    log = open(workdir / "output.log", "wb")  # noqa: SIM115 - closed in the finally below
    try:
        child = subprocess.Popen(opts.command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 start_new_session=True)
    except OSError as exc:
        sampler.stop()
        ras.stop()
        log.close()
        _say(f"cannot start {opts.command[0]!r}: {exc}")
        return 127 if isinstance(exc, FileNotFoundError) else 126

    # The child leads its own process group, so a terminal's Ctrl-C reaches it once, through us,
    # and torchrun plus all its workers get the signal together.
    signalled: list[int] = []

    def forward(signum: int, _frame: Any) -> None:
        if not signalled and ras.binary:
            # A hung job being stopped: NCCL's own view of it, while its processes still answer.
            ras.snapshot(timeout=5)
        signalled.append(signum)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(child.pid, signum)
    previous = {s: signal.signal(s, forward) for s in FORWARDED_SIGNALS}

    lock = threading.Lock()
    tees = [_Tee(child.stdout, sys.stdout.buffer, log, lock), _Tee(child.stderr, sys.stderr.buffer, log, lock)]  # type: ignore[arg-type]
    for t in tees:
        t.start()
    try:
        returncode = child.wait()
    finally:
        for s, h in previous.items():
            signal.signal(s, h)
    for t in tees:
        # A daemon the job left behind may hold the pipes open; do not wait for it forever.
        t.join(timeout=5)
    sampler.stop()
    ras.stop()
    log.close()
    status = exit_status(returncode)

    if status == 0:
        if opts.server and opts.token:
            flush_spool(server=opts.server, token=opts.token, spool=Spool(opts.spool or default_spool_dir()),
                        policy=RetryPolicy(attempts=1, timeout=opts.policy.timeout), log=_say)
        if not opts.keep and opts.workdir is None:
            shutil.rmtree(workdir, ignore_errors=True)
        return 0

    how = f"signal {-returncode}" if returncode < 0 else f"exit code {returncode}"
    _say(f"command failed ({how}); collecting snapshot and logs")
    files = collect(workdir, env, added, started)
    bundle = workdir.with_name(workdir.name + ".tar.gz")
    write_bundle(files, bundle, job=job, host=host)
    if not (opts.server and opts.token):
        _say(f"no --server/--token: bundle left at {bundle}")
        return status
    outcome: Outcome = deliver(bundle, server=opts.server, token=opts.token, job=job, host=host,
                               spool=Spool(opts.spool or default_spool_dir()), policy=opts.policy, log=_say)
    if outcome.ok:
        _say(f"incident: {outcome.url}")
        bundle.unlink(missing_ok=True)
    else:
        _say(f"upload failed: {outcome.error}; bundle at {outcome.spooled or bundle}")
    _say(f"collected files kept in {workdir}")
    return status

