"""tools/catalog_coverage.py counts honestly: which raise texts are failures, how a message is
printed, what counts as an entry for it, and the C preprocessor branches it leaves out."""
from __future__ import annotations

import importlib.util
import os
from pathlib import Path
from types import ModuleType

import pytest

TOOL = Path(__file__).resolve().parents[2] / "tools" / "catalog_coverage.py"


@pytest.fixture(scope="module")
def tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("catalog_coverage", TOOL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SOURCE = '''
import sys
IS_WINDOWS = sys.platform == "win32"

class StoreGoneError(RuntimeError):
    pass

class BadConfigError(ValueError):
    pass

def f(x, timeout):
    if x is None:
        raise ValueError("Connection to the store timed out, but this is an argument check")
    if x == 1:
        raise BadConfigError("store failed: a ValueError subclass is still an argument check")
    if x == 2:
        raise RuntimeError(f"Timed out after {timeout}s waiting for the store")
    if x == 3:
        raise StoreGoneError("The store process exited with code " + str(x))
    if x == 4:
        raise RuntimeError("Cannot specify both init_method and store, it failed")
    if x == 5:
        raise RuntimeError("The layout is not what this function takes")
    if IS_WINDOWS:
        raise OSError("CRT _dup failed for stdout")
    raise _error("rank parameter missing")
'''


def test_python_failures_keep_runtime_failures_only(tool: ModuleType) -> None:
    found = tool.python_failures([("pkg/dist/store.py", SOURCE)])
    assert found == ["RuntimeError: Timed out after {}s waiting for the store",
                     "pkg.dist.store.StoreGoneError: The store process exited with code {}"]


def test_modules_outside_a_job_are_left_out(tool: ModuleType) -> None:
    assert tool.python_failures([("torch/distributed/_tools/est.py", SOURCE)]) == []
    assert tool.python_failures([("torch/distributed/elastic/est.py", SOURCE)]) != []


def test_windows_branches_of_c_source_are_left_out(tool: ModuleType) -> None:
    source = ('#if defined(NCCL_OS_WINDOWS)\nWARN("IPC: Pipe name too long");\n#elif defined(NCCL_OS_LINUX)\n'
              'WARN("Linux only");\n#else\nWARN("other");\n#endif\nWARN("always");\n')
    kept = tool.without_windows(source)
    assert "Pipe name" not in kept
    assert "Linux only" in kept and "other" in kept and "always" in kept


def test_inttypes_macros_are_read_as_conversions(tool: ModuleType) -> None:
    source = 'INFO(NCCL_RAS, "RAS idle timeout (%" PRId64 "s) on socket connection with %s", a, b);'
    assert tool._call_strings(source, r"INFO\(\s*NCCL_\w+\s*,\s*") == ["RAS idle timeout (%lds) on socket connection with %s"]


def test_a_generic_entry_of_the_shape_does_not_count(tool: ModuleType) -> None:
    # torch.exc.runtime_error_generic reads every RuntimeError: it says nothing about this one.
    assert tool.covered("RuntimeError: qzx the frobnicator wvy failed") is None
    assert tool.covered("gpu-a:1:2 [0] x.cc:1 NCCL WARN qzx the frobnicator wvy failed") is None
    # An entry that reads the message's own words counts.
    assert tool.covered("RuntimeError: Checkpoint background process is dead. Exit code: {}") == "torch.dcp.async_process_dead"
    # An entry whose meaning is the exception class counts too (not a catch-all of the shape).
    assert tool.covered("torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError: zzz") == "torch.elastic.rdzv_timeout"


# ------------------------------------------------------------------ NVRM (the NVIDIA kernel driver)
DRIVER_SOURCE = r'''
static NV_STATUS
_kgspRpcRecvPoll
(
    OBJGPU *pGpu
)
{
    NV_PRINTF(LEVEL_ERROR, "GSP RM heartbeat timed out\n");
    NV_PRINTF(LEVEL_INFO, "GSP RM heartbeat timed out at info level\n");
    NV_PRINTF(LEVEL_ERROR, "Failed to allocate memdesc for GSP heartbeat buffer\n");
    NV_PRINTF(LEVEL_ERROR, "Invalid parameter 0x%x\n", x);
}

void nv_shutdown(nv_state_t *nv)
{
    nv_printf(NV_DBG_ERRORS, "NVRM: The NVIDIA GPU %04x:%02x:%02x.%x\n"
              "NVRM: installed in this system has\n"
              "NVRM: fallen off the bus and is not responding to commands.\n", a, b, c, d);
    NV_DEV_PRINTF(NV_DBG_ERRORS, nv, "RmInitAdapter failed! (0x%x:0x%x:%d)\n", a, b, c);
    nv_printf(NV_DBG_INFO, "NVRM: fallen off the bus, but only at info level\n");
}
'''


def test_nvrm_lines_are_the_error_level_failures_as_the_kernel_log_shows_them(tool: ModuleType) -> None:
    lines = tool.nvrm_lines("src/nvidia/src/kernel/gpu/gsp/kernel_gsp.c", DRIVER_SOURCE)
    # RM's prefix (its GPU instance and the function), kernel-open's own 'NVRM:' and NV_DEV_PRINTF's
    # PCI id; one kernel-log line per '\n'; INFO levels, the driver's own bookkeeping (an allocation,
    # a parameter check) and lines naming no failure of the GPU are left out.
    assert lines == ["NVRM: GPU0 _kgspRpcRecvPoll: GSP RM heartbeat timed out",
                     "NVRM: fallen off the bus and is not responding to commands.",
                     "NVRM: GPU 0000:3b:00.0: RmInitAdapter failed! (0x%x:0x%x:%d)"]


def test_nvrm_paths_off_a_training_node_are_left_out(tool: ModuleType) -> None:
    assert tool.nvrm_lines("src/nvidia/src/kernel/gpu/disp/head.c", DRIVER_SOURCE) == []
    assert tool.nvrm_lines("kernel-open/nvidia/nv-platform.c", DRIVER_SOURCE) == []
    assert tool.nvrm_lines("kernel-open/nvidia/nv.c", DRIVER_SOURCE) != []


# ------------------------------------------------------------------ vLLM's fallback warnings
VLLM_SOURCE = '''
import logging
logger = logging.getLogger(__name__)

def init(world_size):
    if world_size > 8:
        logger.warning("Custom quick allreduce is disabled due to an unsupported world size: %d.", world_size)
    logger.warning("Peer %s is slow", 3)
    logger.info("Falling back to NCCL at info level")
    raise RuntimeError("Barrier timed out after 30 seconds")
'''


SGLANG_SOURCE = '''
import logging
logger = logging.getLogger(__name__)

def can_use(world_size, cls_name):
    if world_size > 8:
        logger.warning(f"{cls_name} is disabled due to an unsupported world size: {world_size}.")
    logger.warning(f"{cls_name} found peer %s slow", 3)
    logger.warning("Two processes do not agree on the P2P access status on %d -> %d, treat as disabled.", 0, 1)
    logger.warning(f"Setup {cls_name} failed with {world_size}. To silence this warning, specify --disable-it.")

class CustomAllreduce:
    def __init__(self):
        can_use(8, cls_name="CustomAllreduce")

class CustomAllReduceV2:
    def __init__(self):
        can_use(8, cls_name="CustomAllReduceV2")
'''


def test_a_fallback_warning_names_each_class_its_callers_pass_as_sglang_prints_it(tool: ModuleType) -> None:
    found = tool.python_fallbacks([("sglang/srt/distributed/device_communicators/custom_all_reduce_utils.py",
                                    SGLANG_SOURCE)], tool.SGLANG_LINE)
    assert found == ["[2026-12-04 10:00:02 TP0] CustomAllreduce is disabled due to an unsupported world size: {}.",
                     "[2026-12-04 10:00:02 TP0] CustomAllReduceV2 is disabled due to an unsupported world size: {}.",
                     "[2026-12-04 10:00:02 TP0] Two processes do not agree on the P2P access status on %d -> %d, "
                     "treat as disabled.",
                     "[2026-12-04 10:00:02 TP0] Setup {} failed with {}. To silence this warning, specify --disable-it."]


def test_fallback_warnings_are_warnings_that_say_the_program_goes_on_another_way(tool: ModuleType) -> None:
    found = tool.python_fallbacks([("vllm/distributed/device_communicators/quick_all_reduce.py", VLLM_SOURCE)])
    assert found == ["WARNING 12-04 10:00:02 [quick_all_reduce.py:7] Custom quick allreduce is disabled due to an "
                     "unsupported world size: %d."]
    assert tool.python_failures([("vllm/distributed/utils.py", VLLM_SOURCE)]) == [
        "RuntimeError: Barrier timed out after 30 seconds"]


# ------------------------------------------------------------------ the measured shares hold
# Each source's share with an entry, as measured when its entries were written (README's coverage
# table): a catalog change that loses messages fails here. The sources are the fetched driver
# mirror and the downloaded vLLM and SGLang wheels (see the tool's --help); a machine without them cannot
# measure, and says so.
MIRROR = Path(os.environ.get("TRIAGE_MIRROR", "/work/.mirror"))
VLLM_WHEEL = Path(os.environ.get("TRIAGE_VLLM_WHEEL", "/tmp/sdist/vllm-0.34.0-cp38-abi3-manylinux_2_28_x86_64.whl"))
SGLANG_WHEEL = Path(os.environ.get("TRIAGE_SGLANG_WHEEL", "/tmp/sdist/sglang-0.5.10-py3-none-any.whl"))
FLOORS = {  # row prefix -> (messages at least, entries at least)
    "NVRM error lines": (136, 136),
    "NVRM status codes in assertion lines": (15, 15),
    "vLLM raise": (112, 111),
    "vLLM fallback warnings": (29, 29),
    "SGLang fallback warnings": (17, 17),
}


def _measured(tool: ModuleType) -> dict[str, tuple[int, int]]:
    driver = MIRROR / "NVIDIA+open-gpu-kernel-modules" / "repo"
    if not driver.is_dir() or not VLLM_WHEEL.is_file() or not SGLANG_WHEEL.is_file():
        pytest.skip(f"needs the driver mirror ({driver}) and the vLLM and SGLang wheels ({VLLM_WHEEL}, {SGLANG_WHEEL}): "
                    "TRIAGE_MIRROR, TRIAGE_VLLM_WHEEL, TRIAGE_SGLANG_WHEEL")
    rows = {**tool.nvrm_messages(driver), **tool.vllm_messages(VLLM_WHEEL), **tool.wheel_messages(SGLANG_WHEEL)}
    return {name: (len(msgs), sum(1 for m in msgs if tool.covered(m))) for name, msgs in rows.items()}


def test_the_new_sources_keep_their_measured_coverage(tool: ModuleType) -> None:
    measured = _measured(tool)
    for prefix, (messages, covered) in FLOORS.items():
        name = next(n for n in measured if n.startswith(prefix))
        n, k = measured[name]
        assert n >= messages, f"{name}: the reader found {n} messages, {messages} before: it lost some"
        assert k >= covered and k / n >= covered / messages, f"{name}: {k}/{n} with an entry, {covered}/{messages} before"
