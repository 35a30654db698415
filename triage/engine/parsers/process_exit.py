"""How processes ended: torch elastic agent lines and the ChildFailedError block, DeepSpeed,
vLLM and sglang launcher lines, pdsh, signals, segfaults, `terminate called` (docs/log-formats.md §2.8,
docs/log-formats-launchers.md part B)."""
from __future__ import annotations

import re
import signal

from .. import identity
from ..model import Record
from ..timeparse import full_date
from .base import LineCtx, SourceState, searched

# What the scan gate (scan.py) must let through for this parser: launchers' exit reports and
# failure tables (torchrun's 'Root Cause' block and its field rows), signals and the crash
# reports of the programs around the rank (shell, CPython, C++ terminate, Open MPI, Abseil, UCX).
GATE_MEANING: tuple[str, ...] = (
    r"[Ff]atal",
    r"FATAL",
    r"terminate called",
    r"what\(\):",
    r"SIG(?:KILL|SEGV|ABRT|BUS|TERM|INT|ILL|FPE|QUIT|HUP|PIPE)",
    r"exitcode",
    r"[Ee]xit(?:ed)? (?:code|status|with)",
    r"return code",
    r"[Kk]illed",
    r"died",
    r"[Aa]bort(?:ed|ing)?\b",
    r"Segmentation fault",
    r"core dumped",
    r"Bus error",
    r"Root Cause",
    r"Failures:",
    r"^ {2,}(?:exitcode|error_file|traceback) +: ",
    r"[Cc]losing signal",
    r"death signal",
)
GATE_IDENTITY: tuple[str, ...] = (r"sigquit",)

_ELASTIC_FAILED = identity.pattern("torchrun.failed_local_rank")
_CLOSING = re.compile(r"Sending process (?P<pid>\d+) closing signal (?P<sig>SIG\w+)")
_NO_ERROR_FILE = re.compile(r"local_rank (?P<lrank>\d+) FAILED with no error file")
_BLOCK_FIELD = re.compile(r"^\s+(?P<key>time|host|rank|exitcode|error_file|traceback)\s*: ?(?P<val>.*)$")
_BLOCK_INDEX = re.compile(r"^\s*\[(?P<idx>\d+)\]:\s*$")
# An entry's first field with the elastic summary's own time format: an entry even where the
# excerpt starts below its '[N]:' header.
_BLOCK_TIME = re.compile(r"^\s+time\s*: \d{4}-\d\d-\d\d_\d\d:\d\d:\d\d\s*$")
_SIGNAL_RECEIVED = re.compile(r"Signal (?P<num>\d+) \((?P<name>SIG\w+)\) received by PID (?P<pid>\d+)")
_DS_EXIT = re.compile(r"exits with return code = (?P<code>-?\d+)")
_DS_LOCAL_RANK = re.compile(r"--local_rank=(?P<lrank>\d+)")
_DS_KILLING = re.compile(r"Killing subprocess (?P<pid>\d+)")
_VLLM_DIED = re.compile(r"Worker \w+ pid (?P<pid>\d+) died, exit code: (?P<code>-?\d+)")
_PDSH_EXIT = re.compile(r"ssh exited with exit code (?P<code>\d+)")
_UCX = re.compile(r"Caught signal (?P<num>\d+) \((?P<what>[^)]*)\)")
# UCX's handler then prints the crashing thread's stack; a main thread's tid is its process's pid.
_UCX_BACKTRACE = re.compile(r"^==== backtrace \(tid: *(?P<tid>\d+)\) ====\s*$")
_TERMINATE = re.compile(r"terminate called after throwing an instance of '(?P<type>[^']+)'")
_WHAT = re.compile(r"^\s*what\(\):\s+(?P<what>.*)$")
_SEGV = re.compile(r"Fatal Python error: (?P<what>Segmentation fault|Bus error|Aborted)|Segmentation fault(?: \(core "
                   r"dumped\))?|Bus error \(core dumped\)")
_SHELL_KILLED = re.compile(r"^(?:.*: )?(?:line \d+: )?\d*\s*Killed\b")
# Crash reporters inside the process: Open MPI's signal handler ('[host:pid] Signal: %s (%d)',
# the prefix peeled by demux) and Abseil's failure signal handler ('*** %s received at time=').
_OMPI_SIGNAL = re.compile(r"^Signal: (?P<what>[A-Za-z][\w /-]*?) \((?P<num>\d+)\)\s*$")
_ABSL_SIGNAL = re.compile(r"\*\*\* (?:(?P<name>SIG[A-Z]+)|Signal (?P<num>\d+)) received at time=\d+")
_FAULTHANDLER = re.compile(r"Fatal Python error: (?P<what>Floating point exception|Illegal instruction)")
_SGLANG_SIGQUIT = re.compile(r"Received sigquit from a child process")
_VLLM_INIT_FAIL = re.compile(r"Error executing method (?P<method>\w+)\. This might cause deadlock")


_SHELL_KILLED_MAX = 120  # a shell's "Killed" line is short; a longer one is prose

def signal_name(code: int) -> str | None:
    if code >= 0:
        return None
    try:
        return signal.Signals(-code).name
    except ValueError:
        return None


def parse(ctx: LineCtx, state: SourceState) -> list[Record]:  # noqa: C901 - one early return per message kind
    body = ctx.body
    out: list[Record] = []
    block = _failure_block(ctx, state, body)
    if block is not None:
        return block
    m = _ELASTIC_FAILED.search(body)
    if m:
        code = int(m["x_code"])
        return [
            ctx.record(
                "process_exit",
                exitcode=code,
                signal=signal_name(code),
                local_rank=int(m["local_rank"]),
                child_pid=int(m["pid"]),
                reporter="elastic",
            )
        ]
    m = _CLOSING.search(body)
    if m:
        return [ctx.record("closing_signal", child_pid=int(m["pid"]), signal=m["sig"])]
    m = _NO_ERROR_FILE.search(body)
    if m:
        return [ctx.record("process_exit_no_error_file", local_rank=int(m["lrank"]))]
    m = _DS_EXIT.search(body)
    if m:
        code = int(m["code"])
        lr = _DS_LOCAL_RANK.search(body)
        return [
            ctx.record(
                "process_exit",
                exitcode=code,
                signal=signal_name(code),
                local_rank=None,
                # The launcher prints the last command it spawned, not the one that failed.
                command_local_rank=int(lr["lrank"]) if lr else None,
                reporter="deepspeed",
            )
        ]
    if "sigkill_handler" in body and ("exits with" in body or "--local_rank" in body):
        # The tail of the line (and its return code) was cut off: the launcher saw a child die.
        return [ctx.record("process_exit", exitcode=None, signal=None, local_rank=None,
                          reporter="deepspeed")]
    m = _DS_KILLING.search(body)
    if m:
        return [ctx.record("launcher_killing", child_pid=int(m["pid"]))]
    m = _VLLM_DIED.search(body)
    if m:
        code = int(m["code"])
        return [ctx.record("process_exit", exitcode=code,
                          signal=signal_name(code), child_pid=int(m["pid"]), reporter="vllm")]
    m = _VLLM_INIT_FAIL.search(body)
    if m:
        return [ctx.record("worker_method_failed", method=m["method"])]
    m = _PDSH_EXIT.search(body)
    if m:
        return [ctx.record("remote_exit", exitcode=int(m["code"]))]
    m = _SIGNAL_RECEIVED.search(body)
    if m and not state.failure_block:
        return [ctx.record("signal_received", signal=m["name"], child_pid=int(m["pid"]))]
    ucx = _ucx(ctx, body)
    if ucx:
        return ucx
    m = _TERMINATE.search(body)
    if m:
        state.extra["terminate"] = True
        return [ctx.record("terminate_called", exc_type=m["type"])]
    m = _WHAT.match(body)
    if m and state.extra.pop("terminate", False):
        return [ctx.record("terminate_what", what=m["what"])]
    # (The costliest search tried only where the line holds what its pattern needs.)
    m = searched(_SEGV, body, body.lower())
    if m:
        what = m["what"] or m.group(0)
        sig = "SIGSEGV" if "Segmentation" in what else ("SIGBUS" if "Bus" in what else "SIGABRT")
        return [ctx.record("crash_signal", signal=sig, what=what)]
    m = _OMPI_SIGNAL.match(body) if ctx.origin.pid is not None else None
    if m:
        return [ctx.record("crash_signal", signal=signal_name(-int(m["num"])), what=m["what"],
                          reporter="openmpi")]
    m = _ABSL_SIGNAL.search(body)
    if m:
        name: str | None = m["name"] or signal_name(-int(m["num"]))
        return [ctx.record("crash_signal", signal=name, what=name or m.group(0), reporter="abseil")]
    m = _FAULTHANDLER.search(body)
    if m:
        sig = "SIGFPE" if m["what"].startswith("Floating") else "SIGILL"
        return [ctx.record("crash_signal", signal=sig, what=m["what"], reporter="faulthandler")]
    if _SGLANG_SIGQUIT.search(body):
        return [ctx.record("child_failed", reporter="sglang")]
    if len(body) < _SHELL_KILLED_MAX and "Killed" in body and _SHELL_KILLED.match(body):
        return [ctx.record("crash_signal", signal="SIGKILL", what="Killed")]
    return out


def _ucx(ctx: LineCtx, body: str) -> list[Record]:
    """UCX's fatal-signal handler: 'Caught signal N (what)', then the crashing thread's stack."""
    m = _UCX.search(body)
    if m:
        return [ctx.record("crash_signal", signal=signal_name(-int(m["num"])), what=m["what"])]
    m = _UCX_BACKTRACE.match(body)
    return [ctx.record("crash_backtrace", tid=int(m["tid"]))] if m else []


def _failure_block(ctx: LineCtx, state: SourceState, body: str) -> list[Record] | None:
    """The ChildFailedError summary: 'Root Cause (first observed failure):' then fields."""
    if "Root Cause (first observed failure)" in body:
        _flush(ctx, state)
        state.failure_section = "root"
        return []
    if body.strip() == "Failures:":
        _flush(ctx, state)
        state.failure_section = "other"
        return []
    if state.failure_section is None and _BLOCK_TIME.match(body):
        state.failure_section = "other"
        state.failure_block = {"line": ctx.lineno, "text": ctx.text, "source": ctx.source}
    if state.failure_section is None:
        return None
    if body.startswith("====") or body.startswith("----") or _BLOCK_INDEX.match(body) or not body[:1].isspace():
        state.extra.pop("block_owner", None)
    m = _BLOCK_INDEX.match(body)
    if m:
        events = _flush(ctx, state)
        state.failure_block = {"line": ctx.lineno, "text": ctx.text, "source": ctx.source}
        return events
    m = _BLOCK_FIELD.match(body)
    if m and state.failure_block is not None:
        state.failure_block[m["key"]] = m["val"].strip()
        state.failure_block.setdefault("lines", []).append((ctx.lineno, ctx.text))
        if m["key"] == "traceback":
            events = _flush(ctx, state, keep_section=True)
            # The indented lines after 'traceback :' are that failure's own traceback.
            if events and events[0].rank is not None:
                state.extra["block_owner"] = (events[0].rank, events[0].host)
            return events
        return []
    if body.startswith("====") or body.startswith("----"):
        return _flush(ctx, state, keep_section=True)
    return None


def _flush(ctx: LineCtx, state: SourceState, keep_section: bool = True) -> list[Record]:
    block = state.failure_block
    state.failure_block = None
    if not keep_section:
        state.failure_section = None
    if not block or "exitcode" not in block:
        return []
    ec = re.match(r"(?P<code>-?\d+)(?: \(pid: (?P<pid>\d+)\))?", block.get("exitcode", ""))
    rk = re.match(r"(?P<rank>\d+)(?: \(local_rank: (?P<lr>\d+)\))?", block.get("rank", ""))
    code = int(ec["code"]) if ec else None
    sig = _SIGNAL_RECEIVED.search(block.get("traceback", ""))
    when = full_date(block.get("time", "").replace("_", " "))
    lines = block.get("lines", [])
    line_no, line_text = next(((n, t) for n, t in lines if "exitcode" in t), (ctx.lineno, ctx.text))
    ev = ctx.record(
        "elastic_failure",
        message=f"rank {rk['rank'] if rk else '?'} exitcode {code}",
        exitcode=code,
        signal=sig["name"] if sig else signal_name(code) if code is not None else None,
        local_rank=int(rk["lr"]) if rk and rk["lr"] else None,
        child_pid=int(ec["pid"]) if ec and ec["pid"] else None,
        root_cause=state.failure_section == "root",
        failure_time=when.isoformat() if when else None,
        failure_host=block.get("host"),
        # '<N/A>' where the process wrote no error file: its time is then when the agent saw it
        # exit, not when it failed (errors.ProcessFailure).
        error_file=block.get("error_file"),
    )
    ev.line = line_no
    ev.text = line_text
    ev.rank = int(rk["rank"]) if rk else None
    ev.host = block.get("host") or ev.host
    ev.pid = ev.data["child_pid"]
    if when:
        ev.time = when
    return [ev]
