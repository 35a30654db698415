"""Structured files of a bundle, recognised by content: collector manifest and snapshot,
NVML samples (JSON lines), torchelastic error files, and flight-recorder dumps (JSON, or a
pickle read by a loader that builds nothing but plain data)."""
from __future__ import annotations

import io
import json
import re
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Literal

from .forensics.flight_recorder import DumpError, read_dump, summarize
from .forensics.plainpickle import RefusedPickle, load_plain
from .model import from_epoch

__all__ = ["RefusedPickle", "load_plain_pickle", "parse_pickle_blob", "fr_summary"]

# Whole JSON documents (snapshots, manifests, dumps) are small; bigger JSON-looking files are
# read as text, so memory stays bounded.
MAX_JSON_BYTES = 16 * 1024 * 1024
_SECRET = re.compile(r"token|key|passw|secret|credential", re.I)


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


def classify_json(name: str, doc: Any, docs: StructuredDocs) -> str | Literal[False]:
    """File a parsed JSON document and say what kind it is; False when it is no structure we
    know (then it is read as text)."""
    if not isinstance(doc, dict):
        return False
    schema = str(doc.get("schema", ""))
    if schema.startswith("nccl-triage/manifest"):
        docs.manifests.append((name, doc))
        return "manifest"
    if schema.startswith("nccl-triage/snapshot"):
        if isinstance(doc.get("env"), dict):
            doc["env"] = redact_env(doc["env"])
        docs.snapshots.append((name, doc))
        return "snapshot"
    if schema.startswith("nccl-triage/smoke"):
        docs.smoke_results.append((name, doc))
        return "smoke"
    message = doc.get("message")
    if isinstance(message, (dict, str)) and (
        "extraInfo" in (message if isinstance(message, dict) else {}) or "timestamp" in doc or "errorCode" in doc
    ):
        docs.elastic_errors.append((name, doc))
        return "elastic_error"
    if "pg_status" in doc or "entries" in doc and "version" in doc:
        dump = summarize(name, doc)
        docs.flight_records.append((name, dump["rank"], dump))
        return "flight_recorder"
    return False


def is_nvml_sample(doc: Any) -> bool:
    return isinstance(doc, dict) and "gpu" in doc and ("util" in doc or "mem_used" in doc)


def parse_json_blob(name: str, data: bytes, docs: StructuredDocs) -> str | Literal[False]:
    """Try a whole JSON document, then JSON lines of NVML samples; returns the kind read."""
    text = data.decode("utf-8", errors="replace")
    try:
        doc = json.loads(text)
    except ValueError:
        doc = None
    if doc is not None:
        return classify_json(name, doc, docs)
    if not first_line_is_sample(data.lstrip()):
        return False
    stream_nvml_samples(name, io.BytesIO(data), docs)
    return "nvml_samples"


def first_line_is_sample(head: bytes) -> bool:
    """JSON lines of NVML samples start with a sample on their first line."""
    first = head.split(b"\n", 1)[0].strip()
    if not first.startswith(b"{"):
        return False
    try:
        return is_nvml_sample(json.loads(first))
    except ValueError:
        return False


MAX_SAMPLES = 50_000  # the most recent ones: what happened near the failure
_SAMPLE_LINE_MAX = 65536


def stream_nvml_samples(name: str, stream: Any, docs: StructuredDocs) -> tuple[int, int]:
    """Read an NVML samples file line by line; returns (bytes read, samples dropped)."""

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
        except ValueError:
            continue
        if is_nvml_sample(item):
            item["_source"], item["_line"] = name, lineno  # for evidence; not shown
            kept.append(item)
            seen += 1
    docs.nvml_samples.extend(kept)
    return total, seen - len(kept)


def parse_pickle_blob(name: str, data: bytes, docs: StructuredDocs) -> str | None:
    """A flight-recorder pickle; returns a problem text when it is refused or unreadable."""
    try:
        dump = read_dump(name, io.BufferedReader(io.BytesIO(data)))
        docs.flight_records.append((name, dump["rank"], dump))
    except DumpError as exc:
        return str(exc)
    return None


def elastic_error_summary(doc: dict[str, Any]) -> dict[str, Any]:
    """message, exception type and time from a TORCHELASTIC_ERROR_FILE document."""
    message = doc.get("message")
    timestamp = doc.get("timestamp")
    callstack = None
    if isinstance(message, dict):
        extra = message.get("extraInfo") or {}
        timestamp = extra.get("timestamp", timestamp)
        callstack = extra.get("py_callstack")
        message = message.get("message")
    text = str(message or "")
    when = None
    try:
        when = from_epoch(int(str(timestamp))) if timestamp is not None else None
    except (ValueError, OSError, OverflowError):
        when = None
    return {"message": text, "time": when, "callstack": callstack, "error_code": doc.get("errorCode")}


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
