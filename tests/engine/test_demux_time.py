"""Launcher prefixes, file-name origins and timestamps (demux.py, timeparse.py)."""
from __future__ import annotations

from datetime import datetime

import pytest

from triage.engine import diagnose
from triage.engine.demux import origin_from_name, split_prefix
from triage.engine.timeparse import Clock, parse_time

CLOCK = Clock(year=2025)


def test_torchrun_rank_prefix():
    o, body = split_prefix("[rank3]: RuntimeError: boom")
    assert (o.rank, o.local_rank, o.host) == (3, None, None)
    assert body == "RuntimeError: boom"


def test_torchrun_role_prefix_is_local_rank():
    o, body = split_prefix("[default3]: hello world")
    assert (o.rank, o.local_rank) == (None, 3)
    assert body == "hello world"


def test_rank_prefix_before_cpp_log_keeps_timestamp_in_body():
    line = "[rank0]:[E822 16:31:16.131931664 ProcessGroupNCCL.cpp:1664] [PG 0 Rank 0] x"
    o, body = split_prefix(line)
    assert o.rank == 0
    assert body.startswith("[E822 16:31:16.131931664 ProcessGroupNCCL.cpp:1664]")


def test_slurm_label_prefix():
    o, body = split_prefix("0: g1002:2128869:2128880 [0] NCCL INFO Using network IB")
    assert o.rank == 0 and o.host is None
    assert body == "g1002:2128869:2128880 [0] NCCL INFO Using network IB"
    o, body = split_prefix("12: E0909 14:03:50.013000 1 api.py:833] failed")
    assert o.rank == 12 and body.startswith("E0909")


@pytest.mark.parametrize(("prefix", "rank"), [("[1,12]<stdout>:", 12), ("[1,3]<stderr>:", 3), ("[0]<stderr>:", 0), ("[7]<stdout>: ", 7)])
def test_open_mpi_and_horovod_output_tags(prefix, rank):
    # mpirun --tag-output (horovodrun sets it) and Horovod's Gloo launcher.
    o, body = split_prefix(prefix + "node-b:4242:4300 [3] NCCL INFO Using network IB")
    assert (o.rank, o.host) == (rank, None)
    assert body == "node-b:4242:4300 [3] NCCL INFO Using network IB"


def test_mpi_tagged_crash_names_its_rank(tmp_path):
    from triage.engine import diagnose

    lines = ["[1,0]<stdout>:Epoch 1 step 10 loss 2.1", "[1,2]<stdout>:Epoch 1 step 10 loss 2.2",
             "[1,2]<stderr>:Traceback (most recent call last):",
             '[1,2]<stderr>:  File "train.py", line 40, in <module>',
             "[1,2]<stderr>:    loss.backward()",
             "[1,2]<stderr>:torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.15 GiB of which 1.2 GiB is free."]
    (tmp_path / "horovodrun.log").write_text("\n".join(lines) + "\n")
    d = diagnose(tmp_path).to_dict()
    assert (d["findings"][0]["cause"], d["first_failure"]["rank"]) == ("oom", 2)


def test_kubectl_prefixed_pods_name_the_failing_pod_as_its_host(tmp_path):
    # `kubectl logs -l job=llm-ft --prefix --timestamps` of a PyTorchJob: each line behind its
    # pod's '[pod/NAME/CONTAINER] ' (kubectl's logs.go), then the API server's time.
    from triage.engine import diagnose

    def pod(name: str, when: str, text: str) -> str:
        return f"[pod/{name}/pytorch] 2026-12-01T{when}.000000000Z {text}"

    lines = [pod("llm-ft-master-0", "10:00:01", "[rank0]: step 1 loss 2.1"),
             pod("llm-ft-worker-0", "10:00:01", "[rank1]: step 1 loss 2.2"),
             pod("llm-ft-worker-0", "10:05:00", "[rank1]: Traceback (most recent call last):"),
             pod("llm-ft-worker-0", "10:05:00", '[rank1]:   File "/app/train.py", line 10, in <module>'),
             pod("llm-ft-worker-0", "10:05:00", "[rank1]:     loss.backward()"),
             pod("llm-ft-worker-0", "10:05:00", "[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate "
                 "2.00 GiB. GPU 0 has a total capacity of 79.15 GiB of which 1.2 GiB is free."),
             pod("llm-ft-master-0", "10:15:00", "[rank0]:[E1201 10:15:00.000000 ProcessGroupNCCL.cpp:616] [Rank 0] "
                 "Watchdog caught collective operation timeout: WorkNCCL(SeqNum=11, OpType=ALLREDUCE, NumelIn=4194304, "
                 "NumelOut=4194304, Timeout(ms)=600000) ran for 600031 milliseconds before timing out.")]
    (tmp_path / "logs.txt").write_text("\n".join(lines) + "\n")
    d = diagnose(tmp_path).to_dict()
    first = d["first_failure"]
    assert (d["findings"][0]["cause"], first["rank"], first["host"]) == ("oom", 1, "llm-ft-worker-0")
    assert first["time"] == "2026-12-01T10:05:00"
    assert first["identity_from"]["host"] == "line"


@pytest.mark.parametrize("line", ["[pod/Trainer/x] [rank1]: boom", "[pods/a/b] [rank1]: boom", "[pod/a] [rank1]: boom"])
def test_what_is_not_kubectls_prefix_names_no_host(line):
    o, _body = split_prefix(line)
    assert o.host is None


@pytest.mark.parametrize("host", ["192.168.1.51", "trainer-2", "104.171.201.171"])
def test_pdsh_host_prefix(host):
    o, body = split_prefix(f"{host}: lambda-scalar02:95756:96916 [6] NCCL INFO Using network Socket")
    assert o.host == host and o.rank is None
    assert body == "lambda-scalar02:95756:96916 [6] NCCL INFO Using network Socket"


def test_pdsh_own_line():
    o, body = split_prefix("pdsh@vnode1: trainer-2: ssh exited with exit code 1")
    assert o.host == "trainer-2"
    assert body == "ssh exited with exit code 1"


def test_pdsh_then_rank_prefix():
    o, body = split_prefix("node-b: [rank3]: torch.distributed.DistBackendError: x")
    assert (o.host, o.rank) == ("node-b", 3)
    assert body == "torch.distributed.DistBackendError: x"


def test_vllm_worker_prefix():
    o, body = split_prefix("(VllmWorker rank=2 pid=42) INFO 04-22 15:53:32 [parallel_state.py:1] world_size=4 rank=2")
    assert (o.rank, o.pid) == (2, 42)
    assert body.startswith("INFO 04-22 15:53:32")
    o, body = split_prefix("(VllmWorkerProcess pid=3283517) ERROR 03-28 21:38:23 worker.py:1] boom")
    assert (o.rank, o.pid) == (None, 3283517)
    assert body.startswith("ERROR 03-28")


@pytest.mark.parametrize(
    ("line", "host", "time_text"),
    [
        ("2026-12-01T10:00:00.0000000Z   rank      : 3 (local_rank: 3)", None, "2026-12-01T10:00:00.0000000Z"),
        ("2026-12-01T10:00:01.000000005Z stderr F   rank      : 3 (local_rank: 3)", None, "2026-12-01T10:00:01.000000005Z"),
        ("Dec 01 10:00:02 gpu-node-7 python[4242]:   rank      : 3 (local_rank: 3)", "gpu-node-7", "Dec 01 10:00:02"),
        ("   12 |   rank      : 3 (local_rank: 3)", None, None),
        ('{"log": "  rank      : 3 (local_rank: 3)\\n", "stream": "stderr", "time": "2026-12-01T10:00:03Z"}', None,
         "2026-12-01T10:00:03Z"),
    ],
    ids=["ci_time", "cri", "journald", "line_number", "docker_json"],
)
def test_capture_wrappers_are_peeled_keeping_the_indentation(line, host, time_text):
    o, body = split_prefix(line)
    assert body == "  rank      : 3 (local_rank: 3)"
    assert (o.host, o.time_text, o.rank, o.pid) == (host, time_text, None, None)


def test_a_json_line_that_is_not_a_docker_record_stays_whole():
    line = '{"log": 3, "time": "2026-12-01T10:00:03Z"}'
    assert split_prefix(line) == (split_prefix("")[0], line)


def test_sglang_prefix():
    o, body = split_prefix("[2025-02-07 01:19:40 TP3] Load weight begin. avail mem=78.38 GB")
    assert o.tp_rank == 3
    assert o.time_text == "2025-02-07 01:19:40"
    assert body == "Load weight begin. avail mem=78.38 GB"
    o, _ = split_prefix("[2025-02-22 08:19:45 DP1 TP26] Load weight end.")
    assert o.tp_rank == 26


@pytest.mark.parametrize(
    "line",
    [
        "RuntimeError: x",
        "torch.distributed.DistBackendError: x",
        "socketProgressOpt: Call to recv from 10.0.0.2<33759> failed : Connection reset by peer",
        "INFO 04-22 15:53:32 utils.py:580] x",
        "Traceback (most recent call last):",
        "ncclSystemError: System call (e.g. socket, malloc) failed",
        "Last error:",
        "node-01:1:1 [0] NCCL INFO Using network IB",
    ],
)
def test_ordinary_lines_are_not_pdsh_hosts(line):
    o, body = split_prefix(line)
    assert o.host is None, f"{line!r} taken for a pdsh host {o.host!r}"
    assert o.rank is None
    assert body == line


@pytest.mark.parametrize(
    "name,rank,local_rank,host,pid",
    [
        # Names people give files say nothing about the writer.
        ("rank3.log", None, None, None, None),
        ("worker-3.log", None, None, None, None),
        ("node-b/rank7.log", None, None, None, None),
        ("logs/train.log", None, None, None, None),
        # NCCL_DEBUG_FILE is the user's pattern: its lines carry host:pid, the name says nothing.
        ("nccl_node-a_4242.log", None, None, None, None),
        ("nccl_run_2024.log", None, None, None, None),
        ("logs/nccl_zq_2203.log", None, None, None, None),
        # torchrun's --log-dir layout (a local rank).
        ("run-1/attempt_0/3/stderr.log", None, 3, None, None),
        ("x/none_abc/attempt_2/0/error.json", None, 0, None, None),
        ("attempt_0/3/notes.log", None, None, None, None),
    ],
)
def test_origin_from_name(name, rank, local_rank, host, pid):
    o = origin_from_name(name)
    assert (o.rank, o.local_rank, o.host, o.pid) == (rank, local_rank, host, pid)


def test_a_directory_name_is_not_a_host(tmp_path):
    (tmp_path / "node-b").mkdir()
    (tmp_path / "node-b" / "rank7.log").write_text(
        "[rank7]: Traceback (most recent call last):\n[rank7]: RuntimeError: CUDA error: invalid device ordinal\n"
    )
    d = diagnose(tmp_path)
    ranks = {r.rank: r for r in d.ranks}
    assert 7 in ranks
    assert ranks[7].host is None
    assert d.to_dict()["first_failure"]["host"] is None


# --- times ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text,expected,yearless",
    [
        ("[2026-05-05 06:16:47] node-01:1:1 [3] a.cc:1 NCCL WARN x", datetime(2026, 5, 5, 6, 16, 47), False),
        ("E0822 16:31:16.131931664 ProcessGroupNCCL.cpp:1] x", datetime(2025, 8, 22, 16, 31, 16), True),
        ("[E822 16:31:16.131931664 ProcessGroupNCCL.cpp:1] x", datetime(2025, 8, 22, 16, 31, 16), True),
        ("[E105 01:02:03.123456789 socket.cpp:1] x", datetime(2025, 1, 5, 1, 2, 3), True),
        ("E0813 08:21:22.980000 1245483 torch/distributed/elastic/multiprocessing/api.py:984] x", datetime(2025, 8, 13, 8, 21, 22, 980000), True),
        ("INFO 04-22 15:53:32 utils.py:580] x", datetime(2025, 4, 22, 15, 53, 32), True),
        ("[2023-07-20 15:45:13,980] [INFO] [launch.py:315:sigkill_handler] Killing subprocess 3966", datetime(2023, 7, 20, 15, 45, 13, 980000), False),
        ("  time      : 2024-04-01_05:16:50", datetime(2024, 4, 1, 5, 16, 50), False),
        ("Dec  1 14:22:01 host kernel: NVRM: Xid (PCI:0000:3b:00): 79, x", datetime(2025, 12, 1, 14, 22, 1), True),
        ("May 18 19:02:39 kernel: x", datetime(2025, 5, 18, 19, 2, 39), True),
        # Hugging Face examples' datefmt '%m/%d/%Y %H:%M:%S' (accelerate, transformers, LLaMA-Factory).
        ("02/11/2024 22:36:19 - INFO - llmtuner.data.template - x", datetime(2024, 2, 11, 22, 36, 19), False),
    ],
)
def test_parse_time(text, expected, yearless):
    assert parse_time(text, CLOCK) == (expected, yearless)


def test_monotonic_fraction_dropped_but_seconds_kept():
    a, _ = parse_time("E0822 16:31:16.131931664 x", CLOCK)
    b, _ = parse_time("E0822 16:31:16.999999999 x", CLOCK)
    assert a == b == datetime(2025, 8, 22, 16, 31, 16)


def test_no_time():
    assert parse_time("just a line with no time", CLOCK) == (None, False)
    assert parse_time("node-01:1:1 [0] NCCL INFO Using network IB", CLOCK) == (None, False)
    # Day first is another program's date: read as none, not as a guessed day and month.
    assert parse_time("13/02/2026 09:11:04 - INFO - x", CLOCK) == (None, False)


def test_assumed_year_follows_clock():
    when, yearless = parse_time("INFO 04-22 15:53:32 x", Clock(year=2019))
    assert when == datetime(2019, 4, 22, 15, 53, 32) and yearless


def test_yearless_times_take_the_bundle_year(tmp_path):
    """A glog time has no year: a full date elsewhere in the bundle supplies it."""
    (tmp_path / "a.log").write_text(
        "[2023-07-20 15:45:13,980] [INFO] [launch.py:315:main] starting\n"
        "[rank0]:[E720 15:55:14.000000001 ProcessGroupNCCL.cpp:607] [Rank 0] Watchdog caught collective operation timeout: "
        "WorkNCCL(SeqNum=5, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600026 milliseconds before timing out.\n"
    )
    d = diagnose(tmp_path, year=2031)
    r0 = next(r for r in d.ranks if r.rank == 0)
    assert r0.last_time is not None and r0.last_time.year == 2023


def test_a_renamed_nccl_debug_file_names_no_host(tmp_path):
    # NCCL_DEBUG_FILE's lines say who wrote them (mycl-g2, pid 2203, GPU 3, rank 3); the name a
    # person gave the file says nothing: no host "zq", one process, one row.
    (tmp_path / "nccl_zq_2203.log").write_text(
        "mycl-g2:2203:2210 [3] NCCL INFO ncclCommInitRank comm 0x1 rank 3 nranks 4 cudaDev 3 nvmlDev 3 busId 3d000 "
        "commId 0x1 - Init COMPLETE\n"
        "mycl-g2:2203:2290 [3] transport/net_ib.cc:1295 NCCL WARN NET/IB : Got completion from peer 10.0.0.7<4242> "
        "with status=12 opcode=0 len=0 vendor err 129 (Recv) localGid ::ffff:10.0.0.8 remoteGid ::ffff:10.0.0.7\n"
        "Traceback (most recent call last):\n"
        "torch.distributed.DistBackendError: NCCL error: remote process exited or there was a network error\n")
    d = diagnose(tmp_path).to_dict()
    # (ranks 0-2 are rows of the world of 4 with no line in the bundle)
    assert {r["host"] for r in d["ranks"]} == {"mycl-g2", None}
    drawn = [(r["rank"], r["host"], r["pid"], r["device"]) for r in d["timeline"]["ranks"] if r["pid"] or r["host"]]
    assert drawn == [(3, "mycl-g2", 2203, 3)]
    ff = d["first_failure"]
    assert (ff["rank"], ff["host"], ff["pid"], ff["device"]) == (3, "mycl-g2", 2203, 3)
    assert all("zq" not in (f["hosts"] or []) for f in d["findings"])
