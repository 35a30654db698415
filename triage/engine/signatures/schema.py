"""What one catalog entry says: the meaning of a message family, wherever its line appears.

The catalog is data (`data/*.toml`, one file per program that prints the messages; load.py
reads them). Each entry is drawn from the program that prints the message (an NCCL source
file, a `cudaError_t`, an Xid code, a PyTorch file, a launcher) and says what the message means
on its own: the cause it points to, the role it plays for the rank that printed it, how sure it
is, and the fix. Format parsers add who and when; they never decide meaning.

`check()` holds every entry to this schema when the files are loaded (and so in CI, where the
tests load them): a wrong field is an error naming the file and the entry.
"""
from __future__ import annotations

import re
from dataclasses import MISSING, dataclass, field, fields
from typing import Any

from ..model import CAUSES

ROLES = ("fault", "symptom", "context", "harmless")
CONFIDENCES = ("high", "medium", "low")
# What the message says about the node that printed it (the fleet's drain decision): `drain`
# (its hardware, or the driver under it, is suspect), `reset` (a GPU or port reset brings it
# back), `none`.
SEVERITIES = ("drain", "reset", "none")
# The part of the fabric a network message is about (the network rule tells them apart).
FABRICS = ("ib", "socket")
# At or below: a generic catch-all (10-30, see `priority` below) with nothing specific to say.
CATCH_ALL_PRIORITY = 20
# What a fix's `{placeholder}` may name besides the entry's `extract` groups: what every
# finding may know of its line (rules/signature.py `fill`).
LINE_PLACEHOLDERS = frozenset({"device", "pid", "host", "rank", "gpu"})
_PLACEHOLDER = re.compile(r"\{([a-z_]+)\}")


@dataclass(frozen=True)
class Signature:
    """One message family.

    - `id`: dotted, stable, `<source>.<area>.<name>` (`nccl.ib.completion_error`).
    - `patterns`: regular expressions matched anywhere in one line, after any prefix. Keep them
      to the common subset of Hyperscan, RE2 and Python `re`: no look-around, no
      back-references, no named groups, no `\\Z`; `(?i)` only at the start. Write them from the
      message's constant text (its format string), with the variable parts as `\\S+`, `\\d+`,
      `.*`; never from one sample's values.
    - `extract`: an optional Python regex with named groups, run only on matched lines, whose
      groups fill the finding (`errno`, `iface`, `device`, `bus_id`, `xid`, `peer`, ...).
    - `cause`: one of the docs/design.md causes, or None for `context`/`harmless` entries.
    - `role`: `fault` (the printing rank's own failure), `symptom` (what a rank prints after
      another rank or the fabric failed, e.g. "remote process exited"), `context` (facts:
      versions, transports, settings), `harmless` (known benign lines that look scary).
    - `confidence`: what the message supports on its own: `high` only where the message itself
      names the cause; `medium` where it points to it; `low` where it is a guess.
    - `priority`: when several entries match one line, the highest wins (specific 60-90,
      default 50, generic catch-alls 10-30).
    - `fix`: what to do, as text; lines that start with `$ ` are commands. `{device}`, `{pid}`,
      `{host}`, `{rank}`, `{gpu}` and the names of `extract` groups are filled where the finding
      knows them (any other `{name}` is refused at load); `<name>` is left for the reader.
    - `origin`: where the message comes from: file and version range, error name, Xid code.
    - `samples`: at least one real-looking line that must match (checked at load).
    - `not_samples`: lines that look alike but must not match (checked at load).
    - `literals`: lower-case substrings one of which every match contains, for the pure-Python
      prefilter. Empty: derived from the patterns (the test suite checks that derivation works).
    - `survivable`: the program says it falls back and goes on (a fast path off, a retry): the
      line is a finding only where the run then failed, and never above `medium`.
    - `outranked_by`: what explains this message when it is also in the bundle: entry ids, or
      `cause:<cause>` for any fault of that cause the catalog or the kernel log names (a GPU the
      kernel says fell off the bus or needs a reset outranks "CUDA devices busy or unavailable").
      The entry's finding then drops to `low`.
    - `alone_differs`: why the verdict on this entry's sample alone is not the entry's `cause`
      (a cause rule reads the same line more closely); empty for almost every entry. The
      catalog-wide tests take exactly these entries out, and say so.
    - `raised_in`: for an entry that reads a generic exception by where it was raised
      (data/raised_in.toml): regular expressions on the file of the traceback's last frame.
      Its `patterns` then match the exception line's type; it never reads a line alone (it is not
      in `CATALOG`, so the matcher and the gate never see it), only an exception raised there whose
      own message no specific entry reads.
    - `in_any_frame`: `raised_in` is matched against every frame the traceback kept (the last
      frame and the few that called it), not only the last: for code that reaches the exception
      through the stdlib (a json or socket call), where the caller's frame says what was going on.
    - `codes`: the program's own numbers this entry reads (Xid codes): readings.fault_class
      looks a code up here. A code belongs to one entry.
    - `reports_code`: the program's own number (an Xid) that this message reports without
      printing it: the open driver's 'NVRM: GPU <bdf>: GPU has fallen off the bus.' is printed
      where RM logs Xid 79 (osinit.c). The rules read the line as a report of that code, whose
      own entry (`codes`) says what it means; the code must be some entry's.
    - `severity`: what the message says about the node (SEVERITIES): the fleet counts `drain`
      and `reset` lines toward draining a host. Set only where a source defends it, and then
      `origin` says which after `severity: ` (DCGM's error table or health watch for Xid, ECC and
      NVLink codes, the driver's or NVML's own words, a port that is down).
    - `fabric`: the part of the fabric a network message is about (FABRICS), or none.
    - `on_one_host`: the cause the message points to instead where the ranks share one host and
      nothing shows a network between them (NCCL's bare 'unhandled system error': /dev/shm).
    - `marks_end`: the line says the process got to the end of its work (a launcher reporting
      its workers finished): a warning before it on the same process was survived.
    """

    id: str
    patterns: tuple[str, ...]
    cause: str | None
    role: str
    confidence: str
    title: str
    fix: str
    origin: str
    samples: tuple[str, ...]
    extract: str | None = None
    priority: int = 50
    literals: tuple[str, ...] = field(default_factory=tuple)
    survivable: bool = False
    outranked_by: tuple[str, ...] = field(default_factory=tuple)
    alone_differs: str = ""
    raised_in: tuple[str, ...] = field(default_factory=tuple)
    in_any_frame: bool = False
    not_samples: tuple[str, ...] = field(default_factory=tuple)
    codes: tuple[int, ...] = field(default_factory=tuple)
    severity: str = "none"
    fabric: str | None = None
    on_one_host: str | None = None
    marks_end: bool = False
    reports_code: int | None = None


class CatalogError(ValueError):
    """A catalog file that does not hold to the schema; the message names the file and the entry."""


_FIELDS = {f.name: f for f in fields(Signature)}
_REQUIRED = frozenset(name for name, f in _FIELDS.items()
                      if f.default is MISSING and f.default_factory is MISSING and name != "cause")
_TEXT_LISTS = frozenset({"patterns", "samples", "not_samples", "literals", "outranked_by", "raised_in"})
_TEXTS = frozenset({"id", "cause", "role", "confidence", "title", "fix", "origin", "extract", "alone_differs",
                    "severity", "fabric", "on_one_host"})
_FLAGS = frozenset({"survivable", "in_any_frame", "marks_end"})
_NUMBERS = frozenset({"priority", "reports_code"})
_ID = re.compile(r"[a-z0-9_]+(?:\.[a-z0-9_]+)+")


def _typed(where: str, name: str, value: Any) -> Any:
    """`value` as the field's type, or CatalogError."""
    if name in _TEXT_LISTS:
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            raise CatalogError(f"{where}: {name} must be a list of non-empty strings")
        return tuple(value)
    if name == "codes":
        if not isinstance(value, list) or not all(type(v) is int and v >= 0 for v in value):
            raise CatalogError(f"{where}: codes must be a list of non-negative integers")
        return tuple(value)
    if name in _FLAGS and type(value) is not bool:
        raise CatalogError(f"{where}: {name} must be true or false")
    if name in _NUMBERS and type(value) is not int:
        raise CatalogError(f"{where}: {name} must be an integer")
    if name in _TEXTS and not isinstance(value, str):
        raise CatalogError(f"{where}: {name} must be a string")
    return value


def _compiled(where: str, name: str, pattern: str) -> re.Pattern[str]:
    try:
        return re.compile(pattern)
    except re.error as e:
        raise CatalogError(f"{where}: {name} {pattern!r} is not a regular expression: {e}") from e


def check(raw: dict[str, Any], file: str) -> Signature:
    """One entry of `file` as a Signature, held to the schema: known fields of the right types,
    a cause of the vocabulary, a role and a confidence of the lists above, patterns that compile
    and match every sample and no not-sample, fix placeholders the finding can fill."""
    where = f"{file}: entry {raw.get('id', '(no id)')!r}"
    unknown = sorted(set(raw) - set(_FIELDS))
    if unknown:
        raise CatalogError(f"{where}: unknown field(s) {', '.join(unknown)}")
    missing = sorted(_REQUIRED - set(raw))
    if missing:
        raise CatalogError(f"{where}: missing field(s) {', '.join(missing)}")
    values = {name: _typed(where, name, value) for name, value in raw.items()}
    sig = Signature(**{"cause": None, **values})
    if not _ID.fullmatch(sig.id):
        raise CatalogError(f"{where}: id must be dotted lower-case words (source.area.name)")
    if sig.role not in ROLES:
        raise CatalogError(f"{where}: role {sig.role!r} is not one of {', '.join(ROLES)}")
    if sig.confidence not in CONFIDENCES:
        raise CatalogError(f"{where}: confidence {sig.confidence!r} is not one of {', '.join(CONFIDENCES)}")
    for name in ("cause", "on_one_host"):
        value = getattr(sig, name)
        if value is not None and value not in CAUSES:
            raise CatalogError(f"{where}: {name} {value!r} is not in the cause vocabulary (model.CAUSES)")
    if sig.severity not in SEVERITIES:
        raise CatalogError(f"{where}: severity {sig.severity!r} is not one of {', '.join(SEVERITIES)}")
    if sig.fabric is not None and sig.fabric not in FABRICS:
        raise CatalogError(f"{where}: fabric {sig.fabric!r} is not one of {', '.join(FABRICS)}")
    if not sig.patterns or not sig.samples:
        raise CatalogError(f"{where}: an entry needs at least one pattern and one sample")
    patterns = [_compiled(where, "pattern", p) for p in sig.patterns]
    groups: set[str] = set()
    if sig.extract is not None:
        groups = set(_compiled(where, "extract", sig.extract).groupindex)
    for p in sig.raised_in:
        _compiled(where, "raised_in", p)
    if not sig.raised_in:  # a raised_in entry's patterns read the exception's type, not its sample
        for sample in sig.samples:
            if not any(p.search(sample) for p in patterns):
                raise CatalogError(f"{where}: no pattern matches the sample {sample!r}")
    for line in sig.not_samples:
        if any(p.search(line) for p in patterns):
            raise CatalogError(f"{where}: a pattern matches the not-sample {line!r}")
    unfillable = sorted(set(_PLACEHOLDER.findall(sig.fix)) - groups - LINE_PLACEHOLDERS)
    if unfillable:
        raise CatalogError(f"{where}: fix names {', '.join('{' + n + '}' for n in unfillable)}, which neither "
                           "the extract groups nor the line can fill (write <name> for the reader to fill)")
    return sig


@dataclass(frozen=True)
class Cause:
    """One cause of the vocabulary and the traits the verdict and the fleet act on (data/causes.toml
    says what each trait means)."""

    name: str
    meaning: str
    shared: bool = False
    stalls: bool = False
    waits: bool = False
    rank_died: bool = False
    residual: bool = False
    per_gpu: bool = False
    per_nic: bool = False
    machine: bool = False
    killed_note: str = ""


_CAUSE_FIELDS = {f.name: f for f in fields(Cause)}


def check_cause(name: str, raw: Any, file: str) -> Cause:
    """One `[cause.<name>]` table of `file` as a Cause, held to its fields and their types."""
    where = f"{file}: cause {name!r}"
    if name not in CAUSES:
        raise CatalogError(f"{where} is not in the cause vocabulary (model.CAUSES)")
    if not isinstance(raw, dict):
        raise CatalogError(f"{where} must be a table")
    unknown = sorted(set(raw) - set(_CAUSE_FIELDS) | ({"name"} & set(raw)))
    if unknown:
        raise CatalogError(f"{where}: unknown field(s) {', '.join(unknown)}")
    if not isinstance(raw.get("meaning"), str) or not raw["meaning"]:
        raise CatalogError(f"{where}: meaning must be a non-empty string")
    for key, value in raw.items():
        kind = _CAUSE_FIELDS[key].default
        if isinstance(kind, bool) and type(value) is not bool:
            raise CatalogError(f"{where}: {key} must be true or false")
        if isinstance(kind, str) and not isinstance(value, str):
            raise CatalogError(f"{where}: {key} must be a string")
    return Cause(name=name, **raw)
