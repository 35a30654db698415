"""NVML readings per GPU through `pynvml` (package nvidia-ml-py).

Every field is read on its own: NVML answers NotSupported for whole feature families (ECC off,
row remapping before A100, retired pages from A100 on, NVLink on PCIe boards), and one missing
feature must not cost the others. A value that cannot be read is None, and the NVML error text
is kept in the GPU's "errors" map so a reader can tell "not supported" from "GPU is lost".
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from functools import partial
from typing import Any

MIB = 1024 * 1024

# Bit names of nvmlDeviceGetCurrentClocksEventReasons (nvmlClocksEventReason* in pynvml).
_CLOCK_EVENT_BITS = (
    (0x1, "GpuIdle"), (0x2, "ApplicationsClocksSetting"), (0x4, "SwPowerCap"),
    (0x8, "HwSlowdown"), (0x10, "SyncBoost"), (0x20, "SwThermalSlowdown"),
    (0x40, "HwThermalSlowdown"), (0x80, "HwPowerBrakeSlowdown"), (0x100, "DisplayClockSetting"),
    (0x200, "BoardLimit"), (0x400, "Reliability"),
)

# NVML_NVLINK_ERROR_DL_* counters, in the names the snapshot uses.
_NVLINK_COUNTERS = (("replay", 0), ("recovery", 1), ("crc_flit", 2), ("crc_data", 3))


class NvmlUnavailable(Exception):
    """NVML cannot be used on this node; str() is the reason recorded in the snapshot."""


def _import_pynvml() -> Any:
    try:
        import pynvml
    except ImportError as exc:
        raise NvmlUnavailable(f"pynvml not importable ({exc}); pip install nvidia-ml-py") from exc
    return pynvml


@contextmanager
def nvml_session() -> Iterator[Any]:
    """nvmlInit/nvmlShutdown around a block; raises NvmlUnavailable with NVML's own words."""
    pynvml = _import_pynvml()
    try:
        pynvml.nvmlInit()
    except pynvml.NVMLError as exc:
        raise NvmlUnavailable(str(exc)) from exc
    except OSError as exc:  # a broken libnvidia-ml that loads but cannot resolve symbols
        raise NvmlUnavailable(f"NVML could not be loaded: {exc}") from exc
    try:
        yield pynvml
    finally:
        with suppress(pynvml.NVMLError):
            pynvml.nvmlShutdown()


def throttle_reason_names(mask: int) -> list[str]:
    names = [name for bit, name in _CLOCK_EVENT_BITS if mask & bit]
    known = 0
    for bit, _ in _CLOCK_EVENT_BITS:
        known |= bit
    if mask & ~known:
        names.append(hex(mask & ~known))
    return names


def cuda_version_text(v: int) -> str:
    """NVML gives 12040 for CUDA 12.4."""
    return f"{v // 1000}.{(v % 1000) // 10}"


class _Reader:
    """Calls one NVML function, turning NVMLError into None plus an entry in `errors`."""

    def __init__(self, pynvml: Any) -> None:
        self.pynvml = pynvml
        self.errors: dict[str, str] = {}

    def __call__(self, field: str, fn: Callable[[], Any]) -> Any:
        try:
            return fn()
        except self.pynvml.NVMLError as exc:
            self.errors.setdefault(field, str(exc))
            return None


def _ecc(pynvml: Any, h: Any, read: _Reader) -> dict[str, Any]:
    mode = read("ecc.mode", lambda: pynvml.nvmlDeviceGetEccMode(h))
    def count(err: int, counter: int, field: str) -> Any:
        return read(f"ecc.{field}", lambda: pynvml.nvmlDeviceGetTotalEccErrors(h, err, counter))
    return {
        "mode_current": bool(mode[0]) if mode is not None else None,
        "mode_pending": bool(mode[1]) if mode is not None else None,
        "corrected_volatile": count(pynvml.NVML_MEMORY_ERROR_TYPE_CORRECTED, pynvml.NVML_VOLATILE_ECC,
                                    "corrected_volatile"),
        "uncorrected_volatile": count(pynvml.NVML_MEMORY_ERROR_TYPE_UNCORRECTED, pynvml.NVML_VOLATILE_ECC,
                                      "uncorrected_volatile"),
        "corrected_aggregate": count(pynvml.NVML_MEMORY_ERROR_TYPE_CORRECTED, pynvml.NVML_AGGREGATE_ECC,
                                     "corrected_aggregate"),
        "uncorrected_aggregate": count(pynvml.NVML_MEMORY_ERROR_TYPE_UNCORRECTED, pynvml.NVML_AGGREGATE_ECC,
                                       "uncorrected_aggregate"),
    }


def _remapped_rows(pynvml: Any, h: Any, read: _Reader) -> dict[str, Any] | None:
    rows = read("remapped_rows", lambda: pynvml.nvmlDeviceGetRemappedRows(h))
    if rows is None:
        return None
    corr, unc, pending, failure = rows
    return {"correctable": corr, "uncorrectable": unc, "pending": bool(pending), "failure": bool(failure)}


def _retired_pages(pynvml: Any, h: Any, read: _Reader) -> dict[str, Any] | None:
    sbe = read("retired_pages", lambda: pynvml.nvmlDeviceGetRetiredPages(
        h, pynvml.NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS))
    dbe = read("retired_pages", lambda: pynvml.nvmlDeviceGetRetiredPages(
        h, pynvml.NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR))
    if sbe is None and dbe is None:
        return None
    pending = read("retired_pages.pending", lambda: pynvml.nvmlDeviceGetRetiredPagesPendingStatus(h))
    return {
        "single_bit": len(sbe) if sbe is not None else None,
        "double_bit": len(dbe) if dbe is not None else None,
        "pending": bool(pending) if pending is not None else None,
    }


def _nvlinks(pynvml: Any, h: Any, read: _Reader) -> list[dict[str, Any]]:
    links = []
    for link in range(pynvml.NVML_NVLINK_MAX_LINKS):
        try:
            state = pynvml.nvmlDeviceGetNvLinkState(h, link)
        except (pynvml.NVMLError_NotSupported, pynvml.NVMLError_InvalidArgument, pynvml.NVMLError_NotFound):
            continue  # no such link on this board
        except pynvml.NVMLError as exc:
            read.errors.setdefault(f"nvlink.{link}", str(exc))
            continue
        errors = {name: read(f"nvlink.{link}.{name}", partial(pynvml.nvmlDeviceGetNvLinkErrorCounter, h, link, counter))
                  for name, counter in _NVLINK_COUNTERS}
        links.append({"link": link, "active": bool(state), "errors": errors})
    return links


def _throttle(pynvml: Any, h: Any, read: _Reader) -> list[str] | None:
    def reasons() -> int:
        try:
            return int(pynvml.nvmlDeviceGetCurrentClocksEventReasons(h))
        except pynvml.NVMLError_FunctionNotFound:
            # Drivers older than the "clocks event" rename only have the deprecated name.
            return int(pynvml.nvmlDeviceGetCurrentClocksThrottleReasons(h))
    mask = read("throttle_reasons", reasons)
    return throttle_reason_names(mask) if mask is not None else None


def _processes(pynvml: Any, h: Any, read: _Reader) -> list[dict[str, Any]] | None:
    procs = read("processes", lambda: pynvml.nvmlDeviceGetComputeRunningProcesses(h))
    if procs is None:
        return None
    return [{"pid": p.pid,
             "used_memory": p.usedGpuMemory // MIB if p.usedGpuMemory is not None else None}
            for p in procs]


def gpu_record(pynvml: Any, index: int) -> dict[str, Any]:
    read = _Reader(pynvml)
    h = read("handle", lambda: pynvml.nvmlDeviceGetHandleByIndex(index))
    if h is None:
        return {"index": index, "errors": read.errors}
    util = read("utilization", lambda: pynvml.nvmlDeviceGetUtilizationRates(h))
    mem = read("memory", lambda: pynvml.nvmlDeviceGetMemoryInfo(h))
    power = read("power_w", lambda: pynvml.nvmlDeviceGetPowerUsage(h))
    pci = read("pci_bus_id", lambda: pynvml.nvmlDeviceGetPciInfo(h))
    record = {
        "index": index,
        "name": read("name", lambda: pynvml.nvmlDeviceGetName(h)),
        "uuid": read("uuid", lambda: pynvml.nvmlDeviceGetUUID(h)),
        "pci_bus_id": pci.busId if pci is not None else None,
        "utilization_gpu": util.gpu if util is not None else None,
        "utilization_memory": util.memory if util is not None else None,
        "memory_used": mem.used // MIB if mem is not None else None,
        "memory_total": mem.total // MIB if mem is not None else None,
        "temperature": read("temperature", lambda: pynvml.nvmlDeviceGetTemperature(h, pynvml.NVML_TEMPERATURE_GPU)),
        "power_w": round(power / 1000.0, 1) if power is not None else None,
        "clocks": {
            "sm": read("clocks.sm", lambda: pynvml.nvmlDeviceGetClockInfo(h, pynvml.NVML_CLOCK_SM)),
            "mem": read("clocks.mem", lambda: pynvml.nvmlDeviceGetClockInfo(h, pynvml.NVML_CLOCK_MEM)),
        },
        "throttle_reasons": _throttle(pynvml, h, read),
        "ecc": _ecc(pynvml, h, read),
        "remapped_rows": _remapped_rows(pynvml, h, read),
        "retired_pages": _retired_pages(pynvml, h, read),
        "nvlink": _nvlinks(pynvml, h, read),
        "pcie_replay_counter": read("pcie_replay_counter", lambda: pynvml.nvmlDeviceGetPcieReplayCounter(h)),
        "processes": _processes(pynvml, h, read),
    }
    record["errors"] = read.errors
    return record


def nvml_snapshot() -> dict[str, Any]:
    """The snapshot's "nvml" section. Never raises: a node without a GPU is a fact to record."""
    try:
        with nvml_session() as pynvml:
            read = _Reader(pynvml)
            count = read("count", pynvml.nvmlDeviceGetCount)
            cuda = read("cuda_driver_version", pynvml.nvmlSystemGetCudaDriverVersion)
            return {
                "available": True,
                "driver_version": read("driver_version", pynvml.nvmlSystemGetDriverVersion),
                "cuda_driver_version": cuda_version_text(cuda) if cuda is not None else None,
                "gpus": [gpu_record(pynvml, i) for i in range(count or 0)],
                "errors": read.errors,
            }
    except NvmlUnavailable as exc:
        return {"available": False, "reason": str(exc)}


def gpu_samples(pynvml: Any) -> list[dict[str, Any]]:
    """One light reading per GPU (utilisation, memory) for the background sampler."""
    samples = []
    for i in range(pynvml.nvmlDeviceGetCount()):
        read = _Reader(pynvml)
        h = read("handle", partial(pynvml.nvmlDeviceGetHandleByIndex, i))
        util = read("util", partial(pynvml.nvmlDeviceGetUtilizationRates, h)) if h is not None else None
        mem = read("mem", partial(pynvml.nvmlDeviceGetMemoryInfo, h)) if h is not None else None
        pci = read("pci", partial(pynvml.nvmlDeviceGetPciInfo, h)) if h is not None else None
        sample = {
            "gpu": i,
            "pci_bus_id": pci.busId if pci is not None else None,
            "util": util.gpu if util is not None else None,
            "mem_used": mem.used // MIB if mem is not None else None,
            "mem_total": mem.total // MIB if mem is not None else None,
        }
        if read.errors:
            sample["error"] = next(iter(read.errors.values()))
        samples.append(sample)
    return samples
