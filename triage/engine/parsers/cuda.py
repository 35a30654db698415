"""CUDA errors as PyTorch and CUDA libraries print them (FORMATS.md §2.10): OOM in both the
recent and the old wording, `CUDA error: <string>`, `cudaError<Name>`, and NCCL's own
allocation failures."""
from __future__ import annotations

import re

from ..model import Event
from .base import LineCtx, SourceState

_OOM = re.compile(
    r"CUDA out of memory\. Tried to allocate (?P<req>[\d.]+ (?:GiB|MiB|KiB|bytes))"
    r"(?:\. GPU (?P<dev>\d+) has a total capacity of (?P<tot>[\d.]+ \w+) of which (?P<free>[\d.]+ \w+) is free"
    r"| \(GPU (?P<dev2>\d+); (?P<tot2>[\d.]+ \w+) total capacity)?"
)
_CUDA_ERROR = re.compile(r"CUDA error: (?P<err>[^.\n\[]+?)(?:\s*$|\s*\[|\.\s|\s+CUDA kernel)")
# 'failed to synchronize: cudaErrorECCUncorrectable: uncorrectable ...' or '... returned cudaErrorX'.
# A bare mention (a docs table, torch's "Search for `cudaErrorX' ..." hint) is no error.
_CUDA_NAME = re.compile(r"(?:(?P<name>cudaError\w+): (?P<err>[^\n]+)|(?:returned|error|failed with) "
                        r"(?P<name2>cudaError\w+))")
_CUBLAS = re.compile(r"CUBLAS_STATUS_(?P<status>\w+)")

# cudaGetErrorString text -> (cudaError name, class)
CUDA_ERRORS: dict[str, tuple[str, str]] = {
    "out of memory": ("cudaErrorMemoryAllocation", "oom"),
    "initialization error": ("cudaErrorInitializationError", "driver"),
    "CUDA driver version is insufficient for CUDA runtime version": ("cudaErrorInsufficientDriver", "version"),
    "CUDA-capable device(s) is/are busy or unavailable": ("cudaErrorDevicesUnavailable", "device"),
    "no CUDA-capable device is detected": ("cudaErrorNoDevice", "device"),
    "invalid device ordinal": ("cudaErrorInvalidDevice", "device_ordinal"),
    "no kernel image is available for execution on the device": ("cudaErrorNoKernelImageForDevice", "version"),
    "uncorrectable ECC error encountered": ("cudaErrorECCUncorrectable", "hardware"),
    "uncorrectable NVLink error detected during the execution": ("cudaErrorNvlinkUncorrectable", "hardware"),
    "an illegal memory access was encountered": ("cudaErrorIllegalAddress", "app"),
    "too many resources requested for launch": ("cudaErrorLaunchOutOfResources", "app"),
    "the launch timed out and was terminated": ("cudaErrorLaunchTimeout", "app"),
    "device-side assert triggered": ("cudaErrorAssert", "app"),
    "hardware stack error": ("cudaErrorHardwareStackError", "app"),
    "an illegal instruction was encountered": ("cudaErrorIllegalInstruction", "app"),
    "misaligned address": ("cudaErrorMisalignedAddress", "app"),
    "unspecified launch failure": ("cudaErrorLaunchFailure", "app_or_hw"),
    "system not yet initialized": ("cudaErrorSystemNotReady", "driver"),
    "system has unsupported display driver / cuda driver combination": ("cudaErrorSystemDriverMismatch", "version"),
    "forward compatibility was attempted on non supported HW": ("cudaErrorCompatNotSupportedOnDevice", "version"),
    "unknown error": ("cudaErrorUnknown", "app_or_hw"),
}
_BY_NAME = {name: (text, cls) for text, (name, cls) in CUDA_ERRORS.items()}


def classify(err: str) -> tuple[str | None, str]:
    err = err.strip().rstrip(".")
    for text, (name, cls) in CUDA_ERRORS.items():
        if err.startswith(text) or text in err:
            return name, cls
    return None, "other"


def parse(ctx: LineCtx, state: SourceState) -> list[Event]:
    body = ctx.body
    if "CUDA" not in body and "cuda" not in body and "CUBLAS" not in body:
        return []
    m = _OOM.search(body)
    if m:
        dev = m["dev"] or m["dev2"]
        ev = ctx.event(
            "cuda_oom",
            severity="error",
            requested=m["req"],
            gpu=int(dev) if dev else None,
            total=m["tot"] or m["tot2"],
            free=m["free"],
        )
        # The caching allocator names the process's CUDA device ordinal, as NCCL's [dev] does.
        ev.device = int(dev) if dev else None
        return [ev]
    m = _CUDA_ERROR.search(body)
    if m:
        name, cls = classify(m["err"])
        return [ctx.event("cuda_error", severity="error", error=m["err"].strip(), cuda_name=name, error_class=cls)]
    m = _CUDA_NAME.search(body)
    if m and "Search for `" not in body:
        name = m["name"] or m["name2"]
        text, cls = _BY_NAME.get(name, (m["err"] or name, "other"))
        return [ctx.event("cuda_error", severity="error", error=text, cuda_name=name, error_class=cls)]
    m = _CUBLAS.search(body)
    if m and ("error" in body.lower() or "failed" in body):
        cls = "oom" if m["status"] == "ALLOC_FAILED" else "app"
        return [ctx.event("cuda_error", severity="error", error=f"CUBLAS_STATUS_{m['status']}", cuda_name=None,
                          error_class=cls)]
    return []
