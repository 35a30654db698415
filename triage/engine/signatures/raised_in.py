"""What a generic exception means by where it was raised (the entries of data/raised_in.toml,
whose header says which modules of torch do what): the entry whose place names the file of the
traceback's frame and whose pattern reads the exception's type."""
from __future__ import annotations

import re
from functools import cache

from . import RAISED_IN
from .schema import Signature


@cache
def _compiled() -> tuple[re.Pattern[str], tuple[tuple[Signature, re.Pattern[str], re.Pattern[str]], ...]]:
    """Any entry's place in one expression (most frames are the program's own: one search says
    so), then each entry's places and exception types."""
    anywhere = re.compile("|".join(p for sig in RAISED_IN for p in sig.raised_in))
    return anywhere, tuple((sig, re.compile("|".join(sig.raised_in)), re.compile("|".join(sig.patterns)))
                           for sig in RAISED_IN)


def raised_in(exception: str, frame: str, stack: tuple[str, ...] = ()) -> Signature | None:
    """The entry that reads `exception` (the exception line, without any launcher prefix) by the
    file of `frame`, the traceback's last frame ('path:line in function'), or for an
    `in_any_frame` entry by any frame of `stack` (the frames above it), if any."""
    anywhere, entries = _compiled()
    if anywhere.search(frame) is None and not any(anywhere.search(f) for f in stack):
        return None
    for sig, places, types in entries:
        frames = (frame, *stack) if sig.in_any_frame else (frame,)
        if any(places.search(f) for f in frames) and types.search(exception):
            return sig
    return None
