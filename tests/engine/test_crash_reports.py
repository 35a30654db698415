"""Crash reports the programs around NCCL print inside a dying process (Open MPI's signal handler,
Abseil's and glog's, CPython's faulthandler, libstdc++'s terminate), NVRM lines without an Xid,
and what the catalog says about context: a fallback the run survived, a message another line
explains, a layout error that is no crash. The lines are written from the programs' format
strings (see triage/engine/signatures/data/crash.toml), not copied from any corpus log."""
from __future__ import annotations

from pathlib import Path

import pytest

from triage.engine import diagnose

OMPI_SEGV = """\
[trn-a07:31337] *** Process received signal ***
[trn-a07:31337] Signal: Segmentation fault (11)
[trn-a07:31337] Signal code: Address not mapped (1)
[trn-a07:31337] Failing at address: 0x10
[trn-a07:31337] [ 0] /lib64/libpthread.so.0(+0xf630)[0x2b1c9d4a4630]
[trn-a07:31337] [ 1] /opt/nccl/lib/libnccl.so.2(+0x4f2a1)[0x2b1ca84f22a1]
[trn-a07:31337] [ 2] /opt/nccl/lib/libnccl.so.2(ncclGroupEnd+0x91)[0x2b1ca8511c01]
[trn-a07:31337] *** End of error message ***
"""
MPIRUN_SIGNAL = (
    "--------------------------------------------------------------------------\n"
    "mpirun noticed that process rank 5 with PID 31337 on node trn-a07 exited on signal 11 (Segmentation fault).\n"
    "--------------------------------------------------------------------------\n"
)
ABSL_SEGV = """\
*** SIGSEGV received at time=1764840000 on cpu 33 ***
PC: @     0x7fd01c2b3a10  (unknown)  ncclProxyService()
    @     0x7fd0aa1f2520       3456  (unknown)
    @     0x7fd0aa244ac3  (unknown)  start_thread
"""
GLOG_CHECK = """\
F1204 09:12:44.551200 90211 nccl_collectives.cc:733] Check failed: ncclCommInitRank(&comm, n, id, rank) == ncclSuccess (2 vs. 0)
*** Check failure stack trace: ***
    @     0x7f00ab010101  absl::log_internal::LogMessage::Fail()
"""
FAULTHANDLER_FPE = """\
Fatal Python error: Floating point exception

Current thread 0x00007f11d2a6b740 (most recent call first):
  File "/opt/app/model.py", line 412 in forward
  File "/opt/app/train.py", line 77 in step

Extension modules: torch._C, numpy.core._multiarray_umath (total: 2)
"""


def _write(tmp_path: Path, files: dict[str, str]) -> Path:
    tmp_path.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    return tmp_path


def _top(tmp_path: Path, files: dict[str, str]) -> tuple[dict, dict]:  # type: ignore[type-arg]
    d = diagnose(_write(tmp_path, files)).to_dict()
    assert d["findings"], files
    return d["findings"][0], d


def test_open_mpis_signal_handler_names_the_crashed_process(tmp_path: Path) -> None:
    top, d = _top(tmp_path, {"job.out": OMPI_SEGV + MPIRUN_SIGNAL})
    assert (top["cause"], top["rule"], top["confidence"]) == ("rank_crash", "rank_crash.signal", "high")
    ff = d["first_failure"]
    # '[host:pid] ' is Open MPI's own prefix (HOSTFORMAT): who crashed comes from the content.
    assert (ff["host"], ff["pid"]) == ("trn-a07", 31337)
    # mpirun's own report names the MPI rank of that pid.
    assert ff["rank"] == 5
    assert "SIGSEGV" in top["title"]


def test_open_mpis_bus_error_is_shared_memory(tmp_path: Path) -> None:
    block = OMPI_SEGV.replace("Segmentation fault (11)", "Bus error (7)").replace(
        "Address not mapped (1)", "Non-existant physical address (2)")
    top, _ = _top(tmp_path, {"job.out": block})
    assert top["cause"] == "shm_exhausted"


def test_an_open_mpi_style_prefix_on_a_source_file_is_no_host(tmp_path: Path) -> None:
    # '[file.py:12] ' looks like '[host:pid] ' but names a source line.
    from triage.engine.demux import split_prefix

    origin, body = split_prefix("[trainer.py:12] loss 0.1")
    assert (origin.host, origin.pid, body) == (None, None, "[trainer.py:12] loss 0.1")
    origin, body = split_prefix("[gpu-3:00042] Signal: Aborted (6)")
    assert (origin.host, origin.pid, body) == ("gpu-3", 42, "Signal: Aborted (6)")


def test_abseils_failure_signal_handler_is_a_native_crash(tmp_path: Path) -> None:
    top, _ = _top(tmp_path, {"worker.log": ABSL_SEGV})
    assert (top["cause"], top["rule"]) == ("rank_crash", "rank_crash.signal")
    assert "SIGSEGV" in top["title"]


def test_abseils_sigbus_is_shared_memory(tmp_path: Path) -> None:
    top, _ = _top(tmp_path, {"worker.log": ABSL_SEGV.replace("SIGSEGV", "SIGBUS")})
    assert top["cause"] == "shm_exhausted"


def test_a_failed_check_is_the_processs_own_crash(tmp_path: Path) -> None:
    top, _ = _top(tmp_path, {"worker.log": GLOG_CHECK})
    assert (top["cause"], top["rule"]) == ("rank_crash", "signature.absl.check_failed")


def test_a_failed_check_that_names_a_cause_is_that_cause(tmp_path: Path) -> None:
    line = ("F1204 09:12:44.551200 90211 gpu_collectives.cc:91] Check failed: status.ok() "
            "NCCL WARN Cuda failure 'out of memory'\n")
    top, _ = _top(tmp_path, {"worker.log": line + "*** Check failure stack trace: ***\n"})
    assert top["cause"] == "oom"


def test_faulthandlers_fatal_signal_is_a_native_crash(tmp_path: Path) -> None:
    top, _ = _top(tmp_path, {"rank2.log": FAULTHANDLER_FPE})
    assert (top["cause"], top["rule"]) == ("rank_crash", "rank_crash.signal")
    assert "SIGFPE" in top["title"]


def test_an_interpreter_abort_with_a_message_is_a_low_crash(tmp_path: Path) -> None:
    text = "Fatal Python error: PyGILState_Release: thread state 0x7f0 must be current when releasing\n"
    top, _ = _top(tmp_path, {"rank2.log": text})
    assert (top["cause"], top["confidence"]) == ("rank_crash", "low")


def test_a_terminate_whose_what_names_a_cuda_fault_is_that_fault(tmp_path: Path) -> None:
    text = ("terminate called after throwing an instance of 'std::runtime_error'\n"
            "  what():  CUDA error: uncorrectable ECC error encountered\n"
            "Aborted (core dumped)\n")
    top, _ = _top(tmp_path, {"rank1.log": text})
    assert top["cause"] == "hardware_fault"


def test_nvrm_gsp_timeout_without_an_xid_is_a_hardware_fault(tmp_path: Path) -> None:
    dmesg = ("[77120.4] NVRM: GPU2 _kgspLogXid119: ********************************* GSP Timeout **********************************\n"
             "[77120.4] NVRM: GPU2 _kgspLogXid119: Note: Please also check logs above.\n")
    top, _ = _top(tmp_path, {"dmesg.txt": dmesg})
    assert (top["cause"], top["rule"]) == ("hardware_fault", "signature.kernel.nvrm.gsp_timeout")


def test_a_gpu_the_kernel_needs_to_reset_outranks_busy_or_unavailable(tmp_path: Path) -> None:
    app = "[rank4]: RuntimeError: CUDA error: CUDA-capable device(s) is/are busy or unavailable\n"
    kernel = "[90211.0] NVRM: GPU 0000:c3:00.0: GPU requires reset before it can be used again\n"
    d = diagnose(_write(tmp_path / "both", {"rank4.log": app, "dmesg.txt": kernel})).to_dict()
    assert d["findings"][0]["cause"] == "hardware_fault"
    busy = [f for f in d["findings"] if f["rule"] == "signature.cuda.rt.devices_unavailable"]
    assert busy and busy[0]["confidence"] == "low" and "Outranked" in busy[0]["detail"]
    # Without the kernel's line, busy/unavailable keeps its meaning.
    alone = diagnose(_write(tmp_path / "alone", {"rank4.log": app})).to_dict()["findings"]
    assert alone[0]["cause"] == "device_ordinal"


def test_a_fallen_off_gpu_outranks_no_device_detected(tmp_path: Path) -> None:
    app = "RuntimeError: CUDA error: no CUDA-capable device is detected\n"
    kernel = "[512.0] NVRM: GPU 0000:3b:00.0: GPU has fallen off the bus.\n"
    d = diagnose(_write(tmp_path, {"rank0.log": app, "dmesg.txt": kernel})).to_dict()
    assert d["findings"][0]["cause"] == "hardware_fault"


def test_a_fallback_the_run_survived_is_only_a_low_hint(tmp_path: Path) -> None:
    warn = ("WARNING 11-03 10:00:02 custom_all_reduce.py:144] Custom allreduce is disabled because your platform lacks "
            "GPU P2P capability or P2P test failed. To silence this warning, specify disable_custom_all_reduce=True explicitly.\n")
    d = diagnose(_write(tmp_path / "ok", {"worker.log": warn + "INFO 11-03 10:05:00 serving on :8000\n"})).to_dict()
    assert [(f["cause"], f["confidence"]) for f in d["findings"]] == [("p2p_unsupported", "low")]
    # A hint, not a failure: nothing is named as the first failure and no rank is called crashed.
    assert d["first_failure"] is None
    assert not [r for r in d["ranks"] if r["state"] == "crashed"]
    assert "went on" in d["summary"]


def test_the_same_fallback_before_the_run_failed_is_a_finding(tmp_path: Path) -> None:
    warn = ("WARNING 11-03 10:00:02 custom_all_reduce.py:144] Custom allreduce is disabled because your platform lacks "
            "GPU P2P capability or P2P test failed. To silence this warning, specify disable_custom_all_reduce=True explicitly.\n")
    hang = ("[rank1]:[E1103 10:10:02.123456789 ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught collective operation timeout: "
            "WorkNCCL(SeqNum=3, OpType=ALLREDUCE, NumelIn=8, NumelOut=8, Timeout(ms)=600000) ran for 600010 milliseconds before timing out.\n")
    d = diagnose(_write(tmp_path, {"worker.log": warn + hang})).to_dict()
    p2p = [f for f in d["findings"] if f["cause"] == "p2p_unsupported"]
    assert p2p and p2p[0]["confidence"] == "medium"


# SGLang's fallback warnings, written from custom_all_reduce_utils.py's format strings with SGLang's
# logger prefix ('[%(asctime)s TP<r>] %(message)s').
SGLANG_NO_P2P = ("[2026-12-04 10:00:02 TP1] CustomAllreduce is disabled because your platform lacks GPU P2P capability "
                 "or P2P test failed. To silence this warning, specify disable_custom_all_reduce=True explicitly.\n")
SGLANG_P2P_FALLBACKS = {  # entry -> its line
    "sglang.fallback.custom_ar_no_p2p": SGLANG_NO_P2P,
    "vllm.fallback.p2p_status_disagrees": "[2026-12-04 10:00:02 TP1] Two processes do not agree on the P2P access status on "
                                          "1 -> 0, treat as disabled.\n",
    "sglang.fallback.custom_ar_setup_failed": "[2026-12-04 10:00:02 TP1] Setup Custom allreduce failed with cudaIpcOpenMemHandle "
                                              "returned 201. To silence this warning, specify --disable-custom-all-reduce "
                                              "explicitly.\n",
}
SGLANG_SERVING = ("[2026-12-04 10:00:09 TP1] Load weight end. type=LlamaForCausalLM, dtype=torch.bfloat16, avail mem=61.20 GB\n"
                  "[2026-12-04 10:00:31] The server is fired up and ready to roll!\n")
RANK1_HANG = ("[rank1]:[E1204 10:12:02.123456789 ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught collective operation "
              "timeout: WorkNCCL(SeqNum=3, OpType=ALLREDUCE, NumelIn=8, NumelOut=8, Timeout(ms)=600000) ran for 600010 "
              "milliseconds before timing out.\n")


@pytest.mark.parametrize("entry", sorted(SGLANG_P2P_FALLBACKS))
def test_sglangs_p2p_fallback_in_a_healthy_run_is_no_more_than_a_low_hint(tmp_path: Path, entry: str) -> None:
    d = diagnose(_write(tmp_path, {"server.log": SGLANG_P2P_FALLBACKS[entry] + SGLANG_SERVING})).to_dict()
    assert [(f["cause"], f["rule"], f["confidence"]) for f in d["findings"]] == [
        ("p2p_unsupported", f"signature.{entry}", "low")]
    assert d["first_failure"] is None
    assert not [r for r in d["ranks"] if r["state"] == "crashed"]


@pytest.mark.parametrize("entry", sorted(SGLANG_P2P_FALLBACKS))
def test_sglangs_p2p_fallback_before_a_failure_leaves_the_failures_verdict(tmp_path: Path, entry: str) -> None:
    alone = diagnose(_write(tmp_path / "alone", {"server.log": RANK1_HANG})).to_dict()["findings"]
    d = diagnose(_write(tmp_path / "both", {"server.log": SGLANG_P2P_FALLBACKS[entry] + RANK1_HANG})).to_dict()["findings"]
    assert (d[0]["cause"], d[0]["rule"], d[0]["confidence"]) == (alone[0]["cause"], alone[0]["rule"], alone[0]["confidence"])
    assert d[0]["cause"] != "p2p_unsupported"
    # The warning stays in the report as context for the failure: the fallback it names, at low.
    p2p = [f for f in d if f["cause"] == "p2p_unsupported"]
    assert [(f["rule"], f["confidence"]) for f in p2p] == [(f"signature.{entry}", "low")]


def test_sglang_switching_a_fast_path_off_for_its_layout_is_no_finding(tmp_path: Path) -> None:
    lines = ("[2026-12-04 10:00:02 TP0] CustomAllreduce is disabled because this process group spans across nodes.\n"
             "[2026-12-04 10:00:02 TP0] PyMscclpp is disabled due to an unsupported world size: 3. Supported world "
             "sizes: [8, 16]. To silence this warning, specify disable_mscclpp=True explicitly.\n"
             "[2026-12-04 10:00:03 TP0] TorchSymmMemCommunicator: World size 3 not supported, communicator is not "
             "available.\n")
    d = diagnose(_write(tmp_path, {"server.log": lines + SGLANG_SERVING})).to_dict()
    assert d["findings"] == [] and d["first_failure"] is None


def test_a_world_size_that_does_not_fit_the_layout_is_a_config_error_not_a_crash(tmp_path: Path) -> None:
    text = ("[rank0]: Traceback (most recent call last):\n"
            "[rank0]:   File \"pretrain.py\", line 40, in <module>\n"
            "[rank0]: RuntimeError: world_size (6) is not divisible by tensor_model_parallel_size (4) x pipeline_model_parallel_size (1)\n")
    exit_line = ("[2026-11-03 10:00:06,000] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: 1) "
                 "local_rank: 0 (pid: 4242) of binary: /usr/bin/python\n")
    top, _ = _top(tmp_path, {"node-a.log": text + exit_line})
    assert (top["cause"], top["rule"]) == ("other", "signature.frameworks.parallel_layout_mismatch")


def test_a_single_line_with_nothing_failing_around_it_is_not_high(tmp_path: Path) -> None:
    line = "gpu-7:19:19 [0] enqueue.cc:54 NCCL WARN Cuda failure 'peer access is not supported between these two devices'\n"
    alone = diagnose(_write(tmp_path / "alone", {"n.log": line})).to_dict()["findings"]
    assert (alone[0]["cause"], alone[0]["confidence"]) == ("p2p_unsupported", "medium")
    failing = line + "gpu-7:19:19 [0] NCCL INFO init.cc:1502 -> 1\nRuntimeError: NCCL error in: ProcessGroupNCCL.cpp:1970, unhandled cuda error\n"
    then = diagnose(_write(tmp_path / "then", {"n.log": failing})).to_dict()["findings"]
    assert (then[0]["cause"], then[0]["confidence"]) == ("p2p_unsupported", "high")


def test_nccl_over_an_ipv6_link_local_address_is_a_network_fault(tmp_path: Path) -> None:
    text = ("node-7:88:88 [0] NCCL INFO Bootstrap : Using eno1:fe80::3efd:feff:fe12:ab00%eno1<0>\n"
            "node-7:88:88 [0] misc/socket.cc:484 NCCL WARN socketStartConnect: Connect to "
            "fe80::3efd:feff:fe12:ab01%eno1<52113> failed : Network is unreachable\n"
            "RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:1970, unhandled system error\n")
    top, _ = _top(tmp_path, {"job.log": text})
    assert (top["cause"], top["rule"]) == ("network", "signature.nccl.socket.link_local_connect_failed")
    assert "eno1" in top["fix"] and "NCCL_SOCKET_FAMILY" in top["fix"]


def test_open_mpis_handler_alone_names_host_and_pid_but_no_rank(tmp_path: Path) -> None:
    _, d = _top(tmp_path, {"job.out": OMPI_SEGV})
    ff = d["first_failure"]
    assert (ff["host"], ff["pid"], ff["rank"]) == ("trn-a07", 31337, None)
