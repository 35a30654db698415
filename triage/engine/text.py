"""Turning raw bytes of a log line into clean text.

Real logs are hostile in boring ways: invalid UTF-8, ANSI colours from rich/tqdm, CRLF from
Windows editors, `\r` progress bars that rewrite one line many times, and the occasional
50 MB line. None of that may crash the engine or blow up memory.
"""
from __future__ import annotations

import re
from collections.abc import Callable

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
    # (A printable line holds no control code: told without the search, most lines.)
    if not text.isprintable() and _CONTROL.search(text):
        text = _CONTROL.sub("", text)
    if len(text) > MAX_LINE_CHARS:
        text = text[:MAX_LINE_CHARS] + " …[line cut]"
    return text


# Share of a window's characters that may be control codes before the data counts as binary.
# Text is printable characters, whitespace, ANSI escapes and UTF-8; a byte that is not UTF-8
# counts against it only in the C1 range (0x80-0x9f), which Latin-1 text never uses and
# compressed data, executables and core dumps are full of.
MAX_CONTROL_SHARE = 0.1
BINARY_WINDOW = 8192
_NOT_TEXT = re.compile("[\x00-\x08\x0e-\x1a\x1c-\x1f\x7f\udc80-\udc9f]")
# The same control codes as bytes, for ASCII data (one character a byte, no surrogates): counted
# with bytes.translate instead of a regex over the decoded text.
_NOT_TEXT_BYTES = bytes([*range(0x00, 0x09), *range(0x0E, 0x1B), *range(0x1C, 0x20), 0x7F])


def looks_binary(head: bytes, window: int = BINARY_WINDOW) -> bool:
    """True for data that is not text, judged by the share of control codes over the first
    `window` bytes. NUL bytes are left out of the count: a crash leaves NUL-filled tails and
    holes in logs, and one NUL must not turn a log into "binary" (the bundle reader reads
    around them)."""
    # (The NULs of the whole head are dropped only where it has any: a copy of 64 KB for 8 KB.)
    sample = head.replace(b"\x00", b"")[:window] if b"\x00" in head else head[:window]
    if not sample:
        return False
    if sample.isascii():
        return (len(sample) - len(sample.translate(None, _NOT_TEXT_BYTES))) / len(sample) > MAX_CONTROL_SHARE
    text = sample.decode("utf-8", errors="surrogateescape")
    return len(_NOT_TEXT.findall(text)) / len(text) > MAX_CONTROL_SHARE


def _substring_test() -> Callable[[bytes, bytes], bool]:
    # StringZilla's SIMD search: 1.6 us for a word not in a 64 KB head, against 15-30 us for
    # `in` (which is what runs without its wheel, same answer).
    try:
        import stringzilla
    except ImportError:
        return lambda haystack, needle: needle in haystack
    find = stringzilla.find
    return lambda haystack, needle: find(haystack, needle) >= 0


holds: Callable[[bytes, bytes], bool] = _substring_test()
