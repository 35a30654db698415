"""The signature catalog: one entry per message family, drawn from the sources (see schema.py).

The entries are data, `data/*.toml`, read and checked by load.py. `CATALOG` joins every source's
entries, grouped by the program that prints them (`SOURCES`, named in data/catalog.toml).
"""
from __future__ import annotations

from .load import load
from .schema import CONFIDENCES, ROLES, Signature

__all__ = ["CATALOG", "CONFIDENCES", "RAISED_IN", "ROLES", "SOURCES", "Signature"]

_LOADED = load()
SOURCES: dict[str, tuple[Signature, ...]] = _LOADED.sources
CATALOG: tuple[Signature, ...] = _LOADED.entries
# Entries that read a generic exception by the module that raised it (data/raised_in.toml): not
# line readings, so not in CATALOG (the matcher and the gate never see them).
RAISED_IN: tuple[Signature, ...] = _LOADED.raised_in
