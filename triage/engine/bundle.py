"""Safe, streaming walk over a bundle: a directory, a file, a tar or a zip, compressed or not
(.gz, .xz, .bz2, .zst: streams, never unpacked to disk).

Nothing is ever extracted to disk by member path, so path traversal, absolute names,
symlinks, hardlinks and device members cannot touch the filesystem. Every byte read goes
through a counter that enforces the limits (member count, total uncompressed bytes,
compression ratio), so a zip bomb stops with a clear problem instead of eating the machine.
What could not be read is reported in `problems`; what could be read is still diagnosed.
"""
from __future__ import annotations

import bz2
import contextlib
import gzip
import io
import lzma
import os
import re
import stat
import tarfile
import tempfile
import zipfile
import zlib
from collections.abc import Callable, Generator, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, Literal, Protocol, cast, runtime_checkable

import zstandard

from .encoding import UTF8_BOM, as_utf8

GZIP_MAGIC = b"\x1f\x8b"
ZIP_MAGIC = b"PK\x03\x04"
ZIP_EMPTY = b"PK\x05\x06"
XZ_MAGIC = b"\xfd7zXZ\x00"
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
_USTAR_MAGIC, _USTAR_AT = b"ustar", 257  # a POSIX tar header's magic and its offset
_BZIP2 = re.compile(rb"BZh[1-9](?:\x31\x41\x59\x26\x53\x59|\x17\x72\x45\x38\x50\x90)")
# Single-stream compressors read here, and the suffixes their content loses once unpacked.
STREAM_KINDS = ("gzip", "xz", "bz2", "zstd")
_UNPACKED_SUFFIXES = (
    (".tgz", ".tar"), (".txz", ".tar"), (".tbz2", ".tar"), (".tbz", ".tar"), (".tzst", ".tar"),
    (".gz", ""), (".xz", ""), (".bz2", ""), (".zst", ""), (".zstd", ""),
)
# What users send that is not read, by its first bytes: named in the error instead of being
# taken for a binary log.
_UNSUPPORTED = (
    (b"7z\xbc\xaf\x27\x1c", "7-Zip archive"),
    (b"Rar!\x1a\x07", "RAR archive"),
    (b"\x04\x22\x4d\x18", "LZ4 frame (.lz4)"),
    (b"\x1f\x9d", "compress (.Z)"),
    (b"\x1f\xa0", "LZH compress"),
    (b"LZIP", "lzip (.lz)"),
    (b"\x89LZO\x00", "lzop (.lzo)"),
    (b"\x5d\x00\x00\x80\x00", "LZMA alone (.lzma)"),
    (b"070701", "cpio archive"),
    (b"070702", "cpio archive"),
    (b"070707", "cpio archive"),
    (b"\xc7\x71", "cpio archive (binary)"),
    (b"!<arch>\n", "ar archive (.a, .deb)"),
    (b"\xed\xab\xee\xdb", "RPM package"),
    (b"MSCF", "Microsoft Cabinet (.cab)"),
    (b"hsqs", "SquashFS image"),
    (b"xar!", "XAR archive (.pkg)"),
    (b"PK\x07\x08", "split or spanned zip"),
)
# The pickle protocol 2-5 header: a flight-recorder dump, whose NUL bytes are data.
_PICKLE = re.compile(rb"\x80[\x02-\x05]")
_NUL_RUN = re.compile(rb"\x00+")



@runtime_checkable
class Blob(Protocol):
    """A bundle that is not a local path (object storage): opened as one seekable binary
    stream, read front to back except for zip archives, which seek to their directory.
    The engine only reads `name` and `size` (read-only properties match, as StoredBlob's)."""

    @property
    def name(self) -> str: ...

    @property
    def size(self) -> int | None: ...

    def open(self) -> BinaryIO: ...


Input = str | os.PathLike[str] | Sequence[tuple[str, str | os.PathLike[str] | Blob]]


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
    # A zip inside a tar (or inside a compressed stream) must be seekable: it is copied to a
    # temporary file first, at most this big, deleted as soon as it has been read.
    max_spool_bytes: int = 2 * 1024**3


@dataclass
class Budget:
    """Shared accounting for one diagnose run."""

    limits: Limits
    members: int = 0
    total_bytes: int = 0
    problems: list[str] = field(default_factory=list)
    # Set by open_source: the one member wanted. Nested archives that cannot hold it are not
    # opened (nor spooled), so a log-viewer page reads only what leads to its source.
    only: str | None = None

    def note(self, problem: str) -> None:
        if problem not in self.problems:
            self.problems.append(problem)


# What a compressed stream raises on corrupt or cut data (bz2 also says plain OSError).
DECOMPRESS_ERRORS = (
    EOFError, zlib.error, gzip.BadGzipFile, tarfile.ReadError, zipfile.BadZipFile, lzma.LZMAError,
    zstandard.ZstdError,
)


class CountingReader(io.RawIOBase):
    """Reads through `inner`, enforcing per-member and per-bundle byte limits and, when the
    compressed side is known, the compression ratio."""

    def __init__(
        self,
        inner: BinaryIO,
        budget: Budget,
        name: str,
        compressed: CountingRaw | None = None,
    ) -> None:
        self._inner = inner
        self._budget = budget
        self._name = name
        self._compressed = compressed
        self.read_bytes = 0
        self.truncated = False

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview | bytearray) -> int:  # type: ignore[override]
        if self.truncated:
            return 0
        # read1 hands over what one decompression step produced, so the data before a
        # truncation point reaches the parsers instead of dying with the exception. Plain bytes
        # go straight into the caller's buffer (no intermediate copy).
        plain = self._compressed is None and hasattr(self._inner, "readinto")
        read = getattr(self._inner, "read1", None) or self._inner.read
        try:
            if plain:
                n = cast(io.RawIOBase, self._inner).readinto(buffer) or 0
                self._count(n)
                return n
            data = read(len(buffer))
        except (*DECOMPRESS_ERRORS, OSError) as exc:
            if isinstance(exc, OSError) and not isinstance(exc, DECOMPRESS_ERRORS) and self._compressed is None:
                raise  # a read error of the file itself, not corrupt compressed data
            self.truncated = True
            self._budget.note(f"{self._name}: truncated or corrupt compressed data ({_describe(exc)}); kept what was "
                              f"read before")
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

    def readinto(self, buffer: memoryview | bytearray) -> int:  # type: ignore[override]
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
    """gzip | xz | bz2 | zstd | zip | tar | unsupported | plain, from the first bytes."""
    if head.startswith(GZIP_MAGIC):
        return "gzip"
    if head.startswith(XZ_MAGIC):
        return "xz"
    if head.startswith(ZSTD_MAGIC):
        return "zstd"
    if _BZIP2.match(head):
        return "bz2"
    if head.startswith(ZIP_MAGIC) or head.startswith(ZIP_EMPTY):
        return "zip"
    if head[_USTAR_AT:_USTAR_AT + len(_USTAR_MAGIC)] == _USTAR_MAGIC:
        return "tar"
    if unsupported_format(head):
        return "unsupported"
    return "plain"


def unsupported_format(head: bytes) -> str | None:
    """What an archive or compressed file that is not read looks like, or None."""
    for magic, what in _UNSUPPORTED:
        if head.startswith(magic):
            return what
    return None


def _unpack(kind: str, source: BinaryIO) -> BinaryIO:
    """A decompressing stream over `source` (read front to back, never seeked)."""
    if kind == "gzip":
        return gzip.GzipFile(fileobj=source)  # type: ignore[return-value]
    if kind == "xz":
        return lzma.LZMAFile(source)  # type: ignore[return-value]
    if kind == "bz2":
        return bz2.BZ2File(source)  # type: ignore[return-value]
    # Several frames (pzstd, or `cat a.zst b.zst`) read as one stream, like gzip members.
    return zstandard.ZstdDecompressor().stream_reader(source, read_across_frames=True)


def _unpacked_name(name: str) -> str:
    lower = name.lower()
    for suffix, replacement in _UNPACKED_SUFFIXES:
        if lower.endswith(suffix):
            return name[: -len(suffix)] + replacement
    return name


class NulFold(io.RawIOBase):
    """Reads around NUL runs. A crash leaves a log with a NUL-filled tail (blocks allocated,
    never written) or a NUL hole with text after it: each run becomes one line break (none
    right after a line break or at the start), so the text before and after stays lines of
    their own and one NUL no longer makes a whole log "binary"."""

    def __init__(self, inner: BinaryIO | io.RawIOBase) -> None:
        self._inner = inner
        self._last = b""  # the last raw byte read ("" at the start: as after a line break)
        self.passthrough = False

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview | bytearray) -> int:  # type: ignore[override]
        into = getattr(self._inner, "readinto", None)
        if into is not None:
            view = memoryview(buffer)
            while True:
                n = int(into(view) or 0)
                if not n or self.passthrough:
                    return n
                got = view[:n].tobytes()
                if got.find(b"\x00") < 0:
                    self._last = got[-1:]
                    return n
                folded = self.fold(got)
                if folded:
                    view[: len(folded)] = folded
                    return len(folded)
        while True:
            data = self._inner.read(len(buffer))
            if not data:
                return 0
            if b"\x00" in data:
                data = self.fold(data)
            else:
                self._last = data[-1:]
            if data:
                buffer[: len(data)] = data
                return len(data)

    def fold(self, data: bytes, before: bytes | None = None) -> bytes:
        """`data` with NUL runs folded; `before`: the byte read just before it, when the
        caller read it (see hand_over)."""
        if before is not None:
            self._last = before
        out = []
        pos = 0
        for run in _NUL_RUN.finditer(data):
            start, end = run.span()
            out.append(data[pos:start])
            before = data[start - 1 : start] if start else self._last
            if before not in (b"", b"\n", b"\x00"):
                out.append(b"\n")
            pos = end
        out.append(data[pos:])
        self._last = data[-1:]
        return b"".join(out)

    def hand_over(self) -> Callable[[bytes, bytes | None], bytes]:
        """From now on blocks pass through untouched and the caller folds NUL runs with `fold`
        where it finds any: the line scanner looks for them with memchr in the block it holds
        anyway, instead of a copy here on every read."""
        self.passthrough = True
        return self.fold


# Readers peek at most 64 KiB; a larger buffer only adds a copy of every small file (large
# reads go past the buffer straight into the caller's).
HEAD_BUFFER = 64 * 1024


def _member_stream(reader: BinaryIO | io.RawIOBase, head: bytes) -> BinaryIO:
    """A member as handed to readers: NUL runs folded, except in a pickle (where they are data);
    UTF-16/32 text decoded and a UTF-8 byte-order mark dropped first (encoding.py)."""
    raw = reader if _PICKLE.match(head) else NulFold(as_utf8(reader, head))
    return io.BufferedReader(cast(io.RawIOBase, raw), buffer_size=HEAD_BUFFER)


def _join(prefix: str, name: str) -> str:
    return f"{prefix}/{name}" if prefix else name


def iter_members(inputs: Input, budget: Budget) -> Generator[Member, None, None]:
    """Yield every readable member of the input(s), in order, as streams."""
    for label, path in normalise_inputs(inputs):
        yield from _iter_path(path, label, budget)


def normalise_inputs(inputs: Input) -> list[tuple[str, Path | Blob]]:
    if isinstance(inputs, (str, os.PathLike)):
        return [("", Path(inputs))]
    return [(label, p if isinstance(p, Blob) else Path(p)) for label, p in inputs]


def _iter_blob(blob: Blob, label: str, budget: Budget) -> Iterator[Member]:
    try:
        handle = blob.open()
    except OSError as exc:
        raise BundleError(f"{blob.name}: cannot open ({exc.strerror or exc})") from exc
    with handle:
        yield from _iter_stream(handle, label or blob.name, budget, depth=0, outer_is_single=not label, size=blob.size)


def _iter_path(path: Path | Blob, label: str, budget: Budget) -> Iterator[Member]:
    if isinstance(path, Blob):
        yield from _iter_blob(path, label, budget)
        return
    # A labelled input is a stored bundle: its label names it, never the server's path.
    shown = label or str(path)
    if path.is_symlink() and not path.exists():
        raise BundleError(f"{shown}: broken symbolic link")
    if not path.exists():
        raise BundleError(f"{shown}: no such file or directory")
    if path.is_dir():
        yield from _iter_dir(path, label, budget)
        return
    if not path.is_file():
        raise BundleError(f"{shown}: not a regular file")
    try:
        handle = open(path, "rb")  # noqa: SIM115 - the caller reads and closes it
    except OSError as exc:
        raise BundleError(f"{shown}: cannot open ({exc.strerror})") from exc
    with handle:
        display = label or path.name
        yield from _iter_stream(handle, display, budget, depth=0, outer_is_single=not label, size=path.stat().st_size)


def dir_files(root: Path) -> Iterator[tuple[str, str]]:
    """(path, path relative to root with '/') of every file under a folder, in reading order.
    Plain strings: a Path object per file cost more than reading a rank's small log."""
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames.sort()
        rel = Path(os.path.relpath(dirpath, root)).as_posix()
        prefix = "" if rel == "." else rel + "/"
        for fname in sorted(filenames):
            yield os.path.join(dirpath, fname), prefix + fname


def _iter_dir(root: Path, label: str, budget: Budget) -> Iterator[Member]:
    for full, rel in dir_files(root):
        yield from iter_dir_file(full, _join(label, rel), budget)


def iter_dir_file(full: str | Path, name: str, budget: Budget) -> Iterator[Member]:
    """The members of one file of a folder bundle (a problem note when it cannot be read)."""
    try:
        st = os.lstat(full)
    except OSError as exc:
        budget.note(f"{name}: cannot stat ({exc.strerror})")
        return
    if stat.S_ISLNK(st.st_mode):
        budget.note(f"{name}: symbolic link skipped")
        return
    if not stat.S_ISREG(st.st_mode):
        budget.note(f"{name}: not a regular file, skipped")
        return
    try:
        handle = open(full, "rb")  # noqa: SIM115 - the caller reads and closes it
    except OSError as exc:
        budget.note(f"{name}: cannot open ({exc.strerror})")
        return
    with handle:
        data = _small_plain(handle) if st.st_size <= HEAD_BUFFER else None
        members = (_whole_member(data, name, budget) if data is not None
                   else _iter_stream(handle, name, budget, depth=0, outer_is_single=False, size=st.st_size))
        yield from _guarded(members, name, budget)


def _small_plain(handle: BinaryIO) -> bytes | None:
    """A file no larger than the head buffer that is plain UTF-8 text (no archive, byte-order
    mark, NUL or pickle), read whole in one call; None (the handle rewound): read it the usual
    way. A bundle of 16,384 rank logs of a few KB each spent more in the layers of counting,
    NUL folding and buffering than in reading them."""
    data: bytes | None
    try:
        data = handle.read(HEAD_BUFFER + 1)
    except OSError:  # the stream path meets it again and notes it as it does for any file
        data = None
    if data is None or not _plain_text(data):
        with contextlib.suppress(OSError):
            handle.seek(0)
        return None
    return data


def _plain_text(data: bytes) -> bool:
    head = data[:512]
    return not (len(data) > HEAD_BUFFER or sniff_kind(head) != "plain" or _is_empty_tar(data, len(data))
                or b"\x00" in data or data.startswith((UTF8_BOM, b"\xff\xfe", b"\xfe\xff")) or _PICKLE.match(head))


def _whole_member(data: bytes, name: str, budget: Budget) -> Iterator[Member]:
    """The member of a small plain file read whole, counted as the stream path counts it: when
    the reader reads it (a limit it passes stops the reading where it would have)."""
    budget.members += 1
    if budget.members > budget.limits.max_members:
        raise LimitExceeded(f"more than {budget.limits.max_members} files")
    counted = CountingReader(io.BytesIO(data), budget, name)
    yield Member(name=name, stream=io.BufferedReader(counted, buffer_size=HEAD_BUFFER), size=len(data))


def _guarded(members: Iterator[Member], name: str, budget: Budget) -> Iterator[Member]:
    """Turn read errors of one file into a problem note, so the rest of the bundle goes on."""
    try:
        yield from members
    except LimitExceeded as exc:
        budget.note(f"limit reached: {exc}; the rest was not read")
    except (*DECOMPRESS_ERRORS, tarfile.TarError, OSError) as exc:
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
    buffered = io.BufferedReader(raw, buffer_size=HEAD_BUFFER)
    head = buffered.peek(512)[:512]
    kind = sniff_kind(head)
    if kind == "plain" and _is_empty_tar(buffered.peek(EMPTY_TAR_MAX + 1), size):
        kind = "tar"
    if kind == "plain":
        budget.members += 1
        if budget.members > budget.limits.max_members:
            raise LimitExceeded(f"more than {budget.limits.max_members} files")
        yield Member(name=name, stream=_member_stream(CountingReader(buffered, budget, name), head), size=size)
        return
    if kind == "unsupported":
        budget.note(f"{name}: unsupported archive format: {unsupported_format(head)}")
        return
    if depth >= budget.limits.max_nesting:
        budget.note(f"{name}: archive nested too deep, skipped")
        return
    if kind == "zip":
        # zip reads its central directory at the end: it needs the seekable file itself.
        handle.seek(0)
        yield from _iter_zip(handle, name, budget, depth=depth, outer_is_single=outer_is_single)
        return
    if kind in STREAM_KINDS:
        yield from _iter_unpacked(buffered, raw, kind, name, budget, depth=depth, outer_is_single=outer_is_single)
        return
    if depth == 0 and handle.seekable():
        # A tar on disk (or an object read by ranges): its headers are read and the members
        # nobody reads are seeked over, so listing a bundle or reading one part of it costs the
        # headers and that part, not a pass over the whole archive.
        handle.seek(0)
        yield from _iter_tar(handle, name, budget, depth=depth, outer_is_single=outer_is_single, mode="r:")
        return
    yield from _iter_tar(buffered, name, budget, depth=depth, outer_is_single=outer_is_single)


def _iter_unpacked(
    buffered: BinaryIO, raw: CountingRaw, kind: str, name: str, budget: Budget, *, depth: int, outer_is_single: bool
) -> Iterator[Member]:
    """A compressed stream: a tar inside (.tar.gz, .tar.xz, .tar.bz2, .tar.zst), else one file."""
    counted = CountingReader(_unpack(kind, buffered), budget, name, compressed=raw)
    start, unpacked = _full_head(io.BufferedReader(counted, buffer_size=1 << 20), EMPTY_TAR_MAX + 1)
    if not start:
        budget.note(f"{name}: empty {kind} file (nothing in it once unpacked)")
        return
    inner_head = start[:512]
    inner_kind = sniff_kind(inner_head)
    if inner_kind == "tar" or _is_empty_tar(start, None):
        yield from _iter_tar(unpacked, name, budget, depth=depth, outer_is_single=outer_is_single)
        return
    inner_name = _unpacked_name(name)
    if inner_kind == "zip":
        yield from _spooled_zip(unpacked, inner_name, budget, depth=depth, outer_is_single=outer_is_single)
        return
    if inner_kind == "unsupported":
        budget.note(f"{name}: unsupported archive format: {unsupported_format(inner_head)} inside {kind}")
        return
    budget.members += 1
    yield Member(name=inner_name, stream=_member_stream(unpacked, inner_head), size=None)


# An archive with no member is only its end marker: two to twenty zero blocks (tar pads to
# records of 10 KiB), nothing else.
EMPTY_TAR_MAX = 10240


def _is_empty_tar(start: bytes, size: int | None) -> bool:
    whole = len(start) if size is None else size
    return (
        2 * tarfile.BLOCKSIZE <= len(start) == whole <= EMPTY_TAR_MAX and whole % tarfile.BLOCKSIZE == 0
        and not start.strip(b"\x00")
    )


def _full_head(stream: io.BufferedReader, n: int = 512) -> tuple[bytes, BinaryIO]:
    """The first `n` bytes (fewer only at the end) and the stream still holding them. peek()
    gives what one decompression step made, which can be less than a tar header."""
    head = stream.peek(n)[:n]
    if len(head) >= n:
        return head, stream
    head = stream.read(n)
    return head, io.BufferedReader(Prefixed(head, stream), buffer_size=1 << 20)


class Prefixed(io.RawIOBase):
    """Bytes already read, then the rest of the stream."""

    def __init__(self, first: bytes, rest: BinaryIO) -> None:
        self._first = memoryview(first)
        self._rest = rest

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview | bytearray) -> int:  # type: ignore[override]
        if self._first.nbytes:
            n = min(len(buffer), self._first.nbytes)
            buffer[:n] = self._first[:n]
            self._first = self._first[n:]
            return n
        data = self._rest.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)


def _spooled_zip(
    handle: BinaryIO, name: str, budget: Budget, *, depth: int, outer_is_single: bool, size: int | None = None
) -> Iterator[Member]:
    """A zip that came out of a stream (a tar member, a .zip.gz): zip needs to seek, so it is
    copied to a temporary file first, at most Limits.max_spool_bytes, and deleted right after."""
    limit = budget.limits.max_spool_bytes
    with tempfile.TemporaryFile() as spool:
        counted = CountingReader(handle, budget, name)
        written = 0
        while chunk := counted.read(1 << 20):
            written += len(chunk)
            if written > limit:
                budget.note(f"{name}: zip inside an archive larger than {limit} bytes, skipped")
                return
            spool.write(chunk)
        spool.seek(0)
        yield from _iter_stream(spool, name, budget, depth=depth, outer_is_single=outer_is_single, size=size)


def _archive_prefix(name: str, outer_is_single: bool) -> str:
    # A single uploaded archive is the bundle itself: members are named by their inner path.
    # An archive inside a folder or another archive keeps its own name as a prefix.
    return "" if outer_is_single else name


def _iter_tar(
    stream: BinaryIO, name: str, budget: Budget, *, depth: int, outer_is_single: bool, mode: Literal["r|", "r:"] = "r|"
) -> Iterator[Member]:
    prefix = _archive_prefix(name, outer_is_single)
    try:
        archive = tarfile.open(fileobj=stream, mode=mode)  # noqa: SIM115 - closed after its members are read
    except tarfile.TarError as exc:
        budget.note(f"{name}: not a readable tar archive ({_describe(exc)})")
        return
    entries = 0
    with archive:
        for info in archive:
            entries += 1 if not info.isdir() else 0
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
            yield from _iter_nested(cast(BinaryIO, extracted), member_name, budget, depth=depth, size=info.size)
    if not entries:
        budget.note(f"{name}: empty archive (no files in it)")


def _iter_nested(handle: BinaryIO, name: str, budget: Budget, *, depth: int, size: int | None) -> Iterator[Member]:
    head = handle.peek(512)[:512] if hasattr(handle, "peek") else b""
    kind = sniff_kind(head) if head else "plain"
    if kind == "plain":
        yield Member(name=name, stream=_member_stream(CountingReader(handle, budget, name), head), size=size)
        return
    wanted = budget.only
    if wanted is not None and not wanted.startswith(name + "/") and wanted != _unpacked_name(name):
        return  # open_source looks for a member this archive cannot hold: not opened, not spooled
    if kind == "zip":
        yield from _spooled_zip(handle, name, budget, depth=depth + 1, outer_is_single=False, size=size)
        return
    yield from _iter_stream(handle, name, budget, depth=depth + 1, outer_is_single=False, size=size)


def _iter_zip(stream: BinaryIO, name: str, budget: Budget, *, depth: int, outer_is_single: bool) -> Iterator[Member]:
    prefix = _archive_prefix(name, outer_is_single)
    try:
        archive = zipfile.ZipFile(stream)
    except (zipfile.BadZipFile, OSError) as exc:
        budget.note(f"{name}: not a readable zip archive ({_describe(exc)})")
        return
    with archive:
        if not [info for info in archive.infolist() if not info.is_dir()]:
            budget.note(f"{name}: empty archive (no files in it)")
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
                budget.note(f"{member_name}: compression ratio above {budget.limits.max_ratio:.0f}:1 (zip bomb?), "
                            f"skipped")
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
                    _iter_nested(io.BufferedReader(guarded, buffer_size=1 << 20), member_name, budget, depth=depth,
                                 size=info.file_size),
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

    def readinto(self, buffer: memoryview | bytearray) -> int:  # type: ignore[override]
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
    budget = Budget(limits or Limits(), only=inner_name)
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
