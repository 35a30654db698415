"""The signature catalog: one entry per message family, drawn from the sources (see schema.py).

The entries are data, `data/*.toml`, read and checked by load.py. `CATALOG` joins every source's
entries, grouped by the program that prints them (`SOURCES`, named in data/catalog.toml).
"""
from __future__ import annotations

from .load import load
from .schema import CONFIDENCES, ROLES, Cause, Signature

__all__ = ["BY_ID", "CATALOG", "CAUSES", "CONFIDENCES", "RAISED_IN", "ROLES", "SOURCES", "Cause", "Signature", "cause",
           "fix_text"]

_LOADED = load()
SOURCES: dict[str, tuple[Signature, ...]] = _LOADED.sources
CATALOG: tuple[Signature, ...] = _LOADED.entries
# Entries that read a generic exception by the module that raised it (data/raised_in.toml): not
# line readings, so not in CATALOG (the matcher and the gate never see them).
RAISED_IN: tuple[Signature, ...] = _LOADED.raised_in
BY_ID: dict[str, Signature] = {s.id: s for s in CATALOG + RAISED_IN}
# The cause vocabulary's traits (data/causes.toml): what the verdict and the fleet act on.
CAUSES: dict[str, Cause] = _LOADED.causes
_NO_CAUSE = Cause(name="", meaning="no cause")


def cause(name: object) -> Cause:
    """The traits of the cause `name`; none set for a name outside the vocabulary (or None)."""
    return CAUSES.get(str(name), _NO_CAUSE)


def fix_text(key: str) -> str:
    """A cause rule's fix text or checklist (data/fixes.toml); KeyError names a key it lacks."""
    try:
        return _LOADED.fixes[key]
    except KeyError:
        raise KeyError(f"no fix {key!r} in signatures/data/fixes.toml") from None
