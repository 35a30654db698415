"""Safe, streaming walk over a bundle: a directory, a file, a .gz, a tar or a zip.

Nothing is ever extracted to disk by member path, so path traversal, absolute names,
symlinks, hardlinks and device members cannot touch the filesystem. Every byte read goes
through a counter that enforces the limits (member count, total uncompressed bytes,
compression ratio), so a zip bomb stops with a clear problem instead of eating the machine.
What could not be read is reported in `problems`; what could be read is still diagnosed.
"""
from __future__ import annotations

import contextlib
import gzip
import io
import os
import stat
import tarfile
import tempfile
import zipfile
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, Union

GZIP_MAGIC = b"\x1f\x8b"
ZIP_MAGIC = b"PK\x03\x04"
ZIP_EMPTY = b"PK\x05\x06"

Input = Union[str, os.PathLike, Sequence[tuple[str, Union[str, os.PathLike]]]]


class BundleError(Exception):
    """The input cannot be read at all (the message is one line, for a terminal or a page)."""


class LimitExceeded(Exception):
    pass


@dataclass(frozen=True)
class Limits:
    max_members: int = 20_000
    max_total_bytes: int = 16 * 1024**3  # uncompressed, over the whole bundle
    max_member_bytes: int = 8 * 1024**3
    # gzip/zip of text logs compresses 5-20x; 100x and more is a bomb, not a log.
    max_ratio: float = 100.0
    ratio_grace_bytes: int = 32 * 1024**2  # small, very repetitive files are fine
    max_nesting: int = 2


@dataclass
class Budget:
    """Shared accounting for one diagnose run."""

    limits: Limits
    members: int = 0
    total_bytes: int = 0
    problems: list[str] = field(default_factory=list)

    def note(self, problem: str) -> None:
        if problem not in self.problems:
            self.problems.append(problem)


class CountingReader(io.RawIOBase):
    """Reads through `inner`, enforcing per-member and per-bundle byte limits and, when the
    compressed side is known, the compression ratio."""

    def __init__(
        self,
        inner: BinaryIO,
        budget: Budget,
        name: str,
        compressed: "CountingRaw | None" = None,
    ) -> None:
        self._inner = inner
        self._budget = budget
        self._name = name
        self._compressed = compressed
        self.read_bytes = 0
        self.truncated = False

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: "memoryview | bytearray") -> int:  # type: ignore[override]
        if self.truncated:
            return 0
        # read1 hands over what one decompression step produced, so the data before a
        # truncation point reaches the parsers instead of dying with the exception. Plain bytes
        # go straight into the caller's buffer (no intermediate copy).
        plain = self._compressed is None and hasattr(self._inner, "readinto")
        read = getattr(self._inner, "read1", None) or self._inner.read
        try:
            if plain:
                n = self._inner.readinto(buffer) or 0
                self._count(n)
                return n
            data = read(len(buffer))
        except (EOFError, zlib.error, gzip.BadGzipFile, tarfile.ReadError, zipfile.BadZipFile) as exc:
            self.truncated = True
            self._budget.note(f"{self._name}: truncated or corrupt compressed data ({_describe(exc)}); kept what was read before")
            return 0
        if not data:
            return 0
        n = len(data)
        self._count(n)
        buffer[:n] = data
        return n

    def _count(self, n: int) -> None:
        self.read_bytes += n
        self._budget.total_bytes += n
        limits = self._budget.limits
        if self.read_bytes > limits.max_member_bytes:
            raise LimitExceeded(f"{self._name}: larger than {limits.max_member_bytes} bytes uncompressed")
        if self._budget.total_bytes > limits.max_total_bytes:
            raise LimitExceeded(f"bundle larger than {limits.max_total_bytes} bytes uncompressed")
        if self._compressed is not None and self.read_bytes > limits.ratio_grace_bytes:
            packed = max(self._compressed.read_bytes, 1)
            if self.read_bytes / packed > limits.max_ratio:
                raise LimitExceeded(
                    f"{self._name}: compression ratio above {limits.max_ratio:.0f}:1 (zip bomb?)"
                )


class CountingRaw(io.RawIOBase):
    """Counts the compressed bytes consumed from the file on disk."""

    def __init__(self, inner: BinaryIO) -> None:
        self._inner = inner
        self.read_bytes = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: "memoryview | bytearray") -> int:  # type: ignore[override]
        into = getattr(self._inner, "readinto", None)
        if into is not None:  # straight from the file into the caller's buffer: no copy
            n = into(buffer) or 0
        else:
            data = self._inner.read(len(buffer))
            n = len(data)
            buffer[:n] = data
        self.read_bytes += n
        return n


@dataclass
class Member:
    """One readable file of the bundle. `stream` is valid only until the iterator moves on."""

    name: str
    stream: BinaryIO
    size: int | None = None


def safe_name(raw: str) -> tuple[str, bool]:
    """A display name with no absolute prefix or `..` parts; the flag says it was changed."""
    name = raw.replace("\\", "/")
    parts = [p for p in name.split("/") if p not in ("", ".", "..")]
    cleaned = "/".join(parts) or "unnamed"
    # Absolute names and '..' parts are the unsafe ones; './' and doubled slashes are just noise.
    return cleaned, name.startswith("/") or ".." in name.split("/") or (len(name) > 1 and name[1] == ":")


def sniff_kind(head: bytes) -> str:
    if head.startswith(GZIP_MAGIC):
        return "gzip"
    if head.startswith(ZIP_MAGIC) or head.startswith(ZIP_EMPTY):
        return "zip"
    if len(head) >= 262 and head[257:262] == b"ustar":
        return "tar"
    return "plain"


def _join(prefix: str, name: str) -> str:
    return f"{prefix}/{name}" if prefix else name


def iter_members(inputs: Input, budget: Budget) -> Iterator[Member]:
    """Yield every readable member of the input(s), in order, as streams."""
    for label, path in normalise_inputs(inputs):
        yield from _iter_path(Path(path), label, budget)


def normalise_inputs(inputs: Input) -> list[tuple[str, Path]]:
    if isinstance(inputs, (str, os.PathLike)):
        return [("", Path(inputs))]
    return [(label, Path(p)) for label, p in inputs]


def _iter_path(path: Path, label: str, budget: Budget) -> Iterator[Member]:
    if path.is_symlink() and not path.exists():
        raise BundleError(f"{path}: broken symbolic link")
    if not path.exists():
        raise BundleError(f"{path}: no such file or directory")
    if path.is_dir():
        yield from _iter_dir(path, label, budget)
        return
    if not path.is_file():
        raise BundleError(f"{path}: not a regular file")
    try:
        handle = open(path, "rb")
    except OSError as exc:
        raise BundleError(f"{path}: cannot open ({exc.strerror})") from exc
    with handle:
        display = label or path.name
        yield from _iter_stream(handle, display, budget, depth=0, outer_is_single=not label, size=path.stat().st_size)


def _iter_dir(root: Path, label: str, budget: Budget) -> Iterator[Member]:
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames.sort()
        for fname in sorted(filenames):
            full = Path(dirpath) / fname
            rel = full.relative_to(root).as_posix()
            name = _join(label, rel)
            try:
                st = os.lstat(full)
            except OSError as exc:
                budget.note(f"{name}: cannot stat ({exc.strerror})")
                continue
            if stat.S_ISLNK(st.st_mode):
                budget.note(f"{name}: symbolic link skipped")
                continue
            if not stat.S_ISREG(st.st_mode):
                budget.note(f"{name}: not a regular file, skipped")
                continue
            try:
                handle = open(full, "rb")
            except OSError as exc:
                budget.note(f"{name}: cannot open ({exc.strerror})")
                continue
            with handle:
                yield from _guarded(
                    _iter_stream(handle, name, budget, depth=0, outer_is_single=False, size=st.st_size),
                    name,
                    budget,
                )


def _guarded(members: Iterator[Member], name: str, budget: Budget) -> Iterator[Member]:
    """Turn read errors of one file into a problem note, so the rest of the bundle goes on."""
    try:
        yield from members
    except LimitExceeded as exc:
        budget.note(f"limit reached: {exc}; the rest was not read")
    except (EOFError, zlib.error, tarfile.TarError, zipfile.BadZipFile, gzip.BadGzipFile, OSError) as exc:
        budget.note(f"{name}: unreadable or truncated ({_describe(exc)}); kept what was read before")


def _describe(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0][:200]


def _iter_stream(
    handle: BinaryIO,
    name: str,
    budget: Budget,
    *,
    depth: int,
    outer_is_single: bool,
    size: int | None,
) -> Iterator[Member]:
    raw = CountingRaw(handle)
    buffered = io.BufferedReader(raw, buffer_size=1 << 20)
    head = buffered.peek(512)[:512]
    kind = sniff_kind(head)
    if kind == "plain":
        budget.members += 1
        if budget.members > budget.limits.max_members:
            raise LimitExceeded(f"more than {budget.limits.max_members} files")
        stream = io.BufferedReader(CountingReader(buffered, budget, name), buffer_size=1 << 20)
        yield Member(name=name, stream=stream, size=size)
        return
    if depth >= budget.limits.max_nesting:
        budget.note(f"{name}: archive nested too deep, skipped")
        return
    if kind == "zip":
        # zip reads its central directory at the end: it needs the seekable file itself.
        handle.seek(0)
        yield from _iter_zip(handle, name, budget, depth=depth, outer_is_single=outer_is_single)
        return
    if kind == "gzip":
        unpacked = io.BufferedReader(
            CountingReader(gzip.GzipFile(fileobj=buffered), budget, name, compressed=raw),  # type: ignore[arg-type]
            buffer_size=1 << 20,
        )
        inner_head = unpacked.peek(512)[:512]
        if sniff_kind(inner_head) == "tar":
            yield from _iter_tar(unpacked, name, budget, depth=depth, outer_is_single=outer_is_single)
            return
        inner_name = name[:-3] if name.endswith(".gz") else name
        inner_name = inner_name[:-4] + ".tar" if inner_name.endswith(".tgz") else inner_name
        budget.members += 1
        yield Member(name=inner_name, stream=unpacked, size=None)
        return
    yield from _iter_tar(buffered, name, budget, depth=depth, outer_is_single=outer_is_single)


def _archive_prefix(name: str, outer_is_single: bool) -> str:
    # A single uploaded archive is the bundle itself: members are named by their inner path.
    # An archive inside a folder or another archive keeps its own name as a prefix.
    return "" if outer_is_single else name


def _iter_tar(stream: BinaryIO, name: str, budget: Budget, *, depth: int, outer_is_single: bool) -> Iterator[Member]:
    prefix = _archive_prefix(name, outer_is_single)
    try:
        archive = tarfile.open(fileobj=stream, mode="r|")
    except tarfile.TarError as exc:
        budget.note(f"{name}: not a readable tar archive ({_describe(exc)})")
        return
    with archive:
        for info in archive:
            inner, changed = safe_name(info.name)
            member_name = _join(prefix, inner)
            if changed:
                budget.note(f"{info.name!r}: unsafe path in archive, read as {member_name!r}")
            if info.issym() or info.islnk():
                budget.note(f"{member_name}: link in archive skipped")
                continue
            if info.isdir():
                continue
            if not info.isfile():
                budget.note(f"{member_name}: device or special member skipped")
                continue
            budget.members += 1
            if budget.members > budget.limits.max_members:
                raise LimitExceeded(f"more than {budget.limits.max_members} files")
            extracted = archive.extractfile(info)
            if extracted is None:
                continue
            yield from _iter_nested(extracted, member_name, budget, depth=depth, size=info.size)


def _iter_nested(handle: BinaryIO, name: str, budget: Budget, *, depth: int, size: int | None) -> Iterator[Member]:
    head = handle.peek(512)[:512] if hasattr(handle, "peek") else b""
    kind = sniff_kind(head) if head else "plain"
    if kind == "plain":
        stream = io.BufferedReader(CountingReader(handle, budget, name), buffer_size=1 << 20)
        yield Member(name=name, stream=stream, size=size)
        return
    if kind == "zip":
        # zip needs seeking: spool the member (bounded by the limits) to a temporary file.
        with tempfile.TemporaryFile() as spool:
            counted = CountingReader(handle, budget, name)
            while chunk := counted.read(1 << 20):
                spool.write(chunk)
            spool.seek(0)
            yield from _iter_stream(spool, name, budget, depth=depth + 1, outer_is_single=False, size=size)  # type: ignore[arg-type]
        return
    yield from _iter_stream(handle, name, budget, depth=depth + 1, outer_is_single=False, size=size)


def _iter_zip(stream: BinaryIO, name: str, budget: Budget, *, depth: int, outer_is_single: bool) -> Iterator[Member]:
    prefix = _archive_prefix(name, outer_is_single)
    try:
        archive = zipfile.ZipFile(stream)  # type: ignore[arg-type]
    except (zipfile.BadZipFile, OSError) as exc:
        budget.note(f"{name}: not a readable zip archive ({_describe(exc)})")
        return
    with archive:
        for info in archive.infolist():
            inner, changed = safe_name(info.filename)
            member_name = _join(prefix, inner)
            if changed:
                budget.note(f"{info.filename!r}: unsafe path in archive, read as {member_name!r}")
            if info.is_dir():
                continue
            mode = (info.external_attr >> 16) & 0o170000
            if mode and not stat.S_ISREG(mode):
                budget.note(f"{member_name}: link or special member skipped")
                continue
            budget.members += 1
            if budget.members > budget.limits.max_members:
                raise LimitExceeded(f"more than {budget.limits.max_members} files")
            if info.compress_size and info.file_size / info.compress_size > budget.limits.max_ratio and (
                info.file_size > budget.limits.ratio_grace_bytes
            ):
                budget.note(f"{member_name}: compression ratio above {budget.limits.max_ratio:.0f}:1 (zip bomb?), skipped")
                continue
            try:
                member = archive.open(info)
            except (zipfile.BadZipFile, RuntimeError, NotImplementedError) as exc:
                budget.note(f"{member_name}: cannot read ({_describe(exc)})")
                continue
            packed = _ZipPacked(info.compress_size)
            with member:
                counted = CountingReader(member, budget, member_name)  # type: ignore[arg-type]
                # The header can lie about sizes: enforce the ratio on what is really produced.
                guarded = _RatioGuard(counted, packed, budget, member_name)
                yield from _guarded(
                    _iter_nested(io.BufferedReader(guarded, buffer_size=1 << 20), member_name, budget, depth=depth, size=info.file_size),
                    member_name,
                    budget,
                )


@dataclass
class _ZipPacked:
    read_bytes: int


class _RatioGuard(io.RawIOBase):
    def __init__(self, inner: CountingReader, packed: _ZipPacked, budget: Budget, name: str) -> None:
        self._inner = inner
        self._packed = packed
        self._budget = budget
        self._name = name

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: "memoryview | bytearray") -> int:  # type: ignore[override]
        n = self._inner.readinto(buffer)
        limits = self._budget.limits
        produced = self._inner.read_bytes
        if produced > limits.ratio_grace_bytes and produced / max(self._packed.read_bytes, 1) > limits.max_ratio:
            raise LimitExceeded(f"{self._name}: compression ratio above {limits.max_ratio:.0f}:1 (zip bomb?)")
        return n


@contextlib.contextmanager
def open_source(inputs: Input, inner_name: str, limits: Limits | None = None) -> Iterator[BinaryIO]:
    """Open one member of a bundle as a binary stream (for the log viewer).

    Use as a context manager; raises KeyError when the bundle has no such member.
    """
    budget = Budget(limits or Limits())
    members = iter_members(inputs, budget)
    try:
        for member in members:
            if member.name == inner_name:
                yield member.stream
                return
        raise KeyError(inner_name)
    finally:
        close = getattr(members, "close", None)
        if close:
            close()
