"""FakeNvml: a FAKE of the NVML library at the `pynvml` function boundary, for a machine with no GPU.

Only the GPU is faked. The collectors call the real `pynvml` module; these tests replace its
nvml* functions with ones that answer the way NVML documents (nvml.h / the NVML API reference):

- every call before nvmlInit() raises NVMLError_Uninitialized;
- a GPU that fell off the bus raises NVMLError_GpuIsLost, from nvmlDeviceGetHandleByIndex on;
- ECC counters with ECC disabled raise NVMLError_NotSupported (nvmlDeviceGetEccMode still answers);
- row remapping exists from Ampere on; retired pages only before Ampere (NotSupported otherwise);
- NVLink calls raise NotSupported on boards without NVLink, InvalidArgument for a link index
  past NVML_NVLINK_MAX_LINKS;
- drivers older than the "clocks event" rename lack nvmlDeviceGetCurrentClocksEventReasons
  (NVMLError_FunctionNotFound) and only have the deprecated ...ThrottleReasons.
The errors raised are pynvml's own classes, so `str(e)` is NVML's real text.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import pynvml

GIB = 1024 ** 3


@dataclass
class FakeGpu:
    name: str = "NVIDIA H100 80GB HBM3"
    uuid: str = "GPU-6f1c2e7a-0d3b-4c1e-9a57-2f7d8e9b1c01"
    bus_id: str = "00000000:1B:00.0"
    util_gpu: int = 97
    util_mem: int = 40
    mem_total: int = 80 * GIB
    mem_used: int = 70 * GIB
    temperature: int = 61
    power_mw: int = 612300
    clock_sm: int = 1980
    clock_mem: int = 2619
    clock_event_mask: int = 0x4          # SwPowerCap
    ecc_enabled: bool = True
    # (error type, counter type) -> count; CORRECTED=0/UNCORRECTED=1, VOLATILE=0/AGGREGATE=1
    ecc: dict[tuple[int, int], int] = field(default_factory=lambda: {(0, 0): 0, (1, 0): 0, (0, 1): 2, (1, 1): 0})
    remapped_rows: tuple[int, int, int, int] | None = (0, 0, 0, 0)  # None: pre-Ampere
    retired_pages: dict[int, list[int]] | None = None               # cause -> pages; None: Ampere+
    retired_pending: int = 0
    nvlinks: list[bool] | None = field(default_factory=lambda: [True] * 18)  # None: no NVLink
    nvlink_errors: dict[tuple[int, int], int] = field(default_factory=dict)  # (link, counter) -> n
    nvlink_unsupported_counters: tuple[int, ...] = ()
    pcie_replay: int = 0
    processes: list[tuple[int, int | None]] = field(default_factory=lambda: [(4242, 70 * GIB)])
    lost: bool = False


class FakeNvml:
    """Installs fake nvml* functions on the real pynvml module (through pytest's monkeypatch)."""

    def __init__(self, gpus: list[FakeGpu], *, driver: str = "550.54.15", cuda: int = 12040,
                 init_error: int | None = None, has_clock_event_reasons: bool = True) -> None:
        self.gpus = gpus
        self.driver = driver
        self.cuda = cuda
        self.init_error = init_error
        self.has_clock_event_reasons = has_clock_event_reasons
        self.initialised = 0
        self.calls: list[str] = []

    def install(self, monkeypatch: Any) -> FakeNvml:
        for name in dir(self):
            if name.startswith("nvml"):
                monkeypatch.setattr(pynvml, name, getattr(self, name))
        return self

    # -- helpers -----------------------------------------------------------------------------
    def _ready(self, name: str) -> None:
        self.calls.append(name)
        if not self.initialised:
            raise pynvml.NVMLError(pynvml.NVML_ERROR_UNINITIALIZED)

    def _gpu(self, name: str, handle: Any) -> FakeGpu:
        self._ready(name)
        gpu = self.gpus[handle.index]
        if gpu.lost:
            raise pynvml.NVMLError(pynvml.NVML_ERROR_GPU_IS_LOST)
        return gpu

    # -- system ------------------------------------------------------------------------------
    def nvmlInit(self) -> None:
        self.calls.append("nvmlInit")
        if self.init_error is not None:
            raise pynvml.NVMLError(self.init_error)
        self.initialised += 1

    def nvmlShutdown(self) -> None:
        self._ready("nvmlShutdown")
        self.initialised -= 1

    def nvmlSystemGetDriverVersion(self) -> str:
        self._ready("nvmlSystemGetDriverVersion")
        return self.driver

    def nvmlSystemGetCudaDriverVersion(self) -> int:
        self._ready("nvmlSystemGetCudaDriverVersion")
        return self.cuda

    def nvmlDeviceGetCount(self) -> int:
        self._ready("nvmlDeviceGetCount")
        return len(self.gpus)

    def nvmlDeviceGetHandleByIndex(self, index: int) -> Any:
        self._ready("nvmlDeviceGetHandleByIndex")
        if index >= len(self.gpus):
            raise pynvml.NVMLError(pynvml.NVML_ERROR_INVALID_ARGUMENT)
        if self.gpus[index].lost:
            raise pynvml.NVMLError(pynvml.NVML_ERROR_GPU_IS_LOST)
        return SimpleNamespace(index=index)

    # -- identity and load -------------------------------------------------------------------
    def nvmlDeviceGetName(self, h: Any) -> str:
        return self._gpu("nvmlDeviceGetName", h).name

    def nvmlDeviceGetUUID(self, h: Any) -> str:
        return self._gpu("nvmlDeviceGetUUID", h).uuid

    def nvmlDeviceGetPciInfo(self, h: Any) -> Any:
        return SimpleNamespace(busId=self._gpu("nvmlDeviceGetPciInfo", h).bus_id)

    def nvmlDeviceGetUtilizationRates(self, h: Any) -> Any:
        g = self._gpu("nvmlDeviceGetUtilizationRates", h)
        return SimpleNamespace(gpu=g.util_gpu, memory=g.util_mem)

    def nvmlDeviceGetMemoryInfo(self, h: Any, version: Any = None) -> Any:
        g = self._gpu("nvmlDeviceGetMemoryInfo", h)
        return SimpleNamespace(total=g.mem_total, used=g.mem_used, free=g.mem_total - g.mem_used)

    def nvmlDeviceGetTemperature(self, h: Any, sensor: int) -> int:
        g = self._gpu("nvmlDeviceGetTemperature", h)
        if sensor != pynvml.NVML_TEMPERATURE_GPU:
            raise pynvml.NVMLError(pynvml.NVML_ERROR_INVALID_ARGUMENT)
        return g.temperature

    def nvmlDeviceGetPowerUsage(self, h: Any) -> int:
        return self._gpu("nvmlDeviceGetPowerUsage", h).power_mw

    def nvmlDeviceGetClockInfo(self, h: Any, clock: int) -> int:
        g = self._gpu("nvmlDeviceGetClockInfo", h)
        return {pynvml.NVML_CLOCK_SM: g.clock_sm, pynvml.NVML_CLOCK_MEM: g.clock_mem}[clock]

    def nvmlDeviceGetCurrentClocksEventReasons(self, h: Any) -> int:
        g = self._gpu("nvmlDeviceGetCurrentClocksEventReasons", h)
        if not self.has_clock_event_reasons:
            raise pynvml.NVMLError(pynvml.NVML_ERROR_FUNCTION_NOT_FOUND)
        return g.clock_event_mask

    def nvmlDeviceGetCurrentClocksThrottleReasons(self, h: Any) -> int:
        return self._gpu("nvmlDeviceGetCurrentClocksThrottleReasons", h).clock_event_mask

    def nvmlDeviceGetComputeRunningProcesses(self, h: Any) -> list[Any]:
        g = self._gpu("nvmlDeviceGetComputeRunningProcesses", h)
        return [SimpleNamespace(pid=pid, usedGpuMemory=used, gpuInstanceId=0xFFFFFFFF,
                                computeInstanceId=0xFFFFFFFF) for pid, used in g.processes]

    # -- memory errors -----------------------------------------------------------------------
    def nvmlDeviceGetEccMode(self, h: Any) -> list[int]:
        g = self._gpu("nvmlDeviceGetEccMode", h)
        return [int(g.ecc_enabled), int(g.ecc_enabled)]

    def nvmlDeviceGetTotalEccErrors(self, h: Any, error_type: int, counter_type: int) -> int:
        g = self._gpu("nvmlDeviceGetTotalEccErrors", h)
        if not g.ecc_enabled:
            raise pynvml.NVMLError(pynvml.NVML_ERROR_NOT_SUPPORTED)
        return g.ecc[(error_type, counter_type)]

    def nvmlDeviceGetRemappedRows(self, h: Any) -> tuple[int, int, int, int]:
        g = self._gpu("nvmlDeviceGetRemappedRows", h)
        if g.remapped_rows is None:
            raise pynvml.NVMLError(pynvml.NVML_ERROR_NOT_SUPPORTED)
        return g.remapped_rows

    def nvmlDeviceGetRetiredPages(self, h: Any, cause: int) -> list[int]:
        g = self._gpu("nvmlDeviceGetRetiredPages", h)
        if g.retired_pages is None:
            raise pynvml.NVMLError(pynvml.NVML_ERROR_NOT_SUPPORTED)
        return list(g.retired_pages.get(cause, []))

    def nvmlDeviceGetRetiredPagesPendingStatus(self, h: Any) -> int:
        g = self._gpu("nvmlDeviceGetRetiredPagesPendingStatus", h)
        if g.retired_pages is None:
            raise pynvml.NVMLError(pynvml.NVML_ERROR_NOT_SUPPORTED)
        return g.retired_pending

    # -- interconnect ------------------------------------------------------------------------
    def _link(self, name: str, h: Any, link: int) -> FakeGpu:
        g = self._gpu(name, h)
        if link >= pynvml.NVML_NVLINK_MAX_LINKS:
            raise pynvml.NVMLError(pynvml.NVML_ERROR_INVALID_ARGUMENT)
        if g.nvlinks is None or link >= len(g.nvlinks):
            raise pynvml.NVMLError(pynvml.NVML_ERROR_NOT_SUPPORTED)
        return g

    def nvmlDeviceGetNvLinkState(self, h: Any, link: int) -> int:
        g = self._link("nvmlDeviceGetNvLinkState", h, link)
        return int(g.nvlinks[link])  # type: ignore[index]

    def nvmlDeviceGetNvLinkErrorCounter(self, h: Any, link: int, counter: int) -> int:
        g = self._link("nvmlDeviceGetNvLinkErrorCounter", h, link)
        if counter in g.nvlink_unsupported_counters:
            raise pynvml.NVMLError(pynvml.NVML_ERROR_NOT_SUPPORTED)
        return g.nvlink_errors.get((link, counter), 0)

    def nvmlDeviceGetPcieReplayCounter(self, h: Any) -> int:
        return self._gpu("nvmlDeviceGetPcieReplayCounter", h).pcie_replay
