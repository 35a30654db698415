"""Inputs for the readers' fuzz harness (test_fuzz_readers.py): Hypothesis strategies for every
structured reader, and the property they must keep.

Pickles are written opcode by opcode (the shapes a hostile dump can take: memo PUT/GET,
MEMOIZE, shared tuples doubling at every level, a list holding itself, opcodes in any order),
the rest as the programs write them with any JSON value where a field is.
"""
from __future__ import annotations

import json
import struct
import tempfile
import tracemalloc
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from triage.engine import BundleError, diagnose

# The property: whatever the input (a few kilobytes here), the diagnosis's JSON and the
# memory it takes stay under these. The 22-level shared-tuple pickle, unbounded, makes 50 MB
# of JSON and 185 MB of peak memory.
MAX_OUTPUT_CHARS = 1_000_000
MAX_PEAK_BYTES = 64 * 1024 * 1024


def diagnose_bounded(name: str, data: bytes) -> dict[str, Any] | None:
    """Diagnose one file; assert the bounds; the diagnosis (None when nothing could be read:
    BundleError, the one error a reader may raise past itself)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / name
        path.write_bytes(data)
        out = None
        tracemalloc.start()
        try:
            try:
                out = diagnose(str(path), workers=1).to_dict()
                size = len(json.dumps(out, ensure_ascii=False))
            except BundleError:
                size = 0
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    assert size <= MAX_OUTPUT_CHARS, f"{name}: {size} characters of diagnosis JSON from {len(data)} bytes"
    assert peak <= MAX_PEAK_BYTES, f"{name}: {peak} bytes of peak memory from {len(data)} bytes"
    return out


def warm() -> None:
    """The catalog's gate is compiled on the first diagnosis: not the reader's memory."""
    diagnose_bounded("warm.log", b"NCCL WARN warm up\n")


# --- pickles, opcode by opcode ----------------------------------------------------------------

LEAVES = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**80), 2**80), st.floats(allow_nan=False),
    st.text(max_size=24), st.binary(max_size=12), st.sampled_from(["nccl:all_reduce", "completed", "0", "[0, 1]"]),
)
# ("leaf", v) | ("ref", i): the i-th memoised object again | ("double", d): ("x",) doubled d
# times through the memo | ("chain", d): lists d deep | ("cycle",): a list holding itself |
# (kind, children) containers
NODES = st.recursive(
    st.one_of(LEAVES.map(lambda v: ("leaf", v)), st.integers(0, 64).map(lambda i: ("ref", i)),
              st.integers(0, 30).map(lambda d: ("double", d)), st.integers(0, 300).map(lambda d: ("chain", d)),
              st.just(("cycle",))),
    lambda kids: st.one_of(
        st.tuples(st.sampled_from(["tuple", "list"]), st.lists(kids, max_size=5)),
        st.tuples(st.just("dict"), st.lists(st.tuples(LEAVES.filter(lambda v: not isinstance(v, bytes)), kids),
                                            max_size=5)),
    ),
    max_leaves=24,
)
FR_KEYS = ("profiling_name", "process_group", "pg_id", "collective_seq_id", "seq_id", "state", "retired",
           "input_sizes", "output_sizes", "input_dtypes", "output_dtypes", "time_created_ns",
           "time_discovered_started_ns", "time_discovered_completed_ns", "timeout_ms", "record_id", "frames",
           "is_p2p")


class Emitter:
    """Writes the opcodes of a node; every container is memoised (MEMOIZE), as torch's
    pickler and Python's do."""

    def __init__(self) -> None:
        self.out = bytearray()
        self.memo = 0

    def memoize(self) -> None:
        self.out += b"\x94"
        self.memo += 1

    def get(self, i: int) -> None:
        self.out += b"h" + bytes([i]) if i < 256 else b"j" + struct.pack("<I", i)  # noqa: PLR2004

    def leaf(self, v: Any) -> None:
        if v is None:
            self.out += b"N"
        elif isinstance(v, bool):
            self.out += b"\x88" if v else b"\x89"
        elif isinstance(v, int):
            raw = v.to_bytes((v.bit_length() + 8) // 8 or 1, "little", signed=True)
            self.out += b"\x8a" + bytes([len(raw)]) + raw
        elif isinstance(v, float):
            self.out += b"G" + struct.pack(">d", v)
        elif isinstance(v, str):
            raw = v.encode("utf-8", "surrogatepass")
            self.out += b"X" + struct.pack("<I", len(raw)) + raw
        else:
            self.out += b"C" + bytes([len(v)]) + v

    def node(self, n: tuple[Any, ...]) -> None:  # noqa: C901 - one branch per node kind
        kind = n[0]
        if kind == "leaf":
            self.leaf(n[1])
        elif kind == "ref":
            if self.memo:
                self.get(n[1] % self.memo)
            else:
                self.out += b"N"
        elif kind == "double":
            self.leaf("x")
            self.out += b"\x85"
            self.memoize()
            for _ in range(n[1]):
                prev = self.memo - 1
                self.out += b"0"
                self.get(prev)
                self.get(prev)
                self.out += b"\x86"
                self.memoize()
        elif kind == "chain":  # [[[...]]] n deep without a MARK: APPEND of a fresh list each time
            self.out += b"]"
            self.memoize()
            self.out += b"2"
            for _ in range(n[1]):
                self.out += b"]"
                self.memoize()
                self.out += b"a0"
                self.get(self.memo - 1)
            self.out += b"0"
        elif kind == "cycle":
            self.out += b"]"
            self.memoize()
            self.get(self.memo - 1)
            self.out += b"a"
        elif kind == "tuple":
            self.out += b"("
            for kid in n[1]:
                self.node(kid)
            self.out += b"t"
            self.memoize()
        elif kind == "list":
            self.out += b"]"
            self.memoize()
            self.out += b"("
            for kid in n[1]:
                self.node(kid)
            self.out += b"e"
        else:
            self.out += b"}"
            self.memoize()
            self.out += b"("
            for key, kid in n[1]:
                self.leaf(key)
                self.node(kid)
            self.out += b"u"


def fr_pickle(top: dict[str, tuple[Any, ...]], entries: list[dict[str, tuple[Any, ...]]]) -> bytes:
    """A dump's layout (a dict whose `entries` list the reader streams), any node in any field."""
    e = Emitter()
    e.out += b"\x80\x04}"
    e.memoize()
    e.out += b"("
    for key, node in top.items():
        e.leaf(key)
        e.node(node)
    e.leaf("entries")
    e.out += b"]"
    e.memoize()
    e.out += b"("
    for entry in entries:
        e.node(("dict", list(entry.items())))
    e.out += b"eu."
    return bytes(e.out)


FR_PICKLES = st.builds(
    fr_pickle,
    st.dictionaries(st.sampled_from(["version", "pg_config", "pg_status", "comm_lib_version"]), NODES, max_size=4),
    st.lists(st.dictionaries(st.sampled_from(FR_KEYS), NODES, max_size=6), max_size=4),
)
# Any opcodes in any order, arguments and all: the reader refuses or reads, never raises past.
_OPS = [b"N", b"\x88", b"\x89", b"K\x05", b"M\x01\x00", b"J\x01\x00\x00\x00", b"\x8a\x01\x07", b"\x8b\xff\xff\xff\x7f",
        b"G" + bytes(8), b"\x8c\x01a", b"X\x02\x00\x00\x00ab", b"X\xff\xff\xff\xff", b"C\x01z", b"}", b"]", b")",
        b"(", b"e", b"u", b"t", b"l", b"d", b"a", b"s", b"\x85", b"\x86", b"\x87", b"\x94", b"q\x00", b"r\x01\x00\x00\x00",
        b"h\x00", b"h\x01", b"j\x00\x00\x00\x00", b"0", b"1", b"2", b"\x95" + bytes(8), b".", b"cos\nsystem\n", b"\x93",
        b"R", b"b", b"\x81", b"\x8f", b"\x97", b"\xff", b"\x8c\x07entries"]
OPCODE_SOUP = st.lists(st.sampled_from(_OPS), max_size=60).map(lambda ops: b"\x80\x04" + b"".join(ops))

# --- JSON documents --------------------------------------------------------------------------

JSON_LEAVES = st.one_of(st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=False),
                        st.text(max_size=24), st.sampled_from(["9" * 5000, "-5", "--5", "٣", "x" * 2000]))
JSON_VALUES = st.recursive(JSON_LEAVES, lambda kids: st.lists(kids, max_size=4) | st.dictionaries(
    st.text(max_size=12), kids, max_size=4), max_leaves=16)


def deep(n: int) -> str:
    return "[" * n + "]" * n


def fr_json(top: dict[str, Any], entries: list[dict[str, Any]], nest: int) -> bytes:
    text = json.dumps(dict(top, version=top.get("version", "2.10"), pg_status=top.get("pg_status", {}),
                           entries=entries))
    if nest:
        text = text[:-1] + f', "pg_config": {deep(nest)}}}'
    return text.encode()


FR_JSONS = st.builds(
    fr_json,
    st.dictionaries(st.sampled_from(["version", "pg_config", "pg_status", "comm_lib_version"]), JSON_VALUES,
                    max_size=4),
    st.lists(st.dictionaries(st.sampled_from(FR_KEYS), JSON_VALUES, max_size=6), max_size=4),
    st.sampled_from([0, 0, 0, 5000]),
)


def _doc(schema: str, fields: dict[str, Any]) -> bytes:
    return json.dumps(dict(fields, schema=schema)).encode()


SNAPSHOTS = st.builds(_doc, st.just("nccl-triage/snapshot@1"), st.dictionaries(
    st.sampled_from(["host", "nvml", "versions", "env", "xid", "kernel_log", "collected_at", "collector"]),
    JSON_VALUES, max_size=6))
MANIFESTS = st.builds(_doc, st.just("nccl-triage/manifest@1"), st.fixed_dictionaries({
    "host": JSON_VALUES, "job": JSON_VALUES,
    "files": st.lists(st.dictionaries(st.sampled_from(["path", "rank", "pid", "host"]), JSON_VALUES), max_size=4)}))
SMOKES = st.builds(_doc, st.just("nccl-triage/smoke@1"), st.dictionaries(
    st.sampled_from(["host", "ok", "backend", "ranks", "error"]), JSON_VALUES, max_size=5))
ERROR_FILES = st.one_of(
    st.builds(lambda m, extra, code: json.dumps({"message": {"message": m, "extraInfo": extra}, "errorCode": code})
              .encode(), JSON_VALUES, st.dictionaries(st.sampled_from(["py_callstack", "timestamp"]), JSON_VALUES),
              JSON_VALUES),
    st.builds(lambda m, ts, code: json.dumps({"message": m, "timestamp": ts, "errorCode": code}).encode(),
              st.text(max_size=40) | JSON_VALUES, JSON_VALUES, JSON_VALUES),
)
NVML_LINES = st.lists(
    st.fixed_dictionaries({"gpu": JSON_VALUES, "util": JSON_VALUES}, optional={
        k: JSON_VALUES for k in ("mem_used", "mem_total", "host", "time", "pci_bus_id", "error")}).map(json.dumps),
    min_size=1, max_size=6,
).map(lambda lines: ("\n".join(lines) + "\n").encode())

# --- NCCL RAS output -------------------------------------------------------------------------

_NUM = st.one_of(st.integers(0, 2**70).map(str), st.just("9" * 5000))
_HOST = st.text(st.characters(blacklist_categories=("Z", "C")), min_size=1, max_size=20)
_RAS_LINES = st.one_of(
    st.sampled_from(["Job summary", "===========", "Communicators... (0.00s)", "=============", "Errors", "======",
                     "INCOMPLETE", "DEAD", "Warnings", "========", "TIMEOUT",
                     "Group     Comms     Nodes     Ranks     Ranks     Ranks    Status  Errors",
                     "  Communicator ranks have different operation counts",
                     "  Communicator ranks have different status"]),
    st.builds("NCCL version {}+cuda12.8 compiled with CUDA 12.8".format, st.text(max_size=8)),
    st.builds("    {}  {}  {}  {}  {}  {}  RUNNING  INCOMPLETE".format, _NUM, _NUM, _NUM, _NUM, _NUM, _NUM),
    st.builds("#{}-{} ({}) {}".format, _NUM, _NUM, st.sampled_from(["0123abcd", "ff"]),
              st.sampled_from(["INCOMPLETE", "ERROR", "MISMATCH"])),
    st.builds("  Process {} on node {} managing GPU {}".format, _NUM, _HOST, _NUM),
    st.builds("  Rank {} -- GPU {} managed by process {} on node {}".format, _NUM, _NUM, _NUM, _HOST),
    st.builds("  Rank {} has launched up to operation {} -- GPU {} managed by process {} on node {}".format,
              _NUM, _NUM, _NUM, _NUM, _HOST),
    st.builds("  {} ranks have launched up to operation {}".format, _NUM, _NUM),
    st.builds("  Missing communicator data from {} rank(s)".format, _NUM),
    st.builds("  {} job processes are considered dead".format, _NUM),
    st.builds("  Encountered {} communication timeout(s)".format, _NUM),
    st.builds("# ncclras snapshot at {}".format, st.text(max_size=12)),
    st.text(max_size=30),
)
RAS_TEXTS = st.lists(_RAS_LINES, max_size=30).map(
    lambda lines: ("Job summary\n===========\n" + "\n".join(lines) + "\n").encode())
RAS_JSONS = st.builds(
    lambda version, comms, ras: json.dumps({"nccl_version": version, "communicators": comms, "ras": ras}).encode(),
    JSON_VALUES,
    st.lists(st.dictionaries(st.sampled_from(["hash", "size", "ranks", "missing_ranks"]), st.one_of(
        JSON_VALUES, st.lists(st.dictionaries(st.sampled_from(["rank", "cuda_dev", "pid", "host", "status",
                                                               "collective_counts"]), JSON_VALUES), max_size=4))),
             max_size=4),
    JSON_VALUES,
)


def shared_tuples(levels: int) -> bytes:
    """The dump of the issue: one entry whose process-group name is a tuple of two references
    to one tuple, `levels` deep through the memo (2**levels leaves to any walk of it)."""
    return fr_pickle({"version": ("leaf", "2.10"), "pg_config": ("dict", [])}, [{
        "process_group": ("tuple", [("double", levels), ("leaf", "default_pg")]),
        "profiling_name": ("leaf", "nccl:all_reduce"), "collective_seq_id": ("leaf", 1), "state": ("leaf", "started"),
    }])
