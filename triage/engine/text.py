"""Turning raw bytes of a log line into clean text.

Real logs are hostile in boring ways: invalid UTF-8, ANSI colours from rich/tqdm, CRLF from
Windows editors, `\r` progress bars that rewrite one line many times, and the occasional
50 MB line. None of that may crash the engine or blow up memory.
"""
from __future__ import annotations

import re

# A line longer than this is cut: no log line that matters is this long, and it bounds memory
# per line whatever the input.
MAX_LINE_CHARS = 16 * 1024

_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def clean_line(raw: bytes) -> str:
    """Decode one raw line (without or with its newline) into display-safe text."""
    if len(raw) > MAX_LINE_CHARS * 4:
        raw = raw[: MAX_LINE_CHARS * 4]
    text = raw.decode("utf-8", errors="replace")
    text = text.rstrip("\r\n")
    if "\x1b" in text:
        text = _ANSI.sub("", text)
    if "\r" in text:
        # A progress bar redraws with \r: what the terminal finally showed is the last part.
        parts = [p for p in text.split("\r") if p.strip()]
        text = parts[-1] if parts else ""
    if _CONTROL.search(text):
        text = _CONTROL.sub("", text)
    if len(text) > MAX_LINE_CHARS:
        text = text[:MAX_LINE_CHARS] + " …[line cut]"
    return text


def looks_binary(head: bytes) -> bool:
    """True for data that is not text: NUL bytes, or mostly non-printable bytes."""
    if not head:
        return False
    if b"\x00" in head:
        return True
    sample = head[:4096]
    odd = sum(1 for b in sample if b < 9 or 13 < b < 32)
    return odd / len(sample) > 0.1
