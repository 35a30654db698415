"""NCCL RAS output, built from the format strings of NCCL's src/ras/client_support.cc (and the
samples of docs/userguide/.../troubleshooting/ras.rst); each field asserted."""
from __future__ import annotations

import json
from pathlib import Path

from triage.engine import diagnose
from triage.engine.forensics.ras import behind, diff, looks_like_ras, parse_json, parse_text


def header(version: str = "2.26.2") -> str:
    return (f"NCCL version {version}+cuda12.8 compiled with CUDA 12.8\n"
            "CUDA runtime version %d, driver version %d\n\n" % (12080, 12080)
            + "Job summary\n===========\n\n"
            + "  Nodes  Processes         GPUs  Processes     GPUs\n"
            + "(total)   per node  per process    (total)  (total)\n"
            + "%7d  %9d  %11d  %9d  %7d\n" % (1, 4, 1, 4, 4))


def table(*rows: tuple[int, int, int, str, int, int, str, str]) -> str:
    out = ("\nCommunicators... (0.00s)\n=============\n\n"
           "Group     Comms     Nodes     Ranks     Ranks     Ranks    Status  Errors\n"
           "    #  in group  per comm  per node  per comm  in group\n")
    for row in rows:
        out += "%5d  %8d  %8d  %8s  %8d  %8d  %8s  %6s\n" % row
    return out


def rank_line(rank: int, gpu: int, pid: int, host: str) -> str:
    return "  Rank %d -- GPU %s managed by process %d on node %s\n" % (rank, str(gpu), pid, host)


def mismatch(launched_hi: int, launched_lo: int, lagging: list[int], op: str = "AllReduce") -> str:
    out = "#%d-%d (%016x) MISMATCH\n" % (0, 0, 0xCF264AF53EDBE986)
    out += "  Communicator ranks have different %s operation counts\n" % op
    out += "  %d ranks have launched up to operation %d\n" % (4 - len(lagging), launched_hi)
    if len(lagging) == 1:
        r = lagging[0]
        out += "  Rank %d has launched up to operation %d -- GPU %s managed by process %d on node %s\n" % (
            r, launched_lo, str(r), 4000 + r, "10.0.0.7")
    else:
        out += "  %d ranks have launched up to operation %d\n" % (len(lagging), launched_lo)
        out += "".join(rank_line(r, r, 4000 + r, "10.0.0.7") for r in lagging)
    return out + "\n"


def snapshot(hi: int, lo: int, lagging: list[int], when: str) -> str:
    return (f"# ncclras snapshot at {when}\n" + header() + table((0, 1, 1, "4", 4, 4, "RUNNING", "MISMATCH"))
            + "\nWarnings\n========\n\n" + mismatch(hi, lo, lagging))


def test_the_table_and_a_count_mismatch() -> None:
    text = snapshot(6650, 6649, [2], "2026-12-04T10:00:00")
    assert looks_like_ras(text.encode())
    [r] = parse_text(text, "ras.txt")
    assert r["nccl_version"] == "2.26.2+cuda12.8"
    assert r["time"] == "2026-12-04T10:00:00"
    assert r["groups"] == [{"group": 0, "comms": 1, "nodes": 1, "ranks_per_node": "4", "ranks_per_comm": 4,
                            "ranks_in_group": 4, "status": "RUNNING", "errors": "MISMATCH"}]
    comm = r["comms"]["0-0"]
    assert comm["hash"] == "cf264af53edbe986"
    assert comm["mismatch"] == [{"what": "operation counts", "op": "AllReduce", "groups": [
        {"count": 3, "value": 6650, "ranks": []},
        {"count": 1, "value": 6649, "ranks": [{"rank": 2, "gpu": "2", "pid": 4002, "host": "10.0.0.7"}]}]}]
    assert behind(r) == [{"comm": "0-0", "hash": "cf264af53edbe986", "op": "AllReduce", "low": 6649, "high": 6650,
                          "ranks": [{"rank": 2, "gpu": "2", "pid": 4002, "host": "10.0.0.7"}], "count": 1, "total": 4}]


def test_the_docs_sample_of_errors_dead_incomplete_and_timeouts() -> None:
    text = (header("2.24.3") + table((0, 1, 4, "7-8", 32, 32, "RUNNING", "INCOMPLETE"))
            + "\nErrors\n======\n\n"
            + "INCOMPLETE\n  Missing communicator data from %d job process%s\n" % (1, "")
            + "  Process %d on node %s managing GPU%s %s\n\n" % (3487984, "172.16.64.213", "", "5")
            + "DEAD\n  %d job process%s considered dead (unreachable via the RAS network)\n" % (1, " is")
            + "  Process %d on node %s managing GPU%s %s\n\n" % (3487984, "172.16.64.213", "", "5")
            + "#%d-%d (%016x) INCOMPLETE\n  Missing communicator data from %d rank%s\n" % (0, 0, 0xCF264AF53EDBE986, 1, "")
            + "  The missing rank: 21\n\n"
            + "#%d-%d (%016x) ERROR\n" % (0, 0, 0xCF264AF53EDBE986)
            + "  Asynchronous error%s on %d rank%s\n" % ("", 1, "")
            + "  Rank %d reported %s -- GPU %s managed by process %d on node %s\n\n" % (
                3, "unhandled system error", "3", 3487900, "172.16.64.210")
            + "\nWarnings\n========\n\n"
            + "TIMEOUT\n  Encountered %d communication timeout%s while gathering communicator data\n\n" % (2, "s"))
    [r] = parse_text(text)
    assert r["nccl_version"] == "2.24.3+cuda12.8"
    assert r["groups"][0]["ranks_per_node"] == "7-8" and r["groups"][0]["errors"] == "INCOMPLETE"
    assert [(d["pid"], d["host"], d["gpus"]) for d in r["dead"]] == [(3487984, "172.16.64.213", "5")]
    assert r["dead_count"] == 1
    assert [(d["pid"], d["host"]) for d in r["missing_processes"]] == [(3487984, "172.16.64.213")]
    comm = r["comms"]["0-0"]
    assert comm["incomplete"] == 1 and comm["missing_ranks"] == [{"rank": 21, "gpu": None, "pid": None, "host": None}]
    assert {"rank": 3, "gpu": "3", "pid": 3487900, "host": "172.16.64.210", "error": "unhandled system error"} in comm["errors"]
    assert r["timeouts"] == 2


def test_a_status_mismatch_is_not_a_count() -> None:
    text = (header() + table((0, 1, 4, "1-2", 32, 32, "FINALIZE", "MISMATCH")) + "\nWarnings\n========\n\n"
            + "#%d-%d (%016x) MISMATCH\n" % (0, 0, 0x9E17999AFAA87DBB)
            + "  Communicator ranks have different status\n"
            + "  %d ranks have status %s\n" % (26, "UNKNOWN") + "  %d ranks have status %s\n" % (4, "RUNNING")
            + rank_line(0, 0, 507285, "172.16.64.210")
            + "  Rank %d has status %s -- GPU %s managed by process %d on node %s\n" % (4, "FINALIZE", "4", 507289, "172.16.64.210"))
    [r] = parse_text(text)
    mm = r["comms"]["0-0"]["mismatch"][0]
    assert mm["what"] == "status" and mm["op"] is None
    assert [(g["count"], g["value"]) for g in mm["groups"]] == [(26, "UNKNOWN"), (4, "RUNNING"), (1, "FINALIZE")]
    assert behind(r) == []


def test_successive_snapshots_diffed_name_the_stuck_rank(tmp_path: Path) -> None:
    (tmp_path / "ras.txt").write_text(snapshot(6650, 6649, [2], "t1") + snapshot(7100, 6649, [2], "t2")
                                      + snapshot(7400, 6649, [2], "t3"))
    d = diagnose(tmp_path).to_dict()
    v = d["findings"][0]
    assert v["rule"] == "collective_timeout_straggler.ras_lagging_rank"
    assert v["ranks"] == [2] and v["hosts"] == ["10.0.0.7"] and v["confidence"] == "high"
    assert "In 3 ncclras snapshots rank 2 (process 4002 on 10.0.0.7) stayed at AllReduce operation 6649 while the others moved on" in v["detail"]
    assert d["sources"][0]["kind"] == "ncclras"


def test_a_mismatch_that_catches_up_is_not_stuck() -> None:
    reports = parse_text(snapshot(6650, 6649, [2], "t1") + snapshot(7100, 7099, [1], "t2"))
    lag = diff(reports)["lagging"][0]
    assert lag["stuck"] is False and lag["lows"] == [6649, 7099] and lag["snapshots"] == 2


def test_one_snapshot_is_only_a_hint(tmp_path: Path) -> None:
    (tmp_path / "ras.txt").write_text(snapshot(6650, 6649, [2], "t1"))
    v = diagnose(tmp_path).to_dict()["findings"][0]
    assert (v["rule"], v["confidence"], v["ranks"]) == ("collective_timeout_straggler.ras_lagging_rank", "medium", [2])


def test_healthy_ras_output_is_quiet(tmp_path: Path) -> None:
    (tmp_path / "ras.txt").write_text(header() + table((0, 8, 4, "1", 4, 32, "RUNNING", "OK")))
    d = diagnose(tmp_path).to_dict()
    assert d["findings"] == []
    assert d["sources"][0]["kind"] == "ncclras"


RAS_JSON = {
    "nccl_version": "2.29.1", "cuda_runtime_version": 13000, "cuda_driver_version": 13000,
    "timestamp": "2025-12-19 13:06:53", "communicators_count": 1,
    "communicators": [{
        "hash": "0xae94423cfbb2ef4a", "secondary_hash": "0xb7e7187447156001:0xb8242ed28a71381e", "size": 2,
        "ranks_count": 1, "missing_ranks_count": 1,
        "ranks": [{"rank": 0, "host": "172.16.64.245", "pid": 1524344, "cuda_dev": 0, "nvml_dev": 0,
                   "status": {"init_state": 0, "async_error": 0, "finalize_called": False, "destroy_flag": False, "abort_flag": False},
                   "collective_counts": {"Broadcast": 0, "Reduce": 0, "AllGather": 0, "ReduceScatter": 0, "AllReduce": 0}}],
        "missing_ranks": [{"rank": 1, "host": "172.16.64.245", "pid": 1524345, "cuda_dev": 1, "nvml_dev": 1,
                           "status": {"unresponsive": True, "considered_dead": True}}],
    }],
    "ras": {"collection_time_sec": 0.000, "timeouts_count": 0},
}


def test_the_json_format_of_the_docs(tmp_path: Path) -> None:
    r = parse_json(RAS_JSON, "ras.json")
    assert r is not None
    assert r["nccl_version"] == "2.29.1" and r["time"] == "2025-12-19 13:06:53" and r["timeouts"] == 0
    comm = r["comms"]["0xae94423cfbb2ef4a"]
    assert comm["size"] == 2 and comm["incomplete"] == 1
    assert comm["missing_ranks"] == [{"rank": 1, "gpu": "1", "pid": 1524345, "host": "172.16.64.245", "dead": True}]
    assert comm["counts"] == {"0": {"Broadcast": 0, "Reduce": 0, "AllGather": 0, "ReduceScatter": 0, "AllReduce": 0}}
    assert r["dead"] == [{"pid": 1524345, "host": "172.16.64.245", "gpus": "1", "line": 1}]
    (tmp_path / "ras.json").write_text(json.dumps(RAS_JSON, indent=2))
    d = diagnose(tmp_path).to_dict()
    v = d["findings"][0]
    assert (v["cause"], v["rule"], v["ranks"], v["hosts"]) == ("rank_crash", "rank_crash.ras_dead_process", [1], ["172.16.64.245"])
    assert d["sources"][0]["kind"] == "ncclras"


def test_json_counts_per_op_mismatch() -> None:
    doc = json.loads(json.dumps(RAS_JSON))
    c = doc["communicators"][0]
    c["missing_ranks"] = []
    c["size"] = 3
    c["ranks"] = [dict(c["ranks"][0], rank=i, pid=100 + i, collective_counts={"AllReduce": 50 if i != 1 else 42}) for i in range(3)]
    r = parse_json(doc)
    assert r is not None
    [lag] = behind(r)
    assert (lag["op"], lag["low"], lag["high"], [x["rank"] for x in lag["ranks"]]) == ("AllReduce", 42, 50, [1])
