"""The per-host snapshot document, schema nccl-triage/snapshot@1 (docs/bundle-format.md)."""
from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from collectors import COLLECTOR
from collectors.environment import relevant_env
from collectors.host import host_facts, utc_iso
from collectors.kernel_log import parse_xid_lines, read_kernel_log
from collectors.nvml import nvml_snapshot
from collectors.versions import versions

SCHEMA = "nccl-triage/snapshot@1"


def build_snapshot(environ: dict[str, str] | None = None) -> dict[str, Any]:
    env = dict(os.environ if environ is None else environ)
    klog = read_kernel_log()
    return {
        "schema": SCHEMA,
        "collected_at": utc_iso(time.time()),
        "collector": COLLECTOR,
        "host": host_facts(),
        "nvml": nvml_snapshot(),
        "versions": versions(),
        "env": relevant_env(env),
        # null, not [], when the log was unreadable: "no Xid" and "could not look" differ.
        "xid": parse_xid_lines(klog.text) if klog.text is not None else None,
        "kernel_log": {"source": klog.source, "error": klog.error},
    }


def write_snapshot(path: str | Path, environ: dict[str, str] | None = None) -> dict[str, Any]:
    snap = build_snapshot(environ)
    Path(path).write_text(json.dumps(snap, indent=2) + "\n")
    return snap
