"""PyTorch Flight Recorder dumps, read into a small per-rank summary.

What the recorder writes (torch/csrc/distributed/c10d/FlightRecorder*.cpp; the analyzer's schema
in torch/distributed/flight_recorder/components/types.py): one file per rank, `<prefix><rank>`
(TORCH_FR_DUMP_TEMP_FILE, formerly TORCH_NCCL_DEBUG_INFO_TEMP_FILE), a pickle (protocol 2) or,
through `_dump_fr_trace_json`, JSON, of

    {"version": "2.10", "pg_config": {pg name: {"name", "desc", "ranks": "[0, 1]"}},
     "pg_status": {pg id: {"last_enqueued_collective", "last_started_collective",
                           "last_completed_collective"}},
     "comm_lib_version": ..., "nccl_comm_state": ...,
     "entries": [{"record_id", "pg_id", "process_group": [name, desc], "collective_seq_id",
                  "p2p_seq_id", "op_id", "profiling_name": "nccl:all_reduce", "time_created_ns",
                  "input_sizes", "input_dtypes", "output_sizes", "output_dtypes",
                  "state": "scheduled|started|completed", "time_discovered_started_ns",
                  "time_discovered_completed_ns", "retired", "timeout_ms", "is_p2p",
                  "frames": [{"name", "filename", "line"}], ...}]}

Older versions (2.2-2.4 era) name the sequence `seq_id`, lack `process_group`, dtypes,
`is_p2p` or `pg_status`; gloo fills only `time_created_ns` and leaves every state
`scheduled`, marking finished work `retired`. All of that is read here.

Which rank wrote a dump: torch's writer appends the rank to the prefix it was given
(`${TORCH_FR_DUMP_TEMP_FILE}${rank}`), and the dumps of torch 2.13 (version "2.10") hold no
rank of their own (checked: the keys are version, pg_config, pg_status, comm_lib_version,
nccl_comm_state, entries). So, in order: a top-level integer `rank` where a dump carries one;
the collector manifest's rank (the collector knows the prefix it or the user set,
collectors/bundle.py); the name where it is torch's default prefix, which says what it is:
`comm_lib_trace_rank_<rank>` (torch 2.13's default, `~/.cache/torch/comm_lib_trace_rank_`, from
the strings of libtorch_cpu) or `nccl_trace_rank_<rank>` (older torch: `/tmp/nccl_trace_rank_`).
Any other name's trailing digits say nothing (`job_2024.pkl`, a renamed `k3j9`): the rank
stays unknown rather than invented.

A dump of 20,000 entries is read streaming: each entry is reduced to a few fields as it is
read; per process group only the last KEEP_ENTRIES entries are kept (where the ranks stand),
plus a sampled trace of the sequence over time for the timeline. Python frames are kept for
the entries where a rank stands, never for the whole ring buffer.
"""
from __future__ import annotations

import ast
import json
import re
from collections import deque
from typing import IO, Any

from .plainpickle import MalformedPickle, RefusedPickle, load_plain

KEEP_ENTRIES = 24  # per process group: the tail of the ring buffer, where the ranks stand
KEEP_POINTS = 96  # per process group: (seq, time) samples for the timeline
KEEP_FRAMES = 6  # user frames kept per entry
MAX_DUMP_BYTES = 2 * 1024**3
_JSON_CHUNK = 1 << 20
_DEFAULT_NAME = re.compile(r"^(?:comm_lib|nccl)_trace_rank_(\d+)(?:\.(?:json|pkl|pickle))?$")
_PICKLE_HEAD = re.compile(rb"^\x80[\x02-\x05]")
_JSON_HEAD = re.compile(rb"^\s*\{")
# Keys only a flight-recorder dump has together (pickle: plain strings in the first bytes).
_FR_WORDS = (b"pg_config", b"pg_status", b"collective_seq_id", b"profiling_name", b"time_created_ns")


class DumpError(ValueError):
    pass


def is_pickle(head: bytes) -> bool:
    return bool(_PICKLE_HEAD.match(head))


def looks_like_dump(head: bytes) -> bool:
    """A flight-recorder dump by its first bytes: a pickle or a JSON object holding the
    recorder's own keys (`entries` with `pg_config`/`profiling_name`/...)."""
    if not (is_pickle(head) or _JSON_HEAD.match(head)):
        return False
    return (b"entries" in head and sum(w in head for w in _FR_WORDS) >= 2  # noqa: PLR2004 - two of the words
            or b"pg_config" in head and b"version" in head)


def rank_from_name(name: str) -> int | None:
    """The rank in torch's default dump name, `comm_lib_trace_rank_<rank>` or
    `nccl_trace_rank_<rank>`; None for any other name
    (see the module docstring)."""
    m = _DEFAULT_NAME.match(name.rsplit("/", 1)[-1])
    return int(m.group(1)) if m else None


def _int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.lstrip("-").isdigit():
        return int(value)
    return None


def _ranks(text: Any) -> list[int]:
    if isinstance(text, (list, tuple)):
        return [r for r in (_int(x) for x in text) if r is not None]
    if isinstance(text, str):
        try:
            parsed = ast.literal_eval(text.strip())
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            return []
        if isinstance(parsed, (list, tuple)):
            return [r for r in (_int(x) for x in parsed) if r is not None]
    return []


def _frames(frames: Any) -> list[dict[str, Any]]:
    """The caller's frames first: torch's own (distributed_c10d, c10d_logger) and the launcher's
    (multiprocessing, runpy) are dropped when user frames remain."""
    if not isinstance(frames, list):
        return []
    out: list[dict[str, Any]] = []
    for f in frames:
        if isinstance(f, dict):
            out.append({"name": str(f.get("name", "")), "file": str(f.get("filename", "")),
                        "line": _int(f.get("line"))})
    user = [f for f in out if not _library(str(f["file"]))]
    return (user or out)[:KEEP_FRAMES]


def _library(path: str) -> bool:
    return ("/torch/" in path or "/multiprocessing/" in path or path.endswith(("/runpy.py", "/threading.py"))
            or "/site-packages/" in path or "/dist-packages/" in path)


def _sizes(value: Any) -> list[list[int]]:
    if not isinstance(value, list):
        return []
    return [[x for x in s if isinstance(x, int)] if isinstance(s, list) else [] for s in value][:16]


def _strs(value: Any) -> list[str]:
    return [str(x) for x in value][:16] if isinstance(value, list) else []


class DumpSummary:
    """Built entry by entry; `to_dict()` is the plain, JSON-able summary the engine keeps."""

    def __init__(self) -> None:
        self.groups: dict[str, dict[str, Any]] = {}
        self.total = 0
        self.backends: set[str] = set()

    def add(self, entry: Any) -> None:
        if not isinstance(entry, dict):
            return
        self.total += 1
        name = str(entry.get("profiling_name") or "")
        backend, _, op = name.partition(":") if ":" in name else ("", "", name)
        if backend:
            self.backends.add(backend)
        pg = entry.get("process_group")
        pg_name = str(pg[0]) if isinstance(pg, (list, tuple)) and pg else str(entry.get("pg_id", ""))
        pg_desc = str(pg[1]) if isinstance(pg, (list, tuple)) and len(pg) > 1 else ""
        seq = _int(entry.get("collective_seq_id", entry.get("seq_id")))
        is_p2p = bool(entry.get("is_p2p")) or op.split(" ")[0] in ("send", "recv")
        group = self.groups.get(pg_name)
        if group is None:
            group = self.groups[pg_name] = {"name": pg_name, "desc": pg_desc, "pg_id": _int(entry.get("pg_id")),
                                            "tail": deque(maxlen=KEEP_ENTRIES), "points": [], "step": 1,
                                            "first_open": None, "count": 0, "p2p": 0}
        if is_p2p:
            group["p2p"] += 1
            return
        state = str(entry.get("state") or "")
        done = state == "completed" or entry.get("retired") is True
        compact: dict[str, Any] = {
            "seq": seq, "op": op.split(" ")[0], "state": state, "retired": bool(entry.get("retired")), "done": done,
            "in_sizes": _sizes(entry.get("input_sizes")), "out_sizes": _sizes(entry.get("output_sizes")),
            "in_dtypes": _strs(entry.get("input_dtypes")), "out_dtypes": _strs(entry.get("output_dtypes")),
            "t_created": _int(entry.get("time_created_ns")) or None,
            "t_started": _int(entry.get("time_discovered_started_ns")) or None,
            "t_completed": _int(entry.get("time_discovered_completed_ns")) or None,
            "timeout_ms": _int(entry.get("timeout_ms")), "record_id": _int(entry.get("record_id")),
            "frames": None,
        }
        group["count"] += 1
        if not done and group["first_open"] is None:
            compact["frames"] = _frames(entry.get("frames"))
            group["first_open"] = compact
        tail = group["tail"]
        if tail and tail[-1]["frames"] is not None and tail[-1] is not group["first_open"]:
            tail[-1]["frames"] = None  # only the newest entry keeps its frames
        compact["frames"] = compact["frames"] if compact["frames"] is not None else _frames(entry.get("frames"))
        tail.append(compact)
        # Timeline: a sample of (seq, time) pairs, thinned by halves when full.
        if group["count"] % group["step"] == 0 and seq is not None:
            group["points"].append([seq, compact["t_created"], compact["t_completed"], done])
            if len(group["points"]) >= KEEP_POINTS:
                group["points"] = group["points"][::2]
                group["step"] *= 2

    def to_dict(self) -> dict[str, Any]:
        groups = {}
        for name, g in self.groups.items():
            tail = list(g["tail"])
            first_open = g["first_open"]
            if first_open is not None and all(e is not first_open for e in tail):
                tail.insert(0, first_open)
            for e in tail:
                e["frames"] = e["frames"] or []
            points = g["points"]
            if tail and tail[-1]["seq"] is not None and (not points or points[-1][0] != tail[-1]["seq"]):
                points.append([tail[-1]["seq"], tail[-1]["t_created"], tail[-1]["t_completed"], tail[-1]["done"]])
            groups[name] = {"name": name, "desc": g["desc"], "pg_id": g["pg_id"], "entries": tail,
                            "count": g["count"], "p2p": g["p2p"], "points": points}
        return {"groups": groups, "entries_total": self.total, "backends": sorted(self.backends)}


def _finish(name: str, fmt: str, top: dict[str, Any], summary: DumpSummary, rank: int | None) -> dict[str, Any]:
    pg_config: dict[str, Any] = {}
    raw_config = top.get("pg_config")
    if isinstance(raw_config, dict):
        for key, cfg in raw_config.items():
            if isinstance(cfg, dict):
                pg_config[str(key)] = {"name": str(cfg.get("name", key)), "desc": str(cfg.get("desc", "")),
                                       "ranks": _ranks(cfg.get("ranks"))}
    pg_status: dict[str, Any] = {}
    raw_status = top.get("pg_status")
    if isinstance(raw_status, dict):
        for key, st in raw_status.items():
            if isinstance(st, dict):
                pg_status[str(key)] = {k: _int(st.get(f"last_{k}_collective"))
                                       for k in ("enqueued", "started", "completed")}
    own = _int(top.get("rank"))
    out = summary.to_dict()
    written = own is not None and own >= 0
    out.update({"source": name, "format": fmt, "version": str(top.get("version", "")),
                "rank": own if written else rank,
                "rank_from": "dump" if written else "name" if rank is not None else None,
                "comm_lib_version": str(top.get("comm_lib_version", "") or ""),
                "pg_config": pg_config, "pg_status": pg_status})
    return out


def summarize(name: str, doc: dict[str, Any], *, rank: int | None = None) -> dict[str, Any]:
    """The summary of a dump already in memory (a small JSON document read whole)."""
    summary = DumpSummary()
    for entry in doc.get("entries") or []:
        summary.add(entry)
    return _finish(name, "json", doc, summary, rank if rank is not None else rank_from_name(name))


def read_dump(name: str, stream: IO[bytes], *, rank: int | None = None) -> dict[str, Any]:
    """Read one dump (pickle or JSON) into its summary; raises DumpError with a clear
    message when it is refused or is not a flight-recorder dump."""
    head = stream.peek(16)[:16] if hasattr(stream, "peek") else b""
    summary = DumpSummary()
    rank = rank if rank is not None else rank_from_name(name)
    if is_pickle(head):
        try:
            top = load_plain(stream, sink_key="entries", on_item=summary.add, max_bytes=MAX_DUMP_BYTES)
        except MalformedPickle as exc:
            raise DumpError(f"{name}: unreadable pickle ({exc})") from None
        except RefusedPickle as exc:
            raise DumpError(f"{name}: pickle refused: {exc}") from None
        if not isinstance(top, dict) or not ({"entries", "pg_config", "pg_status"} & set(top)):
            raise DumpError(f"{name}: pickle is not a flight-recorder dump, skipped")
        if isinstance(top.get("entries"), list):
            for entry in top["entries"]:  # not streamed (an entries list not at the top level)
                summary.add(entry)
        return _finish(name, "pickle", top, summary, rank)
    top = _stream_json(name, stream, summary)
    return _finish(name, "json", top, summary, rank)


def _stream_json(name: str, stream: IO[bytes], summary: DumpSummary) -> dict[str, Any]:  # noqa: C901 - one streaming JSON state machine
    """A JSON dump, read with the entries handed over one at a time: the top-level object is
    walked key by key; the `entries` array element by element (raw_decode over a sliding
    window), so memory is one entry, not the file."""
    decoder = json.JSONDecoder()
    buf = ""
    pos = 0
    eof = False
    total = 0

    def fill() -> bool:
        nonlocal buf, pos, eof, total
        if eof:
            return False
        chunk = stream.read(_JSON_CHUNK)
        if not chunk:
            eof = True
            return False
        total += len(chunk)
        if total > MAX_DUMP_BYTES:
            raise DumpError(f"{name}: JSON dump larger than {MAX_DUMP_BYTES} bytes")
        buf = buf[pos:] + chunk.decode("utf-8", "replace")
        pos = 0
        return True

    def skip_ws() -> None:
        nonlocal pos
        while True:
            while pos < len(buf) and buf[pos] in " \t\r\n":
                pos += 1
            if pos < len(buf) or not fill():
                return

    def expect(ch: str) -> bool:
        nonlocal pos
        skip_ws()
        if pos < len(buf) and buf[pos] == ch:
            pos += 1
            return True
        return False

    def value() -> Any:
        nonlocal pos
        while True:
            skip_ws()
            try:
                obj, end = decoder.raw_decode(buf, pos)
            except json.JSONDecodeError:
                if not fill():
                    raise DumpError(f"{name}: JSON dump cut off or malformed") from None
                continue
            if end >= len(buf) and not eof and isinstance(obj, (int, float)):
                fill()  # a number may continue in the next chunk
                continue
            pos = end
            return obj

    top: dict[str, Any] = {}
    if not expect("{"):
        raise DumpError(f"{name}: not a JSON object")
    if expect("}"):
        return top
    while True:
        key = value()
        if not isinstance(key, str) or not expect(":"):
            raise DumpError(f"{name}: malformed JSON dump")
        skip_ws()
        if key == "entries" and pos < len(buf) and buf[pos] == "[":
            pos += 1
            if not expect("]"):
                while True:
                    summary.add(value())
                    if expect(","):
                        continue
                    if expect("]"):
                        break
                    raise DumpError(f"{name}: malformed entries array")
            top["entries"] = []
        else:
            top[key] = value()
        if expect(","):
            continue
        if expect("}"):
            break
        raise DumpError(f"{name}: malformed JSON dump")
    if not ({"entries", "pg_config", "pg_status"} & set(top)):
        raise DumpError(f"{name}: JSON is not a flight-recorder dump")
    return top
