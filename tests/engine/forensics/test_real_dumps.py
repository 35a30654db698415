"""Real flight-recorder dumps: CPU torch, gloo, a few ranks (fr_job.py), dumped by torch's own
`_dump_fr_trace` / `_dump_fr_trace_json`; the culprit named each time, healthy dumps quiet."""
from __future__ import annotations

import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from triage.engine import diagnose
from triage.scenarios.gloo import free_port

JOB = Path(__file__).with_name("fr_job.py")
RULE = "collective_timeout_straggler.flight_recorder_"


SPECS = ("stall:4:2", "stall:2:0", "skip:3:1", "op:4:3", "shape:3:0", "healthy:2:0")


@pytest.fixture(scope="module")
def jobs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every scenario run once, one after the other in one process (torch imported once)."""
    out = tmp_path_factory.mktemp("fr-jobs")
    run = subprocess.run([sys.executable, str(JOB), *SPECS, "--out", str(out)], check=False, timeout=300,
                         capture_output=True, text=True)
    assert run.returncode == 0, f"fr_job.py exited {run.returncode}:\n{run.stdout[-3000:]}\n{run.stderr[-6000:]}"
    return out


def run_job(jobs: Path, scenario: str, world: int, culprit: int) -> Path:
    return jobs / f"{scenario}-{world}-{culprit}"


CASES = [
    # scenario, world, culprit, rule, words in the verdict
    ("stall", 4, 2, "missing_rank", "rank 2 never enqueued all_reduce #6; ranks 0, 1 and 3 waited in it"),
    ("stall", 2, 0, "missing_rank", "rank 0 never enqueued all_reduce #6; rank 1 waited in it"),
    ("skip", 3, 1, "missing_rank", "rank 1 never enqueued all_reduce #8; ranks 0 and 2 waited in it"),
    ("op", 4, 3, "mismatch", "rank 3 ran broadcast as collective #6 where ranks 0, 1 and 2 ran all_reduce (op mismatch)"),
    ("shape", 3, 0, "mismatch", "rank 0 ran all_reduce of input [[2, 512]] output [[2, 512]] as collective #6 where "
                                "ranks 1 and 2 ran all_reduce of input [[1024]] output [[1024]] (sizes mismatch)"),
]


@pytest.mark.parametrize("fmt", ["pickle", "json"])
@pytest.mark.parametrize(("scenario", "world", "culprit", "rule", "words"), CASES)
def test_the_culprit_is_named(jobs: Path, fmt: str, scenario: str, world: int, culprit: int, rule: str, words: str) -> None:
    out = run_job(jobs, scenario, world, culprit)
    d = diagnose(out / fmt).to_dict()
    verdict = d["findings"][0]
    assert verdict["rule"] == RULE + rule
    assert verdict["cause"] == "collective_timeout_straggler"
    assert verdict["ranks"] == [culprit]
    assert verdict["confidence"] == "high"
    assert words in verdict["detail"].lower()
    assert d["first_failure"]["rank"] == culprit
    assert {s["kind"] for s in d["sources"]} == {"flight_recorder"}
    group = d["collectives"]["groups"][0]
    assert group["ranks"] == list(range(world)) and group["dumped"] == list(range(world)) and group["no_dump"] == []
    assert d["collectives"]["culprit"]["ranks"] == [culprit]
    assert {x["format"] for x in d["collectives"]["dumps"]} == {fmt}
    # Evidence points at the dumps themselves.
    assert all(Path(e["source"]).name.startswith("nccl_trace_rank_") for e in verdict["evidence"])


def test_where_each_rank_stands(jobs: Path) -> None:
    d = diagnose(run_job(jobs, "stall", 4, 2) / "pickle").to_dict()
    group = d["collectives"]["groups"][0]
    assert group["last_completed_by_all"] == 5 and group["first_incomplete"] == 6
    pos = group["positions"]
    assert pos["2"]["state"] == "not enqueued" and pos["2"]["last_enqueued"] == 5
    # It stands at the collective it never enqueued (#6, the others' all_reduce), not at its last #5.
    assert (pos["2"]["op"], pos["2"]["seq"]) == ("all_reduce", 6)
    assert group["first_mismatch"] is None
    for r in ("0", "1", "3"):
        assert pos[r]["seq"] == 6 and pos[r]["op"] == "all_reduce" and pos[r]["last_enqueued"] == 8
        # The Python frame where the rank enqueued it: the job's own code, not torch's.
        assert pos[r]["frames"][0]["file"].endswith("fr_job.py") and pos[r]["frames"][0]["name"] == "work"
    # JSON dumps carry no frames: the positions say so by an empty list.
    dj = diagnose(run_job(jobs, "stall", 4, 2) / "json").to_dict()
    assert dj["collectives"]["groups"][0]["positions"]["0"]["frames"] == []


def test_a_wrong_op_stands_where_it_ran_differently(jobs: Path) -> None:
    # Gloo ran rank 3's broadcast against the others' all_reduce (same bytes): every rank completed
    # all eight, so nothing is incomplete; the panel names the first collective they ran differently.
    d = diagnose(run_job(jobs, "op", 4, 3) / "pickle").to_dict()
    group = d["collectives"]["groups"][0]
    assert group["first_incomplete"] is None and group["last_completed_by_all"] == 8
    assert group["first_mismatch"] == 6
    assert {r: (p["seq"], p["state"]) for r, p in group["positions"].items()} == {str(r): (8, "completed") for r in range(4)}


@pytest.mark.parametrize("fmt", ["pickle", "json"])
def test_healthy_dumps_give_no_finding(jobs: Path, fmt: str) -> None:
    d = diagnose(run_job(jobs, "healthy", 2, 0) / fmt).to_dict()
    assert d["findings"] == []
    assert d["collectives"]["culprit"] is None
    group = d["collectives"]["groups"][0]
    assert group["mismatches"] == [] and group["first_incomplete"] is None and group["last_completed_by_all"] == 8


def test_as_a_tar_gz_the_same(jobs: Path, tmp_path: Path) -> None:
    out = run_job(jobs, "stall", 4, 2)
    archive = tmp_path / "bundle.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(out / "pickle", arcname="job/fr")
    d = diagnose(archive).to_dict()
    assert d["findings"][0]["rule"] == RULE + "missing_rank" and d["findings"][0]["ranks"] == [2]


def test_a_torchrun_job_that_timed_out(tmp_path: Path) -> None:
    """The issue's case: torchrun, one rank stuck before collective 6, the others time out
    (gloo, 3 s), dump, raise; torchrun reports a rank that merely timed out as the first
    failure. The dumps name the rank that never got there."""
    out = tmp_path / "run"
    log = tmp_path / "bundle" / "torchrun.log"
    log.parent.mkdir(parents=True)
    for _attempt in range(3):
        with log.open("wb") as f:
            subprocess.run([sys.executable, "-m", "torch.distributed.run", "--nproc-per-node", "3", "--master-port",
                            str(free_port()), str(JOB), "stall", "--torchrun", "--culprit", "2", "--out", str(out)],
                           stdout=f, stderr=subprocess.STDOUT, timeout=180, check=False)
        # Only the agent's store port taken between asking and binding is run again.
        if b"EADDRINUSE" not in log.read_bytes():
            break
    for dump in (out / "pickle").iterdir():
        (log.parent / dump.name).write_bytes(dump.read_bytes())
    assert (log.parent / "nccl_trace_rank_2").exists()
    d = diagnose(log.parent).to_dict()
    verdict = d["findings"][0]
    assert verdict["rule"] == RULE + "missing_rank"
    assert verdict["ranks"] == [2]
    assert d["first_failure"]["rank"] == 2
    # The timeline spans the stall, not only the exit the log prints: rank 2's row is its dump's
    # (its last collective, #5), and the others' rows start with their collectives, before the
    # timeouts the log prints.
    rows = {r["rank"]: r for r in d["timeline"]["ranks"]}
    stalled = d["collectives"]["culprit"]["started_ns"]
    assert d["timeline"]["axis"] == "time" and rows[2]["start"] is not None and rows[2]["end"] is not None
    assert rows[2]["end"] <= min(rows[0]["end"], rows[1]["end"])
    assert all(rows[r]["start"] < rows[r]["end"] for r in (0, 1))
    assert stalled is not None
    # The log alone does not say it (the dumps are what names rank 2).
    alone = diagnose(log).to_dict()
    assert alone["first_failure"] is None or alone["first_failure"]["rank"] != 2
    assert all(not f["rule"].startswith(RULE) for f in alone["findings"])


def test_the_timeline_draws_each_ranks_collectives_and_the_wavefront(jobs: Path) -> None:
    from triage.timeline.figure import build_figure

    d = diagnose(run_job(jobs, "op", 4, 3) / "pickle").to_dict()
    progress = d["timeline"]["collectives"]
    assert progress["mismatched"] == [6] and progress["culprits"] == [3]
    assert [s["rank"] for s in progress["series"]] == [0, 1, 2, 3]
    assert [p[1] for p in progress["series"][3]["points"]] == list(range(1, 9))
    assert progress["series"][3]["points"][5][3] == "broadcast"
    fig = build_figure(d["timeline"])
    names = [t.get("name") for t in fig["data"]]
    assert "collective mismatched across ranks (4)" in names  # #6 on every rank, marked
    d = diagnose(run_job(jobs, "stall", 4, 2) / "pickle").to_dict()
    fig = build_figure(d["timeline"])
    assert [a["text"] for a in fig["layout"]["annotations"] if a.get("name") == "wavefront"] == [
        "wavefront: #6 not completed by every rank"]
    healthy = build_figure(diagnose(run_job(jobs, "healthy", 2, 0) / "pickle").to_dict()["timeline"])
    assert not [s for s in healthy["layout"].get("shapes", []) if s.get("name") == "wavefront"]
    assert not [t for t in healthy["data"] if t.get("name", "").startswith(("collective not completed", "collective mismatched"))]
