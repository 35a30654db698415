"""Python tracebacks: the exception type, its message, the last frame (where it was raised) and
the few frames above it (what called it: a library's own code often raises from the stdlib).

Frames may be interleaved with other ranks' lines in a combined log; the state is per source
and per rank prefix, and an exception line is recognised on its own even when the
'Traceback (most recent call last):' header was cut off (as in most posted excerpts).
"""
from __future__ import annotations

import re

from ..model import Record
from .base import LineCtx, SourceState

# What the scan gate (scan.py) must let through for this parser: a traceback's header and its
# exception line (frames follow a line the gate keeps; see scan.CONTEXT_BEFORE).
GATE_MEANING: tuple[str, ...] = (
    r"Traceback \(most recent",
    r"The above exception was the direct cause",
    r"[A-Z][A-Za-z0-9_]*(?:Error|Exception|Interrupt)(?::|\r?$)",
)

_HEADER = re.compile(r"Traceback \(most recent call last\):")
# CPython's line between an exception and the one raised from it (`raise B from A`; Lib/
# traceback.py _cause_message, 3.0-3.14): the exception after it is A's wrapper. The implicit
# chain ('During handling of the above exception, another exception occurred') is not a cause:
# the handler itself may have failed.
_CAUSE = re.compile(r"^\s*The above exception was the direct cause of the following exception:")
# CPython's report of an exception it could not raise (PyErr_WriteUnraisable: in __del__, a
# callback, at interpreter shutdown): 'Exception ignored in: <function X.__del__ ...>', then the
# traceback. The program goes on; it is not a crash.
_IGNORED = re.compile(r"^\s*Exception ignored (?:in|on|while)\b")
_IGNORED_GAP = 2  # lines from "Exception ignored in:" to the traceback it introduces
# Frames kept per traceback, innermost last: enough to reach from a stdlib frame (json, socket)
# up through the library code that called it, bounded whatever the traceback's depth.
STACK_FRAMES = 12
_FRAME = re.compile(r'^\s*File "(?P<file>[^"]+)", line (?P<line>\d+), in (?P<func>\S+)')
# 'torch.distributed.DistBackendError: ...', 'RuntimeError: ...', 'torch.OutOfMemoryError: ...'
_EXC = re.compile(
    r"^(?P<type>(?:[A-Za-z_][\w]*\.)*(?:[A-Z]\w*(?:Error|Exception|Interrupt|Exit|Failure)|OutOfMemoryError|ChildFailedError))(?:\s*:\s?(?P<msg>.*))?$"
)


def _key(ctx: LineCtx) -> str:
    o = ctx.origin
    return f"{o.rank}|{o.host}|{o.pid}"


def _follows_ignored(ignored: dict[str, int], key: str, lineno: int) -> bool:
    """This line comes right after an 'Exception ignored in:' line of the same writer (which is
    then used up)."""
    at = ignored.pop(key, None)
    return at is not None and lineno - at <= _IGNORED_GAP


def parse(ctx: LineCtx, state: SourceState) -> list[Record]:
    body = ctx.body
    ignored_line = _IGNORED.match(body)
    header = not ignored_line and "Traceback" in body and _HEADER.search(body)
    frame_m = None if ignored_line or header else _FRAME.match(body)
    m = None if ignored_line or header or frame_m else _EXC.match(body.strip())
    cause_line = not (ignored_line or header or frame_m or m) and "direct cause" in body and _CAUSE.match(body)
    if not (ignored_line or header or frame_m or m or cause_line):
        return []  # most lines: no per-writer state to look at
    tbs = state.extra.setdefault("tracebacks", {})
    key = _key(ctx)
    # Per writer: the line of its last exception, and the exception a following one is raised from.
    last_exc = state.extra.setdefault("last_exception_at", {})
    raised_from = state.extra.setdefault("raised_from", {})
    if cause_line:
        if key in last_exc:
            raised_from[key] = last_exc[key]
        return []
    ignored = state.extra.setdefault("ignored_at", {})
    if ignored_line:
        ignored[key] = ctx.lineno
        return []
    if header:
        tbs[key] = {"frames": [], "line": ctx.lineno, "text": ctx.text[:500],
                    "ignored": _follows_ignored(ignored, key, ctx.lineno)}
        return []
    if frame_m:
        tb = tbs.setdefault(key, {"frames": [], "line": ctx.lineno, "text": ctx.text[:500]})
        tb["frames"].append(f"{frame_m['file']}:{frame_m['line']} in {frame_m['func']}")
        del tb["frames"][:-STACK_FRAMES]
        return []
    if m is None or (m["msg"] is None and not tbs.get(key)):
        return []
    exc_type = m["type"]
    msg = (m["msg"] or "").strip()
    # 'RuntimeError    : x' is two tracebacks spliced together: still an exception line.
    tb = tbs.pop(key, None)
    frame = tb["frames"][-1] if tb and tb["frames"] else None
    # The torch.distributed call the process was in (all_reduce, barrier ...): its frame in
    # the public API module, which every collective goes through.
    call = next((f.rsplit(" in ", 1)[1] for f in reversed(tb["frames"]) if "distributed_c10d.py:" in f),
                None) if tb else None
    short = exc_type.rsplit(".", 1)[-1]
    if (tb and tb.get("ignored")) or _follows_ignored(ignored, key, ctx.lineno):
        return [ctx.record("exception_ignored", message=f"{exc_type}: {msg}" if msg else exc_type,
                          exc_type=exc_type, exc_short=short, exc_message=msg, frame=frame)]
    if short in ("ChildFailedError",):
        return [ctx.record("child_failed", exc_type=exc_type, message=msg)]
    last_exc[key] = ctx.lineno
    # Only the exception right after the cause line (its traceback between) is the wrapper.
    from_line = raised_from.pop(key, None)
    from_line = from_line if tb is not None else None
    return [
        ctx.record(
            "exception",
            message=f"{exc_type}: {msg}" if msg else exc_type,
            exc_type=exc_type,
            exc_short=short,
            exc_message=msg,
            frame=frame,
            # The frames above the last one, outermost first (only where there are such).
            stack=tuple(tb["frames"][:-1]) if tb and len(tb["frames"]) > 1 else None,
            dist_call=call,
            had_header=tb is not None,
            # The line of the exception this one was raised from (`raise ... from`), same writer.
            raised_from_line=from_line,
        )
    ]
