"""What every format parser sees: one line with its context, and per-source state."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from functools import cache
from typing import Any

from ..demux import Origin
from ..model import Record
from ..signatures.literals import required_literals


@cache
def needs(pattern: re.Pattern[str]) -> tuple[str, ...]:
    """The lower-case literals one of which every match of `pattern` holds (worked out from the
    pattern itself, signatures/literals.py, once per pattern); () when it has none."""
    return required_literals(pattern.pattern)


def searched(pattern: re.Pattern[str], body: str, low: str) -> re.Match[str] | None:
    """`pattern.search(body)`, tried only where `low` (the line lower-cased) holds what every
    match of it needs: a parser's unanchored searches mostly meet lines that are none of them."""
    return pattern.search(body) if may_match(low, needs(pattern)) else None


def may_match(low: str, literals: tuple[str, ...]) -> bool:
    """Whether a line (lower-cased) can match a pattern of these `needs`: a parser's unanchored
    searches are tried only on lines that hold what they need (most lines hold none of it)."""
    if not literals:
        return True
    for literal in literals:  # noqa: SIM110 - a plain loop: any() over a generator costs twice as much
        if literal in low:
            return True
    return False


@dataclass
class LineCtx:
    source: str
    lineno: int
    text: str  # the cleaned line as it is in the file
    body: str  # the line without launcher prefixes
    origin: Origin  # who wrote it, from prefixes and the file name
    time: datetime | None
    order: int

    def record(self, kind: str, *, message: str = "", **data: Any) -> Record:
        """This line as a record of `kind` (its format) with the fields `data` the parser read:
        who and when come from the line's origin; what it means is not the parser's to say."""
        o = self.origin
        if o.local_rank is not None:
            data.setdefault("local_rank", o.local_rank)
        return Record(
            kind=kind,
            source=self.source,
            line=self.lineno,
            text=self.text,
            message=message or self.body.strip(),
            rank=o.rank,
            host=o.host,
            pid=o.pid,
            time=self.time,
            order=self.order,
            data=data,  # the call's own keyword dict: nobody else holds it
        )


@dataclass
class SourceState:
    """Multi-line state of one source (tracebacks, elastic failure blocks, 'Last error:')."""

    name: str
    traceback: dict[str, Any] | None = None
    failure_block: dict[str, Any] | None = None
    failure_section: str | None = None
    expect_last_error: Record | None = None
    extra: dict[str, Any] = field(default_factory=dict)
