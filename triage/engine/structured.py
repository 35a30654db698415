"""Structured files of a bundle, recognised by content: collector manifest and snapshot,
NVML samples (JSON lines), torchelastic error files, and flight-recorder dumps (JSON, or a
pickle read by a loader that builds nothing but plain data)."""
from __future__ import annotations

import io
import json
import math
import re
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Literal

from .forensics.flight_recorder import DumpError, read_dump, summarize
from .forensics.plainpickle import RefusedPickle, load_plain
from .model import from_epoch
from .shapes import MAX_PATH, LeftOut, OverBudget, expansion, integer, number, text

__all__ = ["RefusedPickle", "load_plain_pickle", "parse_pickle_blob", "fr_summary"]

# Whole JSON documents (snapshots, manifests, dumps) are small; bigger JSON-looking files are
# read as text, so memory stays bounded.
MAX_JSON_BYTES = 16 * 1024 * 1024
_SECRET = re.compile(r"token|key|passw|secret|credential", re.I)
# Output budgets of a whole JSON document kept as it is (a snapshot, a manifest, a smoke result;
# they are shown whole on the incident). A collector snapshot of an 8-GPU node with its
# environment is about 5,000 nodes and 100 thousand characters.
MAX_DOC_NODES = 200_000
MAX_DOC_CHARS = 8 * 1024 * 1024
# A torchelastic error file: the exception's message and the traceback it recorded.
MAX_MESSAGE_CHARS = 1024 * 1024
MAX_CALLSTACK_CHARS = 4 * 1024 * 1024


def load_plain_pickle(data: bytes) -> Any:
    """A pickle of plain data only (forensics.plainpickle); raises RefusedPickle otherwise."""
    return load_plain(io.BytesIO(data))


def redact_env(env: dict[str, Any]) -> dict[str, Any]:
    return {k: ("[redacted]" if _SECRET.search(k) else v) for k, v in env.items()}


@dataclass
class StructuredDocs:
    manifests: list[tuple[str, dict[str, Any]]] = field(default_factory=list)  # (source name, doc)
    snapshots: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    nvml_samples: list[dict[str, Any]] = field(default_factory=list)
    elastic_errors: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    flight_records: list[tuple[str, int | None, dict[str, Any]]] = field(default_factory=list)
    smoke_results: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    ras_reports: list[tuple[str, dict[str, Any]]] = field(default_factory=list)  # ncclras snapshots (forensics.ras)


def classify_json(name: str, doc: Any, docs: StructuredDocs,
                  notes: list[str] | None = None) -> str | Literal[False]:
    """File a parsed JSON document and say what kind it is; False when it is no structure we
    know (then it is read as text). What was refused or left out is said in `notes`."""
    if not isinstance(doc, dict):
        return False
    notes = notes if notes is not None else []
    schema = doc.get("schema")
    schema = schema if isinstance(schema, str) else ""
    kind = ("manifest" if schema.startswith("nccl-triage/manifest") else
            "snapshot" if schema.startswith("nccl-triage/snapshot") else
            "smoke" if schema.startswith("nccl-triage/smoke") else None)
    if kind is not None:
        try:
            expansion(doc, max_nodes=MAX_DOC_NODES, max_chars=MAX_DOC_CHARS, what=f"{name}: {kind} document")
        except OverBudget as exc:
            notes.append(str(exc))
            return False
    if kind == "manifest":
        docs.manifests.append((name, _manifest(name, doc, notes)))
        return "manifest"
    if kind == "snapshot":
        left_out = LeftOut()
        doc = conform(doc, SNAPSHOT_SHAPE, left_out, "")
        if isinstance(doc.get("env"), dict):
            doc["env"] = redact_env(doc["env"])
        note = left_out.note(name, "collector snapshot")
        if note is not None:
            notes.append(note)
        docs.snapshots.append((name, doc))
        return "snapshot"
    if kind == "smoke":
        docs.smoke_results.append((name, doc))
        return "smoke"
    message = doc.get("message")
    if isinstance(message, (dict, str)) and (
        "extraInfo" in (message if isinstance(message, dict) else {}) or "timestamp" in doc or "errorCode" in doc
    ):
        docs.elastic_errors.append((name, doc))
        return "elastic_error"
    if "pg_status" in doc or "entries" in doc and "version" in doc:
        dump = summarize(name, doc, notes=notes)
        docs.flight_records.append((name, dump["rank"], dump))
        return "flight_recorder"
    return False


# The snapshot's shape (collectors/snapshot.py, host.py, nvml.py) where the engine reads it: a
# dict spec names the keys checked (others are kept as they are, within the document's budget),
# [spec] is a list of spec, {"*": spec} a dict of any keys; a value not of its spec is left out.
# Shapes take a value or refuse it: str / number / bool / int, or a check of their own.
def _finite(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and integer(value) is not None or (
        isinstance(value, float) and math.isfinite(value))


Shape = Any
TEXT: Shape = ("text", lambda v: isinstance(v, str) and len(v) <= MAX_TEXT)
NUM: Shape = ("number", _finite)
SCALAR: Shape = ("scalar", lambda v: v is None or isinstance(v, bool) or _finite(v) or (
    isinstance(v, str) and len(v) <= MAX_TEXT))
XID: Shape = ("xid", lambda v: isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 1 << 31)
OFFSET: Shape = ("utc offset", lambda v: _finite(v) and abs(v) <= 86400)  # noqa: PLR2004 - a day, in seconds
MAX_TEXT = 65536
MAX_KEYS = 4096  # of a dict of any keys (the environment, the versions)
SNAPSHOT_SHAPE: Shape = {
    "host": {"hostname": TEXT, "boot_time": TEXT, "kernel": TEXT, "timezone": {"utc_offset_seconds": OFFSET},
             "shm": {"size_bytes": NUM}, "infiniband": [{"state": SCALAR, "device": SCALAR, "port": SCALAR}]},
    "nvml": {"driver_version": SCALAR, "cuda_driver_version": SCALAR,
             "gpus": [{"index": SCALAR, "pci_bus_id": SCALAR, "uuid": SCALAR, "name": SCALAR,
                       "ecc": {"uncorrected_volatile": NUM}, "remapped_rows": {}}]},
    "versions": {"*": SCALAR},
    "env": {"*": SCALAR},
    "xid": [{"xid": XID, "text": TEXT, "pci": TEXT}],
    "kernel_log": {},
}


def conform(value: Any, shape: Shape, left_out: LeftOut, where: str) -> Any:
    """`value` in `shape`, what is not left out (counted by its path); a dict or list that is
    not one is replaced by None by the caller."""
    if isinstance(shape, tuple):
        return value
    if isinstance(shape, list):
        return [conform(x, shape[0], left_out, where) for x in value if _fits(x, shape[0], left_out, where)]
    out = dict(value)
    if "*" in shape:
        if len(out) > MAX_KEYS:
            left_out.add(f"{where} past {MAX_KEYS} keys")
            out = dict(list(out.items())[:MAX_KEYS])
        return {k: v for k, v in out.items() if _fits(v, shape["*"], left_out, f"{where}.*")}
    for key, sub in shape.items():
        if key not in out:
            continue
        path = f"{where}.{key}" if where else key
        if out[key] is None or not _fits(out[key], sub, left_out, path):
            if out[key] is not None:
                del out[key]
            continue
        out[key] = conform(out[key], sub, left_out, path)
    return out


def _fits(value: Any, shape: Shape, left_out: LeftOut, where: str) -> bool:
    ok = shape[1](value) if isinstance(shape, tuple) else isinstance(value, list if isinstance(shape, list) else dict)
    if not ok:
        left_out.add(where)
    return bool(ok)


def _manifest(name: str, doc: dict[str, Any], notes: list[str]) -> dict[str, Any]:
    """The manifest with its identity fields in their shape (host: a name; each file: a path,
    a rank, a pid), the rest left out with a note."""
    left_out = LeftOut()
    out = dict(doc)
    out["host"] = left_out.take(doc.get("host"), "host")
    files = []
    raw = doc.get("files")
    for entry in raw if isinstance(raw, list) else []:
        if not isinstance(entry, dict):
            left_out.add("files entry")
            continue
        kept = dict(entry)
        kept["path"] = left_out.take(entry.get("path"), "file path", MAX_PATH)
        for key in ("rank", "pid"):
            raw_value = entry.get(key)
            value = integer(raw_value) if not isinstance(raw_value, str) else None
            if value is None and raw_value is not None:
                left_out.add(f"file {key}")
            kept[key] = value
        files.append(kept)
    out["files"] = files
    note = left_out.note(name, "collector manifest")
    if note is not None:
        notes.append(note)
    return out


def is_nvml_sample(doc: Any) -> bool:
    return isinstance(doc, dict) and "gpu" in doc and ("util" in doc or "mem_used" in doc)


# An NVML sample's fields (collectors/nvml.py gpu_samples, plus the sampler's host and time),
# each in its shape; others are not kept.
_SAMPLE_NUMBERS = ("util", "mem_used", "mem_total")
_SAMPLE_NAMES = ("host", "pci_bus_id", "time", "error")


def nvml_sample(item: dict[str, Any], left_out: LeftOut) -> dict[str, Any]:
    gpu = item.get("gpu")
    out: dict[str, Any] = {"gpu": text(gpu) if isinstance(gpu, str) else number(gpu)}
    for key in _SAMPLE_NUMBERS:
        if key in item:
            out[key] = number(item[key])
    for key in _SAMPLE_NAMES:
        if key in item:
            value = item[key]
            out[key] = number(value) if key == "time" and not isinstance(value, str) else text(value)
    for key, value in out.items():
        if value is None and item.get(key) is not None:
            left_out.add(key)
    return out


def parse_json_blob(name: str, data: bytes, docs: StructuredDocs,
                    notes: list[str] | None = None) -> str | Literal[False]:
    """Try a whole JSON document, then JSON lines of NVML samples; returns the kind read."""
    text = data.decode("utf-8", errors="replace")
    try:
        doc = json.loads(text)
    except (ValueError, RecursionError):  # RecursionError: '[' nested past the parser's depth
        doc = None
    if doc is not None:
        return classify_json(name, doc, docs, notes)
    if not first_line_is_sample(data.lstrip()):
        return False
    stream_nvml_samples(name, io.BytesIO(data), docs, notes)
    return "nvml_samples"


def first_line_is_sample(head: bytes) -> bool:
    """JSON lines of NVML samples start with a sample on their first line."""
    first = head.split(b"\n", 1)[0].strip()
    if not first.startswith(b"{"):
        return False
    try:
        return is_nvml_sample(json.loads(first))
    except (ValueError, RecursionError):
        return False


MAX_SAMPLES = 50_000  # the most recent ones: what happened near the failure
_SAMPLE_LINE_MAX = 65536


def stream_nvml_samples(name: str, stream: Any, docs: StructuredDocs,
                        notes: list[str] | None = None) -> tuple[int, int]:
    """Read an NVML samples file line by line; returns (bytes read, samples dropped)."""
    left_out = LeftOut()
    kept: deque[dict[str, Any]] = deque(maxlen=MAX_SAMPLES)
    total = seen = lineno = 0
    while True:
        raw = stream.readline(_SAMPLE_LINE_MAX + 1)  # bounded: a sample line is short
        if not raw:
            break
        total += len(raw)
        if not raw.endswith(b"\n") and len(raw) > _SAMPLE_LINE_MAX:
            while (rest := stream.readline(_SAMPLE_LINE_MAX + 1)) and not rest.endswith(b"\n"):
                total += len(rest)
            total += len(rest)
            lineno += 1
            continue
        lineno += 1
        raw = raw.strip()
        if not raw:
            continue
        try:
            item = json.loads(raw)
        except (ValueError, RecursionError):
            continue
        if is_nvml_sample(item):
            item = nvml_sample(item, left_out)
            item["_source"], item["_line"] = name, lineno  # for evidence; not shown
            kept.append(item)
            seen += 1
    docs.nvml_samples.extend(kept)
    note = left_out.note(name, "NVML samples")
    if note is not None and notes is not None:
        notes.append(note)
    return total, seen - len(kept)


def parse_pickle_blob(name: str, data: bytes, docs: StructuredDocs, notes: list[str] | None = None) -> str | None:
    """A flight-recorder pickle; returns a problem text when it is refused or unreadable."""
    try:
        dump = read_dump(name, io.BufferedReader(io.BytesIO(data)), notes=notes)
        docs.flight_records.append((name, dump["rank"], dump))
    except DumpError as exc:
        return str(exc)
    return None


def elastic_error_summary(doc: dict[str, Any]) -> dict[str, Any]:
    """message, exception type and time from a TORCHELASTIC_ERROR_FILE document (torch's
    torch/distributed/elastic/multiprocessing/errors/error_handler.py writes
    {"message": {"message": str, "extraInfo": {"py_callstack": str, "timestamp": str}}} or, from
    a C++ handler, {"message": str, "errorCode": int, "timestamp": int}); each field taken in
    that shape only."""
    message = doc.get("message")
    timestamp = doc.get("timestamp")
    callstack = None
    if isinstance(message, dict):
        extra = message.get("extraInfo")
        extra = extra if isinstance(extra, dict) else {}
        timestamp = extra.get("timestamp", timestamp)
        callstack = text(extra.get("py_callstack"), MAX_CALLSTACK_CHARS)
        message = message.get("message")
    said = text(message, MAX_MESSAGE_CHARS) or ""
    when = None
    seconds = integer(timestamp)
    try:
        when = from_epoch(seconds) if seconds is not None else None
    except (ValueError, OSError, OverflowError):
        when = None
    return {"message": said, "time": when, "callstack": callstack, "error_code": integer(doc.get("errorCode"))}


def fr_summary(doc: dict[str, Any]) -> dict[str, Any]:
    """Per-PG last completed collective and the first collective that did not complete, from a
    dump's summary (forensics.flight_recorder; a raw dump is summarised first)."""
    if "groups" not in doc:
        doc = summarize("", doc)
    last_completed: dict[str, int] = {}
    for pg, st in (doc.get("pg_status") or {}).items():
        if isinstance(st.get("completed"), int):
            last_completed[str(pg)] = st["completed"]
    stuck: dict[str, Any] | None = None
    last_time_ns: int | None = None
    for group in doc["groups"].values():
        for entry in group["entries"]:
            t = entry.get("t_completed") or entry.get("t_created")
            if isinstance(t, int) and t > 0:
                last_time_ns = max(last_time_ns or 0, t)
            if not entry["done"] and stuck is None:
                stuck = {"seq": entry["seq"], "op": entry["op"], "pg": group["pg_id"], "sizes": entry["in_sizes"],
                         "state": entry["state"], "time_ns": entry["t_created"]}
    return {"last_completed": last_completed, "stuck": stuck, "last_time_ns": last_time_ns}
