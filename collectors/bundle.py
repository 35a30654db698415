"""Packing logs and snapshots into a .tar.gz with manifest.json (schema nccl-triage/manifest@1).

The manifest tells the server which file is which rank. Files are recognised by name and by
their first lines, the same way the engine does, so `upload` can take a folder as it is.

A rank in the manifest applies to every line of its file, so it is written only where a
program said it: a file's own NCCL init line, torchrun's log dir (a local rank), a
flight-recorder dump named by torch (`<prefix><rank>`, the prefix one of torch's defaults,
`comm_lib_trace_rank_` / `nccl_trace_rank_`, or the one TORCH_FR_DUMP_TEMP_FILE / TORCH_NCCL_DEBUG_INFO_TEMP_FILE sets
here). A name a person chose (`rank3.log`, `error_3.json`, `mydump_3`) gives none.
"""
from __future__ import annotations

import io
import json
import os
import re
import tarfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from collectors import COLLECTOR
from collectors.host import utc_iso

MANIFEST_SCHEMA = "nccl-triage/manifest@1"
_HEAD_BYTES = 64 * 1024

_NCCL_LINE = re.compile(r"^(?:\[[^\]]*\] )?(?P<host>[^\s:]+):(?P<pid>\d+):(?P<tid>\d+) (?:\[\d+\] )?.*NCCL "
                        r"(?:INFO|WARN|TRACE|CALL)")
_NCCL_INIT = re.compile(r"\brank (?P<rank>\d+) nranks \d+ cudaDev (?P<dev>\d+)\b.*Init (?:START|COMPLETE)")
_KERNEL_LINE = re.compile(r"^(?:\[\s*\d+\.\d+\]|\d{4}-\d{2}-\d{2}T[\d:.,]+[+-]\d{2}:?\d{2}|\w{3} [ \d]\d [\d:]{8}) ")
# torch's default dump names: ~/.cache/torch/comm_lib_trace_rank_ (2.13), /tmp/nccl_trace_rank_ (older).
_FR_DEFAULT_PREFIXES = ("comm_lib_trace_rank_", "nccl_trace_rank_")
_FR_PREFIX_VARS = ("TORCH_FR_DUMP_TEMP_FILE", "TORCH_NCCL_DEBUG_INFO_TEMP_FILE")
_ELASTIC_NAME = re.compile(r"^error(?:[-_]\d+)?\.json$")


@dataclass
class BundleFile:
    path: Path          # on disk
    arcname: str        # inside the bundle, relative to manifest.json
    meta: dict[str, Any] = field(default_factory=dict)   # kind, rank, local_rank, pid


def _head(path: Path) -> bytes:
    with open(path, "rb") as f:
        return f.read(_HEAD_BYTES)


def _is_text(head: bytes) -> bool:
    return b"\x00" not in head[:8192]


def _json_object(path: Path, head: bytes) -> dict[str, Any] | None:
    if not head.lstrip().startswith(b"{"):
        return None
    try:
        data = json.loads(path.read_bytes() if len(head) < _HEAD_BYTES else head.decode("utf-8", "replace"))
    except (ValueError, OSError):
        return None
    return data if isinstance(data, dict) else None




def _fr_rank(name: str) -> int | None:
    """The rank torch appended to a dump's prefix, where the prefix is one torch was given here."""
    given = {os.path.basename(os.environ[v]) for v in _FR_PREFIX_VARS if os.environ.get(v)}
    prefixes = set(_FR_DEFAULT_PREFIXES) | given
    for prefix in prefixes:
        rest = name[len(prefix):] if prefix and name.startswith(prefix) else ""
        rest = rest.removesuffix(".json")
        if rest.isdecimal() and rest.isascii():
            return int(rest)
    return None


def _is_fr_dump(head: bytes) -> bool:
    """A flight-recorder dump by content: a pickle (protocol 2-5) or JSON object holding the
    recorder's keys."""
    if not (re.match(rb"\x80[\x02-\x05]", head) or head.lstrip().startswith(b"{")):
        return False
    return b"entries" in head and (b"pg_config" in head or b"profiling_name" in head or b"pg_status" in head)


def _local_rank_from_elastic_dir(path: Path) -> int | None:
    """torchelastic writes <log_dir>/<run>/attempt_<n>/<local_rank>/{stdout.log,stderr.log,error.json}."""
    if path.parent.name.isdigit() and path.parent.parent.name.startswith("attempt_"):
        return int(path.parent.name)
    return None


def classify(path: Path) -> dict[str, Any]:
    """kind (+ rank, local_rank, pid where the file says so) of one file."""
    name = path.name
    head = _head(path)
    local_rank = _local_rank_from_elastic_dir(path)
    meta: dict[str, Any] = {}
    if local_rank is not None:
        meta["local_rank"] = local_rank

    if _is_fr_dump(head) or (name.startswith(_FR_DEFAULT_PREFIXES) and _fr_rank(name) is not None):
        rank = _fr_rank(name)
        return {"kind": "flight_recorder", **({"rank": rank} if rank is not None else {})}
    if not _is_text(head):
        return {"kind": "other", **meta}
    if b"Job summary\n===" in head or b"Group     Comms     Nodes     Ranks" in head:
        return {"kind": "ncclras"}

    obj = _json_object(path, head)
    if obj is not None:
        schema = str(obj.get("schema", ""))
        if schema.startswith("nccl-triage/snapshot@"):
            return {"kind": "snapshot"}
        if schema.startswith("nccl-triage/smoke@"):
            return {"kind": "smoke"}
        if "message" in obj and _ELASTIC_NAME.match(name) is not None:
            return {"kind": "elastic_error", **meta}

    text = head.decode("utf-8", "replace")
    lines = [ln for ln in text.splitlines() if ln.strip()][:400]
    if name.endswith(".jsonl") and lines and all('"mem_used"' in ln for ln in lines[:5]):
        return {"kind": "nvml_samples"}
    if name.startswith(("dmesg", "kern", "journal")) or (
            lines and sum(bool(_KERNEL_LINE.match(ln)) for ln in lines) > 0.8 * len(lines)):
        return {"kind": "kernel_log"}

    nccl = [m for ln in lines if (m := _NCCL_LINE.match(ln))]
    if nccl and (name.startswith("nccl") or len(nccl) > 0.8 * len(lines)):
        meta["pid"] = int(nccl[0]["pid"])
        for ln in text.splitlines():
            if m := _NCCL_INIT.search(ln):
                meta["rank"] = int(m["rank"])
                break
        return {"kind": "nccl_debug", **meta}

    return {"kind": "log", **meta}


def gather(paths: Sequence[str | Path]) -> list[BundleFile]:
    """Files under the given paths; a folder keeps its layout under its own name."""
    files: list[BundleFile] = []
    taken: set[str] = {"manifest.json"}

    def add(path: Path, arcname: str) -> None:
        if arcname in taken:
            stem, dot, ext = arcname.rpartition(".")
            n = 2
            while (candidate := f"{stem}-{n}.{ext}" if dot else f"{arcname}-{n}") in taken:
                n += 1
            arcname = candidate
        taken.add(arcname)
        files.append(BundleFile(path, arcname, classify(path)))

    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            for root, dirs, names in os.walk(p):
                dirs.sort()
                for n in sorted(names):
                    full = Path(root, n)
                    if full.is_file() and not full.is_symlink() and not (full.parent == p and n == "manifest.json"):
                        add(full, (Path(p.resolve().name) / full.relative_to(p)).as_posix())
        elif p.is_file():
            if p.name != "manifest.json":
                add(p, p.name)
        else:
            raise FileNotFoundError(f"no such file or folder: {p}")
    return files


def manifest(files: list[BundleFile], *, job: str, host: str) -> dict[str, Any]:
    return {
        "schema": MANIFEST_SCHEMA,
        "job": job,
        "host": host,
        "created_at": utc_iso(time.time()),
        "collector": COLLECTOR,
        "files": [{"path": f.arcname, **f.meta} for f in files],
    }


def write_bundle(files: list[BundleFile], out: Path, *, job: str, host: str) -> dict[str, Any]:
    """Write the .tar.gz; manifest.json goes first so a reader finds it without a full scan."""
    man = manifest(files, job=job, host=host)
    data = json.dumps(man, indent=2).encode()
    with tarfile.open(out, "w:gz") as tar:
        info = tarfile.TarInfo("manifest.json")
        info.size = len(data)
        info.mtime = int(time.time())
        info.mode = 0o644
        tar.addfile(info, io.BytesIO(data))
        for f in files:
            # A log still being written may grow under us; tar records the size it saw first.
            tar.add(f.path, arcname=f.arcname, recursive=False)
    return man
