"""Signatures of CUDA errors: every `cudaError_t` of the runtime with its `cudaGetErrorString`
text and its driver-API twin (`CUresult` `CUDA_ERROR_*`, same number), plus cuBLAS / cuDNN
status codes and NVML / nvidia-smi errors (see schema.py for what each field means).

The runtime table was read from CUDA 13.0 (`include/driver_types.h` enum `cudaError`, strings
from `cudaGetErrorName`/`cudaGetErrorString` of `libcudart.so.13`; docs/log-formats.md §2.10 lists the
12.9 strings, identical for the codes it shows), the driver names from `include/cuda.h`
(`cudaError_enum`). The numbers are those of CUDA >= 10.1; older runtimes numbered several
errors differently (`cuda runtime error (59) : device-side assert triggered`), so no pattern
depends on the number.

A message text is matched behind the wrappers that print it: PyTorch `CUDA error: <text>`,
NCCL `Cuda failure [N ]'<text>'`, nccl-tests `Test CUDA failure file.cu:N '<text>'`, CuPy and
others `cudaErrorXxx: <text>`, old THC `cuda runtime error (N) : <text>`, Triton
`Triton Error [CUDA]: <text>`, JAX/XLA `CUDA_ERROR_XXX: <text>`. Texts distinctive enough to
mean CUDA on their own are also matched bare; generic ones ("invalid argument", "unknown
error") only behind a wrapper. The bare names `cudaErrorXxx` and `CUDA_ERROR_XXX` match alone.

Rows are data; `_runtime` turns one row into a `Signature` with its patterns, samples (one per
wrapper family) and origin. Fixes are written per row or per class of error.
"""
from __future__ import annotations

import re

from .schema import Signature, alone_differs

# What prints a CUDA error text: torch/c10 `CUDA error:`, NCCL `Cuda failure`, nccl-tests
# `Test CUDA failure`, `cudaErrorXxx:` (CuPy, custom checks), THC `cuda runtime error (N) :`,
# Triton `Triton Error [CUDA]:`, driver-API `CUDA_ERROR_XXX:`, old THC `THCudaCheck FAIL ... :`,
# torch `Unexpected error from cudaGetDeviceCount() ... set an error? Error 802: <text>`.
# Kept to plain alternatives: `\w*` tails and `\b` make Hyperscan compile several times slower.
_WRAP = (
    r"(?:cuda(?: runtime| driver)?[ _](?:error|failure)|cudaerror|cuda_error_|\[cuda\]|"
    r"thcudacheck|already set an error).*"
)

_SYNC_RERUN = (
    "$ CUDA_LAUNCH_BLOCKING=1 TORCH_USE_CUDA_DSA=1 <your launch command>   # true call site\n"
    "$ compute-sanitizer --tool memcheck python train.py   # one rank, small input"
)

FIX_API = (
    "CUDA rejected a call made by this rank's own code or by a library it uses (a bug or a "
    "misuse, not the fabric); the rank then died and the other ranks' NCCL errors follow from "
    "it. Errors surface asynchronously, so rerun with synchronous launches to find the call:\n"
    + _SYNC_RERUN
)

FIX_KERNEL = (
    "A kernel on this rank faulted on the GPU. Most often an application bug (index out of "
    "range, use after free, race, a bad custom kernel or extension); it is the hardware when the "
    "same GPU fails in different jobs or when the kernel log shows an Xid 48/63/64/74/79/94/95 at "
    "that time (Xid 13/31/43 alone are the application). Check the node, then reproduce "
    "synchronously:\n"
    "$ dmesg -T | grep -E 'NVRM: Xid'\n"
    "$ nvidia-smi -q -d ECC,ROW_REMAPPER -i {device}\n" + _SYNC_RERUN
)

FIX_VERSION = (
    "The CUDA code shipped with the job does not fit this node's GPU or driver. Compare, on "
    "every node, the driver's CUDA version with the one the framework was built for, and the "
    "GPU architecture with the architectures compiled in:\n"
    "$ nvidia-smi   # 'CUDA Version' = newest runtime the driver supports\n"
    "$ python -c 'import torch; print(torch.__version__, torch.version.cuda, "
    "torch.cuda.get_arch_list())'\n"
    "$ nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv"
)

FIX_HARDWARE = (
    "The GPU reported an uncorrectable hardware error; the job cannot continue on it. Drain the "
    "node, look at the kernel log and the ECC / row-remap state, reset the GPU, and RMA it if it "
    "recurs:\n"
    "$ dmesg -T | grep -E 'NVRM: Xid'\n"
    "$ nvidia-smi -q -d ECC,ROW_REMAPPER,PAGE_RETIREMENT -i {device}\n"
    "$ nvidia-smi -r -i {device}   # with no process on the GPU; else reboot\n"
    "$ dcgmi diag -r 3"
)

FIX_DEVICE = (
    "This rank could not get the GPU it asked for: the device index is not visible to it, or "
    "the GPU is held by another process or in exclusive mode. Check that LOCAL_RANK < the "
    "number of visible GPUs, that CUDA_VISIBLE_DEVICES and the launcher's GPU binding agree, "
    "and that no other job holds the GPU:\n"
    "$ echo $CUDA_VISIBLE_DEVICES; nvidia-smi -L\n"
    "$ nvidia-smi --query-gpu=index,compute_mode --format=csv\n"
    "$ nvidia-smi --query-compute-apps=pid,gpu_bus_id,used_memory --format=csv"
)

FIX_P2P = (
    "GPU peer-to-peer access between two GPUs of this node is not available (PCIe topology, "
    "IOMMU/ACS, a virtual machine, or GPUs split across containers). Check the topology, then "
    "run with P2P disabled to confirm:\n"
    "$ nvidia-smi topo -m\n"
    "$ nvidia-smi topo -p2p r\n"
    "$ NCCL_P2P_DISABLE=1 <your launch command>   # confirms; then fix ACS/IOMMU or the container"
)

FIX_MPS = (
    "The CUDA MPS daemon refused or dropped this client. Check that nvidia-cuda-mps-control "
    "runs for this user and GPU, its log, and its client limits:\n"
    "$ echo get_server_list | nvidia-cuda-mps-control\n"
    "$ tail -50 /var/log/nvidia-mps/control.log /var/log/nvidia-mps/server.log"
)

FIX_GRAPH = (
    "An operation broke CUDA graph / stream capture rules (a synchronising call, an allocation "
    "or a collective outside the captured stream while capturing). It is a code path problem: "
    "disable graph capture (e.g. torch.compile mode without cudagraphs, vLLM enforce_eager) to "
    "confirm, then fix the call inside the captured region:\n" + _SYNC_RERUN
)


# The end of an error name, needed only where the name is the prefix of another one
# (cudaErrorInvalidDevice / cudaErrorInvalidDevicePointer). `\b` is avoided and so is this
# guard elsewhere: both make Hyperscan compile several times slower.
_END = r"(?:[^A-Za-z0-9_]|$)"
_PREFIX_NAMES = frozenset(
    {"cudaErrorInvalidDevice", "cudaErrorInvalidTexture", "cudaErrorNotMapped", "CUDA_ERROR_NOT_MAPPED"}
)


def _name_pattern(name: str) -> str:
    return name + _END if name in _PREFIX_NAMES else name


def _text_pattern(text: str) -> str:
    return re.escape(text).replace(r"\ ", " ")


_SAMPLE_WRAPPERS = (
    "[rank{r}]: RuntimeError: CUDA error: {text}",
    "node-{r}:24141:24296 [{r}] enqueue.cc:54 NCCL WARN Cuda failure {num} '{text}'",
    "gpu-node-07: Test CUDA failure common.cu:891 '{text}'",
    "cupy_backends.cuda.api.runtime.CUDARuntimeError: {name}: {text}",
    "RuntimeError: cuda runtime error ({num}) : {text} at /pytorch/aten/src/THC/THCGeneral.cpp:50",
    "[default{r}]:torch.AcceleratorError: CUDA error: {text}",
    "0: RuntimeError: Triton Error [CUDA]: {text}",
    "THCudaCheck FAIL file=/pytorch/torch/csrc/cuda/Module.cpp line=59 error={num} : {text}",
)
# An API-misuse text behind NCCL's `Cuda failure` is NCCL's own call, which nccl.cuda.failure reads
# (as other): those entries show the text behind the other wrappers only.
_API_SAMPLE_WRAPPERS = tuple(w for w in _SAMPLE_WRAPPERS if "NCCL WARN" not in w)


def _runtime(
    slug: str,
    names: tuple[str, ...],
    number: int,
    texts: tuple[str, ...],
    cause: str | None,
    role: str,
    confidence: str,
    priority: int,
    title: str,
    fix: str,
    *,
    bare: bool = False,
    extra_samples: tuple[str, ...] = (),
    origin_note: str = "",
    outranked_by: tuple[str, ...] = (),
    wrappers: tuple[str, ...] = _SAMPLE_WRAPPERS,
) -> Signature:
    """One `cudaError_t` (and its CUresult twin) as a catalog entry.

    `names` are the runtime and driver names; `texts` the `cudaGetErrorString` text (first)
    and older wordings; `bare` matches the texts without a wrapper.
    """
    patterns: list[str] = []
    for text in texts:
        body = _text_pattern(text)
        patterns.append("(?i)" + _WRAP + body if not bare else "(?i)" + body)
    patterns.extend(_name_pattern(n) for n in names)
    runtime = [n for n in names if n.startswith("cuda")]
    driver = [n for n in names if n.startswith("CUDA_ERROR")]
    shown = runtime[0] if runtime else driver[0]
    samples: list[str] = []
    tail = f": {texts[0]}" if texts else ""
    for i, text in enumerate(texts):
        wrapper = wrappers[(number + i) % len(wrappers)]
        samples.append(wrapper.format(r=(number + i) % 8, num=number, text=text, name=shown))
    for name in names:
        if name.startswith("CUDA_ERROR"):
            samples.append(f"E0000 12:00:01.000000 1234 pjrt_stream_executor_client.cc:2985] "
                           f"Execution failed: INTERNAL: Failed to launch: {name}{tail}")
        else:
            samples.append(f"RuntimeError: transform: failed to synchronize: {name}{tail}")
    samples.extend(extra_samples)
    parts = []
    if runtime:
        parts.append(f"cudaError_t {runtime[0]} ({number})"
                     + (", with " + ", ".join(runtime[1:]) if runtime[1:] else ""))
    if driver:
        parts.append("CUresult " + ", ".join(driver) + ("" if runtime else f" ({number})"))
    origin = "; ".join(parts)
    if texts:
        origin += (f"; text '{texts[0]}' from cudaGetErrorString (libcudart 13.0, include/"
                   "driver_types.h; numbering of CUDA >= 10.1)")
    else:
        origin += " (include/cuda.h, CUDA 13.0; driver API only)"
    if origin_note:
        origin += "; " + origin_note
    return Signature(
        id=f"cuda.rt.{slug}",
        patterns=tuple(patterns),
        cause=cause,
        role=role,
        confidence=confidence,
        title=title,
        fix=fix,
        origin=origin,
        samples=tuple(samples),
        priority=priority,
        outranked_by=outranked_by,
    )


def _api(slug: str, names: tuple[str, ...], number: int, text: str, title: str,
         note: str = "", *, confidence: str = "medium", priority: int = 40) -> Signature:
    """An API-misuse error: the rank's own code (rank_crash), a generic fix."""
    fix = (note + "\n" if note else "") + FIX_API
    return _runtime(slug, names, number, (text,), "rank_crash", "fault", confidence, priority,
                    title, fix, wrappers=_API_SAMPLE_WRAPPERS)


RUNTIME: tuple[Signature, ...] = (
    _runtime(
        "memory_allocation", ("cudaErrorMemoryAllocation", "CUDA_ERROR_OUT_OF_MEMORY"), 2,
        ("out of memory",), "oom", "fault", "high", 80,
        "CUDA out of memory (cudaErrorMemoryAllocation)",
        "The GPU of this rank ran out of memory in a CUDA allocation (NCCL's own buffers, a "
        "library workspace or the framework). Find what holds the memory, then lower the batch "
        "or sequence length, enable activation checkpointing / sharding, or reduce NCCL buffers:\n"
        "$ nvidia-smi --query-compute-apps=pid,used_memory --format=csv -i {device}\n"
        "$ PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True <your launch command>\n"
        "$ NCCL_BUFFSIZE=2097152 NCCL_NCHANNELS_PER_NET_PEER=1 <your launch command>   # if NCCL allocs fail",
        extra_samples=(
            "RuntimeError: CUDA error: out of memory",
            "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: CUDA_ERROR_OUT_OF_MEMORY: out of memory",
        ),
    ),
    _runtime(
        "initialization_error", ("cudaErrorInitializationError", "CUDA_ERROR_NOT_INITIALIZED"), 3,
        ("initialization error",), "other", "fault", "medium", 60,
        "CUDA initialization error",
        "The CUDA runtime could not initialise on this rank. Usual reasons: the process was forked "
        "after CUDA was initialised (DataLoader workers, multiprocessing with 'fork'), the driver "
        "is not loaded or is being reloaded, or the GPU is in a bad state (then the kernel log "
        "shows Xids and it is a hardware fault). Check:\n"
        "$ nvidia-smi\n"
        "$ dmesg -T | grep -E 'NVRM'\n"
        "$ python -c 'import torch; torch.cuda.init(); print(torch.cuda.device_count())'\n"
        "Use the 'spawn' start method for subprocesses that touch CUDA.",
    ),
    _runtime(
        "cudart_unloading", ("cudaErrorCudartUnloading", "CUDA_ERROR_DEINITIALIZED"), 4,
        ("driver shutting down",), "rank_crash", "symptom", "low", 20,
        "CUDA called while the process was exiting (driver shutting down)",
        "A CUDA call ran during process teardown (a destructor or an atexit handler after the "
        "runtime unloaded). It follows the real failure of this process; look for the first "
        "error earlier in this rank's log.",
    ),
    _runtime(
        "profiler", ("cudaErrorProfilerDisabled", "cudaErrorProfilerNotInitialized",
                     "cudaErrorProfilerAlreadyStarted", "cudaErrorProfilerAlreadyStopped",
                     "CUDA_ERROR_PROFILER_DISABLED", "CUDA_ERROR_PROFILER_NOT_INITIALIZED",
                     "CUDA_ERROR_PROFILER_ALREADY_STARTED", "CUDA_ERROR_PROFILER_ALREADY_STOPPED"), 5,
        ("profiler disabled while using external profiling tool",
         "profiler not initialized: call cudaProfilerInitialize()",
         "profiler already started", "profiler already stopped"),
        None, "harmless", "low", 20,
        "CUDA profiler start/stop state warning",
        "Profiler start/stop calls out of order or under an external profiler (Nsight). Harmless "
        "for the job.",
        origin_note="cudaErrorProfilerNotInitialized (6), AlreadyStarted (7), AlreadyStopped (8)",
    ),
    _api("invalid_value", ("cudaErrorInvalidValue", "CUDA_ERROR_INVALID_VALUE"), 1,
         "invalid argument", "CUDA invalid argument (cudaErrorInvalidValue)",
         "A CUDA API call got an out-of-range argument (a size, a pointer, a flag); in NCCL jobs "
         "also seen when a buffer was freed or belongs to another device.", priority=35),
    _api("invalid_configuration", ("cudaErrorInvalidConfiguration",), 9,
         "invalid configuration argument", "CUDA kernel launch with an invalid configuration",
         "A kernel was launched with a grid/block size or shared memory the GPU does not allow "
         "(often an empty or huge tensor reaching a custom kernel)."),
    _api("invalid_pitch", ("cudaErrorInvalidPitchValue",), 12, "invalid pitch argument",
         "CUDA invalid pitch argument"),
    _api("invalid_symbol", ("cudaErrorInvalidSymbol",), 13, "invalid device symbol",
         "CUDA invalid device symbol"),
    _api("invalid_host_pointer", ("cudaErrorInvalidHostPointer",), 16, "invalid host pointer",
         "CUDA invalid host pointer"),
    _api("invalid_device_pointer", ("cudaErrorInvalidDevicePointer",), 17, "invalid device pointer",
         "CUDA invalid device pointer",
         "A pointer passed to CUDA is not a device pointer of this context (freed, from another "
         "process or device)."),
    _api("invalid_texture", ("cudaErrorInvalidTexture",), 18, "invalid texture reference",
         "CUDA invalid texture reference"),
    _api("invalid_texture_binding", ("cudaErrorInvalidTextureBinding",), 19,
         "texture is not bound to a pointer", "CUDA texture not bound"),
    _api("invalid_channel_descriptor", ("cudaErrorInvalidChannelDescriptor",), 20,
         "invalid channel descriptor", "CUDA invalid channel descriptor"),
    _api("invalid_memcpy_direction", ("cudaErrorInvalidMemcpyDirection",), 21,
         "invalid copy direction for memcpy", "CUDA invalid memcpy direction"),
    _api("address_of_constant", ("cudaErrorAddressOfConstant",), 22, "invalid address of constant",
         "CUDA invalid address of constant (deprecated)"),
    _api("texture_fetch_failed", ("cudaErrorTextureFetchFailed",), 23, "fetch from texture failed",
         "CUDA texture fetch failed (deprecated)"),
    _api("texture_not_bound", ("cudaErrorTextureNotBound",), 24,
         "cannot fetch from a texture that is not bound", "CUDA texture not bound (deprecated)"),
    _api("synchronization_error", ("cudaErrorSynchronizationError",), 25,
         "incorrect use of __syncthreads()", "CUDA incorrect use of __syncthreads() (deprecated)"),
    _api("invalid_filter_setting", ("cudaErrorInvalidFilterSetting",), 26,
         "linear filtering not supported for non-float type", "CUDA invalid texture filter setting"),
    _api("invalid_norm_setting", ("cudaErrorInvalidNormSetting",), 27,
         "read as normalized float not supported for data type", "CUDA invalid texture norm setting"),
    _api("mixed_device_execution", ("cudaErrorMixedDeviceExecution",), 28,
         "device emulation mode and device execution mode cannot be mixed",
         "CUDA mixed device execution (deprecated)"),
    _api("not_yet_implemented", ("cudaErrorNotYetImplemented",), 31, "feature not yet implemented",
         "CUDA feature not yet implemented (deprecated)"),
    _api("memory_value_too_large", ("cudaErrorMemoryValueTooLarge",), 32,
         "memory size or pointer value too large to fit in 32 bit",
         "CUDA memory value too large (deprecated)"),
    _runtime(
        "stub_library", ("cudaErrorStubLibrary", "CUDA_ERROR_STUB_LIBRARY"), 34,
        ("CUDA driver is a stub library",), "version_mismatch", "fault", "high", 75,
        "The process loaded the CUDA driver stub library instead of the real driver",
        "libcuda.so resolved to the build-time stub (…/lib64/stubs/libcuda.so), not the driver's "
        "library: LD_LIBRARY_PATH or the container does not expose the host driver. Check which "
        "libcuda is loaded and that the NVIDIA container runtime mounts the driver:\n"
        "$ ldconfig -p | grep libcuda.so\n"
        "$ echo $LD_LIBRARY_PATH   # remove .../stubs\n"
        "$ docker run --gpus all ... nvidia-smi",
        bare=True,
    ),
    _runtime(
        "insufficient_driver", ("cudaErrorInsufficientDriver",), 35,
        ("CUDA driver version is insufficient for CUDA runtime version",),
        "version_mismatch", "fault", "high", 85,
        "NVIDIA driver too old for the CUDA runtime the job uses",
        "The installed driver supports an older CUDA than the runtime bundled with the job "
        "(PyTorch / NCCL wheels or container). Upgrade the driver on this node, use a build for "
        "an older CUDA, or install the CUDA forward-compatibility package (datacenter GPUs only):\n"
        + FIX_VERSION.split(":\n", 1)[1],
        bare=True,
        extra_samples=(
            "CUDA driver version is insufficient for CUDA runtime version",
            "[rank1]: RuntimeError: Unexpected error from cudaGetDeviceCount(). Did you run some "
            "cuda functions before calling NumCudaDevices() that might have already set an error? "
            "Error 35: CUDA driver version is insufficient for CUDA runtime version",
        ),
    ),
    _runtime(
        "call_requires_newer_driver",
        ("cudaErrorCallRequiresNewerDriver", "CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER"), 36,
        ("API call is not supported in the installed CUDA driver",),
        "version_mismatch", "fault", "high", 75,
        "A CUDA API call needs a newer driver than the one installed",
        "The job (often NCCL's cuMem / NVLS paths, or a newer framework) calls a CUDA API the "
        "installed driver does not have. Upgrade the driver or use builds for an older CUDA.\n"
        + FIX_VERSION.split(":\n", 1)[1],
        bare=True,
    ),
    _api("invalid_surface", ("cudaErrorInvalidSurface",), 37, "invalid surface reference",
         "CUDA invalid surface reference"),
    _api("duplicate_variable_name", ("cudaErrorDuplicateVariableName",), 43,
         "duplicate global variable looked up by string name", "CUDA duplicate global variable name"),
    _api("duplicate_texture_name", ("cudaErrorDuplicateTextureName",), 44,
         "duplicate texture looked up by string name", "CUDA duplicate texture name"),
    _api("duplicate_surface_name", ("cudaErrorDuplicateSurfaceName",), 45,
         "duplicate surface looked up by string name", "CUDA duplicate surface name"),
    _runtime(
        "devices_unavailable", ("cudaErrorDevicesUnavailable", "CUDA_ERROR_DEVICE_UNAVAILABLE"), 46,
        ("CUDA-capable device(s) is/are busy or unavailable",
         "all CUDA-capable devices are busy or unavailable"),
        "device_ordinal", "fault", "high", 80,
        "GPU busy or unavailable (exclusive mode, held by another process, or not usable)",
        "The GPU this rank opened is in Exclusive_Process mode and already used (often two ranks "
        "on one GPU because LOCAL_RANK/CUDA_VISIBLE_DEVICES collide, or a leftover process), or "
        "the device is unusable (then look for Xids).\n" + FIX_DEVICE.split(":\n", 1)[1]
        + "\n$ dmesg -T | grep -E 'NVRM: Xid'",
        bare=True,
        origin_note="older runtimes (<= 10.x): 'all CUDA-capable devices are busy or unavailable'",
        # 'Unavailable' is also what a GPU the kernel says fell off the bus or needs a reset gives.
        outranked_by=("cause:hardware_fault",),
    ),
    _runtime(
        "incompatible_driver_context", ("cudaErrorIncompatibleDriverContext",), 49,
        ("incompatible driver context",), "rank_crash", "fault", "low", 40,
        "CUDA runtime used with an incompatible driver-API context", FIX_API, wrappers=_API_SAMPLE_WRAPPERS,
    ),
    _api("missing_configuration", ("cudaErrorMissingConfiguration",), 52,
         "__global__ function call is not configured", "CUDA kernel call not configured"),
    _runtime(
        "prior_launch_failure", ("cudaErrorPriorLaunchFailure",), 53,
        ("unspecified launch failure in prior launch",), "rank_crash", "fault", "medium", 72,
        "An earlier kernel launch failed (unspecified launch failure in prior launch)",
        FIX_KERNEL, bare=True,
    ),
    _api("launch_max_depth_exceeded", ("cudaErrorLaunchMaxDepthExceeded",), 65,
         "launch would exceed maximum depth of nested launches",
         "CUDA dynamic parallelism: nesting depth exceeded"),
    _api("launch_file_scoped_tex", ("cudaErrorLaunchFileScopedTex",), 66,
         "launch failed because kernel uses unsupported, file-scoped textures (texture objects are supported)",
         "CUDA dynamic parallelism: file-scoped textures"),
    _api("launch_file_scoped_surf", ("cudaErrorLaunchFileScopedSurf",), 67,
         "launch failed because kernel uses unsupported, file-scoped surfaces (surface objects are supported)",
         "CUDA dynamic parallelism: file-scoped surfaces"),
    _api("sync_depth_exceeded", ("cudaErrorSyncDepthExceeded",), 68,
         "cudaDeviceSynchronize failed because caller's grid depth exceeds cudaLimitDevRuntimeSyncDepth",
         "CUDA dynamic parallelism: sync depth exceeded"),
    _api("launch_pending_count_exceeded", ("cudaErrorLaunchPendingCountExceeded",), 69,
         "launch failed because launch would exceed cudaLimitDevRuntimePendingLaunchCount",
         "CUDA dynamic parallelism: pending launch count exceeded"),
    _runtime(
        "invalid_device_function", ("cudaErrorInvalidDeviceFunction",), 98,
        ("invalid device function",), "version_mismatch", "fault", "medium", 65,
        "CUDA invalid device function (kernel not built for this GPU)",
        "The kernel being launched has no code for this GPU's architecture, or a binary built for "
        "another CUDA/ROCm version was loaded. Usually a build/GPU mismatch (extension or wheel "
        "compiled for other SMs):\n" + FIX_VERSION.split(":\n", 1)[1],
    ),
    _runtime(
        "no_device", ("cudaErrorNoDevice", "CUDA_ERROR_NO_DEVICE"), 100,
        ("no CUDA-capable device is detected",), "device_ordinal", "fault", "high", 80,
        "No CUDA-capable device visible to this rank",
        "This process sees no GPU: CUDA_VISIBLE_DEVICES is empty or wrong, the container was "
        "started without GPUs, or the driver is not loaded. Check what the process sees:\n"
        "$ echo $CUDA_VISIBLE_DEVICES; nvidia-smi -L\n"
        "$ ls -l /dev/nvidia*\n"
        "$ docker run --gpus all ... nvidia-smi   # or the pod's nvidia.com/gpu request",
        bare=True,
        # A GPU the kernel log says fell off the bus or needs a reset is why none is visible.
        outranked_by=("cause:hardware_fault",),
    ),
    _runtime(
        "invalid_device", ("cudaErrorInvalidDevice", "CUDA_ERROR_INVALID_DEVICE"), 101,
        ("invalid device ordinal",), "device_ordinal", "fault", "high", 85,
        "Invalid device ordinal (device index >= number of visible GPUs)",
        "This rank selected a GPU index that does not exist in its view: LOCAL_RANK or "
        "--nproc_per_node is larger than the number of GPUs visible through CUDA_VISIBLE_DEVICES "
        "(or the launcher already narrowed it to one GPU). Make the per-node process count match "
        "the GPUs, and set the device from LOCAL_RANK:\n"
        "$ echo $CUDA_VISIBLE_DEVICES; nvidia-smi -L | wc -l\n"
        "$ torchrun --nproc_per_node=$(nvidia-smi -L | wc -l) ...",
        bare=True,
    ),
    _runtime(
        "device_not_licensed", ("cudaErrorDeviceNotLicensed", "CUDA_ERROR_DEVICE_NOT_LICENSED"), 102,
        ("device doesn't have valid Grid license",), "other", "fault", "high", 70,
        "vGPU without a valid NVIDIA GRID/vGPU license",
        "The virtual GPU has no valid license; CUDA is restricted until it gets one. Check the "
        "license client on the VM:\n"
        "$ nvidia-smi -q | grep -A2 -i license\n"
        "$ systemctl status nvidia-gridd",
        bare=True,
    ),
    _runtime(
        "software_validity", ("cudaErrorSoftwareValidityNotEstablished",), 103,
        ("integrity checks failed",), "other", "fault", "medium", 50,
        "CUDA software integrity checks failed", "The CUDA runtime's integrity checks failed "
        "(a modified or corrupted CUDA install, or a confidential-computing attestation issue). "
        "Reinstall the CUDA runtime / container image.",
    ),
    _runtime(
        "startup_failure", ("cudaErrorStartupFailure",), 127,
        ("startup failure in cuda runtime",), "other", "fault", "medium", 55,
        "CUDA runtime startup failure",
        "The CUDA runtime failed to start in this process (driver or library problem). Check the "
        "driver and the libraries loaded:\n$ nvidia-smi\n$ ldd $(python -c 'import torch,os;"
        "print(os.path.dirname(torch.__file__))')/lib/libtorch_cuda.so | grep -i cuda",
        bare=True,
    ),
    _runtime(
        "invalid_kernel_image", ("cudaErrorInvalidKernelImage", "cudaErrorInvalidSource",
                                 "CUDA_ERROR_INVALID_IMAGE", "CUDA_ERROR_INVALID_SOURCE"), 200,
        ("device kernel image is invalid",), "version_mismatch", "fault", "medium", 65,
        "CUDA kernel image is invalid for this device/driver",
        "A cubin/fatbin or PTX module could not be loaded (built for another architecture or "
        "by a newer toolkit than the driver, or corrupted).\n" + FIX_VERSION.split(":\n", 1)[1],
        bare=True, origin_note="cudaErrorInvalidSource (300) has the same text",
    ),
    _runtime(
        "device_uninitialized", ("cudaErrorDeviceUninitialized", "CUDA_ERROR_INVALID_CONTEXT"), 201,
        ("invalid device context",), "rank_crash", "fault", "low", 40,
        "CUDA invalid device context",
        "A CUDA call ran without a valid context (after a fork, after the context was destroyed "
        "by an earlier error, or from a thread that never set the device). Look for an earlier "
        "error on this rank; if none:\n" + FIX_API, wrappers=_API_SAMPLE_WRAPPERS,
    ),
    _runtime(
        "context_already_current", ("CUDA_ERROR_CONTEXT_ALREADY_CURRENT",), 202,
        (), "rank_crash", "fault", "low", 35,
        "CUDA context already current (deprecated driver error)", FIX_API,
    ),
    _api("map_buffer_object_failed", ("cudaErrorMapBufferObjectFailed", "CUDA_ERROR_MAP_FAILED"), 205,
         "mapping of buffer object failed", "CUDA mapping of buffer object failed",
         "A graphics/IPC buffer mapping failed; with NCCL this can be CUDA IPC or cuMem handles "
         "that cannot be mapped (container IPC namespace, P2P)."),
    _api("unmap_buffer_object_failed", ("cudaErrorUnmapBufferObjectFailed", "CUDA_ERROR_UNMAP_FAILED"),
         206, "unmapping of buffer object failed", "CUDA unmapping of buffer object failed"),
    _api("array_is_mapped", ("cudaErrorArrayIsMapped", "CUDA_ERROR_ARRAY_IS_MAPPED"), 207,
         "array is mapped", "CUDA array is mapped"),
    _api("already_mapped", ("cudaErrorAlreadyMapped", "CUDA_ERROR_ALREADY_MAPPED"), 208,
         "resource already mapped", "CUDA resource already mapped"),
    _runtime(
        "no_kernel_image", ("cudaErrorNoKernelImageForDevice", "CUDA_ERROR_NO_BINARY_FOR_GPU"), 209,
        ("no kernel image is available for execution on the device",),
        "version_mismatch", "fault", "high", 85,
        "No kernel image for this GPU (binary not built for its architecture)",
        "The framework, NCCL or an extension was compiled without this GPU's compute capability "
        "(e.g. a new GPU with an old wheel, or a custom kernel built with a narrow "
        "TORCH_CUDA_ARCH_LIST). Install a build that includes the GPU's architecture or rebuild "
        "for it:\n" + FIX_VERSION.split(":\n", 1)[1]
        + "\n$ TORCH_CUDA_ARCH_LIST=\"8.0;9.0\" pip install --no-build-isolation <extension>",
        bare=True,
        extra_samples=(
            "gpu-node-05: Test CUDA failure common.cu:1047 'no kernel image is available for "
            "execution on the device'",
        ),
    ),
    _api("already_acquired", ("cudaErrorAlreadyAcquired", "CUDA_ERROR_ALREADY_ACQUIRED"), 210,
         "resource already acquired", "CUDA resource already acquired"),
    _api("not_mapped", ("cudaErrorNotMapped", "CUDA_ERROR_NOT_MAPPED"), 211,
         "resource not mapped", "CUDA resource not mapped", priority=35),
    _api("not_mapped_as_array", ("cudaErrorNotMappedAsArray", "CUDA_ERROR_NOT_MAPPED_AS_ARRAY"), 212,
         "resource not mapped as array", "CUDA resource not mapped as array"),
    _api("not_mapped_as_pointer", ("cudaErrorNotMappedAsPointer", "CUDA_ERROR_NOT_MAPPED_AS_POINTER"),
         213, "resource not mapped as pointer", "CUDA resource not mapped as pointer"),
    _runtime(
        "ecc_uncorrectable", ("cudaErrorECCUncorrectable", "CUDA_ERROR_ECC_UNCORRECTABLE"), 214,
        ("uncorrectable ECC error encountered",), "hardware_fault", "fault", "high", 90,
        "Uncorrectable ECC error on the GPU",
        "The GPU memory of this rank hit an uncorrectable (double-bit) ECC error; it pairs with "
        "Xid 48/63/64/94/95 in the kernel log. " + FIX_HARDWARE,
        bare=True,
        extra_samples=(
            "[rank5]:[E1205 03:14:07.512000000 ProcessGroupNCCL.cpp:1595] [PG ID 0 PG GUID 0(default_pg) Rank 5] "
            "Process group watchdog thread terminated with exception: CUDA error: uncorrectable ECC error encountered",
            "  what():  CUDA error: uncorrectable ECC error encountered",
        ),
    ),
    _api("unsupported_limit", ("cudaErrorUnsupportedLimit", "CUDA_ERROR_UNSUPPORTED_LIMIT"), 215,
         "limit is not supported on this architecture", "CUDA limit not supported on this GPU"),
    _runtime(
        "device_already_in_use", ("cudaErrorDeviceAlreadyInUse", "CUDA_ERROR_CONTEXT_ALREADY_IN_USE"),
        216, ("exclusive-thread device already in use by a different thread",),
        "device_ordinal", "fault", "high", 75,
        "GPU in exclusive mode already used by another thread/process",
        "The GPU is in an exclusive compute mode and another thread or process already holds it "
        "(two ranks mapped to one GPU, or a leftover process).\n" + FIX_DEVICE.split(":\n", 1)[1],
        bare=True,
    ),
    _runtime(
        "peer_access_unsupported", ("cudaErrorPeerAccessUnsupported", "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED"),
        217, ("peer access is not supported between these two devices",),
        "p2p_unsupported", "fault", "high", 85,
        "GPU peer access not supported between two devices",
        FIX_P2P, bare=True,
        extra_samples=(
            "Failed: Cuda error /sgl-kernel/csrc/allreduce/custom_all_reduce.cuh:412 'peer access is not "
            "supported between these two devices'",
        ),
    ),
    _runtime(
        "invalid_ptx", ("cudaErrorInvalidPtx", "CUDA_ERROR_INVALID_PTX"), 218,
        ("a PTX JIT compilation failed",), "version_mismatch", "fault", "medium", 70,
        "PTX JIT compilation failed",
        "The driver could not JIT-compile the PTX shipped with the job (PTX newer than the "
        "driver's compiler, or a bad PTX).\n" + FIX_VERSION.split(":\n", 1)[1],
        bare=True,
    ),
    _api("invalid_graphics_context", ("cudaErrorInvalidGraphicsContext", "CUDA_ERROR_INVALID_GRAPHICS_CONTEXT"),
         219, "invalid OpenGL or DirectX context", "CUDA invalid graphics context"),
    _runtime(
        "nvlink_uncorrectable", ("cudaErrorNvlinkUncorrectable", "CUDA_ERROR_NVLINK_UNCORRECTABLE"), 220,
        ("uncorrectable NVLink error detected during the execution",),
        "hardware_fault", "fault", "high", 90,
        "Uncorrectable NVLink error",
        "An NVLink link of this GPU failed during the job (pairs with Xid 74 or NVSwitch SXids in "
        "the kernel log). Drain the node, check the links and the fabric, reset the GPUs:\n"
        "$ dmesg -T | grep -E 'Xid|SXid'\n"
        "$ nvidia-smi nvlink -s -i {device}; nvidia-smi nvlink -e -i {device}\n"
        "$ systemctl status nvidia-fabricmanager   # NVSwitch systems\n"
        "$ dcgmi diag -r 3",
        bare=True,
    ),
    _runtime(
        "jit_compiler_not_found", ("cudaErrorJitCompilerNotFound", "CUDA_ERROR_JIT_COMPILER_NOT_FOUND"),
        221, ("PTX JIT compiler library not found",), "version_mismatch", "fault", "high", 70,
        "PTX JIT compiler library (libnvidia-ptxjitcompiler) not found",
        "The driver's PTX JIT library is missing in this environment (container without the "
        "driver's compute libraries), and the job needs JIT because it has no cubin for this GPU:\n"
        "$ ldconfig -p | grep nvidia-ptxjitcompiler\n"
        "$ echo $NVIDIA_DRIVER_CAPABILITIES   # needs 'compute'",
        bare=True,
    ),
    _runtime(
        "unsupported_ptx_version", ("cudaErrorUnsupportedPtxVersion", "CUDA_ERROR_UNSUPPORTED_PTX_VERSION"),
        222, ("the provided PTX was compiled with an unsupported toolchain",),
        "version_mismatch", "fault", "high", 85,
        "PTX built by a toolkit newer than the driver",
        "Code in the job (NCCL, PyTorch, Triton or an extension) carries PTX from a CUDA toolkit "
        "newer than this node's driver supports. Upgrade the driver or use builds for the "
        "driver's CUDA version:\n" + FIX_VERSION.split(":\n", 1)[1],
        bare=True,
    ),
    _runtime(
        "jit_compilation_disabled", ("cudaErrorJitCompilationDisabled", "CUDA_ERROR_JIT_COMPILATION_DISABLED"),
        223, ("PTX JIT compilation was disabled",), "version_mismatch", "fault", "medium", 65,
        "PTX JIT compilation disabled",
        "JIT was disabled (CUDA_DISABLE_PTX_JIT=1 or policy) and the job has no cubin for this "
        "GPU.\n" + FIX_VERSION.split(":\n", 1)[1],
        bare=True,
    ),
    _api("unsupported_exec_affinity", ("cudaErrorUnsupportedExecAffinity", "CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY"),
         224, "the provided execution affinity is not supported",
         "CUDA execution affinity not supported"),
    _runtime(
        "unsupported_dev_side_sync", ("cudaErrorUnsupportedDevSideSync", "CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC"),
        225, ("the provided PTX contains unsupported call to cudaDeviceSynchronize",),
        "version_mismatch", "fault", "medium", 60,
        "PTX calls device-side cudaDeviceSynchronize (unsupported since CUDA 12)",
        "A kernel uses device-side cudaDeviceSynchronize, removed for compute_90+ / CUDA 12; "
        "rebuild the extension without it.",
        bare=True,
    ),
    _runtime(
        "contained", ("cudaErrorContained", "CUDA_ERROR_CONTAINED"), 226,
        ("Invalid access of peer GPU memory over nvlink or a hardware error",),
        "hardware_fault", "fault", "medium", 80,
        "Contained error: invalid peer access over NVLink or a hardware error",
        "The GPU contained an error caused by this process: either an invalid access to a peer "
        "GPU's memory over NVLink (an application or NCCL bug, e.g. a freed buffer) or a "
        "hardware error (then Xid 94/95/74 show in the kernel log). Restart the job; drain the "
        "node if Xids are present or it recurs on the same GPU:\n"
        "$ dmesg -T | grep -E 'NVRM: Xid'\n"
        "$ nvidia-smi -q -d ECC,ROW_REMAPPER -i {device}",
        bare=True,
    ),
    _api("file_not_found", ("cudaErrorFileNotFound", "CUDA_ERROR_FILE_NOT_FOUND"), 301,
         "file not found", "CUDA module file not found", priority=30, confidence="low"),
    _api("shared_object_symbol_not_found",
         ("cudaErrorSharedObjectSymbolNotFound", "CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND"), 302,
         "shared object symbol not found", "CUDA shared object symbol not found"),
    _api("shared_object_init_failed",
         ("cudaErrorSharedObjectInitFailed", "CUDA_ERROR_SHARED_OBJECT_INIT_FAILED"), 303,
         "shared object initialization failed", "CUDA shared object initialization failed"),
    _runtime(
        "operating_system", ("cudaErrorOperatingSystem", "CUDA_ERROR_OPERATING_SYSTEM"), 304,
        ("OS call failed or operation not supported on this OS",), "other", "fault", "medium", 60,
        "CUDA: an OS call failed (often IPC / shared memory / cuMem handle export in containers)",
        "CUDA asked the OS for something it refused. In NCCL jobs this is usually CUDA IPC or "
        "cuMem file-descriptor export between processes in different containers / PID or IPC "
        "namespaces, or a locked-memory limit. Check the container flags and limits, or try "
        "without cuMem:\n"
        "$ ulimit -l   # should be unlimited\n"
        "$ docker run --ipc=host --pid=host --cap-add SYS_PTRACE ...\n"
        "$ NCCL_CUMEM_ENABLE=0 <your launch command>",
        bare=True,
    ),
    _runtime(
        "invalid_resource_handle", ("cudaErrorInvalidResourceHandle", "CUDA_ERROR_INVALID_HANDLE"), 400,
        ("invalid resource handle",), "rank_crash", "fault", "medium", 50,
        "CUDA invalid resource handle (stream/event/graph used on the wrong device or after free)",
        "A stream, event or module handle was invalid: used after destruction, on another device "
        "than it was created on, or after an earlier error tore down the context (look for an "
        "earlier error on this rank first).\n" + FIX_API,
    ),
    _api("illegal_state", ("cudaErrorIllegalState", "CUDA_ERROR_ILLEGAL_STATE"), 401,
         "the operation cannot be performed in the present state", "CUDA illegal state"),
    _api("lossy_query", ("cudaErrorLossyQuery", "CUDA_ERROR_LOSSY_QUERY"), 402,
         "attempted introspection would be semantically lossy", "CUDA lossy query", priority=30,
         confidence="low"),
    _api("symbol_not_found", ("cudaErrorSymbolNotFound", "CUDA_ERROR_NOT_FOUND"), 500,
         "named symbol not found", "CUDA named symbol not found",
         "A kernel or symbol looked up by name is not in the loaded module (a build mismatch "
         "between a library and its kernels is possible)."),
    _runtime(
        "not_ready", ("cudaErrorNotReady", "CUDA_ERROR_NOT_READY"), 600,
        ("device not ready",), None, "harmless", "low", 15,
        "CUDA 'not ready' (an asynchronous query whose work is still running)",
        "cudaStreamQuery / cudaEventQuery return this while work is still running; it is not an "
        "error on its own.",
    ),
    _runtime(
        "illegal_address", ("cudaErrorIllegalAddress", "CUDA_ERROR_ILLEGAL_ADDRESS"), 700,
        ("an illegal memory access was encountered",), "rank_crash", "fault", "medium", 78,
        "CUDA illegal memory access (a kernel read or wrote outside valid memory)",
        FIX_KERNEL, bare=True,
        extra_samples=(
            "[rank3]:[E226 13:18:21.063621914 ProcessGroupNCCL.cpp:1595] [PG ID 2 PG GUID 3 Rank 3] "
            "Process group watchdog thread terminated with exception: CUDA error: an illegal memory "
            "access was encountered",
        ),
    ),
    _runtime(
        "launch_out_of_resources", ("cudaErrorLaunchOutOfResources", "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"),
        701, ("too many resources requested for launch",), "rank_crash", "fault", "medium", 65,
        "Kernel launch asked for too many registers/threads/shared memory",
        "A kernel asked for more registers, threads or shared memory per block than this GPU "
        "has: a kernel tuned for another GPU, or built for another architecture (then it is a "
        "version mismatch).\n" + FIX_API,
        bare=True,
    ),
    _runtime(
        "launch_timeout", ("cudaErrorLaunchTimeout", "CUDA_ERROR_LAUNCH_TIMEOUT"), 702,
        ("the launch timed out and was terminated",), "rank_crash", "fault", "medium", 65,
        "Kernel killed by the display watchdog (launch timed out)",
        "A kernel ran longer than the display watchdog allows (a GPU that also drives a display, "
        "or a hung kernel). Use a GPU without a display / disable the watchdog, or find the "
        "kernel that hangs:\n$ nvidia-smi -q | grep -i -E 'display (mode|active)'\n" + _SYNC_RERUN,
        bare=True,
    ),
    _api("launch_incompatible_texturing",
         ("cudaErrorLaunchIncompatibleTexturing", "CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING"), 703,
         "launch uses incompatible texturing mode", "CUDA launch uses incompatible texturing mode"),
    _runtime(
        "peer_access_already_enabled",
        ("cudaErrorPeerAccessAlreadyEnabled", "CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED"), 704,
        ("peer access is already enabled",), None, "harmless", "low", 20,
        "GPU peer access already enabled (benign)",
        "cudaDeviceEnablePeerAccess was called twice for the same pair; NCCL and most frameworks "
        "ignore it. Not a cause on its own.",
    ),
    _runtime(
        "peer_access_not_enabled",
        ("cudaErrorPeerAccessNotEnabled", "CUDA_ERROR_PEER_ACCESS_NOT_ENABLED"), 705,
        ("peer access has not been enabled",), "p2p_unsupported", "fault", "medium", 65,
        "GPU peer access not enabled between two devices", FIX_P2P, bare=True,
    ),
    _api("set_on_active_process", ("cudaErrorSetOnActiveProcess", "CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE"),
         708, "cannot set while device is active in this process",
         "CUDA device flags set while the device is already active"),
    _runtime(
        "context_is_destroyed", ("cudaErrorContextIsDestroyed", "CUDA_ERROR_CONTEXT_IS_DESTROYED"), 709,
        ("context is destroyed",), "rank_crash", "symptom", "low", 35,
        "CUDA context already destroyed",
        "A CUDA call used a context that was already destroyed, usually during teardown after "
        "an earlier error on this rank; look for that error first.",
    ),
    _runtime(
        "assert", ("cudaErrorAssert", "CUDA_ERROR_ASSERT"), 710,
        ("device-side assert triggered",), "rank_crash", "fault", "high", 80,
        "Device-side assert triggered (an index out of range in a kernel)",
        "A kernel on this rank hit an assert, usually an index out of range (labels >= number "
        "of classes, embedding index >= vocabulary size, bad gather/scatter indices). It is the "
        "application's data or code. Rerun synchronously to see which op and which values:\n"
        + _SYNC_RERUN + "\n$ CUDA_LAUNCH_BLOCKING=1 python train.py 2>&1 | grep -m5 Assertion",
        bare=True,
        extra_samples=("RuntimeError: cuda runtime error (59) : device-side assert triggered at "
                       "/opt/conda/conda-bld/pytorch_1556653099582/work/aten/src/THC/generated/THCTensorMathPointwise.cu:207",),
    ),
    _runtime(
        "too_many_peers", ("cudaErrorTooManyPeers", "CUDA_ERROR_TOO_MANY_PEERS"), 711,
        ("peer mapping resources exhausted",), "p2p_unsupported", "fault", "medium", 65,
        "GPU peer mapping resources exhausted (too many P2P peers)",
        "A GPU can map a limited number of peers (8 on PCIe systems); more GPUs than that in one "
        "process/node group exhaust it. Limit P2P to fewer peers or disable it:\n"
        "$ nvidia-smi topo -m\n$ NCCL_P2P_DISABLE=1 <your launch command>",
        bare=True,
    ),
    _api("host_memory_already_registered",
         ("cudaErrorHostMemoryAlreadyRegistered", "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED"), 712,
         "part or all of the requested memory range is already mapped",
         "Host memory range already registered with CUDA"),
    _api("host_memory_not_registered",
         ("cudaErrorHostMemoryNotRegistered", "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED"), 713,
         "pointer does not correspond to a registered memory region",
         "Host pointer not registered with CUDA"),
    _runtime(
        "hardware_stack_error", ("cudaErrorHardwareStackError", "CUDA_ERROR_HARDWARE_STACK_ERROR"), 714,
        ("hardware stack error",), "rank_crash", "fault", "medium", 70,
        "CUDA hardware stack error (kernel stack overflow or corruption)",
        "Despite its name this is usually a kernel bug: call-stack overflow (deep recursion, "
        "large local arrays) or corrupted stack in device code. Hardware only if it recurs on one "
        "GPU across jobs. " + FIX_KERNEL,
    ),
    _runtime(
        "illegal_instruction", ("cudaErrorIllegalInstruction", "CUDA_ERROR_ILLEGAL_INSTRUCTION"), 715,
        ("an illegal instruction was encountered",), "rank_crash", "fault", "medium", 75,
        "CUDA illegal instruction in a kernel", FIX_KERNEL, bare=True,
    ),
    _runtime(
        "misaligned_address", ("cudaErrorMisalignedAddress", "CUDA_ERROR_MISALIGNED_ADDRESS"), 716,
        ("misaligned address",), "rank_crash", "fault", "medium", 75,
        "CUDA misaligned address in a kernel", FIX_KERNEL,
    ),
    _runtime(
        "invalid_address_space", ("cudaErrorInvalidAddressSpace", "CUDA_ERROR_INVALID_ADDRESS_SPACE"), 717,
        ("operation not supported on global/shared address space",), "rank_crash", "fault",
        "medium", 70, "CUDA invalid address space in a kernel", FIX_KERNEL, bare=True,
    ),
    _runtime(
        "invalid_pc", ("cudaErrorInvalidPc", "CUDA_ERROR_INVALID_PC"), 718,
        ("invalid program counter",), "rank_crash", "fault", "medium", 70,
        "CUDA invalid program counter in a kernel", FIX_KERNEL,
    ),
    _runtime(
        "launch_failure", ("cudaErrorLaunchFailure", "CUDA_ERROR_LAUNCH_FAILED"), 719,
        ("unspecified launch failure",), "rank_crash", "fault", "medium", 70,
        "Unspecified launch failure (a kernel crashed; application or hardware)",
        "A kernel of this rank crashed without a more precise reason. It is the application as "
        "often as the GPU: if the kernel log shows Xid 13/31/43 only, suspect the code; with "
        "Xid 48/74/79/94/95 or repeated failures on one GPU, it is the hardware. " + FIX_KERNEL,
        bare=True,
    ),
    _api("cooperative_launch_too_large",
         ("cudaErrorCooperativeLaunchTooLarge", "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE"), 720,
         "too many blocks in cooperative launch", "CUDA cooperative launch too large"),
    _api("tensor_memory_leak", ("cudaErrorTensorMemoryLeak", "CUDA_ERROR_TENSOR_MEMORY_LEAK"), 721,
         "tensor memory not completely freed", "CUDA tensor memory not completely freed (Blackwell TMEM)"),
    _runtime(
        "not_permitted", ("cudaErrorNotPermitted", "CUDA_ERROR_NOT_PERMITTED"), 800,
        ("operation not permitted",), "other", "fault", "low", 35,
        "CUDA operation not permitted",
        "CUDA refused an operation in this context (for example a call forbidden during graph "
        "capture, on a MIG instance or under MPS, or a permission the container lacks). Read the "
        "call named next to it.\n" + FIX_API,
    ),
    _runtime(
        "not_supported", ("cudaErrorNotSupported", "CUDA_ERROR_NOT_SUPPORTED"), 801,
        ("operation not supported",), "other", "fault", "low", 35,
        "CUDA operation not supported on this device/platform",
        "The GPU, driver or platform does not support the requested operation (e.g. cuMem / "
        "multicast / fabric handles for NVLS on a system without them, managed memory in a VM). "
        "In NCCL jobs, try disabling the feature that needs it:\n"
        "$ NCCL_NVLS_ENABLE=0 <your launch command>\n$ NCCL_CUMEM_ENABLE=0 <your launch command>",
    ),
    _runtime(
        "system_not_ready", ("cudaErrorSystemNotReady", "CUDA_ERROR_SYSTEM_NOT_READY"), 802,
        ("system not yet initialized",), "hardware_fault", "fault", "medium", 85,
        "CUDA system not yet initialized (NVSwitch fabric not ready: Fabric Manager not running?)",
        "On NVSwitch systems (HGX/DGX A100/H100/H200/B200) CUDA refuses to start until the "
        "NVLink fabric is initialised by nvidia-fabricmanager; this error means it is not "
        "running, failed, or its version differs from the driver's. Check and restart it:\n"
        "$ systemctl status nvidia-fabricmanager\n"
        "$ journalctl -u nvidia-fabricmanager -n 100\n"
        "$ nvidia-smi -q | grep -i -A3 fabric\n"
        "$ systemctl restart nvidia-fabricmanager   # versions of FM and driver must match",
        bare=True,
    ),
    _runtime(
        "system_driver_mismatch", ("cudaErrorSystemDriverMismatch", "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH"),
        803, ("system has unsupported display driver / cuda driver combination",),
        "version_mismatch", "fault", "high", 85,
        "Kernel driver and user-space CUDA driver versions differ",
        "The user-space libcuda (often from the CUDA forward-compatibility package or a container) "
        "does not match the loaded kernel module. Make them the same version, or remove the "
        "compat package from the library path:\n"
        "$ cat /proc/driver/nvidia/version\n"
        "$ ldconfig -p | grep libcuda.so; ls -l /usr/local/cuda/compat/\n"
        "$ nvidia-smi",
        bare=True,
    ),
    _runtime(
        "compat_not_supported", ("cudaErrorCompatNotSupportedOnDevice", "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE"),
        804, ("forward compatibility was attempted on non supported HW",),
        "version_mismatch", "fault", "high", 85,
        "CUDA forward compatibility used on a GPU that does not support it",
        "The container or environment uses the CUDA forward-compatibility libcuda, which only "
        "works on datacenter GPUs; on this GPU the driver must itself be new enough. Upgrade the "
        "host driver or use an image built for its CUDA version:\n"
        "$ nvidia-smi   # driver and its CUDA version\n"
        "$ ls /usr/local/cuda/compat/; echo $LD_LIBRARY_PATH",
        bare=True,
    ),
    _runtime(
        "mps_connection_failed", ("cudaErrorMpsConnectionFailed", "CUDA_ERROR_MPS_CONNECTION_FAILED"),
        805, ("MPS client failed to connect to the MPS control daemon or the MPS server",),
        "other", "fault", "high", 70, "CUDA MPS connection failed", FIX_MPS, bare=True,
    ),
    _runtime(
        "mps_rpc_failure", ("cudaErrorMpsRpcFailure", "CUDA_ERROR_MPS_RPC_FAILURE"), 806,
        ("the remote procedural call between the MPS server and the MPS client failed",),
        "other", "fault", "high", 70, "CUDA MPS RPC failure", FIX_MPS, bare=True,
    ),
    _runtime(
        "mps_server_not_ready", ("cudaErrorMpsServerNotReady", "CUDA_ERROR_MPS_SERVER_NOT_READY"), 807,
        ("MPS server is not ready to accept new MPS client requests",),
        "other", "fault", "high", 70, "CUDA MPS server not ready", FIX_MPS, bare=True,
    ),
    _runtime(
        "mps_max_clients", ("cudaErrorMpsMaxClientsReached", "CUDA_ERROR_MPS_MAX_CLIENTS_REACHED"), 808,
        ("the hardware resources required to create MPS client have been exhausted",),
        "other", "fault", "high", 70, "CUDA MPS: maximum number of clients reached", FIX_MPS, bare=True,
    ),
    _runtime(
        "mps_max_connections",
        ("cudaErrorMpsMaxConnectionsReached", "CUDA_ERROR_MPS_MAX_CONNECTIONS_REACHED"), 809,
        ("the hardware resources required to support device connections have been exhausted",),
        "other", "fault", "high", 70, "CUDA MPS: maximum device connections reached", FIX_MPS, bare=True,
    ),
    _runtime(
        "mps_client_terminated", ("cudaErrorMpsClientTerminated", "CUDA_ERROR_MPS_CLIENT_TERMINATED"), 810,
        ("the MPS client has been terminated by the server",),
        "other", "fault", "medium", 65,
        "CUDA MPS client terminated by the server",
        "The MPS server terminated this client, usually because another client of the same MPS "
        "server hit a fatal GPU error (look at the other processes on this GPU).\n" + FIX_MPS,
        bare=True,
    ),
    _runtime(
        "cdp_not_supported", ("cudaErrorCdpNotSupported", "CUDA_ERROR_CDP_NOT_SUPPORTED"), 811,
        ("is using CUDA Dynamic Parallelism, but the current configuration, like MPS, does not support it",),
        "other", "fault", "medium", 55, "CUDA Dynamic Parallelism not supported in this configuration",
        "A kernel uses CUDA Dynamic Parallelism, which MPS (or this configuration) does not "
        "support. Run without MPS or without that kernel.",
        bare=True,
    ),
    _runtime(
        "cdp_version_mismatch", ("cudaErrorCdpVersionMismatch", "CUDA_ERROR_CDP_VERSION_MISMATCH"), 812,
        ("unsupported interaction between different versions of CUDA Dynamic Parallelism",),
        "version_mismatch", "fault", "medium", 55, "CUDA Dynamic Parallelism version mismatch",
        "Modules built with different CDP versions are mixed; rebuild them with one toolkit.",
        bare=True,
    ),
    _runtime(
        "stream_capture", (
            "cudaErrorStreamCaptureUnsupported", "cudaErrorStreamCaptureInvalidated",
            "cudaErrorStreamCaptureMerge", "cudaErrorStreamCaptureUnmatched",
            "cudaErrorStreamCaptureUnjoined", "cudaErrorStreamCaptureIsolation",
            "cudaErrorStreamCaptureImplicit", "cudaErrorCapturedEvent",
            "cudaErrorStreamCaptureWrongThread",
            "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED", "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED",
            "CUDA_ERROR_STREAM_CAPTURE_MERGE", "CUDA_ERROR_STREAM_CAPTURE_UNMATCHED",
            "CUDA_ERROR_STREAM_CAPTURE_UNJOINED", "CUDA_ERROR_STREAM_CAPTURE_ISOLATION",
            "CUDA_ERROR_STREAM_CAPTURE_IMPLICIT", "CUDA_ERROR_CAPTURED_EVENT",
            "CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD"), 900,
        ("operation not permitted when stream is capturing",
         "operation failed due to a previous error during capture",
         "operation would result in a merge of separate capture sequences",
         "capture was not ended in the same stream as it began",
         "capturing stream has unjoined work",
         "dependency created on uncaptured work in another stream",
         "operation would make the legacy stream depend on a capturing blocking stream",
         "operation not permitted on an event last recorded in a capturing stream",
         "attempt to terminate a thread-local capture sequence from another thread"),
        "rank_crash", "fault", "medium", 60,
        "CUDA graph / stream capture violated", FIX_GRAPH,
        origin_note="the stream-capture family 900-908",
    ),
    _runtime(
        "timeout", ("cudaErrorTimeout", "CUDA_ERROR_TIMEOUT"), 909,
        ("wait operation timed out",), "collective_timeout_straggler", "symptom", "low", 40,
        "CUDA wait operation timed out",
        "A CUDA wait with a timeout expired (a stream or event the rank waited on never "
        "completed: often a collective stuck because a peer never joined). Look for the rank "
        "that stopped first.",
    ),
    _api("graph_exec_update_failure",
         ("cudaErrorGraphExecUpdateFailure", "CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE"), 910,
         "the graph update was not performed because it included changes which violated constraints specific to instantiated graph update",
         "CUDA graph exec update failure"),
    _runtime(
        "external_device", ("cudaErrorExternalDevice", "CUDA_ERROR_EXTERNAL_DEVICE"), 911,
        ("an async error has occured in external entity outside of CUDA",),
        "other", "fault", "medium", 55,
        "Asynchronous error in an external device (outside CUDA)",
        "An external entity that shares work with the GPU (e.g. a NIC doing GPUDirect / a "
        "third-party device) reported an asynchronous error. Check the NIC and the kernel log:\n"
        "$ dmesg -T | grep -i -E 'mlx5|nvidia|peermem'",
        bare=True,
    ),
    _api("invalid_cluster_size", ("cudaErrorInvalidClusterSize", "CUDA_ERROR_INVALID_CLUSTER_SIZE"), 912,
         "a kernel launch error has occurred due to cluster misconfiguration",
         "CUDA kernel launch with invalid cluster size"),
    _api("function_not_loaded", ("cudaErrorFunctionNotLoaded", "CUDA_ERROR_FUNCTION_NOT_LOADED"), 913,
         "the function handle is not loaded when calling an API that requires a loaded function",
         "CUDA function handle not loaded"),
    _api("invalid_resource_type", ("cudaErrorInvalidResourceType", "CUDA_ERROR_INVALID_RESOURCE_TYPE"), 914,
         "one or more resources passed in are not valid resource types for the operation",
         "CUDA invalid resource type"),
    _api("invalid_resource_configuration",
         ("cudaErrorInvalidResourceConfiguration", "CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION"), 915,
         "one or more resources are insufficient or non-applicable for the operation",
         "CUDA invalid resource configuration"),
    _runtime(
        "key_rotation", ("CUDA_ERROR_KEY_ROTATION",), 916,
        (), "other", "fault", "low", 40,
        "CUDA confidential-computing key rotation error",
        "A confidential-computing key rotation failed (CC mode GPUs); restart the job and check "
        "the CC configuration:\n$ nvidia-smi conf-compute -q",
    ),
    _runtime(
        "unknown", ("cudaErrorUnknown", "CUDA_ERROR_UNKNOWN"), 999,
        ("unknown error",), "hardware_fault", "fault", "low", 30,
        "CUDA unknown error (often a GPU that was lost or reset)",
        "CUDA could not say more. After a job ran fine for a while this is most often a GPU that "
        "fell off the bus or was reset (Xid 79/119/154 in the kernel log); at start-up it can "
        "be a driver/container problem. Check the node:\n"
        "$ dmesg -T | grep -E 'NVRM: (Xid|GPU)'\n"
        "$ nvidia-smi   # 'GPU is lost' or 'Unable to determine the device handle' = hardware\n"
        "$ nvidia-smi -q -d ECC -i {device}",
    ),
    _runtime(
        "api_failure_base", ("cudaErrorApiFailureBase",), 10000,
        ("api failure base",), "rank_crash", "fault", "low", 20,
        "CUDA API failure (internal base code)", FIX_API,
    ),
)


def _status(
    id_: str,
    names: tuple[str, ...],
    cause: str | None,
    role: str,
    confidence: str,
    priority: int,
    title: str,
    fix: str,
    origin: str,
    samples: tuple[str, ...],
) -> Signature:
    """A library status code (cuBLAS / cuDNN), matched by its name. Names are matched as
    prefixes: a name written with a trailing `_` stands for its family (cuDNN 9 sub-codes such
    as CUDNN_STATUS_BAD_PARAM_NULL_POINTER); the others are the prefix of no other code."""
    patterns = tuple(n.rstrip("_") for n in names)
    return Signature(id=id_, patterns=patterns, cause=cause, role=role, confidence=confidence,
                     title=title, fix=fix, origin=origin, samples=samples, priority=priority)


_CUBLAS_ORIGIN = ("cublasStatus_t in cublas_api.h (CUDA 9-13); printed by PyTorch "
                  "aten/src/ATen/cuda/CUDABlas.cpp TORCH_CUDABLAS_CHECK as 'CUDA error: <name> "
                  "when calling `cublas...`'")
_CUDNN_ORIGIN = ("cudnnStatus_t in cudnn.h (cuDNN 7-8) / cudnn_graph.h (cuDNN 9, with sub-codes); "
                 "printed by PyTorch as 'cuDNN error: <name>' (names from memory of the headers, "
                 "not re-read)")

LIBRARIES: tuple[Signature, ...] = (
    _status(
        "cuda.cublas.alloc_failed", ("CUBLAS_STATUS_ALLOC_FAILED",), "oom", "fault", "high", 75,
        "cuBLAS could not allocate memory (GPU out of memory)",
        "cuBLAS failed to allocate its workspace: the GPU of this rank is full. Reduce memory "
        "use (batch, sequence length, sharding) or leave headroom for library workspaces:\n"
        "$ nvidia-smi --query-compute-apps=pid,used_memory --format=csv -i {device}\n"
        "$ CUBLAS_WORKSPACE_CONFIG=:4096:8 <your launch command>",
        _CUBLAS_ORIGIN,
        ("RuntimeError: CUDA error: CUBLAS_STATUS_ALLOC_FAILED when calling `cublasCreate(handle)`",),
    ),
    _status(
        "cuda.cublas.not_initialized", ("CUBLAS_STATUS_NOT_INITIALIZED",), "oom", "fault", "medium", 60,
        "cuBLAS handle creation failed (usually no GPU memory left for it)",
        "cublasCreate failed. In practice this is almost always the GPU being out of memory when "
        "the first matmul creates the cuBLAS handle (another process on the GPU, two ranks on "
        "one GPU, or the model filling memory); less often a broken CUDA install.\n"
        "$ nvidia-smi --query-compute-apps=pid,used_memory --format=csv -i {device}\n"
        "$ python -c 'import torch; a=torch.ones(8,8,device=\"cuda\"); print(a@a)'",
        _CUBLAS_ORIGIN,
        ("[rank2]: RuntimeError: CUDA error: CUBLAS_STATUS_NOT_INITIALIZED when calling `cublasCreate(handle)`",),
    ),
    _status(
        "cuda.cublas.execution_failed", ("CUBLAS_STATUS_EXECUTION_FAILED",), "rank_crash", "fault",
        "medium", 65,
        "cuBLAS kernel failed to execute",
        "A cuBLAS kernel failed on the GPU. Common causes: wrong shapes/strides or dtypes reaching "
        "the GEMM (application), a cuBLAS that does not support this GPU (version mismatch), or a "
        "GPU fault (look for Xids).\n" + FIX_KERNEL,
        _CUBLAS_ORIGIN,
        ("RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasGemmEx( handle, opa, opb, m, n, k, &falpha, a, CUDA_R_16F, lda, b, CUDA_R_16F, ldb, &fbeta, c, CUDA_R_16F, ldc, CUDA_R_32F, CUBLAS_GEMM_DFALT_TENSOR_OP)`",),
    ),
    _status(
        "cuda.cublas.internal_error", ("CUBLAS_STATUS_INTERNAL_ERROR",), "rank_crash", "fault",
        "low", 45, "cuBLAS internal error",
        "cuBLAS failed internally (often an earlier asynchronous CUDA error, or running out of "
        "memory for a workspace). Look for an earlier error on this rank.\n" + FIX_API,
        _CUBLAS_ORIGIN,
        ("RuntimeError: CUDA error: CUBLAS_STATUS_INTERNAL_ERROR when calling `cublasSgemm( handle, opa, opb, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc)`",),
    ),
    _status(
        "cuda.cublas.invalid_value", ("CUBLAS_STATUS_INVALID_VALUE",), "rank_crash", "fault",
        "medium", 50, "cuBLAS invalid value (bad GEMM arguments)",
        "A GEMM got invalid sizes, strides or leading dimensions (often an empty or oversized "
        "tensor, or int overflow of a dimension).\n" + FIX_API,
        _CUBLAS_ORIGIN,
        ("RuntimeError: CUDA error: CUBLAS_STATUS_INVALID_VALUE when calling `cublasGemmStridedBatchedExFix( handle, opa, opb, m, n, k, (void*)&falpha, a, CUDA_R_16BF, lda, stridea, b, CUDA_R_16BF, ldb, strideb, (void*)&fbeta, c, CUDA_R_16BF, ldc, stridec, num_batches, CUDA_R_32F, CUBLAS_GEMM_DEFAULT_TENSOR_OP)`",),
    ),
    _status(
        "cuda.cublas.arch_mismatch", ("CUBLAS_STATUS_ARCH_MISMATCH",), "version_mismatch", "fault",
        "high", 70, "cuBLAS feature not supported by this GPU architecture",
        "The requested cuBLAS path (a dtype such as bf16/fp8, or tensor-op math) needs a newer GPU "
        "architecture than this one.\n" + FIX_VERSION.split(":\n", 1)[1],
        _CUBLAS_ORIGIN,
        ("RuntimeError: CUDA error: CUBLAS_STATUS_ARCH_MISMATCH when calling `cublasGemmEx(...)`",),
    ),
    _status(
        "cuda.cublas.not_supported", ("CUBLAS_STATUS_NOT_SUPPORTED",), "version_mismatch", "fault",
        "medium", 55, "cuBLAS operation not supported (GPU / cuBLAS version)",
        "This cuBLAS version or GPU does not support the requested operation or dtype; the "
        "framework's cuBLAS may be too old for the GPU, or the GPU too old for the dtype.\n"
        + FIX_VERSION.split(":\n", 1)[1],
        _CUBLAS_ORIGIN,
        ("RuntimeError: CUDA error: CUBLAS_STATUS_NOT_SUPPORTED when calling `cublasLtMatmul( ltHandle, computeDesc.descriptor(), &alpha_val, mat1_ptr, Adesc.descriptor(), mat2_ptr, Bdesc.descriptor(), &beta_val, result_ptr, Cdesc.descriptor(), result_ptr, Cdesc.descriptor(), &heuristicResult.algo, workspace.mutable_get(), workspaceSize, at::cuda::getCurrentCUDAStream())`",),
    ),
    _status(
        "cuda.cublas.mapping_error", ("CUBLAS_STATUS_MAPPING_ERROR",), "rank_crash", "fault", "low",
        40, "cuBLAS mapping error (texture/memory mapping failed)", FIX_API, _CUBLAS_ORIGIN,
        ("cublas error: CUBLAS_STATUS_MAPPING_ERROR",),
    ),
    _status(
        "cuda.cublas.license_error", ("CUBLAS_STATUS_LICENSE_ERROR",), "other", "fault", "medium",
        45, "cuBLAS license error", "A licensed cuBLAS feature was used without a license.",
        _CUBLAS_ORIGIN, ("CUBLAS_STATUS_LICENSE_ERROR",),
    ),
    _status(
        "cuda.cudnn.not_initialized", ("CUDNN_STATUS_NOT_INITIALIZED",), "other", "fault", "medium",
        60, "cuDNN failed to initialise (GPU memory full, or cuDNN/CUDA/driver mismatch)",
        "cudnnCreate failed. Usually the GPU had no memory left for the cuDNN handle, or the "
        "cuDNN library does not match the CUDA runtime / driver (several cuDNN copies on the "
        "library path). Check memory and which libcudnn is loaded:\n"
        "$ nvidia-smi --query-compute-apps=pid,used_memory --format=csv -i {device}\n"
        "$ python -c 'import torch; print(torch.backends.cudnn.version(), torch.version.cuda)'\n"
        "$ ldconfig -p | grep libcudnn",
        _CUDNN_ORIGIN,
        ("RuntimeError: cuDNN error: CUDNN_STATUS_NOT_INITIALIZED",),
    ),
    _status(
        "cuda.cudnn.alloc_failed", ("CUDNN_STATUS_ALLOC_FAILED",), "oom", "fault", "high", 75,
        "cuDNN could not allocate memory (GPU out of memory)",
        "cuDNN failed to allocate its workspace: the GPU is full. Reduce batch/sequence size or "
        "disable cudnn.benchmark (large workspaces):\n"
        "$ nvidia-smi --query-compute-apps=pid,used_memory --format=csv -i {device}",
        _CUDNN_ORIGIN,
        ("[rank0]: RuntimeError: cuDNN error: CUDNN_STATUS_ALLOC_FAILED",),
    ),
    _status(
        "cuda.cudnn.bad_param", ("CUDNN_STATUS_BAD_PARAM_",), "rank_crash", "fault", "medium", 50,
        "cuDNN bad parameter (shape/dtype/layout not accepted)",
        "cuDNN rejected the tensor shapes, dtypes or layouts of an op (an application bug or an "
        "unsupported combination; try cudnn.enabled=False to confirm).\n" + FIX_API,
        _CUDNN_ORIGIN,
        ("RuntimeError: cuDNN error: CUDNN_STATUS_BAD_PARAM",
         "cudnn_frontend error: CUDNN_STATUS_BAD_PARAM_NULL_POINTER"),
    ),
    _status(
        "cuda.cudnn.internal_error", ("CUDNN_STATUS_INTERNAL_ERROR_",), "rank_crash", "fault", "low",
        45, "cuDNN internal error",
        "cuDNN failed internally: often out of memory for a workspace, an earlier asynchronous "
        "CUDA error, or a cuDNN/driver mismatch. Look for an earlier error on this rank, then "
        "retry with cudnn.benchmark=False.\n" + FIX_API,
        _CUDNN_ORIGIN,
        ("RuntimeError: cuDNN error: CUDNN_STATUS_INTERNAL_ERROR",
         "E cudnn error: CUDNN_STATUS_INTERNAL_ERROR_COMPILATION_FAILED"),
    ),
    _status(
        "cuda.cudnn.execution_failed", ("CUDNN_STATUS_EXECUTION_FAILED_",), "rank_crash", "fault",
        "medium", 65, "cuDNN kernel failed to execute",
        "A cuDNN kernel failed on the GPU (a bad input, a cuDNN bug, or a GPU fault: look for "
        "Xids).\n" + FIX_KERNEL,
        _CUDNN_ORIGIN,
        ("RuntimeError: cuDNN error: CUDNN_STATUS_EXECUTION_FAILED",
         "cuDNN error: CUDNN_STATUS_EXECUTION_FAILED_CUDART"),
    ),
    _status(
        "cuda.cudnn.arch_mismatch", ("CUDNN_STATUS_ARCH_MISMATCH",), "version_mismatch", "fault",
        "high", 70, "cuDNN does not support this GPU architecture",
        "The cuDNN build does not support this GPU (too old a GPU for this cuDNN, or too new a "
        "GPU for an old cuDNN).\n" + FIX_VERSION.split(":\n", 1)[1],
        _CUDNN_ORIGIN, ("RuntimeError: cuDNN error: CUDNN_STATUS_ARCH_MISMATCH",),
    ),
    _status(
        "cuda.cudnn.version_mismatch",
        ("CUDNN_STATUS_VERSION_MISMATCH", "CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH",
         "CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED", "CUDNN_STATUS_RUNTIME_PREREQUISITE_MISSING"),
        "version_mismatch", "fault", "high", 75,
        "cuDNN libraries of different versions (or missing prerequisites) loaded",
        "cuDNN found parts of itself, or of CUDA, at other versions (several cuDNN copies: the "
        "pip wheel and a system install, or LD_LIBRARY_PATH pointing to an old one):\n"
        "$ ldconfig -p | grep -E 'libcudnn|libcublas'\n"
        "$ pip list 2>/dev/null | grep -i -E 'cudnn|cublas|torch'\n"
        "$ echo $LD_LIBRARY_PATH",
        _CUDNN_ORIGIN,
        ("RuntimeError: cuDNN error: CUDNN_STATUS_VERSION_MISMATCH",
         "Could not load library libcudnn_ops.so.9: CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED"),
    ),
    _status(
        "cuda.cudnn.not_supported", ("CUDNN_STATUS_NOT_SUPPORTED_",), "other", "fault", "low", 55,
        "cuDNN operation not supported for these inputs",
        "cuDNN has no kernel for this combination of shapes, dtypes, layout and GPU. Try without "
        "cuDNN (torch.backends.cudnn.enabled=False) or another dtype to confirm.",
        _CUDNN_ORIGIN,
        ("RuntimeError: cuDNN error: CUDNN_STATUS_NOT_SUPPORTED. This error may appear if you "
         "passed in a non-contiguous input.",),
    ),
    _status(
        "cuda.cudnn.mapping_error", ("CUDNN_STATUS_MAPPING_ERROR", "CUDNN_STATUS_INVALID_VALUE"),
        "rank_crash", "fault", "low", 45, "cuDNN mapping error / invalid value", FIX_API,
        _CUDNN_ORIGIN, ("RuntimeError: cuDNN error: CUDNN_STATUS_MAPPING_ERROR",),
    ),
)

_MATHLIB_ORIGIN = ("status enums of cuFFT (cufftResult, cufft.h), cuSOLVER (cusolverStatus_t), "
                   "cuSPARSE (cusparseStatus_t) and cuRAND (curandStatus_t); PyTorch prints them "
                   "by name (e.g. 'cuFFT error: CUFFT_INTERNAL_ERROR', 'cusolver error: "
                   "CUSOLVER_STATUS_EXECUTION_FAILED')")

MATHLIBS: tuple[Signature, ...] = (
    Signature(
        id="cuda.mathlib.alloc_failed",
        patterns=("CUFFT_ALLOC_FAILED", "CUSOLVER_STATUS_ALLOC_FAILED", "CUSPARSE_STATUS_ALLOC_FAILED",
                  "CURAND_STATUS_ALLOCATION_FAILED"),
        cause="oom",
        role="fault",
        confidence="high",
        title="CUDA math library could not allocate GPU memory",
        fix=(
            "cuFFT / cuSOLVER / cuSPARSE / cuRAND failed to allocate its workspace: the GPU is "
            "full. Reduce memory use or free cached memory before the call:\n"
            "$ nvidia-smi --query-compute-apps=pid,used_memory --format=csv -i {device}"
        ),
        origin=_MATHLIB_ORIGIN,
        samples=("RuntimeError: cuFFT error: CUFFT_ALLOC_FAILED",
                 "RuntimeError: cusolver error: CUSOLVER_STATUS_ALLOC_FAILED, when calling `cusolverDnCreate(handle)`"),
        priority=70,
    ),
    Signature(
        id="cuda.mathlib.execution_failed",
        patterns=("CUFFT_EXEC_FAILED", "CUFFT_INTERNAL_ERROR", "CUSOLVER_STATUS_EXECUTION_FAILED",
                  "CUSOLVER_STATUS_INTERNAL_ERROR", "CUSPARSE_STATUS_EXECUTION_FAILED",
                  "CUSPARSE_STATUS_INTERNAL_ERROR", "CURAND_STATUS_LAUNCH_FAILURE",
                  "CURAND_STATUS_INTERNAL_ERROR"),
        cause="rank_crash",
        role="fault",
        confidence="low",
        title="CUDA math library kernel failed or hit an internal error",
        fix=(
            "A cuFFT / cuSOLVER / cuSPARSE / cuRAND call failed on the GPU (bad input sizes, an "
            "earlier asynchronous CUDA error, out of memory for a workspace, or a library/GPU "
            "mismatch: cuFFT from CUDA < 11.8 fails this way on Hopper). Look for an earlier "
            "error on this rank, then:\n" + _SYNC_RERUN
        ),
        origin=_MATHLIB_ORIGIN,
        samples=("RuntimeError: cuFFT error: CUFFT_INTERNAL_ERROR",
                 "torch._C._LinAlgError: cusolver error: CUSOLVER_STATUS_EXECUTION_FAILED, when calling `cusolverDnSgetrf(handle, m, n, dA, ldda, static_cast<float*>(dataPtr.get()), ipiv, info)`"),
        priority=45,
    ),
    Signature(
        id="cuda.mathlib.arch_mismatch",
        patterns=("CUSOLVER_STATUS_ARCH_MISMATCH", "CUSPARSE_STATUS_ARCH_MISMATCH",
                  "CURAND_STATUS_ARCH_MISMATCH", "CUFFT_ARCH_MISMATCH"),
        cause="version_mismatch",
        role="fault",
        confidence="high",
        title="CUDA math library does not support this GPU architecture",
        fix="The library build does not support this GPU.\n" + FIX_VERSION.split(":\n", 1)[1],
        origin=_MATHLIB_ORIGIN,
        samples=("RuntimeError: cusparse error: CUSPARSE_STATUS_ARCH_MISMATCH",),
        priority=65,
    ),
)

TOOLCHAIN: tuple[Signature, ...] = (
    Signature(
        id="cuda.toolchain.unsupported_arch",
        patterns=(r"ptxas fatal\s*: Value 'sm_\w+' is not defined for option 'gpu-name'",
                  r"nvcc fatal\s*: Unsupported gpu architecture 'compute_\w+'",
                  r"ptxas fatal\s*: Unsupported \.version \d+\.\d+; current version is"),
        cause="version_mismatch",
        role="fault",
        confidence="high",
        title="CUDA toolkit too old for this GPU or for the PTX (ptxas / nvcc)",
        fix=(
            "The CUDA compiler used at run time (Triton's ptxas, a JIT-built extension) does not "
            "know this GPU's architecture or the PTX version. Use a newer CUDA toolkit (or the "
            "ptxas bundled with Triton), or build for an architecture the toolkit knows:\n"
            "$ which ptxas nvcc; ptxas --version; nvcc --version\n"
            "$ echo $TRITON_PTXAS_PATH $CUDA_HOME\n"
            "$ nvidia-smi --query-gpu=name,compute_cap --format=csv"
        ),
        origin="NVIDIA ptxas / nvcc fatal messages (CUDA 10-13), seen through Triton and "
               "torch.utils.cpp_extension",
        samples=("ptxas fatal   : Value 'sm_90a' is not defined for option 'gpu-name'",
                 "nvcc fatal   : Unsupported gpu architecture 'compute_100'",
                 "ptxas fatal   : Unsupported .version 8.4; current version is '8.0'"),
        priority=80,
    ),
)

CONTAINER: tuple[Signature, ...] = (
    Signature(
        id="cuda.container.cuda_requirement",
        patterns=(r"nvidia-container-cli: requirement error: unsatisfied condition: cuda\s*>=?\s*[\d.]+",),
        cause="version_mismatch",
        role="fault",
        confidence="high",
        title="Container needs a newer CUDA than the host driver supports",
        fix=(
            "The image declares NVIDIA_REQUIRE_CUDA above what this host's driver supports; the "
            "container runtime refused to start it. Upgrade the driver on this node or use an image "
            "built for an older CUDA:\n"
            "$ nvidia-smi   # 'CUDA Version' of the driver\n"
            "$ docker inspect <image> | grep NVIDIA_REQUIRE_CUDA"
        ),
        origin="NVIDIA/libnvidia-container nvidia-container-cli 'requirement error: unsatisfied "
               "condition: cuda>=%s, please update your driver to a newer version, or use an "
               "earlier cuda container'",
        samples=("docker: Error response from daemon: failed to create task for container: OCI runtime "
                 "create failed: nvidia-container-cli: requirement error: unsatisfied condition: "
                 "cuda>=12.4, please update your driver to a newer version, or use an earlier cuda "
                 "container: unknown.",),
        priority=85,
    ),
    Signature(
        id="cuda.container.init_error",
        patterns=(r"nvidia-container-cli: initialization error: (?:nvml error: driver not loaded|"
                  r"load library failed: libnvidia-ml\.so\.1|driver rpc error)",),
        cause="other",
        role="fault",
        confidence="medium",
        title="NVIDIA container runtime could not reach the host driver",
        fix=(
            "The container runtime found no usable NVIDIA driver on the host (module not loaded, "
            "libnvidia-ml missing, or the driver RPC failed), so the container got no GPU:\n"
            "$ nvidia-smi   # on the host\n"
            "$ nvidia-container-cli -k -d /dev/tty info\n"
            "$ lsmod | grep nvidia"
        ),
        origin="NVIDIA/libnvidia-container nvidia-container-cli 'initialization error: %s'",
        samples=("OCI runtime create failed: nvidia-container-cli: initialization error: nvml error: driver not loaded: unknown",
                 "nvidia-container-cli: initialization error: load library failed: libnvidia-ml.so.1: cannot open shared object file: no such file or directory: unknown"),
        priority=70,
    ),
)

_NVML_ORIGIN = ("nvmlReturn_t NVML_ERROR_* (nvml.h; pynvml.py of nvidia-ml-py 13.615.71, "
                "exception classes NVMLError_<CamelCase>); nvidia-smi prints nvmlErrorString text")

NVML: tuple[Signature, ...] = (
    Signature(
        id="cuda.nvml.driver_library_mismatch",
        patterns=(
            r"(?i)failed to initialize nvml: driver/library version mismatch",
            r"NVML_ERROR_LIB_RM_VERSION_MISMATCH",
            r"NVMLError_LibRmVersionMismatch",
            r"RM has detected an NVML/RM version mismatch",
        ),
        cause="version_mismatch",
        role="fault",
        confidence="high",
        title="NVIDIA kernel module and user-space driver libraries differ (driver/library version mismatch)",
        fix=(
            "The loaded nvidia kernel module is another version than libnvidia-ml / libcuda "
            "(the driver packages were upgraded without a reboot, or a container ships its own "
            "driver libraries). Compare, then reboot or reload the module:\n"
            "$ cat /proc/driver/nvidia/version\n"
            "$ ls -l /usr/lib/x86_64-linux-gnu/libnvidia-ml.so.*\n"
            "$ sudo systemctl reboot   # or unload/reload nvidia modules with no GPU process"
        ),
        origin=_NVML_ORIGIN + "; nvidia-smi 'Failed to initialize NVML: Driver/library version mismatch'",
        samples=(
            "Failed to initialize NVML: Driver/library version mismatch",
            "Failed to initialize NVML: Driver/library version mismatch NVML library version: 550.127",
            "pynvml.NVMLError_LibRmVersionMismatch: RM has detected an NVML/RM version mismatch.",
        ),
        priority=85,
    ),
    Signature(
        id="cuda.nvml.init_unknown_error",
        patterns=(r"(?i)failed to initialize nvml: unknown error",),
        cause="other",
        role="fault",
        confidence="medium",
        title="NVML cannot initialise in this container (device access lost or cgroup problem)",
        fix=(
            "Inside containers this usually means the container lost access to /dev/nvidia* (a "
            "systemd daemon-reload reset the device cgroup rules of a running container, or the "
            "container was started without the NVIDIA runtime). Restart the container/pod; on "
            "the host make the NVIDIA container toolkit create the device nodes:\n"
            "$ ls -l /dev/nvidia*\n"
            "$ nvidia-ctk system create-dev-char-symlinks --create-all"
        ),
        origin=_NVML_ORIGIN + "; nvidia-smi 'Failed to initialize NVML: Unknown Error'",
        samples=("Failed to initialize NVML: Unknown Error",),
        priority=60,
    ),
    Signature(
        id="cuda.nvml.driver_not_loaded",
        patterns=(
            r"NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver",
            r"NVML_ERROR_DRIVER_NOT_LOADED",
            r"NVMLError_DriverNotLoaded",
        ),
        cause="version_mismatch",
        role="fault",
        confidence="medium",
        title="NVIDIA driver not loaded (kernel module missing or not built for this kernel)",
        fix=(
            "The nvidia kernel module is not loaded: often a kernel upgrade without the module "
            "rebuilt for it (DKMS), or a driver install that did not finish. Check and rebuild:\n"
            "$ lsmod | grep nvidia; uname -r\n"
            "$ dkms status\n"
            "$ sudo modprobe nvidia && nvidia-smi\n"
            "$ dmesg -T | grep -i nvidia | tail -20"
        ),
        origin=_NVML_ORIGIN + "; NVML_ERROR_DRIVER_NOT_LOADED (9) 'Driver Not Loaded'",
        samples=(
            "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running.",
            "pynvml.NVMLError_DriverNotLoaded: Driver Not Loaded",
        ),
        priority=75,
    ),
    Signature(
        id="cuda.nvml.gpu_is_lost",
        patterns=(
            r"NVML_ERROR_GPU_IS_LOST",
            r"NVMLError_GpuIsLost",
            r"(?i)Unable to determine the device handle for (?:GPU|gpu)\s*\S+: GPU is lost",
            r"GPU is lost\.\s+Reboot the system to recover this GPU",
        ),
        cause="hardware_fault",
        role="fault",
        confidence="high",
        title="GPU is lost (no longer answers on PCIe; pairs with Xid 79)",
        extract=r"device handle for (?:GPU|gpu)\s*(?P<bus_id>[0-9A-Fa-f:.]+)",
        fix=(
            "The GPU fell off the bus: the driver cannot talk to it any more. Drain the node; a "
            "reboot (often a power cycle) is needed. Check the kernel log for Xid 79 and PCIe AER "
            "errors, and power/thermal events; RMA if it recurs:\n"
            "$ dmesg -T | grep -E 'Xid|fallen off|AER'\n"
            "$ nvidia-smi -q -d PERFORMANCE,TEMPERATURE,POWER\n"
            "$ ipmitool sel list | tail -20"
        ),
        origin=_NVML_ORIGIN + "; NVML_ERROR_GPU_IS_LOST (15) 'GPU is lost'; nvidia-smi 'Unable to determine the device handle for GPU<bdf>: GPU is lost.  Reboot the system to recover this GPU'",
        samples=(
            "Unable to determine the device handle for GPU0000:3B:00.0: GPU is lost.  Reboot the system to recover this GPU",
            "pynvml.NVMLError_GpuIsLost: GPU is lost",
        ),
        priority=90,
    ),
    Signature(
        id="cuda.nvml.device_handle_unknown",
        patterns=(r"(?i)Unable to determine the device handle for (?:GPU|gpu)\s*\S+: Unknown Error",),
        cause="hardware_fault",
        role="fault",
        confidence="medium",
        title="nvidia-smi cannot reach a GPU (device handle: Unknown Error)",
        extract=r"device handle for (?:GPU|gpu)\s*(?P<bus_id>[0-9A-Fa-f:.]+)",
        fix=(
            "nvidia-smi could not open GPU {bus_id}: the GPU is in a bad state (PCIe link errors, "
            "a failed reset, fallen off the bus). Drain the node and check the PCIe link and the "
            "kernel log; reboot to recover:\n"
            "$ dmesg -T | grep -E 'Xid|AER|PCIe Bus Error'\n"
            "$ lspci -vvv -s {bus_id} | grep -E 'LnkSta|UESta|CESta'"
        ),
        origin=_NVML_ORIGIN + "; nvidia-smi 'Unable to determine the device handle for GPU<bdf>: Unknown Error'",
        samples=("Unable to determine the device handle for GPU0000:3B:00.0: Unknown Error",),
        priority=80,
    ),
    # nvidia-smi prints the same line for whatever nvmlDeviceGetHandleByIndex returned; the
    # nvmlErrorString texts below are the GPU (or its power / firmware) not answering, while
    # permissions or a missing driver are the setup (next entry).
    Signature(
        id="cuda.nvml.device_handle_gpu_state",
        patterns=(r"(?i)Unable to determine the device handle for (?:GPU|gpu)\s*\S+: (?:Timeout|Interrupt Request "
                  r"Issue|Insufficient External Power|GPU requires restart|Corrupted infoROM)",),
        cause="hardware_fault",
        role="fault",
        confidence="medium",
        title="nvidia-smi cannot reach a GPU (it times out, has no power, needs a reset, or its infoROM is bad)",
        extract=r"device handle for (?:GPU|gpu)\s*(?P<bus_id>[0-9A-Fa-f:.]+): (?P<err>[^.]+)",
        fix=(
            "nvidia-smi could not open GPU {bus_id} ({err}): the GPU does not answer the driver (timeout or "
            "interrupt problem), an external power cable is missing or loose, it needs a reset after an "
            "uncontained error, or its infoROM is corrupted. Drain the node, check the kernel log and the "
            "power, reset or reboot, and RMA if it recurs:\n"
            "$ dmesg -T | grep -E 'NVRM|Xid|AER'\n"
            "$ nvidia-smi -r -i {bus_id}   # with no process on the GPU; else reboot"
        ),
        origin=_NVML_ORIGIN + ("; nvidia-smi 'Unable to determine the device handle for GPU<bdf>: <nvmlErrorString>' "
                               "with NVML_ERROR_TIMEOUT 'Timeout', IRQ_ISSUE 'Interrupt Request Issue', "
                               "INSUFFICIENT_POWER 'Insufficient External Power', RESET_REQUIRED 'GPU requires "
                               "restart', CORRUPTED_INFOROM 'Corrupted infoROM'"),
        samples=("Unable to determine the device handle for GPU 00000000:B1:00.0: Timeout",
                 "Unable to determine the device handle for gpu 0000:41:00.0: Insufficient External Power",
                 "Unable to determine the device handle for GPU0000:DB:00.0: GPU requires restart"),
        priority=80,
    ),
    Signature(
        id="cuda.nvml.device_handle_setup",
        patterns=(r"(?i)Unable to determine the device handle for (?:GPU|gpu)\s*\S+: (?:Insufficient Permissions|"
                  r"Driver Not Loaded|The operating system has blocked the request)",),
        cause="other",
        role="fault",
        confidence="medium",
        title="nvidia-smi may not open a GPU (permissions, driver not loaded, blocked by the OS)",
        extract=r"device handle for (?:GPU|gpu)\s*(?P<bus_id>[0-9A-Fa-f:.]+): (?P<err>[^.]+)",
        fix=(
            "nvidia-smi was refused GPU {bus_id} ({err}): the process lacks access to its /dev/nvidia* node "
            "(a container or cgroup without the device), the driver is not loaded for it, or the OS blocked "
            "the request. Check the device nodes and the container's GPU options:\n"
            "$ ls -la /dev/nvidia*; lsmod | grep nvidia\n"
            "$ docker run --gpus all ...   # or the runtime's device list"
        ),
        origin=_NVML_ORIGIN + ("; nvidia-smi 'Unable to determine the device handle for GPU<bdf>: <nvmlErrorString>' "
                               "with NVML_ERROR_NO_PERMISSION 'Insufficient Permissions', DRIVER_NOT_LOADED 'Driver "
                               "Not Loaded', OPERATING_SYSTEM 'The operating system has blocked the request.'"),
        samples=("Unable to determine the device handle for GPU 00000000:07:00.0: Insufficient Permissions",
                 "Unable to determine the device handle for GPU0000:87:00.0: The operating system has blocked the request."),
        priority=80,
    ),
    Signature(
        id="cuda.nvml.reset_required",
        patterns=(r"NVML_ERROR_RESET_REQUIRED", r"NVMLError_ResetRequired",
                  r"(?i)nvml\S*:? GPU requires restart"),
        cause="hardware_fault",
        role="fault",
        confidence="medium",
        title="GPU requires a reset (NVML)",
        fix=(
            "The GPU needs a reset before it can be used again (after an uncontained error or a "
            "pending row remap). Stop the processes on it and reset it, or reboot:\n"
            "$ nvidia-smi -q -d ROW_REMAPPER -i {device}\n"
            "$ nvidia-smi -r -i {device}"
        ),
        origin=_NVML_ORIGIN + "; NVML_ERROR_RESET_REQUIRED (16) 'GPU requires restart'",
        samples=("pynvml.NVMLError_ResetRequired: GPU requires restart",),
        priority=75,
    ),
    Signature(
        id="cuda.nvml.corrupted_inforom",
        patterns=(r"NVML_ERROR_CORRUPTED_INFOROM", r"NVMLError_CorruptedInforom",
                  r"(?i)infoROM is corrupted"),
        cause="hardware_fault",
        role="fault",
        confidence="medium",
        title="GPU infoROM corrupted",
        fix=(
            "The GPU's infoROM (where ECC and retirement records live) is corrupted; ECC "
            "bookkeeping may be unreliable. Check it and plan an RMA / firmware recovery:\n"
            "$ nvidia-smi -q | grep -i -A5 inforom"
        ),
        origin=_NVML_ORIGIN + "; NVML_ERROR_CORRUPTED_INFOROM (14) 'Corrupted infoROM'; nvidia-smi 'WARNING: infoROM is corrupted at gpu <bdf>'",
        samples=("WARNING: infoROM is corrupted at gpu 0000:3B:00.0",
                 "pynvml.NVMLError_CorruptedInforom: Corrupted infoROM"),
        priority=65,
    ),
    Signature(
        id="cuda.nvml.library_not_found",
        patterns=(r"NVML_ERROR_LIBRARY_NOT_FOUND", r"NVMLError_LibraryNotFound",
                  r"NVML Shared Library Not Found"),
        cause="other",
        role="context",
        confidence="low",
        title="NVML library not found (no NVIDIA driver visible to this process)",
        fix=(
            "libnvidia-ml.so.1 is not visible: no driver on this machine or container (normal on "
            "CPU-only hosts; a problem on a GPU node, where the container lacks the NVIDIA runtime):\n"
            "$ ldconfig -p | grep libnvidia-ml"
        ),
        origin=_NVML_ORIGIN + "; NVML_ERROR_LIBRARY_NOT_FOUND (12) 'NVML Shared Library Not Found'",
        samples=("pynvml.NVMLError_LibraryNotFound: NVML Shared Library Not Found",),
        priority=30,
    ),
    Signature(
        id="cuda.nvml.no_devices",
        patterns=(r"^[\s>|]*No devices were found\s*$",),
        cause="device_ordinal",
        role="fault",
        confidence="medium",
        title="nvidia-smi found no GPUs",
        fix=(
            "The driver is loaded but reports no GPU to this process: the container has no GPU "
            "assigned, or the GPUs failed to initialise (look for Xids / 'RmInitAdapter failed').\n"
            "$ lspci | grep -i nvidia\n"
            "$ dmesg -T | grep -E 'NVRM' | tail -20"
        ),
        origin="nvidia-smi 'No devices were found'",
        samples=("No devices were found",),
        priority=60,
    ),
    Signature(
        id="cuda.nvml.other_errors",
        patterns=(
            r"NVML_ERROR_(?:TIMEOUT|IRQ_ISSUE|INSUFFICIENT_POWER|MEMORY|OPERATING_SYSTEM|GPU_NOT_FOUND|INVALID_STATE)",
            r"NVMLError_(?:Timeout|IrqIssue|InsufficientPower|Memory|OperatingSystem|GpuNotFound|InvalidState)",
        ),
        cause="hardware_fault",
        role="fault",
        confidence="low",
        title="NVML error pointing at the GPU or its driver (timeout, IRQ, power, not found)",
        fix=(
            "NVML could not talk to the GPU normally (timeout, interrupt problem, insufficient "
            "external power, GPU not found). Check the GPU and its power cables, and the kernel log:\n"
            "$ nvidia-smi -q -d POWER,PERFORMANCE -i {device}\n"
            "$ dmesg -T | grep -E 'NVRM' | tail -20"
        ),
        origin=_NVML_ORIGIN + "; NVML_ERROR_TIMEOUT (10), IRQ_ISSUE (11), INSUFFICIENT_POWER (8), OPERATING_SYSTEM (17), MEMORY (20), GPU_NOT_FOUND (28), INVALID_STATE (29)",
        samples=("pynvml.NVMLError_Timeout: Timeout", "nvml call failed: NVML_ERROR_IRQ_ISSUE"),
        priority=40,
    ),
    Signature(
        id="cuda.nvml.not_supported",
        patterns=(r"NVML_ERROR_NOT_SUPPORTED", r"NVMLError_NotSupported",
                  r"NVML_ERROR_NO_PERMISSION", r"NVMLError_NoPermission"),
        cause=None,
        role="harmless",
        confidence="low",
        title="NVML query not supported / not permitted (monitoring only)",
        fix="A monitoring query is not supported on this GPU (e.g. ECC off, MIG) or needs root. "
            "Harmless for the job.",
        origin=_NVML_ORIGIN + "; NVML_ERROR_NOT_SUPPORTED (3), NO_PERMISSION (4)",
        samples=("pynvml.NVMLError_NotSupported: Not Supported",),
        priority=15,
    ),
)

SIGNATURES: tuple[Signature, ...] = RUNTIME + LIBRARIES + MATHLIBS + TOOLCHAIN + CONTAINER + NVML

# Entries whose sample another entry reads (schema.py `alone_differs`): why the verdict on
# that sample is not this entry's cause.
SIGNATURES = alone_differs(SIGNATURES, {
    "cuda.rt.invalid_resource_handle": (
        "Inside an NCCL WARN ('Cuda failure ... invalid resource handle') the error is NCCL's own call, which nccl.cuda.invalid_resource_handle reads as other; this entry is for the application's CUDA calls."
    ),
    "cuda.rt.invalid_value": (
        "Inside an NCCL WARN ('Cuda failure 1 invalid argument') the error is NCCL's own call, which nccl.cuda.invalid_argument reads as other; this entry is for the application's CUDA calls."
    ),
    "cuda.rt.stream_capture": (
        "Its texts ('operation not permitted when stream is capturing') are also what a framework's CUDA-graph capture prints; vllm.cuda_graph_capture_error reads them as other (capture set up by vLLM/SGLang, --enforce-eager works around it)."
    ),
})
