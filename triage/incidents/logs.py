"""The log viewer's reads: one page of one source of a bundle, opened through the engine.

A page is found by counting newlines in 1 MiB blocks, never by reading the source whole, so a
2 GB log opens at its first page at once and at line N after one sequential scan up to N.
"""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from typing import BinaryIO

from .models import Bundle, Incident

BLOCK = 1024 * 1024


class SourceNotFound(Exception):
    pass


@dataclass(frozen=True)
class LogLine:
    number: int
    text: str
    truncated: bool


@dataclass(frozen=True)
class LogPage:
    source: str
    bundle: Bundle
    first: int  # number of the first line shown (1-based)
    lines: list[LogLine]
    at_end: bool  # no line after this page
    notice: str = ""  # why there are no (more) lines, when it is not the end of the file

    @property
    def last(self) -> int:
        return self.first + len(self.lines) - 1


def source_bundle(*, incident: Incident, source: str) -> tuple[Bundle, str]:
    """The bundle a diagnosis source name comes from, and the name inside it. A loose file
    (`rank0.log`, `rank0.log.gz`) is a source named by its bundle's label alone."""
    label, _, inner = source.partition("/")
    bundle = incident.bundles.filter(label=label).first()
    if bundle is None:
        raise SourceNotFound(f"no bundle of this incident holds {source!r}")
    return bundle, inner


def log_page(*, incident: Incident, source: str, first: int, count: int, max_chars: int) -> LogPage:
    """Lines first..first+count-1 of `source` (fewer at the end of the file)."""
    from triage.engine import BundleError
    from triage.engine.bundle import LimitExceeded

    bundle, _ = source_bundle(incident=incident, source=source)
    first = max(1, first)
    try:
        start, lines, at_end = _read_source(bundle, source, first, count, max_chars)
    except LimitExceeded as e:
        # Paging far into a huge or bomb-like file: say so, as the diagnosis did.
        notice = f"Lines from {first} on are past the reading limit ({e}); download the bundle to read them."
        return LogPage(source=source, bundle=bundle, first=first, lines=[], at_end=True, notice=notice)
    except (BundleError, KeyError, FileNotFoundError) as e:
        raise SourceNotFound(f"{source}: not readable in its bundle ({e})") from e
    return LogPage(source=source, bundle=bundle, first=start, lines=lines, at_end=at_end)


def _read_source(bundle: Bundle, source: str, first: int, count: int,
                 max_chars: int) -> tuple[int, list[LogLine], bool]:
    with _open_log(bundle, source) as stream:
        return _read_page(stream, first, count, max_chars)


@contextmanager
def _open_log(bundle: Bundle, source: str) -> Iterator[BinaryIO]:
    """The source as a stream, named exactly as the diagnosis names it (the bundle read under
    its label); KeyError when the bundle has no such source."""
    from triage.engine import open_source

    from .services import archive_limits
    from .storage import engine_input

    stored = engine_input(bundle.file.name, bundle.size)
    with ExitStack() as stack:
        try:
            stream = stack.enter_context(open_source([(bundle.label, stored)], source, archive_limits()))
        except KeyError:
            _, _, inner = source.partition("/")
            if not inner:
                raise
            # Links made before sources were named like the diagnosis: "<label>/<file name>".
            stream = stack.enter_context(open_source([("", stored)], inner, archive_limits()))
        yield stream


def _read_page(stream: BinaryIO, first: int, count: int, max_chars: int) -> tuple[int, list[LogLine], bool]:
    lines: list[LogLine] = []
    number = 1
    pending = b""
    # Skip whole blocks while the wanted line is beyond them: a count, no decoding.
    while number < first:
        block = stream.read(BLOCK)
        if not block:
            return number, [], True  # the source ends before the wanted line
        newlines = block.count(b"\n")
        if number + newlines < first:
            number += newlines
            continue
        # The wanted line starts inside this block: keep what follows its start.
        offset = 0
        while number < first:
            offset = block.index(b"\n", offset) + 1
            number += 1
        pending = block[offset:]
    while len(lines) < count:
        cut = pending.find(b"\n")
        if cut >= 0:
            lines.append(_line(number, pending[:cut], max_chars))
            pending = pending[cut + 1 :]
            number += 1
            continue
        if len(pending) > max_chars * 4:  # a monster line: keep its head, skip the rest
            pending = pending[: max_chars * 4] + b"\n" + _skip_line(stream)
            continue
        block = stream.read(BLOCK)
        if not block:
            if pending:
                lines.append(_line(number, pending, max_chars))
            return first, lines, True
        pending += block
    return first, lines, not pending and not stream.read(1)


def _skip_line(stream: BinaryIO) -> bytes:
    """Read past the rest of an over-long line; return what follows it."""
    while True:
        block = stream.read(BLOCK)
        if not block:
            return b""
        cut = block.find(b"\n")
        if cut >= 0:
            return block[cut + 1 :]


def _line(number: int, raw: bytes, max_chars: int) -> LogLine:
    text = raw.rstrip(b"\r").decode("utf-8", errors="replace")
    truncated = len(text) > max_chars
    return LogLine(number=number, text=text[:max_chars], truncated=truncated)


# A search in the log viewer reads at most this much past its starting line: a phrase typed in
# the page must answer in about a second even in a 2 GB log (the next search goes on from there).
FIND_MAX_BYTES = 64 * 1024 * 1024


@dataclass(frozen=True)
class LogFind:
    line: int | None  # first line at or after the start that contains the text
    searched_to: int  # last line read
    exhausted: bool  # the end of the source was reached


def log_find(*, incident: Incident, source: str, text: str, start: int, max_bytes: int = FIND_MAX_BYTES) -> LogFind:
    """The first line at or after `start` whose text contains `text` (case-insensitive)."""
    from triage.engine import BundleError
    from triage.engine.bundle import LimitExceeded

    bundle, _ = source_bundle(incident=incident, source=source)
    needle = text.casefold()
    number, read = 1, 0
    try:
        with _open_log(bundle, source) as stream:
            for raw in stream:
                if number >= start:
                    read += len(raw)
                    if needle in raw.decode("utf-8", errors="replace").casefold():
                        return LogFind(line=number, searched_to=number, exhausted=False)
                    if read > max_bytes:
                        return LogFind(line=None, searched_to=number, exhausted=False)
                number += 1
    except LimitExceeded:
        return LogFind(line=None, searched_to=number - 1, exhausted=True)  # the rest is past the reading limit
    except (BundleError, KeyError, FileNotFoundError) as e:
        raise SourceNotFound(f"{source}: not readable in its bundle ({e})") from e
    return LogFind(line=None, searched_to=number - 1, exhausted=True)
