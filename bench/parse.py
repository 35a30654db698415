#!/usr/bin/env python
"""Parse throughput and memory of the engine, against `grep -cE` over the same bytes.

Generates a 64-rank bundle of NCCL_DEBUG=INFO-heavy logs (COLL lines for every collective,
init and channel lines, torch watchdog lines; rank 37 hits CUDA OOM near the end), then, in
the same run and pinned to the same single core:
  - `grep -cE -f <the engine's own keyword set>` over the files (LC_ALL=C),
  - `manage.py diagnose --json` over the folder, in a child process (peak RSS from rusage),
and prints MB/s for both, their ratio, and the engine's peak RSS.

    .venv/bin/python bench/parse.py                 # 1 GiB
    .venv/bin/python bench/parse.py --gib 4         # 4 GiB (needs the disk)
    .venv/bin/python bench/parse.py --engine python # force the pure-Python prefilter

Targets (issue 2): engine >= 0.25x grep on one core; peak RSS < 200 MB at 1 GiB and 4 GiB.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from triage.engine.scan import KEYWORDS  # noqa: E402

RANKS = 64
HOSTS = 8
CULPRIT = 37


def ere(pattern: str) -> str:
    """The keyword in POSIX ERE, for grep -E (no non-capturing groups there)."""
    return pattern.replace("(?:", "(")


def write_rank(path: Path, rank: int, target_bytes: int, seed: int) -> None:
    rng = random.Random(seed * 1000 + rank)
    host = f"gpu-node-{rank // (RANKS // HOSTS):02d}"
    pid = 40000 + rank
    dev = rank % (RANKS // HOSTS)
    bus = f"{0x18 + dev * 0x10:x}000"
    p = f"{host}:{pid}:{pid + 77} [{dev}] NCCL INFO "
    head = [
        f"{host}:{pid}:{pid} [{dev}] NCCL INFO Bootstrap : Using eth0:10.0.{rank // 8}.{rank % 8 + 10}<0>",
        f"{host}:{pid}:{pid} [{dev}] NCCL INFO cudaDriverVersion 12040",
        f"{host}:{pid}:{pid} [{dev}] NCCL INFO NCCL version 2.21.5+cuda12.4",
        p + "NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [RO]; OOB eth0:10.0.0.1<0>",
        p + "Using network IB",
        p + f"ncclCommInitRank comm 0x5561{rank:04x}0 rank {rank} nranks {RANKS} cudaDev {dev} nvmlDev {dev} busId {bus} commId 0x9f3c1e2d4b5a6978 - Init START",
    ]
    for ch in range(16):
        nxt = (rank + 1) % RANKS
        head.append(p + f"Channel {ch:02d}/0 : {rank}[{dev}] -> {nxt}[{(dev + 1) % 8}] via P2P/CUMEM/read")
    head.append(p + f"ncclCommInitRank comm 0x5561{rank:04x}0 rank {rank} nranks {RANKS} cudaDev {dev} nvmlDev {dev} busId {bus} commId 0x9f3c1e2d4b5a6978 - Init COMPLETE")
    head.append(p + "Connected all rings, use ring PXN 0 GDR 1")
    ops = ("AllReduce", "AllGather", "ReduceScatter", "Broadcast")
    with open(path, "w", encoding="ascii") as out:
        out.write("\n".join(head) + "\n")
        written = sum(len(x) + 1 for x in head)
        op_count = 0
        chunk: list[str] = []
        while written < target_bytes - 4096:
            op_count += 1
            op = ops[op_count % 4]
            line = (
                f"{p}{op}: opCount {op_count:x} sendbuff 0x7f3a{rng.getrandbits(24):06x}00 recvbuff 0x7f3b{rng.getrandbits(24):06x}00 "
                f"count {rng.choice((1, 262144, 1048576, 4194304))} datatype 7 op 0 root 0 comm 0x5561{rank:04x}0 [nranks={RANKS}] stream 0x55e1c2a4d0\n"
            )
            chunk.append(line)
            written += len(line)
            if len(chunk) >= 4096:
                out.write("".join(chunk))
                chunk.clear()
        out.write("".join(chunk))
        seq = op_count
        if rank == CULPRIT:
            out.write("Traceback (most recent call last):\n  File \"train.py\", line 212, in <module>\n    loss.backward()\n")
            out.write(f"[rank{rank}]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU {dev} has a total capacity of 79.10 GiB of which 1.12 GiB is free.\n")
        else:
            out.write(
                f"[rank{rank}]:[E1201 14:32:{rank % 60:02d}.123456789 ProcessGroupNCCL.cpp:616] [Rank {rank}] Watchdog caught collective operation timeout: "
                f"WorkNCCL(SeqNum={seq}, OpType=ALLREDUCE, NumelIn=4194304, NumelOut=4194304, Timeout(ms)=600000) ran for 600031 milliseconds before timing out.\n"
            )


def generate(root: Path, total_bytes: int, seed: int = 0) -> None:
    per_rank = total_bytes // RANKS
    root.mkdir(parents=True, exist_ok=True)
    for rank in range(RANKS):
        host = f"gpu-node-{rank // (RANKS // HOSTS):02d}"
        (root / host).mkdir(exist_ok=True)
        write_rank(root / host / f"rank{rank}.log", rank, per_rank, seed)


def dir_bytes(root: Path) -> int:
    return sum(p.stat().st_size for p in root.rglob("*") if p.is_file())


def pin() -> list[str]:
    return ["taskset", "-c", "0"] if shutil.which("taskset") else []


def child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def time_grep(root: Path, patterns: Path) -> float:
    """CPU seconds grep spent (user + system): on a shared machine, CPU time is what compares."""
    files = sorted(str(p) for p in root.rglob("*.log"))
    env = dict(os.environ, LC_ALL="C")
    before = child_cpu()
    done = subprocess.run(pin() + ["grep", "-cE", "-f", str(patterns), *files], env=env, stdout=subprocess.PIPE, check=False)
    if done.returncode not in (0, 1):
        raise SystemExit(f"grep failed with exit code {done.returncode}")
    return child_cpu() - before


def time_engine(root: Path, engine: str | None) -> tuple[float, int, dict]:
    env = dict(os.environ)
    env.pop("DATABASE_URL", None)
    code = (
        "import json, resource, sys, time\n"
        "from triage.engine import scan\n"
        f"engine = {engine!r}\n"
        "if engine: scan._PREFILTER = scan.prefilter(prefer=engine)\n"
        "from triage.engine import diagnose\n"
        "t = time.perf_counter()\n"
        "d = diagnose(sys.argv[1]).to_dict()\n"
        "elapsed = time.perf_counter() - t\n"
        "rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "f = d['findings'][0] if d['findings'] else {}\n"
        "print(json.dumps({'elapsed': elapsed, 'rss_kb': rss, 'engine': scan.prefilter().engine if not engine else engine,"
        " 'cause': f.get('cause'), 'rank': (d['first_failure'] or {}).get('rank')}))\n"
    )
    before = child_cpu()
    out = subprocess.run(pin() + [sys.executable, "-c", code, str(root)], cwd=REPO, env=env, capture_output=True, text=True, check=True)
    cpu = child_cpu() - before
    result = json.loads(out.stdout.strip().splitlines()[-1])
    return cpu, result["rss_kb"], result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gib", type=float, default=1.0, help="bundle size in GiB (default 1)")
    parser.add_argument("--engine", choices=("hyperscan", "re2", "python"), default=None, help="force a prefilter engine")
    parser.add_argument("--dir", type=Path, default=None, help="where to write the bundle (default: a temp dir, removed after)")
    parser.add_argument("--keep", action="store_true", help="keep the generated bundle")
    args = parser.parse_args()

    root = args.dir or Path(tempfile.mkdtemp(prefix="nccl-triage-bench-"))
    try:
        t = time.perf_counter()
        generate(root, int(args.gib * 1024**3))
        size = dir_bytes(root)
        print(f"bundle: {RANKS} ranks, {size / 1e6:.0f} MB in {root} (generated in {time.perf_counter() - t:.1f} s)")
        patterns = root.parent / f"{root.name}.patterns"
        patterns.write_text("\n".join(ere(k) for k in KEYWORDS) + "\n")
        # Warm the page cache for both, then measure each twice and keep the best.
        time_grep(root, patterns)
        grep_s = min(time_grep(root, patterns) for _ in range(2))
        runs = [time_engine(root, args.engine) for _ in range(2)]
        eng_s = min(r[0] for r in runs)
        rss_mb = max(r[1] for r in runs) / 1024
        info = runs[0][2]
        grep_mbs = size / 1e6 / grep_s
        eng_mbs = size / 1e6 / eng_s
        print(f"grep -cE (same keyword set, LC_ALL=C, 1 core): {grep_s:6.2f} CPU s  {grep_mbs:7.0f} MB/s")
        print(f"engine ({info['engine']} prefilter, 1 core, incl. start-up): {eng_s:6.2f} CPU s  {eng_mbs:7.0f} MB/s"
              f"  (diagnose() alone: {min(r[2]['elapsed'] for r in runs):.2f} s wall)")
        print(f"ratio engine/grep: {eng_mbs / grep_mbs:.2f}x   (target >= 0.25x)")
        print(f"engine peak RSS:   {rss_mb:.0f} MB   (target < 200 MB)")
        print(f"verdict: {info['cause']} on rank {info['rank']} (expected oom on rank {CULPRIT})")
        patterns.unlink(missing_ok=True)
    finally:
        if not args.keep and args.dir is None:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
