"""Synthetic scenarios: deterministic, well-formed, in the reference formats, causally right."""
from __future__ import annotations

import json
import re
from datetime import datetime
from pathlib import Path

import pytest
import scenario_regexes as R
from conftest import ALL_SCENARIOS, SEEDS

from triage.scenarios import SCENARIO_CAUSES, build, build_scale

# The cause vocabulary of docs/design.md.
CAUSES = ("rank_crash", "oom", "version_mismatch", "device_ordinal", "shm_exhausted", "hardware_fault",
          "collective_timeout_straggler", "rendezvous_hang", "p2p_unsupported", "network", "other")


def tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def text_files(bundle: Path) -> list[Path]:
    return [p for p in sorted(bundle.rglob("*")) if p.is_file() and p.suffix in (".log", ".txt")]


def strip_tee(line: str) -> str:
    m = R.TEE_PREFIX.match(line)
    return line[m.end():] if m else line


def lines_of(bundle: Path) -> list[tuple[Path, str]]:
    return [(p, strip_tee(line)) for p in text_files(bundle) for line in p.read_text(encoding="utf-8").splitlines()]


def snapshots(bundle: Path) -> dict[str, dict]:
    return {p.parent.name: json.loads(p.read_text()) for p in bundle.glob("*/snapshot.json")}


def rank_lines(bundle: Path, rank: int) -> list[str]:
    """Every line rank `rank` printed, whatever the layout (own file, tee prefix, NCCL debug file)."""
    out = []
    for host_dir in bundle.iterdir():
        if not host_dir.is_dir():
            continue
        manifest = json.loads((host_dir / "manifest.json").read_text())
        for f in manifest["files"]:
            path = host_dir / f["path"]
            if f.get("rank") == rank and f["kind"] in ("log", "nccl_debug"):
                out += path.read_text().splitlines()
        for f in manifest["files"]:
            if f["path"] == "torchrun.log" and "rank" not in f:
                snapshot_ranks = [x for x in manifest["files"] if x.get("rank") == rank]
                if snapshot_ranks:  # rank lives on this host
                    lr = next((x.get("local_rank") for x in manifest["files"] if x.get("rank") == rank and "local_rank" in x), None)
                    lr = lr if lr is not None else _local_rank_from_nccl(host_dir, rank)
                    prefix = f"[default{lr}]:"
                    out += [line[len(prefix):] for line in (host_dir / "torchrun.log").read_text().splitlines() if line.startswith(prefix)]
    return out


def _local_rank_from_nccl(host_dir: Path, rank: int) -> int | None:
    for f in host_dir.glob("nccl_*.log"):
        for line in f.read_text().splitlines():
            m = R.INIT.search(line)
            if m and int(m["rank"]) == rank:
                n_local = len(list(host_dir.glob("nccl_*.log")))
                return rank % n_local
    return None


@pytest.mark.parametrize("cause", ALL_SCENARIOS)
def test_deterministic_for_a_seed(cause, tmp_path):
    a = build(cause, tmp_path / "a", seed=5)
    b = build(cause, tmp_path / "b", seed=5)
    c = build(cause, tmp_path / "c", seed=6)
    assert tree(a) == tree(b)
    assert tree(a) != tree(c)


def test_seeds_vary_the_cluster(built):
    hosts, sizes, versions = set(), set(), set()
    for seed in range(8):
        snaps = snapshots(built("rank_crash", seed) if seed in SEEDS else build("rank_crash", built("rank_crash", 0).parent, seed=seed))
        hosts |= set(snaps)
        versions |= {s["versions"]["nccl"] for s in snaps.values()}
        sizes.add(len(next(iter(snaps.values()))["nvml"]["gpus"]))
    assert len(hosts) > 4 and len(versions) > 1 and sizes == {4, 8}


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("cause", ALL_SCENARIOS)
def test_well_formed(built, cause, seed):
    bundle = built(cause, seed)
    expected = json.loads((bundle / "expected.json").read_text())
    assert expected["cause"] in CAUSES or expected["cause"] == "unknown"
    assert expected["cause"] == cause
    host_dirs = [d for d in bundle.iterdir() if d.is_dir()]
    assert len(host_dirs) >= 2
    all_ranks: set[int] = set()
    for d in host_dirs:
        manifest = json.loads((d / "manifest.json").read_text())
        assert manifest["schema"] == "nccl-triage/manifest@1" and manifest["host"] == d.name
        listed = {f["path"] for f in manifest["files"]}
        on_disk = {str(p.relative_to(d)) for p in d.rglob("*") if p.is_file()} - {"manifest.json"}
        assert listed == on_disk
        for f in manifest["files"]:
            assert (d / f["path"]).is_file()
            if "rank" in f:
                all_ranks.add(f["rank"])
        snap = json.loads((d / "snapshot.json").read_text())
        assert snap["schema"] == "nccl-triage/snapshot@1" and snap["host"]["hostname"] == d.name
        for err in d.glob("elastic/*.json"):
            data = json.loads(err.read_text())
            assert data["message"]["extraInfo"]["timestamp"].isdigit()
        for sample in (d / "nvml-samples.jsonl").read_text().splitlines() if (d / "nvml-samples.jsonl").exists() else []:
            assert json.loads(sample)["host"] == d.name
    if expected["rank"] is not None:
        assert expected["rank"] in all_ranks
        assert (bundle / expected["host"]).is_dir()
    elif expected["host"] is not None:
        assert (bundle / expected["host"]).is_dir()


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("cause", ALL_SCENARIOS)
def test_lines_match_reference_formats(built, cause, seed):
    bundle = built(cause, seed)
    counts = dict.fromkeys(("nccl", "torch_cpp", "elastic", "xid", "block"), 0)
    for path, line in lines_of(bundle):
        if " NCCL WARN " in line:
            m = R.NCCL_WARN_LINE.search(line)
            assert m, line
            assert R.WARN_DETAIL.match(m["loc"] + "NCCL WARN"), line
            ts = R.NCCL_TS.match(line)
            nccl_v = tuple(int(x) for x in snapshots(bundle)[path.parent.name if path.parent.name != "elastic" else ""]["versions"]["nccl"].split("."))
            assert bool(ts) == (nccl_v >= (2, 26)), line
            counts["nccl"] += 1
        elif " NCCL INFO " in line:
            m = R.NCCL_LINE.search(line)
            assert m and m["pre"] == "", line
            msg = m["msg"]
            if re.match(r"[\w./+-]+:\d+(?: \(\w+\))? -> ", msg):
                assert R.TRAIL.search(line), line
            if "Init START" in msg or "Init COMPLETE" in msg:
                assert R.INIT.search(msg), line
            if msg.startswith("Channel") and "via" in msg:
                assert R.CHANNEL.search(msg), line
            if "NCCL version" in msg:
                assert R.BANNER.search(msg), line
            counts["nccl"] += 1
        elif line.startswith("NCCL version"):
            assert R.BANNER.fullmatch(line), line
        if re.search(r"\.cpp:\d+\] ", line) and not line.lstrip().startswith("what()"):
            assert R.TORCH_CPP.match(line), line
            counts["torch_cpp"] += 1
        if "WorkNCCL(" in line:
            assert R.WORKNCCL.search(line), line
        if "[PG " in line:
            assert R.PG_PREFIX.search(line), line
        if "torch/distributed/elastic/multiprocessing/api.py:" in line and "File" not in line:
            assert R.ELASTIC.match(line), line
            counts["elastic"] += 1
        if "failed (exitcode:" in line:
            assert R.AGENT_FAILED.search(line), line
        if "NVRM: Xid" in line:
            assert R.XID.search(line), line
            counts["xid"] += 1
        if path.name == "dmesg.txt":
            assert R.DMESG_TS.match(line), line
        if "out of memory" in line and "CUDA" in line:
            assert R.OOM.search(line), line
        if "clients joined" in line:
            assert R.STORE_TIMEOUT.search(line), line
        if "client socket has timed out" in line:
            assert R.SOCKET_TIMEOUT.search(line), line
    _check_blocks(bundle)
    # The rendezvous never got as far as NCCL init; the unknown job never set NCCL_DEBUG.
    assert (counts["nccl"] > 0) == (cause not in ("unknown", "rendezvous_hang"))
    if cause == "hardware_fault":
        assert counts["xid"] >= 1


def _check_blocks(bundle: Path) -> None:
    """Every ChildFailedError block entry has the seven fields in order, each matching §2.8."""
    for p in bundle.glob("*/torchrun.log"):
        lines = [strip_tee(x) for x in p.read_text().splitlines()]
        for i, line in enumerate(lines):
            if R.BLOCK_IDX.match(line):
                block = lines[i + 1:i + 7]
                for rx, text in zip((R.BLOCK_TIME, R.BLOCK_HOST, R.BLOCK_RANK, R.BLOCK_EXIT, R.BLOCK_ERRFILE, R.BLOCK_TB), block, strict=False):
                    assert rx.match(text), (p, text)
                assert BLOCK_HOST_OK(block[1], p.parent.name)
                datetime.strptime(R.BLOCK_TIME.match(block[0])["t"], "%Y-%m-%d_%H:%M:%S")


def BLOCK_HOST_OK(line: str, host: str) -> bool:
    return R.BLOCK_HOST.match(line)["h"] == host


# ------------------------------------------------------------------ the story is causally right

def _culprit_first(bundle: Path, rank: int) -> None:
    """The culprit's first error line is not later than any other rank's first error line."""
    errors: dict[int, datetime] = {}
    for d in bundle.iterdir():
        for err in d.glob("elastic/error-*.json") if d.is_dir() else []:
            r = int(err.stem.split("-")[1])
            errors[r] = datetime.fromtimestamp(int(json.loads(err.read_text())["message"]["extraInfo"]["timestamp"]))
    if rank in errors:
        assert errors[rank] == min(errors.values())


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("cause", SCENARIO_CAUSES)
def test_culprit_fails_first(built, cause, seed):
    bundle = built(cause, seed)
    expected = json.loads((bundle / "expected.json").read_text())
    if expected["rank"] is not None:
        _culprit_first(bundle, expected["rank"])


@pytest.mark.parametrize("seed", SEEDS)
def test_straggler_sequence_numbers(built, seed):
    bundle = built("collective_timeout_straggler", seed)
    culprit = json.loads((bundle / "expected.json").read_text())["rank"]
    timeouts: dict[int, tuple[int, str, int]] = {}
    world = sum(len(json.loads(p.read_text())["nvml"]["gpus"]) for p in bundle.glob("*/snapshot.json"))
    for rank in range(world):
        for line in rank_lines(bundle, rank):
            w = R.WORKNCCL.search(line)
            if w and "Watchdog caught" in line and rank not in timeouts:
                timeouts[rank] = (int(w["seq"]), w["op"], 0)
            d = R.WATCHDOG_PROGRESS.search(line)
            if d and rank in timeouts and "Received a dump signal" not in line:
                timeouts[rank] = timeouts[rank][:2] + (int(d["done"]),)
    healthy = {r: v for r, v in timeouts.items() if r != culprit}
    assert len(healthy) == world - 1
    (seq, op, done), = set(healthy.values())
    assert done == seq - 1
    if culprit in timeouts:  # desync: same SeqNum, another collective
        assert timeouts[culprit][0] == seq and timeouts[culprit][1] != op
    else:  # lagging: never issued collective N, its last progress line is the earliest
        assert all(f"SeqNum={seq}," not in line for line in rank_lines(bundle, culprit))


@pytest.mark.parametrize("seed", SEEDS)
def test_hardware_fault_xid_matches_culprit_gpu(built, seed):
    bundle = built("hardware_fault", seed)
    exp = json.loads((bundle / "expected.json").read_text())
    xids = [R.XID.search(line) for line in (bundle / exp["host"] / "dmesg.txt").read_text().splitlines() if "Xid" in line]
    bus = next(R.INIT.search(line)["bus"] for line in rank_lines(bundle, exp["rank"]) if R.INIT.search(line))
    assert xids and all(int(x["bdf"].split(":")[1], 16) == int(bus, 16) >> 12 for x in xids)
    assert any(x["xid"] in ("79", "48", "94", "95") for x in xids)
    text = "\n".join(rank_lines(bundle, exp["rank"]))
    assert "unspecified launch failure" in text or "uncorrectable ECC error encountered" in text
    snap = snapshots(bundle)[exp["host"]]
    assert snap["xid"] and snap["xid"][0]["pci"] == xids[0]["bdf"]


@pytest.mark.parametrize("seed", SEEDS)
def test_shm_scenario_has_small_shm(built, seed):
    bundle = built("shm_exhausted", seed)
    exp = json.loads((bundle / "expected.json").read_text())
    assert snapshots(bundle)[exp["host"]]["host"]["shm"]["size_bytes"] == 64 * 1024 * 1024
    assert any("No space left on device (28)" in line for line in rank_lines(bundle, exp["rank"]))


@pytest.mark.parametrize("seed", SEEDS)
def test_version_mismatch_differs_across_hosts(built, seed):
    bundle = built("version_mismatch", seed)
    snaps = snapshots(bundle)
    assert len({s["versions"]["nccl"] for s in snaps.values()}) == 2
    banners = {m.group(0) for _, line in lines_of(bundle) if (m := R.BANNER.search(line))}
    assert len(banners) == 2
    assert any("Message truncated" in line for _, line in lines_of(bundle))


@pytest.mark.parametrize("seed", SEEDS)
def test_elastic_root_cause_is_culprit_on_its_host(built, seed):
    bundle = built("rank_crash", seed)
    exp = json.loads((bundle / "expected.json").read_text())
    text = (bundle / exp["host"] / "torchrun.log").read_text().splitlines()
    lines = [strip_tee(x) for x in text]
    i = lines.index("Root Cause (first observed failure):")
    assert R.BLOCK_RANK.match(lines[i + 4])["r"] == str(exp["rank"]) or seed % 3 == 1  # hang variant: a victim is "first"


def test_scale_bundle(tmp_path):
    bundle = build_scale(tmp_path, ranks=64, hosts=8, events_per_rank=20, seed=3)
    exp = json.loads((bundle / "expected.json").read_text())
    logs = list(bundle.glob("*/rank*.log"))
    assert len(logs) == 64 and len(list(bundle.glob("*/snapshot.json"))) == 8
    culprit_log = bundle / exp["host"] / f"rank{exp['rank']}.log"
    assert "Traceback" in culprit_log.read_text()
    assert all(p.read_text().count(" step ") >= 20 for p in logs)
    timeouts = sum("Watchdog caught collective operation timeout" in p.read_text() for p in logs)
    assert timeouts == 63
