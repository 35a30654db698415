"""The catalog's files (data/*.toml) read into the entries the matcher, the gate and the rules use.

`data/catalog.toml` names the files of each source in the catalog's order (the order breaks
ties between entries that read one line equally well). Every entry is held to the schema
(schema.check); the whole catalog then to what spans entries: ids unique, `outranked_by` naming
entries or causes that exist, each code read by one entry.

Checking compiles every pattern and runs every sample, which costs more than reading the files:
the checked entries are kept in the private state directory (statedir.py) under the sha256 of
the files and of this loader and the schema, so an edit to any of them is a miss, never a stale
load; there is no version to bump.
"""
from __future__ import annotations

import hashlib
import json
import tomllib
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

from ..model import CAUSES
from .schema import CatalogError, Cause, Signature, check, check_cause

DATA = Path(__file__).with_name("data")
MANIFEST = "catalog.toml"
CAUSES_FILE = "causes.toml"
FIXES_FILE = "fixes.toml"
_OUTRANKED_CAUSE = "cause:"


@dataclass(frozen=True)
class Catalog:
    sources: dict[str, tuple[Signature, ...]]  # by source, in the catalog's order
    raised_in: tuple[Signature, ...]  # read by where an exception was raised, not by a line
    causes: dict[str, Cause]  # the vocabulary's traits, in model.CAUSES order
    fixes: dict[str, str]  # the cause rules' fix texts and checklists, by key

    @property
    def entries(self) -> tuple[Signature, ...]:
        return tuple(s for group in self.sources.values() for s in group)


def toml_file(path: Path) -> dict[str, Any]:
    """A data file of the catalog's, parsed; CatalogError naming it where it cannot be read."""
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise CatalogError(f"{path.name}: cannot read it: {e}") from e


def _manifest(directory: Path) -> tuple[dict[str, list[str]], list[str]]:
    man = toml_file(directory / MANIFEST)
    sources: dict[str, list[str]] = {}
    for item in man.get("source", []):
        name, files = item.get("name"), item.get("files")
        if set(item) != {"name", "files"} or not isinstance(name, str) or not isinstance(files, list) or not all(isinstance(f, str) for f in files):
            raise CatalogError(f"{MANIFEST}: each [[source]] needs a name and a list of files")
        sources[name] = files
    unknown = sorted(set(man) - {"source", "raised_in"})
    if unknown:
        raise CatalogError(f"{MANIFEST}: unknown key(s) {', '.join(unknown)}")
    raised = man.get("raised_in", [])
    if not isinstance(raised, list) or not all(isinstance(f, str) for f in raised):
        raise CatalogError(f"{MANIFEST}: raised_in must be a list of files")
    return sources, raised


def _entries(directory: Path, file: str) -> tuple[Signature, ...]:
    doc = toml_file(directory / file)
    unknown = sorted(set(doc) - {"signature"})
    if unknown:
        raise CatalogError(f"{file}: unknown table(s) {', '.join(unknown)}; entries are [[signature]]")
    return tuple(check(raw, file) for raw in doc.get("signature", []))


def _causes(directory: Path) -> dict[str, Cause]:
    doc = toml_file(directory / CAUSES_FILE)
    if set(doc) != {"cause"} or not isinstance(doc["cause"], dict):
        raise CatalogError(f"{CAUSES_FILE}: the file holds [cause.<name>] tables only")
    causes = {name: check_cause(name, raw, CAUSES_FILE) for name, raw in doc["cause"].items()}
    missing = [c for c in CAUSES if c not in causes]
    if missing:
        raise CatalogError(f"{CAUSES_FILE}: no table for the cause(s) {', '.join(missing)}")
    return {c: causes[c] for c in CAUSES}


def _fixes(directory: Path) -> dict[str, str]:
    doc = toml_file(directory / FIXES_FILE)
    fixes = doc.get("fix")
    if set(doc) != {"fix"} or not isinstance(fixes, dict):
        raise CatalogError(f"{FIXES_FILE}: the file holds one [fix] table")
    for key, text in fixes.items():
        if not isinstance(text, str) or not text.strip():
            raise CatalogError(f"{FIXES_FILE}: fix {key!r} must be a non-empty string")
    return dict(fixes)


def _check_across(catalog: Catalog) -> None:
    ids: set[str] = set()
    everything = catalog.entries + catalog.raised_in
    for sig in everything:
        if sig.id in ids:
            raise CatalogError(f"entry {sig.id!r} is defined twice")
        ids.add(sig.id)
    owner: dict[int, str] = {}
    for sig in everything:
        for ref in sig.outranked_by:
            cause = ref[len(_OUTRANKED_CAUSE):] if ref.startswith(_OUTRANKED_CAUSE) else None
            if (cause is not None and cause not in CAUSES) or (cause is None and ref not in ids):
                raise CatalogError(f"entry {sig.id!r}: outranked_by {ref!r} names no entry and no cause")
        for code in sig.codes:
            if code in owner:
                raise CatalogError(f"entry {sig.id!r}: code {code} is already read by {owner[code]!r}")
            owner[code] = sig.id
    for sig in everything:
        if sig.reports_code is not None and sig.reports_code not in owner:
            raise CatalogError(f"entry {sig.id!r}: reports_code {sig.reports_code} is no entry's code")


def read(directory: Path = DATA) -> Catalog:
    """The catalog in `directory`, checked (CatalogError names the file and the entry)."""
    sources, raised = _manifest(directory)
    catalog = Catalog({name: tuple(s for f in files for s in _entries(directory, f)) for name, files in sources.items()},
                      tuple(s for f in raised for s in _entries(directory, f)), _causes(directory),
                      _fixes(directory))
    _check_across(catalog)
    return catalog


def digest(directory: Path = DATA) -> str:
    """The sha256 of everything the checked catalog is made from: the files, this loader and the schema."""
    h = hashlib.sha256()
    for path in [Path(__file__), Path(__file__).with_name("schema.py"), *sorted(directory.glob("*.toml"))]:
        h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()[:24]


_FIELD_NAMES = tuple(f.name for f in fields(Signature))


def _dump(catalog: Catalog) -> bytes:
    def rows(sigs: tuple[Signature, ...]) -> list[list[Any]]:
        return [[getattr(s, n) for n in _FIELD_NAMES] for s in sigs]

    return json.dumps({"sources": {k: rows(v) for k, v in catalog.sources.items()},
                       "raised_in": rows(catalog.raised_in),
                       "causes": {k: asdict(v) for k, v in catalog.causes.items()},
                       "fixes": catalog.fixes}).encode()


def _load(data: bytes) -> Catalog:
    doc = json.loads(data)

    def sigs(rows: list[list[Any]]) -> tuple[Signature, ...]:
        out = []
        for row in rows:
            values: dict[str, Any] = {n: tuple(v) if isinstance(v, list) else v
                                      for n, v in zip(_FIELD_NAMES, row, strict=True)}
            out.append(Signature(**values))
        return tuple(out)

    return Catalog({k: sigs(v) for k, v in doc["sources"].items()}, sigs(doc["raised_in"]),
                   {k: Cause(**v) for k, v in doc["causes"].items()}, dict(doc["fixes"]))


def load(directory: Path = DATA) -> Catalog:
    """read(directory), kept in the state directory by content hash (see the module doc)."""
    from ..scan import _disk_cached

    return _disk_cached(f"catalog-{digest(directory)}.json", _load, lambda: read(directory), _dump)
