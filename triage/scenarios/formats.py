"""Line formatters: the exact shapes NCCL, PyTorch, torchelastic and the kernel print, by version.

Shapes follow docs/log-formats.md; the version thresholds are the ones given there.
Every function returns finished text lines; callers decide which file they go to.
"""
from __future__ import annotations

from datetime import datetime

from .cluster import Host, Rank

ELASTIC_API = "torch/distributed/elastic/multiprocessing/api.py"
PY_BINARY = "/usr/bin/python3"


# ---------------------------------------------------------------- NCCL

def nccl_prefix(r: Rank, tid: int | None = None, dev: bool = True) -> str:
    return f"{r.host.name}:{r.pid}:{tid or r.main_tid} " + (f"[{r.device}] " if dev else "")


def nccl_info(r: Rank, msg: str, tid: int | None = None) -> str:
    return f"{nccl_prefix(r, tid)}NCCL INFO {msg}"


def nccl_warn(r: Rank, when: datetime, loc: str, msg: str, tid: int | None = None) -> list[str]:
    """A WARN: NCCL starts it with a newline, and from 2.26 puts a timestamp before the prefix."""
    stamp = f"[{when:%Y-%m-%d %H:%M:%S}] " if r.host.nccl_v >= (2, 26) else ""
    return ["", f"{stamp}{nccl_prefix(r, tid)}{loc} NCCL WARN {msg}"]


def nccl_trail(r: Rank, loc: str, rc: int, tid: int | None = None, suffix: str = "") -> str:
    return nccl_info(r, f"{loc} -> {rc}{suffix}", tid)


def nccl_banner(r: Rank) -> tuple[str | None, str]:
    """(bare stdout line or None, INFO line). ≤2.21 prints the banner bare on stdout."""
    text = f"NCCL version {r.host.nccl}+cuda{r.host.cuda}"
    if r.host.nccl_v <= (2, 21, 99):
        return text, nccl_info(r, text)
    return None, nccl_info(r, text)


def bootstrap_line(r: Rank) -> str:
    sep = "Bootstrap: Using" if r.host.nccl_v >= (2, 26) else "Bootstrap : Using"
    return nccl_info(r, f"{sep} eth0:{r.host.ip}<0>")


def init_line(r: Rank, world: int, comm_id: str, what: str) -> str:
    body = (f"comm {r.comm} rank {r.rank} nranks {world} cudaDev {r.device} nvmlDev {r.device} "
            f"busId {r.busid} commId {comm_id} - Init {what}")
    v = r.host.nccl_v
    if v >= (2, 29):
        head = f"[Rank {r.rank}] ncclCommInitRankConfig " if what == "START" else "ncclCommInitRankConfig "
    elif v >= (2, 23):
        head = "ncclCommInitRankConfig "
    elif v >= (2, 21):
        head = "ncclCommInitRank "
    else:
        head = ""
    return nccl_info(r, head + body, r.init_tid)


def nccl_error_name(rc: int) -> str:
    return {1: "unhandled cuda error (run with NCCL_DEBUG=INFO for details)",
            2: "unhandled system error (run with NCCL_DEBUG=INFO for details)",
            3: "internal error - please report this issue to the NCCL developers",
            5: "invalid usage (run with NCCL_DEBUG=WARN for details)",
            6: "remote process exited or there was a network error"}[rc]


NCCL_DETAIL = {
    1: "ncclUnhandledCudaError: Call to CUDA function failed.",
    2: "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. ",
    3: "ncclInternalError: Internal check failed.",
    5: "ncclInvalidUsage: This usually reflects invalid usage of NCCL library.",
    6: "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.",
}


# ---------------------------------------------------------------- PyTorch C++ (c10 logging)

def torch_cpp(r: Rank | None, host: Host, when: datetime, level: str, src: str, msg: str,
              nanos: int = 0) -> str:
    """`[rankR]:[E1201 14:22:01.123456789 file:line] msg` (≥2.4) or `[rankR]:[E file:line] msg`."""
    rank = f"[rank{r.rank}]:" if r is not None else ""
    if host.torch_v >= (2, 4):
        mmdd = when.month * 100 + when.day  # not zero padded: January 5 is 105
        # The fraction is CLOCK_MONOTONIC's nanoseconds (≈ uptime), not the wall clock's; `nanos`
        # spaces out lines printed at the same moment.
        mono = int((when - host.boot_time).total_seconds() * 10**9) + nanos
        return f"{rank}[{level}{mmdd} {when:%H:%M:%S}.{mono % 10**9:09d} {src}] {msg}"
    return f"{rank}[{level} {src}] {msg}"


def pg_prefix(r: Rank) -> str:
    v = r.host.torch_v
    if v >= (2, 5):
        return f"[PG ID 0 PG GUID 0(default_pg) Rank {r.rank}] "
    if v >= (2, 4):
        return f"[PG 0 (default_pg) Rank {r.rank}] "
    return f"[PG 0 Rank {r.rank}] "


def work_repr(seq: int, op: str, numel: int, timeout_ms: int) -> str:
    return f"WorkNCCL(SeqNum={seq}, OpType={op}, NumelIn={numel}, NumelOut={numel}, Timeout(ms)={timeout_ms})"


def watchdog_progress(r: Rank, seq: int, enqueued: int, completed: int) -> str:
    v = r.host.torch_v
    if v >= (2, 6):
        return (f"{pg_prefix(r)} failure detected by watchdog at work sequence id: {seq} "
                f"PG status: last enqueued work: {enqueued}, last completed work: {completed}")
    if v >= (2, 4):
        return (f"{pg_prefix(r)}Exception (either an error or timeout) detected by watchdog at work: "
                f"{seq}, last enqueued NCCL work: {enqueued}, last completed NCCL work: {completed}.")
    return (f"{pg_prefix(r)}Timeout at NCCL work: {seq}, last enqueued NCCL work: {enqueued}, "
            f"last completed NCCL work: {completed}.")


def pg_nccl_src(r: Rank, key: str) -> str:
    """Source line numbers of ProcessGroupNCCL.cpp messages, roughly per release."""
    lines = {
        "timeout": {(2, 3): 563, (2, 4): 607, (2, 5): 616, (2, 6): 632, (2, 7): 684, (2, 8): 700},
        "progress": {(2, 3): 1537, (2, 4): 1664, (2, 5): 1785, (2, 6): 2053, (2, 7): 2168, (2, 8): 2180},
        "teardown": {(2, 3): 577, (2, 4): 621, (2, 5): 630, (2, 6): 681, (2, 7): 698, (2, 8): 714},
        "terminated": {(2, 3): 1182, (2, 4): 1598, (2, 5): 1720, (2, 6): 1895, (2, 7): 1985, (2, 8): 2001},
        "async": {(2, 3): 508, (2, 4): 557, (2, 5): 571, (2, 6): 598, (2, 7): 640, (2, 8): 655},
    }[key]
    return f"ProcessGroupNCCL.cpp:{lines.get((r.host.torch_v[0], r.host.torch_v[1]), 700)}"


def exception_type(r: Rank, kind: str) -> str:
    v = r.host.torch_v
    if kind == "oom":
        return "torch.OutOfMemoryError" if v >= (2, 5) else "torch.cuda.OutOfMemoryError"
    if kind == "cuda":
        return "torch.AcceleratorError" if v >= (2, 8) else "RuntimeError"
    raise ValueError(kind)


def traceback_lines(r: Rank, frames: list[tuple[str, int, str, str]], last: list[str],
                    prefixed: bool = True) -> list[str]:
    """An uncaught exception as torch's excepthook prints it: every line prefixed `[rankR]: `.

    The hook is installed by init_process_group, so exceptions raised before it are plain.
    """
    out = ["Traceback (most recent call last):"]
    for path, line, func, code in frames:
        out.append(f'  File "{path}", line {line}, in {func}')
        out.append(f"    {code}")
    out.extend(last)
    return [f"[rank{r.rank}]: {line}" for line in out] if prefixed else out


def cuda_error_lines(name: str, text: str) -> list[str]:
    return [
        f"CUDA error: {text}",
        f"Search for `{name}' in https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html for more information.",
        "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
        "For debugging consider passing CUDA_LAUNCH_BLOCKING=1",
        "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.",
    ]


# ---------------------------------------------------------------- torchelastic (agent, Python glog style)

def elastic(host: Host, when: datetime, level: str, msg: str, src: str = ELASTIC_API, line: int = 0) -> str:
    mmdd = when.month * 100 + when.day
    usec = when.microsecond // 1000 * 1000  # int(msecs*1000): the last three digits are always 000
    line = line or {"W": 897, "E": 869, "I": 772}[level]
    return f"{level}{mmdd} {when:%H:%M:%S}.{usec:06d} {host.agent_pid} {src}:{line}] {msg}"


SIGNALS = {6: "SIGABRT", 7: "SIGBUS", 9: "SIGKILL", 11: "SIGSEGV", 15: "SIGTERM"}


# One parameter per field of torchrun's failure entry (PLR0913).
def failure_entry(idx: int, when: datetime, host: Host, rank: int, local_rank: int, code: int,  # noqa: PLR0913
                  pid: int, error_file: str | None, callstack: str | None) -> list[str]:
    out = [f"[{idx}]:", f"  time      : {when:%Y-%m-%d_%H:%M:%S}", f"  host      : {host.name}",
           f"  rank      : {rank} (local_rank: {local_rank})", f"  exitcode  : {code} (pid: {pid})",
           f"  error_file: {error_file or '<N/A>'}"]
    if callstack:
        lines = callstack.rstrip("\n").split("\n")
        out.append(f"  traceback : {lines[0]}")
        out.extend(f"  {line}" for line in lines[1:])
    elif code < 0:
        out.append(f"  traceback : Signal {-code} ({SIGNALS.get(-code, 'SIG?')}) received by PID {pid}")
    else:
        out.append("  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html")
    return out


def child_failed_block(entrypoint: str, root: list[str], others: list[list[str]]) -> list[str]:
    out = ["torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ", "=" * 60,
           f"{entrypoint} FAILED", "-" * 60, "Failures:"]
    if others:
        for entry in others:
            out.extend(entry)
    else:
        out.append("  <NO_OTHER_FAILURES>")
    out += ["-" * 60, "Root Cause (first observed failure):"] + root + ["=" * 60]
    return out


# ---------------------------------------------------------------- kernel log

def dmesg(host: Host, when: datetime, msg: str) -> str:
    uptime = (when - host.boot_time).total_seconds()
    return f"[{uptime:12.6f}] {msg}"


def xid(r: Rank, code: int, msg: str, name: str = "python") -> str:
    # With a known process every driver prints pid= and name=; only ≥570 drops them when unknown.
    return f"NVRM: Xid (PCI:{r.pci}): {code}, pid={r.pid}, name={name}, {msg}"
