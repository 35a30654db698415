"""Signatures of messages printed by the NCCL test programs (NVIDIA/nccl-tests: all_reduce_perf,
all_gather_perf, ...), drawn from `src/common.h`, `src/common.cu` and `src/util.cu` at tags
v1.0.0, v2.0.0, v2.9.0, v2.10.0, v2.13.0, v2.17.0 and v2.19.6 (newest). See schema.py for the
fields. These entries join the "nccl" group of the catalog (signatures/__init__.py).

Formats (printf, no NCCL prefix; an MPI launcher may add `[1,0]<stdout>:`):
- `<host>: Test CUDA failure <file>:<line> '<cudaGetErrorString>'` (CUDACHECK, v2.0+)
- `<host>: Test NCCL failure <file>:<line> '<ncclGetErrorString>[ / <ncclGetLastError>]'` (v2.13+
  adds the last NCCL WARN text after ` / `)
- ` .. <host> pid <pid>: Test failure <file>:<line>` (TESTCHECK trail; v2.0-2.9 without `pid`)
- `<host>: Test timeout (<s>s) <file>:<line>` (-T, v2.13.4+)
- `rank=<r> #wrong=<n>` / `Error at i/count : a != b` (data check), `# Out of bounds values : N
  OK|FAILED`, `# Avg bus bandwidth    : X [OK|FAILED]`, `# error: <last NCCL error>` (v2.17.3+)
- v1.0.0: `Cuda failure <file>:<line> '%s'` / `NCCL failure <file>:<line> '%s'` (matched by the
  nccl.cuda.* and nccl.result.* entries).
"""
from __future__ import annotations

from .schema import Signature, alone_differs

_ORIGIN_CUDA = "nccl-tests src/common.h CUDACHECK `%s: Test CUDA failure %s:%d '%s'` v2.0-v2.19"
_ORIGIN_NCCL = ("nccl-tests src/common.h NCCLCHECK `%s: Test NCCL failure %s:%d '%s'` v2.0.0-v2.19.6 (NCCL < 2.13), "
                "`... '%s / %s'` (ncclGetErrorString / ncclGetLastError) v2.13.0-v2.19.6 with NCCL >= 2.13")
_VERSION_CMDS = (
    "$ nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv\n"
    "$ ldd ./build/all_reduce_perf | grep -E 'nccl|cudart'"
)


def _cuda(name: str, text: str, cause: str, confidence: str, title: str, fix: str, error: str,
          sample: str, priority: int = 75, role: str = "fault") -> Signature:
    """A `Test CUDA failure <file>:<line> '<cudaGetErrorString text>'` family."""
    return Signature(
        id=f"nccltests.cuda.{name}",
        patterns=(r"Test CUDA failure \S+:\d+ '" + text,),
        extract=r"(?P<host>\S+): Test CUDA failure (?P<file>\S+):(?P<line>\d+) '(?P<error>[^']*)'",
        cause=cause,
        role=role,
        confidence=confidence,
        title=title,
        fix=fix,
        origin=f"{_ORIGIN_CUDA}; {error}",
        samples=(
            f"gpu-node-02: Test CUDA failure common.cu:253 '{sample}'",
            f"[1,3]<stdout>:gpu-node-07: Test CUDA failure common.cu:894 '{sample}'",
            f"           8             2   float     sumgpu-a: Test CUDA failure common.cu:253 '{sample}'",
        ),
        priority=priority,
    )


SIGNATURES: tuple[Signature, ...] = (
    # ---------------------------------------------------------------- Test CUDA failure
    _cuda("out_of_memory", "out of memory'", "oom", "high", "nccl-tests: CUDA out of memory",
          "The test could not allocate its buffers: -e/maxbytes too large for this GPU, or another "
          "process holds GPU memory.\n$ nvidia-smi --query-compute-apps=pid,used_memory --format=csv\n"
          "Lower -e (maxBytes) or free the GPU.",
          "cudaErrorMemoryAllocation (2)", "out of memory", priority=85),
    _cuda("invalid_device_ordinal", "invalid device ordinal'", "device_ordinal", "high",
          "nccl-tests: invalid device ordinal (more GPUs requested than visible)",
          "The test asked for a GPU index that is not visible: -g times ranks-per-node exceeds the GPUs "
          "in CUDA_VISIBLE_DEVICES.\n$ echo $CUDA_VISIBLE_DEVICES; nvidia-smi -L\n"
          "Use -g 1 with one MPI rank per GPU, or fewer ranks per node.",
          "cudaErrorInvalidDevice (101)", "invalid device ordinal", priority=85),
    _cuda("no_kernel_image", "no kernel image is available for execution on the device'", "version_mismatch", "high",
          "nccl-tests built without code for this GPU architecture",
          "The test binary has no kernels for this GPU's compute capability. Rebuild for it:\n"
          "$ make NVCC_GENCODE=\"-gencode=arch=compute_XY,code=sm_XY\"\n" + _VERSION_CMDS,
          "cudaErrorNoKernelImageForDevice (209)", "no kernel image is available for execution on the device", priority=85),
    _cuda("peer_access", "peer access is not supported between these two devices'", "p2p_unsupported", "high",
          "nccl-tests: GPU peer access not supported",
          "CUDA refuses P2P between these GPUs (IOMMU/ACS, VM, PCIe topology).\n$ nvidia-smi topo -p2p r\n"
          "$ NCCL_P2P_DISABLE=1 ./build/all_reduce_perf ...",
          "cudaErrorPeerAccessUnsupported (217)", "peer access is not supported between these two devices", priority=85),
    _cuda("driver_mismatch", "(?:CUDA driver version is insufficient for CUDA runtime version|system has unsupported display driver / cuda driver combination|forward compatibility was attempted on non supported HW)'",
          "version_mismatch", "high", "nccl-tests: CUDA driver too old / mismatched for the runtime",
          "The driver does not support the CUDA runtime the test was built with. Upgrade the driver or "
          "rebuild against an older CUDA.\n" + _VERSION_CMDS,
          "cudaErrorInsufficientDriver (35) / cudaErrorSystemDriverMismatch (803) / cudaErrorCompatNotSupportedOnDevice (804)",
          "CUDA driver version is insufficient for CUDA runtime version", priority=85),
    _cuda("hardware", "(?:uncorrectable ECC error encountered|uncorrectable NVLink error detected during the execution)'",
          "hardware_fault", "high", "nccl-tests: uncorrectable ECC/NVLink error",
          "The GPU reported an uncorrectable ECC or NVLink error; drain the node and check it:\n"
          "$ nvidia-smi -q -d ECC,ROW_REMAPPER; nvidia-smi nvlink -e\n$ dmesg -T | grep -i xid",
          "cudaErrorECCUncorrectable (214) / cudaErrorNvlinkUncorrectable (220)", "uncorrectable ECC error encountered", priority=90),
    _cuda("kernel_fault", "(?:an illegal memory access was encountered|unspecified launch failure|an illegal instruction was encountered|misaligned address)'",
          "hardware_fault", "low", "nccl-tests: kernel fault during the test",
          "A kernel crashed during a plain NCCL test, where application bugs are unlikely: check dmesg "
          "for an Xid (48/62/74/79/94/95 = hardware; 13/31/43 = software) and the NCCL version.\n"
          "$ dmesg -T | grep -i xid",
          "cudaErrorIllegalAddress (700) / cudaErrorLaunchFailure (719)", "an illegal memory access was encountered", priority=80),
    _cuda("no_device", "(?:no CUDA-capable device is detected|(?:all )?CUDA-capable device\\(s\\) (?:is/are|are) busy or unavailable)'",
          "device_ordinal", "medium", "nccl-tests: no usable GPU (none visible, or busy in exclusive mode)",
          "The test sees no GPU, or the GPU is held by another process in EXCLUSIVE_PROCESS mode "
          "(e.g. two ranks per GPU).\n$ echo $CUDA_VISIBLE_DEVICES; nvidia-smi -q -d COMPUTE | grep 'Compute Mode'",
          "cudaErrorNoDevice (100) / cudaErrorDevicesUnavailable (46)", "no CUDA-capable device is detected", priority=75),
    Signature(
        id="nccltests.cuda.failure",
        patterns=(r"Test CUDA failure \S+:\d+ '",),
        extract=r"(?P<host>\S+): Test CUDA failure (?P<file>\S+):(?P<line>\d+) '(?P<error>[^']*)'",
        cause="other",
        role="fault",
        confidence="low",
        title="nccl-tests: CUDA call failed",
        fix="A CUDA call in the test failed on {host} with '{error}'; the error text names the area. Check dmesg for an Xid at the same time.",
        origin=_ORIGIN_CUDA,
        samples=("gpu-b: Test CUDA failure common.cu:732 'invalid configuration argument'",),
        priority=30,
    ),
    # ---------------------------------------------------------------- Test NCCL failure
    Signature(
        id="nccltests.nccl.remote_error",
        patterns=(r"Test NCCL failure \S+:\d+ 'remote process exited or there was a network error",),
        extract=r"(?P<host>\S+): Test NCCL failure (?P<file>\S+):(?P<line>\d+) '[^/']*(?: / (?P<last_error>[^']*))?'",
        cause="network",
        role="symptom",
        confidence="low",
        title="nccl-tests: NCCL lost a peer (remote process exited or network error)",
        fix="A peer rank went away or the network failed ({last_error}). Check which rank failed first (its own `Test ... failure` line, dmesg on its node) before blaming the fabric.",
        origin=_ORIGIN_NCCL + "; ncclRemoteError (6)",
        samples=("kolyoz1: Test NCCL failure common.cu:1005 'remote process exited or there was a network error / '",),
        priority=45,
    ),
    Signature(
        id="nccltests.nccl.system_error",
        patterns=(r"Test NCCL failure \S+:\d+ 'unhandled system error",),
        extract=r"(?P<host>\S+): Test NCCL failure (?P<file>\S+):(?P<line>\d+) '[^/']*(?: / (?P<last_error>[^']*))?'",
        cause="network",
        role="fault",
        confidence="low",
        title="nccl-tests: NCCL system error (socket, IB, shm or other system call)",
        fix="NCCL returned ncclSystemError ({last_error}). Rerun with NCCL_DEBUG=WARN (or INFO) to see which call failed.\n$ NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET ./build/all_reduce_perf ...",
        origin=_ORIGIN_NCCL + "; ncclSystemError (2)",
        samples=("gpu-c: Test NCCL failure common.cu:958 'unhandled system error (run with NCCL_DEBUG=INFO for details) / Call to ibv_create_qp failed'",),
        priority=45,
    ),
    Signature(
        id="nccltests.nccl.failure",
        patterns=(r"Test NCCL failure \S+:\d+ '",),
        extract=r"(?P<host>\S+): Test NCCL failure (?P<file>\S+):(?P<line>\d+) '(?P<result>[^/']*)(?: / (?P<last_error>[^']*))?'",
        cause="other",
        role="fault",
        confidence="low",
        title="nccl-tests: NCCL call failed",
        fix="An NCCL call in the test failed on {host}: {result} ({last_error}). Rerun with NCCL_DEBUG=WARN to see NCCL's own message.",
        origin=_ORIGIN_NCCL,
        samples=(
            "gpu-d: Test NCCL failure common.cu:1040 'invalid usage (run with NCCL_DEBUG=WARN for details) / Duplicate GPU detected : rank 1 and rank 0 both on CUDA device 1b000'",
            "[1,0]<stdout>:node2: Test NCCL failure common.cu:393 'internal error'",
        ),
        priority=35,
    ),
    Signature(
        id="nccltests.nccl.old_failure",
        patterns=(r"NCCL failure \S+:\d+ '",),  # 'Test NCCL failure' (v2, priority 35) outranks it
        cause="other",
        role="fault",
        confidence="low",
        title="nccl-tests (v1): NCCL call failed",
        fix="An NCCL call in the (v1) test failed; the quoted text is ncclGetErrorString.",
        origin="nccl-tests v1.0.0 src/common.h `NCCL failure %s:%d '%s'`",
        samples=("NCCL failure common.cu:412 'unhandled system error'",),
        priority=30,
    ),
    Signature(
        id="nccltests.test_failure",
        patterns=(r" \.\. \S+(?: pid \d+)?: Test failure \S+:\d+",),
        extract=r"\.\. (?P<host>\S+)(?: pid (?P<test_pid>\d+))?: Test failure (?P<file>\S+):(?P<line>\d+)",
        cause=None,
        role="context",
        confidence="high",
        title="nccl-tests failure trail",
        fix="Trail of a test failure on {host}; the `Test CUDA/NCCL failure` line before it is the cause.",
        origin="nccl-tests src/common.h TESTCHECK ` .. %s pid %d: Test failure %s:%d` v2.10.0-v2.19.6 (` .. %s: Test failure` v2.0.0-v2.9.0)",
        samples=(" .. gpu-a pid 48592: Test failure common.cu:587", "[1,0]<stdout>: .. node1: Test failure common.cu:344"),
        priority=20,
    ),
    Signature(
        id="nccltests.timeout",
        patterns=(r"Test timeout \(\d+s\) \S+:\d+",),
        extract=r"(?P<host>\S+): Test timeout \((?P<seconds>\d+)s\)",
        cause="collective_timeout_straggler",
        role="fault",
        confidence="medium",
        title="nccl-tests: operation exceeded the -T timeout (hang)",
        fix="A collective did not finish within {seconds}s on {host}: a rank is stuck or the network stalled. Rerun with NCCL_DEBUG=INFO; query NCCL RAS during the hang:\n$ ncclras -v",
        origin="nccl-tests src/common.cu `%s: Test timeout (%ds) %s:%d` v2.13.4-v2.19.6",
        samples=("gpu-e: Test timeout (120s) common.cu:523",),
        priority=70,
    ),
    # ---------------------------------------------------------------- data check and summary
    Signature(
        id="nccltests.wrong_values",
        patterns=(r"rank=\d+ #wrong=[1-9]\d*", r"Error at \d+/\d+(?:\(\S+\))? : \S+ != \S+"),
        extract=r"rank=(?P<bad_rank>\d+) #wrong=(?P<wrong>\d+)",
        cause="hardware_fault",
        role="fault",
        confidence="low",
        title="nccl-tests: wrong results (data corruption)",
        fix=(
            "The collective produced wrong data (rank {bad_rank}: {wrong} wrong elements). Silent "
            "corruption points at hardware (GPU memory, NVLink, NIC) or at broken P2P through an "
            "IOMMU/ACS-enabled PCIe switch; rarely an NCCL bug. Narrow it down:\n"
            "$ NCCL_P2P_DISABLE=1 ./build/all_reduce_perf -c 1 ...   # wrong values vanish -> P2P/ACS\n"
            "$ nvidia-smi -q -d ECC; dmesg -T | grep -i xid; sudo lspci -vvv | grep -i acsctl"
        ),
        origin="nccl-tests src/common.cu `rank=%d #wrong=%d` v2.13.0-v2.19.6, `Error at %d/%ld : %f != %f` v1.0.0-v2.11.0",
        samples=("rank=3 #wrong=1048576", "Error at 1024/262144 : 2.000000 != 8.000000"),
        priority=70,
    ),
    Signature(
        id="nccltests.out_of_bounds_failed",
        patterns=(r"Out of bounds values : [1-9]\d* FAILED",),
        extract=r"Out of bounds values : (?P<wrong>\d+)",
        cause="hardware_fault",
        role="fault",
        confidence="low",
        title="nccl-tests: result check FAILED (wrong values)",
        fix=(
            "{wrong} result checks failed. Wrong data points at hardware (GPU memory, NVLink, NIC) or "
            "broken P2P through IOMMU/ACS:\n"
            "$ NCCL_P2P_DISABLE=1 ./build/all_reduce_perf -c 1 ...\n"
            "$ nvidia-smi -q -d ECC; dmesg -T | grep -i xid"
        ),
        origin="nccl-tests src/common.cu v2.0-v2.16, src/util.cu v2.17-v2.19 `# %-20s : %d %s` (Out of bounds values)",
        samples=("# Out of bounds values : 12 FAILED",),
        priority=70,
    ),
    Signature(
        id="nccltests.out_of_bounds_ok",
        patterns=(r"Out of bounds values : 0 OK",),
        cause=None,
        role="harmless",
        confidence="high",
        title="nccl-tests: all results correct",
        fix="Every checked result was correct.",
        origin="nccl-tests src/common.cu / src/util.cu v2.0-v2.19",
        samples=("# Out of bounds values : 0 OK",),
        priority=30,
    ),
    Signature(
        id="nccltests.busbw_failed",
        patterns=(r"Avg bus bandwidth +: \S+ FAILED",),
        extract=r"Avg bus bandwidth +: (?P<busbw>\S+)",
        cause="network",
        role="fault",
        confidence="low",
        title="nccl-tests: average bus bandwidth below the -a/check threshold",
        fix="Average bus bandwidth {busbw} GB/s is below the expected value: a slow link, a NIC on the wrong NUMA node, GPUDirect RDMA off, or TCP sockets used instead of IB. Check `Using network` and the NET/IB lines, and compare the largest-size row.",
        origin="nccl-tests src/common.cu / src/util.cu `# %-20s : %g %s` (Avg bus bandwidth) v2.0-v2.19",
        samples=("# Avg bus bandwidth    : 12.3456 FAILED",),
        priority=60,
    ),
    Signature(
        id="nccltests.busbw",
        patterns=(r"Avg bus bandwidth +: \d",),
        extract=r"Avg bus bandwidth +: (?P<busbw>\S+)",
        cause=None,
        role="context",
        confidence="high",
        title="nccl-tests average bus bandwidth",
        fix="Average bus bandwidth over all sizes: {busbw} GB/s (compare the largest-size row for a health check).",
        origin="nccl-tests src/common.cu / src/util.cu v2.0-v2.19",
        samples=("# Avg bus bandwidth    : 84.8558",),
        priority=25,
    ),
    Signature(
        id="nccltests.last_error",
        patterns=(r"^# error: \S+",),
        extract=r"# error: (?P<message>.+)$",
        cause=None,
        role="context",
        confidence="medium",
        title="nccl-tests: last NCCL error",
        fix="The test's final ncclGetLastError(): {message}",
        origin="nccl-tests src/util.cu / common.cu `# error: %s` v2.17.3-v2.19.6",
        samples=("# error: NET/IB : Got completion from peer 10.0.0.2<40000> with error 12",),
        priority=20,
    ),
    # ---------------------------------------------------------------- usage / environment
    Signature(
        id="nccltests.invalid_gpu_count",
        patterns=(r"Invalid number of GPUs: \d+ requested but only \d+ were found",),
        cause="device_ordinal",
        role="fault",
        confidence="high",
        title="nccl-tests: more GPUs requested than visible",
        fix="-g (GPUs per process) times processes per node exceeds the visible GPUs.\n$ nvidia-smi -L; echo $CUDA_VISIBLE_DEVICES",
        origin="nccl-tests src/util.cu / common.cu v2.17.2-v2.19.6",
        samples=("Invalid number of GPUs: 8 requested but only 4 were found.",),
        priority=80,
    ),
    Signature(
        id="nccltests.nccl_too_old",
        patterns=(r"NCCL 2\.\d+ or later is needed for \S+\. This test was compiled with \d+\.\d+",),
        cause="version_mismatch",
        role="fault",
        confidence="high",
        title="nccl-tests: NCCL too old for this test",
        fix="This test needs a newer NCCL than the one it was compiled with; rebuild against a newer NCCL:\n$ make NCCL_HOME=<path to newer nccl>",
        origin="nccl-tests src/alltoall.cu, scatter.cu, gather.cu, alltoallv.cu v2.9.0-v2.19.6",
        samples=("NCCL 2.7 or later is needed for alltoall. This test was compiled with 2.4.",),
        priority=75,
    ),
    Signature(
        id="nccltests.feature_unavailable",
        patterns=(
            r"This test requires (?:multimem|GIN) support, but (?:multimem|GIN) support is not enabled",
            r"\[KERNEL_LAUNCH_ERROR\] Device kernel requires multimem",
        ),
        cause="other",
        role="fault",
        confidence="medium",
        title="nccl-tests: device-API feature (multimem/GIN) not available",
        fix="The selected device implementation needs NVLS multimem or GIN, which this system/communicator lacks. Use the default implementation, or check NVLS/GIN support (Fabric Manager, NCCL_NVLS_ENABLE).",
        origin="nccl-tests src/common.h `[KERNEL_LAUNCH_ERROR]` v2.17.0-v2.17.3, src/all_reduce.cu / alltoall.cu `This test requires ... support` v2.17.7-v2.19.6",
        samples=(
            "[KERNEL_LAUNCH_ERROR] Device kernel requires multimem, which may not be available.","This test requires multimem support, but multimem support is not enabled for this communicator.",),
        priority=60,
    ),
    Signature(
        id="nccltests.usage_error",
        patterns=(
            r"invalid size specified for '\w+'",
            r"invalid sizes for 'minbytes' and 'maxbytes'",
            r"^invalid option '",
            r"Invalid alltoallv traffic matrix",
        ),
        cause="other",
        role="fault",
        confidence="high",
        title="nccl-tests: invalid command-line arguments",
        fix="The test was started with invalid options; see `./build/all_reduce_perf -h`.",
        origin="nccl-tests src/common.cu v2.0-v2.19 (invalid sizes/options), src/alltoallv.cu v2.19.0-v2.19.6 (traffic matrix)",
        samples=(
            "invalid size specified for 'maxbytes'",
            "invalid option 'z'",
            "Invalid alltoallv traffic matrix, file tm.txt is empty.","invalid sizes for 'minbytes' and 'maxbytes': 1024 > 8",),
        priority=60,
    ),
    Signature(
        id="nccltests.option_defaulted",
        patterns=(r"invalid (?:type|op) \S+, defaulting to", r"Option -\w+ (?:\d+ )?(?:\([^)]*\) )?(?:\d+ )?(?:is )?not supported before NCCL"),
        cause=None,
        role="harmless",
        confidence="high",
        title="nccl-tests: option ignored or defaulted",
        fix="An option was ignored or replaced by its default; harmless unless the test needed it.",
        origin="nccl-tests src/common.h, src/common.cu v2.0-v2.19",
        samples=(
            "Option -R 2 (symmetric) is not supported before NCCL 2.27. Defaulting to local registration","invalid type bf17, defaulting to float .. ",),
        priority=35,
    ),
    Signature(
        id="nccltests.version_header",
        patterns=(r"# nccl-tests version \S+ nccl-headers=\d+ nccl-library=\d+", r"# NCCL Tests compiled with NCCL \d+\.\d+"),
        extract=r"nccl-tests version (?P<tests_version>\S+) nccl-headers=(?P<headers>\d+) nccl-library=(?P<library>\d+)",
        cause=None,
        role="context",
        confidence="high",
        title="nccl-tests version and NCCL header/library versions",
        fix="nccl-tests {tests_version} compiled with NCCL headers {headers}, running NCCL {library} (a difference means the binary runs against another NCCL than it was built with).",
        origin="nccl-tests `# nccl-tests version %s nccl-headers=%d nccl-library=%d` v2.17.4-v2.19.6, `# NCCL Tests compiled with NCCL %d.%d` v1.0.0",
        samples=(
            "# NCCL Tests compiled with NCCL 2.1","# nccl-tests version 2.19.6 nccl-headers=23007 nccl-library=23007",),
        priority=25,
    ),
    Signature(
        id="nccltests.curand_error",
        patterns=(r"CuRAND error -?\d+ at \S+:\d+",),
        cause="other",
        role="fault",
        confidence="low",
        title="nccl-tests (v1): cuRAND error while initializing data",
        fix="The v1 test failed to generate its input data with cuRAND; usually a CUDA problem on this GPU (see CUDA errors around it).",
        origin="nccl-tests v1.0.0 src/common.h",
        samples=("CuRAND error 201 at common.cu:120",),
        priority=40,
    ),
)

# Entries whose sample another entry reads (schema.py `alone_differs`): why the verdict on
# that sample is not this entry's cause.
SIGNATURES = alone_differs(SIGNATURES, {
    "nccltests.cuda.failure": (
        "A catch-all for any 'Test CUDA failure': where the quoted text is a known cudaError_t string, that cuda.rt.* entry reads the line and its cause wins."
    ),
    "nccltests.nccl.failure": (
        "A catch-all for any 'Test NCCL failure': where the quoted text names its reason (a duplicate GPU, a system error), the entry for that reason reads the line."
    ),
})
