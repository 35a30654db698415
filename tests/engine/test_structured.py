"""Structured bundle files recognised by content (structured.py): manifest, snapshot, NVML
samples, torchelastic error file, flight recorder (JSON and plain-data pickle)."""
from __future__ import annotations

import json
import os
import pickle
from datetime import datetime

import pytest

from triage.engine import diagnose
from triage.engine.structured import (
    RefusedPickle,
    StructuredDocs,
    elastic_error_summary,
    fr_summary,
    load_plain_pickle,
    parse_json_blob,
    parse_pickle_blob,
)

FR_DOC = {
    "version": "2.4",
    "pg_status": {"0": {"last_enqueued_collective": 12, "last_started_collective": 12, "last_completed_collective": 11}},
    "entries": [
        {"collective_seq_id": 11, "pg_id": 0, "profiling_name": "nccl:all_reduce", "state": "completed",
         "time_created_ns": 1_700_000_000_000_000_000, "is_p2p": False, "input_sizes": [[4]]},
        {"collective_seq_id": 12, "pg_id": 0, "profiling_name": "nccl:all_reduce", "state": "scheduled",
         "time_created_ns": 1_700_000_001_000_000_000, "is_p2p": False, "input_sizes": [[4]]},
    ],
}


def test_fr_summary():
    s = fr_summary(FR_DOC)
    assert s["last_completed"] == {"0": 11}
    assert s["stuck"] == {"seq": 12, "op": "all_reduce", "pg": 0, "sizes": [[4]], "state": "scheduled",
                          "time_ns": 1_700_000_001_000_000_000}
    assert s["last_time_ns"] == 1_700_000_001_000_000_000


def test_fr_json_and_pickle_filed_with_rank_from_name():
    docs = StructuredDocs()
    assert parse_json_blob("fr/nccl_trace_rank_3.json", json.dumps(FR_DOC).encode(), docs)
    assert parse_pickle_blob("fr/nccl_trace_rank_5", pickle.dumps(FR_DOC, protocol=4), docs) is None
    assert [(n, r) for n, r, _ in docs.flight_records] == [("fr/nccl_trace_rank_3.json", 3), ("fr/nccl_trace_rank_5", 5)]


@pytest.mark.parametrize("obj", [datetime(2020, 1, 1), os.getcwd, {1, 2}.__class__])
def test_pickle_with_any_global_is_refused(obj):
    with pytest.raises(RefusedPickle):
        load_plain_pickle(pickle.dumps({"x": obj}, protocol=4))


def test_pickle_not_fr_is_a_problem():
    docs = StructuredDocs()
    problem = parse_pickle_blob("x.pkl", pickle.dumps([1, 2, 3]), docs)
    assert problem == "x.pkl: pickle is not a flight-recorder dump, skipped"
    assert parse_pickle_blob("y.pkl", b"\x80\x04garbage", docs).startswith("y.pkl: unreadable pickle")


def test_elastic_error_file_nested():
    doc = {"message": {"message": "RuntimeError: CUDA error: an illegal memory access was encountered",
                       "extraInfo": {"py_callstack": "Traceback (most recent call last):\n  ...", "timestamp": "1735210276"}}}
    docs = StructuredDocs()
    assert parse_json_blob("error.json", json.dumps(doc).encode(), docs)
    assert len(docs.elastic_errors) == 1
    s = elastic_error_summary(doc)
    assert s["message"] == "RuntimeError: CUDA error: an illegal memory access was encountered"
    assert s["time"] == datetime.fromtimestamp(1735210276)
    assert s["callstack"].startswith("Traceback")


def test_elastic_error_file_plain_message_with_error_code():
    doc = {"message": "ValueError: bad", "timestamp": "1735210276", "errorCode": -6}
    s = elastic_error_summary(doc)
    assert (s["message"], s["error_code"], s["time"]) == ("ValueError: bad", -6, datetime.fromtimestamp(1735210276))


def test_nvml_samples_json_lines():
    lines = [
        {"host": "node-b", "gpu": 3, "time": "2026-05-05T06:16:47", "util": 0, "mem_used": 1234, "mem_total": 81920},
        {"host": "node-b", "gpu": 2, "time": "2026-05-05T06:16:47", "util": 99, "mem_used": 70000, "mem_total": 81920},
    ]
    docs = StructuredDocs()
    assert parse_json_blob("nvml.jsonl", "\n".join(json.dumps(x) for x in lines).encode(), docs)
    assert [(s["gpu"], s["util"], s["_line"]) for s in docs.nvml_samples] == [(3, 0, 1), (2, 99, 2)]


def test_unknown_json_is_not_structured():
    docs = StructuredDocs()
    assert parse_json_blob("x.json", b'{"hello": 1}', docs) is False
    assert parse_json_blob("y.json", b'[1, 2]', docs) is False


def test_snapshot_env_secrets_redacted(tmp_path):
    snap = {
        "schema": "nccl-triage/snapshot@1",
        "host": {"hostname": "node-b.cluster"},
        "env": {"NCCL_DEBUG": "INFO", "HF_TOKEN": "hf_abc", "AWS_SECRET_ACCESS_KEY": "s3cr3t", "DB_PASSWORD": "pw"},
        "versions": {"torch": "2.4.0", "nccl": "2.21.5"},
    }
    (tmp_path / "snapshot.json").write_text(json.dumps(snap))
    (tmp_path / "rank0.log").write_text("[rank0]: RuntimeError: CUDA error: invalid device ordinal\n")
    d = diagnose(tmp_path)
    assert len(d.snapshots) == 1
    env = d.snapshots[0]["env"]
    assert env["NCCL_DEBUG"] == "INFO"
    assert env["HF_TOKEN"] == env["AWS_SECRET_ACCESS_KEY"] == env["DB_PASSWORD"] == "[redacted]"
    assert "hf_abc" not in json.dumps(d.to_dict())
    assert d.versions["node-b"]["torch"] == "2.4.0"
    kinds = {s["name"]: s["kind"] for s in d.sources}
    assert kinds["snapshot.json"] == "snapshot"


def test_fr_pickle_in_bundle_gives_rank_last_seq(tmp_path):
    (tmp_path / "nccl_trace_rank_1").write_bytes(pickle.dumps(FR_DOC, protocol=4))
    d = diagnose(tmp_path)
    assert not d.problems
    r1 = next(r for r in d.ranks if r.rank == 1)
    assert r1.last_seq == 11


def _error_file(message: str, raised_in: str = "train.py") -> str:
    """An error file as torch.distributed.elastic.multiprocessing.errors.ErrorHandler writes it:
    the message as '{type(e).__name__}: {e}', the traceback as traceback.format_exc()."""
    callstack = (f'Traceback (most recent call last):\n  File "{raised_in}", line 7, in main\n    step()\n'
                 f"{message}\n")
    return json.dumps({"message": {"message": message,
                                   "extraInfo": {"py_callstack": callstack, "timestamp": "1735210276"}}})


def _found(path) -> list[tuple[str, str]]:
    return sorted((f.cause, f.rule) for f in diagnose(path).findings)


RECORDED = [
    "OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB",
    "RuntimeError: connect() timed out. Original timeout was 60000 ms.",
    "RendezvousConnectionError: The connection to the C10d store has failed. See inner exception for details.",
]


@pytest.mark.parametrize("message", RECORDED)
def test_an_error_file_alone_is_read_as_the_same_line_in_a_log(tmp_path, message):
    (tmp_path / "alone").mkdir()
    (tmp_path / "alone" / "error.json").write_text(_error_file(message))
    (tmp_path / "log").mkdir()
    (tmp_path / "log" / "worker.log").write_text(message + "\n")
    alone = _found(tmp_path / "alone")
    assert alone and alone == _found(tmp_path / "log")


@pytest.mark.parametrize("message", RECORDED)
def test_the_log_line_beside_an_error_file_is_the_finding(tmp_path, message):
    (tmp_path / "error.json").write_text(_error_file(message))
    (tmp_path / "worker.log").write_text(message + "\n")
    found = diagnose(tmp_path).findings
    assert sorted((f.cause, f.rule) for f in found) == _found_log_only(tmp_path, message)
    assert [{e.source for e in f.evidence} for f in found] == [{"worker.log"}] * len(found)


def _found_log_only(tmp_path, message: str) -> list[tuple[str, str]]:
    (tmp_path / "only").mkdir()
    (tmp_path / "only" / "worker.log").write_text(message + "\n")
    return _found(tmp_path / "only")


def test_an_error_file_beside_a_log_without_its_line_is_still_read(tmp_path):
    (tmp_path / "error.json").write_text(_error_file(RECORDED[0]))
    (tmp_path / "worker.log").write_text("node-a:10:10 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n"
                                         "epoch 3 step 120 loss 1.25\n")
    found = [(f.cause, f.rule, {e.source for e in f.evidence}) for f in diagnose(tmp_path).findings]
    assert found[:1] == [("oom", "oom.cuda_oom", {"error.json"})]


def test_the_traceback_of_a_message_of_several_lines_is_read(tmp_path):
    # traceback.format_exc() ends with the message's last line; the frames it recorded count.
    message = "RuntimeError: unexpected state 3\nwhile joining the rendezvous"
    where = "/usr/lib/python3/site-packages/torch/distributed/elastic/rendezvous/dynamic_rendezvous.py"
    (tmp_path / "error.json").write_text(_error_file(message, raised_in=where))
    assert [f.rule for f in diagnose(tmp_path).findings][:1] == ["signature.torch.raised_in.rendezvous"]
