"""Signatures of messages PyTorch prints: ProcessGroupNCCL's watchdog, heartbeat monitor and
desync report, NCCL errors surfaced by c10d, TCPStore/socket/rendezvous, torchelastic, c10 CUDA
errors and the allocator, plus Python exceptions classified by their content (see schema.py).

Drawn from the strings of the official wheels 1.10.2, 2.4.1 and 2.13.0 (libtorch_cuda.so,
libtorch_cpu.so, libc10_cuda.so) and from their Python sources (torch/distributed/elastic/**,
distributed_c10d.py, torch/cuda/__init__.py, torch/multiprocessing/spawn.py,
torch/utils/data/**). C++ `c10::str` pieces were joined as the code joins them; variable parts
are written as `\\d+`, `\\S+`, `.*`.
"""
from __future__ import annotations

from .schema import Signature, alone_differs

_PGNCCL = "torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp"
_NCCLUTILS = "torch/csrc/distributed/c10d/NCCLUtils.hpp/.cpp"
_SOCKET = "torch/csrc/distributed/c10d/socket.cpp"
_TCPSTORE = "torch/csrc/distributed/c10d/TCPStore.cpp"
_ELASTIC_API = "torch/distributed/elastic/multiprocessing/api.py"
_ALLOC = "c10/cuda/CUDACachingAllocator.cpp"

SIGNATURES: tuple[Signature, ...] = (
    # ------------------------------------------------------------------ ProcessGroupNCCL watchdog
    Signature(
        id="torch.pgnccl.watchdog_timeout",
        patterns=(
            r"(?:Watchdog c|C)aught collective operation timeout: ?WorkNCCL\(",
            r"Timeout\(ms\)=\d+\) ran for \d+ milliseconds before timing out",
        ),
        extract=(
            r"WorkNCCL\((?:SeqNum=(?P<seq>\d+), )?OpType=(?P<op>\w+)"
            r".*?Timeout\(ms\)=(?P<timeout_ms>\d+)\)"
        ),
        cause="collective_timeout_straggler",
        role="symptom",
        confidence="medium",
        title="NCCL collective timed out (ProcessGroupNCCL watchdog)",
        fix=(
            "This rank waited longer than the process-group timeout for a collective (the OpType and "
            "Timeout(ms) are on the line). The rank that did NOT time out, or timed out on a lower "
            "sequence number, is the straggler or the one that died: compare the 'last completed' "
            "numbers across ranks and look for its own error earlier. To get a report of who lagged:\n"
            "$ export TORCH_NCCL_DESYNC_DEBUG=1 TORCH_NCCL_TRACE_BUFFER_SIZE=2000 TORCH_NCCL_DUMP_ON_TIMEOUT=1\n"
            "$ python -m torch.distributed.flight_recorder.fr_trace ~/.cache/torch   # after the dump"
        ),
        origin=f"{_PGNCCL} WorkNCCL::checkTimeout, 1.8-2.13 ('Caught collective operation timeout' 1.8-1.9)",
        samples=(
            "[rank1]:[E626 06:24:44.903881913 ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=808, OpType=ALLREDUCE, NumelIn=9801523, NumelOut=9801523, Timeout(ms)=600000) ran for 600020 milliseconds before timing out.",
            "[E ProcessGroupNCCL.cpp:458] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=96117, OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 25625613 milliseconds before timing out.",
            "[E ProcessGroupNCCL.cpp:566] [Rank 3] Caught collective operation timeout: WorkNCCL(OpType=BROADCAST, TensorShape=[1024], Timeout(ms)=1800000) ran for 1800412 milliseconds before timing out.",
            "lOut=1, Timeout(ms)=600000) ran for 600050 milliseconds before timing out.",
        ),
        priority=70,
    ),
    Signature(
        id="torch.pgnccl.blocking_wait_timeout",
        patterns=(
            r"WorkNCCL\(.*\) timed out in blocking wait",
            r"Work \S+ timed out in blocking wait",
            r"WorkNCCL\(.*\) timed out in call to wait\(\)",
        ),
        cause="collective_timeout_straggler",
        role="symptom",
        confidence="medium",
        title="NCCL collective timed out in blocking wait (TORCH_NCCL_BLOCKING_WAIT=1)",
        fix=(
            "With blocking wait the calling thread itself gave up on the collective. Another rank "
            "never reached it or died: find the rank whose last completed sequence number is lowest.\n"
            "$ export TORCH_NCCL_DESYNC_DEBUG=1   # names the lagging ranks in the timeout message"
        ),
        origin=f"{_PGNCCL} WorkNCCL::wait / synchronizeInternal, 1.10-2.13",
        samples=(
            "[rank2]: RuntimeError: [Rank 2] Work WorkNCCL(SeqNum=12, OpType=ALLGATHER, NumelIn=8, NumelOut=64, Timeout(ms)=60000) timed out in blocking wait (TORCH_NCCL_BLOCKING_WAIT=1).",
        ),
        priority=70,
    ),
    Signature(
        id="torch.pgnccl.watchdog_work_status",
        patterns=(
            r"(?:failure|Exception \(either an error or timeout\)) detected by watchdog at work(?: sequence id)?: \d+",
            r"\] Exception \(either an error or timeout\)",
            r"Timeout at NCCL work: \d+, last enqueued NCCL work: \d+",
        ),
        extract=(
            r"at (?:NCCL )?work(?: sequence id)?: (?P<seq>\d+).*?last enqueued (?:NCCL )?work: (?P<last_enqueued>\d+), "
            r"last completed (?:NCCL )?work: (?P<last_completed>\d+)"
        ),
        cause="collective_timeout_straggler",
        role="symptom",
        confidence="medium",
        title="Watchdog stopped at a collective: last enqueued / last completed sequence numbers",
        fix=(
            "This rank completed collectives up to #{last_completed} and failed at #{seq}. Compare this "
            "line across ranks: the rank with the LOWEST last completed number (or none at all) is the "
            "one that fell behind or died; look at its own log first."
        ),
        origin=f"{_PGNCCL} ProcessGroupNCCL::watchdogHandler / Watchdog::runLoop, 2.2-2.13",
        samples=(
            "[rank0]:[E626 06:24:44.160366013 ProcessGroupNCCL.cpp:1785] [PG ID 0 PG GUID 0(default_pg) Rank 0] Exception (either an error or timeout) detected by watchdog at work: 808, last enqueued NCCL work: 811, last completed NCCL work: 807.",
            "[rank0]:[E822 16:31:16.132547721 ProcessGroupNCCL.cpp:2271] [PG ID 4 PG GUID 67 Rank 0]  failure detected by watchdog at work sequence id: 5730 PG status: last enqueued work: 6464, last completed work: 5729",
            "[rank2]:[E ProcessGroupNCCL.cpp:523] [PG 0 Rank 2] Timeout at NCCL work: 41, last enqueued NCCL work: 42, last completed NCCL work: 40.",
        ),
        priority=60,
    ),
    Signature(
        id="torch.pgnccl.ops_failed_or_timed_out",
        patterns=(r"Some NCCL operations have failed or timed out",),
        cause="collective_timeout_straggler",
        role="symptom",
        confidence="low",
        title="ProcessGroupNCCL: some NCCL operations failed or timed out",
        fix=(
            "Generic teardown message printed after a watchdog timeout OR an asynchronous NCCL "
            "error. The line just before it on this rank (timeout, NCCL error, CUDA error) says which; "
            "the first rank to fail is the story."
        ),
        origin=f"{_PGNCCL} 1.10-2.13",
        samples=(
            "[E ProcessGroupNCCL.cpp:456] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.",
            "[rank5]:[E1202 14:22:01.123456789 ProcessGroupNCCL.cpp:1834] [PG ID 0 PG GUID 0(default_pg) Rank 5] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.",
        ),
        priority=35,
    ),
    Signature(
        id="torch.pgnccl.taking_process_down",
        patterns=(r"To avoid data inconsistency, we are taking the entire process down",),
        cause="collective_timeout_straggler",
        role="symptom",
        confidence="low",
        title="ProcessGroupNCCL aborts the process after a failed collective",
        fix=(
            "TORCH_NCCL_ASYNC_ERROR_HANDLING tore the process down (exit -6) after a timeout or an "
            "async NCCL error; the cause is in the lines before it or on another rank."
        ),
        origin=f"{_PGNCCL} 1.10-2.13",
        samples=(
            "[rank3]:[E1202 14:22:01.123456789 ProcessGroupNCCL.cpp:630] [Rank 3] To avoid data inconsistency, we are taking the entire process down.",
        ),
        priority=30,
    ),
    Signature(
        id="torch.pgnccl.watchdog_thread_exception",
        patterns=(
            r"(?:Process group|NCCL) watchdog thread terminated with (?:exception|unknown exception)",
        ),
        extract=r"terminated with (?:unknown )?exception:? ?(?P<what>.*)",
        cause="collective_timeout_straggler",
        role="symptom",
        confidence="low",
        title="ProcessGroupNCCL watchdog thread terminated with an exception",
        fix=(
            "The watchdog re-raises whatever it caught: a collective timeout, an async NCCL error or a "
            "CUDA error from this rank's own kernels (e.g. illegal memory access, ECC). Read the text "
            "after 'exception:' ({what}); a CUDA error there is this rank's own fault."
        ),
        origin=f"{_PGNCCL} ncclCommWatchdog / Watchdog::run, 1.10-2.13 ('NCCL watchdog thread' before 2.2)",
        samples=(
            "[rank3]:[E226 13:18:21.063621914 ProcessGroupNCCL.cpp:1595] [PG ID 2 PG GUID 3 Rank 3] Process group watchdog thread terminated with exception: [Rank 3] Watchdog caught collective operation timeout",
            "[E ProcessGroupNCCL.cpp:916] [Rank 1] NCCL watchdog thread terminated with exception: NCCL error: remote process exited or there was a network error",
            "[E ProcessGroupNCCL.cpp:1209] [Rank 0] NCCL watchdog thread terminated with unknown exception",
        ),
        priority=30,
    ),
    Signature(
        id="torch.pgnccl.heartbeat_monitor_timeout",
        patterns=(r"Heartbeat monitor timed out! Process will be terminated",),
        cause="collective_timeout_straggler",
        role="symptom",
        confidence="medium",
        title="ProcessGroupNCCL heartbeat monitor: the watchdog thread itself is stuck",
        fix=(
            "The watchdog made no progress for TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC (default 480 s): a "
            "NCCL or CUDA call (often cudaEventDestroy / ncclCommAbort) is hung, usually because a GPU "
            "or a peer stopped answering. Check this node's kernel log for Xid errors, then the other ranks.\n"
            "$ dmesg -T | grep -iE 'xid|nvrm'\n"
            "$ nvidia-smi -q -d ECC,PERFORMANCE"
        ),
        origin=f"{_PGNCCL} ProcessGroupNCCL::heartbeatMonitor, 2.2-2.4",
        samples=(
            "[rank7]:[E ProcessGroupNCCL.cpp:1316] [PG 0 Rank 7] Heartbeat monitor timed out! Process will be terminated after dumping debug info. workMetaList_.size()=2",
        ),
        priority=65,
    ),
    Signature(
        id="torch.pgnccl.watchdog_stuck",
        patterns=(r"ProcessGroupNCCL's watchdog got stuck for \d+ seconds",),
        extract=r"got stuck for (?P<seconds>\d+) seconds",
        cause="collective_timeout_straggler",
        role="symptom",
        confidence="medium",
        title="ProcessGroupNCCL watchdog hang (no heartbeat)",
        fix=(
            "The watchdog thread was blocked for {seconds} s inside a NCCL/CUDA API call, so the process "
            "is being killed (exit -6). A hung GPU (Xid), a dead peer or a NCCL hang after init "
            "(P2P/IOMMU) are the usual causes. Check the node and the other ranks:\n"
            "$ dmesg -T | grep -iE 'xid|nvrm'\n"
            "$ export TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC=1800   # only if the hang is a false positive"
        ),
        origin=f"{_PGNCCL} heartbeatMonitor / HeartbeatMonitor::runLoop, 2.2-2.13",
        samples=(
            "[rank4]:[F1202 14:30:01.000000000 ProcessGroupNCCL.cpp:1535] [PG ID 0 PG GUID 0(default_pg) Rank 4] [PG ID 0 PG GUID 0(default_pg) Rank 4] Terminating the process after attempting to dump debug info, due to ProcessGroupNCCL watchdog hang. ProcessGroupNCCL's watchdog got stuck for 480 seconds without making progress in monitoring enqueued collectives.",
            "[F ProcessGroupNCCL.cpp:1339] [PG 0 Rank 2] ProcessGroupNCCL's watchdog got stuck for 600 seconds without making progress in monitoring enqueued collectives. This typically indicates a NCCL/CUDA API hang blocking the watchdog, and could be triggered by another thread holding the GIL inside a CUDA api, or other deadlock-prone behaviors.",
        ),
        priority=66,
    ),
    Signature(
        id="torch.pgnccl.dump_signal_from_rank",
        patterns=(
            r"Received a (?:global )?dump signal (?:due to a collective timeout )?from (?:this local rank|rank \d+)",
            r"watchdog detected a dump signal from rank \d+",
            r"Observed flight recorder dump signal from another rank",
        ),
        extract=r"from rank (?P<peer>\d+)",
        cause="collective_timeout_straggler",
        role="symptom",
        confidence="low",
        title="This rank was told to dump debug info because another rank timed out",
        fix=(
            "Another rank (named on the line when it is known) detected the timeout first and "
            "broadcast the dump signal through the TCPStore. Start from that rank's log and its "
            "flight-recorder dump."
        ),
        origin=f"{_PGNCCL} heartbeatMonitor / HeartbeatMonitor::runLoop / Watchdog, 2.3-2.13",
        samples=(
            "[rank2]:[E1202 14:22:05.000000000 ProcessGroupNCCL.cpp:1385] [PG ID 0 PG GUID 0(default_pg) Rank 2] Received a dump signal due to a collective timeout from rank 5 and we will try our best to dump the debug info. Last enqueued NCCL work: 120, last completed NCCL work: 119.",
            "[rank0]:[E ProcessGroupNCCL.cpp:1280] [PG 0 Rank 0] ProcessGroupNCCL's watchdog detected a dump signal from rank 3, and will start to dump the debug info.",
            "[rank1]:[E1202 14:22:05.000000000 ProcessGroupNCCL.cpp:2020] [PG ID 0 PG GUID 0 Rank 1] Observed flight recorder dump signal from another rank via TCPStore.",
        ),
        priority=45,
    ),
    Signature(
        id="torch.pgnccl.terminating_after_dump",
        patterns=(r"Terminating the process after attempting to dump debug info, due to",),
        extract=r"due to (?P<reason>[^.]+)",
        cause="collective_timeout_straggler",
        role="symptom",
        confidence="low",
        title="ProcessGroupNCCL terminates the process after the debug dump",
        fix=(
            "Final fatal line of the watchdog/heartbeat path (reason: {reason}); the process exits "
            "with SIGABRT (-6). The cause is earlier on this rank or on the rank that timed out first."
        ),
        origin=f"{_PGNCCL} HeartbeatMonitor::runLoop, 2.4-2.13",
        samples=(
            "[rank6]:[F1202 14:32:01.000000000 ProcessGroupNCCL.cpp:1557] [PG ID 0 PG GUID 0(default_pg) Rank 6] Terminating the process after attempting to dump debug info, due to collective timeout or exception.",
        ),
        priority=40,
    ),
    Signature(
        id="torch.pgnccl.first_to_dump",
        patterns=(
            r"First PG on this rank to signal dumping",
            r"First PG on this rank detecting the dump signal",
            r"First watchdog to set the dump signal",
            r"First PG on this rank that detected no heartbeat",
        ),
        cause=None,
        role="context",
        confidence="low",
        title="Flight recorder: this PG was the first on its rank to trigger the dump",
        fix="Identity of the first detector; the rank that prints it earliest saw the failure first.",
        origin=f"{_PGNCCL} 2.4-2.13",
        samples=(
            "[rank0]:[E822 16:31:16.132605556 ProcessGroupNCCL.cpp:2106] [PG ID 4 PG GUID 67 Rank 0] First PG on this rank to signal dumping.",
        ),
        priority=20,
    ),
    Signature(
        id="torch.fr.dump_written",
        patterns=(
            r"Finished writing (?:NCCLPG|Flight Recorder) debug info to \S+",
            r"Flight Recorder trace successfully dumped",
            r"ProcessGroupNCCL dumping nccl trace to \S+",
        ),
        extract=r"(?:info|trace) to (?P<path>\S+)",
        cause=None,
        role="context",
        confidence="low",
        title="Flight recorder dump written",
        fix=(
            "Collect the per-rank dump files (prefix + global rank) from every node and analyse them together:\n"
            "$ python -m torch.distributed.flight_recorder.fr_trace <dump-dir> --print_stack_trace"
        ),
        origin="torch/csrc/distributed/c10d/FlightRecorder.cpp, ProcessGroupNCCL.cpp 2.3-2.13",
        samples=(
            "[rank3]:[E1202 14:22:07.000000000 ProcessGroupNCCL.cpp:1650] [PG ID 0 PG GUID 0 Rank 3] Finished writing NCCLPG debug info to /tmp/nccl_trace_rank_3",
            "[rank0]:[W1202 14:22:07.000000000 ProcessGroupNCCL.cpp:1702] Flight Recorder trace successfully dumped.",
        ),
        priority=20,
    ),
    Signature(
        id="torch.fr.disabled",
        patterns=(r"Stack trace of the failed collective not found, potentially because FlightRecorder is disabled",),
        cause=None,
        role="context",
        confidence="low",
        title="Flight recorder disabled: no collective stack trace",
        fix=(
            "Enable the flight recorder so the next timeout leaves a per-rank trace:\n"
            "$ export TORCH_NCCL_TRACE_BUFFER_SIZE=2000 TORCH_NCCL_DUMP_ON_TIMEOUT=1"
        ),
        origin=f"{_PGNCCL} 2.5-2.13",
        samples=(
            "[rank0]:[E822 16:31:16.132564125 ProcessGroupNCCL.cpp:670] Stack trace of the failed collective not found, potentially because FlightRecorder is disabled. You can enable it by setting TORCH_NCCL_TRACE_BUFFER_SIZE to a non-zero value.",
        ),
        priority=15,
    ),
    Signature(
        id="torch.fr.analyzer_missing_ranks",
        patterns=(r"Not all ranks joining collective,? sequence number: \d+",),
        extract=r"sequence number: (?P<seq>\d+)",
        cause="collective_timeout_straggler",
        role="symptom",
        confidence="high",
        title="Flight-recorder analysis: some ranks never joined a collective",
        fix=(
            "fr_trace found ranks that never issued collective #{seq}; its 'missing ranks' line names "
            "them. Those ranks are the stragglers (stuck in compute, data loading, or dead): look at "
            "their logs and stacks.\n"
            "$ py-spy dump --pid {pid}   # on a live straggler"
        ),
        origin="torch/distributed/flight_recorder/components/utils.py (fr_trace analyzer), 2.5-2.13",
        samples=("Not all ranks joining collective, sequence number: 1580",),
        priority=80,
    ),
    Signature(
        id="torch.fr.analyzer_culprit",
        patterns=(r"Culprit rank \d+; Error type: \w+",),
        extract=r"Culprit rank (?P<peer>\d+); Error type: (?P<error_type>\w+)",
        cause="collective_timeout_straggler",
        role="symptom",
        confidence="high",
        title="Flight-recorder analysis: collective mismatch, culprit rank named",
        fix=(
            "Rank {peer} issued a collective that differs from the others ({error_type}): a desync in "
            "the program (different op, size, dtype or order on that rank). Fix the code path that "
            "diverges on that rank."
        ),
        origin="torch/distributed/flight_recorder/components/utils.py (fr_trace analyzer), 2.5-2.13",
        samples=("error msg: Culprit rank 3; Error type: COLLECTIVE_TYPE_MISMATCH, Expected collective type all_reduce but got all_gather",),
        priority=82,
    ),
    Signature(
        id="torch.pgnccl.async_exception",
        patterns=(
            r"raised the following async exception:",
            r"found async exception when checking for NCCL errors",
        ),
        cause="rank_crash",
        role="symptom",
        confidence="low",
        title="Asynchronous NCCL error caught by ProcessGroupNCCL",
        fix=(
            "NCCL reported an error asynchronously on a communicator of this rank. The NCCL text that "
            "follows (remote process exited, system error, last WARN) tells where it came from; a "
            "remote error usually means another rank died first."
        ),
        origin=f"{_PGNCCL} WorkNCCL::checkAndSetException / checkForNCCLErrors, 1.8-2.13",
        samples=(
            "[rank1]:[E1202 14:22:01.000000000 ProcessGroupNCCL.cpp:684] [Rank 1] Collective WorkNCCL(SeqNum=44, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) raised the following async exception: NCCL error: remote process exited or there was a network error, NCCL version 2.21.5",
        ),
        priority=40,
    ),
    Signature(
        id="torch.pgnccl.comm_aborted",
        patterns=(
            r"NCCL communicator was aborted on rank \d+",
            r"has aborted its NCCL communicators previously",
            r"Received NCCL errors for communicators in the cache",
            r"NCCL communicator encountered error set by ProcessGroupNCCL",
        ),
        extract=r"(?:Original reason for failure was: ?(?P<reason>.*))",
        cause="rank_crash",
        role="symptom",
        confidence="low",
        title="NCCL communicator already aborted (after an earlier failure)",
        fix=(
            "A later use of a communicator that was aborted because of an earlier timeout or error. "
            "Look for the original reason (printed after 'Original reason for failure was:') and for "
            "the first rank that failed."
        ),
        origin=f"{_NCCLUTILS} NCCLComm::getNcclComm, {_PGNCCL} 1.8-2.13",
        samples=(
            "RuntimeError: NCCL communicator was aborted on rank 2.  Original reason for failure was: [Rank 2] Watchdog caught collective operation timeout",
            "[E ProcessGroupNCCL.cpp:587] [Rank 0] Received NCCL errors for communicators in the cache: ",
        ),
        priority=40,
    ),
    Signature(
        id="torch.pgnccl.remote_error_from_rank",
        patterns=(r"remote error detected from rank: \d+",),
        extract=r"from rank: (?P<peer>\d+)",
        cause="rank_crash",
        role="symptom",
        confidence="medium",
        title="ProcessGroupNCCL: error propagated from another rank",
        fix=(
            "Rank {peer} failed first and propagated its error through the store "
            "(TORCH_NCCL_PROPAGATE_ERROR). Diagnose rank {peer}'s own log."
        ),
        origin=f"{_PGNCCL} 2.7-2.13",
        samples=("[rank4]:[E1202 14:22:02.000000000 ProcessGroupNCCL.cpp:2100] [PG ID 0 PG GUID 0 Rank 4] remote error detected from rank: 1",),
        priority=62,
    ),
    Signature(
        id="torch.pgnccl.uniqueid_store_timeout",
        patterns=(
            r"retrieving ncclUniqueIds? from (?:\[\d+\]|roots) via (?:c10d key-value store|TCPStore) by key '[^']*', but store->get\('[^']*'\) got error: .*(?:Socket Timeout|[Tt]imed? ?out|Wait timeout)",
        ),
        extract=r"\[(?P<rank>\d+)\] is setting up NCCL communicator and retrieving ncclUniqueIds? from \[(?P<culprit_rank>\d+)\]",
        cause="rendezvous_hang",
        role="symptom",
        confidence="medium",
        title="Timed out waiting for rank 0's ncclUniqueId in the store",
        fix=(
            "The root rank never published the NCCL unique id: it is slow, stuck before its first "
            "collective, crashed, or runs a different process-group setup. Check rank 0's log; make "
            "sure every rank creates the same process groups in the same order."
        ),
        origin=f"{_PGNCCL} broadcastUniqueNCCLID, 2.0-2.13",
        samples=(
            "[rank3]: torch.distributed.DistBackendError: [3] is setting up NCCL communicator and retrieving ncclUniqueId from [0] via c10d key-value store by key '0', but store->get('0') got error: Socket Timeout",
        ),
        priority=72,
    ),
    Signature(
        id="torch.pgnccl.uniqueid_store_error",
        patterns=(
            r"retrieving ncclUniqueIds? from (?:\[\d+\]|roots) via (?:c10d key-value store|TCPStore) by key",
        ),
        extract=r"(?:\[(?P<rank>\d+)\] is setting up NCCL communicator and )?retrieving ncclUniqueIds? from (?:\[(?P<culprit_rank>\d+)\]|roots).*?got error: (?P<error>[^.]*)",
        cause="rank_crash",
        role="symptom",
        confidence="medium",
        title="Could not fetch the ncclUniqueId from the store (rank 0 or the store went away)",
        fix=(
            "The store read failed ({error}). 'Connection reset by peer' / 'Failed to recv' means the "
            "store host (rank 0 / the agent) crashed: find rank 0's own error. Otherwise check "
            "MASTER_ADDR reachability between the nodes."
        ),
        origin=f"{_PGNCCL} broadcastUniqueNCCLID, 2.0-2.13",
        samples=(
            "RuntimeError: [3] is setting up NCCL communicator and retrieving ncclUniqueId from [0] via c10d key-value store by key '0', but store->get('0') got error: Connection reset by peer. This may indicate a possible application crash on rank 0 or a network set up issue.",
        ),
        priority=65,
    ),
    Signature(
        id="torch.pgnccl.init_timeout",
        patterns=(r"NCCL timeout in communicator initialization", r"NCCL timeout in: \S+"),
        cause="rendezvous_hang",
        role="symptom",
        confidence="medium",
        title="NCCL communicator initialization timed out (non-blocking init)",
        fix=(
            "Not all ranks completed ncclCommInitRank in time: a rank is missing, slow or cannot "
            "reach its peers. Run with NCCL_DEBUG=INFO and compare which ranks print 'Init COMPLETE'.\n"
            "$ export NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,BOOTSTRAP,NET"
        ),
        origin=f"{_NCCLUTILS} 2.2-2.13 (TORCH_NCCL_USE_COMM_NONBLOCKING)",
        samples=("[rank1]: torch.distributed.DistBackendError: NCCL timeout in communicator initialization.",),
        priority=60,
    ),
    Signature(
        id="torch.pgnccl.environment",
        patterns=(
            r"ProcessGroupNCCL (?:environments|initialization options): ",
            r"ProcessGroupNCCL initialized with following options",
        ),
        extract=r"NCCL version: (?P<nccl_version>[\w.+-]+)",
        cause=None,
        role="context",
        confidence="low",
        title="ProcessGroupNCCL settings (NCCL version, timeout, async error handling)",
        fix="Settings of this rank; compare the NCCL version across ranks and nodes.",
        origin=f"{_PGNCCL} ProcessGroupNCCL constructor, 1.10-2.13",
        samples=(
            "[rank0]:[I1202 14:00:00.000000000 ProcessGroupNCCL.cpp:938] [PG ID 0 PG GUID 0 Rank 0] ProcessGroupNCCL environments: NCCL version: 2.21.5, TORCH_NCCL_ASYNC_ERROR_HANDLING: 3, TORCH_NCCL_DUMP_ON_TIMEOUT: 0",
            "[rank0]:[I1202 14:00:00.000000000 ProcessGroupNCCL.cpp:930] [PG ID 0 PG GUID 0 Rank 0] ProcessGroupNCCL initialization options: size: 8, global rank: 0, TIMEOUT(ms): 600000, USE_HIGH_PRIORITY_STREAM: 0",
        ),
        priority=10,
    ),
    Signature(
        id="torch.pgnccl.work_progress",
        patterns=(r"NCCL Work update periodically: last enqueued NCCL work: \d+, last completed NCCL work: \d+",),
        extract=r"last enqueued NCCL work: (?P<last_enqueued>\d+), last completed NCCL work: (?P<last_completed>\d+)",
        cause=None,
        role="context",
        confidence="low",
        title="ProcessGroupNCCL periodic progress (last enqueued / completed)",
        fix="Progress marker; the last such line per rank shows how far each rank got.",
        origin=f"{_PGNCCL} watchdogHandler (glog builds), 2.2-2.13",
        samples=("I1202 14:00:00.000000 1234 ProcessGroupNCCL.cpp:1900] [PG 0 Rank 0] NCCL Work update periodically: last enqueued NCCL work: 1200, last completed NCCL work: 1199.",),
        priority=5,
    ),
    Signature(
        id="torch.pgnccl.gil_hang_on_exit",
        patterns=(r"Could not acquire GIL within \d+ ms on exit, possible GIL induced hang",),
        cause=None,
        role="context",
        confidence="low",
        title="Process exit could not take the GIL (possible hang at shutdown)",
        fix="A Python thread held the GIL while the process was being torn down; context for a hang at exit.",
        origin=f"{_PGNCCL} / torch/csrc/distributed/c10d, 2.3-2.13",
        samples=("[rank0]:[E1202 14:40:00.000000000 ProcessGroupNCCL.cpp:1300] Could not acquire GIL within 300 ms on exit, possible GIL induced hang",),
        priority=5,
    ),
    Signature(
        id="torch.pgnccl.not_destroyed_warning",
        patterns=(r"process group has NOT been destroyed before we destruct ProcessGroupNCCL",),
        cause=None,
        role="harmless",
        confidence="low",
        title="Process group not destroyed at exit (benign warning)",
        fix="Benign: call torch.distributed.destroy_process_group() before exit to silence it.",
        origin=f"{_PGNCCL} ~ProcessGroupNCCL, 2.4-2.13",
        samples=(
            "[rank0]:[W617 03:17:50.058147529 ProcessGroupNCCL.cpp:1168] Warning: WARNING: process group has NOT been destroyed before we destruct ProcessGroupNCCL. On normal program exit, the application should call destroy_process_group to ensure that any pending NCCL operations have finished in this process.",
        ),
        priority=10,
    ),
    Signature(
        id="torch.pgnccl.barrier_device_guess",
        patterns=(
            r"using GPU \d+ to perform barrier as devices used by this process are currently unknown",
            r"Guessing device ID based on global rank",
        ),
        cause="device_ordinal",
        role="context",
        confidence="low",
        title="barrier() had to guess this rank's GPU",
        fix=(
            "The rank-to-GPU mapping was not given; if it is wrong the barrier hangs. Pass it "
            "explicitly: torch.cuda.set_device(local_rank) and init_process_group(..., device_id=...)."
        ),
        origin=f"{_PGNCCL} ProcessGroupNCCL::barrier / guessDeviceId, 1.10-2.13",
        samples=(
            "[rank1]:[W1202 14:00:01.000000000 ProcessGroupNCCL.cpp:4115] [PG ID 0 PG GUID 0 Rank 1]  using GPU 1 to perform barrier as devices used by this process are currently unknown. This can potentially cause a hang if this rank to GPU mapping is incorrect.",
        ),
        priority=15,
    ),
    Signature(
        id="torch.pgnccl.no_gpus",
        patterns=(r"ProcessGroupNCCL is only supported with GPUs, no GPUs found",),
        cause="device_ordinal",
        role="fault",
        confidence="medium",
        title="NCCL backend requested but this process sees no GPU",
        fix=(
            "The process sees zero CUDA devices (empty or wrong CUDA_VISIBLE_DEVICES, container "
            "started without GPUs, or a driver problem):\n"
            "$ echo $CUDA_VISIBLE_DEVICES; nvidia-smi -L\n"
            "$ python -c 'import torch; print(torch.cuda.device_count())'"
        ),
        origin=f"{_PGNCCL} ProcessGroupNCCL constructor, 1.8-2.13",
        samples=("RuntimeError: ProcessGroupNCCL is only supported with GPUs, no GPUs found!",),
        priority=80,
    ),
    # ------------------------------------------------------------------ desync / mismatch
    Signature(
        id="torch.desync.lagging_ranks_never_joined",
        patterns=(r"are the lagging ranks that caused this timeout\. They never joined any collectives",),
        extract=r"ranks \[(?P<ranks>[^\]]*)\] are the lagging",
        cause="collective_timeout_straggler",
        role="symptom",
        confidence="high",
        title="Desync report: lagging ranks never joined any collective",
        fix=(
            "Ranks [{ranks}] never reached a collective: they are stuck before it (data loading, "
            "compute, a rank-specific code path) or died. Look at those ranks' logs and stacks first."
        ),
        origin="torch/csrc/distributed/c10d/TraceUtils.h retrieveDesyncReport, 1.13-2.13",
        samples=(
            "\t - To our best knowledge, ranks [3, 7] are the lagging ranks that caused this timeout. They never joined any collectives",
        ),
        priority=82,
    ),
    Signature(
        id="torch.desync.lagging_ranks_report",
        patterns=(
            r"the lagging/dead/mismatched ranks that caused the desync are",
            r"\] joined but didn't finish collective #\d+",
            r"\] finished collective #\d+, but didn't join collective #\d+",
        ),
        extract=r"\[(?P<ranks>[\d, ]+)\] (?:joined but didn't finish|finished) collective #(?P<seq>\d+)",
        cause="collective_timeout_straggler",
        role="symptom",
        confidence="high",
        title="Desync report: ranks that lagged, died or ran a different collective",
        fix=(
            "The desync debugger names the ranks that joined but did not finish a collective, or "
            "finished it but never joined the next one. Those ranks either stopped inside it "
            "(GPU/peer hang, crash) or skipped to a different collective (program desync). Inspect "
            "them first."
        ),
        origin="torch/csrc/distributed/c10d/TraceUtils.h retrieveDesyncReport, 1.13-2.13",
        samples=(
            "\t - To our best knowledge, the lagging/dead/mismatched ranks that caused the desync are:",
            "\t   - [2] joined but didn't finish collective #57 (count from 1)",
            "\t     [0, 1, 3] finished collective #57, but didn't join collective #58 (count from 1)",
        ),
        priority=80,
    ),
    Signature(
        id="torch.desync.timeout_at_collective",
        patterns=(r"\] Timeout at collective: \w+, #\d+",),
        extract=r"Timeout at collective: (?P<op>\w+), #(?P<seq>\d+)",
        cause="collective_timeout_straggler",
        role="symptom",
        confidence="medium",
        title="Desync report: collective at which the timeout happened",
        fix="Timeout at {op} #{seq}; read the lines after it for the lagging ranks.",
        origin="torch/csrc/distributed/c10d/TraceUtils.h, 1.13-2.13",
        samples=("\t - [0] Timeout at collective: ALLREDUCE, #57",),
        priority=60,
    ),
    Signature(
        id="torch.desync.collective_mismatch",
        patterns=(r"Detected mismatch between collectives on ranks\. Rank \d+",),
        extract=r"Rank (?P<rank>\d+) is running collective: .*?but Rank (?P<peer>\d+) is running collective",
        cause="collective_timeout_straggler",
        role="fault",
        confidence="high",
        title="Ranks called different collectives (TORCH_DISTRIBUTED_DEBUG=DETAIL)",
        fix=(
            "Rank {rank} and rank {peer} issued different collectives (op, shape or dtype) at the same "
            "sequence number: a program desync. Make every rank run the same collectives in the same "
            "order (rank-dependent branches, uneven data, skipped steps)."
        ),
        origin="torch/csrc/distributed/c10d/ProcessGroupWrapper.cpp, 1.10-2.13",
        samples=(
            "RuntimeError: Detected mismatch between collectives on ranks. Rank 0 is running collective: CollectiveFingerPrint(SequenceNumber=23, OpType=ALLREDUCE, TensorShape=[10], TensorDtypes=Float, TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda)), but Rank 1 is running collective: CollectiveFingerPrint(SequenceNumber=23, OpType=BROADCAST).",
        ),
        priority=88,
    ),
    Signature(
        id="torch.desync.monitored_barrier",
        patterns=(
            r"failed to pass monitoredBarrier in \d+",
            r"(?i)timed out in monitoredBarrier after \d+",
        ),
        extract=r"Ranks? (?P<ranks>[\d, ]+) failed to pass monitoredBarrier",
        cause="collective_timeout_straggler",
        role="symptom",
        confidence="high",
        title="monitored_barrier: named ranks did not arrive",
        fix=(
            "Ranks {ranks} did not reach the monitored barrier in time: they are the stragglers (stuck "
            "or dead). Check their logs and stacks."
        ),
        origin="torch/csrc/distributed/c10d/ProcessGroupGloo.cpp monitoredBarrier, 1.10-2.13",
        samples=(
            "RuntimeError: Rank 3 failed to pass monitoredBarrier in 30000 ms",
            "RuntimeError: Ranks 1, 3 failed to pass monitoredBarrier in 30000 ms",
        ),
        priority=80,
    ),
    # ------------------------------------------------------------------ NCCL errors via c10d
    Signature(
        id="torch.nccl.error_cuda_oom",
        patterns=(
            r"NCCL error.*unhandled cuda error.*Cuda failure '?out of memory",
            r"NCCL error.*Cuda failure '?out of memory'?",
        ),
        cause="oom",
        role="fault",
        confidence="high",
        title="NCCL could not allocate GPU memory (CUDA out of memory inside NCCL)",
        fix=(
            "NCCL's own buffers did not fit in the GPU memory left by the model / KV cache / "
            "allocator cache. Leave headroom (smaller batch, lower memory fraction) or shrink NCCL's "
            "buffers:\n"
            "$ nvidia-smi --query-gpu=index,memory.used,memory.total --format=csv\n"
            "$ export NCCL_BUFFSIZE=2097152   # smaller per-channel buffers"
        ),
        origin=f"{_NCCLUTILS} getNcclErrorDetailStr + NCCL 'Cuda failure' last error, 2.0-2.13",
        samples=(
            "[rank2]: torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.20.5 ncclUnhandledCudaError: Call to CUDA function failed. Last error: Cuda failure 'out of memory'",
        ),
        priority=85,
    ),
    Signature(
        id="torch.nccl.error_system_shm",
        patterns=(r"NCCL error.*unhandled system error.*(?:/dev/shm|shared memory|shm_open|posix_fallocate)",),
        cause="shm_exhausted",
        role="fault",
        confidence="medium",
        title="NCCL system error while setting up shared memory",
        fix=(
            "NCCL could not create or map its /dev/shm segments (too small in a container, wrong "
            "permissions, or removed by systemd RemoveIPC):\n"
            "$ df -h /dev/shm; ls -ld /dev/shm\n"
            "$ docker run --shm-size=16g ...   # or --ipc=host"
        ),
        origin=f"{_NCCLUTILS} + NCCL shm WARN as last error, 2.0-2.13",
        samples=(
            "RuntimeError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/NCCLUtils.hpp:121, unhandled system error, NCCL version 2.14.3 ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. Last error: Error while creating shared memory segment /dev/shm/nccl-vzIpS6 (size 9637888)",
        ),
        priority=75,
    ),
    Signature(
        id="torch.nccl.error_unhandled_cuda",
        patterns=(r"NCCL error(?: in:? \S+,|:) unhandled cuda error",),
        extract=r"NCCL version (?P<nccl_version>[\w.+-]+)",
        cause="rank_crash",
        role="fault",
        confidence="low",
        title="NCCL error: unhandled cuda error",
        fix=(
            "A CUDA call inside NCCL failed on this rank. The 'Last error:' / 'Cuda failure' line "
            "names the CUDA error (out of memory, illegal address, ECC...); without it rerun with:\n"
            "$ export NCCL_DEBUG=WARN"
        ),
        origin=f"{_NCCLUTILS} C10D_NCCL_CHECK (ncclUnhandledCudaError), 1.8-2.13",
        samples=(
            "RuntimeError: NCCL error in: /opt/conda/conda-bld/pytorch_1634272204863/work/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1169, unhandled cuda error, NCCL version 21.0.3",
        ),
        priority=35,
    ),
    Signature(
        id="torch.nccl.error_system",
        patterns=(r"NCCL error(?: in:? \S+,|:) unhandled system error",),
        extract=r"NCCL version (?P<nccl_version>[\w.+-]+)",
        cause="network",
        role="symptom",
        confidence="low",
        title="NCCL error: unhandled system error",
        fix=(
            "A system or library call inside NCCL failed (sockets, /dev/shm, InfiniBand verbs), or a "
            "peer exited. The 'Last error:' line or the NCCL WARN before it says which; without them rerun:\n"
            "$ export NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET,SHM"
        ),
        origin=f"{_NCCLUTILS} C10D_NCCL_CHECK (ncclSystemError), 1.2-2.13",
        samples=(
            "RuntimeError: NCCL error in: /pytorch/torch/lib/c10d/ProcessGroupNCCL.cpp:784, unhandled system error, NCCL version 2.7.8",
            "RuntimeError: NCCL error in ProcessGroupNCCL.cpp:290, unhandled system error",
            "  what():  NCCL error: unhandled system error, NCCL version 2.14.3",
        ),
        priority=30,
    ),
    Signature(
        id="torch.nccl.error_remote",
        patterns=(r"NCCL error(?: in:? \S+,|:) remote process exited or there was a network error",),
        extract=r"NCCL version (?P<nccl_version>[\w.+-]+)",
        cause="rank_crash",
        role="symptom",
        confidence="low",
        title="NCCL error: remote process exited or there was a network error",
        fix=(
            "A peer closed its connection: usually another rank died first (look for its own error "
            "or exit code), otherwise the network between the nodes failed (see the 'Last error:' line)."
        ),
        origin=f"{_NCCLUTILS} C10D_NCCL_CHECK (ncclRemoteError), 1.11-2.13",
        samples=(
            "torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/NCCLUtils.hpp:268, remote process exited or there was a network error, NCCL version 2.21.5",
        ),
        priority=38,
    ),
    Signature(
        id="torch.nccl.error_internal",
        patterns=(r"NCCL error(?: in:? \S+,|:) internal error",),
        extract=r"NCCL version (?P<nccl_version>[\w.+-]+)",
        cause="other",
        role="fault",
        confidence="low",
        title="NCCL error: internal error",
        fix=(
            "NCCL's internal check failed; the 'Last error:' line usually names it (allocation "
            "failure, topology mismatch between ranks, version mix). Compare NCCL versions on all nodes:\n"
            "$ python -c 'import torch; print(torch.cuda.nccl.version())'"
        ),
        origin=f"{_NCCLUTILS} C10D_NCCL_CHECK (ncclInternalError), 1.8-2.13",
        samples=(
            "192.168.1.51: RuntimeError: NCCL error in: /opt/conda/conda-bld/pytorch_1670525541990/work/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1269, internal error, NCCL version 2.14.3",
        ),
        priority=30,
    ),
    Signature(
        id="torch.nccl.error_invalid_usage",
        patterns=(r"NCCL error(?: in:? \S+,|:) invalid usage",),
        extract=r"NCCL version (?P<nccl_version>[\w.+-]+)",
        cause="device_ordinal",
        role="fault",
        confidence="low",
        title="NCCL error: invalid usage",
        fix=(
            "Most often two ranks were placed on the same GPU (NCCL then WARNs 'Duplicate GPU "
            "detected'). Make each rank call torch.cuda.set_device(LOCAL_RANK) before "
            "init_process_group, and check CUDA_VISIBLE_DEVICES per rank."
        ),
        origin=f"{_NCCLUTILS} C10D_NCCL_CHECK (ncclInvalidUsage), 1.8-2.13",
        samples=(
            "RuntimeError: NCCL error in: /opt/conda/conda-bld/pytorch_1634272204863/work/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:957, invalid usage, NCCL version 21.0.3",
        ),
        priority=40,
    ),
    Signature(
        id="torch.nccl.error_invalid_argument",
        patterns=(r"NCCL error(?: in:? \S+,|:) invalid argument",),
        cause="other",
        role="fault",
        confidence="low",
        title="NCCL error: invalid argument",
        fix="A NCCL call got an invalid argument (tensor on the wrong device, bad count). Rerun with NCCL_DEBUG=WARN for details.",
        origin=f"{_NCCLUTILS} C10D_NCCL_CHECK (ncclInvalidArgument), 1.8-2.13",
        samples=("RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1191, invalid argument, NCCL version 2.10.3",),
        priority=30,
    ),
    Signature(
        id="torch.nccl.error_timeout",
        patterns=(r"NCCL error(?: in:? \S+,|:) timeout, NCCL version",),
        cause="collective_timeout_straggler",
        role="symptom",
        confidence="low",
        title="NCCL error: timeout (ncclTimeout, NCCL 2.30+)",
        fix="NCCL itself timed out an operation; another rank is missing or stuck. Compare the ranks' last completed collectives.",
        origin=f"{_NCCLUTILS} with NCCL 2.30 ncclTimeout",
        samples=("torch.distributed.DistBackendError: NCCL error: timeout, NCCL version 2.30.3",),
        priority=35,
    ),
    Signature(
        id="torch.nccl.detail_system_error",
        patterns=(r"ncclSystemError: System call \(e\.g\. socket, malloc\) or external library call failed",),
        cause="network",
        role="symptom",
        confidence="low",
        title="ncclSystemError detail line",
        fix="See the 'Last error:' line after it; it names the failing call (socket, shm, ibverbs).",
        origin=f"{_NCCLUTILS} getNcclErrorDetailStr, 1.10-2.13",
        samples=("ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. ",),
        priority=25,
    ),
    Signature(
        id="torch.nccl.detail_remote_error",
        patterns=(r"ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely",),
        cause="rank_crash",
        role="symptom",
        confidence="low",
        title="ncclRemoteError detail line",
        fix="A peer went away; find the rank that failed first (its own exception or exit code), then the network.",
        origin=f"{_NCCLUTILS} getNcclErrorDetailStr, 1.11-2.13",
        samples=("ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.",),
        priority=30,
    ),
    Signature(
        id="torch.nccl.detail_cuda_error",
        patterns=(r"ncclUnhandledCudaError: Call to CUDA function failed",),
        cause="rank_crash",
        role="fault",
        confidence="low",
        title="ncclUnhandledCudaError detail line",
        fix="A CUDA call inside NCCL failed on this rank; the 'Last error:' line names the CUDA error.",
        origin=f"{_NCCLUTILS} getNcclErrorDetailStr, 1.10-2.13",
        samples=("ncclUnhandledCudaError: Call to CUDA function failed.",),
        priority=25,
    ),
    Signature(
        id="torch.nccl.detail_internal_error",
        patterns=(r"ncclInternalError: Internal check failed",),
        cause="other",
        role="fault",
        confidence="low",
        title="ncclInternalError detail line",
        fix="See the 'Last error:' line; check that every node runs the same NCCL build.",
        origin=f"{_NCCLUTILS} getNcclErrorDetailStr, 1.10-2.13",
        samples=("192.168.1.51: ncclInternalError: Internal check failed.",),
        priority=25,
    ),
    Signature(
        id="torch.nccl.detail_invalid_usage",
        patterns=(r"ncclInvalidUsage: This usually reflects invalid usage of NCCL library",),
        cause="device_ordinal",
        role="fault",
        confidence="low",
        title="ncclInvalidUsage detail line",
        fix="Usually two ranks on one GPU; set the device from LOCAL_RANK before creating the process group.",
        origin=f"{_NCCLUTILS} getNcclErrorDetailStr, 1.10-2.13",
        samples=("ncclInvalidUsage: This usually reflects invalid usage of NCCL library.",),
        priority=30,
    ),
    Signature(
        id="torch.nccl.duplicate_gpu",
        patterns=(
            r"Duplicate GPU detected ?: rank \d+ and rank \d+ both on CUDA device",
            r"Multiple [Rr]anks (?:detected using the same GPU|are using the same GPU)",
        ),
        extract=r"rank (?P<rank>\d+) and rank (?P<peer>\d+) both on CUDA device (?P<bus_id>\w+)",
        cause="device_ordinal",
        role="fault",
        confidence="high",
        title="Two ranks on the same GPU",
        fix=(
            "Two ranks of one node use the same GPU (bad CUDA_VISIBLE_DEVICES / LOCAL_RANK mapping). "
            "Each process must select its own device before init_process_group:\n"
            "$ python -c 'import os; print(os.environ.get(\"LOCAL_RANK\"), os.environ.get(\"CUDA_VISIBLE_DEVICES\"))'\n"
            "torch.cuda.set_device(int(os.environ['LOCAL_RANK']))"
        ),
        origin="NCCL init.cc (<=2.29) / graph/topo.cc, init.cc (2.30) text, surfaced by torch as 'Last error:'",
        samples=(
            "Duplicate GPU detected : rank 1 and rank 0 both on CUDA device 83000",
            "[rank1]: Last error: Multiple Ranks are using the same GPU/Partition. Set NCCL_MULTI_RANK_GPU_ENABLE=1 to enable this configuration.",
        ),
        priority=85,
    ),
    Signature(
        id="torch.exc.dist_backend_error",
        patterns=(r"(?:torch\.distributed\.|c10::)DistBackendError\b",),
        cause="rank_crash",
        role="symptom",
        confidence="low",
        title="DistBackendError (a communication backend error)",
        fix="Wraps a NCCL/backend error; its text (and 'Last error:') says which. Usually downstream of another rank's failure.",
        origin="torch/csrc/distributed/c10d/exception.h (c10::DistBackendError), 2.1-2.13",
        samples=(
            "[rank1]: torch.distributed.DistBackendError: [1] is setting up NCCL communicator",
            "terminate called after throwing an instance of 'c10::DistBackendError'",
        ),
        priority=22,
    ),
    # ------------------------------------------------------------------ TCPStore / socket / rendezvous
    Signature(
        id="torch.store.clients_not_joined",
        patterns=(r"Timed out after \d+ seconds waiting for clients\. \d+/\d+ clients joined",),
        extract=r"Timed out after (?P<seconds>\d+) seconds waiting for clients\. (?P<joined>\d+)/(?P<world>\d+) clients joined",
        cause="rendezvous_hang",
        role="symptom",
        confidence="high",
        title="TCPStore: not all ranks joined",
        fix=(
            "Only {joined} of {world} processes reached the store within {seconds} s. The missing ones "
            "never started, crashed at startup, or cannot reach MASTER_ADDR:MASTER_PORT (firewall, "
            "wrong address, wrong WORLD_SIZE/--nnodes). From a missing node:\n"
            "$ nc -zv $MASTER_ADDR $MASTER_PORT\n"
            "$ env | grep -E 'MASTER_ADDR|MASTER_PORT|WORLD_SIZE|RANK'"
        ),
        origin=f"{_TCPSTORE} (TCPStore constructor wait for workers), 2.0-2.13",
        samples=(
            "torch.distributed.DistStoreError: Timed out after 601 seconds waiting for clients. 1/2 clients joined.",
            "[rank0]: torch.distributed.DistStoreError: Timed out after 1801 seconds waiting for clients. 15/16 clients joined.",
        ),
        priority=82,
    ),
    Signature(
        id="torch.store.barrier_timeout",
        patterns=(r"Timed out initializing process group in store based barrier on rank",),
        extract=r"world_size=(?P<world>\d+), num_workers_joined=(?P<joined>\d+)",
        cause="rendezvous_hang",
        role="symptom",
        confidence="high",
        title="init_process_group store barrier timed out",
        fix=(
            "Not every rank reached init_process_group. Check that all ranks start with the same "
            "WORLD_SIZE and MASTER_ADDR/PORT and that none crashed before init."
        ),
        origin="torch/distributed/distributed_c10d.py _store_based_barrier, 1.8-2.13",
        samples=(
            "RuntimeError: Timed out initializing process group in store based barrier on rank: 4, for key: store_based_barrier_key:1 (world_size=8, worker_count=7, timeout=0:30:00)",
            "torch.distributed.DistStoreError: Timed out initializing process group in store based barrier on rank 4, for key: store_based_barrier_key:1 (world_size=8, num_workers_joined=7, timeout=0:30:00 error=Socket Timeout)",
        ),
        priority=80,
    ),
    Signature(
        id="torch.store.client_connect_timeout",
        patterns=(
            r"The client socket has timed out after \d+\w* while trying to connect to",
            r"connect\(\) timed out\. Original timeout was \d+ ms",
            r"TCP client failed to connect/validate to host \S+ - timed out",
        ),
        extract=r"connect to \((?P<host>[^,]+), (?P<port>\d+)\)",
        cause="rendezvous_hang",
        role="symptom",
        confidence="medium",
        title="Could not reach the TCPStore (MASTER_ADDR:MASTER_PORT) before the timeout",
        fix=(
            "This process never reached the store host. The master is not up yet / crashed, the "
            "address or port is wrong, or a firewall or the wrong interface is in the way:\n"
            "$ nc -zv $MASTER_ADDR $MASTER_PORT\n"
            "$ getent hosts $MASTER_ADDR"
        ),
        origin=f"{_SOCKET} SocketConnectOp, 1.8-2.13 ('connect() timed out' 1.8-1.11)",
        samples=(
            "torch.distributed.DistNetworkError: The client socket has timed out after 600000ms while trying to connect to (10.0.0.1, 29500).",
            "[E728 15:01:59.561275187 socket.cpp:1028] [c10d] The client socket has timed out after 600000ms while trying to connect to (127.0.0.1, 48315).",
            "RuntimeError: connect() timed out. Original timeout was 1800000 ms.",
            "[W1202 14:00:00.000000000 TCPStore.cpp:358] [c10d] TCP client failed to connect/validate to host 10.0.0.1:29500 - timed out (try=3, timeout=600000ms): The client socket has timed out after 600000ms while trying to connect to (10.0.0.1, 29500).",
        ),
        priority=75,
    ),
    Signature(
        id="torch.store.connect_retrying",
        patterns=(
            r"TCP client failed to connect/validate to host \S+ - retrying",
            r"The server socket on \S+ is not yet listening",
            r"No socket on \(\S+, \d+\) is listening yet, will retry",
            r"The server socket on \S+ has timed out, will retry",
        ),
        cause="rendezvous_hang",
        role="context",
        confidence="low",
        title="TCPStore connection retry (transient until it times out)",
        fix=(
            "Normal while the master starts; only a problem if it ends in a timeout. (Outranks the "
            "timeout/refused entries on purpose: this line quotes their text for one attempt.)"
        ),
        origin=f"{_TCPSTORE}, {_SOCKET}, 2.0-2.13",
        samples=(
            "[W1202 14:00:00.000000000 TCPStore.cpp:340] [c10d] TCP client failed to connect/validate to host node-a:29500 - retrying (try=0, timeout=1800000ms, delay=496ms): The server socket on node-a:29500 is not yet listening (errno: 111 - Connection refused), will retry.",
        ),
        priority=78,
    ),
    Signature(
        id="torch.store.connect_refused",
        patterns=(
            r"The client socket has failed to connect to .*\(errno: 111 - Connection refused\)",
            r"(?:RuntimeError|DistNetworkError|ConnectionRefusedError): (?:\[Errno 111\] )?Connection refused",
        ),
        cause="rendezvous_hang",
        role="symptom",
        confidence="medium",
        title="TCPStore connection refused (nothing listening on MASTER_PORT)",
        fix=(
            "Nothing listens on MASTER_ADDR:MASTER_PORT: the master process is not up (or died), or "
            "the port/address is wrong:\n"
            "$ ss -ltnp | grep $MASTER_PORT    # on the master node\n"
            "$ nc -zv $MASTER_ADDR $MASTER_PORT"
        ),
        origin=f"{_SOCKET} (errno ECONNREFUSED), 1.8-2.13",
        samples=(
            "torch.distributed.DistNetworkError: The client socket has failed to connect to any network address of (node-a, 29500). The client socket has failed to connect to [node-a]:29500 (errno: 111 - Connection refused).",
            "RuntimeError: Connection refused",
        ),
        priority=70,
    ),
    Signature(
        id="torch.store.connect_unreachable",
        patterns=(
            r"The client socket has failed to connect to .*\(errno: (?:113 - No route to host|101 - Network is unreachable)\)",
        ),
        extract=r"\(errno: (?P<errno>\d+) - (?P<error>[^)]+)\)",
        # docs/design.md: ranks that never joined because MASTER_ADDR/PORT or a firewall keep them
        # from the store are a rendezvous_hang (the rule reading the same line agrees).
        cause="rendezvous_hang",
        role="fault",
        confidence="medium",
        title="Cannot route to the TCPStore host",
        fix=(
            "The master address is not reachable from this node ({error}): wrong MASTER_ADDR, a "
            "firewall, or the address belongs to an interface that is not routed between the nodes:\n"
            "$ ip route get $MASTER_ADDR\n"
            "$ ping -c1 $MASTER_ADDR"
        ),
        origin=f"{_SOCKET} SocketConnectOp, 1.10-2.13",
        samples=(
            "trainer-2: torch.distributed.DistNetworkError: The client socket has failed to connect to any network address of (192.168.121.122, 1040). The client socket has failed to connect to 192.168.121.122:1040 (errno: 113 - No route to host).",
            "[rank3]: RuntimeError: The client socket has failed to connect to [10.1.0.4]:29500 (errno: 101 - Network is unreachable).",
        ),
        priority=72,
    ),
    Signature(
        id="torch.store.connect_failed_any",
        patterns=(r"(?:RuntimeError|DistNetworkError|DistStoreError)\b.*The client socket has failed to connect to any network address of",),
        cause="rendezvous_hang",
        role="symptom",
        confidence="medium",
        title="Could not connect to any address of the TCPStore host",
        fix=(
            "None of MASTER_ADDR's addresses accepted the connection; the errno on the same line says "
            "why. Check that the master is up and reachable on MASTER_PORT."
        ),
        origin=f"{_SOCKET} SocketConnectOp, 1.10-2.13",
        samples=("torch.distributed.DistNetworkError: The client socket has failed to connect to any network address of (node-a, 29500).",),
        priority=55,
    ),
    Signature(
        id="torch.store.address_in_use",
        patterns=(
            r"The server socket has failed to listen on .*(?:errno: 98 - Address already in use|EADDRINUSE)",
            r"(?:RuntimeError|DistNetworkError|DistStoreError|OSError)\b.*[Aa]ddress already in use",
            r"RuntimeError: on \S+, port: \d+ already in use",
            r"The server socket has failed to listen on any local network address.*(?:EADDRINUSE|address already in use)",
        ),
        extract=r"(?:on \[?(?P<host>[^\]\s]*)\]?:(?P<port>\d+))",
        cause="rendezvous_hang",
        role="fault",
        confidence="high",
        title="MASTER_PORT already in use on the store host",
        fix=(
            "Another process (a previous job, a second torchrun on the node) holds the rendezvous "
            "port. Free it or pick another port:\n"
            "$ ss -ltnp | grep ':29500'\n"
            "$ torchrun --master_port 29501 ...   # or --rdzv-endpoint host:free_port"
        ),
        origin=f"{_SOCKET} SocketListenOp, 1.8-2.13; libuv TCPStore 2.4-2.13",
        samples=(
            "RuntimeError: Address already in use",
            "torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. port: 29500, useIpv6: 0, code: -98, name: EADDRINUSE, message: address already in use",
        ),
        priority=82,
    ),
    Signature(
        id="torch.store.listen_failed",
        patterns=(r"The server socket has failed to listen on any local network address",),
        cause="rendezvous_hang",
        role="fault",
        confidence="medium",
        title="TCPStore server could not listen",
        fix=(
            "The store host could not open MASTER_PORT (usually already in use, sometimes a "
            "privileged port or an address not on this host):\n"
            "$ ss -ltnp | grep $MASTER_PORT"
        ),
        origin=f"{_SOCKET} SocketListenOp, 1.10-2.13",
        samples=("[E socket.cpp:472] [c10d] The server socket has failed to listen on any local network address.",),
        priority=60,
    ),
    Signature(
        id="torch.store.name_resolution",
        patterns=(
            r"The (?:IPv4 )?network addresses of \(\S+, \d+\) cannot be retrieved \(gai error: -?\d+ - ",
            r"(?:socket\.gaierror|RuntimeError|ValueError|DistNetworkError)\b.*(?:Name or service not known|Temporary failure in name resolution)",
        ),
        extract=r"addresses of \((?P<host>[^,]+), (?P<port>\d+)\)",
        cause="rendezvous_hang",
        role="fault",
        confidence="high",
        title="MASTER_ADDR / rendezvous host name does not resolve",
        fix=(
            "The rendezvous host name cannot be resolved on this node: a typo in MASTER_ADDR / "
            "--rdzv-endpoint, a short name not in DNS, or a container without the cluster's "
            "/etc/hosts. Use an IP or fix resolution:\n"
            "$ getent hosts $MASTER_ADDR"
        ),
        origin=f"{_SOCKET} (getaddrinfo), 1.10-2.13",
        samples=(
            "[W1202 14:00:00.000000000 socket.cpp:755] [c10d] The IPv4 network addresses of (master-0, 29500) cannot be retrieved (gai error: -3 - Temporary failure in name resolution).",
            "socket.gaierror: [Errno -2] Name or service not known",
        ),
        priority=80,
    ),
    Signature(
        id="torch.store.socket_warning",
        patterns=(
            r"W[^\]]*socket\.cpp:\d+\] \[c10d\] The client socket has failed to connect to \S+ \(errno: \d+ - ",
            r"W[^\]]*socket\.cpp:\d+\] \[c10d\] The server socket has failed to bind to \S+ \(errno: \d+ - ",
            r"\[c10d\] The IPv6 network addresses of \(\S+, \d+\) cannot be retrieved",
        ),
        extract=r"\(errno: (?P<errno>\d+) - (?P<error>[^)]+)\)",
        cause="rendezvous_hang",
        role="context",
        confidence="low",
        title="c10d socket warning for one address (retried with the next one)",
        fix=(
            "The store tries every address of MASTER_ADDR; a warning for one of them (often IPv6 or "
            "localhost, errno 97/99) is harmless when the job proceeds. Only a following "
            "DistNetworkError / timeout is a failure."
        ),
        origin=f"{_SOCKET} SocketConnectOp / SocketListenOp (C10D_WARNING), 1.10-2.13",
        samples=(
            "[W socket.cpp:663] [c10d] The client socket has failed to connect to [localhost]:29500 (errno: 99 - Cannot assign requested address).",
            "[W socket.cpp:436] [c10d] The server socket has failed to bind to [::]:29500 (errno: 98 - Address already in use).",
            "[W socket.cpp:663] [c10d] The IPv6 network addresses of (node-a, 29500) cannot be retrieved (gai error: -2 - Name or service not known).",
        ),
        priority=79,
    ),
    Signature(
        id="torch.store.ipv6_unsupported",
        patterns=(
            r"The (?:server|client) socket cannot be initialized (?:on|to connect to) \S+ \(errno: 97 - Address family not supported by protocol\)",
        ),
        cause=None,
        role="harmless",
        confidence="low",
        title="IPv6 not available for the c10d store socket (benign)",
        fix="Benign on hosts without IPv6; the store falls back to IPv4.",
        origin=f"{_SOCKET} (C10D_WARNING), 1.12-2.13",
        samples=("[W socket.cpp:464] [c10d] The server socket cannot be initialized on [::]:29500 (errno: 97 - Address family not supported by protocol).",),
        priority=10,
    ),
    Signature(
        id="torch.store.recv_zero_bytes",
        patterns=(r"Failed to recv, got 0 bytes\. Connection was likely closed",),
        cause="rank_crash",
        role="symptom",
        confidence="medium",
        title="TCPStore connection closed: the store host went away",
        fix=(
            "The TCPStore server (rank 0 or the torchrun agent holding it) shut down or crashed while "
            "this rank was talking to it. Find that process's own error or exit code."
        ),
        origin=f"{_TCPSTORE} / {_SOCKET} recvBytes, 2.2-2.13",
        samples=("torch.distributed.DistNetworkError: Failed to recv, got 0 bytes. Connection was likely closed. Did the remote server shutdown or crash?",),
        priority=65,
    ),
    Signature(
        id="torch.store.recv_failed",
        patterns=(
            r"recvValue(?:WithTimeout)? failed on \S+",
            r"(?:RuntimeError|DistNetworkError|DistStoreError): Connection reset by peer",
            r"(?:RuntimeError|DistNetworkError): Broken pipe",
        ),
        cause="rank_crash",
        role="symptom",
        confidence="low",
        title="TCPStore read failed (peer reset the connection)",
        fix=(
            "The store connection was reset: the store host or this rank's peer exited. Look for the "
            "process that died first; if none did, check the network path to MASTER_ADDR."
        ),
        origin=f"{_TCPSTORE} recvValue / recvValueWithTimeout, 1.8-2.13",
        samples=(
            "torch.distributed.DistNetworkError: recvValueWithTimeout failed on SocketImpl(fd=5, addr=[node-b]:40980, remote=[node-a]:29500): Connection reset by peer",
            "RuntimeError: Connection reset by peer",
        ),
        priority=45,
    ),
    Signature(
        id="torch.store.socket_timeout",
        patterns=(
            r"(?:RuntimeError|DistStoreError|DistNetworkError|got error): Socket Timeout",
            r"wait timeout after \d+ms, keys: ",
            r"Timeout waiting for key: ",
        ),
        cause="rendezvous_hang",
        role="symptom",
        confidence="medium",
        title="TCPStore wait/get timed out (a key another rank should set never appeared)",
        fix=(
            "A rank waited for a store key that another rank never wrote: that rank is missing, "
            "stuck or crashed, or ranks disagree on setup (world size, group creation order)."
        ),
        origin=f"{_TCPSTORE} (doWait / get), 1.8-2.13",
        samples=(
            "RuntimeError: Socket Timeout",
            "torch.distributed.DistStoreError: wait timeout after 300000ms, keys: /default_pg/0//cuda//0",
        ),
        priority=55,
    ),
    Signature(
        id="torch.exc.dist_store_error",
        patterns=(r"torch\.distributed\.DistStoreError\b",),
        cause="rendezvous_hang",
        role="symptom",
        confidence="low",
        title="DistStoreError (store / rendezvous failure)",
        fix="The c10d store timed out or failed; the message names which keys or how many clients joined.",
        origin="torch/csrc/distributed/c10d/exception.h (DistStoreError), 2.1-2.13",
        samples=("[rank0]: torch.distributed.DistStoreError: something else",),
        priority=25,
    ),
    Signature(
        id="torch.exc.dist_network_error",
        patterns=(r"torch\.distributed\.DistNetworkError\b",),
        cause="rendezvous_hang",
        role="symptom",
        confidence="low",
        title="DistNetworkError (store socket failure)",
        fix="A c10d socket to the store failed; the message has the errno. Check MASTER_ADDR/PORT reachability.",
        origin="torch/csrc/distributed/c10d/exception.h (DistNetworkError), 2.1-2.13",
        samples=("torch.distributed.DistNetworkError: some socket failure",),
        priority=25,
    ),
    # ------------------------------------------------------------------ gloo (bundled with torch)
    Signature(
        id="torch.gloo.connection_closed",
        patterns=(
            r"gloo/transport/tcp/pair\.cc:\d+\] (?:Connection closed by peer|Read error|Write error)",
        ),
        cause="rank_crash",
        role="symptom",
        confidence="medium",
        title="Gloo: connection to a peer closed",
        fix="A peer process exited (or its network dropped) during a gloo collective; find the rank that died first.",
        origin="third_party/gloo/gloo/transport/tcp/pair.cc (shipped in libtorch_cpu), 1.8-2.13",
        samples=(
            "RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:598] Connection closed by peer [10.0.0.2]:20573",
            "RuntimeError: [/opt/conda/conda-bld/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:575] Read error [10.0.0.3]:43117: Connection reset by peer",
        ),
        priority=55,
    ),
    Signature(
        id="torch.gloo.timeout",
        patterns=(r"gloo/transport/tcp/\w+\.cc:\d+\] Timed out waiting \d+ms for \w+ operation to complete",),
        cause="collective_timeout_straggler",
        role="symptom",
        confidence="medium",
        title="Gloo collective timed out",
        fix="Another rank did not join the gloo collective in time (straggler or dead). Compare ranks' progress.",
        origin="third_party/gloo/gloo/transport/tcp/unbound_buffer.cc, 1.8-2.13",
        samples=("RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:136] Timed out waiting 1800000ms for recv operation to complete",),
        priority=60,
    ),
    Signature(
        id="torch.gloo.connect_full_mesh",
        patterns=(r"Gloo connectFullMesh failed with ",),
        # connectFullMesh runs after the ranks exchanged their addresses through the store: the
        # rendezvous worked, the direct TCP pairs between the ranks did not.
        cause="network",
        role="fault",  # the printing rank's own connects failed (as nccl.socket.connect_unreachable)
        confidence="medium",
        title="Gloo could not open TCP connections between the ranks",
        fix=("Gloo's ranks found each other through the store, then could not connect their TCP pairs: each rank "
             "advertised an address of an interface the others cannot reach (a wrong GLOO_SOCKET_IFNAME, a "
             "container/bridge address, a firewall), or a peer died meanwhile. Set the interface explicitly:\n"
             "$ export GLOO_SOCKET_IFNAME=eth0\n$ ip -br addr"),
        origin=("torch/csrc/distributed/c10d/ProcessGroupGloo.cpp (2.0-2.13) after gloo::rendezvous::Context::"
                "connectFullMesh, which reads every peer's address from the store, then connects the pairs"),
        samples=("RuntimeError: Gloo connectFullMesh failed with [../third_party/gloo/gloo/transport/tcp/pair.cc:144] no error",),
        priority=62,
    ),
    # ------------------------------------------------------------------ c10d socket and store internals
    Signature(
        id="torch.store.master_daemon_failed",
        patterns=(r"TCPStoreMasterDaemon::run\(\) failed with (?:exception|unknown exception)",),
        cause="rendezvous_hang",
        role="fault",
        confidence="medium",
        title="The TCPStore server thread on the master died",
        fix=("The store's server loop on the rank-0 host failed, so every rank waiting on the store will time "
             "out. The text after it says why (file descriptors, memory, a socket error); check the master host:\n"
             "$ ulimit -n; ss -s"),
        origin=f"{_TCPSTORE} TCPStoreMasterDaemon::run 'TCPStoreMasterDaemon::run() failed with exception: ' (1.12-2.13)",
        samples=("[E1204 08:00:01.000000000 TCPStore.cpp:1051] [c10d] TCPStoreMasterDaemon::run() failed with exception: Too many open files",),
        priority=70,
    ),
    Signature(
        id="torch.store.wait_for_input_timeout",
        patterns=(r"waitForInput: socket .* timed out after \d+ms", r"waitForInput: poll for socket .* returned 0, likely a timeout",
                  r"waitForInput: poll for socket .* (?:returned operation_in_progress before a timeout|failed with res=)"),
        cause="rendezvous_hang",
        role="symptom",
        confidence="low",
        title="A store socket read timed out or failed (a key was never set, or the peer is gone)",
        fix="A rank waited for the store and got nothing in time: another rank never arrived or died. The store error that follows names the key; look for the rank that should have set it.",
        origin=f"{_SOCKET} waitForInput 'waitForInput: socket %s timed out after %dms', 'poll for socket {{}} failed with res=' (2.2-2.13)",
        samples=("[W1204 08:00:01.000000000 socket.cpp:460] [c10d] waitForInput: socket SocketImpl(fd=31, addr=[node-a]:41230, remote=[node-b]:29500) timed out after 300000ms",),
        priority=45,
    ),
    Signature(
        id="torch.socket.option_warning",
        patterns=(r"The (?:no-delay option|address reuse option) cannot be enabled for the (?:client|server) socket",
                  r"The (?:hostname|remote address|port number) of the (?:client )?socket cannot be retrieved",
                  r"The socket cannot be switched to (?:non-)?blocking mode"),
        cause=None,
        role="harmless",
        confidence="high",
        title="c10d could not set or read a socket option (a warning; the connection goes on)",
        fix="Benign on its own: c10d logs it and continues. Only if a store error follows does the socket's error matter.",
        origin=f"{_SOCKET} SocketImpl option setters/getters (warnings, 1.13-2.13)",
        samples=("[W1204 08:00:01.000000000 socket.cpp:200] [c10d] The no-delay option cannot be enabled for the client socket on [node-b]:29500.",),
        priority=40,
    ),
    Signature(
        id="torch.collective.size_mismatch",
        patterns=(r"Received data size doesn't match expected size\. Is there a distributed collective mismatch",),
        cause="collective_timeout_straggler",
        role="fault",
        confidence="medium",
        title="Ranks called different collectives (received data size differs from expected)",
        fix=("Two ranks disagree on the collective they are running (order, size or type): a code path taken on "
             "some ranks only, or different inputs. Run with TORCH_DISTRIBUTED_DEBUG=DETAIL to get the first mismatched call:\n"
             "$ TORCH_DISTRIBUTED_DEBUG=DETAIL <your launch command>"),
        origin="torch/csrc/distributed/c10d (Gloo/UCC receive path) 'Received data size doesn't match expected size. Is there a distributed collective mismatch in your code?'",
        samples=("RuntimeError: Received data size doesn't match expected size. Is there a distributed collective mismatch in your code?",),
        priority=75,
    ),
    Signature(
        id="torch.c10d.api_misuse",
        patterns=(r"invalid root rank: -?\d+", r"Invalid peer rank: -?\d+", r"invalid input tensor list size, must be world size",
                  r"Cannot use ReduceOp\.PREMUL_SUM with Gloo", r"Could not resolve the process group registered under the name",
                  r"Split ranks cannot be empty"),
        cause="rank_crash",
        role="fault",
        confidence="medium",
        title="A distributed call was made with invalid arguments (the program's own bug)",
        fix="The rank passed an argument c10d rejects (a rank outside the group, a list of the wrong length, an op the backend lacks). Fix the call on the rank whose traceback shows it.",
        origin="torch/csrc/distributed/c10d ProcessGroupGloo.cpp / ProcessGroupNCCL.cpp / Functional.cpp argument checks (TORCH_CHECK, 1.10-2.13)",
        samples=("RuntimeError: invalid root rank: 8", "RuntimeError: Could not resolve the process group registered under the name tp_group_3"),
        priority=55,
    ),
    Signature(
        id="torch.gloo.device_no_interface",
        patterns=(r"makeTCPDevice\(\): interface or hostname can't be empty",),
        cause="network",
        role="fault",
        confidence="high",
        title="Gloo got no interface or host name to bind to",
        fix="GLOO_SOCKET_IFNAME is set but empty (or the host name resolves to nothing). Set it to the data interface:\n$ export GLOO_SOCKET_IFNAME=eth0\n$ ip -br addr",
        origin="torch/csrc/distributed/c10d/GlooDeviceFactory.cpp makeTCPDevice 'GlooDeviceFactory::makeTCPDevice(): interface or hostname can't be empty' (1.10-2.13)",
        samples=("RuntimeError: GlooDeviceFactory::makeTCPDevice(): interface or hostname can't be empty",),
        priority=80,
    ),
    Signature(
        id="torch.gloo.loopback_fallback",
        patterns=(r"Using the loopback address as fallback\. ?(?:\S+ )?Manually set the network interface to bind to",
                  r"Unable to resolve hostname to a \(local\) address\. ?(?:\S+ )?Using the loopback address"),
        cause="network",
        role="fault",
        confidence="low",
        title="Gloo bound to the loopback address (the host name does not resolve to a local address)",
        fix=("The Gloo process group (also used by vLLM/SGLang and DeepSpeed for CPU groups) could not resolve this "
             "host's name to one of its addresses and listens on 127.0.0.1: fine on one node, but ranks on other "
             "nodes then cannot connect (connectFullMesh fails or hangs). Name the data interface, or fix /etc/hosts:\n"
             "$ export GLOO_SOCKET_IFNAME=eth0   # the interface the nodes reach each other on\n"
             "$ getent hosts $(hostname); ip -br addr"),
        origin=("torch/csrc/distributed/c10d/ProcessGroupGloo.cpp createDefaultDevice TORCH_WARN_ONCE 'Unable to "
                "resolve hostname to a (local) address. Using the loopback address as fallback. Manually set the "
                "network interface to bind to with GLOO_SOCKET_IFNAME.' (1.x-2.13; read from libtorch_cpu.so 2.13)"),
        samples=("[rank1]:[W1205 10:00:00.000000000 ProcessGroupGloo.cpp:515] Warning: Unable to resolve hostname to a "
                 "(local) address. Using the loopback address as fallback. Manually set the network interface to bind "
                 "to with GLOO_SOCKET_IFNAME. (function operator())",),
        priority=60,
        survivable=True,
    ),
    Signature(
        id="torch.store.server_socket_failed",
        patterns=(r"The server socket (?:on \S+ )?has failed to (?:bind|listen|accept a connection)",
                  r"The server socket cannot be initialized on \S+", r"Failed to listen on socket initialized from fd \d+"),
        cause="rendezvous_hang",
        role="fault",
        confidence="low",
        title="The store's server socket could not be set up on the master",
        fix=("The rank hosting the TCPStore could not bind/listen on MASTER_PORT (taken by another job or a "
             "leftover process, or MASTER_ADDR not an address of this host); the other ranks then cannot join. "
             "(One failed address family while another works is normal: c10d warns and goes on.)\n"
             "$ ss -ltnp | grep $MASTER_PORT\n$ ip -br addr | grep $MASTER_ADDR"),
        origin=f"{_SOCKET} SocketListenOp / SocketImpl 'The server socket has failed to bind to %s %s.', 'has failed to listen on', 'cannot be initialized on' (1.13-2.13)",
        samples=("[E1204 08:00:01.000000000 socket.cpp:540] [c10d] The server socket has failed to listen on any local network address. port: 29500, useIpv6: 0, code: -98, name: EADDRINUSE, message: address already in use",
                 "RuntimeError: The server socket cannot be initialized on [::]:29500 (errno: 97 - Address family not supported by protocol)."),
        priority=35,
    ),
    Signature(
        id="torch.store.client_connect_attempt",
        patterns=(r"The client socket (?:has failed to connect to|cannot be initialized to connect to) \S+",),
        cause=None,
        role="context",
        confidence="medium",
        title="A c10d client connect attempt failed (retried until the store timeout)",
        fix="c10d retries the connection until its timeout; a few at start-up while the master comes up are normal. If they never stop, the store is unreachable: check MASTER_ADDR/PORT from this node.",
        origin=f"{_SOCKET} SocketConnectOp 'The client socket has failed to connect to %s %s.' (1.13-2.13)",
        samples=("[I1204 08:00:01.000000000 socket.cpp:880] [c10d] The client socket has failed to connect to [node-a]:29500 (errno: 111 - Connection refused).",),
        priority=25,
    ),
    Signature(
        id="torch.store.barrier_failed",
        patterns=(r"barrier timeout after \d+ms, key: \S+", r"barrier failed -- missing ranks: "),
        extract=r"missing ranks: (?P<ranks>[\d, \[\]]+)",
        cause="rendezvous_hang",
        role="symptom",
        confidence="medium",
        title="A store-based barrier timed out (ranks missing)",
        fix="Not every rank reached the store barrier: {ranks} never arrived (not started, crashed, or stuck before it). Look at those ranks' logs.",
        origin=f"{_TCPSTORE} / torch/csrc/distributed/c10d/Store barrier 'barrier timeout after %dms, key: %s', 'barrier failed -- missing ranks: ' (2.3-2.13)",
        samples=("torch.distributed.DistStoreError: barrier failed -- missing ranks: [2, 5]", "RuntimeError: barrier timeout after 600000ms, key: init/barrier"),
        priority=65,
    ),
    Signature(
        id="torch.store.server_socket_error",
        patterns=(r"Failed to accept socket\.", r"async error on socket", r"Failed to open existing socket\."),
        cause="rendezvous_hang",
        role="symptom",
        confidence="low",
        title="The store's server socket failed while serving a client",
        fix="The TCPStore server hit a socket error (a client that vanished, a descriptor limit). The store error on the clients follows; check the master host's limits:\n$ ulimit -n",
        origin=f"{_TCPSTORE} / {_SOCKET} server-side socket errors (2.0-2.13)",
        samples=("[E1204 08:00:01.000000000 TCPStore.cpp:800] [c10d] Failed to accept socket.",),
        priority=40,
    ),
    Signature(
        id="torch.desync.wrapper_barrier_error",
        patterns=(r"ProcessGroupWrapper: Monitored Barrier encountered error running collective",),
        cause="collective_timeout_straggler",
        role="symptom",
        confidence="medium",
        title="TORCH_DISTRIBUTED_DEBUG's monitored barrier failed before a collective (a rank is missing)",
        fix="With TORCH_DISTRIBUTED_DEBUG=DETAIL the wrapper runs a monitored barrier before each collective; it failed, so a rank did not arrive. The error text names it.",
        origin="torch/csrc/distributed/c10d/ProcessGroupWrapper.cpp runCollectiveChecks (1.10-2.13)",
        samples=("RuntimeError: ProcessGroupWrapper: Monitored Barrier encountered error running collective: CollectiveFingerPrint(SequenceNumber=9, OpType=ALLREDUCE). Error: Rank 2 failed to pass monitoredBarrier in 30000 ms",),
        priority=50,
    ),
    # ------------------------------------------------------------------ torchelastic / torchrun
    Signature(
        id="torch.elastic.child_failed_sigkill",
        patterns=(r"failed \(exitcode: -9\) local_rank: \d+ \(pid: \d+\)",),
        extract=r"local_rank: (?P<local_rank>\d+) \(pid: (?P<pid>\d+)\)",
        cause="rank_crash",
        role="symptom",
        confidence="medium",
        title="torchrun: worker local_rank N was SIGKILLed (exit -9)",
        fix=(
            "Worker pid {pid} was killed with SIGKILL, most often by the host OOM killer (or the "
            "scheduler's memory limit). Check the node's kernel log:\n"
            "$ dmesg -T | grep -iE 'killed process|out of memory' | grep {pid}\n"
            "$ journalctl -k --since '1 hour ago' | grep -i oom"
        ),
        origin=f"{_ELASTIC_API} SubprocessContext._poll / MultiprocessContext, 1.9-2.13",
        samples=(
            "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9) local_rank: 3 (pid: 812917) of binary: /data/envs/bin/python",
        ),
        priority=55,
    ),
    Signature(
        id="torch.elastic.child_failed_sigbus",
        patterns=(r"failed \(exitcode: -7\) local_rank: \d+ \(pid: \d+\)",),
        extract=r"local_rank: (?P<local_rank>\d+) \(pid: (?P<pid>\d+)\)",
        cause="shm_exhausted",
        role="symptom",
        confidence="low",
        title="torchrun: worker local_rank N died of SIGBUS (exit -7)",
        fix=(
            "SIGBUS in a training process is most often a full or too small /dev/shm (NCCL or "
            "DataLoader shared memory) in a container:\n"
            "$ df -h /dev/shm\n"
            "$ docker run --shm-size=16g ...   # or --ipc=host"
        ),
        origin=f"{_ELASTIC_API}, 1.9-2.13",
        samples=("E1212 03:27:33.598000 4609 torch/distributed/elastic/multiprocessing/api.py:863] failed (exitcode: -7) local_rank: 2 (pid: 4677) of binary: /usr/bin/python",),
        priority=55,
    ),
    Signature(
        id="torch.elastic.child_failed_sigsegv",
        patterns=(r"failed \(exitcode: -11\) local_rank: \d+ \(pid: \d+\)",),
        extract=r"local_rank: (?P<local_rank>\d+) \(pid: (?P<pid>\d+)\)",
        cause="rank_crash",
        role="symptom",
        confidence="medium",
        title="torchrun: worker local_rank N segfaulted (exit -11)",
        fix=(
            "Worker pid {pid} crashed with SIGSEGV (native code: a CUDA/NCCL/extension bug or a "
            "library mismatch). Get a native stack on the next run:\n"
            "$ export TORCH_SHOW_CPP_STACKTRACES=1 PYTHONFAULTHANDLER=1"
        ),
        origin=f"{_ELASTIC_API}, 1.9-2.13",
        samples=("E1212 03:27:33.598000 4609 torch/distributed/elastic/multiprocessing/api.py:863] failed (exitcode: -11) local_rank: 2 (pid: 4677) of binary: /usr/bin/python",),
        priority=55,
    ),
    Signature(
        id="torch.elastic.child_failed_sigabrt",
        patterns=(r"failed \(exitcode: -6\) local_rank: \d+ \(pid: \d+\)",),
        extract=r"local_rank: (?P<local_rank>\d+) \(pid: (?P<pid>\d+)\)",
        cause="rank_crash",
        role="symptom",
        confidence="low",
        title="torchrun: worker local_rank N aborted (exit -6)",
        fix=(
            "SIGABRT: the NCCL watchdog/heartbeat tore the process down, or a C++ exception reached "
            "std::terminate. The worker's own log (before the abort) has the reason."
        ),
        origin=f"{_ELASTIC_API}, 1.9-2.13",
        samples=("E0813 08:21:22.980000 1245483 torch/distributed/elastic/multiprocessing/api.py:984] failed (exitcode: -6) local_rank: 6 (pid: 1246013) of binary: /usr/bin/python3",),
        priority=50,
    ),
    Signature(
        id="torch.elastic.child_failed",
        patterns=(r"failed \(exitcode: -?\d+\) local_rank: \d+ \(pid: \d+\) of (?:binary|fn)",),
        extract=r"exitcode: (?P<exitcode>-?\d+)\) local_rank: (?P<local_rank>\d+) \(pid: (?P<pid>\d+)\)",
        cause="rank_crash",
        role="symptom",
        confidence="low",
        title="torchrun: worker local_rank N exited with code N",
        fix=(
            "The agent names the first worker that failed (local_rank {local_rank}, pid {pid}); the "
            "reason is in that worker's own output (its traceback or error file), not in this line."
        ),
        origin=f"{_ELASTIC_API} (subprocess 'of binary', multiprocessing 'of fn'), 1.9-2.13",
        samples=(
            "E1212 03:27:33.598000 4609 torch/distributed/elastic/multiprocessing/api.py:863] failed (exitcode: 1) local_rank: 0 (pid: 4675) of binary: /usr/bin/python",
            "[rank0]:E0101 00:00:00.000000 111 torch/distributed/elastic/multiprocessing/api.py:700] failed (exitcode: 1) local_rank: 0 (pid: 222) of fn: main (start_method: spawn)",
        ),
        priority=45,
    ),
    Signature(
        id="torch.elastic.closing_signal",
        patterns=(
            r"Sending process \d+ closing signal SIG\w+",
            r"Closing process \d+ via signal SIG\w+",
        ),
        cause="rank_crash",
        role="symptom",
        confidence="low",
        title="torchrun terminates the surviving workers",
        fix=(
            "The agent is stopping the other workers because one failed (or the agent itself was "
            "signalled). These workers are NOT the cause; find the 'failed (exitcode: ...)' line."
        ),
        origin=f"{_ELASTIC_API} SubprocessContext._close / MultiprocessContext._close, 1.9-2.13",
        samples=(
            "W1212 03:27:32.718000 4609 torch/distributed/elastic/multiprocessing/api.py:891] Sending process 4675 closing signal SIGTERM",
            "WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 812914 closing signal SIGTERM",
        ),
        priority=25,
    ),
    Signature(
        id="torch.elastic.forced_kill",
        patterns=(r"Unable to shutdown process \d+ via \S+, forcefully exiting via \S+",),
        cause="collective_timeout_straggler",
        role="symptom",
        confidence="low",
        title="torchrun had to SIGKILL a worker that ignored SIGTERM",
        fix="The worker did not exit within 30 s of SIGTERM, typically because it was blocked inside a NCCL/CUDA call (a hang).",
        origin=f"{_ELASTIC_API} _close, 1.9-2.13",
        samples=("W1202 14:00:00.000000 10 torch/distributed/elastic/multiprocessing/api.py:900] Unable to shutdown process 4675 via Signals.SIGTERM, forcefully exiting via Signals.SIGKILL",),
        priority=30,
    ),
    Signature(
        id="torch.elastic.worker_dstate",
        patterns=(
            r"did not exit after SIGKILL within \d+s; abandoning and continuing teardown",
            r"Worker pid=\d+ stuck in uninterruptible sleep \(D-state\)",
        ),
        cause="hardware_fault",
        role="symptom",
        confidence="medium",
        title="Worker stuck in uninterruptible sleep (wedged on GPU/NIC)",
        fix=(
            "The process cannot be killed (D-state), usually a hung GPU or NIC driver call. Drain the "
            "host and check the drivers:\n"
            "$ dmesg -T | grep -iE 'xid|nvrm|mlx5|hung task'\n"
            "$ nvidia-smi -q | grep -iE 'retired|remapp|xid'"
        ),
        origin=f"{_ELASTIC_API} _close / agent/server/api.py D-state monitor, 2.10-2.13",
        samples=(
            "E1202 14:00:00.000000 10 torch/distributed/elastic/multiprocessing/api.py:910] Process 4675 did not exit after SIGKILL within 30s; abandoning and continuing teardown. Worker may be in uninterruptible kernel sleep (e.g. wedged on GPU/NIC); host may need to be recycled.",
        ),
        priority=60,
    ),
    Signature(
        id="torch.elastic.agent_death_signal",
        patterns=(
            r"Received (?:Signals\.)?\w+ death signal, shutting down workers",
            r"Process \d+ got signal: (?:Signals\.)?(?:SIG)?\w+",
        ),
        cause="other",
        role="symptom",
        confidence="low",
        title="torchrun agent received a termination signal (job cancelled or preempted)",
        fix=(
            "Something outside the job (scheduler time limit, preemption, scancel/kubectl delete, "
            "Ctrl-C) signalled the agent. Check the scheduler's record of the job."
        ),
        origin="torch/distributed/elastic/agent/server/api.py run(), multiprocessing/api.py _terminate_process_handler, 1.9-2.13",
        samples=(
            "W1202 14:00:00.000000 10 torch/distributed/elastic/agent/server/api.py:704] Received Signals.SIGTERM death signal, shutting down workers",
            "torch.distributed.elastic.multiprocessing.api.SignalException: Process 4609 got signal: 15",
        ),
        priority=40,
    ),
    Signature(
        id="torch.elastic.child_failed_error",
        patterns=(r"torch\.distributed\.elastic\.multiprocessing\.errors\.ChildFailedError",),
        cause="rank_crash",
        role="symptom",
        confidence="low",
        title="torchrun: ChildFailedError summary",
        fix="Read the 'Root Cause (first observed failure)' block: its rank, exitcode and traceback name the first worker that failed.",
        origin="torch/distributed/elastic/multiprocessing/errors/__init__.py, 1.9-2.13",
        samples=("torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",),
        priority=25,
    ),
    Signature(
        id="torch.elastic.root_cause_header",
        patterns=(r"Root Cause \(first observed failure\):",),
        cause=None,
        role="context",
        confidence="low",
        title="torchrun root-cause block",
        fix="The block below names the first failed worker: rank, host, exitcode, pid and traceback.",
        origin="torch/distributed/elastic/multiprocessing/errors/__init__.py _MSG_FORMAT_TEMPLATE, 1.9-2.13",
        samples=("Root Cause (first observed failure):",),
        priority=10,
    ),
    Signature(
        id="torch.elastic.signal_received_by_pid",
        patterns=(r"Signal \d+ \(SIG\w+\) received by PID \d+",),
        extract=r"Signal (?P<signal>\d+) \((?P<signame>SIG\w+)\) received by PID (?P<pid>\d+)",
        cause="rank_crash",
        role="symptom",
        confidence="low",
        title="torchrun: worker pid N killed by a signal",
        fix=(
            "The worker died of {signame}. SIGKILL (9): usually the OOM killer (dmesg); SIGBUS (7): "
            "/dev/shm; SIGSEGV (11): native crash; SIGABRT (6): NCCL watchdog teardown or C++ "
            "exception; SIGTERM (15): stopped after another worker failed.\n"
            "$ dmesg -T | grep -iE 'killed process {pid}|segfault'"
        ),
        origin="torch/distributed/elastic/multiprocessing/errors/__init__.py ProcessFailure, 1.9-2.13",
        samples=("  traceback : Signal 9 (SIGKILL) received by PID 102932",),
        priority=40,
    ),
    Signature(
        id="torch.elastic.no_error_file",
        patterns=(r"local_rank \d+ FAILED with no error file",),
        cause="rank_crash",
        role="symptom",
        confidence="low",
        title="torchrun: failed worker left no error file",
        fix="Decorate the entrypoint with torch.distributed.elastic.multiprocessing.errors.record to get its traceback in the summary; meanwhile read the worker's stderr.",
        origin="torch/distributed/elastic/multiprocessing/errors/__init__.py, 1.9-2.13",
        samples=("local_rank 3 FAILED with no error file. Decorate your entrypoint fn with @record for traceback info. See: https://pytorch.org/docs/stable/elastic/errors.html",),
        priority=25,
    ),
    Signature(
        id="torch.elastic.worker_group_restart",
        patterns=(r"Worker group (?:FAILED|UNHEALTHY)\. \d+/\d+ attempts left; will restart worker group",),
        cause="rank_crash",
        role="symptom",
        confidence="low",
        title="torchrun restarts the worker group after a failure",
        fix="A worker failed and the agent is restarting all workers (--max-restarts). The failing worker's own log has the cause.",
        origin="torch/distributed/elastic/agent/server/api.py _invoke_run, 1.9-2.13",
        samples=("I1202 14:00:00.000000 10 torch/distributed/elastic/agent/server/api.py:940] [default] Worker group FAILED. 3/3 attempts left; will restart worker group",),
        priority=30,
    ),
    Signature(
        id="torch.elastic.rdzv_timeout",
        patterns=(
            r"RendezvousTimeoutError\b",
            r"Rendezvous timeout occurred in EtcdRendezvousHandler",
        ),
        cause="rendezvous_hang",
        role="symptom",
        confidence="high",
        title="Elastic rendezvous timed out (not enough nodes joined)",
        fix=(
            "Fewer than --nnodes (min) agents joined before --rdzv-conf join_timeout (default 600 s). "
            "Check that every node started torchrun with the same --rdzv-id/--rdzv-endpoint/--nnodes "
            "and can reach the endpoint:\n"
            "$ nc -zv <rdzv_host> <rdzv_port>"
        ),
        origin="torch/distributed/elastic/rendezvous/dynamic_rendezvous.py, etcd_rendezvous.py, 1.9-2.13",
        samples=(
            "torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError",
            "INFO:torch.distributed.elastic.rendezvous.etcd_rendezvous:Rendezvous timeout occurred in EtcdRendezvousHandler",
        ),
        priority=75,
    ),
    Signature(
        id="torch.elastic.rdzv_closed",
        patterns=(r"RendezvousClosedError\b", r"The rendezvous '\S+' is closed, terminating pending rendezvous"),
        cause="rank_crash",
        role="symptom",
        confidence="low",
        title="Elastic rendezvous already closed",
        fix=(
            "Another agent closed the rendezvous (its job finished or failed and exhausted "
            "restarts). Look at the other nodes' agents for the first failure; a stale --rdzv-id "
            "reused from a finished job also gives this."
        ),
        origin="torch/distributed/elastic/rendezvous/dynamic_rendezvous.py, etcd_rendezvous.py, 1.9-2.13",
        samples=("torch.distributed.elastic.rendezvous.api.RendezvousClosedError",),
        priority=45,
    ),
    Signature(
        id="torch.elastic.rdzv_connection",
        patterns=(
            r"RendezvousConnectionError: The connection to the C10d store has failed",
            r"The connection to the C10d store has failed\. See inner exception",
            r"The connection to etcd has failed\. See inner exception",
        ),
        cause="rendezvous_hang",
        role="symptom",
        confidence="medium",
        title="Elastic agent could not connect to the c10d rendezvous store",
        fix=(
            "The agent could not reach --rdzv-endpoint (default port 29400). Give the port "
            "explicitly, make sure the endpoint host runs an agent, and that the address is on a "
            "routed interface:\n"
            "$ nc -zv <rdzv_host> 29400"
        ),
        origin="torch/distributed/elastic/rendezvous/c10d_rendezvous_backend.py, 1.9-2.13",
        samples=("torch.distributed.elastic.rendezvous.api.RendezvousConnectionError: The connection to the C10d store has failed. See inner exception for details.",
                 "torch.distributed.elastic.rendezvous.api.RendezvousConnectionError: The connection to etcd has failed. See inner exception for details."),
        priority=70,
    ),
    Signature(
        id="torch.elastic.rdzv_keepalive_failed",
        patterns=(r"has failed to send a keep-alive heartbeat to the rendezvous '\S+' due to an error of type \w+",),
        cause="rendezvous_hang",
        role="symptom",
        confidence="low",
        title="Elastic agent lost its rendezvous backend (keep-alive failed)",
        fix="The rendezvous store (hosted by one agent) stopped answering; that agent's node probably died or was stopped.",
        origin="torch/distributed/elastic/rendezvous/dynamic_rendezvous.py _keep_alive, 1.10-2.13",
        samples=("W1202 14:00:00.000000 10 torch/distributed/elastic/rendezvous/dynamic_rendezvous.py:1346] The node 'node-b_1234_0' has failed to send a keep-alive heartbeat to the rendezvous 'job1' due to an error of type RendezvousConnectionError.",),
        priority=40,
    ),
    Signature(
        id="torch.elastic.exit_barrier_error",
        patterns=(r"Error waiting on exit barrier\. Elapsed: [\d.]+ seconds",),
        cause="rank_crash",
        role="symptom",
        confidence="low",
        title="torchrun exit barrier failed (other agents did not finish)",
        fix="This node finished but other nodes' agents did not reach the exit barrier: they failed or hang. Look at them.",
        origin="torch/distributed/elastic/agent/server/api.py _exit_barrier, 1.9-2.13",
        samples=("E1202 14:00:00.000000 10 torch/distributed/elastic/agent/server/api.py:1008] Error waiting on exit barrier. Elapsed: 300.05 seconds",),
        priority=20,
    ),
    Signature(
        id="torch.mp.process_exited_signal",
        patterns=(r"ProcessExitedException: process \d+ terminated with signal SIG\w+", r"process \d+ terminated with signal SIG\w+"),
        extract=r"process (?P<local_rank>\d+) terminated with signal (?P<signame>SIG\w+)",
        cause="rank_crash",
        role="symptom",
        confidence="low",
        title="torch.multiprocessing.spawn: process N killed by a signal",
        fix="SIGKILL: usually host OOM (dmesg); SIGBUS: /dev/shm; SIGSEGV: native crash. The spawned process's own output has more.",
        origin="torch/multiprocessing/spawn.py ProcessContext.join, 1.5-2.13",
        samples=("torch.multiprocessing.spawn.ProcessExitedException: process 1 terminated with signal SIGKILL",),
        priority=40,
    ),
    Signature(
        id="torch.mp.process_raised",
        patterns=(r"-- Process \d+ terminated with the following error:", r"process \d+ terminated with exit code -?\d+"),
        cause="rank_crash",
        role="symptom",
        confidence="low",
        title="torch.multiprocessing.spawn: a spawned process failed",
        fix="The traceback printed after this line is that process's own error; classify it.",
        origin="torch/multiprocessing/spawn.py ProcessContext.join, 1.5-2.13",
        samples=("-- Process 0 terminated with the following error:", "torch.multiprocessing.spawn.ProcessExitedException: process 2 terminated with exit code 1"),
        priority=30,
    ),
    # ------------------------------------------------------------------ CUDA via c10 / torch.cuda
    Signature(
        id="torch.cuda.oom",
        patterns=(
            r"CUDA out of memory\. Tried to allocate",
            r"CUDA out of memory\. Allocation was preemptively rejected",
        ),
        extract=r"Tried to allocate (?P<requested>[\d.]+ ?(?:[KMGT]iB|bytes))(?:\.? ?\(?GPU (?P<device>\d+))?",
        cause="oom",
        role="fault",
        confidence="high",
        title="CUDA out of memory (PyTorch caching allocator)",
        fix=(
            "The GPU had no room for {requested}. Reduce the per-GPU batch / sequence length, "
            "enable activation checkpointing or sharding (FSDP/ZeRO), and check for other processes "
            "on the GPU. If 'reserved but unallocated' is large, reduce fragmentation:\n"
            "$ export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True\n"
            "$ nvidia-smi --query-compute-apps=pid,used_memory --format=csv"
        ),
        origin=f"{_ALLOC} DeviceCachingAllocator::malloc, 1.0-2.13 (format changed ~2.1)",
        samples=(
            "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 564.00 MiB. GPU 1 has a total capacty of 22.20 GiB of which 203.12 MiB is free. Process 9841 has 22.00 GiB memory in use.",
            "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 15.78 GiB total capacity; 14.50 GiB already allocated; 4.75 MiB free; 14.62 GiB reserved in total by PyTorch)",
            "[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 3 has a total capacity of 79.11 GiB of which 1.05 GiB is free.",
        ),
        priority=90,
    ),
    Signature(
        id="torch.cuda.oom_exception_type",
        patterns=(r"torch\.(?:cuda\.)?OutOfMemoryError\b",),
        cause="oom",
        role="fault",
        confidence="high",
        title="torch.OutOfMemoryError raised",
        fix=(
            "This rank ran out of GPU memory. Reduce batch size / sequence length, shard the model "
            "or optimizer state, or check for other processes on the GPU:\n"
            "$ nvidia-smi"
        ),
        origin="torch/csrc/Exceptions (torch.cuda.OutOfMemoryError 1.13-2.4, torch.OutOfMemoryError 2.5-2.13)",
        samples=("[rank1]: torch.OutOfMemoryError: ",),
        priority=85,
    ),
    Signature(
        id="torch.cuda.cublas_alloc_failed",
        patterns=(r"CUBLAS_STATUS_ALLOC_FAILED", r"CUDNN_STATUS_ALLOC_FAILED"),
        cause="oom",
        role="fault",
        confidence="high",
        title="cuBLAS/cuDNN could not allocate GPU memory",
        fix="The GPU was out of memory when cuBLAS/cuDNN created its workspace. Treat as CUDA OOM: leave headroom.\n$ nvidia-smi",
        origin="aten/src/ATen/cuda/CUDABlas.cpp TORCH_CUDABLAS_CHECK, aten/src/ATen/cudnn (cuDNN error: ...), 1.0-2.13",
        samples=(
            "RuntimeError: CUDA error: CUBLAS_STATUS_ALLOC_FAILED when calling `cublasCreate(handle)`",
            "RuntimeError: cuDNN error: CUDNN_STATUS_ALLOC_FAILED",
        ),
        priority=80,
    ),
    Signature(
        id="torch.cuda.cublas_not_initialized",
        patterns=(r"CUBLAS_STATUS_NOT_INITIALIZED when calling `cublasCreate",),
        cause="oom",
        role="fault",
        confidence="low",
        title="cuBLAS handle creation failed (usually no GPU memory left)",
        fix=(
            "cublasCreate fails this way mostly when the GPU is already full (or the process is on "
            "the wrong/absent device). Check memory and the device mapping:\n"
            "$ nvidia-smi; echo $CUDA_VISIBLE_DEVICES"
        ),
        origin="aten/src/ATen/cuda/CublasHandlePool.cpp, 1.5-2.13",
        samples=("RuntimeError: CUDA error: CUBLAS_STATUS_NOT_INITIALIZED when calling `cublasCreate(handle)`",),
        priority=65,
    ),
    Signature(
        id="torch.cuda.cublas_arch_mismatch",
        patterns=(r"CUBLAS_STATUS_ARCH_MISMATCH", r"CUDNN_STATUS_(?:ARCH_MISMATCH|VERSION_MISMATCH|NOT_SUPPORTED_ARCH_MISMATCH)"),
        cause="version_mismatch",
        role="fault",
        confidence="medium",
        title="cuBLAS/cuDNN built for a different GPU architecture or version",
        fix="The installed cuBLAS/cuDNN does not support this GPU or does not match the build. Install a PyTorch build for this GPU's compute capability.\n$ python -c 'import torch; print(torch.version.cuda, torch.backends.cudnn.version(), torch.cuda.get_device_capability())'",
        origin="aten/src/ATen/cuda/CUDABlas.cpp, aten/src/ATen/cudnn/Exceptions.h, 1.0-2.13",
        samples=("RuntimeError: cuDNN error: CUDNN_STATUS_ARCH_MISMATCH",),
        priority=70,
    ),
    Signature(
        id="torch.cuda.cublas_failure",
        patterns=(r"CUBLAS_STATUS_(?:EXECUTION_FAILED|INTERNAL_ERROR|INVALID_VALUE|MAPPING_ERROR|NOT_SUPPORTED)",),
        extract=r"(?P<status>CUBLAS_STATUS_\w+)",
        cause="rank_crash",
        role="fault",
        confidence="low",
        title="cuBLAS call failed",
        fix=(
            "A cuBLAS kernel failed on this rank. EXECUTION_FAILED often follows an earlier "
            "illegal memory access or a GPU fault; rerun with synchronous launches to locate it and "
            "check the kernel log for Xid errors:\n"
            "$ CUDA_LAUNCH_BLOCKING=1 python ...\n"
            "$ dmesg -T | grep -i xid"
        ),
        origin="aten/src/ATen/cuda/CUDABlas.cpp TORCH_CUDABLAS_CHECK, 1.5-2.13",
        samples=("RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasSgemm( handle, opa, opb, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc)`",),
        priority=50,
    ),
    Signature(
        id="torch.cuda.cudnn_failure",
        patterns=(r"cuDNN error: CUDNN_STATUS_(?:EXECUTION_FAILED|INTERNAL_ERROR|MAPPING_ERROR|NOT_INITIALIZED|BAD_PARAM|NOT_SUPPORTED)",),
        extract=r"(?P<status>CUDNN_STATUS_\w+)",
        cause="rank_crash",
        role="fault",
        confidence="low",
        title="cuDNN call failed",
        fix=(
            "A cuDNN call failed on this rank. NOT_INITIALIZED usually means no GPU memory left or a "
            "driver/cuDNN mismatch; EXECUTION_FAILED/MAPPING_ERROR often follow an earlier GPU fault.\n"
            "$ CUDA_LAUNCH_BLOCKING=1 python ...\n"
            "$ dmesg -T | grep -i xid"
        ),
        origin="aten/src/ATen/cudnn/Exceptions.h, 1.0-2.13",
        samples=("RuntimeError: cuDNN error: CUDNN_STATUS_INTERNAL_ERROR",),
        priority=50,
    ),
    Signature(
        id="torch.cuda.error_wrapper",
        patterns=(r"(?:RuntimeError|torch\.AcceleratorError|c10::Error|c10::AcceleratorError|what\(\)): +CUDA error: \S",),
        extract=r"CUDA error: (?P<error>[^\n]*)",
        cause="rank_crash",
        role="fault",
        confidence="low",
        title="CUDA error raised by PyTorch: ...",
        fix=(
            "A CUDA call failed on this rank; the text after 'CUDA error:' is the cudaGetErrorString. "
            "Kernel errors are reported asynchronously, so locate it with synchronous launches and "
            "check for Xid errors on the node:\n"
            "$ CUDA_LAUNCH_BLOCKING=1 python ...\n"
            "$ dmesg -T | grep -i xid"
        ),
        origin="c10/cuda/CUDAException.cpp c10_cuda_check_implementation, 1.8-2.13",
        samples=(
            "RuntimeError: CUDA error: unspecified launch failure",
            "[rank6]: torch.AcceleratorError: CUDA error: misaligned address",
            "  what():  CUDA error: an illegal memory access was encountered",
        ),
        priority=30,
    ),
    Signature(
        id="torch.cuda.async_report_hint",
        patterns=(
            r"CUDA kernel errors might be asynchronously reported at some other API call",
            r"Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions",
        ),
        cause=None,
        role="context",
        confidence="low",
        title="PyTorch CUDA error boilerplate",
        fix="Boilerplate after a CUDA error; the error itself is on the line before.",
        origin="c10/cuda/CUDAException.cpp, 1.8-2.13",
        samples=("CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",),
        priority=5,
    ),
    Signature(
        id="torch.cuda.kernel_assert",
        patterns=(r"\.cu:\d+: \S+: block: \[\d+,\d+,\d+\], thread: \[\d+,\d+,\d+\] Assertion `.*` failed",),
        cause="rank_crash",
        role="fault",
        confidence="high",
        title="Device-side assertion in a PyTorch CUDA kernel (index out of bounds etc.)",
        fix=(
            "An ATen CUDA kernel assertion failed (usually an index / label out of range). It is an "
            "input or code bug on this rank; reproduce on CPU or with CUDA_LAUNCH_BLOCKING=1 to get "
            "the Python line:\n"
            "$ CUDA_LAUNCH_BLOCKING=1 python ..."
        ),
        origin="aten/src/ATen/native/cuda/*.cu CUDA_KERNEL_ASSERT, 1.0-2.13",
        samples=('../aten/src/ATen/native/cuda/IndexKernel.cu:92: operator(): block: [0,0,0], thread: [0,0,0] Assertion `-sizes[i] <= index && index < sizes[i] && "index out of bounds"` failed.',),
        priority=75,
    ),
    Signature(
        id="torch.cuda.invalid_device_ordinal",
        patterns=(
            r"(?i)invalid device ordinal",
        ),
        cause="device_ordinal",
        role="fault",
        confidence="high",
        title="Invalid device ordinal: the rank asked for a GPU it cannot see",
        fix=(
            "LOCAL_RANK (or the requested cuda:N) is >= the number of GPUs visible to this process: "
            "too many processes per node, or CUDA_VISIBLE_DEVICES restricts the GPUs while the code "
            "still indexes by local rank:\n"
            "$ echo $CUDA_VISIBLE_DEVICES; nvidia-smi -L\n"
            "$ torchrun --nproc-per-node=$(nvidia-smi -L | wc -l) ..."
        ),
        origin="cudaErrorInvalidDevice (101, 10 in CUDA<=10) via c10 CUDA_CHECK / THCudaCheck (torch<=1.4)",
        samples=(
            "THCudaCheck FAIL file=torch/csrc/cuda/Module.cpp line=34 error=10 : invalid device ordinal",
            "[rank5]: RuntimeError: CUDA error: invalid device ordinal",
        ),
        priority=82,
    ),
    Signature(
        id="torch.cuda.unknown_error_visible_devices",
        patterns=(r"CUDA unknown error - this may be due to an incorrectly set up environment, e\.g\. changing env variable CUDA_VISIBLE_DEVICES",),
        cause="device_ordinal",
        role="fault",
        confidence="medium",
        title="CUDA init failed: environment / CUDA_VISIBLE_DEVICES problem",
        fix=(
            "CUDA initialisation returned an unknown error: CUDA_VISIBLE_DEVICES changed after CUDA "
            "started, or the driver/GPU is in a bad state:\n"
            "$ nvidia-smi; echo $CUDA_VISIBLE_DEVICES\n"
            "$ dmesg -T | grep -i xid"
        ),
        origin="c10/cuda/CUDAFunctions.cpp device_count_impl, 1.8-2.13",
        samples=("UserWarning: CUDA initialization: CUDA unknown error - this may be due to an incorrectly set up environment, e.g. changing env variable CUDA_VISIBLE_DEVICES after program start. Setting the available devices to be zero.",),
        priority=70,
    ),
    Signature(
        id="torch.cuda.init_driver_mismatch",
        patterns=(
            r"CUDA initialization: .*Error (?:803|804|35): ",
            r"CUDA initialization: The NVIDIA driver on your system is too old",
        ),
        cause="version_mismatch",
        role="fault",
        confidence="high",
        title="CUDA initialization: driver/runtime version mismatch",
        fix=(
            "The driver does not support this CUDA runtime (803: driver/library mismatch, 804: "
            "forward compatibility not supported, 35: driver too old). Install a matching driver or "
            "a PyTorch build for an older CUDA:\n"
            "$ nvidia-smi | head -4; python -c 'import torch; print(torch.version.cuda)'"
        ),
        origin="c10/cuda/CUDAFunctions.cpp (CUDA initialization: Unexpected error from cudaGetDeviceCount()), 1.10-2.13",
        samples=("UserWarning: CUDA initialization: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling NumCudaDevices() that might have already set an error? Error 804: forward compatibility was attempted on non supported HW",),
        priority=80,
    ),
    Signature(
        id="torch.cuda.init_system_not_ready",
        patterns=(r"CUDA initialization: .*Error 802: system not yet initialized",),
        cause="hardware_fault",  # as cuda.rt.system_not_ready reads error 802
        role="fault",
        confidence="medium",
        title="CUDA not ready: Fabric Manager not running (NVSwitch system)",
        fix=(
            "On NVSwitch systems (HGX/DGX) CUDA needs nvidia-fabricmanager running with the same "
            "version as the driver:\n"
            "$ systemctl status nvidia-fabricmanager\n"
            "$ nvidia-smi -q | grep -A2 -i fabric"
        ),
        origin="c10/cuda/CUDAFunctions.cpp + cudaErrorSystemNotReady (802), 1.10-2.13",
        samples=("UserWarning: CUDA initialization: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling NumCudaDevices() that might have already set an error? Error 802: system not yet initialized",),
        priority=80,
    ),
    Signature(
        id="torch.cuda.init_unexpected",
        patterns=(r"CUDA initialization: Unexpected error from cudaGetDeviceCount\(\)",),
        extract=r"Error (?P<code>\d+): (?P<error>.*)",
        cause="other",
        role="fault",
        confidence="low",
        title="CUDA initialization failed (cudaGetDeviceCount)",
        fix="CUDA could not enumerate the GPUs on this node; the error code says why. Check the driver and the GPUs:\n$ nvidia-smi\n$ dmesg -T | grep -iE 'nvrm|xid'",
        origin="c10/cuda/CUDAFunctions.cpp, 1.10-2.13",
        samples=("UserWarning: CUDA initialization: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling NumCudaDevices() that might have already set an error? Error 999: unknown error",),
        priority=45,
    ),
    Signature(
        id="torch.cuda.driver_too_old",
        patterns=(r"The NVIDIA driver on your system is too old \(found version \d+\)",),
        extract=r"found version (?P<driver_version>\d+)",
        cause="version_mismatch",
        role="fault",
        confidence="high",
        title="NVIDIA driver too old for this PyTorch build",
        fix=(
            "The driver (CUDA {driver_version}) is older than the CUDA runtime PyTorch was built with. "
            "Upgrade the driver or install a PyTorch build for an older CUDA:\n"
            "$ nvidia-smi | head -4\n"
            "$ python -c 'import torch; print(torch.version.cuda)'"
        ),
        origin="c10/cuda/CUDAFunctions.cpp / torch/cuda/__init__.py _check_driver, 1.0-2.13",
        samples=("AssertionError: The NVIDIA driver on your system is too old (found version 11040). Please update your GPU driver by downloading and installing a new version from the URL: http://www.nvidia.com/Download/index.aspx",),
        priority=85,
    ),
    Signature(
        id="torch.cuda.no_driver",
        patterns=(r"Found no NVIDIA driver on your system",),
        cause="other",
        role="fault",
        confidence="high",
        title="No NVIDIA driver found on this node / in this container",
        fix=(
            "The process cannot load the NVIDIA driver: not installed on the host, or the "
            "container was started without the GPU runtime:\n"
            "$ nvidia-smi\n"
            "$ docker run --gpus all ...   # or the k8s nvidia.com/gpu resource"
        ),
        origin="c10/cuda/CUDAFunctions.cpp / torch/cuda/__init__.py, 1.0-2.13",
        samples=("RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a driver from http://www.nvidia.com/Download/index.aspx",),
        priority=85,
    ),
    Signature(
        id="torch.cuda.driver_init_failed",
        patterns=(r"CUDA driver initialization failed, you might not have a CUDA gpu",),
        cause="other",
        role="fault",
        confidence="medium",
        title="CUDA driver initialization failed",
        fix="The driver is present but could not initialise (no GPU visible, GPU lost, or driver in a bad state):\n$ nvidia-smi\n$ dmesg -T | grep -iE 'nvrm|xid'",
        origin="c10/cuda/CUDAFunctions.cpp, 1.0-2.13",
        samples=("RuntimeError: CUDA driver initialization failed, you might not have a CUDA gpu.",),
        priority=75,
    ),
    Signature(
        id="torch.cuda.capability_unsupported",
        patterns=(r"with CUDA capability sm_\d+ is not compatible with the current PyTorch installation",),
        cause="version_mismatch",
        role="fault",
        confidence="high",
        title="GPU architecture not supported by this PyTorch build",
        fix="This PyTorch wheel has no kernels for the GPU's compute capability (expect 'no kernel image is available'). Install a build that lists this sm_ in torch.cuda.get_arch_list().",
        origin="torch/cuda/__init__.py _check_capability, 1.8-2.13",
        samples=("UserWarning: NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch installation.",),
        priority=80,
    ),
    Signature(
        id="torch.cuda.fork_reinit",
        patterns=(r"Cannot re-initialize CUDA in forked subprocess",),
        cause="other",
        role="fault",
        confidence="high",
        title="CUDA used in a forked subprocess",
        fix="CUDA was initialised before fork (e.g. in the DataLoader or a launcher). Use the 'spawn' start method: torch.multiprocessing.set_start_method('spawn').",
        origin="torch/cuda/__init__.py _lazy_init, 1.0-2.13",
        samples=("RuntimeError: Cannot re-initialize CUDA in forked subprocess. To use CUDA with multiprocessing, you must use the 'spawn' start method",),
        priority=80,
    ),
    # ------------------------------------------------------------------ DDP / c10d application errors
    Signature(
        id="torch.ddp.unused_parameters",
        patterns=(r"Expected to have finished reduction in the prior iteration before starting a new one",),
        cause="other",
        role="fault",
        confidence="high",
        title="DDP: parameters not used in the loss (find_unused_parameters)",
        fix="Some parameters got no gradient in an iteration. Pass find_unused_parameters=True to DistributedDataParallel, or make every parameter take part in the loss on every rank.",
        origin="torch/csrc/distributed/c10d/reducer.cpp Reducer::ensure_prior_reduction_finished, 1.2-2.13",
        samples=("[rank0]: RuntimeError: Expected to have finished reduction in the prior iteration before starting a new one. This error indicates that your module has parameters that were not used in producing loss.",),
        priority=80,
    ),
    Signature(
        id="torch.ddp.model_mismatch",
        patterns=(r"DDP expects same model across all ranks, but Rank \d+ has \d+ params",),
        cause="other",
        role="fault",
        confidence="high",
        title="DDP: ranks built different models",
        fix="Ranks disagree on the number or shapes of parameters; make model construction identical on every rank (same config, no rank-dependent layers).",
        origin="torch/csrc/distributed/c10d/reducer.cpp verify_params_across_processes, 1.9-2.13",
        samples=("RuntimeError: DDP expects same model across all ranks, but Rank 1 has 194 params, while rank 0 has inconsistent 0 params.",),
        priority=80,
    ),
    Signature(
        id="torch.c10d.no_default_group",
        patterns=(r"Default process group has not been initialized, please make sure to call init_process_group",),
        cause="other",
        role="fault",
        confidence="high",
        title="torch.distributed used before init_process_group",
        fix="Call torch.distributed.init_process_group() before any collective (check the launcher sets RANK/WORLD_SIZE).",
        origin="torch/distributed/distributed_c10d.py _get_default_group, 1.8-2.13",
        samples=("ValueError: Default process group has not been initialized, please make sure to call init_process_group.",),
        priority=75,
    ),
    Signature(
        id="torch.c10d.no_nccl_built",
        patterns=(r"Distributed package doesn't have (?:NCCL|MPI|Gloo|XCCL) built in",),
        cause="other",
        role="fault",
        confidence="high",
        title="This PyTorch build has no NCCL (CPU-only / Windows / macOS build)",
        fix="Install a CUDA build of PyTorch on Linux, or use backend='gloo'.\n$ python -c 'import torch; print(torch.__version__, torch.cuda.is_available(), torch.distributed.is_nccl_available())'",
        origin="torch/distributed/distributed_c10d.py _new_process_group_helper, 1.0-2.13",
        samples=("RuntimeError: Distributed package doesn't have NCCL built in",),
        priority=80,
    ),
    Signature(
        id="torch.c10d.env_var_missing",
        patterns=(r"Error initializing torch\.distributed using env:// rendezvous: environment variable \w+ expected, but not set",
                  r"LOCAL_RANK is not in the environment\. Consider passing fallback_rank"),
        extract=r"environment variable (?P<var>\w+) expected",
        cause="rendezvous_hang",
        role="fault",
        confidence="high",
        title="init_process_group(env://): a required variable is not set",
        fix=(
            "{var} is missing in this process's environment: the script was started without a "
            "launcher (torchrun/srun/mpirun) or the launcher wrapper does not export it:\n"
            "$ env | grep -E 'MASTER_ADDR|MASTER_PORT|RANK|WORLD_SIZE|LOCAL_RANK'\n"
            "$ torchrun --nnodes=N --nproc-per-node=G --rdzv-endpoint=host:29500 train.py"
        ),
        origin="torch/distributed/rendezvous.py _env_rendezvous_handler, 1.0-2.13",
        samples=("ValueError: Error initializing torch.distributed using env:// rendezvous: environment variable MASTER_ADDR expected, but not set",),
        priority=85,
    ),
    Signature(
        id="torch.c10d.no_backend_for_device",
        patterns=(r"No backend type associated with device type \w+",
                  r"Cannot access device backend for process group '\S*'\. Ensure the process group was initialized",
                  r"Default device not found, because no backend has been registered with this ProcessGroup"),
        cause="other",
        role="fault",
        confidence="high",
        title="Collective on a device type the process group has no backend for",
        fix="A collective got a CPU tensor on an NCCL-only group (or the reverse). Move the tensor to the GPU, or create the group with backend='cpu:gloo,cuda:nccl'.",
        origin="torch/csrc/distributed/c10d/ProcessGroup.hpp getBackend, 2.0-2.13",
        samples=("RuntimeError: No backend type associated with device type cpu",),
        priority=75,
    ),
    Signature(
        id="torch.c10d.tensors_on_different_devices",
        patterns=(r"Expected all tensors to be on the same device, but (?:found at least two devices|got )",),
        cause="device_ordinal",
        role="fault",
        confidence="low",
        title="Tensors on different devices in one operation",
        fix=(
            "An operation mixed tensors from two devices (e.g. cuda:0 and cuda:1). In a distributed "
            "job this usually means the rank did not set its device from LOCAL_RANK before building "
            "the model or moving the batch:\n"
            "torch.cuda.set_device(int(os.environ['LOCAL_RANK']))"
        ),
        origin="aten/src/ATen/TensorIterator / native checks, 1.8-2.13",
        samples=("[rank1]: RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:1 and cuda:0!",),
        priority=55,
    ),
    Signature(
        id="torch.nccl.error_numbered",
        patterns=(r"NCCL Error \d+: (?:unhandled cuda error|unhandled system error|internal error|invalid argument|invalid usage|remote process exited)",),
        extract=r"NCCL Error (?P<code>\d+): (?P<error>[^,]*)",
        cause="rank_crash",
        role="symptom",
        confidence="low",
        title="NCCL error from torch.cuda.nccl / DataParallel (old format)",
        fix="ncclResult_t {code} ({error}) from torch.cuda.nccl (nn.DataParallel, old c10d). Rerun with NCCL_DEBUG=INFO for the underlying WARN.\n$ export NCCL_DEBUG=INFO",
        origin="torch/csrc/cuda/nccl.cpp NCCL_CHECK (throwing 'NCCL Error N: ...'), 0.4-2.13",
        samples=("RuntimeError: NCCL Error 2: unhandled system error",),
        priority=30,
    ),
    Signature(
        id="torch.env.deprecated_variable",
        patterns=(r"Environment variable \w+ is deprecated; use \w+ instead",),
        cause=None,
        role="harmless",
        confidence="low",
        title="Deprecated environment variable name (benign)",
        fix="Benign: rename the variable (e.g. NCCL_ASYNC_ERROR_HANDLING -> TORCH_NCCL_ASYNC_ERROR_HANDLING).",
        origin="c10/util/env / ProcessGroupNCCL getCvar* (TORCH_WARN_ONCE), 2.2-2.13",
        samples=("[W Utils.hpp:133] Warning: Environment variable NCCL_ASYNC_ERROR_HANDLING is deprecated; use TORCH_NCCL_ASYNC_ERROR_HANDLING instead (function getCvarInt)",),
        priority=5,
    ),
    Signature(
        id="torch.elastic.omp_num_threads_notice",
        patterns=(r"Setting OMP_NUM_THREADS environment variable for each process to be \d+ in default",),
        cause=None,
        role="harmless",
        confidence="low",
        title="torchrun sets OMP_NUM_THREADS=1 (benign)",
        fix="Benign notice printed by every multi-process torchrun.",
        origin="torch/distributed/run.py config_from_args, 1.9-2.13",
        samples=("Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. ",),
        priority=5,
    ),
    Signature(
        id="torch.elastic.group_finished",
        patterns=(
            r"[Ww]orker group successfully finished\. Waiting [\d.]+ seconds for other agents to finish",
            r"Local worker group finished \(\S*SUCCEEDED\)",
        ),
        cause=None,
        role="context",
        confidence="low",
        title="torchrun: this node's workers finished successfully",
        fix="This node's workers all exited 0; a failure elsewhere is on another node.",
        origin="torch/distributed/elastic/agent/server/api.py _invoke_run / _exit_barrier, 1.9-2.13",
        samples=("I1202 15:00:00.000000 10 torch/distributed/elastic/agent/server/api.py:879] [default] worker group successfully finished. Waiting 300 seconds for other agents to finish.",),
        priority=30,  # a fact the rules use (the run got past its collectives), not a catch-all
    ),
    # ------------------------------------------------------------------ DataLoader / shared memory
    Signature(
        id="torch.dataloader.killed_by_bus_error",
        patterns=(
            r"DataLoader worker \(pid \d+\) is killed by signal: Bus error",
            r"dataloader's workers are out of shared memory",
        ),
        cause="shm_exhausted",
        role="fault",
        confidence="high",
        title="DataLoader worker died of SIGBUS: /dev/shm exhausted",
        fix=(
            "DataLoader workers pass batches through /dev/shm, which is full or too small (64 MB "
            "container default):\n"
            "$ df -h /dev/shm\n"
            "$ docker run --shm-size=16g ...   # or --ipc=host; or fewer num_workers"
        ),
        origin="torch/csrc/DataLoader.cpp (SIGBUS handler), torch/utils/data/_utils/signal_handling.py, 1.0-2.13",
        samples=("RuntimeError: DataLoader worker (pid 4242) is killed by signal: Bus error. It is possible that dataloader's workers are out of shared memory. Please try to raise your shared memory limit.",),
        priority=85,
    ),
    Signature(
        id="torch.dataloader.killed_by_sigkill",
        patterns=(r"DataLoader worker \(pid \d+\) is killed by signal: Killed",),
        cause="oom",
        role="fault",
        confidence="medium",
        title="DataLoader worker SIGKILLed (host OOM killer)",
        fix="A DataLoader worker was killed, usually by the host OOM killer. Lower num_workers / prefetch_factor or the per-worker memory:\n$ dmesg -T | grep -i 'killed process'",
        origin="torch/csrc/DataLoader.cpp, 1.0-2.13",
        samples=("RuntimeError: DataLoader worker (pid 5131) is killed by signal: Killed. ",),
        priority=75,
    ),
    Signature(
        id="torch.dataloader.worker_exited",
        patterns=(r"DataLoader worker \(pid\(s\) [\d, ]+\) exited unexpectedly",),
        cause="rank_crash",
        role="fault",
        confidence="medium",
        title="DataLoader worker exited unexpectedly",
        fix="A data-loading subprocess died (its error is printed above it; often /dev/shm or host memory). Retry with num_workers=0 to see the real exception.",
        origin="torch/utils/data/dataloader.py _try_get_data, 1.0-2.13",
        samples=("[rank0]: RuntimeError: DataLoader worker (pid(s) 8864) exited unexpectedly",),
        priority=60,
    ),
    Signature(
        id="torch.shm.no_space",
        patterns=(r"unable to write to file </torch_\S+>: No space left on device", r"unable to (?:open|mmap|write to) (?:shared memory object|file) </torch_\S+>.*No space left on device"),
        cause="shm_exhausted",
        role="fault",
        confidence="high",
        title="/dev/shm full: PyTorch shared-memory tensor could not be written",
        fix="Shared-memory tensors (DataLoader, multiprocessing) filled /dev/shm.\n$ df -h /dev/shm\n$ docker run --shm-size=16g ...   # or --ipc=host",
        origin="aten/src/ATen/MapAllocator.cpp / torch/lib/libshm, 1.0-2.13",
        samples=("RuntimeError: unable to write to file </torch_18692_1949474883_0>: No space left on device (28)",),
        priority=85,
    ),
    Signature(
        id="torch.shm.too_many_files",
        patterns=(r"unable to open shared memory object </torch_\S+> in read-(?:write|only) mode: Too many open files",),
        cause="other",
        role="fault",
        confidence="medium",
        title="Too many open files for shared-memory tensors",
        fix="Raise the open-file limit or switch the sharing strategy:\n$ ulimit -n 65536\ntorch.multiprocessing.set_sharing_strategy('file_system')",
        origin="aten/src/ATen/MapAllocator.cpp, 1.0-2.13",
        samples=("RuntimeError: unable to open shared memory object </torch_1_2_3> in read-write mode: Too many open files (24)",),
        priority=70,
    ),
    # ------------------------------------------------------------------ crashes and generic Python exceptions
    Signature(
        id="torch.crash.bus_error",
        patterns=(r"\bBus error \(core dumped\)", r"Fatal Python error: Bus error", r"\*\*\* SIGBUS \(@0x[0-9a-f]+\) received by PID \d+"),
        cause="shm_exhausted",
        role="fault",
        confidence="medium",
        title="Process died of SIGBUS (bus error)",
        fix=(
            "A SIGBUS in a GPU job is most often a full or too small /dev/shm touched by NCCL or the "
            "DataLoader:\n"
            "$ df -h /dev/shm\n"
            "$ docker run --shm-size=16g ...   # or --ipc=host"
        ),
        origin="shell / CPython faulthandler / glog failure signal handler",
        samples=("Bus error (core dumped)", "Fatal Python error: Bus error"),
        priority=55,
    ),
    Signature(
        id="torch.crash.segfault",
        patterns=(
            r"\bSegmentation fault \(core dumped\)",
            r"Fatal Python error: Segmentation fault",
            r"\*\*\* SIGSEGV \(@0x[0-9a-f]+\) received by PID \d+",
        ),
        cause="rank_crash",
        role="fault",
        confidence="medium",
        title="Process crashed with a segmentation fault",
        fix="Native crash in this rank (CUDA/NCCL/extension code or a library mismatch). Get the native stack:\n$ export PYTHONFAULTHANDLER=1 TORCH_SHOW_CPP_STACKTRACES=1\n$ coredumpctl gdb {pid}",
        origin="shell / CPython faulthandler / glog failure signal handler",
        samples=("Segmentation fault (core dumped)", "Fatal Python error: Segmentation fault"),
        priority=45,
    ),
    Signature(
        id="torch.crash.fatal_python_error",
        patterns=(r"Fatal Python error: \w+",),
        extract=r"Fatal Python error: (?P<error>.*)",
        cause="rank_crash",
        role="fault",
        confidence="low",
        title="Fatal Python error: ...",
        fix="The interpreter aborted in this rank; the faulthandler stack below names the thread and frame.",
        origin="CPython faulthandler / Py_FatalError",
        samples=("Fatal Python error: Aborted",),
        priority=30,
    ),
    Signature(
        id="torch.crash.terminate_called",
        patterns=(r"terminate called after throwing an instance of '[^']+'",),
        extract=r"instance of '(?P<exception>[^']+)'",
        cause="rank_crash",
        role="fault",
        confidence="low",
        title="C++ exception reached std::terminate",
        fix="The process aborted (exit -6) on an uncaught C++ exception; the 'what():' line below is the reason.",
        origin="libstdc++ verbose terminate handler",
        samples=("terminate called after throwing an instance of 'c10::Error'", "terminate called after throwing an instance of 'std::runtime_error'"),
        priority=25,
    ),
    Signature(
        id="torch.exc.host_memory_error",
        patterns=(
            r"(?:^|[\s:\]>|])MemoryError(?:: |$)",
            r"instance of 'std::bad_alloc'",
            r"\[Errno 12\] Cannot allocate memory",
        ),
        cause="oom",
        role="fault",
        confidence="medium",
        title="Host (CPU) memory allocation failed",
        fix=(
            "The process could not allocate host RAM (Python MemoryError, std::bad_alloc, ENOMEM). "
            "Reduce host-side memory (dataset in RAM, DataLoader workers, pinned buffers, CPU "
            "offload) or the number of processes per node:\n"
            "$ free -g; dmesg -T | grep -i 'out of memory'"
        ),
        origin="CPython MemoryError / libstdc++ std::bad_alloc / errno ENOMEM",
        samples=(
            "[rank0]: MemoryError",
            "terminate called after throwing an instance of 'std::bad_alloc'",
            "OSError: [Errno 12] Cannot allocate memory",
        ),
        priority=60,
    ),
    Signature(
        id="torch.exc.no_space_shm",
        patterns=(r"No space left on device.*/dev/shm", r"/dev/shm.*No space left on device"),
        cause="shm_exhausted",
        role="fault",
        confidence="high",
        title="/dev/shm full (No space left on device)",
        fix="/dev/shm filled up.\n$ df -h /dev/shm\n$ docker run --shm-size=16g ...   # or --ipc=host",
        origin="errno ENOSPC (28) on a /dev/shm path",
        samples=("OSError: [Errno 28] No space left on device: '/dev/shm/__KMP_REGISTERED_LIB_123'",),
        priority=80,
    ),
    Signature(
        id="torch.exc.no_space",
        patterns=(r"\[Errno 28\] No space left on device",),
        cause="other",
        role="fault",
        confidence="medium",
        title="Disk full (No space left on device)",
        fix="A file write failed because the file system is full (checkpoints, logs, caches such as ~/.cache or /tmp).\n$ df -h; du -sh ~/.cache /tmp 2>/dev/null",
        origin="errno ENOSPC (28) via Python OSError",
        samples=("OSError: [Errno 28] No space left on device",),
        priority=55,
    ),
    Signature(
        id="torch.exc.too_many_open_files",
        patterns=(r"\[Errno 24\] Too many open files",),
        cause="other",
        role="fault",
        confidence="medium",
        title="Too many open files",
        fix="The open-file limit is exhausted (DataLoader workers, shared-memory tensors, sockets).\n$ ulimit -n 65536",
        origin="errno EMFILE (24) via Python OSError",
        samples=("OSError: [Errno 24] Too many open files",),
        priority=55,
    ),
    Signature(
        id="torch.exc.keyboard_interrupt",
        patterns=(r"(?:^|[\s:\]>|])KeyboardInterrupt$",),
        cause="other",
        role="symptom",
        confidence="low",
        title="Process interrupted (SIGINT / Ctrl-C)",
        fix="The process was interrupted from outside (Ctrl-C, a launcher forwarding SIGINT, a cancel). Not a crash of its own.",
        origin="CPython KeyboardInterrupt",
        samples=("[rank0]: KeyboardInterrupt", "KeyboardInterrupt"),
        priority=20,
    ),
    Signature(
        id="torch.exc.system_exit",
        patterns=(r"(?:^|[\s:\]>|])SystemExit(?:: |$)",),
        extract=r"SystemExit: (?P<code>\S+)",
        cause="rank_crash",
        role="symptom",
        confidence="low",
        title="The program exited on purpose (SystemExit)",
        fix=(
            "sys.exit() ended this process: the program decided to stop, usually after it saw an error "
            "(its own message above, or a failure on another rank). Look for what it reacted to."
        ),
        origin="CPython SystemExit (sys.exit), raised by launchers and training scripts after a failure",
        samples=("[rank1]: SystemExit: 1", "SystemExit: 1"),
        priority=20,
    ),
    Signature(
        id="torch.exc.dist_error",
        patterns=(r"torch\.distributed\.DistError\b",),
        cause="rank_crash",
        role="symptom",
        confidence="low",
        title="DistError (a c10d call failed)",
        fix=(
            "A torch.distributed call failed; DistError is the base of c10d's errors and names no cause "
            "by itself. Find the rank that failed first and what it printed."
        ),
        origin="torch/csrc/distributed/c10d/exception.h (DistError, the base of DistBackendError/DistStoreError/"
               "DistNetworkError), 2.1-2.13",
        samples=("torch.distributed.DistError: Connection closed by peer",),
        priority=20,
    ),
    Signature(
        id="torch.exc.python_generic",
        patterns=(
            r"(?:^|[\s:\]>|])(?:KeyError|AssertionError|ValueError|IndexError|TypeError|AttributeError|ImportError|ModuleNotFoundError|FileNotFoundError|ZeroDivisionError|NotImplementedError|NameError|UnboundLocalError|RecursionError|PermissionError|IsADirectoryError|JSONDecodeError|UnicodeDecodeError|OverflowError|StopIteration)(?:: |$)",
        ),
        extract=r"(?P<exception>\w+Error|StopIteration)(?:: (?P<message>.*))?",
        cause="rank_crash",
        role="fault",
        confidence="low",
        title="Python exception on this rank",
        fix=(
            "An ordinary Python exception ended this rank: a code, data or configuration error, not "
            "the cluster. The traceback above it names the file and line; the other ranks' NCCL "
            "errors that follow are downstream."
        ),
        origin="CPython traceback (last line); any rank",
        samples=(
            "[rank3]: KeyError: 'input_ids'",
            "AssertionError",
            "0: ValueError: too many values to unpack (expected 2)",
            "ModuleNotFoundError: No module named 'flash_attn'",
            "[default1]:FileNotFoundError: [Errno 2] No such file or directory: '/data/train.json'",
        ),
        priority=15,
    ),
    Signature(
        id="torch.exc.runtime_error_generic",
        patterns=(r"(?:^|[\s:\]>|])RuntimeError: \S",),
        extract=r"RuntimeError: (?P<message>.*)",
        cause="rank_crash",
        role="fault",
        confidence="low",
        title="RuntimeError on this rank",
        fix="Unclassified RuntimeError; read its message and the traceback above it. If it wraps a NCCL or CUDA error, that is the meaning.",
        origin="CPython traceback (last line); any rank",
        samples=("[rank2]: RuntimeError: shape '[4, -1]' is invalid for input of size 10",),
        priority=10,
    ),
)

# Entries whose sample another entry reads (schema.py `alone_differs`): why the verdict on
# that sample is not this entry's cause.
SIGNATURES = alone_differs(SIGNATURES, {
    "torch.pgnccl.watchdog_thread_exception": (
        "Its sample carries NCCL's remote-error text in the rethrown what(); torch.nccl.error_remote reads that (a peer failed first), which is the more specific reading."
    ),
})
