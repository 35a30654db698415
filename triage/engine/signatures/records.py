"""What a format parser's record says of the process that wrote it (data/records.toml): the
severity the engine gives a record by its format, beside what the catalog's entries say the
same line means. The parsers yield identity and structure only (model.Record); this is where
a record of theirs becomes an error, a warning or a fact.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from .load import DATA, toml_file
from .schema import CatalogError

FILE = "records.toml"
SAYS = ("info", "warn", "error", "fatal")
DEFAULT = "info"  # a record no entry reads: a fact about who and when


@dataclass(frozen=True)
class Reading:
    kind: str
    says: str
    origin: str
    samples: tuple[str, ...]
    not_samples: tuple[str, ...] = ()
    when: tuple[tuple[str, tuple[Any, ...]], ...] = ()
    present: tuple[str, ...] = ()

    def holds(self, data: Mapping[str, Any]) -> bool:
        for name in self.present:
            if data.get(name) is None:
                return False
        for name, values in self.when:
            value = data.get(name)
            if isinstance(value, str):
                value = value.casefold()
            if value not in values:
                return False
        return True


def _reading(raw: dict[str, Any], where: str) -> Reading:
    unknown = sorted(set(raw) - {"kind", "says", "origin", "samples", "not_samples", "when", "present"})
    if unknown:
        raise CatalogError(f"{where}: unknown field(s) {', '.join(unknown)}")
    kind, says, origin = raw.get("kind"), raw.get("says"), raw.get("origin")
    if not isinstance(kind, str) or not kind or not isinstance(origin, str) or not origin:
        raise CatalogError(f"{where}: a record needs a kind and an origin")
    if says not in SAYS:
        raise CatalogError(f"{where}: says {says!r} is not one of {', '.join(SAYS)}")
    lines = {name: raw.get(name, []) for name in ("samples", "not_samples")}
    if not all(isinstance(v, list) and all(isinstance(x, str) and x for x in v) for v in lines.values()):
        raise CatalogError(f"{where}: samples and not_samples must be lists of non-empty strings")
    if not lines["samples"]:
        raise CatalogError(f"{where}: a record needs at least one sample")
    when = raw.get("when", {})
    present = raw.get("present", [])
    if not isinstance(when, dict) or not isinstance(present, list) or not all(isinstance(p, str) for p in present):
        raise CatalogError(f"{where}: when must be a table of field values, present a list of fields")
    conds: list[tuple[str, tuple[Any, ...]]] = []
    for name, value in when.items():
        values = value if isinstance(value, list) else [value]
        conds.append((name, tuple(v.casefold() if isinstance(v, str) else v for v in values)))
    return Reading(kind=kind, says=says, origin=origin, samples=tuple(lines["samples"]),
                   not_samples=tuple(lines["not_samples"]), when=tuple(conds), present=tuple(present))


@cache
def readings() -> dict[str, tuple[Reading, ...]]:
    """The table's entries by record kind, in the file's order; CatalogError where one does not
    hold to the form above."""
    doc = toml_file(DATA / FILE)
    if set(doc) - {"record"}:
        raise CatalogError(f"{FILE}: the file holds [[record]] tables only")
    out: dict[str, list[Reading]] = {}
    for i, raw in enumerate(doc.get("record", [])):
        reading = _reading(raw, f"{FILE}: record {i} ({raw.get('kind')!r})")
        out.setdefault(reading.kind, []).append(reading)
    for kind, found in out.items():
        if any(not (r.when or r.present) for r in found[:-1]):
            raise CatalogError(f"{FILE}: {kind}: an unconditional reading must be its kind's last")
    return {kind: tuple(found) for kind, found in out.items()}


def reading_of(kind: str, data: Mapping[str, Any]) -> Reading | None:
    """The entry that reads a record of `kind` holding `data`; None where none does."""
    for reading in readings().get(kind, ()):
        if reading.holds(data):
            return reading
    return None


def severity(kind: str, data: Mapping[str, Any]) -> str:
    """What a record of `kind` holding `data` says of its writer (info, warn, error, fatal)."""
    found = reading_of(kind, data)
    return DEFAULT if found is None else found.says
