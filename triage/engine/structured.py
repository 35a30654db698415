"""Structured files of a bundle, recognised by content: collector manifest and snapshot,
NVML samples (JSON lines), torchelastic error files, and flight-recorder dumps (JSON, or a
pickle read by a loader that builds nothing but plain data)."""
from __future__ import annotations

import io
import json
import pickle
import re
from collections import deque
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

# Whole JSON documents (snapshots, manifests, dumps) are small; bigger JSON-looking files are
# read as text, so memory stays bounded.
MAX_JSON_BYTES = 16 * 1024 * 1024
_SECRET = re.compile(r"token|key|passw|secret|credential", re.I)
_FR_RANK = re.compile(r"(\d+)(?:\.\w+)?$")


class RefusedPickle(pickle.UnpicklingError):
    pass


class PlainDataUnpickler(pickle.Unpickler):
    """Unpickles only builtin containers and scalars: any class or function reference (the
    way a hostile pickle runs code) is refused."""

    def find_class(self, module: str, name: str) -> Any:  # noqa: D401
        raise RefusedPickle(f"pickle refers to {module}.{name}; only plain data is accepted")

    def persistent_load(self, pid: Any) -> Any:
        raise RefusedPickle("pickle uses persistent ids; only plain data is accepted")


def load_plain_pickle(data: bytes) -> Any:
    return PlainDataUnpickler(io.BytesIO(data)).load()


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
        docs.flight_records.append((name, fr_rank(name), doc))
        return "flight_recorder"
    return False


def fr_rank(name: str) -> int | None:
    m = _FR_RANK.search(name.rsplit("/", 1)[-1])
    return int(m.group(1)) if m else None


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
        doc = load_plain_pickle(data)
    except RefusedPickle as exc:
        return f"{name}: pickle refused ({exc})"
    except Exception as exc:  # noqa: BLE001 - any malformed pickle is a problem note, not a crash
        return f"{name}: unreadable pickle ({type(exc).__name__})"
    if not isinstance(doc, dict) or not ("pg_status" in doc or "entries" in doc):
        return f"{name}: pickle is not a flight-recorder dump, skipped"
    docs.flight_records.append((name, fr_rank(name), doc))
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
        when = datetime.fromtimestamp(int(str(timestamp))) if timestamp is not None else None
    except (ValueError, OSError, OverflowError):
        when = None
    return {"message": text, "time": when, "callstack": callstack, "error_code": doc.get("errorCode")}


def fr_summary(doc: dict[str, Any]) -> dict[str, Any]:
    """Per-PG last completed collective and the first collective that did not complete."""
    status = doc.get("pg_status") or {}
    last_completed: dict[str, int] = {}
    for pg, st in status.items():
        if isinstance(st, dict) and isinstance(st.get("last_completed_collective"), int):
            last_completed[str(pg)] = st["last_completed_collective"]
    stuck: dict[str, Any] | None = None
    last_time_ns: int | None = None
    for entry in doc.get("entries") or []:
        if not isinstance(entry, dict):
            continue
        t = entry.get("time_discovered_completed_ns") or entry.get("time_created_ns")
        if isinstance(t, int) and t > 0:
            last_time_ns = max(last_time_ns or 0, t)
        if entry.get("state") != "completed" and stuck is None and not entry.get("is_p2p"):
            stuck = {
                "seq": entry.get("collective_seq_id"),
                "op": entry.get("profiling_name"),
                "pg": entry.get("pg_id"),
                "sizes": entry.get("input_sizes"),
                "state": entry.get("state"),
                "time_ns": entry.get("time_created_ns"),
            }
    return {"last_completed": last_completed, "stuck": stuck, "last_time_ns": last_time_ns}
