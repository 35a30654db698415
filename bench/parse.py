#!/usr/bin/env python
"""Parse throughput and memory of the engine on several log shapes, against `grep -cE`.

For each shape of bench/shapes.py and each size, in the same run and pinned to one core:
  - `grep -rcE` with one FIXED list of failure words (below; not the engine's own patterns)
    over the same files, LC_ALL=C, output to a pipe (grep stops early when it writes to
    /dev/null);
  - `diagnose()` over the folder in a child process (CPU seconds including interpreter start
    and catalog load; peak RSS from rusage),
and prints MB/s for both, the ratio, the engine's peak RSS and its verdict.

    .venv/bin/python bench/parse.py                          # all shapes, 512 MB
    .venv/bin/python bench/parse.py --sizes 512,4096         # and 4 GB (needs ~5 GB of disk)
    .venv/bin/python bench/parse.py --shapes info_recurring --engine python

Targets (issue 10): every shape >= 1.0x grep, info_recurring >= 1.5x, peak RSS < 200 MB and
flat from 512 MB to 4 GB; the pure-Python fallback is reported without a target.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "bench"))

from shapes import CULPRIT, SHAPES  # noqa: E402

GREP_WORDS = "NCCL WARN|Traceback|[Ee]rror|Xid|Watchdog|exitcode|Signal|NCCL version|Init COMPLETE|out of memory"


def dir_bytes(root: Path) -> int:
    return sum(p.stat().st_size for p in root.rglob("*") if p.is_file())


def pin() -> list[str]:
    return ["taskset", "-c", "0"] if shutil.which("taskset") else []


def child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def time_grep(root: Path) -> float:
    env = dict(os.environ, LC_ALL="C")
    before = child_cpu()
    done = subprocess.run(pin() + ["grep", "-rcE", GREP_WORDS, str(root)], env=env, stdout=subprocess.PIPE, check=False)
    if done.returncode not in (0, 1):
        raise SystemExit(f"grep failed with exit code {done.returncode}")
    return child_cpu() - before


ENGINE_CODE = """
import json, resource, sys, time
engine = sys.argv[2] or None
from triage.engine import scan
if engine:
    scan._PREFILTER = scan.prefilter(prefer=engine)
from triage.engine import diagnose
t = time.perf_counter()
c = time.process_time()
d = diagnose(sys.argv[1]).to_dict()
cpu = time.process_time() - c
f = d['findings'][0] if d['findings'] else {}
print(json.dumps({'elapsed': time.perf_counter() - t, 'cpu': cpu,
                  'rss_kb': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                  'engine': scan.prefilter().engine, 'cause': f.get('cause'), 'rule': f.get('rule'),
                  'rank': (d['first_failure'] or {}).get('rank')}))
"""


def time_engine(root: Path, engine: str | None) -> tuple[float, dict[str, object]]:
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env["PYTHONPATH"] = str(REPO)
    before = child_cpu()
    out = subprocess.run(pin() + [sys.executable, "-c", ENGINE_CODE, str(root), engine or ""], cwd=REPO, env=env,
                         capture_output=True, text=True, check=False)
    cpu = child_cpu() - before
    if out.returncode != 0:
        raise SystemExit(f"engine failed on {root}:\n{out.stderr[-2000:]}")
    return cpu, json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shapes", default=",".join(SHAPES), help="comma-separated shape names")
    parser.add_argument("--sizes", default="512", help="comma-separated sizes in MB (default 512)")
    parser.add_argument("--engine", choices=("hyperscan", "re2", "python"), default=None)
    parser.add_argument("--dir", type=Path, default=None, help="where to keep generated bundles (reused when present)")
    parser.add_argument("--runs", type=int, default=2, help="runs of each side; the best is kept")
    args = parser.parse_args()

    base = args.dir or Path(tempfile.mkdtemp(prefix="nccl-triage-shapes-"))
    rows = []
    print(f"{'shape':16s} {'MB':>6s} {'grep MB/s':>10s} {'engine MB/s':>12s} {'ratio':>6s} {'cold':>6s} "
          f"{'peak RSS':>9s}  verdict")
    try:
        for size_mb in (int(s) for s in args.sizes.split(",")):
            for name in args.shapes.split(","):
                root = base / f"{name}-{size_mb}"
                if not root.exists():
                    t = time.perf_counter()
                    SHAPES[name](root, size_mb * 1024 * 1024)
                    print(f"  (generated {name} {size_mb} MB in {time.perf_counter() - t:.0f} s)", file=sys.stderr)
                size = dir_bytes(root)
                time_grep(root)  # warm the page cache
                grep_s = min(time_grep(root) for _ in range(args.runs))
                runs = [time_engine(root, args.engine) for _ in range(args.runs)]
                # diagnose() itself, as a worker runs it (interpreter start and imports are paid once
                # per worker); the cold command-line total is printed beside it.
                eng_s = min(r[1]["cpu"] for r in runs)
                cold_s = min(r[0] for r in runs)
                info = runs[0][1]
                rss_mb = max(r[1]["rss_kb"] for r in runs) / 1024
                ratio = grep_s / eng_s
                verdict = f"{info['cause']} rank {info['rank']} ({info['rule']})"
                ok = info["cause"] == "oom" and info["rank"] == CULPRIT
                rows.append({"shape": name, "mb": size / 1e6, "grep_mbs": size / 1e6 / grep_s,
                             "engine_mbs": size / 1e6 / eng_s,
                             "ratio": ratio, "cold_ratio": grep_s / cold_s, "rss_mb": rss_mb, "verdict": verdict,
                             "right": ok,
                             "engine": info["engine"]})
                print(f"{name:16s} {size / 1e6:6.0f} {size / 1e6 / grep_s:10.0f} "
                      f"{size / 1e6 / eng_s:12.0f} {ratio:5.2f}x "
                      f"{grep_s / cold_s:5.2f}x {rss_mb:7.0f} MB  "
                      f"{verdict}{'' if ok else f'  <-- expected oom on rank {CULPRIT:d}'}",
                      flush=True)
                if args.dir is None:
                    shutil.rmtree(root, ignore_errors=True)
    finally:
        if args.dir is None:
            shutil.rmtree(base, ignore_errors=True)
    engine = rows[0]["engine"] if rows else "?"
    print(f"\nengine: {engine}; CPU seconds on one core: 'ratio' is diagnose() against grep, 'cold' the whole command "
          f"(interpreter start, imports, catalog load) against grep; grep words: {GREP_WORDS}")


if __name__ == "__main__":
    main()
