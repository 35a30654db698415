"""`python -m collectors <command>`: snapshot, upload, run, smoke, gate."""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

from collectors import COLLECTOR
from collectors.bundle import gather, write_bundle
from collectors.environment import job_id_from_env
from collectors.gate import GateOptions, run_gate
from collectors.host import hostname
from collectors.run import RunOptions, run
from collectors.smoke import SmokeOptions, format_table, run_smoke
from collectors.snapshot import build_snapshot
from collectors.upload import RetryPolicy, Spool, default_spool_dir, deliver

EXIT_UPLOAD_REJECTED = 2
EXIT_SPOOLED = 3


def _add_server_args(p: argparse.ArgumentParser, required: bool) -> None:
    env_note = " (default: $NCCL_TRIAGE_SERVER)"
    p.add_argument("--server", default=os.environ.get("NCCL_TRIAGE_SERVER"),
                   help="dashboard base URL, e.g. https://triage.example.com" + env_note)
    p.add_argument("--token", default=os.environ.get("NCCL_TRIAGE_TOKEN"),
                   help="API token; prefer $NCCL_TRIAGE_TOKEN, which stays out of `ps`")
    p.add_argument("--job", help="job id naming the incident (default: $SLURM_JOB_ID, "
                                 "$TORCHELASTIC_RUN_ID, $PBS_JOBID, $LSB_JOBID, ...)")
    p.add_argument("--host", help="host name for the manifest (default: this node's hostname)")
    p.add_argument("--spool", type=Path, help=f"where bundles wait when the server is unreachable "
                                               f"(default: $NCCL_TRIAGE_SPOOL or {default_spool_dir()})")
    p.add_argument("--retries", type=int, default=6, help="upload attempts before spooling (default 6)")
    p.add_argument("--backoff", type=float, default=1.0,
                   help="first retry delay in seconds, doubled each time, with jitter (default 1)")
    p.set_defaults(server_required=required)


def _policy(args: argparse.Namespace) -> RetryPolicy:
    return RetryPolicy(attempts=max(1, args.retries), base_delay=args.backoff)


def _prog() -> str:
    """How the user started us: the installed `nccl-triage`, the zipapp, or `python -m collectors`."""
    name = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    if name == "nccl-triage" or name.endswith(".pyz"):
        return name
    return "python -m collectors"


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog=_prog(), description=f"{COLLECTOR}: gather and "
                                 "upload what explains a failed multi-GPU job.")
    ap.add_argument("--version", action="version", version=COLLECTOR)
    sub = ap.add_subparsers(dest="command", required=True)

    p = sub.add_parser("snapshot", help="print this node's snapshot (NVML, versions, env, host facts) as JSON",
                       description="Write one JSON document, schema nccl-triage/snapshot@1. Exits 0 "
                                   "without a GPU: the snapshot then says why NVML is unavailable.")
    p.add_argument("--out", type=Path, help="write to this file instead of stdout")

    p = sub.add_parser("upload", help="pack logs and snapshots into a bundle and upload it",
                       description="Pack files and folders into a .tar.gz with manifest.json and POST "
                                   "it to the server. Exit 0 uploaded, 2 rejected by the server, 3 "
                                   "server unreachable (the bundle is spooled and sent by the next run).")
    _add_server_args(p, required=True)
    p.add_argument("--no-snapshot", action="store_true", help="do not add a fresh snapshot.json of this node")
    p.add_argument("paths", nargs="*", type=Path, help="log files and folders (spooled bundles are sent too)")

    p = sub.add_parser("run", help="run a command (e.g. torchrun ...) and upload diagnostics if it fails",
                       usage="python -m collectors run [options] -- COMMAND [ARG ...]",
                       description="Sets NCCL_DEBUG=INFO, a per-process NCCL_DEBUG_FILE, timestamps, the "
                                   "flight recorder and TORCHELASTIC_ERROR_FILE unless already set; tees "
                                   "the output; samples NVML; on failure uploads a bundle and prints the "
                                   "incident URL. Exits with the command's status (128+N for signal N).")
    _add_server_args(p, required=False)
    p.add_argument("--workdir", type=Path, help="collect into this folder (kept); default: a temporary "
                                                "folder, removed when the command succeeds")
    p.add_argument("--keep", action="store_true", help="keep the collected files after a success")
    p.add_argument("--sample-interval", type=float, default=5.0, help="seconds between NVML samples (default 5)")
    p.add_argument("--ras-interval", type=float, default=60.0,
                   help="seconds between ncclras snapshots where ncclras is on PATH (default 60; 0: none)")
    p.add_argument("cmd", nargs=argparse.REMAINDER, help="the command, after --")

    p = sub.add_parser("smoke", help="all-reduce health check of this node; non-zero exit on failure",
                       description="Start one process per GPU (nccl) or 2 CPU processes (gloo), all-reduce a "
                                   "few MiB a few times, print per-rank status and bus bandwidth.")
    p.add_argument("--nproc", type=int, help="ranks (default: GPU count, or 2 with gloo)")
    p.add_argument("--backend", choices=("auto", "nccl", "gloo"), default="auto")
    p.add_argument("--size-mb", type=float, default=4.0, help="MiB per all-reduce (default 4)")
    p.add_argument("--iters", type=int, default=5, help="timed all-reduces (default 5)")
    p.add_argument("--timeout", type=float, default=120.0, help="seconds per rank (default 120)")
    p.add_argument("--json", action="store_true", help="print the nccl-triage/smoke@1 JSON instead of a table")
    p.add_argument("--upload", action="store_true", help="upload the result as this host's health record")
    _add_server_args(p, required=False)

    p = sub.add_parser("gate", help="may this node take a job? (Slurm prolog, Kubernetes init container)",
                       description="Ask the dashboard whether this host is recommended for drain, then run "
                                   "the smoke all-reduce. Exit 0: the node may take the job; 1: the smoke "
                                   "failed; 2: drain recommended; 3: the server could not be asked (--strict). "
                                   "Prints one line; never takes longer than --timeout.")
    p.add_argument("--server", default=os.environ.get("NCCL_TRIAGE_SERVER"),
                   help="dashboard base URL (default: $NCCL_TRIAGE_SERVER; none: smoke only)")
    p.add_argument("--token", default=os.environ.get("NCCL_TRIAGE_TOKEN"),
                   help="API token with the read scope; prefer $NCCL_TRIAGE_TOKEN")
    p.add_argument("--host", help="host name as the incidents know it (default: this node's hostname)")
    p.add_argument("--timeout", type=float, default=60.0, help="seconds for the whole check (default 60)")
    p.add_argument("--no-smoke", action="store_true", help="only ask the server")
    p.add_argument("--strict", action="store_true", help="refuse the node when the server cannot be asked")
    p.add_argument("--backend", choices=("auto", "nccl", "gloo"), default="auto")
    p.add_argument("--nproc", type=int, help="smoke ranks (default: GPU count, or 2 with gloo)")
    p.add_argument("--size-mb", type=float, default=4.0, help="MiB per smoke all-reduce (default 4)")
    p.add_argument("--iters", type=int, default=5, help="smoke all-reduces (default 5)")
    return ap


def _need_server(args: argparse.Namespace, ap: argparse.ArgumentParser) -> None:
    if not args.server or not args.token:
        ap.error("--server and --token are required (or $NCCL_TRIAGE_SERVER / $NCCL_TRIAGE_TOKEN)")


def _upload_files(args: argparse.Namespace, paths: list[Path], job: str, host: str, *,
                  url_to_stderr: bool = False, ranks: dict[Path, int] | None = None) -> int:
    """`ranks`: the rank of each file this collector wrote itself for a process it started
    (smoke's per-rank logs); no rank is ever read from a file's name."""
    files = gather(paths)
    for f in files:
        if ranks and f.path in ranks:
            f.meta["rank"] = ranks[f.path]
    with tempfile.TemporaryDirectory(prefix="nccl-triage-") as tmp:
        bundle = Path(tmp, f"{job}-{host}.tar.gz".replace("/", "_"))
        write_bundle(files, bundle, job=job, host=host)
        outcome = deliver(bundle, server=args.server, token=args.token, job=job, host=host,
                          spool=Spool(args.spool or default_spool_dir()), policy=_policy(args))
    if outcome.ok:
        if url_to_stderr:   # stdout already holds a document (smoke --json) that must stay parseable
            print(f"nccl-triage: uploaded: {outcome.url}", file=sys.stderr)
        else:
            print(outcome.url)
        return 0
    print(f"nccl-triage: {outcome.error}", file=sys.stderr)
    return EXIT_SPOOLED if outcome.spooled else EXIT_UPLOAD_REJECTED


def cmd_snapshot(args: argparse.Namespace) -> int:
    snapshot = build_snapshot()
    nvml = snapshot.get("nvml") or {}
    if not nvml.get("available") or not nvml.get("gpus"):
        # stdout stays the JSON alone; the person at the terminal still learns it has no GPU data.
        reason = nvml.get("reason") or "NVML found no GPU"
        print(f"nccl-triage: no GPU readings in this snapshot: {reason}", file=sys.stderr)
    text = json.dumps(snapshot, indent=2) + "\n"
    if args.out:
        args.out.write_text(text)
    else:
        sys.stdout.write(text)
    return 0


def cmd_upload(args: argparse.Namespace) -> int:
    host = args.host or hostname()
    job = args.job or job_id_from_env(os.environ) or f"{host}-manual"
    with tempfile.TemporaryDirectory(prefix="nccl-triage-snap-") as tmp:
        paths = list(args.paths)
        if not args.no_snapshot and not any(f.meta.get("kind") == "snapshot" for f in gather(paths)):
            snap = Path(tmp, "snapshot.json")
            snap.write_text(json.dumps(build_snapshot(), indent=2) + "\n")
            paths.append(snap)
        return _upload_files(args, paths, job, host)


def cmd_run(args: argparse.Namespace, ap: argparse.ArgumentParser) -> int:
    command = args.cmd[1:] if args.cmd[:1] == ["--"] else args.cmd
    if not command:
        ap.error("run needs a command after --")
    return run(RunOptions(command=command, server=args.server, token=args.token, job=args.job,
                          host=args.host, workdir=args.workdir, keep=args.keep,
                          sample_interval=args.sample_interval, ras_interval=args.ras_interval, spool=args.spool,
                          policy=_policy(args)))


def cmd_smoke(args: argparse.Namespace, ap: argparse.ArgumentParser) -> int:
    if args.upload:
        _need_server(args, ap)
    logdir = Path(tempfile.mkdtemp(prefix="nccl-triage-smoke-"))
    try:
        result = run_smoke(SmokeOptions(nproc=args.nproc, backend=args.backend, size_mb=args.size_mb,
                                        iters=args.iters, timeout=args.timeout, logdir=logdir))
        print(json.dumps(result, indent=2) if args.json else format_table(result), flush=True)
        if args.upload:
            host = args.host or hostname()
            (logdir / "smoke.json").write_text(json.dumps(result, indent=2) + "\n")
            (logdir / "snapshot.json").write_text(json.dumps(build_snapshot(), indent=2) + "\n")
            paths = sorted(p for p in logdir.iterdir() if not p.name.startswith("smoke-rank") or p.suffix == ".log")
            # smoke started each rank and wrote its log itself: it knows whose each file is.
            ranks = {logdir / f"smoke-rank{r['rank']}.log": int(r["rank"]) for r in result["ranks"]}
            rc = _upload_files(args, paths, args.job or f"smoke-{host}", host, url_to_stderr=True, ranks=ranks)
            if rc != 0:
                return rc
        return 0 if result["ok"] else 1
    finally:
        shutil.rmtree(logdir, ignore_errors=True)


def cmd_gate(args: argparse.Namespace, ap: argparse.ArgumentParser) -> int:
    if args.timeout <= 0:
        ap.error("--timeout must be positive")
    result = run_gate(GateOptions(host=args.host or hostname(), server=args.server, token=args.token,
                                  timeout=args.timeout, smoke=not args.no_smoke, backend=args.backend,
                                  nproc=args.nproc, size_mb=args.size_mb, iters=args.iters, strict=args.strict))
    print(f"nccl-triage gate: {'OK' if result.code == 0 else 'REFUSED'}: {result.reason}",
          file=sys.stdout if result.code == 0 else sys.stderr, flush=True)
    return result.code


def main(argv: list[str] | None = None) -> int:
    ap = parser()
    args = ap.parse_args(argv)
    if args.command == "snapshot":
        return cmd_snapshot(args)
    if args.command == "upload":
        _need_server(args, ap)
        return cmd_upload(args)
    if args.command == "run":
        return cmd_run(args, ap)
    if args.command == "gate":
        return cmd_gate(args, ap)
    return cmd_smoke(args, ap)
