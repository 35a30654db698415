"""A diagnosis under a memory limit of its own, so an input that gets past the readers' budgets
costs one incident, not the worker.

The engine runs in a forked child whose address space is capped (RLIMIT_AS: what the worker
process already maps, plus TRIAGE_DIAGNOSIS_MEMORY_MB); past it, allocations fail with
MemoryError in the child only, and the parent (the Celery pool process) reads the answer or
the failure from a pipe and goes on with the next task. A child killed outright (the host's
OOM killer, a crash in a C extension) is reported the same way. Celery's
worker_max_memory_per_child still recycles a pool process that grew between tasks.
"""
from __future__ import annotations

import contextlib
import os
import pickle
import resource
import signal
from collections.abc import Callable
from typing import Any

MIB = 1024 * 1024


class DiagnosisOutOfMemory(Exception):
    """The diagnosis passed its memory limit, or its process was killed."""


def mapped_bytes() -> int:
    """This process's virtual size (what RLIMIT_AS counts), from /proc; 0 where unknown."""
    try:
        with open("/proc/self/status", "rb") as f:
            for line in f:
                if line.startswith(b"VmSize:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def run_limited(fn: Callable[[], Any], *, limit_mb: int) -> Any:
    """fn() in a child process with `limit_mb` MiB of address space beyond what this process
    maps; its return value (pickled back), or its exception raised here. DiagnosisOutOfMemory
    when it ran out of memory or died."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        os.close(read_end)
        _child(fn, write_end, limit_mb)
    os.close(write_end)
    try:
        chunks = []
        with os.fdopen(read_end, "rb") as pipe:
            while chunk := pipe.read(1 << 20):
                chunks.append(chunk)
        _, status = os.waitpid(pid, 0)
        pid = 0
    finally:
        if pid:  # interrupted (a soft time limit): the child goes too
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
    data = b"".join(chunks)
    if not data:
        how = (f"killed by signal {os.WTERMSIG(status)} ({signal.Signals(os.WTERMSIG(status)).name})"
               if os.WIFSIGNALED(status) else f"exited with status {os.WEXITSTATUS(status)}")
        raise DiagnosisOutOfMemory(f"the diagnosis process was {how} before it answered (most often the host's "
                                   f"OOM killer); the limit is {limit_mb} MB (TRIAGE_DIAGNOSIS_MEMORY_MB)")
    kind, value = pickle.loads(data)  # noqa: S301 - written by our own child, through our own pipe
    if kind == "ok":
        return value
    if kind == "memory":
        raise DiagnosisOutOfMemory(f"the diagnosis needed more than {limit_mb} MB of memory "
                                   "(TRIAGE_DIAGNOSIS_MEMORY_MB) and was stopped")
    raise value


def _child(fn: Callable[[], Any], write_end: int, limit_mb: int) -> None:
    code = 0
    try:
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        limit = mapped_bytes() + limit_mb * MIB
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
        try:
            answer: tuple[str, Any] = ("ok", fn())
        except MemoryError:
            answer = ("memory", None)
        except BaseException as exc:  # noqa: BLE001 - carried to the parent, raised there
            answer = ("raise", exc)
        try:
            data = pickle.dumps(answer)
        except MemoryError:
            data = pickle.dumps(("memory", None))
        except Exception as exc:  # noqa: BLE001 - an exception that does not pickle
            data = pickle.dumps(("raise", RuntimeError(f"{type(exc).__name__}: {exc}")))
        with os.fdopen(write_end, "wb") as pipe:
            pipe.write(data)
    except BaseException:  # noqa: BLE001 - nothing may run the parent's code in this process
        code = 1
    finally:
        os._exit(code)
