"""Logs written in UTF-16 or UTF-32 (Windows tools, PowerShell's `>`, some collectors), and a
UTF-8 byte-order mark: told from the first bytes of a file and read as UTF-8 text.

Read as bytes, a UTF-16 log is every character followed by a NUL: no pattern matches it, and
the NUL folding meant for crash-filled tails would cut it into one line per character. So a
member whose head has a UTF-16/32 byte-order mark, or the NUL pattern of ASCII text in one of
those encodings (every other byte NUL, in step), is decoded on the fly (a streaming decoder,
nothing held whole); a UTF-8 byte-order mark is dropped, so a file of nothing else is empty.
"""
from __future__ import annotations

import codecs
import io
from typing import BinaryIO

UTF8_BOM = b"\xef\xbb\xbf"
# Longest first: the UTF-32-LE mark begins with the UTF-16-LE one.
_BOMS = (
    (b"\xff\xfe\x00\x00", "utf-32-le"),
    (b"\x00\x00\xfe\xff", "utf-32-be"),
    (b"\xff\xfe", "utf-16-le"),
    (b"\xfe\xff", "utf-16-be"),
)
# How the NULs of ASCII text fall in each encoding: (unit size, offset of the one non-NUL byte).
_PATTERNS = (("utf-32-le", 4, 0), ("utf-32-be", 4, 3), ("utf-16-le", 2, 0), ("utf-16-be", 2, 1))
MIN_UNITS = 8  # characters of evidence before a NUL pattern counts
SHARE = 0.9  # of the units that must show the pattern (the rest: non-ASCII characters)


def wide_encoding(head: bytes) -> str | None:
    """"utf-16-le", "utf-32-be" ... when `head` (a file's first bytes) is text in UTF-16/32
    (by its byte-order mark, else by the NUL pattern of ASCII text); None otherwise."""
    for bom, name in _BOMS:
        if head.startswith(bom):
            return name
    if b"\x00" not in head:
        return None
    for name, size, offset in _PATTERNS:
        units = [head[i : i + size] for i in range(0, len(head) - size + 1, size)]
        if len(units) < MIN_UNITS:
            continue
        ascii_like = sum(1 for u in units if u[offset] != 0 and not any(b for i, b in enumerate(u) if i != offset))
        if ascii_like >= SHARE * len(units):
            return name
    return None


class Decoded(io.RawIOBase):
    """A UTF-16/32 byte stream read as UTF-8 (its byte-order mark dropped); undecodable units
    become U+FFFD. Reads a block at a time."""

    BLOCK = 1 << 16

    def __init__(self, inner: BinaryIO | io.RawIOBase, encoding: str) -> None:
        self._inner = inner
        self._decoder = codecs.getincrementaldecoder(encoding)(errors="replace")
        self._pending = b""
        self._started = False
        self._done = False

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview | bytearray) -> int:  # type: ignore[override]
        while not self._pending and not self._done:
            raw = self._inner.read(self.BLOCK)
            text = self._decoder.decode(raw or b"", final=not raw)
            self._done = not raw
            if not self._started and text:
                text = text.removeprefix("\ufeff")
                self._started = True
            self._pending = text.encode("utf-8", "surrogateescape")
        n = min(len(buffer), len(self._pending))
        buffer[:n] = self._pending[:n]
        self._pending = self._pending[n:]
        return n


class SkipBom(io.RawIOBase):
    """A UTF-8 stream without its leading byte-order mark."""

    def __init__(self, inner: BinaryIO | io.RawIOBase) -> None:
        self._inner = inner
        self._skip = len(UTF8_BOM)

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview | bytearray) -> int:  # type: ignore[override]
        while self._skip:
            got = self._inner.read(self._skip)
            if not got:
                return 0
            self._skip -= len(got)
        data = self._inner.read(len(buffer))
        if not data:
            return 0
        buffer[: len(data)] = data
        return len(data)


def as_utf8(reader: BinaryIO | io.RawIOBase, head: bytes) -> BinaryIO | io.RawIOBase:
    """`reader` as UTF-8 text: decoded when `head` says UTF-16/32, its UTF-8 mark dropped."""
    encoding = wide_encoding(head)
    if encoding is not None:
        return Decoded(reader, encoding)
    if head.startswith(UTF8_BOM):
        return SkipBom(reader)
    return reader
