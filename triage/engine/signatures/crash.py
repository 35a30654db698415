"""Signatures of the crash reporters that run inside a rank's process: Open MPI's signal handler,
Abseil's failure signal handler and CHECK/glog fatal messages, CPython's faulthandler, and the
parallel-layout checks of the training frameworks (see schema.py for the fields).

Format strings read from:
- Open MPI opal/util/stacktrace.c (main, 5.x; the same text since 1.x): `HOSTFORMAT` is
  `"[%s:%05d] "` (host, pid); the handler writes `HOSTFORMAT "*** Process received signal ***"`,
  `HOSTFORMAT "Signal: %s (%d)"`, `HOSTFORMAT "Signal code: %s (%d)"`, `HOSTFORMAT "Failing at
  address: %p"`, the frames of opal/mca/backtrace/execinfo (`"[%2d] "` then backtrace_symbols'
  `lib(sym+0xoff)[0xaddr]`), and `HOSTFORMAT "*** End of error message ***"`.
- Abseil absl/debugging/failure_signal_handler.cc WriteSignalMessage: `"*** %s received at
  time=%ld%s ***"` (`%s` is "SIGSEGV", "SIGABRT", ...; the suffix `" on cpu %d"`) or `"*** Signal
  %d received at time=%ld%s ***"`; absl/debugging/internal/examine_stack.cc `"PC: "` then
  `"    @ ..."` frames; absl/log/internal/log_message.cc `"Check failed: "` and `"*** Check
  failure stack trace: ***"` (glog prints the same two texts; its fatal lines start `F<mmdd>`).
- CPython Python/faulthandler.c and Python/pylifecycle.c (fatal_error): `"Fatal Python error: "`
  + the signal's name ("Segmentation fault", "Aborted", "Bus error", "Floating point exception",
  "Illegal instruction") or a function's message; `"Current thread 0x%lx (most recent call
  first):"`, `"Thread 0x%lx (most recent call first):"`, `"Extension modules: "`.
- Megatron-LM megatron/core/parallel_state.py / megatron/training/arguments.py, vLLM
  vllm/config (ParallelConfig / ModelConfig.verify_with_parallel_config) and PyTorch
  torch/distributed/device_mesh.py: the world size does not fit the parallel layout.
"""
from __future__ import annotations

from .schema import Signature

_NATIVE_CRASH_FIX = (
    "A native crash inside the rank's process ({host} pid {pid}); the frames below the header name "
    "the library it died in (libnccl, libcudart, a CUDA extension, libc). Get the core dump or run "
    "with the frames symbolised, and compare library versions on that host:\n"
    "$ coredumpctl list; coredumpctl gdb <pid>   # bt\n"
    "$ PYTHONFAULTHANDLER=1 <your launch command>"
)

_CHECK_FIX = (
    "A CHECK()/assertion inside a C++ library failed and aborted the process; the text after "
    "'Check failed:' is the condition and, for NCCL/CUDA wrappers, the error it saw. Read the line "
    "and the stack trace that follows; the library (file:line before ']') is where it failed."
)

_LAYOUT_FIX = (
    "The launch's world size does not fit the model's parallel layout (tensor x pipeline x "
    "context/expert x data parallel sizes must multiply to the number of processes, and tensor "
    "parallelism must divide the attention heads). It is a configuration error, not a crash: fix "
    "--nproc_per_node / --nnodes or the parallel sizes:\n"
    "$ echo $WORLD_SIZE; python -c 'import torch; print(torch.cuda.device_count())'"
)

SIGNATURES: tuple[Signature, ...] = (
    # ------------------------------------------------------------------ Open MPI signal handler
    Signature(
        id="ompi.stacktrace.received_signal",
        patterns=(r"\[[\w.-]+:\d+\] \*\*\* Process received signal \*\*\*",),
        extract=r"\[(?P<host>[\w.-]+):(?P<pid>\d+)\]",
        cause="rank_crash",
        role="fault",
        confidence="medium",
        title="Open MPI's signal handler: the process received a fatal signal",
        fix=_NATIVE_CRASH_FIX,
        origin="Open MPI opal/util/stacktrace.c show_stackframe: HOSTFORMAT \"*** Process received signal ***\" 1.x-5.x",
        samples=("[gpu-n07:04411] *** Process received signal ***",
                 "[1,2]<stderr>:[worker3.cluster:123456] *** Process received signal ***"),
        priority=55,
    ),
    Signature(
        id="ompi.stacktrace.signal",
        patterns=(r"\[[\w.-]+:\d+\] Signal: (?:Segmentation fault|Aborted|Floating point exception|Illegal instruction|Killed|Trace/breakpoint trap) \(\d+\)",),
        extract=r"\[(?P<host>[\w.-]+):(?P<pid>\d+)\] Signal: (?P<signal_name>[^(]+?) \((?P<signal>\d+)\)",
        cause="rank_crash",
        role="fault",
        confidence="medium",
        title="Open MPI's signal handler names the fatal signal",
        fix=_NATIVE_CRASH_FIX,
        origin="Open MPI opal/util/stacktrace.c: HOSTFORMAT \"Signal: %s (%d)\" (strsignal) 1.x-5.x",
        samples=("[gpu-n07:04411] Signal: Segmentation fault (11)", "[a100-2:77001] Signal: Aborted (6)",
                 "[node-3:00912] Signal: Floating point exception (8)"),
        priority=58,
    ),
    Signature(
        id="ompi.stacktrace.signal_bus",
        patterns=(r"\[[\w.-]+:\d+\] Signal: Bus error \(7\)",),
        extract=r"\[(?P<host>[\w.-]+):(?P<pid>\d+)\]",
        cause="shm_exhausted",
        role="fault",
        confidence="medium",
        title="Open MPI's signal handler: SIGBUS (in containers almost always a full /dev/shm)",
        fix=("The process touched a mapped page that could not be backed: inside a container this "
             "is almost always /dev/shm running out (NCCL's shared-memory transport, DataLoader "
             "workers).\n$ df -h /dev/shm\n$ docker run --shm-size=16g ...   # or --ipc=host"),
        origin="Open MPI opal/util/stacktrace.c: HOSTFORMAT \"Signal: %s (%d)\" with strsignal(SIGBUS) 1.x-5.x",
        samples=("[gpu-n07:04411] Signal: Bus error (7)",),
        priority=60,
    ),
    Signature(
        id="ompi.stacktrace.details",
        patterns=(r"\[[\w.-]+:\d+\] Signal code: .* \(-?\d+\)", r"\[[\w.-]+:\d+\] Failing at address: (?:0x)?[0-9a-fA-F]+",
                  r"\[[\w.-]+:\d+\] \*\*\* End of error message \*\*\*",
                  r"\[[\w.-]+:\d+\] (?:Associated errno: |Sending PID: \d+, Sending UID|Band event: |siginfo is NULL)",
                  r"\[[\w.-]+:\d+\] \[ ?\d+\] \S+\[0x[0-9a-fA-F]+\]"),
        cause=None,
        role="context",
        confidence="high",
        title="Open MPI's signal handler: signal code, faulting address, frames",
        fix="The frames name the library the process died in; read them top down (frame 0 is the signal trampoline).",
        origin=("Open MPI opal/util/stacktrace.c \"Signal code: %s (%d)\", \"Failing at address: %p\", "
                "\"*** End of error message ***\", \"Associated errno: %s (%d)\", \"Sending PID: %d, Sending UID: %d, Status: %d\", "
                "\"Band event: %ld\", \"siginfo is NULL, additional information unavailable\"; opal/mca/backtrace/execinfo \"[%2d] \" + backtrace_symbols"),
        samples=("[gpu-n07:04411] Signal code: Address not mapped (1)", "[gpu-n07:04411] Failing at address: 0x7f2a00000010",
                 "[gpu-n07:04411] *** End of error message ***", "[gpu-n07:04411] Sending PID: 4242, Sending UID: 0, Status: 0",
                 "[gpu-n07:04411] [ 3] /usr/lib/x86_64-linux-gnu/libnccl.so.2(+0x6b1c2)[0x7f2b4c86b1c2]"),
        priority=15,
    ),
    # ------------------------------------------------------------------ Abseil / glog
    Signature(
        id="absl.failure_signal",
        patterns=(r"\*\*\* (?:SIGSEGV|SIGABRT|SIGILL|SIGFPE|SIGTRAP|SIGTERM) received at time=\d+",
                  r"\*\*\* Signal \d+ received at time=\d+"),
        extract=r"\*\*\* (?:(?P<signal_name>SIG[A-Z]+)|Signal (?P<signal>\d+)) received at time=(?P<epoch>\d+)(?: on cpu (?P<cpu>\d+))?",
        cause="rank_crash",
        role="fault",
        confidence="medium",
        title="Abseil's failure signal handler: the process received a fatal signal",
        fix=_NATIVE_CRASH_FIX,
        origin="Abseil absl/debugging/failure_signal_handler.cc WriteSignalMessage \"*** %s received at time=%ld%s ***\" (JAX/XLA, TensorFlow, TensorRT-LLM)",
        samples=("*** SIGSEGV received at time=1733300000 on cpu 17 ***", "*** SIGABRT received at time=1733300042 ***",
                 "*** Signal 5 received at time=1733300042 on cpu 3 ***"),
        priority=55,
    ),
    Signature(
        id="absl.failure_signal_bus",
        patterns=(r"\*\*\* SIGBUS received at time=\d+",),
        cause="shm_exhausted",
        role="fault",
        confidence="medium",
        title="Abseil's failure signal handler: SIGBUS (in containers almost always a full /dev/shm)",
        fix="A mapped page could not be backed; in a container /dev/shm is full or too small.\n$ df -h /dev/shm\n$ docker run --shm-size=16g ...   # or --ipc=host",
        origin="Abseil absl/debugging/failure_signal_handler.cc \"*** %s received at time=%ld%s ***\" with SIGBUS",
        samples=("*** SIGBUS received at time=1733300000 on cpu 2 ***",),
        priority=60,
    ),
    Signature(
        id="absl.stack_frames",
        patterns=(r"PC: @ +0x[0-9a-fA-F]+",),
        cause=None,
        role="context",
        confidence="high",
        title="Abseil/glog stack frames",
        fix="The frames name where the process died; the first named symbol is the likely culprit.",
        origin="Abseil absl/debugging/internal/examine_stack.cc DumpPCAndFrameSize \"PC: \" and \"    @ \" frames",
        samples=("PC: @     0x7f3a1b2c3d4e  (unknown)  ncclProxyProgress()",),
        priority=15,
    ),
    Signature(
        id="absl.check_failed",
        patterns=(r"[FE]\d{4} \d\d:\d\d:\d\d\.\d+ +\d+ \S+:\d+\] (?:\S+ )?Check failed: ",
                  r"Check failed: .+ \(.+ vs\. .+\)"),
        extract=r"(?P<file>[\w./-]+:\d+)\] (?:\S+ )?Check failed: (?P<condition>.*)",
        cause="rank_crash",
        role="fault",
        confidence="medium",
        title="A C++ CHECK failed and aborted the process (glog / Abseil)",
        fix=_CHECK_FIX,
        origin="Abseil absl/log/internal/log_message.cc \"Check failed: \" (CHECK, CHECK_EQ ... \"(%s vs. %s)\"); glog logging.cc, the same text",
        samples=("F1204 10:22:31.004512  7788 collective_ops.cc:412] Check failed: status.ok() failed to enqueue the collective",
                 "E1204 10:22:31.004512  7788 gpu_runtime.cc:88] Check failed: stream->ok() (0 vs. 1)",
                 "Check failed: peer_count == expected (3 vs. 4)"),
        priority=40,
    ),
    Signature(
        id="absl.check_failure_trace",
        patterns=(r"\*\*\* Check failure stack trace: \*\*\*",),
        cause="rank_crash",
        role="fault",
        confidence="low",
        title="A C++ CHECK failed (its stack trace follows)",
        fix=_CHECK_FIX,
        origin="Abseil absl/log/internal/log_message.cc \"*** Check failure stack trace: ***\"; glog the same",
        samples=("*** Check failure stack trace: ***",),
        priority=30,
    ),
    # ------------------------------------------------------------------ CPython faulthandler
    Signature(
        id="cpython.faulthandler.fatal_signal",
        patterns=(r"Fatal Python error: (?:Floating point exception|Illegal instruction)",),
        extract=r"Fatal Python error: (?P<signal_name>.+)",
        cause="rank_crash",
        role="fault",
        confidence="medium",
        title="CPython's faulthandler: the process died of a fatal signal",
        fix=_NATIVE_CRASH_FIX,
        origin="CPython Python/faulthandler.c faulthandler_fatal_error: \"Fatal Python error: \" + the signal's name (SIGFPE, SIGILL)",
        samples=("Fatal Python error: Floating point exception", "Fatal Python error: Illegal instruction"),
        priority=65,
    ),
    Signature(
        id="cpython.fatal_error",
        patterns=(r"Fatal Python error: \S",),
        extract=r"Fatal Python error: (?P<what>.+)",
        cause="rank_crash",
        role="fault",
        confidence="low",
        title="The Python interpreter aborted (Fatal Python error)",
        fix=("CPython aborted: {what}. A C extension corrupted the interpreter's state, or a native "
             "thread called into Python after shutdown. The 'Current thread' frames below say where.\n"
             "$ PYTHONFAULTHANDLER=1 <your launch command>"),
        origin="CPython Python/pylifecycle.c fatal_error \"Fatal Python error: %s: %s\" (Py_FatalError)",
        samples=("Fatal Python error: PyThreadState_Get: the function must be called with the GIL held",
                 "Fatal Python error: _enter_buffered_busy: could not acquire lock for <_io.BufferedWriter name='<stderr>'> at interpreter shutdown"),
        priority=30,
    ),
    Signature(
        id="cpython.faulthandler.thread",
        patterns=(r"(?:Current thread|Thread) 0x[0-9a-fA-F]+ \(most recent call first\):", r"^Extension modules: "),
        cause=None,
        role="context",
        confidence="high",
        title="CPython faulthandler's per-thread stacks",
        fix="The 'Current thread' block is where the process died; its top frame is the Python call that was running.",
        origin="CPython Python/traceback.c _Py_DumpTracebackThreads \"Current thread 0x%lx (most recent call first):\", \"Thread 0x%lx ...\"; faulthandler.c \"Extension modules: \"",
        samples=("Current thread 0x00007f2d1e7fc740 (most recent call first):", "Thread 0x00007f2c8effd640 (most recent call first):",
                 "Extension modules: numpy.core._multiarray_umath, torch._C (total: 2)"),
        priority=15,
    ),
    # ------------------------------------------------------------------ parallel layout
    Signature(
        id="frameworks.parallel_layout_mismatch",
        patterns=(
            r"(?i)world[ _]size \(?\d+\)? is not divisible by",
            r"(?i)world[ _]size \(\d+\) (?:must be|should be) divisible by",
            r"Total number of attention heads \(\d+\) must be divisible by tensor parallel size \(\d+\)",
            r"Mesh should not be bigger than default world size \d+",
            r"Invalid parallel dims: .*!= WORLD_SIZE\(\d+\)",
        ),
        cause="other",
        role="fault",
        confidence="high",
        title="The world size does not fit the parallel layout (configuration error)",
        fix=_LAYOUT_FIX,
        origin=("Megatron-LM megatron/core/parallel_state.py initialize_model_parallel 'world_size (%d) is not "
                "divisible by ...' and megatron/training/arguments.py; vLLM config 'Total number of attention heads "
                "(%d) must be divisible by tensor parallel size (%d).'; torch/distributed/device_mesh.py 'Mesh should "
                "not be bigger than default world size %d'; torchtitan ParallelDims 'Invalid parallel dims'"),
        samples=(
            "AssertionError: world size (6) is not divisible by tensor model parallel size (4) times pipeline model parallel size (1)",
            "[rank2]: RuntimeError: world_size (12) is not divisible by tensor_model_parallel_size (8) x pipeline_model_parallel_size (1)",
            "ValueError: Total number of attention heads (40) must be divisible by tensor parallel size (3).",
            "RuntimeError: Mesh should not be bigger than default world size 4, but found 8 ranks!",
            "AssertionError: Invalid parallel dims: dp_replicate(1) * dp_shard(2) * cp(1) * tp(4) * pp(1) != WORLD_SIZE(4)",
        ),
        priority=80,
    ),
)
