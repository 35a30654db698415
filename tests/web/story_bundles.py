"""Real bundles for the incident-page tests: a torchrun/gloo job laid out as torchrun writes its
log dir, one real corpus log, a desync bundle with sub-second glog times, an OOM bundle whose
survivors sat ten minutes in an all-reduce, and a rank crash with a real secret next to the bug."""
from __future__ import annotations

import re
import shutil
import tarfile
from pathlib import Path

from triage.scenarios import build, gloo

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "real"
# One process (pid 392 on VM-0-16-ubuntu, GPU 2), no rank anywhere: an OOM in NCCL's enqueue.
SINGLE_LOG = "tensorrt-llm-1670"
HF_TOKEN = "hf_QwErTyUiOpAsDfGhJkLzXcVbNm1234567890"
# torch's own prefix `[rank5]:[E816 20:39:36.709633000 File.cpp:684]` (its 9-digit fraction is
# CLOCK_MONOTONIC, so the engine keeps only the seconds of it).
_TORCH_PREFIX = re.compile(r"\[rank(\d+)\]:\[([EWI]\d{3,4} \d\d:\d\d:\d\d)\.(\d{6})\d{3} ([\w.]+:\d+)\]")


def corpus_dir() -> Path:
    for base in (CORPUS, Path("/work/shared/corpus/real")):
        if (base / SINGLE_LOG / "log.txt").is_file():
            return base
    raise FileNotFoundError(f"the real corpus log {SINGLE_LOG} is missing (shared/corpus/real)")


def _tar(folder: Path, out: Path, arcname: str | None = None) -> Path:
    with tarfile.open(out, "w:gz") as tar:
        if arcname is None:
            for child in sorted(folder.iterdir()):
                tar.add(child, arcname=child.name)
        else:
            tar.add(folder, arcname=arcname)
    return out


def torchrun_logdir_bundle(out: Path) -> Path:
    """A real gloo job (rank 1 raises) as an SRE uploads it: torchrun's own output next to its
    --log-dir tree `<run_id>/attempt_0/<local_rank>/{stdout,stderr}.log, error.json`."""
    run = gloo.run_exception(out / "gloo-run")
    host_dir = next(p for p in run.bundle.iterdir() if p.is_dir())
    raw = out / "torchrun-raw"
    raw.mkdir(parents=True)
    for name in ("torchrun.stdout.log", "torchrun.stderr.log"):
        shutil.copyfile(host_dir / name, raw / name)
    for rank in range(3):
        attempt = raw / "none_k2j1x9" / "attempt_0" / str(rank)
        attempt.mkdir(parents=True)
        for stream in ("stdout", "stderr"):
            shutil.copyfile(host_dir / "logs" / f"rank{rank}.{stream}.log", attempt / f"{stream}.log")
        error = host_dir / "elastic" / f"error-{rank}.json"
        if error.exists():
            shutil.copyfile(error, attempt / "error.json")
    return _tar(raw, out / "torchrun-logs.tar.gz")


def collector_bundle(torchrun_tar: Path, out: Path) -> Path:
    """The same torchrun log dir packed by the collector with `--host node-x` (manifest and all)."""
    from collectors.bundle import gather, write_bundle

    folder = out / "collector-src"
    with tarfile.open(torchrun_tar) as tar:
        tar.extractall(folder, filter="data")
    bundle = out / "collector-node-x.tar.gz"
    write_bundle(gather([folder]), bundle, job="gloo-collector", host="node-x")
    return bundle


def single_log(out: Path) -> Path:
    path = out / "trtllm-oom.log"
    shutil.copyfile(corpus_dir() / SINGLE_LOG / "log.txt", path)
    return path


def desync_bundle(out: Path) -> Path:
    """The desync scenario (8 ranks, rank 7 in a BROADCAST while the others ALLREDUCE) written the
    way glog builds of torch print: `E0816 20:39:36.709633 <tid> ProcessGroupNCCL.cpp:684]`, six
    wall-clock digits, all within 70 ms."""
    bundle = build("collective_timeout_straggler", out / "desync-src", seed=1)
    count = 0
    for path in bundle.rglob("*.log"):
        text, n = _TORCH_PREFIX.subn(lambda m: f"{m[2]}.{m[3]} 4242 {m[4]}]", path.read_text())
        path.write_text(text)
        count += n
    assert count >= 8, "the scenario no longer prints torch's glog prefix"
    return _tar(bundle, out / "desync.tar.gz", arcname="desync")


def oom_bundle(out: Path) -> Path:
    bundle = build("oom", out / "oom-src", seed=1)
    return _tar(bundle, out / "oom.tar.gz", arcname="oom")


def crash_bundle(out: Path) -> Path:
    bundle = build("rank_crash", out / "crash-src", seed=0)
    (bundle / "node-a" / "job-env.txt").write_text(
        f"MASTER_ADDR=node-a\nHF_TOKEN={HF_TOKEN}\nTOKENIZERS_PARALLELISM=false\n")
    return _tar(bundle, out / "crash.tar.gz", arcname="crash")
