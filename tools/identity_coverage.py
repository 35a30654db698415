"""How many of the identity and time formats each program writes have an identity-catalog entry,
per source (the model: tools/catalog_coverage.py for the message catalog).

    python tools/identity_coverage.py [--mirror /work/.mirror] [--torch DIR] [--gaps] [--json out.json]

Each source lists the formats the program writes in front of, or around, a job's lines (a
launcher's prefix, a logger's header, an exit report, a time format), each with the literal its
source file prints it with: the literal is looked up in the fetched source (a git directory
without a work tree, `git show <ref>:<path>`; the installed torch and CPython for theirs), so a
format the program no longer writes shows as `not in source`. A format "has an entry" when an
entry of triage/engine/identity/ reads the line the program prints (the line given here, read
by the entry itself: its pattern, its checks) and yields the fields named. A format with no
entry is a gap: the engine reads no identity or time from it.
"""
from __future__ import annotations

import argparse
import json
import logging
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from triage.engine import identity  # noqa: E402
from triage.engine.demux import peel_one  # noqa: E402


@dataclass(frozen=True)
class Format:
    label: str
    path: str  # the file in the source that prints it
    literal: str  # what that file holds where it prints it
    line: str  # a line as the program prints it
    fields: tuple[str, ...]  # what the line must yield


@dataclass(frozen=True)
class Source:
    name: str
    where: str  # mirror folder ("owner+name"), "torch" or "python"
    ref: str
    formats: tuple[Format, ...]


F = Format
OMPI = Source("Open MPI (ORTE, v4.1.x)", "open-mpi+ompi", "v4.1.x", (
    F("--tag-output", "orte/mca/iof/base/iof_base_output.c", '"[%s,%s]<%s>:"', "[1,3]<stderr>:boom", ("rank",)),
    F("--timestamp-output --tag-output", "orte/mca/iof/base/iof_base_output.c", '"%s[%s,%s]<%s>:"',
      "Wed Dec  2 09:11:04 2026[1,3]<stderr>:boom", ("time", "rank")),
    F("--timestamp-output", "orte/mca/iof/base/iof_base_output.c", '"%s<%s>:"', "Wed Dec  2 09:11:04 2026<stdout>:x",
      ("time",)),
    F("--xml-output", "orte/mca/iof/base/iof_base_output.c", '"<%s rank=\\"%s\\">"', '<stdout rank="3">boom</stdout>',
      ("rank",)),
    F("signal handler host:pid", "opal/util/stacktrace.c", "[%s:%05d] ",
      "[node-a:04242] Signal: Segmentation fault (11)", ("host", "pid")),
    F("exit report: non-zero exit", "orte/tools/orterun/help-orterun.txt", "Process name: %s",
      "  Process name: [[25735,1],1]", ("rank",)),
    F("exit report: exited on signal", "orte/tools/orterun/help-orterun.txt",
      "noticed that process rank %lu with PID %lu on node %s exited on signal",
      "mpirun noticed that process rank 8 with PID 4242 on node node-b exited on signal 11 (Segmentation fault).",
      ("rank", "pid", "host")),
    F("exit report: exited improperly", "orte/tools/orterun/help-orterun.txt",
      "has exited due to process rank %lu with PID %lu on",
      "mpirun has exited due to process rank 2 with PID 77 on node gpu3 exiting improperly.", ("rank", "pid", "host")),
))
PMIX = Source("PMIx (Open MPI >= 5, prterun)", "openpmix+openpmix", "HEAD", (
    F("--output tag", "src/common/pmix_iof.c", '"[%s,%s]<%s>: "', "[1,3]<stdout>: x", ("rank",)),
    F("--output tag-detailed", "src/common/pmix_iof.c", '"[%s,%s][%s:%s]<%s>: "', "[1,2][node-b:4242]<stderr>: x",
      ("rank", "host", "pid")),
    F("--output tag-fullname", "src/common/pmix_iof.c", '"[%s,%s]<%s>: "', "[prterun-node-a-12345@1,7]<stdout>: x",
      ("rank",)),
    F("--output rank", "src/common/pmix_iof.c", '"[%s]<%s>: "', "[3]<stdout>: x", ("rank",)),
    F("--output timestamp with a tag", "src/common/pmix_iof.c", '"[%s]", cptr',
      "[Wed Dec  2 09:11:04 2026][1,3]<stderr>: x", ("time", "rank")),
))
PRRTE = Source("PRRTE (prterun)", "openpmix+prrte", "HEAD", (
    F("exit report: non-zero exit", "src/mca/schizo/prte/help-prun.txt", "Process name: %s",
      "   Process name: [prterun-node-a-12345@1,3]", ("rank",)),
))
DMESG = Source("util-linux dmesg", "util-linux+util-linux", "HEAD", (
    F("--time-format raw (default)", "sys-utils/dmesg.c", '"[%5ld.%06ld] "', "[ 1118.873266] NVRM: x", ("uptime",)),
    F("raw (/dev/kmsg, -r)", "sys-utils/dmesg.c", '"<%d>[%5ld.%06ld] "', "<4>[ 1118.873266] NVRM: x", ("uptime",)),
    F("raw with delta (-d)", "sys-utils/dmesg.c", '"[%5ld.%06ld <%12.06f>] "', "[ 1118.873266 <    0.000123>] NVRM: x",
      ("uptime",)),
    F("--time-format ctime (-T)", "sys-utils/dmesg.c", '"[%s] "', "[Wed Dec  2 09:11:04 2026] NVRM: x", ("time",)),
    F("ctime with delta", "sys-utils/dmesg.c", '"[%s <%12.06f>] "', "[Wed Dec  2 09:11:04 2026 <    0.000123>] NVRM: x",
      ("time",)),
    F("--time-format iso", "sys-utils/dmesg.c", "ISO_TIMESTAMP_COMMA_T", "2026-12-02T09:11:04,123456+01:00 NVRM: x",
      ("time", "zone")),
    F("--time-format reltime (-e)", "sys-utils/dmesg.c", '"%b%e %H:%M"', "[Dec 2 09:11] NVRM: x", ("time",)),
    # The delta alone is no clock (seconds since the previous message): its entry yields the delta.
    F("--time-format delta", "sys-utils/dmesg.c", '"[<%12.06f>] "', "[<    0.000123>] NVRM: x", ("delta",)),
))
NCCL = Source("NCCL", "NVIDIA+nccl", "HEAD", (
    F("debug prefix host:pid:tid [dev]", "src/debug.cc", '"%s:%d:%d "', "node-a:4242:4300 [3] NCCL INFO Init COMPLETE",
      ("host", "pid", "tid", "device")),
    F("NCCL_DEBUG_TIMESTAMP_FORMAT default", "src/debug.cc", '"[%F %T] "',
      "[2026-05-05 06:16:47] node-a:4242:4300 [3] NCCL INFO x", ("time",)),
))
TORCH = Source("PyTorch (torchrun / elastic)", "torch", "", (
    F("tail_log role prefix [roleN]:", "distributed/elastic/multiprocessing/tail_log.py", "[{name}{idx}]:",
      "[default3]:hello", ("local_rank",)),
    F("failure table rank row", "distributed/elastic/multiprocessing/errors/__init__.py",
      "rank      : ${rank} (local_rank: ${local_rank})", "  rank      : 13 (local_rank: 5)", ("rank", "local_rank")),
    F("failure table host row", "distributed/elastic/multiprocessing/errors/__init__.py", "host      : ${hostname}",
      "  host      : node-b", ("host",)),
    F("failure table exitcode row", "distributed/elastic/multiprocessing/errors/__init__.py",
      "exitcode  : ${exitcode} (pid: ${pid})", "  exitcode  : 1 (pid: 620208)", ("pid",)),
    F("agent: failed local_rank", "distributed/elastic/multiprocessing/api.py", "local_rank: %s (pid: %s) of",
      "failed (exitcode: -11) local_rank: 0 (pid: 2128869) of binary: /usr/bin/python", ("local_rank", "pid")),
))
PYTHON = Source("CPython logging", "python", "", (
    F("Formatter default asctime", "logging/__init__.py", "default_time_format = '%Y-%m-%d %H:%M:%S'",
      "2026-12-02 09:11:04,123 - INFO - x", ("time",)),
))
JOURNAL = Source("systemd journalctl output modes (man journalctl; no source fetched: too large)", "none", "", tuple(
    F(f"-o {mode}", "", "", line, fields) for mode, line, fields in (
        ("short", "Dec 02 09:11:04 node-b kernel: x", ("time", "host")),
        ("short-precise", "Dec 02 09:11:04.123456 node-b kernel: x", ("time", "host")),
        ("short-iso", "2026-12-02T09:11:04+0000 node-b kernel: x", ("time", "host")),
        ("short-iso-precise", "2026-12-02T09:11:04.123456+00:00 node-b kernel: x", ("time", "host")),
        ("short-full", "Wed 2026-12-02 09:11:04 UTC node-b kernel: x", ("time", "zone", "host")),
        ("short-monotonic", "[ 1118.873266] node-b kernel: x", ("uptime", "host")),
        ("short-unix", "1733130664.123456 node-b kernel: x", ("time", "host")),
        ("with-unit", "Wed 2026-12-02 09:11:04 UTC node-b systemd[1]: x", ("time", "zone", "host")),
    )))
SYSLOG = Source("syslog RFCs", "none", "", (
    F("RFC 3164", "", "", "<34>Oct 11 22:14:15 mymachine su: x", ("time", "host")),
    F("RFC 5424", "", "", "<165>1 2026-12-02T09:11:04.003Z node-b kernel - - - x", ("time", "host")),
))
# Programs whose sources were not fetched here (too large, or not on GitHub's snapshot list):
# their formats as their documentation and source files (named in each entry) print them.
UNFETCHED = tuple(Source(name, "none", "", tuple(F(label, "", "", line, fields) for label, line, fields in formats))
                  for name, formats in (
    ("torchrun / c10 logger (torch.distributed.run --tee)", (
        ("[rankN]: global rank", "[rank3]:[E1202 09:11:04.123456789 ProcessGroupNCCL.cpp:1] x", ("rank",)),
        ("c10d [PG 0 Rank N] / [Rank N] tag", "[PG ID 0 PG GUID 0(default_pg) Rank 3] Watchdog caught", ("rank",)),
    )),
    ("Slurm srun", (
        ("--label", "12: RuntimeError: boom", ("task",)),
        ("task exit report", "srun: error: node-b: task 5: Exited with exit code 1", ("host", "task")),
    )),
    ("Lightning", (("rank_prefixed_message", "[rank: 1] Seed set to 42", ("rank",)),)),
    ("Ray", (("worker prefix", "(RayTrainWorker pid=4242, ip=10.0.0.2) boom", ("pid",)),)),
    ("vLLM", (("worker prefix", "(VllmWorker rank=2 pid=42) INFO 04-22 15:53:32 x", ("rank", "pid")),
              ("logger time", "INFO 04-22 15:53:32 utils.py:580] x", ("time",)))),
    ("SGLang", (("process prefix", "[2025-02-07 01:19:40 TP3] x", ("time", "tp_rank")),)),
    ("glog", (("LogMessage header", "E1202 09:11:04.123456 4242 socket.cpp:1] x", ("time",)),)),
    ("Kubernetes", (("kubectl logs --timestamps", "2026-12-02T09:11:04.123456789Z boom", ("time",)),
                    ("CRI container log", "2026-12-02T09:11:04.123456789Z stderr F boom", ("time",)))),
    ("Docker", (("json-file driver", '{"log": "boom\\n", "stream": "stderr", "time": "2026-12-02T09:11:04Z"}', ()),
                ("compose prefix", "trainer-worker-1  | boom", ()))),
))
HYDRA = Source("MPICH / Intel MPI Hydra", "pmodels+mpich", "HEAD", (
    F("BAD TERMINATION report", "src/pm/hydra/mpiexec/pmiserv_cb.c", "PID %d RUNNING AT %s",
      "=   RANK 3 PID 4242 RUNNING AT node-b", ("rank", "pid", "host")),
    F("-prepend-rank", "src/pm/hydra/mpiexec/options.c", '"[%r] "', "[3] RuntimeError: boom", ("rank",)),
))
HOROVOD = Source("Horovod (Gloo launcher)", "horovod+horovod", "HEAD", (
    F("[rank]<stream>:", "horovod/runner/common/util/safe_shell_exec.py", "'{time}[{rank}]<{prefix}>:'",
      "[2]<stderr>:boom", ("rank",)),
))
DEEPSPEED = Source("DeepSpeed", "microsoft+DeepSpeed", "HEAD", (
    F("log_dist [Rank N]", "deepspeed/utils/logging.py", '"[Rank {}] {}"',
      "[2026-12-02 09:11:04,123] [INFO] [logging.py:96:log_dist] [Rank 3] x", ("rank",)),
))
ACCELERATE = Source("accelerate", "huggingface+accelerate", "HEAD", (
    F("MultiProcessAdapter [RANK N]", "src/accelerate/logging.py", 'f"[RANK {state.process_index}] {msg}"',
      "12/02/2026 09:11:04 - INFO - __main__ - [RANK 3] x", ("rank",)),
    F("examples' logging datefmt", "examples/by_feature/megatron_lm_gpt_pretraining.py", 'datefmt="%m/%d/%Y %H:%M:%S"',
      "12/02/2026 09:11:04 - INFO - __main__ - x", ("time",)),
))
TGI = Source("TGI (text-generation-launcher)", "huggingface+text-generation-inference", "HEAD", (
    F("shard-manager span, compact output", "launcher/src/main.rs", '"shard-manager", rank = rank',
      "2026-12-02T09:11:04.123456Z  INFO shard-manager: text_generation_launcher: Waiting for shard to be ready... "
      "rank=3", ("time", "rank")),
))
NCCL_TESTS = Source("nccl-tests", "NVIDIA+nccl-tests", "HEAD", (
    F("device table", "src/util.cu", '"#  Rank %2d Group %2d Pid %6d on %10s device %2d [%04x:%02x:%02x] %s\\n"',
      "#  Rank  2 Group  0 Pid 888386 on      g0010 device  0 [0000:1b:00] NVIDIA H100 80GB HBM3",
      ("rank", "pid", "host", "device")),
    F("CUDACHECK failure", "src/common.h", "\"%s: Test CUDA failure %s:%d '%s'\\n\"",
      "g0010: Test CUDA failure common.cu:941 'invalid device ordinal'", ("host",)),
    F("TESTCHECK trail", "src/common.h", '" .. %s pid %d: Test failure %s:%d\\n"',
      " .. g0010 pid 888386: Test failure common.cu:891", ("pid",)),
))
KUBECTL = Source("kubectl", "kubernetes+kubectl", "HEAD", (
    F("logs --prefix", "pkg/cmd/logs/logs.go", '"[pod/%s/%s] "', "[pod/trainer-worker-1/pytorch] boom", ("host",)),
))
SOURCES = (OMPI, PMIX, PRRTE, DMESG, NCCL, TORCH, PYTHON, JOURNAL, SYSLOG, HYDRA, HOROVOD, DEEPSPEED, ACCELERATE, TGI,
           NCCL_TESTS, KUBECTL, *UNFETCHED)


def _source_text(src: Source, path: str, mirror: Path, torch_dir: Path | None) -> str | None:
    if src.where == "none":
        return None
    if src.where == "torch":
        return (torch_dir / path).read_text() if torch_dir and (torch_dir / path).exists() else None
    if src.where == "python":
        return (Path(logging.__file__).parents[1] / path).read_text()
    repo = mirror / src.where / "repo"
    if not repo.exists():
        return None
    done = subprocess.run(["git", "-C", str(repo), "show", f"{src.ref}:{path}"], capture_output=True, text=True,
                          check=False)
    return done.stdout if done.returncode == 0 else None


def _yields(entry: identity.Entry, line: str) -> set[str]:
    """The fields an entry reads of a line (a prefix with its checks; others by search)."""
    if entry.kind == "prefix":
        peeled = peel_one(entry, line)
        if peeled is None:
            return set()
        m = entry.regex.match(line)
    else:
        m = entry.regex.search(line)
    return {f for f in entry.fields if m is not None and m[f] is not None}


def reader_of(fmt: Format) -> str | None:
    """The entry that reads all the fields of the format's line (a prefix that peels it, where
    the format yields nothing but its own removal), if one does."""
    for entry in identity.catalog():
        if fmt.fields and set(fmt.fields) <= _yields(entry, fmt.line):
            return entry.id
        if not fmt.fields and entry.kind == "prefix" and peel_one(entry, fmt.line) is not None:
            return entry.id
    return None


def coverage(mirror: Path, torch_dir: Path | None) -> list[dict[str, Any]]:
    rows = []
    for src in SOURCES:
        items = []
        for fmt in src.formats:
            text = _source_text(src, fmt.path, mirror, torch_dir) if fmt.path else None
            in_source = None if text is None else fmt.literal in text
            items.append({"format": fmt.label, "in_source": in_source, "entry": reader_of(fmt), "line": fmt.line})
        rows.append({"source": src.name, "formats": items})
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mirror", type=Path, default=Path("/work/.mirror"))
    parser.add_argument("--torch", type=Path, default=None, help="the installed torch package (default: import it)")
    parser.add_argument("--gaps", action="store_true", help="list the formats without an entry")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    torch_dir = args.torch
    if torch_dir is None:
        import importlib.util

        spec = importlib.util.find_spec("torch")
        torch_dir = Path(spec.origin).parent if spec and spec.origin else None
    rows = coverage(args.mirror, torch_dir)
    total = covered = 0
    for row in rows:
        items = row["formats"]
        have = sum(1 for i in items if i["entry"])
        total, covered = total + len(items), covered + have
        missing_source = sum(1 for i in items if i["in_source"] is False)
        note = f", {missing_source} not in source" if missing_source else ""
        unread = " (source not read)" if all(i["in_source"] is None for i in items) else ""
        print(f"{row['source']:<72} {have:>2}/{len(items):<2} have an entry{note}{unread}")
        for i in items:
            if args.gaps and not i["entry"]:
                print(f"    gap: {i['format']}: {i['line']}")
            if i["in_source"] is False:
                print(f"    not in source: {i['format']}")
    print(f"{'all':<72} {covered:>2}/{total:<2}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
