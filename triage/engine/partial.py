"""Partial states: read parts of a bundle (or several bundles) separately, conclude once.

A job's bundles arrive one node at a time, and a large bundle can be read by several workers.
Each part is read into a `PartialState` (what the reader learned, nothing else); `conclude`
merges any number of them and runs the rules, giving the same verdict as `diagnose` on the
whole input. States serialise to gzip'd JSON (`to_bytes`), so they can be stored and merged
later without re-reading the logs.
"""
from __future__ import annotations

import gc
import gzip
import heapq
import json
from collections.abc import Generator
from dataclasses import dataclass, field, fields
from datetime import datetime
from typing import Any

from .bundle import Budget, BundleError, Input, LimitExceeded, Limits, Member, iter_members
from .demux import Origin
from .model import Event, shared_data
from .reader import READ_ERRORS, Collected, SourceInfo, read_member
from .scan import prefilter, release_buffers
from .structured import StructuredDocs
from .timeparse import Clock

STATE_SCHEMA = "nccl-triage/partial@1"


@dataclass
class PartialState:
    collected: Collected = field(default_factory=Collected)
    problems: list[str] = field(default_factory=list)

    def to_bytes(self) -> bytes:
        doc = {"schema": STATE_SCHEMA, "collected": _encode(self.collected), "problems": self.problems}
        return gzip.compress(json.dumps(doc, separators=(",", ":"), default=_default).encode(), compresslevel=5)

    @classmethod
    def from_bytes(cls, blob: bytes) -> PartialState:
        doc = json.loads(gzip.decompress(blob), object_hook=_hook)
        if doc.get("schema") != STATE_SCHEMA:
            raise ValueError(f"not a partial state ({doc.get('schema')!r})")
        return cls(collected=_decode_collected(doc["collected"]), problems=list(doc["problems"]))


def list_members(inputs: Input, limits: Limits | None = None) -> list[tuple[str, int]]:
    """(member name, bytes) of every readable member, in reading order; reads through each once."""
    budget = Budget(limits or Limits())
    out: list[tuple[str, int]] = []
    members = iter_members(inputs, budget)
    try:
        for member in members:
            size = member.size
            if size is None:
                size = 0
                while chunk := member.stream.read(1 << 20):
                    size += len(chunk)
            out.append((member.name, size))
    finally:
        members.close()
    return out


def plan_groups(inputs: Input, *, target_bytes: int, limits: Limits | None = None) -> list[list[str]]:
    """Member names grouped for separate reading, as even in size as whole folders allow: units
    are top folders (usually a host), a folder larger than `target_bytes` cut into runs of
    members; the units are dealt largest first to the lightest of ceil(total / target) groups,
    so two workers get two halves, not 280 members against 235. One group when the whole input
    is small. Members keep their reading order inside a group."""
    members = list_members(inputs, limits)
    total = sum(size for _name, size in members)
    if total <= target_bytes:
        return [[name for name, _size in members]] if members else []
    order = {name: i for i, (name, _size) in enumerate(members)}
    by_folder: dict[str, list[tuple[str, int]]] = {}
    for name, size in members:
        folder = name.split("/", 1)[0] if "/" in name else ""
        by_folder.setdefault(folder, []).append((name, size))
    units: list[tuple[int, list[str]]] = []
    for items in by_folder.values():
        current: list[str] = []
        current_bytes = 0
        for name, size in items:
            if current and current_bytes + size > target_bytes:
                units.append((current_bytes, current))
                current, current_bytes = [], 0
            current.append(name)
            current_bytes += size
        if current:
            units.append((current_bytes, current))
    count = min(len(units), -(-total // max(target_bytes, 1)))
    bins: list[tuple[int, int, list[str]]] = [(0, i, []) for i in range(count)]
    for size, names in sorted(units, key=lambda unit: (-unit[0], order[unit[1][0]])):
        load, index, group = heapq.heappop(bins)
        group.extend(names)
        heapq.heappush(bins, (load + size, index, group))
    groups = [sorted(group, key=order.__getitem__) for _load, _index, group in sorted(bins, key=lambda b: b[1])]
    return sorted((g for g in groups if g), key=lambda g: order[g[0]])


def parse_members(
    inputs: Input, only: set[str] | None = None, *, limits: Limits | None = None, year: int | None = None
) -> PartialState:
    """Read the input's members (those named in `only`, or all) into a partial state. Raises
    BundleError only when the input itself cannot be opened."""
    budget = Budget(limits or Limits())
    collected = Collected()
    read_into(iter_members(inputs, budget), collected, budget, only, year=year)
    return PartialState(collected=collected, problems=list(budget.problems))


def read_into(
    members: Generator[Member, None, None], collected: Collected, budget: Budget, only: set[str] | None = None,
    *, year: int | None = None,
) -> bool:
    """Read `members` (those named in `only`, or all) into `collected`; False when a limit or
    an unreadable input stopped the reading before the end."""
    engine = prefilter()
    clock = Clock(year=year)
    # What was read stays until the diagnosis is made and holds no cycles: out of the
    # collector's passes as it grows (each full collection walked all of it again, 7% of the
    # reading of 16,384 rank files). Let go at the end unless a caller had frozen objects
    # already (a forked reader of parallel.py: its parent's heap stays frozen, not copied).
    frozen_before = gc.get_freeze_count()
    try:
        for member in members:
            if only is not None and member.name not in only:
                continue
            try:
                read_member(member, collected, budget, engine, clock)
            except LimitExceeded as exc:
                budget.note(f"limit reached: {exc}; the rest was not read")
                return False
            except READ_ERRORS as exc:
                budget.note(f"{member.name}: unreadable or truncated ({_short(exc)}); kept what was read before")
            gc.freeze()
    except BundleError:
        raise
    except LimitExceeded as exc:
        budget.note(f"limit reached: {exc}; the rest was not read")
        return False
    except READ_ERRORS as exc:
        budget.note(f"bundle unreadable or truncated ({_short(exc)}); kept what was read before")
        return False
    finally:
        members.close()
        release_buffers()
        if not frozen_before:
            gc.unfreeze()
    return True


def merge(states: list[PartialState]) -> PartialState:
    """One state from several: sources and events side by side, reading order kept per part."""
    out = PartialState()
    for state in states:
        c = state.collected
        offset = out.collected.order
        for ev in c.events:
            ev.order += offset
        out.collected.events.extend(c.events)
        out.collected.sources.extend(c.sources)
        out.collected.years_seen.extend(c.years_seen)
        out.collected.order += c.order
        for f in fields(StructuredDocs):
            getattr(out.collected.docs, f.name).extend(getattr(c.docs, f.name))
        out.problems.extend(p for p in state.problems if p not in out.problems)
    return out


def _short(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0][:200]


# --- JSON encoding of the reader's dataclasses ---------------------------------------------

def _default(value: Any) -> Any:
    if isinstance(value, datetime):
        return {"$dt": value.isoformat()}
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=str)
    if isinstance(value, bytes):
        return value.decode("latin-1")
    raise TypeError(f"cannot store {type(value).__name__} in a partial state")


def _hook(doc: dict[str, Any]) -> Any:
    if len(doc) == 1 and "$dt" in doc:
        return datetime.fromisoformat(doc["$dt"])
    return doc


def _plain(obj: Any) -> dict[str, Any]:
    return {f.name: getattr(obj, f.name) for f in fields(obj)}


def _encode(c: Collected) -> dict[str, Any]:
    return {
        "events": [_plain(ev) for ev in c.events],
        "sources": [{**_plain(s), "file_origin": _plain(s.file_origin)} for s in c.sources],
        "docs": _plain(c.docs),
        "years_seen": c.years_seen,
        "order": c.order,
    }


def _decode_collected(doc: dict[str, Any]) -> Collected:
    sources = []
    for s in doc["sources"]:
        info = SourceInfo(**{**s, "file_origin": Origin(**s["file_origin"])})
        if info.last_line is not None:
            info.last_line = (int(info.last_line[0]), str(info.last_line[1]))
        sources.append(info)
    fields: dict[str, Any] = {k: [tuple(x) if isinstance(x, list) else x for x in v] for k, v in doc["docs"].items()}
    docs = StructuredDocs(**fields)
    docs.nvml_samples = list(doc["docs"]["nvml_samples"])
    same: dict[str, str] = {}
    return Collected(
        events=[_decode_event(ev, same) for ev in doc["events"]],
        sources=sources,
        docs=docs,
        years_seen=list(doc["years_seen"]),
        order=int(doc["order"]),
    )


def _decode_event(doc: dict[str, Any], same: dict[str, str]) -> Event:
    """An event as read: its data shared with equal ones (model.shared_data), and one string
    for each source name, host and line text the events repeat (a rank file's 16 events name
    one source, one host, and a line with its meaning; JSON gives each its own copy)."""
    for key in ("source", "host", "text", "message"):
        value = doc[key]
        if value is not None:
            doc[key] = same.setdefault(value, value)
    doc["data"] = shared_data(doc["data"])
    return Event(**doc)


def conclude(states: list[PartialState]) -> Any:
    """Merge the states and run the rules (pipeline.conclude; here for one import path)."""
    from .pipeline import conclude as _conclude

    return _conclude(states)
