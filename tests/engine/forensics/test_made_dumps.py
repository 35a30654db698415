"""Hand-made flight-recorder dumps in the published schema (torch/distributed/flight_recorder/
components/types.py and the writer's keys) for what gloo does not fill: NCCL states and times,
older versions, several process groups, p2p; and hostile pickles."""
from __future__ import annotations

import io
import json
import os
import pickle
import struct
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from triage.engine import diagnose
from triage.engine.forensics.flight_recorder import KEEP_ENTRIES, KEEP_POINTS, read_dump
from triage.engine.forensics.plainpickle import RefusedPickle, load_plain

RULE = "collective_timeout_straggler.flight_recorder_"
T0 = 1_764_685_321_000_000_000


def v(version: str) -> tuple[int, ...]:
    return tuple(int(x) for x in version.split("."))


def entry(seq: int, state: str = "completed", *, op: str = "all_reduce", pg: tuple[str, str] = ("0", "default_pg"),
          pg_id: int = 0, sizes: list[list[int]] | None = None, dtype: str = "Float", version: str = "2.10",
          backend: str = "nccl", frames: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    sizes = sizes if sizes is not None else [[1024]]
    e: dict[str, Any] = {
        "record_id": seq, "pg_id": pg_id, "profiling_name": f"{backend}:{op}", "time_created_ns": T0 + seq * 10**9,
        "input_sizes": sizes, "output_sizes": sizes, "state": state,
        "time_discovered_started_ns": T0 + seq * 10**9 + 1000 if state != "scheduled" else None,
        "time_discovered_completed_ns": T0 + seq * 10**9 + 5000 if state == "completed" else None,
        "retired": state == "completed", "frames": list(frames) if frames else [{"name": "train_step", "filename": "/job/train.py", "line": 40 + seq}],
    }
    if v(version) >= v("2.3"):
        e.update({"collective_seq_id": seq, "p2p_seq_id": 0, "op_id": seq, "process_group": list(pg), "timeout_ms": 600000})
    else:
        e["seq_id"] = seq
    if v(version) >= v("2.4"):
        e.update({"input_dtypes": [dtype], "output_dtypes": [dtype], "is_p2p": False})
    return e


def dump(entries: list[dict[str, Any]], *, ranks: str = "[0, 1, 2, 3]", version: str = "2.10",
         completed: int | None = None, enqueued: int | None = None, extra_pgs: dict[str, Any] | None = None) -> dict[str, Any]:
    doc: dict[str, Any] = {"version": version, "entries": entries}
    if v(version) >= v("2.1"):
        doc["pg_config"] = {"0": {"name": "0", "desc": "default_pg", "ranks": ranks}, **(extra_pgs or {})}
    if v(version) >= v("2.2") and completed is not None:
        doc["pg_status"] = {"0": {"last_enqueued_collective": enqueued, "last_started_collective": enqueued,
                                  "last_completed_collective": completed}}
    return doc


def write(folder: Path, docs: dict[int, dict[str, Any]], fmt: str = "pickle") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for rank, doc in docs.items():
        if fmt == "pickle":
            (folder / f"nccl_trace_rank_{rank}").write_bytes(pickle.dumps(doc, protocol=2))
        else:
            (folder / f"nccl_trace_rank_{rank}.json").write_text(json.dumps(doc))
    return folder


def test_nccl_a_rank_that_never_started_the_kernel_is_the_lagging_one(tmp_path: Path) -> None:
    # All four enqueued all_reduce #12; ranks 0, 1, 3 started it on the GPU, rank 1 ... rank 2's
    # stream never got to it (scheduled): rank 2 is behind.
    docs = {r: dump([entry(s) for s in range(1, 12)] + [entry(12, "scheduled" if r == 2 else "started")],
                    completed=11, enqueued=12) for r in range(4)}
    d = diagnose(write(tmp_path, docs)).to_dict()
    v = d["findings"][0]
    assert v["rule"] == RULE + "lagging_rank"
    assert v["ranks"] == [2]
    assert v["confidence"] == "medium"
    assert "Rank 2 had not started all_reduce #12 (scheduled) while ranks 0, 1 and 3 were in it" in v["detail"]
    g = d["collectives"]["groups"][0]
    assert g["last_completed_by_all"] == 11 and g["first_incomplete"] == 12
    assert {r: p["state"] for r, p in g["positions"].items()} == {"0": "started", "1": "started", "2": "scheduled", "3": "started"}
    assert g["positions"]["2"]["frames"] == [{"name": "train_step", "file": "/job/train.py", "line": 52}]


def test_nccl_all_ranks_in_the_same_state_name_nobody(tmp_path: Path) -> None:
    docs = {r: dump([entry(s) for s in range(1, 12)] + [entry(12, "started")], completed=11, enqueued=12) for r in range(4)}
    d = diagnose(write(tmp_path, docs)).to_dict()
    assert d["findings"] == []
    assert d["collectives"]["culprit"] is None
    assert d["collectives"]["groups"][0]["first_incomplete"] == 12


@pytest.mark.parametrize("fmt", ["pickle", "json"])
def test_nccl_size_mismatch_with_different_numel(tmp_path: Path, fmt: str) -> None:
    docs = {r: dump([entry(s) for s in range(1, 7)] + [entry(7, "started", sizes=[[4096]] if r == 1 else [[1024]])],
                    completed=6, enqueued=7) for r in range(4)}
    d = diagnose(write(tmp_path, docs, fmt)).to_dict()
    v = d["findings"][0]
    assert (v["rule"], v["ranks"]) == (RULE + "mismatch", [1])
    assert "Rank 1 ran all_reduce of input [[4096]] output [[4096]] as collective #7 where ranks 0, 2 and 3 ran all_reduce of input [[1024]]" in v["detail"]


def test_nccl_dtype_mismatch(tmp_path: Path) -> None:
    docs = {r: dump([entry(s) for s in range(1, 4)] + [entry(4, "started", dtype="BFloat16" if r == 3 else "Float")],
                    completed=3, enqueued=4) for r in range(4)}
    v = diagnose(write(tmp_path, docs)).to_dict()["findings"][0]
    assert (v["rule"], v["ranks"]) == (RULE + "mismatch", [3])
    assert "dtypes mismatch" in v["detail"] and "BFloat16" in v["detail"]


def test_two_ranks_disagreeing_name_no_culprit(tmp_path: Path) -> None:
    docs = {r: dump([entry(1), entry(2, "started", op="broadcast" if r else "all_reduce")], ranks="[0, 1]",
                    completed=1, enqueued=2) for r in range(2)}
    d = diagnose(write(tmp_path, docs)).to_dict()
    assert d["findings"] == []
    assert d["collectives"]["groups"][0]["mismatches"][0]["text"].startswith("the ranks disagree on collective #2 (op mismatch)")


def test_older_versions_without_collective_seq_id_or_pg_status(tmp_path: Path) -> None:
    # 2.0-era dumps: 'seq_id', no process_group, dtypes, is_p2p or pg_status.
    docs = {r: dump([entry(s, version="2.0") for s in range(1, 5 if r == 0 else 6)] + ([entry(6, "started", version="2.0")] if r else []),
                    version="2.0") for r in range(3)}
    v = diagnose(write(tmp_path, docs)).to_dict()["findings"][0]
    assert (v["rule"], v["ranks"]) == (RULE + "missing_rank", [0])
    assert v["detail"].startswith("Rank 0 never enqueued all_reduce #5; ranks 1 and 2 waited in it")


def test_a_subgroup_names_global_ranks_and_p2p_is_left_out(tmp_path: Path) -> None:
    # Group "7" (tp) of global ranks 1 and 3: rank 3 never enqueued its #3; p2p entries do not count.
    sub = {"7": {"name": "7", "desc": "tp", "ranks": "[1, 3]"}}
    docs = {}
    for r in range(4):
        es = [entry(s) for s in range(1, 4)]
        if r in (1, 3):
            es += [entry(s, pg=("7", "tp"), pg_id=1) for s in range(1, 3 if r == 3 else 4)]
            send = entry(9, op="send 0->1", pg=("7", "tp"), pg_id=1)
            send["is_p2p"] = True
            es.append(send)
        docs[r] = dump(es, extra_pgs=sub)
    d = diagnose(write(tmp_path, docs)).to_dict()
    v = d["findings"][0]
    assert (v["rule"], v["ranks"]) == (RULE + "missing_rank", [3])
    assert "Process group 7 (tp)" in v["detail"]
    tp = next(g for g in d["collectives"]["groups"] if g["pg"] == "7")
    assert tp["ranks"] == [1, 3] and tp["dumped"] == [1, 3]
    default = next(g for g in d["collectives"]["groups"] if g["pg"] == "0")
    assert default["culprit"] is None


def test_a_missing_dump_is_named_with_less_confidence(tmp_path: Path) -> None:
    docs = {r: dump([entry(s) for s in range(1, 5)] + [entry(5, "started")], ranks="[0, 1, 2, 3, 4, 5, 6, 7]",
                    completed=4, enqueued=5) for r in range(8) if r != 6}
    d = diagnose(write(tmp_path, docs)).to_dict()
    v = d["findings"][0]
    assert (v["rule"], v["ranks"], v["confidence"]) == (RULE + "no_dump", [6], "medium")
    assert d["collectives"]["groups"][0]["no_dump"] == [6]


def test_the_culprits_own_fault_leads(tmp_path: Path) -> None:
    """Rank 2 never enqueued #6 because it hit CUDA OOM: the OOM is the verdict."""
    docs = {r: dump([entry(s) for s in range(1, 6 if r == 2 else 7)], completed=5, enqueued=5 if r == 2 else 6) for r in range(4)}
    write(tmp_path, docs)
    (tmp_path / "rank2.log").write_text(
        "[rank2]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 2 has a total capacity of 79.15 GiB\n")
    d = diagnose(tmp_path).to_dict()
    assert d["findings"][0]["cause"] == "oom" and d["findings"][0]["ranks"] == [2]
    fr = next(f for f in d["findings"] if f["rule"].startswith(RULE))
    assert fr["confidence"] == "medium" and fr["ranks"] == [2]


# --- streaming and bounded memory ------------------------------------------------------------

def test_a_dump_of_20000_entries_streams_into_a_bounded_summary() -> None:
    frames = [{"name": f"f{i}", "filename": f"/job/m{i}.py", "line": i} for i in range(12)]
    doc = dump([entry(s, "completed" if s < 20000 else "started", frames=frames) for s in range(1, 20001)],
               completed=19999, enqueued=20000)
    data = pickle.dumps(doc, protocol=2)
    del doc
    tracemalloc.start()
    summary = read_dump("nccl_trace_rank_3", io.BufferedReader(io.BytesIO(data)))  # type: ignore[arg-type]
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    group = summary["groups"]["0"]
    assert summary["entries_total"] == 20000 and group["count"] == 20000
    assert len(group["entries"]) == KEEP_ENTRIES and group["entries"][-1]["seq"] == 20000
    assert len(group["points"]) <= KEEP_POINTS + 1 and group["points"][-1][0] == 20000
    assert sum(1 for e in group["entries"] if e["frames"]) == 1  # only where the rank stands
    assert summary["rank"] == 3
    # Read whole (pickle.loads), the 20,000 entries take many times what the streaming reader
    # ever holds (its read buffers included).
    tracemalloc.start()
    whole = pickle.loads(data)
    _, whole_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del whole
    assert peak * 5 < whole_peak, (peak, whole_peak)


def test_a_json_dump_streams_the_same() -> None:
    doc = dump([entry(s) for s in range(1, 3001)], completed=3000, enqueued=3000)
    a = read_dump("x/nccl_trace_rank_1.json", io.BufferedReader(io.BytesIO(json.dumps(doc).encode())))  # type: ignore[arg-type]
    b = read_dump("x/nccl_trace_rank_1", io.BufferedReader(io.BytesIO(pickle.dumps(doc, protocol=2))))  # type: ignore[arg-type]
    assert a["format"] == "json" and b["format"] == "pickle"
    a.pop("format"), b.pop("format"), a.pop("source"), b.pop("source")
    assert a == b


# --- hostile pickles -------------------------------------------------------------------------

class RunsCode:
    def __reduce__(self) -> Any:
        return (os.system, ("touch /tmp/i21-pwned",))


@pytest.mark.parametrize("protocol", [2, 3, 4, 5])
def test_a_pickle_that_would_run_code_is_refused_and_the_rest_diagnosed(tmp_path: Path, protocol: int) -> None:
    docs = {r: dump([entry(s) for s in range(1, 6 if r == 2 else 7)], completed=5, enqueued=5 if r == 2 else 6) for r in range(4)}
    write(tmp_path, {r: d for r, d in docs.items() if r != 1})
    evil = dump([entry(1)])
    evil["entries"][0]["frames"] = [RunsCode()]
    (tmp_path / "nccl_trace_rank_1").write_bytes(pickle.dumps(evil, protocol=protocol))
    d = diagnose(tmp_path).to_dict()
    assert not Path("/tmp/i21-pwned").exists()
    refused = [p for p in d["problems"] if p.startswith("nccl_trace_rank_1")]
    assert len(refused) == 1
    assert "pickle refused" in refused[0] and "GLOBAL posix.system" in refused[0] and "only plain data" in refused[0]
    # Ranks 0, 2, 3 still read: rank 2 never enqueued #6.
    v = d["findings"][0]
    assert (v["rule"], v["ranks"]) == (RULE + "missing_rank", [2])
    assert d["collectives"]["groups"][0]["no_dump"] == [1]


@pytest.mark.parametrize(("data", "words"), [
    (b"\x80\x02X" + struct.pack("<I", 2**31) + b"abc", "asks for a 2147483648-byte string"),
    (b"\x80\x04\x8d" + struct.pack("<Q", 2**60), "asks for a 1152921504606846976-byte string"),
    (b"\x80\x02B" + struct.pack("<I", 2**30), "asks for a 1073741824-byte bytes object"),
    (b"\x80\x02]q\x00(" + b"h\x00" * 2_100_000 + b"e.", "more than 2000000 objects"),
    (b"\x80\x02" + b"(" * 100, "nests too deep"),
    (b"\x80\x02\x8a\xff" + b"\x01" * 255, "integer of 255 bytes"),
    (b"\x80\x02cos\nsystem\nq\x00.", "GLOBAL os.system"),
    (b"\x80\x02\x8f.", "EMPTY_SET"),
    (b"\x80\x02}q\x00(X\x01\x00\x00\x00a", "truncated"),
])
def test_pickles_that_ask_too_much_are_refused(data: bytes, words: str) -> None:
    with pytest.raises(RefusedPickle) as info:
        load_plain(io.BytesIO(data))
    assert words in str(info.value)


def test_plain_data_of_every_protocol_is_read_as_pickle_reads_it() -> None:
    doc: dict[str, Any] = {"a": [1, -2, 2**40, -(2**70), 1.5, None, True, False, "é", (1, 2), (), (3,), (4, 5, 6)],
                           "b": {"nested": [{"x": 1}] * 3}}
    for protocol in range(2, 6):
        assert load_plain(io.BytesIO(pickle.dumps(doc, protocol=protocol))) == doc
    doc["c"] = b"\x00\x01" * 200  # bytes: protocol 3 and later (2 spells them as a _codecs call)
    for protocol in range(3, 6):
        assert load_plain(io.BytesIO(pickle.dumps(doc, protocol=protocol))) == doc


def test_dumps_survive_the_partial_states_of_a_fan_out(tmp_path: Path) -> None:
    """Bundles parsed by several workers (partial.py) and merged: the same verdict."""
    from triage.engine.partial import PartialState, parse_members
    from triage.engine.pipeline import conclude

    docs = {r: dump([entry(s) for s in range(1, 6 if r == 2 else 7)], completed=5, enqueued=5 if r == 2 else 6) for r in range(4)}
    write(tmp_path / "a", {r: d for r, d in docs.items() if r < 2})
    write(tmp_path / "b", {r: d for r, d in docs.items() if r >= 2}, fmt="json")
    states = [PartialState.from_bytes(parse_members(str(tmp_path / part)).to_bytes()) for part in ("a", "b")]
    d = conclude(states).to_dict()
    assert (d["findings"][0]["rule"], d["findings"][0]["ranks"]) == (RULE + "missing_rank", [2])
    assert d["collectives"]["groups"][0]["dumped"] == [0, 1, 2, 3]


def _lagging_docs() -> dict[int, dict[str, Any]]:
    return {r: dump([entry(s) for s in range(1, 12)] + [entry(12, "scheduled" if r == 2 else "started")],
                    completed=11, enqueued=12) for r in range(4)}


def test_a_dumps_rank_is_its_content_or_torchs_default_name_never_any_trailing_digits(tmp_path: Path) -> None:
    docs = _lagging_docs()
    # torch's default name says the rank.
    d = diagnose(write(tmp_path / "default", docs)).to_dict()
    assert d["findings"][0]["ranks"] == [2]
    # A name a person chose: its digits say nothing ('job_2024.pkl' is no rank 2024), so no
    # rank is invented and none is named.
    (tmp_path / "renamed").mkdir()
    for rank, doc in docs.items():
        (tmp_path / "renamed" / f"job_{2021 + rank}.pkl").write_bytes(pickle.dumps(doc, protocol=2))
    d = diagnose(tmp_path / "renamed").to_dict()
    assert not any(2021 <= r["rank"] <= 2024 for r in d["ranks"] if r["rank"] is not None), d["ranks"]
    assert all(r < 2021 for f in d["findings"] for r in f["ranks"]), d["findings"]
    assert not any(f["rule"] == RULE + "lagging_rank" and f["ranks"] for f in d["findings"])
    # A dump that holds its own rank: that one, whatever the file is called.
    (tmp_path / "own").mkdir()
    for rank, doc in docs.items():
        (tmp_path / "own" / f"k{7 - rank}x9").write_bytes(pickle.dumps({**doc, "rank": rank}, protocol=2))
    d = diagnose(tmp_path / "own").to_dict()
    assert d["findings"][0]["rule"] == RULE + "lagging_rank" and d["findings"][0]["ranks"] == [2]
