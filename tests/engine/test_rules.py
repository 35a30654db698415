"""Rules on small multi-rank bundles written the way real jobs write them: the culprit is the
rank whose own fault came first, whatever wording or path the fault took to the log."""
from __future__ import annotations

from pathlib import Path

import pytest

from triage.engine import diagnose

WATCHDOG_TIMEOUT = (
    "[rank{r}]:[E1202 14:32:01.123456789 ProcessGroupNCCL.cpp:616] [Rank {r}] Watchdog caught collective operation timeout: "
    "WorkNCCL(SeqNum=120, OpType=ALLREDUCE, NumelIn=1000, NumelOut=1000, Timeout(ms)=600000) ran for 600010 milliseconds before timing out.\n"
    "[rank{r}]:[E1202 14:32:01.124456789 ProcessGroupNCCL.cpp:1664] [PG ID 0 PG GUID 0(default_pg) Rank {r}] Exception (either an error "
    "or timeout) detected by watchdog at work: 120, last enqueued NCCL work: 120, last completed NCCL work: 119.\n"
)


def watchdog_fault(rank: int, cuda_error: str) -> str:
    return (
        f"[rank{rank}]:[E1202 14:22:01.123456789 ProcessGroupNCCL.cpp:1414] [PG ID 0 PG GUID 0(default_pg) Rank {rank}] "
        f"Process group watchdog thread terminated with exception: CUDA error: {cuda_error}\n"
        "terminate called after throwing an instance of 'c10::DistBackendError'\n"
        f"  what():  [PG ID 0 PG GUID 0(default_pg) Rank {rank}] Process group watchdog thread terminated with exception: CUDA error: {cuda_error}\n"
    )


def bundle(tmp_path: Path, files: dict[str, str]) -> Path:
    tmp_path.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    return tmp_path


def test_a_kernel_fault_found_by_the_watchdog_is_that_ranks_crash(tmp_path: Path) -> None:
    path = bundle(tmp_path, {
        "rank3.log": watchdog_fault(3, "an illegal memory access was encountered"),
        "rank1.log": WATCHDOG_TIMEOUT.format(r=1),
        "rank0.log": WATCHDOG_TIMEOUT.format(r=0),
    })
    d = diagnose(path).to_dict()
    assert d["findings"][0]["cause"] == "rank_crash"
    assert d["first_failure"]["rank"] == 3
    states = {r["rank"]: r["state"] for r in d["ranks"]}
    assert states[3] == "crashed" and states[1] == "errored"


def test_an_ecc_error_found_by_the_watchdog_is_a_hardware_fault(tmp_path: Path) -> None:
    path = bundle(tmp_path, {
        "rank5.log": watchdog_fault(5, "uncorrectable ECC error encountered"),
        "rank0.log": WATCHDOG_TIMEOUT.format(r=0),
    })
    d = diagnose(path).to_dict()
    assert d["findings"][0]["cause"] == "hardware_fault"
    assert d["first_failure"]["rank"] == 5


def test_nccl_2_30_ib_completion_wording(tmp_path: Path) -> None:
    line = (
        "[2026-05-05 06:16:47] node-b:4242:4300 [2] transport/net_ib/p2p.cc:512 (ncclIbCompletionCheck) NCCL WARN "
        "NET/IB: Got completion from peer 10.0.0.7<51234> with status=IBV_WC_RETRY_EXC_ERR(12) opcode=IBV_WC_RECV(128) "
        "vendor_err=129 localGid ::ffff:10.0.0.8 remoteGid ::ffff:10.0.0.7 hca mlx5_1\n"
    )
    init = (
        "node-b:4242:4280 [2] NCCL INFO ncclCommInitRankConfig comm 0x55a1 rank 10 nranks 16 cudaDev 2 nvmlDev 2 "
        "busId 3b000 commId 0x9f3c1e2d4b5a6978 - Init COMPLETE\n"
    )
    d = diagnose(bundle(tmp_path, {"nccl_node-b_4242.log": init + line})).to_dict()
    verdict = d["findings"][0]
    assert verdict["cause"] == "network" and verdict["rule"] == "network.ib_completion_error"
    assert d["first_failure"]["rank"] == 10 and d["first_failure"]["host"] == "node-b"
    assert d["first_failure"]["time"] == "2026-05-05T06:16:47"


def test_a_raised_timeout_is_called_out_when_a_rank_crashed(tmp_path: Path) -> None:
    slow = WATCHDOG_TIMEOUT.format(r=0).replace("Timeout(ms)=600000", "Timeout(ms)=7200000")
    crash = "[rank2]: Traceback (most recent call last):\n[rank2]:   File \"train.py\", line 9, in <module>\n[rank2]: KeyError: 'labels'\n"
    d = diagnose(bundle(tmp_path, {"rank0.log": slow, "rank2.log": crash})).to_dict()
    assert d["findings"][0]["cause"] == "rank_crash" and d["first_failure"]["rank"] == 2
    assert any("Raising the timeout never fixes a crashed rank" in n for n in d["notes"])


def test_no_nccl_lines_says_what_is_unknown(tmp_path: Path) -> None:
    d = diagnose(bundle(tmp_path, {"train.log": "epoch 1 loss 2.3\nepoch 2 loss 2.1\n"})).to_dict()
    assert d["findings"] == []
    assert any("NCCL_DEBUG=INFO was probably not set" in n for n in d["notes"])


def fr_dump(rank: int, last_completed: int, stuck_seq: int) -> dict:
    """A flight-recorder dump as torch writes it (docs/log-formats.md 2.7), plain data only."""
    return {
        "version": "2.10",
        "pg_config": {"0": {"name": "0", "desc": "default_pg", "ranks": "[0, 1, 2, 3]"}},
        "pg_status": {"0": {"last_enqueued_collective": stuck_seq, "last_started_collective": stuck_seq,
                            "last_completed_collective": last_completed}},
        "entries": [
            {"record_id": 1, "pg_id": 0, "process_group": ["0", "default_pg"], "collective_seq_id": stuck_seq,
             "p2p_seq_id": 0, "op_id": stuck_seq, "profiling_name": "nccl:all_reduce", "time_created_ns": 1764685321000000000,
             "input_sizes": [[1024]], "input_dtypes": ["Float"], "output_sizes": [[1024]], "output_dtypes": ["Float"],
             "state": "started", "time_discovered_started_ns": 1764685321000500000, "time_discovered_completed_ns": None,
             "retired": False, "timeout_ms": 600000, "is_p2p": False},
        ],
    }


def test_flight_recorder_dumps_name_the_rank_behind(tmp_path: Path) -> None:
    import json
    import pickle

    for rank in range(4):
        behind = rank == 2
        doc = fr_dump(rank, 99 if behind else 100, 100 if behind else 101)
        if rank % 2:
            # torch writes pickles; they go through the plain-data loader.
            (tmp_path / f"nccl_trace_rank_{rank}").write_bytes(pickle.dumps(doc, protocol=2))
        else:
            (tmp_path / f"nccl_trace_rank_{rank}.json").write_text(json.dumps(doc))
    for r in (0, 1, 3):
        (tmp_path / f"rank{r}.log").write_text(WATCHDOG_TIMEOUT.format(r=r).replace("SeqNum=120", "SeqNum=101").replace(
            "at work: 120, last enqueued NCCL work: 120, last completed NCCL work: 119", "at work: 101, last enqueued NCCL work: 101, last completed NCCL work: 100"))
    d = diagnose(tmp_path).to_dict()
    verdict = d["findings"][0]
    assert verdict["cause"] == "collective_timeout_straggler"
    assert verdict["ranks"] == [2]
    assert d["first_failure"]["rank"] == 2
    assert {r["rank"]: r["last_seq"] for r in d["ranks"]}[2] == 99


def test_the_host_comes_from_nccl_lines_not_the_folder_name(tmp_path: Path) -> None:
    folder = tmp_path / "job-42"
    folder.mkdir()
    (folder / "rank3.log").write_text(
        "gpu7:4242:4300 [3] NCCL INFO ncclCommInitRank comm 0x55a1 rank 3 nranks 4 cudaDev 3 nvmlDev 3 busId 3b000 "
        "commId 0x1 - Init COMPLETE\n"
        "Traceback (most recent call last):\n  File \"train.py\", line 9, in <module>\nValueError: bad batch\n"
    )
    (folder / "rank0.log").write_text(WATCHDOG_TIMEOUT.format(r=0))
    d = diagnose(tmp_path).to_dict()
    assert d["first_failure"]["rank"] == 3
    assert d["first_failure"]["host"] == "gpu7"


P2P_RUN = [
    "node-a:4242:4300 [0] NCCL INFO ncclCommInitRank comm 0x55d1c2a0e3b0 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 18000 commId 0x1 - Init START",
    "node-a:4242:4300 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read",
    "node-a:4242:4300 [0] NCCL INFO Connected all rings",
    "node-a:4242:4300 [0] NCCL INFO ncclCommInitRank comm 0x55d1c2a0e3b0 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 18000 commId 0x1 - Init COMPLETE",
    "[rank0]: step 100 loss 2.31",
]


def _rules(path: Path) -> list[tuple[str, str]]:
    return [(f["rule"], f["confidence"]) for f in diagnose(path).to_dict()["findings"]]


def test_logs_ending_after_p2p_setup_say_nothing(tmp_path: Path) -> None:
    # No line failed: a log that merely ends is no evidence of a P2P hang (the rule that guessed
    # one fired on a single corpus case and was removed).
    assert _rules(bundle(tmp_path, {"rank0.log": "\n".join(P2P_RUN) + "\n"})) == []


def test_a_run_that_tore_its_communicator_down_did_not_hang_after_p2p_setup(tmp_path: Path) -> None:
    # NCCL's proxy logs 'Connection closed by localRank' (INFO, subsystem DESTROY) at every
    # normal shutdown; torch aborts the communicator when the program exits without destroying it.
    ending = [
        "node-a:4242:4310 [0] NCCL INFO [Service thread] Connection closed by localRank 0",
        "node-a:4242:4242 [0] NCCL INFO comm 0x55d1c2a0e3b0 rank 0 nranks 2 cudaDev 0 busId 18000 - Abort COMPLETE",
    ]
    d = diagnose(bundle(tmp_path, {"rank0.log": "\n".join(P2P_RUN + ending) + "\n"})).to_dict()
    assert d["findings"] == [] and d["first_failure"] is None


def test_torchrun_reporting_the_workers_finished_ends_the_p2p_hint(tmp_path: Path) -> None:
    done = "[2026-12-01 10:20:01,000] torch.distributed.elastic.agent.server.api: [INFO] [default] worker group successfully finished. Waiting 300 seconds for other agents to finish."
    assert _rules(bundle(tmp_path, {"rank0.log": "\n".join(P2P_RUN + [done]) + "\n"})) == []


def test_a_remote_peer_closing_the_socket_is_still_reported(tmp_path: Path) -> None:
    line = "node-a:4242:4300 [0] misc/socket.cc:58 NCCL WARN socketProgress: Connection closed by remote peer node-b<43127>"
    findings = diagnose(bundle(tmp_path, {"rank0.log": line + "\n"})).to_dict()["findings"]
    # Low: the peer's own line is not here, so nothing says which process stopped, nor why
    # (ranking: the residual cause read from no line of the failing process's own).
    assert [(f["rule"], f["cause"], f["confidence"]) for f in findings[:1]] == [
        ("signature.nccl.socket.connection_closed", "rank_crash", "low")]


RETRIES = [
    f"[W1201 10:00:0{i}.000000 socket.cpp:697] [c10d] The client socket has failed to connect to [node-m]:29500 (errno: 111 - Connection refused)."
    for i in range(1, 6)
]


def test_connect_retries_that_never_get_through_are_an_unreachable_store(tmp_path: Path) -> None:
    assert _rules(bundle(tmp_path, {"rank3.log": "\n".join(RETRIES) + "\n"}))[:1] == [("rendezvous_hang.store_unreachable", "high")]


def test_connect_retries_before_the_master_listens_are_part_of_a_healthy_start(tmp_path: Path) -> None:
    # c10d warns on every retry while the master starts; NCCL setting up its communicator
    # afterwards shows the store was reached (the unique id goes through it).
    d = diagnose(bundle(tmp_path, {"rank3.log": "\n".join(f"[rank0]:{line}" for line in RETRIES + P2P_RUN[:2]) + "\n"})).to_dict()
    assert [f["rule"] for f in d["findings"] if f["cause"] == "rendezvous_hang"] == []
    # The retries are c10d warnings ([W...]): the rank is not drawn as failed either.
    assert [r["state"] for r in d["ranks"] if r["rank"] == 0] == ["ok"]


def test_connect_retries_followed_by_a_long_run_without_nccl_lines_got_through(tmp_path: Path) -> None:
    # NCCL_DEBUG unset: nothing names the store as reached, but the process went on for a
    # hundred lines of training and nothing failed.
    steps = [f"[rank3]: step {i} loss {2.5 - i / 100:.3f}" for i in range(100)]
    assert _rules(bundle(tmp_path, {"rank3.log": "\n".join(RETRIES + steps) + "\n"})) == []


TCPSTORE_RETRIES = [
    f"[W1202 14:00:0{i}.000000000 TCPStore.cpp:340] [c10d] TCP client failed to connect/validate to host node-m:29500 - retrying "
    f"(try={i}, timeout=1800000ms, delay=496ms): The server socket on node-m:29500 is not yet listening (errno: 111 - Connection refused), will retry."
    for i in range(5)
]


def test_tcpstore_retries_are_retries_not_store_errors(tmp_path: Path) -> None:
    # torch >= 2.3 words the retry in TCPStore.cpp; it quotes the attempt's error, and is a warning.
    assert _rules(bundle(tmp_path / "hang", {"rank3.log": "\n".join(TCPSTORE_RETRIES) + "\n"}))[:1] == [
        ("rendezvous_hang.store_unreachable", "high")]
    bootstrap = "node-b:4242:4242 [3] NCCL INFO Bootstrap : Using eth0:10.0.0.2<0>"
    d = diagnose(bundle(tmp_path / "ok", {"rank3.log": "\n".join(f"[rank3]:{line}" for line in TCPSTORE_RETRIES + [bootstrap]) + "\n"})).to_dict()
    assert d["findings"] == []
    assert [r["state"] for r in d["ranks"] if r["rank"] == 3] == ["ok"]


def test_a_store_reconnect_after_nccl_was_set_up_is_no_rendezvous_hang(tmp_path: Path) -> None:
    # The ranks had all joined (NCCL built its communicator); one retry later and the log's end.
    lines = P2P_RUN[:4] + RETRIES[:1] + [f"[rank0]: step {i} loss 2.0" for i in range(5)]
    assert [r for r in _rules(bundle(tmp_path, {"rank0.log": "\n".join(lines) + "\n"})) if r[0].startswith("rendezvous")] == []


def test_connect_retries_then_the_store_timing_out_are_an_unreachable_store(tmp_path: Path) -> None:
    steps = [f"[rank3]: waiting {i}" for i in range(100)]
    timeout = ("torch.distributed.DistNetworkError: The client socket has timed out after 900000ms while trying to "
               "connect to (node-m, 29500).")
    rules = _rules(bundle(tmp_path, {"rank3.log": "\n".join(RETRIES + steps + [timeout]) + "\n"}))
    assert rules[:1] == [("rendezvous_hang.store_unreachable", "high")]


GID_WARN = "node-a:4242:4300 [0] transport/net_ib.cc:120 NCCL WARN NET/IB : mlx5_2:1 Got async event : GID table change"
TEARDOWN = "node-a:4242:4242 [0] NCCL INFO comm 0x55d1c2a0e3b0 rank 0 nranks 2 cudaDev 0 busId 18000 - Destroy COMPLETE"


def test_a_warning_the_run_got_past_is_only_a_low_hint(tmp_path: Path) -> None:
    log = P2P_RUN[:1] + [GID_WARN] + P2P_RUN[1:] + [TEARDOWN]
    assert _rules(bundle(tmp_path, {"rank0.log": "\n".join(log) + "\n"})) == [("signature.nccl.ib.gid_table_changed", "low")]


def test_the_same_warning_where_the_run_stops_keeps_its_confidence(tmp_path: Path) -> None:
    log = P2P_RUN[:1] + [GID_WARN] + P2P_RUN[1:]
    assert _rules(bundle(tmp_path, {"rank0.log": "\n".join(log) + "\n"}))[:1] == [("signature.nccl.ib.gid_table_changed", "medium")]


def test_a_teardown_after_a_crash_is_no_sign_the_run_survived(tmp_path: Path) -> None:
    crash = ["Traceback (most recent call last):", '  File "/opt/train.py", line 12, in <module>', "RuntimeError: boom"]
    log = P2P_RUN[:1] + [GID_WARN] + P2P_RUN[1:] + crash + [TEARDOWN]
    assert ("signature.nccl.ib.gid_table_changed", "medium") in _rules(bundle(tmp_path, {"rank0.log": "\n".join(log) + "\n"}))


def test_a_warning_before_c10d_reported_the_nccl_error_was_not_survived(tmp_path: Path) -> None:
    ib = ("node-a:4242:4300 [0] transport/net_ib.cc:1295 NCCL WARN NET/IB : Got completion from peer 10.0.0.2<46587> "
          "with status=12 opcode=0 len=0 vendor err 129 (Recv) localGid ::ffff:10.0.0.1 remoteGidsfe80::")
    c10d = ("[rank0]:[E1201 10:05:00.000000 ProcessGroupNCCL.cpp:1700] [PG ID 0 PG GUID 0(default_pg) Rank 0] Process group "
            "watchdog thread terminated with exception: NCCL error: remote process exited or there was a network error, "
            "NCCL version 2.21.5")
    abort = "node-a:4242:4242 [0] NCCL INFO comm 0x55d1c2a0e3b0 rank 0 nranks 2 cudaDev 0 busId 18000 - Abort COMPLETE"
    findings = diagnose(bundle(tmp_path, {"rank0.log": "\n".join(P2P_RUN + [ib, c10d, abort]) + "\n"})).to_dict()["findings"]
    assert findings[0]["cause"] == "network" and findings[0]["confidence"] != "low"


def _watchdog_timeout(rank: int, op: str, seq: int = 120) -> str:
    return (f"[rank{rank}]:[E1201 10:30:00.000000 ProcessGroupNCCL.cpp:616] [Rank {rank}] Watchdog caught collective "
            f"operation timeout: WorkNCCL(SeqNum={seq}, OpType={op}, NumelIn=4194304, NumelOut=4194304, Timeout(ms)=600000) "
            "ran for 600012 milliseconds before timing out.\n")


def test_a_desync_rank_that_reported_another_collective_is_errored_not_silent(tmp_path: Path) -> None:
    files = {f"rank{r}.log": _watchdog_timeout(r, "BROADCAST" if r == 2 else "ALLREDUCE") for r in range(4)}
    d = diagnose(bundle(tmp_path, files)).to_dict()
    assert d["findings"][0]["rule"] == "collective_timeout_straggler.desync"
    states = {r["rank"]: r["state"] for r in d["ranks"]}
    assert states[2] == "errored" and "silent" not in states.values(), states


def test_straggler_evidence_leaves_out_events_by_identity_not_equality():
    from triage.engine.model import Event
    from triage.engine.rules.common import without

    a = Event(kind="watchdog_timeout", source="r0.log", line=3, text="same")
    b = Event(kind="watchdog_timeout", source="r0.log", line=3, text="same")  # equal, not the same
    assert a == b
    assert without([a, b], [a]) == [b] and without([a, b], [a])[0] is b
    assert without([a, b], []) == [a, b]


def test_xla_out_of_memory_behind_a_prefix_with_units_is_an_oom(tmp_path: Path) -> None:
    line = "[rank3]: jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 25.39GiB."
    # On its own the line is the only failing one: the catalog's `high` is not earned yet.
    assert _rules(bundle(tmp_path / "alone", {"rank3.log": line + "\n"}))[:1] == [("signature.xla.oom", "medium")]
    exits = line + ("\n[2026-11-03 10:00:06,000] torch.distributed.elastic.multiprocessing.api: [ERROR] failed "
                    "(exitcode: 1) local_rank: 3 (pid: 4242) of binary: /usr/bin/python\n")
    assert _rules(bundle(tmp_path / "exit", {"rank3.log": exits}))[:1] == [("signature.xla.oom", "high")]


def test_tensorflow_saying_its_allocation_retry_is_not_a_failure_stays_quiet(tmp_path: Path) -> None:
    line = ("2026-12-01 10:00:00.000000: W tensorflow/core/common_runtime/bfc_allocator.cc:290] Allocator (GPU_0_bfc) ran "
            "out of memory trying to allocate 2.20GiB with freed_by_count=0. The caller indicates that this is not a failure, "
            "but this may mean that there could be performance gains if more memory were available.")
    assert _rules(bundle(tmp_path, {"worker0.log": line + "\n"})) == []


def _named_cuda_faults() -> list[tuple[str, str, str]]:
    from triage.engine.signatures import SOURCES

    return [
        (sig.id, sig.cause, sample)
        for sig in SOURCES["cuda"]
        if sig.id.startswith("cuda.rt.") and sig.role == "fault" and sig.cause not in (None, "rank_crash", "other")
        and sig.confidence != "low"
        for sample in sig.samples
    ]


@pytest.mark.parametrize(("sig_id", "cause", "sample"), _named_cuda_faults())
def test_a_cuda_error_the_catalog_names_is_that_cause_not_a_crash(tmp_path: Path, sig_id: str, cause: str, sample: str) -> None:
    # The CUDA parser's own table knows a few cudaError_t texts; for the rest (peer access
    # unsupported, PTX JIT, contained errors, ...) the catalog's cause outranks 'the rank crashed'.
    traceback = 'Traceback (most recent call last):\n  File "train.py", line 9, in <module>\n    loss.backward()\n'
    d = diagnose(bundle(tmp_path, {"rank0.log": traceback + sample + "\n"})).to_dict()
    top = d["findings"][0]
    # This entry, a more specific one for the same wording, or the cause's own rule (oom.cuda_oom).
    assert (top["cause"], top["rule"].startswith("rank_crash")) == (cause, False), sig_id


@pytest.mark.parametrize("text", ["an illegal memory access was encountered", "operation not supported", "unknown error"])
def test_a_cuda_error_the_catalog_is_unsure_of_stays_the_ranks_crash(tmp_path: Path, text: str) -> None:
    line = f"RuntimeError: CUDA error: {text}\n"
    rules = [f["rule"] for f in diagnose(bundle(tmp_path, {"rank0.log": line})).to_dict()["findings"]]
    assert rules[:1] == ["rank_crash.cuda_error"]


def _named_faults() -> list[tuple[str, str]]:
    """Every fault the catalog is sure of (by the entry's own role, cause and confidence), with
    its first sample: none left out by what the matcher or the engine answers. Where another
    entry reads the sample (test_catalog_verdicts holds them to agree, or to say why), the tests
    below expect that reading's cause, and only its presence where the reading is unsure."""
    from triage.engine.signatures import CATALOG

    return [(sig.id, sig.samples[0]) for sig in CATALOG
            if sig.role == "fault" and sig.cause not in (None, "collective_timeout_straggler") and sig.confidence != "low"]


NAMED_FAULTS = _named_faults()


def _meaning(sample: str) -> tuple[str, bool]:
    """The cause the catalog gives the line (its entry, or the entry that reads it, which agrees
    or says why not: test_catalog_verdicts), not the engine's own answer; and whether that
    reading is sure of it (not `low`)."""
    from triage.engine.signatures.matcher import matcher

    found = matcher().best(sample)
    assert found is not None and found.sig.cause is not None, sample
    return found.sig.cause, found.sig.confidence != "low"


@pytest.mark.parametrize(("sig_id", "sample"), NAMED_FAULTS)
def test_a_named_fault_outranks_other_ranks_timing_out(tmp_path: Path, sig_id: str, sample: str) -> None:
    # NCCL's WARN lines and dmesg's carry no wall-clock time, the watchdog's do: a rank's own fault
    # still comes before 'the others timed out waiting for someone not in these logs'.
    d = diagnose(bundle(tmp_path, {
        "rank0.log": sample + "\n",
        "rank1.log": WATCHDOG_TIMEOUT.format(r=1),
        "rank2.log": WATCHDOG_TIMEOUT.format(r=2),
    })).to_dict()
    cause, sure = _meaning(sample)
    if sure:
        assert d["findings"][0]["rule"] != "collective_timeout_straggler.timeout", sig_id
    else:  # the line is read by an entry unsure of it: its cause is still reported
        assert cause in [f["cause"] for f in d["findings"]], sig_id


# What the other ranks print once one process died of its own fault (NCCL's and PyTorch's
# downstream messages): a flushed IB queue pair, a refused connect, a closed socket, the unique
# id never published, a remote error, the watchdog's status line.
DOWNSTREAM = ("nccl.ib.completion_flush_error", "nccl.socket.connect_refused", "nccl.socket.connection_closed",
              "torch.pgnccl.uniqueid_store_timeout", "torch.nccl.error_remote", "torch.pgnccl.watchdog_work_status")


@pytest.mark.parametrize(("sig_id", "sample"), NAMED_FAULTS)
def test_a_named_fault_outranks_what_the_other_ranks_print_after_it(tmp_path: Path, sig_id: str, sample: str) -> None:
    from triage.engine.rules.signature import BY_ID

    cause, sure = _meaning(sample)
    files = {"rank0.log": sample + "\n"}
    files.update({f"rank{i}.log": BY_ID[s].samples[0] + "\n" for i, s in enumerate(DOWNSTREAM, 1)})
    findings = diagnose(bundle(tmp_path / "job", files)).to_dict()["findings"]
    # The catalog's cause for the fault's line is still the verdict (reported at least, where
    # the entry that reads the line is unsure of it).
    if sure:
        assert findings[0]["cause"] == cause, (sig_id, findings[0]["rule"])
    else:
        assert cause in [f["cause"] for f in findings], sig_id


TORCHRUN_RECORD = """[2026-11-03 10:00:05,000] torch.distributed.elastic.multiprocessing.api: [WARNING] Sending process 4243 closing signal SIGTERM
[2026-11-03 10:00:06,000] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: 1) local_rank: 0 (pid: 4242) of binary: /usr/bin/python
torch.distributed.elastic.multiprocessing.errors.ChildFailedError:
Root Cause (first observed failure):
[0]:
  time      : 2026-11-03_10:00:05
  host      : node-a
  rank      : 0 (local_rank: 0)
  exitcode  : 1 (pid: 4242)
  error_file: <N/A>
  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html
"""


@pytest.mark.parametrize(("sig_id", "sample"), NAMED_FAULTS)
def test_a_named_fault_outranks_the_launchers_record_of_the_exit_it_caused(tmp_path: Path, sig_id: str, sample: str) -> None:
    # torchrun's record is timed and the fault's line often is not; exit code 1 only says the
    # process gave up, the line before it says why.
    cause, sure = _meaning(sample)
    findings = diagnose(bundle(tmp_path / "job", {"node-a.log": sample + "\n" + TORCHRUN_RECORD})).to_dict()["findings"]
    if sure:
        assert findings[0]["cause"] == cause, (sig_id, findings[0]["rule"])
    else:  # read by an entry unsure of it: reported, not necessarily first
        assert cause in [f["cause"] for f in findings], sig_id


def test_an_exit_nothing_explains_is_still_the_first_failure(tmp_path: Path) -> None:
    d = diagnose(bundle(tmp_path, {"node-a.log": TORCHRUN_RECORD})).to_dict()
    # Low: the launcher's record says who stopped first, not why (the rank's own output is not here).
    assert [(f["rule"], f["confidence"]) for f in d["findings"][:1]] == [("rank_crash.exit", "low")]
    assert d["first_failure"]["rank"] == 0


# The same faults behind launcher prefixes and pasted-log quoting: test_catalog_verdicts.py.


def test_a_c10d_nccl_error_report_cut_short_is_no_crash_of_its_own(tmp_path: Path) -> None:
    # c10d's 'NCCL error in: <file>:<line>, <reason>' wrapped before its reason: still c10d
    # relaying NCCL's result, not the rank's own exception (the WARN before it says why).
    log = [
        "node-a:4005:4041 [0] init.cc:521 NCCL WARN Duplicate GPU detected : rank 0 and rank 1 both on CUDA device 40",
        "Traceback (most recent call last):",
        '  File "train.py", line 9, in <module>',
        "RuntimeError: NCCL error in: /opt/conda/conda-bld/pytorch_1634272204863/work/torch/csrc/distributed/",
        "c10d/ProcessGroupNCCL.cpp:957, invalid usage, NCCL version 21.0.3",
    ]
    rules = [f["rule"] for f in diagnose(bundle(tmp_path, {"rank0.log": "\n".join(log) + "\n"})).to_dict()["findings"]]
    assert rules[:1] == ["device_ordinal.duplicate_gpu"] and "rank_crash.exception" not in rules


def test_the_launchers_line_about_its_worker_gives_the_workers_pid(tmp_path: Path) -> None:
    # torchrun's agent prints the worker's pid: the card's process is that worker ("pid
    # unknown" before), and the ranks table has it.
    line = ("ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9) local_rank: 3 (pid: 812917) "
            "of binary: /opt/conda/bin/python\n")
    d = diagnose(bundle(tmp_path, {"train.log": "INFO starting\n" + line})).to_dict()
    ff = d["first_failure"]
    assert ff["rank"] == 3 and ff["pid"] == 812917, ff
    assert [(r["rank"], r["pid"]) for r in d["ranks"]] == [(3, 812917)]


def test_a_number_that_cannot_be_a_gpu_is_no_gpu(tmp_path: Path) -> None:
    # '[32586]' where NCCL prints its device (a pasted line whose fields slid): a thread id, not
    # GPU 32586; the process keeps its host and pid, and no row or card says GPU 32586.
    line = "node-c:21613:21640 [32586] transport/net_socket.cc:514 NCCL WARN NET/Socket : peer 10.0.0.9<4242> closed\n"
    d = diagnose(bundle(tmp_path, {"train.log": line})).to_dict()
    rows = d["timeline"]["ranks"]
    assert [(r["host"], r["pid"], r["device"]) for r in rows] == [("node-c", 21613, None)], rows
    assert all(r["device"] is None for r in d["ranks"])
