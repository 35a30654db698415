"""The kernel log (dmesg / journal) where this user may read it, and the NVIDIA Xid lines in it."""
from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# docs/log-formats.md §3.1: the PCI part has no ".function"; pid/name are absent on newer drivers when unknown.
XID_RE = re.compile(
    r"NVRM: Xid \((?:PCI:)?(?P<bdf>[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2})"
    r"(?: GPU-I:(?P<gi>\d+))?(?: GPU-CI:(?P<ci>\d+))?\): (?P<xid>\d+), "
    r"(?:pid=(?P<pid>'?<?[\w]+>?'?), (?:name=(?P<name>[^,]*), )?)?(?P<msg>.*)$"
)

MAX_LINES = 20000


@dataclass
class KernelLog:
    text: str | None        # None when no source could be read
    source: str | None      # the command or file it came from
    error: str | None       # why it could not be read


def _run(cmd: list[str]) -> tuple[str | None, str | None]:
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=20, check=False)
    except (OSError, subprocess.SubprocessError) as exc:
        return None, str(exc)
    if out.returncode != 0 or not out.stdout.strip():
        return None, (out.stderr.strip().splitlines() or [f"exit {out.returncode}"])[-1]
    return out.stdout, None


def read_kernel_log() -> KernelLog:
    """Try dmesg (ISO times), then the journal, then syslog files; dmesg_restrict often blocks the first."""
    attempts: list[str] = []
    candidates = []
    if shutil.which("dmesg"):
        candidates.append(["dmesg", "--time-format", "iso"])
        candidates.append(["dmesg"])
    if shutil.which("journalctl"):
        candidates.append(["journalctl", "-k", "-o", "short-iso", "--no-pager", "-n", str(MAX_LINES)])
    for cmd in candidates:
        text, err = _run(cmd)
        if text is not None:
            return KernelLog(_tail(text), " ".join(cmd), None)
        attempts.append(f"{cmd[0]}: {err}")
    for path in ("/var/log/kern.log", "/var/log/messages"):
        try:
            return KernelLog(_tail(Path(path).read_text(errors="replace")), path, None)
        except OSError as exc:
            attempts.append(f"{path}: {exc.strerror or exc}")
    return KernelLog(None, None, "; ".join(attempts) or "no dmesg, journalctl or syslog file")


def _tail(text: str) -> str:
    lines = text.splitlines(keepends=True)
    return "".join(lines[-MAX_LINES:])


def parse_xid_lines(text: str) -> list[dict[str, Any]]:
    found = []
    for line in text.splitlines():
        m = XID_RE.search(line)
        if not m:
            continue
        found.append({
            "text": line[m.start():].strip(),
            "line": line.rstrip("\n"),
            "xid": int(m["xid"]),
            "pci": m["bdf"].lower(),
            "pid": m["pid"].strip("'") if m["pid"] else None,
            "message": m["msg"].strip(),
        })
    return found
