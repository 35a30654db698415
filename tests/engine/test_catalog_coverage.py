"""tools/catalog_coverage.py counts honestly: which raise texts are failures, how a message is
printed, what counts as an entry for it, and the C preprocessor branches it leaves out."""
from __future__ import annotations

import importlib.util
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
