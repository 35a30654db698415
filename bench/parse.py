#!/usr/bin/env python
"""Parse throughput and memory of the engine on several log shapes, against `grep -cE`.

For each shape of bench/shapes.py and each size, in the same run, on one core and on all:
  - one core (pinned with taskset): `grep -rcE` with one FIXED list of failure words (below;
    not the engine's own patterns) over the same files, LC_ALL=C, output to a pipe (grep stops
    early when it writes to /dev/null), CPU seconds; and `diagnose()` over the folder in a
    child process, CPU seconds of diagnose() (the cold column adds interpreter start, imports
    and catalog load), which then reads serially;
  - all cores: the same grep over the files with `xargs -P <cores>`, wall seconds; and
    `diagnose()` unpinned, wall seconds (a folder is read on all cores, engine parallel.py);
and prints MB/s for both, the ratios, the engine's peak RSS (its own or its workers', the
larger) and its verdict.

    .venv/bin/python bench/parse.py                          # all shapes, 512 MB, 1 and all cores
    .venv/bin/python bench/parse.py --sizes 512,4096         # and 4 GB (needs ~5 GB of disk)
    .venv/bin/python bench/parse.py --shapes info_recurring --engine python --cores 1

Targets (issue 23): every shape >= 1.0x grep on one core, info_recurring >= 1.5x; 16,384 files
>= 0.5x and < 200 MB; 65,536 files < 400 MB; peak RSS flat in bytes. The pure-Python fallback
is reported without a target. A bundle of more files than Limits.max_members (20,000) is read
whole here (the limit raised for the run), as a fleet job's bundle would need.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shlex
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


GREP_CPU: list[float] = []


def cores() -> int:
    return len(os.sched_getaffinity(0))


def time_grep(root: Path, all_cores: bool = False) -> float:
    """CPU seconds of `grep -rcE` on one core; with all_cores, wall seconds of the files
    shared out to one grep per core (`find | xargs -P`), and their CPU seconds in GREP_CPU."""
    env = dict(os.environ, LC_ALL="C")
    if all_cores:
        n = cores()
        cmd = (f"find {shlex.quote(str(root))} -type f -print0 | xargs -0 -P {n} -n {64} "
               f"grep -cE {shlex.quote(GREP_WORDS)}")
        t = time.perf_counter()
        before = child_cpu()
        done = subprocess.run(["bash", "-c", cmd], env=env, stdout=subprocess.PIPE, check=False)
        if done.returncode not in (0, 1, 123):
            raise SystemExit(f"grep failed with exit code {done.returncode}")
        GREP_CPU.append(child_cpu() - before)
        return time.perf_counter() - t
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
from triage.engine.bundle import Limits
from triage.engine.parallel import ReadStats, default_workers, read_state
from triage.engine.pipeline import conclude
t = time.perf_counter()
c = time.process_time()
stats = ReadStats()
# diagnose(), with the reading's statistics
d = conclude([read_state(sys.argv[1], limits=Limits(max_members=1 << 20), stats=stats)]).to_dict()
cpu = time.process_time() - c
f = d['findings'][0] if d['findings'] else {}
rss = max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
print(json.dumps({'elapsed': time.perf_counter() - t, 'cpu': cpu, 'path': cpu + stats.workers_cpu, 'parts': stats.parts,
                  'rss_kb': rss, 'workers': default_workers(),
                  'engine': scan.prefilter().engine, 'cause': f.get('cause'), 'rule': f.get('rule'),
                  'rank': (d['first_failure'] or {}).get('rank'), 'sources': len(d['sources'])}))
"""


# The least any engine built on this gate must do, on one core: walk the folder, read every
# file, and run over each window of WINDOW_BYTES the smallest gate it could ever use there, the
# gate less every pattern the bytes hold at all (the engine may leave a pattern out of a region
# once it has seen it, never before); nothing is parsed. Its ratio to grep is a ceiling for the
# engine's own on that shape. The patterns the bytes hold are found first, untimed.
FLOOR_CODE = """
import os, sys, time
from triage.engine import scan
engine = sys.argv[2] or None
pf = scan.prefilter(prefer=engine) if engine else scan.prefilter()
window = scan.WINDOW_BYTES

buf = bytearray(scan.BLOCK_BYTES)  # reused, as the scanner does: a fresh block a read costs page faults
view = memoryview(buf)

def windows():
    for folder, _dirs, files in os.walk(sys.argv[1]):
        for name in files:
            with open(os.path.join(folder, name), 'rb') as handle:
                while True:
                    n = handle.readinto(view)
                    if not n:
                        break
                    for lo in range(0, n, window):
                        yield buf, lo, min(lo + window, n)

held = set()
for block, lo, hi in windows():
    held.update(pf.first(block, lo, hi))
gate = pf.first
if pf.engine == 'hyperscan':
    import hyperscan
    ps = scan.pattern_set()
    kept = [i for i in range(len(ps.patterns)) if i not in held]
    flags = [hyperscan.HS_FLAG_MULTILINE | hyperscan.HS_FLAG_SINGLEMATCH
             | (hyperscan.HS_FLAG_CASELESS if ps.caseless[i] else 0) for i in kept]
    db = scan.hyperscan_db(hyperscan, [ps.patterns[i] for i in kept], flags, kept)
    scratch = hyperscan.Scratch(db)
    gate = lambda buf, lo, hi: db.scan(memoryview(buf)[lo:hi], match_event_handler=lambda *a: None, scratch=scratch)
c = time.process_time()
for block, lo, hi in windows():
    gate(block, lo, hi)
print(time.process_time() - c)
"""


def time_floor(root: Path, engine: str | None) -> float:
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env["PYTHONPATH"] = str(REPO)
    out = subprocess.run(pin() + [sys.executable, "-c", FLOOR_CODE, str(root), engine or ""], cwd=REPO, env=env,
                         capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise SystemExit(f"floor failed on {root}:\n{out.stderr[-2000:]}")
    return float(out.stdout.strip().splitlines()[-1])


def time_engine(root: Path, engine: str | None, all_cores: bool = False) -> tuple[float, dict[str, object]]:
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env["PYTHONPATH"] = str(REPO)
    before = child_cpu()
    t = time.perf_counter()
    out = subprocess.run(([] if all_cores else pin()) + [sys.executable, "-c", ENGINE_CODE, str(root), engine or ""],
                         cwd=REPO,
                         env=env, capture_output=True, text=True, check=False)
    cpu = time.perf_counter() - t if all_cores else child_cpu() - before
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
    parser.add_argument("--cores", default="1,all", help="'1', 'all' or both (default)")
    args = parser.parse_args()

    base = args.dir or Path(tempfile.mkdtemp(prefix="nccl-triage-shapes-"))
    rows = []
    print(f"{'shape':16s} {'cores':>5s} {'MB':>6s} {'grep MB/s':>10s} {'engine MB/s':>12s} {'ratio':>6s} {'cold':>6s} "
          f"{'idle':>6s} {'floor':>6s} {'peak RSS':>9s}  verdict")
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
                for mode in args.cores.split(","):
                    rows.append(measure(root, name, size, mode == "all", args))
                if args.dir is None:
                    shutil.rmtree(root, ignore_errors=True)
    finally:
        if args.dir is None:
            shutil.rmtree(base, ignore_errors=True)
    engine = rows[0]["engine"] if rows else "?"
    print(f"\nengine: {engine}; one core: CPU seconds, 'ratio' is diagnose() against grep, 'cold' the whole command "
          f"(interpreter start, imports, catalog load) against grep; all cores ({cores()}): wall seconds, grep through "
          f"xargs -P, and 'idle' the ratio an idle machine would give: grep's CPU seconds over the cores against the "
          f"engine's CPU seconds on its critical path (the parent's own and the slowest worker's); 'floor' (one core) "
          f"grep against reading every file and scanning each window with the gate less the patterns the bytes hold, "
          f"nothing parsed: the most an engine on this gate, read from Python, can give; grep words: "
          f"{GREP_WORDS}")


def measure(root: Path, name: str, size: int, all_cores: bool, args: argparse.Namespace) -> dict[str, object]:
    GREP_CPU.clear()
    grep_s = min(time_grep(root, all_cores) for _ in range(args.runs))
    runs = [time_engine(root, args.engine, all_cores) for _ in range(args.runs)]
    # diagnose() itself, as a worker runs it (interpreter start and imports are paid once per
    # worker); the cold command-line total is printed beside it.
    eng_s = min(float(r[1]["elapsed" if all_cores else "cpu"]) for r in runs)  # type: ignore[arg-type]
    cold_s = min(r[0] for r in runs)
    info = runs[0][1]
    rss_mb = max(float(r[1]["rss_kb"]) for r in runs) / 1024  # type: ignore[arg-type]
    ratio = grep_s / eng_s
    idle = min(GREP_CPU) / cores() / min(float(r[1]["path"]) for r in runs) if all_cores else ratio  # type: ignore[arg-type]
    floor = None if all_cores else grep_s / min(time_floor(root, args.engine) for _ in range(args.runs))
    verdict = f"{info['cause']} rank {info['rank']} ({info['rule']}), {info['sources']} sources"
    ok = info["cause"] == "oom" and info["rank"] == CULPRIT
    label = f"{cores()}" if all_cores else "1"
    print(f"{name:16s} {label:>5s} {size / 1e6:6.0f} {size / 1e6 / grep_s:10.0f} {size / 1e6 / eng_s:12.0f} "
          f"{ratio:5.2f}x "
          f"{grep_s / cold_s:5.2f}x {idle:5.2f}x {'' if floor is None else f'{floor:5.2f}x':>6s} {rss_mb:7.0f} MB  "
          f"{verdict}{'' if ok else f'  <-- expected oom on rank {CULPRIT:d}'}",
          flush=True)
    return {"shape": name, "cores": label, "mb": size / 1e6, "grep_mbs": size / 1e6 / grep_s,
            "engine_mbs": size / 1e6 / eng_s,
            "ratio": ratio, "cold_ratio": grep_s / cold_s, "idle_ratio": idle, "floor_ratio": floor,
            "rss_mb": rss_mb, "verdict": verdict,
            "right": ok,
            "engine": info["engine"]}


if __name__ == "__main__":
    main()
