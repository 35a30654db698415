"""The NVML code path, against the FakeNvml of fake_nvml.py (no GPU on CI) and, for the
"no driver" case, against the real pynvml on this GPU-less machine."""
from __future__ import annotations

import json
import time

import pynvml
import pytest
from fake_nvml import GIB, FakeGpu, FakeNvml

from collectors import nvml
from collectors.sampler import NvmlSampler


def test_it_records_the_real_reason_when_this_machine_has_no_nvml_library():
    try:
        pynvml.nvmlInit()
    except pynvml.NVMLError_LibraryNotFound:
        pass
    else:  # pragma: no cover - only on a machine with a driver
        pynvml.nvmlShutdown()
        pytest.skip("this machine has an NVIDIA driver")
    assert nvml.nvml_snapshot() == {"available": False, "reason": "NVML Shared Library Not Found"}


def test_it_records_driver_not_loaded(monkeypatch):
    FakeNvml([], init_error=pynvml.NVML_ERROR_DRIVER_NOT_LOADED).install(monkeypatch)
    assert nvml.nvml_snapshot() == {"available": False, "reason": "Driver Not Loaded"}


def test_it_reads_every_field_of_an_h100(monkeypatch):
    gpu = FakeGpu(nvlink_errors={(3, 0): 7, (3, 3): 2}, pcie_replay=5, clock_event_mask=0x4 | 0x40)
    fake = FakeNvml([gpu]).install(monkeypatch)
    snap = nvml.nvml_snapshot()
    assert snap["available"] is True
    assert snap["driver_version"] == "550.54.15"
    assert snap["cuda_driver_version"] == "12.4"
    g = snap["gpus"][0]
    assert g["name"] == "NVIDIA H100 80GB HBM3"
    assert g["uuid"].startswith("GPU-")
    assert g["pci_bus_id"] == "00000000:1B:00.0"
    assert (g["utilization_gpu"], g["utilization_memory"]) == (97, 40)
    assert (g["memory_used"], g["memory_total"]) == (70 * 1024, 80 * 1024)   # MiB
    assert g["temperature"] == 61
    assert g["power_w"] == 612.3
    assert g["clocks"] == {"sm": 1980, "mem": 2619}
    assert g["throttle_reasons"] == ["SwPowerCap", "HwThermalSlowdown"]
    assert g["ecc"] == {"mode_current": True, "mode_pending": True, "corrected_volatile": 0,
                        "uncorrected_volatile": 0, "corrected_aggregate": 2, "uncorrected_aggregate": 0}
    assert g["remapped_rows"] == {"correctable": 0, "uncorrectable": 0, "pending": False, "failure": False}
    # A100+ has no page retirement: NVML says NotSupported, the snapshot says null and why.
    assert g["retired_pages"] is None
    assert g["errors"]["retired_pages"] == "Not Supported"
    assert len(g["nvlink"]) == 18
    assert g["nvlink"][3] == {"link": 3, "active": True,
                              "errors": {"replay": 7, "recovery": 0, "crc_flit": 0, "crc_data": 2}}
    assert g["pcie_replay_counter"] == 5
    assert g["processes"] == [{"pid": 4242, "used_memory": 70 * 1024}]
    assert fake.initialised == 0, "nvmlShutdown must balance nvmlInit"
    json.dumps(snap)  # the whole section is plain JSON


def test_ecc_off_and_pre_ampere_give_nulls_not_zeros(monkeypatch):
    v100 = FakeGpu(name="Tesla V100-SXM2-32GB", ecc_enabled=False, remapped_rows=None,
                   retired_pages={pynvml.NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS: [0x1000, 0x2000],
                                  pynvml.NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR: [0x3000]},
                   retired_pending=1, nvlinks=None)
    FakeNvml([v100]).install(monkeypatch)
    g = nvml.nvml_snapshot()["gpus"][0]
    assert g["ecc"]["mode_current"] is False
    assert g["ecc"]["uncorrected_volatile"] is None and g["ecc"]["corrected_aggregate"] is None
    assert g["errors"]["ecc.uncorrected_volatile"] == "Not Supported"
    assert g["remapped_rows"] is None
    assert g["retired_pages"] == {"single_bit": 2, "double_bit": 1, "pending": True}
    assert g["nvlink"] == []


def test_uncorrected_ecc_and_a_pending_row_remap_are_reported(monkeypatch):
    bad = FakeGpu(ecc={(0, 0): 3, (1, 0): 1, (0, 1): 40, (1, 1): 2}, remapped_rows=(1, 1, 1, 0))
    FakeNvml([FakeGpu(), bad]).install(monkeypatch)
    g = nvml.nvml_snapshot()["gpus"][1]
    assert g["ecc"]["uncorrected_volatile"] == 1
    assert g["ecc"]["uncorrected_aggregate"] == 2
    assert g["remapped_rows"] == {"correctable": 1, "uncorrectable": 1, "pending": True, "failure": False}


def test_a_lost_gpu_is_named_and_the_others_still_read(monkeypatch):
    FakeNvml([FakeGpu(), FakeGpu(bus_id="00000000:3B:00.0", lost=True), FakeGpu()]).install(monkeypatch)
    gpus = nvml.nvml_snapshot()["gpus"]
    assert [g["index"] for g in gpus] == [0, 1, 2]
    assert gpus[1] == {"index": 1, "errors": {"handle": "GPU is lost"}}
    assert gpus[2]["name"] == "NVIDIA H100 80GB HBM3"


def test_old_driver_falls_back_to_the_deprecated_throttle_call(monkeypatch):
    fake = FakeNvml([FakeGpu(clock_event_mask=0x1 | 0x800)], has_clock_event_reasons=False).install(monkeypatch)
    g = nvml.nvml_snapshot()["gpus"][0]
    assert g["throttle_reasons"] == ["GpuIdle", "0x800"]
    assert "nvmlDeviceGetCurrentClocksThrottleReasons" in fake.calls


def test_hopper_counters_that_nvml_does_not_support_are_null(monkeypatch):
    FakeNvml([FakeGpu(nvlinks=[True, False], nvlink_unsupported_counters=(2,))]).install(monkeypatch)
    g = nvml.nvml_snapshot()["gpus"][0]
    assert g["nvlink"][1]["active"] is False
    assert g["nvlink"][0]["errors"]["crc_flit"] is None
    assert g["nvlink"][0]["errors"]["replay"] == 0


def test_the_sampler_writes_json_lines_and_stops_cleanly(monkeypatch, tmp_path):
    fake = FakeNvml([FakeGpu(util_gpu=0), FakeGpu(bus_id="00000000:3B:00.0", mem_used=GIB)]).install(monkeypatch)
    out = tmp_path / "nvml-samples.jsonl"
    sampler = NvmlSampler(out, interval=0.02, host="node-b").start()
    deadline = time.monotonic() + 10
    while (not out.exists() or len(out.read_text().splitlines()) < 6) and time.monotonic() < deadline:
        time.sleep(0.02)
    sampler.stop()
    assert not sampler.running
    assert fake.initialised == 0
    lines = [json.loads(ln) for ln in out.read_text().splitlines()]
    assert len(lines) >= 6
    first, second = lines[0], lines[1]
    assert first["host"] == "node-b" and first["gpu"] == 0 and first["util"] == 0
    assert first["time"].endswith("Z")
    assert second == {**second, "gpu": 1, "pci_bus_id": "00000000:3B:00.0", "mem_used": 1024, "mem_total": 80 * 1024}
    size = out.stat().st_size
    time.sleep(0.1)
    assert out.stat().st_size == size, "no samples after stop()"


def test_the_sampler_without_nvml_records_why_and_ends(tmp_path, monkeypatch):
    FakeNvml([], init_error=pynvml.NVML_ERROR_LIBRARY_NOT_FOUND).install(monkeypatch)
    sampler = NvmlSampler(tmp_path / "s.jsonl", interval=0.01).start()
    sampler.stop()
    assert not sampler.running
    assert sampler.unavailable == "NVML Shared Library Not Found"
