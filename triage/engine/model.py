"""The engine's data model: what flows from sources to events to findings to a diagnosis.

Everything here is plain data (dataclasses), so the Celery task, `manage.py diagnose` and the
tests all see the same objects, and `Diagnosis.to_dict()` is the JSON contract of docs/design.md.
"""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

from .timeparse import YEAR_UNKNOWN

SCHEMA = "nccl-triage/diagnosis@1"

CAUSES = (
    "rank_crash",
    "oom",
    "version_mismatch",
    "device_ordinal",
    "shm_exhausted",
    "hardware_fault",
    "collective_timeout_straggler",
    "rendezvous_hang",
    "p2p_unsupported",
    "network",
    "other",
)

CONFIDENCE_ORDER = {"high": 3, "medium": 2, "low": 1}

# What the evidence behind a finding is, the strongest first; the ranker orders on it after
# confidence (ranking.rank_findings):
# - `fault`: it names the failing line or fact itself (the catalog's role of a rank's own
#   failure, or a cross-rank fact that is the fault: two ranks on one bus, differing versions);
# - `inferred`: the culprit is inferred across ranks from what is missing or from the pattern of
#   the others' lines (the rank that never reported, the launcher's first exit, a hang right
#   after P2P setup);
# - `symptom`: lines printed after a failure elsewhere (the catalog's `symptom`, or a fault the
#   rule knows another process's fault explains);
# - `context`: facts that may explain a failure and name none (a fallback to sockets, a guess).
ROLE_TIER = {"fault": 0, "inferred": 1, "symptom": 2, "context": 3}
DEFAULT_PRIORITY = 50  # a catalog entry's default (signatures.schema.Signature.priority)



class Support(StrEnum):
    """What a rule combined into its finding besides its lines: the facts the ranker derives the
    finding's confidence from, with the catalog entry of its culprit line (ranking.confidence).
    A rule reports what it saw; how much each fact weighs is the ranker's, the same for all."""

    # The rule's own reading, where it knows more than the culprit line's catalog entry:
    NAMES = "names"  # the fault itself (a rank's own failure first in time, versions that differ)
    POINTS = "points"  # a culprit inferred from what the ranks did or did not print, or counters
    # Besides the lines:
    CORROBORATED = "corroborated"  # a second, independent source agrees (a snapshot, more lines)
    ALONE = "alone"  # nothing else in the bundle confirms it
    EXPLAINED = "explained"  # a fault elsewhere explains it (another process's own fault)
    UNPLACED = "unplaced"  # several processes show it and which came first is unknown
    INCOMPLETE = "incomplete"  # the evidence is cut off (no exception line, no exit code or rank)
    AMBIGUOUS = "ambiguous"  # another cause fits the same lines as well; nothing tells them apart
    OUTRANKED = "outranked"  # a line the catalog says explains it is in the bundle (outranked_by)
    SURVIVED = "survived"  # the program said it goes on and nothing failed after it
    WORKED_AROUND = "worked_around"  # its process reached a normal end after it


RANK_STATES = ("ok", "errored", "crashed", "silent", "unknown")


def from_epoch(seconds: float) -> datetime:
    """An epoch time (a torchelastic error file's `timestamp`, a flight recorder's `*_ns`) as a
    naive UTC wall time. The zone of the machine that reads the bundle must not move the verdict
    (`fromtimestamp` without a zone reads it in that machine's local time: the first failure of an
    error file moved by hours between TZ=UTC and TZ=America/Los_Angeles), and these formats do not
    say the cluster's zone; UTC is the one reading that is the same everywhere."""
    return datetime.fromtimestamp(seconds, tz=UTC).replace(tzinfo=None)


def iso(t: datetime | None) -> str | None:
    """ISO 8601 text, or None for a time whose year the bundle does not write (YEAR_UNKNOWN:
    the diagnosis says it is unknown rather than guess one; `yearless` gives what is known)."""
    if t is None or t.year == YEAR_UNKNOWN:
        return None
    return iso_on_axis(t)


def yearless(t: datetime | None) -> str | None:
    """A time whose year is unknown as ISO 8601:2000's truncated form, `--MM-DDThh:mm:ss`
    (the year left out); None for any other time."""
    if t is None or t.year != YEAR_UNKNOWN:
        return None
    return "--" + iso_on_axis(t)[len("0004-"):]


def iso_on_axis(t: datetime) -> str:
    """ISO 8601 text of any time, YEAR_UNKNOWN's included: what the timeline places on its axis
    (it orders times and shows no year where `year_known` is false); times without a zone stay
    without one (logs are in local time). Sub-second digits are kept to the microsecond where the
    source had them (NCCL `%6f`, glog builds), so ranks a few hundred microseconds apart are not
    drawn at one instant."""
    table = _ISO.get("on")
    # An aware time equals the same instant in another zone: the offset is part of the key.
    key = None if table is None else t if t.tzinfo is None else (t, t.utcoffset())
    text = None if table is None else table.get(key)
    if text is None:
        text = t.isoformat(timespec="microseconds" if t.microsecond else "seconds").replace("+00:00", "Z")
        if table is not None and len(table) < MAX_ISO:
            table[key] = text
    return text


# While a diagnosis is made (pipeline.conclude), iso() gives one text per instant: a fleet's
# timeline names each rank's times several times over (its row, segments, last line, markers),
# seven strings a rank of 65,536. Nothing is kept once the diagnosis is made.
MAX_ISO = 1 << 16
_ISO: dict[str, dict[Any, str]] = {}


@contextmanager
def one_text_per_time() -> Iterator[None]:
    _ISO["on"] = {}
    try:
        yield
    finally:
        _ISO.pop("on", None)


def duration_text(seconds: float) -> str:
    """'7 h 2 min', '12 min 5 s', '1.5 s': what a person reads, sub-second kept below 10 s."""
    if seconds < 10:  # noqa: PLR2004 - the docstring's "below 10 s"
        return f"{seconds:.3g} s"
    if seconds >= 3600:  # noqa: PLR2004 - an hour: to the nearest minute
        hours, minutes = divmod(int(round(seconds / 60)), 60)
        return f"{hours} h {minutes} min" if minutes else f"{hours} h"
    minutes, secs = divmod(int(round(seconds)), 60)
    if minutes:
        return f"{minutes} min {secs} s" if secs else f"{minutes} min"
    return f"{secs} s"


@dataclass(frozen=True, slots=True)
class Evidence:
    source: str
    line: int
    text: str

    def to_dict(self) -> dict[str, Any]:
        return {"source": self.source, "line": self.line, "text": self.text}


# The events of a fleet's ranks mostly say the same things (the same NCCL version, network and
# catalog entry on every rank): once a source is read, an event's `data` is replaced by an equal
# dict shared with the other events that hold the same (shared_data), so 65,536 ranks keep a few
# hundred such dicts, not a million. Hence a read event's `data` is never changed in place:
# whoever adds to it or takes from it after reading gives the event a new dict.
MAX_SHARED = 4096
_SHARED: dict[tuple[Any, ...], dict[str, Any]] = {}


# Values a shared dict may hold, and the key that tells it from any other dict: its items and
# the type of each value (1, 1.0 and True are equal, but not printed alike).
_PLAIN = frozenset((str, int, bool, type(None)))
_PLAIN_OR_DICT = _PLAIN | {dict}


def _data_key(data: dict[str, Any]) -> tuple[Any, ...] | None:
    types = tuple(map(type, data.values()))
    if _PLAIN.issuperset(types):
        return tuple(data.items()), types
    groups = data.get("groups")
    if type(groups) is dict and types.count(dict) == 1 and _PLAIN_OR_DICT.issuperset(types):
        # A catalog entry's meaning (reader.signature_event), a third of a rank's events.
        inner = tuple(map(type, groups.values()))
        if _PLAIN.issuperset(inner):
            return tuple({**data, "groups": (tuple(groups.items()), inner)}.items()), types
    items: list[tuple[str, Any]] = []
    for k, v in data.items():
        kind = type(v)
        if kind is dict:  # a catalog entry's groups
            inner = tuple(map(type, v.values()))
            if not _PLAIN.issuperset(inner):
                return None
            items.append((k, (tuple(v.items()), inner)))
        elif kind is float:
            items.append((k, repr(v)))  # (0.0 and -0.0 are equal)
        elif kind in _PLAIN:
            items.append((k, v))
        else:
            return None  # a list, a tuple, a time ...: not shared
    return tuple(items), types


def shared_data(data: dict[str, Any]) -> dict[str, Any]:
    """An equal dict shared by every event whose data is equal (values of a plain type, or
    dicts of them: a catalog entry's groups); `data` itself when it holds anything else."""
    if not data:
        return _NO_DATA
    key = _data_key(data)
    if key is None:
        return data
    found = _SHARED.get(key)
    if found is None:
        if len(_SHARED) >= MAX_SHARED:
            _SHARED.clear()  # (fleets name a few shared things and many unique ones: bounded)
        found = _SHARED[key] = data
    return found


_NO_DATA: dict[str, Any] = {}


# What a format parser may say of a line: who wrote it and when (identity), and the numbers and
# strings the line holds (structure). No field can carry what the line means: a cause, a class or
# a severity is the catalog's (signatures/data/*.toml), read beside the parsers (reader.py).
MEANING_FIELDS = frozenset({"severity", "cause", "role", "confidence", "fault_class", "error_class"})


@dataclass(slots=True)
class Record:
    """One record read from one line (or block) of one source, as its format lays it out.

    `kind` names the record's format (`nccl_warn`: a WARN of NCCL's debug log, `process_exit`: a
    launcher's exit report), never what it means; `data` holds the fields the parser read
    (sequence numbers, exit codes, errno text ...). Unknown values stay None: nothing is guessed
    at parse time.
    """

    kind: str
    source: str
    line: int
    text: str
    message: str = ""
    rank: int | None = None
    host: str | None = None
    pid: int | None = None
    device: int | None = None
    time: datetime | None = None
    seq: int | None = None
    order: int = 0  # global reading order, the last-resort clock
    data: dict[str, Any] = field(default_factory=dict)

    @property
    def evidence(self) -> Evidence:
        return Evidence(self.source, self.line, self.text)


@dataclass(slots=True)
class Event(Record):
    """A record as the engine reads it: with what the catalog says it tells of its writer
    (`severity`: signatures/records.py for a parser's record, the entry's role for a catalog
    reading), and an approximate time for untimed lines."""

    severity: str = "info"  # info | warn | error | fatal
    # For untimed lines: the time of the last timestamped line before it in the same source
    # (a lower bound). Used only to order events, never shown as the event's time.
    approx_time: datetime | None = None


@dataclass
class Finding:
    cause: str
    rule: str
    title: str
    detail: str
    fix: str
    ranks: list[int] = field(default_factory=list)
    hosts: list[str] = field(default_factory=list)
    evidence: list[Evidence] = field(default_factory=list)
    # The facts the rule combined (Support); the ranker derives `confidence` (high, medium,
    # low) from them and the culprit line's catalog entry (ranking.confidence).
    support: frozenset[Support] = frozenset()
    confidence: str = ""
    # What the evidence is (a key of ROLE_TIER) and the catalog priority of its entry: the
    # ranker orders on them. None: taken from the catalog entry of the culprit line
    # (ranking.support); a rule sets `role` only where its cross-rank structure knows more than
    # that one line. Not part of the JSON contract.
    role: str | None = None
    priority: int | None = None
    # The event the finding considers the first failure, if it names one.
    culprit: Event | None = None
    # The finding's ranks stopped reporting (fell behind, their GPU went idle): the verdict
    # draws them `silent`. Not part of the JSON contract.
    silent: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "cause": self.cause,
            "rule": self.rule,
            "confidence": self.confidence,
            "title": self.title,
            "detail": self.detail,
            "fix": self.fix,
            "ranks": sorted(set(self.ranks)),
            "hosts": sorted(set(self.hosts)),
            "evidence": [e.to_dict() for e in self.evidence],
        }


@dataclass(slots=True)
class RankInfo:
    rank: int | None
    host: str | None = None
    pid: int | None = None
    device: int | None = None
    bus_id: str | None = None
    first_time: datetime | None = None
    last_time: datetime | None = None
    first_order: int | None = None
    last_order: int | None = None
    state: str = "unknown"
    last_seq: int | None = None
    last_line: Evidence | None = None
    sources: set[str] = field(default_factory=set)

    def to_dict(self) -> dict[str, Any]:
        return {
            "rank": self.rank,
            "host": self.host,
            "pid": self.pid,
            "device": self.device,
            "first_time": iso(self.first_time),
            "last_time": iso(self.last_time),
            "state": self.state,
            "last_seq": self.last_seq,
        }


@dataclass
class Diagnosis:
    summary: str
    findings: list[Finding]
    first_failure: dict[str, Any] | None
    ranks: list[RankInfo]
    # Extra keys beyond the contract's required ones; consumers may ignore them.
    problems: list[str] = field(default_factory=list)  # what could not be read, and why
    notes: list[str] = field(default_factory=list)  # what the data leaves unknown
    sources: list[dict[str, Any]] = field(default_factory=list)
    versions: dict[str, dict[str, str]] = field(default_factory=dict)  # host -> {component: version}
    timeline: dict[str, Any] = field(default_factory=dict)
    snapshots: list[dict[str, Any]] = field(default_factory=list)
    health: list[dict[str, Any]] = field(default_factory=list)  # smoke-check results per host
    collectives: dict[str, Any] | None = None  # flight-recorder dumps matched across ranks (forensics)

    @property
    def verdict(self) -> Finding | None:
        return self.findings[0] if self.findings else None

    def to_dict(self) -> dict[str, Any]:
        out = self._contract()
        if self.collectives is not None:
            out["collectives"] = self.collectives
        return out

    def _contract(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "summary": self.summary,
            "findings": [f.to_dict() for f in self.findings],
            "first_failure": self.first_failure,
            "ranks": [r.to_dict() for r in self.ranks],
            "problems": list(self.problems),
            "notes": list(self.notes),
            "sources": list(self.sources),
            "versions": self.versions,
            "timeline": self.timeline,
            "snapshots": self.snapshots,
            "health": self.health,
        }
