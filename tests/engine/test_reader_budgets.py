"""Every structured reader is bounded in what it produces, not only in what it reads (issue 32):
the shared-tuple pickles are refused with a reason, quickly and in little memory; values not
of their contract's type or size are left out with a note; the rest is read as before."""
from __future__ import annotations

import io
import json
import pickle
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from readers_fuzz import Emitter, fr_pickle, shared_tuples

from triage.engine import BundleError, diagnose
from triage.engine.forensics.flight_recorder import read_dump
from triage.engine.forensics.plainpickle import MAX_ITEM_NODES, RefusedPickle, load_plain
from triage.engine.forensics.ras import read_ras
from triage.engine.shapes import OverBudget, expansion

REASON = f"shared structure expands past {MAX_ITEM_NODES} nodes"


def measured(path: Path) -> tuple[dict[str, Any] | None, str, int, int]:
    """(diagnosis, the error when nothing was read, characters of JSON, tracemalloc peak)."""
    tracemalloc.start()
    try:
        try:
            out: dict[str, Any] | None = diagnose(str(path), workers=1).to_dict()
            error, size = "", len(json.dumps(out))
        except BundleError as exc:
            out, error, size = None, str(exc), 0
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return out, error, size, peak


@pytest.mark.parametrize("levels", [22, 30])
def test_the_shared_tuple_pickles_are_refused_with_a_reason(tmp_path: Path, levels: int) -> None:
    data = shared_tuples(levels)
    assert len(data) < 420  # noqa: PLR2004 - a few hundred bytes (the issue's was 333)
    # It is plain data: Python's own unpickler reads it, and it is 2**levels leaves to a walk.
    assert pickle.loads(data)["entries"][0]["process_group"][1] == "default_pg"  # noqa: S301 - our own bytes
    (tmp_path / "warm.log").write_text("NCCL WARN warm up\n")
    diagnose(str(tmp_path / "warm.log"))
    (tmp_path / "fr_trace_k25.pkl").write_bytes(data)
    out, error, size, peak = measured(tmp_path / "fr_trace_k25.pkl")
    assert out is None and size == 0
    assert error == f"fr_trace_k25.pkl: pickle refused: flight-recorder dump entry 1: {REASON} " \
                    "(a memo reference counted each time it is expanded); refused"
    assert peak < 100 * 1024 * 1024, peak


def test_refused_beside_a_log_the_rest_is_diagnosed_and_the_reason_recorded(tmp_path: Path) -> None:
    (tmp_path / "fr_trace_1").write_bytes(shared_tuples(30))
    (tmp_path / "rank0.log").write_text("[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n")
    out, error, _size, peak = measured(tmp_path / "fr_trace_1")
    assert out is None and "pickle refused" in error  # alone: nothing to read
    assert peak < 100 * 1024 * 1024, peak
    d = diagnose(str(tmp_path)).to_dict()
    assert d["findings"][0]["cause"] == "oom"
    assert "collectives" not in d
    assert [p for p in d["problems"] if p.startswith("fr_trace_1")] == [
        f"fr_trace_1: pickle refused: flight-recorder dump entry 1: {REASON} "
        "(a memo reference counted each time it is expanded); refused"]


def _pickle(top: dict[str, Any], entries: list[dict[str, Any]]) -> io.BufferedReader:
    return io.BufferedReader(io.BytesIO(fr_pickle(top, entries)))  # type: ignore[arg-type]


def test_a_structure_that_holds_itself_is_refused() -> None:
    with pytest.raises(RefusedPickle, match="contains itself"):
        load_plain(io.BytesIO(fr_pickle({"pg_config": ("cycle",)}, [])))


def test_a_tuple_of_containers_as_a_dict_key_is_refused_before_it_is_hashed() -> None:
    e = Emitter()
    e.out += b"\x80\x04}("
    e.node(("double", 30))
    e.leaf("v")
    e.out += b"u."
    with pytest.raises(RefusedPickle, match="dict key that is a tuple of containers"):
        load_plain(io.BytesIO(bytes(e.out)))


def test_lists_nested_100000_deep_without_a_mark_are_read_without_recursion() -> None:
    data = fr_pickle({"version": ("leaf", "2.10")}, [{"frames": ("chain", 100_000), "collective_seq_id": ("leaf", 3),
                                                      "profiling_name": ("leaf", "nccl:all_reduce")}])
    deepest = pickle.loads(data)["entries"][0]["frames"]  # noqa: S301 - our own bytes
    for _ in range(100_000):
        deepest = deepest[0]
    assert deepest == []
    summary = read_dump("fr_trace_0", io.BufferedReader(io.BytesIO(data)))  # type: ignore[arg-type]
    assert summary["groups"][""]["entries"][0]["seq"] == 3


def test_the_whole_object_has_a_budget_too() -> None:
    """A bomb outside the streamed entries (pg_config) is measured when the pickle ends."""
    with pytest.raises(RefusedPickle, match="flight-recorder dump: shared structure expands past 4000000 nodes"):
        load_plain(io.BytesIO(fr_pickle({"pg_config": ("double", 22)}, [])))


def test_expansion_counts_every_path() -> None:
    shared = ["ab", "cd"]
    assert expansion({"k": [shared, shared]}, max_nodes=100, max_chars=100, what="x") == (1 + 1 + 1 + 2 * 3, 1 + 8)
    with pytest.raises(OverBudget, match="x: its text expands past 7 characters"):
        expansion([shared, shared], max_nodes=100, max_chars=7, what="x")


def test_fields_not_of_their_shape_are_left_out_with_a_note() -> None:
    notes: list[str] = []
    summary = read_dump("fr_trace_2", _pickle(
        {"version": ("tuple", [("leaf", "2"), ("leaf", "10")]),
         "pg_config": ("dict", [("0", ("dict", [("name", ("leaf", "0")), ("desc", ("leaf", "default_pg")),
                                               ("ranks", ("leaf", "[0, 1, 2]"))])),
                               (1, ("dict", [("ranks", ("leaf", "[" + "0," * 1_100_000 + "0]"))]))])},
        [{"process_group": ("tuple", [("double", 8), ("leaf", "default_pg")]), "pg_id": ("leaf", 0),
          "profiling_name": ("leaf", "nccl:all_reduce"), "collective_seq_id": ("leaf", "9" * 5000),
          "state": ("leaf", "started"), "input_dtypes": ("list", [("leaf", "Float"), ("list", [])]),
          "input_sizes": ("list", [("list", [("leaf", 4)] * 65), ("list", [("leaf", 1024)])])}]), notes=notes)
    assert summary["version"] == ""
    assert summary["pg_config"]["0"] == {"name": "0", "desc": "default_pg", "ranks": [0, 1, 2]}
    assert summary["pg_config"]["1"]["ranks"] == []
    entry = summary["groups"]["0"]["entries"][0]  # filed under its pg_id, the name being a tree
    assert entry["seq"] is None  # 5,000 digits: not a sequence number
    assert entry["in_dtypes"] == ["Float", ""] and entry["in_sizes"] == [[], [1024]]
    assert notes == ["fr_trace_2: flight-recorder dump: values not of their type or size left out "
                     "(input_dtypes, pg_config ranks, process_group name, tensor sizes, version)"]


def test_a_real_shape_loses_nothing() -> None:
    notes: list[str] = []
    summary = read_dump("fr_trace_0", _pickle(
        {"version": ("leaf", "2.10"), "pg_config": ("dict", [("0", ("dict", [("name", ("leaf", "0")),
                                                                              ("ranks", ("leaf", "[0, 1]"))]))])},
        [{"process_group": ("tuple", [("leaf", "0"), ("leaf", "default_pg")]),
          "profiling_name": ("leaf", "nccl:all_reduce"), "collective_seq_id": ("leaf", 1),
          "state": ("leaf", "completed")}]), notes=notes)
    assert notes == []
    assert summary["version"] == "2.10" and summary["groups"]["0"]["desc"] == "default_pg"


def test_a_json_dump_nested_past_the_parser_is_refused(tmp_path: Path) -> None:
    (tmp_path / "fr_trace_0.json").write_text('{"version": "2.10", "pg_config": {}, "pg_status": {}, "entries": ['
                                              + "[" * 100_000 + "]" * 100_000 + "]}")
    (tmp_path / "rank0.log").write_text("NCCL WARN something\n")
    d = diagnose(str(tmp_path)).to_dict()
    assert "fr_trace_0.json: JSON dump refused: nested too deep" in d["problems"]


def test_ras_json_fields_in_their_shape() -> None:
    notes: list[str] = []
    doc = {"nccl_version": "2.28.7", "ras": {"timeouts_count": 0}, "communicators": [{
        "hash": "abc", "size": 2,
        "ranks": [{"rank": 0, "host": ["node-a"] * 1000, "pid": "12", "cuda_dev": 0,
                   "collective_counts": {"AllReduce": 7}},
                  {"rank": 1, "host": "node-b", "pid": 13, "cuda_dev": 1, "collective_counts": [1, 2]}],
        "missing_ranks": [{"rank": 2, "host": {"x": 1}, "status": {"considered_dead": True}}]}]}
    [report] = read_ras("ras.json", json.dumps(doc).encode(), notes)
    comm = report["comms"]["abc"]
    assert comm["counts"] == {"0": {"AllReduce": 7}, "1": {}}
    assert comm["missing_ranks"] == [{"rank": 2, "gpu": "None", "pid": None, "host": None, "dead": True}]
    assert report["dead"] == [{"pid": None, "host": None, "gpus": "None", "line": 1}]
    assert notes == ["ras.json: NCCL RAS output: values not of their type or size left out "
                     "(collective_counts, host ×2, pid)"]


def test_ras_text_numbers_past_64_bits_are_no_numbers() -> None:
    text = "NCCL version 2.26.2\nJob summary\n===========\nErrors\n======\nDEAD\n" \
           f"  Process {'9' * 5000} on node node-a managing GPU 0\n"
    [report] = read_ras("ras.txt", text.encode())
    assert report["dead"] == [{"pid": None, "host": "node-a", "gpus": "0", "line": 7}]


def test_nvml_samples_and_error_files_and_snapshots_in_their_shape(tmp_path: Path) -> None:
    (tmp_path / "nvml.jsonl").write_text(json.dumps({"gpu": 0, "util": [1] * 100, "host": {"a": "b" * 100}}) + "\n"
                                         + json.dumps({"gpu": 1, "util": 50, "host": "node-a"}) + "\n")
    (tmp_path / "error.json").write_text(json.dumps({"message": {"message": ["not", "text"], "extraInfo": {
        "py_callstack": 5, "timestamp": "9" * 400}}}))
    (tmp_path / "snapshot.json").write_text(json.dumps({"schema": "nccl-triage/snapshot@1", "host": True,
                                                        "xid": [{"xid": "31"}, {"xid": 79, "text": "Xid 79"}],
                                                        "env": {"NCCL_DEBUG": "INFO", "X": {"deep": [1]}}}))
    d = diagnose(str(tmp_path)).to_dict()
    samples = d["timeline"]["gpu_samples"]
    problems = d["problems"]
    assert "nvml.jsonl: NVML samples: values not of their type or size left out (host, util)" in problems
    assert "snapshot.json: collector snapshot: values not of their type or size left out (env.*, host, xid.xid)" \
        in problems
    assert d["snapshots"][0]["env"] == {"NCCL_DEBUG": "INFO"} and "host" not in d["snapshots"][0]
    assert [(s["gpu"], s["util"], s["host"]) for s in samples] == [(0, None, None), (1, 50, "node-a")]
