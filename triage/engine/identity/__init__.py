"""The identity-and-time catalog: who wrote a line and when, as the programs that print lines
write it down (docs/identity-catalog.md).

One entry per format a program writes in front of, or around, the lines of a job: launcher
prefixes and tables (torchrun, srun, mpirun, ...), loggers' record headers, the capture
layers a log passes through (journald, syslog, kubectl, CRI, Docker), crash handlers' and
launchers' exit reports, and the time formats of all of them. Each entry says where the
format comes from (program, version, source file), what it yields (global rank, local rank,
Slurm task, host, pid, tid, device, time and its zone) and carries samples that must yield
exactly those fields and not-samples that must yield none (tests/engine/test_identity_catalog.py).

The entries are data (the *.toml files beside this module, read with tomllib), checked
against the schema below when they are loaded: a malformed entry stops the engine at import
with the file and entry named, never a silent miss. `demux.py` peels the `prefix` entries in
their `order`; `timeparse.py` reads the `time` entries; the parsers read the `report` entries
(launchers' and crash handlers' reports that name a process).
"""
from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

# What an entry may yield: the names of its pattern's groups (groups named x_* are the
# pattern's own, yielded to nobody).
FIELDS = frozenset({
    "rank",        # the job's global rank (MPI_COMM_WORLD / torch's RANK)
    "local_rank",  # the rank on its node (torch's LOCAL_RANK, a launcher's per-node index)
    "task",        # Slurm's task id (SLURM_PROCID): a rank only where srun started the ranks
    "host",
    "pid",
    "tid",
    "device",      # a CUDA device index as the program numbers it
    "tp_rank",     # tensor-parallel rank (sglang)
    "dp_rank",
    "pp_rank",
    "time",        # a wall-clock time as the format prints it
    "uptime",      # seconds since the kernel booted (dmesg, journal short-monotonic)
    "delta",       # seconds since the previous kernel message (dmesg --time-format delta): no clock
    "zone",        # a time zone the format states
    "site",        # the print site a logger's header names (glog's file:line of the LOG statement)
})
KINDS = ("prefix", "time", "report")
# How a time of this format relates to a zone: printed in the host's local zone (logs' own
# clocks), stated in the line (ISO offsets, 'Z', RFC 5424), or the kernel's (boot time plus
# its monotonic clock: may drift from the wall clock, util-linux dmesg(1) says so).
ZONES = ("local", "stated", "utc", "kernel", "none")
# Where a prefix may start: characters, or these classes.
START_CLASSES = {"digit": "0123456789", "upper": "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
                 "lower": "abcdefghijklmnopqrstuvwxyz", "space": " \t"}
# Named checks a prefix entry may ask for (demux.py implements them): a regex cannot say them.
CHECKS = ("host", "not_nccl_prefix", "docker_json", "vllm_process", "sglang_tp", "ompi_xml", "hydra_rank")
_REQUIRED: dict[str, type] = {"id": str, "kind": str, "program": str, "version": str, "source": str, "pattern": str,
             "fields": list, "samples": list, "not_samples": list}
_OPTIONAL: dict[str, type] = {"notes": str, "order": int, "starts": str, "unless": list, "check": str, "zone": str,
             "wraps": bool}
_HERE = Path(__file__).resolve().parent


class CatalogError(ValueError):
    """An entry of the identity catalog breaks the schema (the message names file and entry)."""


@dataclass(frozen=True)
class Sample:
    line: str
    yields: dict[str, Any]  # field -> value the line must yield (only these fields)
    body: str | None = None  # a prefix's sample: what is left of the line once it is peeled


@dataclass(frozen=True)
class Entry:
    id: str
    kind: str
    program: str
    version: str
    source: str
    pattern: str
    fields: tuple[str, ...]
    samples: tuple[Sample, ...]
    not_samples: tuple[str, ...]
    notes: str = ""
    order: int = 0
    starts: str = ""
    unless: tuple[str, ...] = ()
    check: str | None = None
    zone: str = "none"
    wraps: bool = False  # a capture layer any other line may sit behind (used by the tests)
    file: str = ""

    @property
    def regex(self) -> re.Pattern[str]:
        return _compiled(self.pattern)

    def start_chars(self) -> frozenset[str]:
        out: set[str] = set()
        for token in self.starts.split():
            out.update(START_CLASSES.get(token, token))
        return frozenset(out)

    def groups(self) -> tuple[str, ...]:
        """The pattern's groups that yield a field."""
        return tuple(g for g in self.regex.groupindex if not g.startswith("x_"))


@cache
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def _fail(where: str, what: str) -> CatalogError:
    return CatalogError(f"identity catalog {where}: {what}")


def _check_keys(raw: dict[str, Any], where: str) -> None:
    for key, kind in _REQUIRED.items():
        if not isinstance(raw.get(key), kind):
            raise _fail(where, f"'{key}' must be a {kind.__name__}")
    unknown = set(raw) - set(_REQUIRED) - set(_OPTIONAL)
    if unknown:
        raise _fail(where, f"unknown keys {sorted(unknown)}")
    for key, kind in _OPTIONAL.items():
        if key in raw and not isinstance(raw[key], kind):
            raise _fail(where, f"'{key}' must be a {kind.__name__}")
    if raw["kind"] not in KINDS:
        raise _fail(where, f"kind {raw['kind']!r} is not one of {KINDS}")


def _entry(raw: dict[str, Any], file: str) -> Entry:
    where = f"{file} entry {raw.get('id', '?')!r}"
    _check_keys(raw, where)
    try:
        regex = _compiled(raw["pattern"])
    except re.error as exc:
        raise _fail(where, f"pattern does not compile: {exc}") from exc
    fields = tuple(raw["fields"])
    groups = {g for g in regex.groupindex if not g.startswith("x_")}
    if not set(fields) <= FIELDS:
        raise _fail(where, f"fields {sorted(set(fields) - FIELDS)} are not in the vocabulary")
    if groups != set(fields):
        raise _fail(where, f"the pattern's groups {sorted(groups)} are not its fields {sorted(fields)}")
    if raw["kind"] == "prefix" and (not raw.get("starts") or not raw["pattern"].startswith("^")):
        raise _fail(where, "a prefix is anchored ('^') and says where it starts ('starts')")
    if raw.get("check") is not None and raw["check"] not in CHECKS:
        raise _fail(where, f"check {raw['check']!r} is not one of {CHECKS}")
    if not set(raw.get("unless", ())) <= FIELDS:
        raise _fail(where, "'unless' names fields outside the vocabulary")
    zone = raw.get("zone", "none")
    if zone not in ZONES:
        raise _fail(where, f"zone {zone!r} is not one of {ZONES}")
    if ("time" in fields) != (zone != "none"):
        raise _fail(where, "an entry that yields a time says its zone, and only such an entry")
    if not raw["samples"]:
        raise _fail(where, "an entry has at least one sample")
    samples = []
    for s in raw["samples"]:
        if not isinstance(s, dict) or not isinstance(s.get("line"), str):
            raise _fail(where, "a sample is a table with a 'line'")
        yields = {k: v for k, v in s.items() if k not in ("line", "body")}
        if not set(yields) <= set(fields):
            raise _fail(where, f"sample {s['line']!r} yields {sorted(set(yields) - set(fields))}, not fields of it")
        if "body" in s and not isinstance(s["body"], str):
            raise _fail(where, "a sample's 'body' is the line left after the prefix")
        samples.append(Sample(line=s["line"], yields=yields, body=s.get("body")))
    if not all(isinstance(n, str) for n in raw["not_samples"]):
        raise _fail(where, "not_samples are lines")
    return Entry(
        id=raw["id"], kind=raw["kind"], program=raw["program"], version=raw["version"], source=raw["source"],
        pattern=raw["pattern"], fields=fields, samples=tuple(samples), not_samples=tuple(raw["not_samples"]),
        notes=raw.get("notes", "").strip(), order=raw.get("order", 0), starts=raw.get("starts", ""),
        unless=tuple(raw.get("unless", ())), check=raw.get("check"), zone=zone, wraps=raw.get("wraps", False),
        file=file,
    )


def load(folder: Path = _HERE) -> tuple[Entry, ...]:
    """Every entry of the *.toml files in `folder`, schema-checked; ids unique."""
    out: list[Entry] = []
    seen: set[str] = set()
    for path in sorted(folder.glob("*.toml")):
        with path.open("rb") as fh:
            try:
                doc = tomllib.load(fh)
            except tomllib.TOMLDecodeError as exc:
                raise _fail(path.name, f"not TOML: {exc}") from exc
        if set(doc) != {"format"} or not isinstance(doc["format"], list):
            raise _fail(path.name, "the file holds [[format]] tables only")
        for raw in doc["format"]:
            entry = _entry(raw, path.name)
            if entry.id in seen:
                raise _fail(path.name, f"id {entry.id!r} is used twice")
            seen.add(entry.id)
            out.append(entry)
    return tuple(out)


@cache
def catalog() -> tuple[Entry, ...]:
    return load()


@cache
def entry(entry_id: str) -> Entry:
    for e in catalog():
        if e.id == entry_id:
            return e
    raise KeyError(entry_id)


def pattern(entry_id: str) -> re.Pattern[str]:
    """The compiled pattern of one entry: the readers that keep their own order of trying
    (timeparse, the parsers) take their patterns from the catalog by id."""
    return entry(entry_id).regex


@cache
def prefixes() -> tuple[Entry, ...]:
    """The prefix entries in the order demux tries them."""
    return tuple(sorted((e for e in catalog() if e.kind == "prefix"), key=lambda e: (e.order, e.id)))
