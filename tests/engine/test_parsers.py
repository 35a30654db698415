"""Format parsers on verbatim lines from the format references (docs/log-formats.md, docs/log-formats-launchers.md, docs/log-examples.txt).

Lines are written to a file and read the way diagnose() reads them (bundle walk, scanner,
prefix split, parsers), so the events asserted here are the ones the rules see.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from triage.engine import diagnose
from triage.engine.bundle import Budget, Limits, iter_members
from triage.engine.model import Event
from triage.engine.parsers.kernel import bus_key
from triage.engine.reader import Collected, read_member
from triage.engine.scan import prefilter
from triage.engine.signatures.readings import cuda_class, fault_class
from triage.engine.timeparse import Clock


def read_events(tmp_path: Path, lines: list[str], name: str = "log.txt") -> list[Event]:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    budget = Budget(Limits())
    out = Collected()
    for member in iter_members(path, budget):
        read_member(member, out, budget, prefilter(), Clock(year=2025))
    # The format parsers' events; what the catalog says about the same lines is tested in
    # test_catalog.py and test_signature_events.py.
    return [e for e in out.events if e.kind != "signature"]


def one(tmp_path: Path, line: str, kind: str) -> Event:
    events = [e for e in read_events(tmp_path, [line]) if e.kind == kind]
    assert events, f"no {kind} event for {line!r}; got {[e.kind for e in read_events(tmp_path, [line])]}"
    assert len(events) == 1
    return events[0]


def has(data: dict, **expected) -> None:
    for key, value in expected.items():
        assert data.get(key) == value, f"{key}: {data.get(key)!r} != {value!r} (data={data})"


# --- NCCL -------------------------------------------------------------------------------------


def test_nccl_info_prefix_host_pid_device(tmp_path):
    ev = one(tmp_path, "nccl-master-0:1:84 [0] NCCL INFO Using network Socket", "nccl_net")
    assert (ev.host, ev.pid, ev.device) == ("nccl-master-0", 1, 0)
    assert ev.data["net"] == "Socket"


def test_nccl_warn_prefix_and_location(tmp_path):
    line = "dirkg-zeppelin:4005:4041 [0] init.cc:521 NCCL WARN Duplicate GPU detected : rank 0 and rank 1 both on CUDA device 40"
    ev = one(tmp_path, line, "nccl_warn")
    assert (ev.host, ev.pid, ev.device) == ("dirkg-zeppelin", 4005, 0)
    has(ev.data, location="init.cc:521", ranks=[0, 1], bus_id="40")
    # NCCL's own level: what the line means (a duplicate GPU, a fault) is the catalog's.
    assert ev.severity == "warn"


def test_nccl_warn_with_timestamp(tmp_path):
    line = "[2026-05-05 06:16:47] node-01:189884:189884 [3] plugin/net.cc:334 NCCL WARN Failed to initialize any NET plugin"
    ev = one(tmp_path, line, "nccl_warn")
    assert (ev.host, ev.pid, ev.device) == ("node-01", 189884, 3)
    assert ev.data["location"] == "plugin/net.cc:334"
    assert ev.time is not None and ev.time.isoformat() == "2026-05-05T06:16:47"
    assert "_yearless" not in ev.data


def test_nccl_warn_2_30_7_func_form(tmp_path):
    line = "[2026-05-05 06:16:47] node-01:189884:189884 [3] plugin/net.cc:334 (ncclNetInit) NCCL WARN Failed to initialize any NET plugin"
    ev = one(tmp_path, line, "nccl_warn")
    assert (ev.host, ev.pid, ev.device) == ("node-01", 189884, 3)
    assert ev.data["location"] == "plugin/net.cc:334"


def test_nccl_trail_plain(tmp_path):
    ev = one(tmp_path, "ng30903:3063028:3066152 [3] NCCL INFO transport/p2p.cc:204 -> 1", "nccl_trail")
    assert (ev.host, ev.pid, ev.device) == ("ng30903", 3063028, 3)
    has(ev.data, rc=1, file="transport/p2p.cc", err=None)


def test_nccl_trail_misc_socket_6(tmp_path):
    ev = one(tmp_path, "node-01:7:7 [0] NCCL INFO misc/socket.cc:484 -> 6", "nccl_trail")
    has(ev.data, rc=6, file="misc/socket.cc")


def test_nccl_trail_2_30_7_func_and_errno(tmp_path):
    ev = one(tmp_path, "node-01:7:9 [0] NCCL INFO misc/socket.cc:58 (socketProgress) -> 6 (Connection refused)", "nccl_trail")
    has(ev.data, rc=6, file="misc/socket.cc", err="Connection refused")
    ev = one(tmp_path, "node-01:7:9 [0] NCCL INFO misc/socket.cc:58 (socketProgress) -> 6", "nccl_trail")
    has(ev.data, rc=6, err=None)


def test_nccl_version_bare_and_info(tmp_path):
    ev = one(tmp_path, "NCCL version 2.30.3+cuda13.0", "nccl_version")
    has(ev.data, version="2.30.3", cuda="13.0")
    assert ev.host is None
    ev = one(tmp_path, "nccl-master-0:1:1 [0] NCCL INFO NCCL version 2.22.3+cuda12.6", "nccl_version")
    has(ev.data, version="2.22.3", cuda="12.6")
    assert (ev.host, ev.pid) == ("nccl-master-0", 1)


def test_nccl_version_21_0_3_oddity_in_versions(tmp_path):
    """Some torch 1.10 builds print NCCL 2.10.3 as '21.0.3' in the NCCL error text."""
    line = (
        "RuntimeError: NCCL error in: /opt/conda/conda-bld/pytorch_1634272204863/work/torch/csrc/distributed/c10d/"
        "ProcessGroupNCCL.cpp:957, invalid usage, NCCL version 21.0.3"
    )
    ev = one(tmp_path, line, "torch_nccl_error")
    has(ev.data, reason="invalid usage", nccl_version="21.0.3")
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "log.txt").write_text(line + "\n")
    d = diagnose(tmp_path / "d")
    assert {v.get("nccl") for v in d.versions.values()} == {"2.10.3"}


def test_init_complete_2_14_form(tmp_path):
    line = "node:1:2 [3] NCCL INFO comm 0x55df01b24dd0 rank 3 nranks 16 cudaDev 3 busId 13000 - Init COMPLETE"
    ev = one(tmp_path, line, "nccl_init")
    has(ev.data, rank=3, nranks=16, cuda_dev=3, bus_id="13000", phase="Init COMPLETE")


def test_init_complete_2_21_form(tmp_path):
    line = (
        "nccl-master-0:1:84 [0] NCCL INFO ncclCommInitRank comm 0x56223d711810 rank 0 nranks 2 cudaDev 0 nvmlDev 0 "
        "busId 1e0 commId 0xef1a7a6ce2d1f588 - Init COMPLETE"
    )
    ev = one(tmp_path, line, "nccl_init")
    has(ev.data, rank=0, nranks=2, cuda_dev=0, bus_id="1e0", comm="0x56223d711810", phase="Init COMPLETE")
    line = (
        "x3203c0s25b1n0:322638:323016 [0] NCCL INFO comm 0x55df01b24dd0 rank 24 nranks 32 cudaDev 0 nvmlDev 0 busId 7000 "
        "commId 0x2114bc51af4fb978 - Init COMPLETE"
    )
    ev = one(tmp_path, line, "nccl_init")
    has(ev.data, rank=24, nranks=32, cuda_dev=0, bus_id="7000")
    assert (ev.host, ev.pid) == ("x3203c0s25b1n0", 322638)


def test_init_start_rank_prefix_2_29(tmp_path):
    line = (
        "node-01:1895902:1895913 [0] NCCL INFO [Rank 0] ncclCommInitRankConfig comm 0x1 rank 0 nranks 2 cudaDev 0 "
        "nvmlDev 0 busId 1b000 commId 0x2 - Init START"
    )
    ev = one(tmp_path, line, "nccl_init")
    has(ev.data, rank=0, nranks=2, bus_id="1b000", phase="Init START")


@pytest.mark.parametrize(
    "line,transport,src,dst,direction",
    [
        ("node-01:1896458:1896480 [0] NCCL INFO Channel 00 : 0[0] -> 1[1] via SHM/direct/direct", "SHM", 0, 1, None),
        ("node-01:1897709:1897731 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] [send] via NET/Socket/0", "NET", 0, 1, "send"),
        ("nccl-master-0:1:87 [0] NCCL INFO Channel 00/0 : 1[0] -> 0[0] [receive] via NET/Socket/0", "NET", 1, 0, "receive"),
        ("node-01:631398:631398 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM", "P2P", 0, 1, None),
        ("h:1:2 [0] NCCL INFO Channel 00 : 2[1d000] -> 3[1e000] via P2P/IPC", "P2P", 2, 3, None),
        ("h:1:2 [0] NCCL INFO Ring 00 : 2[3d000] -> 3[3e000] via direct shared memory", "SHM", 2, 3, None),
        ("h:1:2 [0] NCCL INFO Channel 01/1 : 0[0] -> 8[0] [send] via NET/IB/9/GDRDMA/Shared", "NET", 0, 8, "send"),
    ],
)
def test_transport_lines(tmp_path, line, transport, src, dst, direction):
    ev = one(tmp_path, line, "nccl_transport")
    has(ev.data, transport=transport, src=src, dst=dst, direction=direction)


def test_ib_missing_and_socket_fallback(tmp_path):
    events = read_events(
        tmp_path,
        [
            "nccl-master-0:1:84 [0] NCCL INFO NET/IB : No device found.",
            "nccl-master-0:1:84 [0] NCCL INFO NET/Socket : Using [0]eth0:192.168.1.5<0>",
            "nccl-master-0:1:84 [0] NCCL INFO Using network Socket",
        ],
    )
    assert [e.kind for e in events] == ["nccl_ib_missing", "nccl_socket_devices", "nccl_net"]
    assert events[2].data["net"] == "Socket"
    assert events[1].data["devices"] == "[0]eth0:192.168.1.5<0>"


def test_ib_using_devices(tmp_path):
    line = "vm-host38:33958:33999 [1] NCCL INFO NET/IB : Using [0]mlx5_bond_6:1/RoCE [1]mlx5_bond_7:1/RoCE [RO]; OOB bond0:30.159.184.2<0>"
    ev = one(tmp_path, line, "nccl_ib_devices")
    has(ev.data, oob="bond0:30.159.184.2<0>")
    assert "mlx5_bond_6:1/RoCE" in ev.data["devices"]


@pytest.mark.parametrize(
    "line",
    [
        "node-01:5:5 [0] graph/topo.cc:100 NCCL WARN Multiple ranks detected using the same GPU on this node. Set NCCL_MULTI_RANK_GPU_ENABLE=1 to enable this configuration.",
        "node-01:5:5 [0] init.cc:100 (ncclCommInitRankFunc) NCCL WARN Multiple Ranks are using the same GPU/Partition. Set NCCL_MULTI_RANK_GPU_ENABLE=1 to enable this configuration.",
    ],
)
def test_duplicate_gpu_2_30_wordings(tmp_path, line):
    ev = one(tmp_path, line, "nccl_warn")
    assert (ev.host, ev.pid) == ("node-01", 5)
    assert "ranks" not in ev.data  # these wordings name no rank pair


@pytest.mark.parametrize(
    "line,errno",
    [
        ("node:1:1 [1] misc/shmutils.cc:60 NCCL WARN Error while creating shared memory segment /dev/shm/nccl-abc (size 9637888), error: No space left on device (28)", "ENOSPC"),
        ("node:1:1 [1] os/linux.cc:60 NCCL WARN Error while attaching to shared memory segment /dev/shm/nccl-abc (size 0), error: No such file or directory (2)", "ENOENT"),
        ("ubuntu:9621:9691 [6] misc/shmutils.cc:71 NCCL WARN Error: failed to extend /dev/shm/nccl-fjwOOB to 5967876 bytes, error: No space left on device (28)", "ENOSPC"),
        ("ip-1:2143:2200 [1] include/shm.h:28 NCCL WARN Call to posix_fallocate failed : No space left on device", "ENOSPC"),
    ],
)
def test_shm_errors(tmp_path, line, errno):
    ev = one(tmp_path, line, "nccl_warn")
    has(ev.data, errno=errno)
    assert "op" not in ev.data and "reason" not in ev.data


def test_shm_extend_without_errno_text(tmp_path):
    line = "ubuntu:9621:9691 [6] misc/shmutils.cc:71 NCCL WARN Error: failed to extend /dev/shm/nccl-fjwOOB to 5967876 bytes"
    ev = one(tmp_path, line, "nccl_warn")
    has(ev.data, errno=None, bytes=5967876, location="misc/shmutils.cc:71")
    assert ev.device == 6


@pytest.mark.parametrize(
    "line,peer",
    [
        ("node:1:1 [0] misc/socket.cc:441 NCCL WARN socketProgress: Connection closed by remote peer node2<43127>", "node2<43127>"),
        ("node:1:1 [0] misc/socket.cc:441 NCCL WARN socketProgressOpt: Call to recv from 10.0.0.2<33759> failed : Connection reset by peer", "10.0.0.2<33759>"),
        ("node:1:1 [0] misc/socket.cc:441 NCCL WARN socketStartConnect: Connect to 10.0.0.2<33759> failed : Connection refused", "10.0.0.2<33759>"),
        ("node:1:1 [0] misc/socket.cc:441 NCCL WARN NET/Socket : no interface found", None),
    ],
)
def test_socket_errors(tmp_path, line, peer):
    ev = one(tmp_path, line, "nccl_warn")
    has(ev.data, peer=peer)
    assert "reason" not in ev.data


@pytest.mark.parametrize(
    "line,status,vendor",
    [
        # <= 2.20
        ("PHLRR4036:24141:24296 [2] ib_plugin.c:978 NCCL WARN NET/IB : Got completion from peer 10.226.98.98<48598> with error 12, opcode 0, len 0, vendor err 129", 12, 129),
        # 2.23-2.28
        ("kp-ddp-worker-0:3468:3905 [4] ib_plugin.c:1615 NCCL WARN NET/IB : Got completion from peer 10.216.210.236<54862> with status=12 opcode=0 len=0 vendor err 129 (Recv) ...", 12, 129),
        # 2.29+
        ("node:1:1 [2] transport/net_ib/p2p.cc:100 NCCL WARN NET/IB: Got completion from peer 10.1.1.1<4000> with status=IBV_WC_RETRY_EXC_ERR(12) opcode=IBV_WC_SEND(0) vendor_err=129 hca mlx5_0", 12, 129),
    ],
)
def test_ib_completion_errors_all_versions(tmp_path, line, status, vendor):
    ev = one(tmp_path, line, "nccl_warn")
    has(ev.data, status=status, vendor_err=vendor)
    assert ev.data["peer"].endswith(">")


def test_ibv_call_failed(tmp_path):
    ev = one(tmp_path, "h:1:1 [0] misc/ibvwrap.cc:200 NCCL WARN Call to ibv_modify_qp failed with error Invalid argument", "nccl_warn")
    has(ev.data, fn="ibv_modify_qp", errno="EINVAL")


def test_socket_finalize_accept_wrong_type(tmp_path):
    ev = one(tmp_path, "user:16901:16967 [2] misc/socket.cc:441 NCCL WARN socketFinalizeAccept: wrong type 4 != 3", "nccl_warn")
    has(ev.data, got=4, want=3)
    assert (ev.host, ev.pid, ev.device) == ("user", 16901, 2)


def test_proxy_service_failure(tmp_path):
    line = "node:1:1 [0] proxy.cc:1500 NCCL WARN [Proxy Service 3] Failed to execute operation Connect from rank 3, retcode 3"
    ev = one(tmp_path, line, "nccl_warn")
    has(ev.data, op="Connect", peer_rank=3, rc=3)


def test_nccl_cuda_failure(tmp_path):
    ev = one(tmp_path, "ng30903:3063028:3066152 [3] include/alloc.h:178 NCCL WARN Cuda failure 'out of memory'", "nccl_warn")
    has(ev.data, error="out of memory")


def test_bare_warn_without_prefix(tmp_path):
    ev = one(tmp_path, "[3] include/shm.h:28 NCCL WARN Call to posix_fallocate failed : No space left on device", "nccl_warn")
    assert ev.device == 3
    has(ev.data, errno="ENOSPC", location="include/shm.h:28")


# --- torch c10d ----------------------------------------------------------------------------


def test_watchdog_timeout_old_no_seqnum(tmp_path):
    line = (
        "[E ProcessGroupNCCL.cpp:587] [Rank 2] Watchdog caught collective operation timeout: "
        "WorkNCCL(OpType=BROADCAST, Timeout(ms)=1800000) ran for 1802157 milliseconds before timing out."
    )
    ev = one(tmp_path, line, "watchdog_timeout")
    assert ev.seq is None
    has(ev.data, op="BROADCAST", numel_in=None, timeout_ms=1800000, ran_ms=1802157)


def test_watchdog_timeout_2_2_rank_prefix(tmp_path):
    line = (
        "[rank2]:[E ProcessGroupNCCL.cpp:563] [Rank 2] Watchdog caught collective operation timeout: "
        "WorkNCCL(SeqNum=4084, OpType=ALLREDUCE, NumelIn=4821568, NumelOut=4821568, Timeout(ms)=600000) ran for 600301 milliseconds before timing out."
    )
    ev = one(tmp_path, line, "watchdog_timeout")
    assert ev.rank == 2 and ev.seq == 4084 and ev.time is None
    has(ev.data, op="ALLREDUCE", numel_in=4821568, numel_out=4821568, timeout_ms=600000)


def test_watchdog_timeout_2_4_timestamped(tmp_path):
    line = (
        "[rank7]:[E816 01:45:40.183009389 ProcessGroupNCCL.cpp:607] [Rank 7] Watchdog caught collective operation timeout: "
        "WorkNCCL(SeqNum=80078, OpType=BROADCAST, NumelIn=5056, NumelOut=5056, Timeout(ms)=600000) ran for 600026 milliseconds before timing out."
    )
    ev = one(tmp_path, line, "watchdog_timeout")
    assert ev.rank == 7 and ev.seq == 80078
    has(ev.data, op="BROADCAST", numel_in=5056, timeout_ms=600000, ran_ms=600026)
    assert ev.time is not None and (ev.time.month, ev.time.day, ev.time.hour, ev.time.minute, ev.time.second) == (8, 16, 1, 45, 40)
    assert ev.time.microsecond == 0  # the 9-digit monotonic fraction is dropped
    assert ev.data.get("_yearless") is True


def test_watchdog_timeout_pg_prefix_inside_terminated(tmp_path):
    line = (
        "[rank0]:[E1218 20:27:21.486305774 ProcessGroupNCCL.cpp:1895] [PG ID 1 PG GUID 1 Rank 0] Process group watchdog thread "
        "terminated with exception: [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=BROADCAST, "
        "NumelIn=131072000, NumelOut=131072000, Timeout(ms)=600000) ran for 600081 milliseconds before timing out."
    )
    events = [e for e in read_events(tmp_path, [line]) if e.kind in ("watchdog_timeout", "watchdog_terminated")]
    assert len(events) == 1
    ev = events[0]
    assert ev.rank == 0
    assert ev.data["pg"] == "1" and ev.data["pg_rank"] == 0


@pytest.mark.parametrize(
    "line,rank,failed,enq,done,pg,desc",
    [
        ("[rank7]:[E816 01:45:40.184373931 ProcessGroupNCCL.cpp:1664] [PG 0 (default_pg) Rank 7] Exception (either an error or timeout) detected by watchdog at work: 80078, last enqueued NCCL work: 80078, last completed NCCL work: 80077.", 7, 80078, 80078, 80077, "0", "default_pg"),
        ("[rank3]:[E ProcessGroupNCCL.cpp:1537] [PG 0 Rank 3] Timeout at NCCL work: 4084, last enqueued NCCL work: 4084, last completed NCCL work: 4083.", 3, 4084, 4084, 4083, "0", None),
        ("[rank1]:[E1218 20:27:21.484903450 ProcessGroupNCCL.cpp:2168] [PG ID 1 PG GUID 1 Rank 1]  failure detected by watchdog at work sequence id: 1 PG status: last enqueued work: 547, last completed work: -1", 1, 1, 547, -1, "1", None),
        ("[PG ID 4 PG GUID 67 Rank 0]  failure detected by watchdog at work sequence id: 5730 PG status: last enqueued work: 6464, last completed work: 5729", None, 5730, 6464, 5729, "4", None),
        ("[PG ID 0 PG GUID 0(default_pg) Rank 6] Exception (either an error or timeout) detected by watchdog at work: 1580, last enqueued NCCL work: 1582, last completed NCCL work: 1579.", 6, 1580, 1582, 1579, "0", "default_pg"),
    ],
)
def test_watchdog_progress_all_wordings(tmp_path, line, rank, failed, enq, done, pg, desc):
    ev = one(tmp_path, line, "watchdog_progress")
    assert ev.rank == rank
    assert ev.seq == done
    has(ev.data, failed_seq=failed, last_enqueued=enq, last_completed=done, pg=pg, pg_desc=desc)


def test_watchdog_progress_periodic(tmp_path):
    line = "I0816 01:40:00.000000 123 ProcessGroupNCCL.cpp:2000] NCCL Work update periodically: last enqueued NCCL work: 80070, last completed NCCL work: 80069."
    ev = one(tmp_path, line, "watchdog_progress")
    has(ev.data, failed_seq=None, last_enqueued=80070, last_completed=80069)


def test_watchdog_terminated_cuda_error(tmp_path):
    line = "[rank3]:[E ProcessGroupNCCL.cpp:1414] [PG 2 Rank 3] Process group watchdog thread terminated with exception: CUDA error: an illegal memory access was encountered"
    ev = one(tmp_path, line, "watchdog_terminated")
    assert ev.rank == 3 and ev.severity == "fatal"
    has(ev.data, what="CUDA error: an illegal memory access was encountered", pg="2", pg_rank=3)


def test_nccl_error_then_last_error_classified_like_warn(tmp_path):
    lines = [
        "torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:3690, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.21.5",
        "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. ",
        "Last error:",
        "Error while attaching to shared memory segment /dev/shm/nccl-abc (size 0), error: No such file or directory (2)",
    ]
    events = read_events(tmp_path, lines)
    err = [e for e in events if e.kind == "torch_nccl_error"]
    assert len(err) == 1
    has(err[0].data, reason="unhandled system error", nccl_version="2.21.5", where="/pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:3690")
    detail = [e for e in events if e.kind == "nccl_result_detail"]
    assert detail and detail[0].data["result"] == "ncclSystemError"
    assert detail[0].data["last_error"].startswith("Error while attaching to shared memory segment")
    shm = [e for e in events if e.kind == "nccl_warn"]
    assert len(shm) == 1 and shm[0].line == 4
    has(shm[0].data, errno="ENOENT", via_last_error=True)


def test_ranked_traceback_last_error_socket(tmp_path):
    lines = [
        "[rank1]: Traceback (most recent call last):",
        '[rank1]:   File "/home/u/train.py", line 42, in <module>',
        "[rank1]:     main()",
        '[rank1]:   File "/home/u/train.py", line 30, in main',
        "[rank1]:     dist.all_reduce(t)",
        "[rank1]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:268, remote process exited or there was a network error, NCCL version 2.21.5",
        "[rank1]: ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.",
        "[rank1]: Last error:",
        "[rank1]: socketProgressOpt: Call to recv from 172.1.1.1<33759> failed : Connection reset by peer",
    ]
    events = read_events(tmp_path, lines)
    exc = [e for e in events if e.kind == "exception"]
    assert len(exc) == 1
    assert exc[0].rank == 1 and exc[0].line == 6
    has(exc[0].data, exc_type="torch.distributed.DistBackendError", exc_short="DistBackendError", frame="/home/u/train.py:30 in main", had_header=True)
    sock = [e for e in events if e.kind == "nccl_warn"]
    assert len(sock) == 1 and sock[0].rank == 1 and sock[0].line == 9
    has(sock[0].data, errno="ECONNRESET", peer="172.1.1.1<33759>")


def test_plain_traceback(tmp_path):
    lines = [
        "Traceback (most recent call last):",
        '  File "train.py", line 10, in <module>',
        "    x = y / 0",
        "ZeroDivisionError: division by zero",
    ]
    exc = [e for e in read_events(tmp_path, lines) if e.kind == "exception"]
    assert len(exc) == 1
    has(exc[0].data, exc_type="ZeroDivisionError", exc_message="division by zero", frame="train.py:10 in <module>")
    assert exc[0].line == 4


def test_tcpstore_connect_timeout(tmp_path):
    line = "[E108 20:04:34.467642512 socket.cpp:957] [c10d] The client socket has timed out after 900s while trying to connect to (33.145.124.128, 29500)."
    ev = one(tmp_path, line, "store_connect_timeout")
    has(ev.data, address="33.145.124.128, 29500", after="900s")
    assert (ev.time.month, ev.time.day, ev.time.hour) == (1, 8, 20)


def test_store_clients_missing(tmp_path):
    ev = one(tmp_path, "torch.distributed.DistStoreError: Timed out after 601 seconds waiting for clients. 1/2 clients joined.", "store_clients_missing")
    has(ev.data, waited_s=601, joined=1, world=2)


def test_dist_network_error_no_route(tmp_path):
    line = (
        "torch.distributed.DistNetworkError: The client socket has failed to connect to any network address of "
        "(192.168.121.122, 1040). The IPv4 network addresses of (192.168.121.122, 1040) cannot be reached. (errno: 113 - No route to host)."
    )
    ev = one(tmp_path, line, "store_connect_failed")
    has(ev.data, address="192.168.121.122, 1040", errno=113, error="No route to host")
    assert ev.severity == "error"


@pytest.mark.parametrize("prefix", ["[W socket.cpp:663] ", "[rank1]:[W1203 10:00:00.123456 77 torch/csrc/distributed/c10d/socket.cpp:697] "])
def test_a_store_connect_retry_is_a_warning(tmp_path, prefix):
    # socket.cpp logs every retry while the store's host is not up yet; only giving up is an error.
    line = prefix + "[c10d] The client socket has failed to connect to [node-m]:29500 (errno: 111 - Connection refused)."
    ev = one(tmp_path, line, "store_connect_failed")
    has(ev.data, address="node-m", errno=111, error="Connection refused")
    assert ev.severity == "warn"


# --- process exits ----------------------------------------------------------------------------


def test_elastic_failed_glog_form(tmp_path):
    line = "E0909 14:03:50.013000 22579342468928 torch/distributed/elastic/multiprocessing/api.py:833] failed (exitcode: -9) local_rank: 0 (pid: 2128869) of binary: /usr/bin/python"
    ev = one(tmp_path, line, "process_exit")
    has(ev.data, exitcode=-9, signal="SIGKILL", local_rank=0, child_pid=2128869, reporter="elastic")
    assert (ev.time.month, ev.time.day, ev.time.second, ev.time.microsecond) == (9, 9, 50, 13000)


def test_elastic_failed_old_logging_form(tmp_path):
    line = "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -7) local_rank: 0 (pid: 5275) of binary: /usr/bin/python"
    ev = one(tmp_path, line, "process_exit")
    has(ev.data, exitcode=-7, signal="SIGBUS", local_rank=0, child_pid=5275)


def test_child_failed_root_cause_block(tmp_path):
    lines = [
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
        "============================================================",
        "train.py FAILED",
        "------------------------------------------------------------",
        "Failures:",
        "  <NO_OTHER_FAILURES>",
        "------------------------------------------------------------",
        "Root Cause (first observed failure):",
        "[0]:",
        "  time      : 2023-08-01_01:06:47",
        "  host      : r1n2a6000bittensor",
        "  rank      : 4 (local_rank: 4)",
        "  exitcode  : -9 (pid: 208585)",
        "  error_file: <N/A>",
        "  traceback : Signal 9 (SIGKILL) received by PID 208585",
        "============================================================",
    ]
    fails = [e for e in read_events(tmp_path, lines) if e.kind == "elastic_failure"]
    assert len(fails) == 1
    ev = fails[0]
    assert ev.rank == 4 and ev.host == "r1n2a6000bittensor" and ev.pid == 208585
    has(ev.data, exitcode=-9, signal="SIGKILL", local_rank=4, child_pid=208585, root_cause=True, failure_time="2023-08-01T01:06:47")
    assert ev.line == 13
    assert ev.time.isoformat() == "2023-08-01T01:06:47"


def test_child_failed_block_several_failures(tmp_path):
    block = []
    for idx, rank, pid in ((1, 2, 102932), (2, 3, 102933)):
        block += [
            f"[{idx}]:",
            "  time      : 2026-06-08_19:04:45",
            "  host      : c561-007.stampede3.tacc.utexas.edu",
            f"  rank      : {rank} (local_rank: {rank})",
            f"  exitcode  : 1 (pid: {pid})",
            "  error_file: <N/A>",
            "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html",
        ]
    lines = (
        ["torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ", "=" * 60, "train.py FAILED", "-" * 60, "Failures:"]
        + block
        + ["-" * 60, "Root Cause (first observed failure):", "[0]:", "  time      : 2026-06-08_19:04:45",
           "  host      : c561-007.stampede3.tacc.utexas.edu", "  rank      : 0 (local_rank: 0)", "  exitcode  : 1 (pid: 102930)",
           "  error_file: <N/A>", "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html", "=" * 60]
    )
    fails = sorted((e for e in read_events(tmp_path, lines) if e.kind == "elastic_failure"), key=lambda e: e.rank)
    assert [(e.rank, e.data["exitcode"], e.data["root_cause"], e.pid) for e in fails] == [
        (0, 1, True, 102930),
        (2, 1, False, 102932),
        (3, 1, False, 102933),
    ]
    assert all(e.data["signal"] is None for e in fails)
    assert all(e.host == "c561-007.stampede3.tacc.utexas.edu" for e in fails)


def test_deepspeed_return_code(tmp_path):
    line = "[2023-07-20 15:45:13,982] [ERROR] [launch.py:321:sigkill_handler] ['/usr/bin/python3', '-u', 'main.py', '--local_rank=1', '--deepspeed'] exits with return code = -7"
    ev = one(tmp_path, line, "process_exit")
    has(ev.data, exitcode=-7, signal="SIGBUS", reporter="deepspeed")
    assert ev.time.isoformat() == "2023-07-20T15:45:13.982000"


def test_vllm_worker_died(tmp_path):
    line = "ERROR 05-12 10:00:01 multiproc_worker_utils.py:120] Worker VllmWorkerProcess pid 3283517 died, exit code: -15"
    ev = one(tmp_path, line, "process_exit")
    has(ev.data, exitcode=-15, signal="SIGTERM", child_pid=3283517, reporter="vllm")


def test_ucx_bus_error(tmp_path):
    ev = one(tmp_path, "[09677202c889:5283 :0:5704] Caught signal 7 (Bus error: nonexistent physical address)", "crash_signal")
    has(ev.data, signal="SIGBUS", what="Bus error: nonexistent physical address")


def test_fatal_python_segfault(tmp_path):
    ev = one(tmp_path, "Fatal Python error: Segmentation fault", "crash_signal")
    has(ev.data, signal="SIGSEGV")


# --- CUDA ---------------------------------------------------------------------------------------


def test_cuda_oom_new_wording(tmp_path):
    line = (
        "OutOfMemoryError: CUDA out of memory. Tried to allocate 96.00 MiB. GPU 0 has a total capacity of 23.56 GiB of which "
        "64.94 MiB is free. Process 1762 has 260.00 MiB memory in use. Including non-PyTorch memory, this process has 22.86 GiB memory in use."
    )
    ev = one(tmp_path, line, "allocator_report")
    has(ev.data, requested="96.00 MiB", gpu=0, total="23.56 GiB", free="64.94 MiB")


def test_cuda_oom_old_wording(tmp_path):
    line = (
        "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 3; 79.15 GiB total capacity; 77.00 GiB already "
        "allocated; 3.00 MiB free; 78.00 GiB reserved in total by PyTorch) If reserved memory is >> allocated memory try setting max_split_size_mb"
    )
    ev = one(tmp_path, line, "allocator_report")
    has(ev.data, requested="20.00 MiB", gpu=3, total="79.15 GiB")


def test_cuda_invalid_device_ordinal(tmp_path):
    ev = one(tmp_path, "RuntimeError: CUDA error: invalid device ordinal", "cuda_error")
    has(ev.data, error="invalid device ordinal", cuda_name=None)
    assert "error_class" not in ev.data  # what the error means is the catalog's
    assert cuda_class(ev.data["error"], ev.data["cuda_name"]) == ("cudaErrorInvalidDevice", "device_ordinal")


def test_cuda_ecc_uncorrectable(tmp_path):
    line = "RuntimeError: transform: failed to synchronize: cudaErrorECCUncorrectable: uncorrectable ECC error encountered"
    ev = one(tmp_path, line, "cuda_error")
    has(ev.data, cuda_name="cudaErrorECCUncorrectable")
    assert cuda_class(ev.data["error"], ev.data["cuda_name"])[1] == "hardware"


# --- kernel -------------------------------------------------------------------------------------


def test_xid_pre_515_very_old_no_pci(tmp_path):
    line = "Nov 22 18:29:55 hostname kernel: [ 966.503025] NVRM: Xid (0000:01:00): 31, Ch 0000000b, engmask 00000120, intr 10000000"
    ev = one(tmp_path, line, "xid")
    has(ev.data, xid=31, bus="01:00")
    assert "fault_class" not in ev.data and fault_class(31)[1] == "app"  # the catalog's reading
    assert (ev.time.month, ev.time.day, ev.time.hour) == (11, 22, 18)


def test_xid_le_560_unknown_pid(tmp_path):
    line = "[  123.456] NVRM: Xid (PCI:0000:3b:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus."
    ev = one(tmp_path, line, "xid")
    has(ev.data, xid=79, bus="3b:00", xid_pid=None)
    assert fault_class(79)[1] == "hardware"
    assert ev.data["process"] is None, "an unknown process name must stay null, not '<unknown>'"


def test_xid_le_560_with_pid_and_name(tmp_path):
    ev = one(tmp_path, "NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=python, GPU has fallen off the bus.", "xid")
    has(ev.data, xid=79, bus="3b:00", xid_pid=1234, process="python")


def test_xid_ge_570_no_process_context(tmp_path):
    ev = one(tmp_path, "May 18 19:02:39 kernel: NVRM: Xid (PCI:0000:2b:00): 79, GPU has fallen off the bus.", "xid")
    has(ev.data, xid=79, bus="2b:00", xid_pid=None, process=None)


def test_xid_mig_form(tmp_path):
    ev = one(tmp_path, "NVRM: Xid (PCI:0000:01:00 GPU-I:05): 94, pid=7194, Contained: CE User Channel (0x9). RST: No, D-RST: No", "xid")
    has(ev.data, xid=94, bus="01:00", xid_pid=7194)
    assert fault_class(94)[1] == "hardware"


def test_bus_key_joins_xid_nccl_nvml():
    assert bus_key("0000:3b:00") == bus_key("3b000") == bus_key("00000000:3B:00.0") == "3b:00"
    assert bus_key("1e0") == bus_key("0000:00:1e") == "00:1e"
    assert bus_key("13000") == "13:00"


def test_host_oom_killer_full_line(tmp_path):
    line = (
        "[12345.678901] Out of memory: Killed process 4242 (python) total-vm:123456789kB, anon-rss:120000000kB, "
        "file-rss:0kB, shmem-rss:0kB, UID:1000 pgtables:234567kB oom_score_adj:0"
    )
    ev = one(tmp_path, line, "kernel_kill")
    has(ev.data, victim_pid=4242, process="python")


def test_host_oom_killer_short_line(tmp_path):
    ev = one(tmp_path, "[12345.678901] Out of memory: Killed process 4242 (python)", "kernel_kill")
    has(ev.data, victim_pid=4242, process="python")


def test_host_oom_killer_old_wording(tmp_path):
    ev = one(tmp_path, "kernel: Out of memory: Kill process 4242 (python) score 900 or sacrifice child", "kernel_kill")
    has(ev.data, victim_pid=4242, process="python")


def test_amd_vi_io_page_fault(tmp_path):
    line = "[1118468.873266] nvidia 0000:0a:00.0: AMD-Vi: Event logged [IO_PAGE_FAULT domain=0x000f address=0x00000000ea13a000 flags=0x0020]"
    ev = one(tmp_path, line, "iommu_fault")
    has(ev.data, device="0000:0a:00.0", fault_kind="IO_PAGE_FAULT", uptime_s=1118468.873266)


# --- exceptions CPython reports as ignored ----------------------------------------------------

IGNORED_TB = [
    "Exception ignored in: <function _MultiProcessingDataLoaderIter.__del__ at 0x7f3a2c001230>",
    "Traceback (most recent call last):",
    '  File "/opt/conda/lib/python3.11/site-packages/torch/utils/data/dataloader.py", line 1477, in __del__',
    "    self._shutdown_workers()",
    "AttributeError: '_MultiProcessingDataLoaderIter' object has no attribute '_workers_status'",
]


def test_an_exception_ignored_in_a_destructor_is_not_a_crash(tmp_path):
    kinds = [e.kind for e in read_events(tmp_path, IGNORED_TB)]
    assert "exception_ignored" in kinds and "exception" not in kinds
    d = diagnose(tmp_path / "log.txt").to_dict()
    assert d["findings"] == [] and d["first_failure"] is None


def test_an_ignored_exception_without_its_traceback_and_a_real_one_after_it(tmp_path):
    lines = [
        "Exception ignored in: <function Foo.__del__ at 0x7f3a2c001230>",
        "AttributeError: 'NoneType' object has no attribute 'close'",
        "[rank0]: step 100 loss 2.31",
        "Traceback (most recent call last):",
        '  File "/opt/train.py", line 12, in <module>',
        "RuntimeError: CUDA error: an illegal memory access was encountered",
    ]
    events = [e for e in read_events(tmp_path, lines) if e.kind in ("exception", "exception_ignored")]
    assert [(e.kind, e.data["exc_short"]) for e in events] == [("exception_ignored", "AttributeError"), ("exception", "RuntimeError")]


def test_the_oom_message_names_the_gpu_of_the_first_failure(tmp_path):
    line = ("[rank5]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 5 has a total "
            "capacity of 79.10 GiB of which 1.06 GiB is free.")
    ev = one(tmp_path, line, "allocator_report")
    assert (ev.device, ev.rank, ev.data["gpu"]) == (5, 5, 5)
    ff = diagnose(tmp_path / "log.txt").to_dict()["first_failure"]
    assert (ff["rank"], ff["device"]) == (5, 5)
