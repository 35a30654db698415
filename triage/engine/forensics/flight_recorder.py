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
from collections.abc import Iterator
from typing import IO, Any

from ..shapes import MAX_NAME, MAX_PATH, LeftOut, integer
from .plainpickle import MalformedPickle, RefusedPickle, _Sink, load_plain

KEEP_ENTRIES = 24  # per process group: the tail of the ring buffer, where the ranks stand
KEEP_POINTS = 96  # per process group: (seq, time) samples for the timeline
KEEP_FRAMES = 6  # user frames kept per entry
MAX_DUMP_BYTES = 2 * 1024**3
# Output budgets (what a summary may hold, whatever the dump says; shapes.py): a real entry has
# a few tensors of a few dims and 15-60 stack frames; pg_config, a ranks list per group.
KEEP_TENSORS = 16  # sizes and dtypes kept per entry
MAX_DIMS = 64  # dims of one tensor's size (torch's own limit)
MAX_FRAMES = 1024  # frames of one entry looked at for the user's own
MAX_GROUPS = 100_000  # process groups kept per dump (a 16,384-rank 3D-parallel job has ~4,000)
MAX_GROUP_RANKS = 1 << 20  # ranks of one group
MAX_TOTAL_RANKS = 4 << 20  # ranks over all groups of one dump
MAX_LITERAL_CHARS = 65536  # a ranks text that is not a plain list of ints is parsed only this long
# One JSON value read whole (an entry, or a top-level key's value such as pg_config).
MAX_JSON_VALUE_CHARS = 64 * 1024 * 1024
_RANKS_TEXT = re.compile(r"\s*[\[(]\s*(?:-?[0-9]+\s*(?:,\s*-?[0-9]+\s*)*,?\s*)?[\])]\s*")
_RANK_NUMBER = re.compile(r"-?[0-9]+")
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
    return integer(value)


def _ranks(text: Any, left_out: LeftOut) -> list[int]:
    """A group's ranks: the recorder writes them as the text of a list ("[0, 1, 2]"); at most
    MAX_GROUP_RANKS of them, read without building a syntax tree of a megabyte string."""
    if isinstance(text, (list, tuple)):
        if len(text) > MAX_GROUP_RANKS:
            left_out.add("pg_config ranks")
            return []
        return [r for r in (_int(x) for x in text) if r is not None]
    if not isinstance(text, str):
        if text is not None:
            left_out.add("pg_config ranks")
        return []
    if len(text) > MAX_GROUP_RANKS * 22:  # noqa: PLR2004 - 20 digits, a comma and a space per rank
        left_out.add("pg_config ranks")
        return []
    if _RANKS_TEXT.fullmatch(text):
        found = _RANK_NUMBER.findall(text)
        if len(found) > MAX_GROUP_RANKS:
            left_out.add("pg_config ranks")
            return []
        return [r for r in (_int(x) for x in found) if r is not None]
    if len(text) > MAX_LITERAL_CHARS:
        left_out.add("pg_config ranks")
        return []
    try:
        parsed = ast.literal_eval(text.strip())
    except (ValueError, SyntaxError, MemoryError, RecursionError, TypeError):
        return []
    if isinstance(parsed, (list, tuple)) and len(parsed) <= MAX_GROUP_RANKS:
        return [r for r in (_int(x) for x in parsed) if r is not None]
    return []


def _frames(frames: Any, left_out: LeftOut) -> list[dict[str, Any]]:
    """The caller's frames first: torch's own (distributed_c10d, c10d_logger) and the launcher's
    (multiprocessing, runpy) are dropped when user frames remain."""
    if not isinstance(frames, list):
        return []
    out: list[dict[str, Any]] = []
    for f in frames[:MAX_FRAMES]:
        if isinstance(f, dict):
            out.append({"name": _field(f.get("name", ""), "frame name", left_out),
                        "file": _field(f.get("filename", ""), "frame file", left_out, MAX_PATH),
                        "line": _int(f.get("line"))})
    user = [f for f in out if not _library(str(f["file"]))]
    return (user or out)[:KEEP_FRAMES]


def _field(value: Any, what: str, left_out: LeftOut, limit: int = MAX_NAME) -> str:
    """A string field as the recorder writes it (a number is shown as one); anything else, or
    a string past `limit`, is left out."""
    if isinstance(value, str):
        if len(value) <= limit:
            return value
    elif value is None or isinstance(value, (bool, float)) or isinstance(value, int) and _int(value) is not None:
        return str(value)
    left_out.add(what)
    return ""


def _pg_key(value: Any, left_out: LeftOut, what: str) -> str | None:
    """A process group's name or id as text (a short string, or a number); None, and counted,
    when it is anything else (a tuple, a serialised tree)."""
    if isinstance(value, str) and len(value) > MAX_NAME or isinstance(value, (list, tuple, dict, bytes)) or (
            isinstance(value, int) and not isinstance(value, bool) and _int(value) is None):
        left_out.add(what)
        return None
    return str(value)


def _library(path: str) -> bool:
    return ("/torch/" in path or "/multiprocessing/" in path or path.endswith(("/runpy.py", "/threading.py"))
            or "/site-packages/" in path or "/dist-packages/" in path)


def _sizes(value: Any, left_out: LeftOut) -> list[list[int]]:
    if not isinstance(value, list):
        return []
    out = []
    for dims in value[:KEEP_TENSORS]:
        if isinstance(dims, list) and len(dims) > MAX_DIMS:
            left_out.add("tensor sizes")
            dims = None  # noqa: PLW2901 - left out, as a value that is not a list
        out.append([x for x in dims if isinstance(x, int) and _int(x) is not None] if isinstance(dims, list) else [])
    return out


def _strs(value: Any, what: str, left_out: LeftOut) -> list[str]:
    if not isinstance(value, list):
        return []
    return [_field(x, what, left_out) for x in value[:KEEP_TENSORS]]


class DumpSummary:
    """Built entry by entry; `to_dict()` is the plain, JSON-able summary the engine keeps."""

    def __init__(self) -> None:
        self.groups: dict[str, dict[str, Any]] = {}
        self.total = 0
        self.backends: set[str] = set()
        self.left_out = LeftOut()

    def add(self, entry: Any) -> None:
        if not isinstance(entry, dict):
            return
        self.total += 1
        left_out = self.left_out
        name = left_out.take(entry.get("profiling_name") or "", "profiling_name") or ""
        backend, _, op = name.partition(":") if ":" in name else ("", "", name)
        if backend:
            self.backends.add(backend)
        pg = entry.get("process_group")
        pg_id = entry.get("pg_id", "")
        pg_name = _pg_key(pg[0], left_out, "process_group name") if isinstance(pg, (list, tuple)) and pg else None
        if pg_name is None:
            pg_name = _pg_key(pg_id, left_out, "pg_id") or ""
        pg_desc = _field(pg[1], "process_group desc", left_out) if isinstance(pg, (list, tuple)) and len(pg) > 1 else ""
        seq = _int(entry.get("collective_seq_id", entry.get("seq_id")))
        is_p2p = bool(entry.get("is_p2p")) or op.split(" ")[0] in ("send", "recv")
        group = self.groups.get(pg_name)
        if group is None:
            if len(self.groups) >= MAX_GROUPS:
                left_out.add(f"entries of process groups past the first {MAX_GROUPS}")
                return
            group = self.groups[pg_name] = {"name": pg_name, "desc": pg_desc, "pg_id": _int(pg_id),
                                            "tail": deque(maxlen=KEEP_ENTRIES), "points": [], "step": 1,
                                            "first_open": None, "count": 0, "p2p": 0}
        if is_p2p:
            group["p2p"] += 1
            return
        state = left_out.take(entry.get("state") or "", "state") or ""
        done = state == "completed" or entry.get("retired") is True
        compact: dict[str, Any] = {
            "seq": seq, "op": op.split(" ")[0], "state": state, "retired": bool(entry.get("retired")), "done": done,
            "in_sizes": _sizes(entry.get("input_sizes"), left_out),
            "out_sizes": _sizes(entry.get("output_sizes"), left_out),
            "in_dtypes": _strs(entry.get("input_dtypes"), "input_dtypes", left_out),
            "out_dtypes": _strs(entry.get("output_dtypes"), "output_dtypes", left_out),
            "t_created": _int(entry.get("time_created_ns")) or None,
            "t_started": _int(entry.get("time_discovered_started_ns")) or None,
            "t_completed": _int(entry.get("time_discovered_completed_ns")) or None,
            "timeout_ms": _int(entry.get("timeout_ms")), "record_id": _int(entry.get("record_id")),
            "frames": None,
        }
        group["count"] += 1
        if not done and group["first_open"] is None:
            compact["frames"] = _frames(entry.get("frames"), left_out)
            group["first_open"] = compact
        tail = group["tail"]
        if tail and tail[-1]["frames"] is not None and tail[-1] is not group["first_open"]:
            tail[-1]["frames"] = None  # only the newest entry keeps its frames
        compact["frames"] = compact["frames"] if compact["frames"] is not None else _frames(entry.get("frames"),
                                                                                            left_out)
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


def _per_group(raw: Any, what: str, left_out: LeftOut) -> Iterator[tuple[str, dict[str, Any]]]:
    """(group name, its dict) of pg_config or pg_status: keys of a name's shape, at most
    MAX_GROUPS of them."""
    if not isinstance(raw, dict):
        return
    kept = 0
    for key, value in raw.items():
        if not isinstance(value, dict):
            continue
        pg = _pg_key(key, left_out, f"{what} key")
        if pg is None:
            continue
        if kept >= MAX_GROUPS:
            left_out.add(f"{what} past the first {MAX_GROUPS} groups")
            return
        kept += 1
        yield pg, value


def _finish(name: str, fmt: str, top: dict[str, Any], summary: DumpSummary, rank: int | None) -> dict[str, Any]:
    left_out = summary.left_out
    pg_config: dict[str, Any] = {}
    ranks_kept = 0
    for pg, cfg in _per_group(top.get("pg_config"), "pg_config", left_out):
        ranks = _ranks(cfg.get("ranks"), left_out)
        if ranks_kept + len(ranks) > MAX_TOTAL_RANKS:
            left_out.add(f"pg_config ranks past {MAX_TOTAL_RANKS} in all")
            ranks = []
        ranks_kept += len(ranks)
        pg_config[pg] = {"name": _field(cfg.get("name", pg), "pg_config name", left_out),
                         "desc": _field(cfg.get("desc", ""), "pg_config desc", left_out), "ranks": ranks}
    pg_status = {pg: {k: _int(st.get(f"last_{k}_collective")) for k in ("enqueued", "started", "completed")}
                 for pg, st in _per_group(top.get("pg_status"), "pg_status", left_out)}
    own = _int(top.get("rank"))
    out = summary.to_dict()
    written = own is not None and own >= 0
    out.update({"source": name, "format": fmt, "version": _field(top.get("version", ""), "version", left_out),
                "rank": own if written else rank,
                "rank_from": "dump" if written else "name" if rank is not None else None,
                "comm_lib_version": _field(top.get("comm_lib_version", "") or "", "comm_lib_version", left_out),
                "pg_config": pg_config, "pg_status": pg_status})
    return out


def summarize(name: str, doc: dict[str, Any], *, rank: int | None = None,
              notes: list[str] | None = None) -> dict[str, Any]:
    """The summary of a dump already in memory (a small JSON document read whole)."""
    summary = DumpSummary()
    entries = doc.get("entries")
    for entry in entries if isinstance(entries, list) else []:
        summary.add(entry)
    out = _finish(name, "json", doc, summary, rank if rank is not None else rank_from_name(name))
    _note(name, summary, notes)
    return out


def _note(name: str, summary: DumpSummary, notes: list[str] | None) -> None:
    note = summary.left_out.note(name, "flight-recorder dump")
    if note is not None and notes is not None:
        notes.append(note)


def read_dump(name: str, stream: IO[bytes], *, rank: int | None = None,
              notes: list[str] | None = None) -> dict[str, Any]:
    """Read one dump (pickle or JSON) into its summary; raises DumpError with a clear
    message when it is refused or is not a flight-recorder dump. What was left out (values
    not of their type or size) is said in `notes`."""

    head = stream.peek(16)[:16] if hasattr(stream, "peek") else b""
    summary = DumpSummary()
    try:
        return _read_into(name, stream, head, summary, rank)
    finally:
        _note(name, summary, notes)


def _read_into(name: str, stream: IO[bytes], head: bytes, summary: DumpSummary, rank: int | None) -> dict[str, Any]:
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
        if isinstance(top.get("entries"), list) and not isinstance(top["entries"], _Sink):
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
                if len(buf) - pos > MAX_JSON_VALUE_CHARS:
                    raise DumpError(f"{name}: JSON dump refused: one value is larger than {MAX_JSON_VALUE_CHARS} "
                                    "characters (a dump entry is a few thousand)") from None
                if not fill():
                    raise DumpError(f"{name}: JSON dump cut off or malformed") from None
                continue
            except RecursionError:
                raise DumpError(f"{name}: JSON dump refused: nested too deep") from None
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
