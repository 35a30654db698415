"""Streaming line scanner: one multi-pattern pass per block picks the lines worth parsing.

A 1 GB NCCL_DEBUG=INFO log is almost all lines that say nothing about a failure, and many that
say the same thing again (init, channel and communicator lines recur whenever a job creates a
communicator). The scanner reads fixed-size blocks and runs one compiled database over each
(Hyperscan where the wheel exists, RE2 next, plain literals last). Patterns come in three
classes:

- MEANING: the catalog's fault and symptom entries and the structural lines the parsers need
  (exception lines, NCCL `-> N` trails, launcher exit reports). Every occurrence is reported.
- IDENTITY: lines that teach who is who (NCCL init / nRanks / channel / transport lines, the
  version banner, settings, the catalog's context entries). Only the first occurrence per
  pattern and block is reported; when it teaches something new (the learner has not seen its
  key), the block is re-scanned from there in small windows with the identity patterns alone
  until a window teaches nothing new. Repeated identity lines cost a scan, never a parse.
- ONCE: catch-alls and known-harmless lines (a generic `NCCL WARN`, `error`): the first
  occurrence per block only.

The head and the tail of each source are always emitted (banners and last words). Memory stays
bounded by the block size whatever the input.
"""
from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import re
import threading
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cache, lru_cache
from pathlib import Path
from typing import Any, BinaryIO, TypeVar

from . import statedir

BLOCK_BYTES = 4 * 1024 * 1024
LEARN_WINDOW = 16 * 1024
# The gate runs window by window: one report per pattern and window (see Floods).
WINDOW_BYTES = 128 * 1024


_POOL = threading.local()


def _buffers() -> list[bytearray]:
    """Block buffers of this thread not in use by a scanner (see LineScanner._blocks)."""
    pool: list[bytearray] | None = getattr(_POOL, "free", None)
    if pool is None:
        pool = _POOL.free = []
    return pool


def release_buffers() -> None:
    """Let this thread's block buffers go (partial.read_into, once a bundle is read): kept,
    they were 4 MB held through the diagnosis and then by an idle worker."""
    _POOL.free = []


FLOOD_WINDOWS = 8
# Longest line kept whole; the rest of a longer line is skipped (and counted).
MAX_KEPT_LINE = 64 * 1024
HEAD_LINES = 30
TAIL_LINES = 30
MAX_LEARNED_KEYS = 200_000
MAX_REMEMBERED_LINES = 8192
CONTEXT_BEFORE = 4
_NCCL_RECORD = re.compile(rb"NCCL (?:WARN|INFO|TRACE) ")

# The gate's keywords are generated: each format parser declares the structural lines it must
# see whatever the catalog says (parsers.GATE_MEANING / GATE_IDENTITY: tracebacks, exit tables,
# NCCL `-> N` trails and WARNs, init and identity lines), and the catalog's entries give the rest
# (gate.cover over their patterns, by role). Only the ONCE sample below is the gate's own: words
# that look like trouble on a line nothing else knows, kept once per block so that an unknown
# message is still seen.
ONCE_KEYWORDS: tuple[str, ...] = (
    r"NCCL WARN",
    r"[Ee]rror",
    r"ERROR",
    r"[Ff]ail(?:ed|ure)",
    r"FAIL",
    r"[Ee]xception",
    r"[Tt]ime ?out",
    r"TIMEOUT",
    r"[Ss]ignal",
    r"[Cc]onnect",
    r"refused",
    r"[Rr]endezvous",
    r"TCPStore",
    r"c10d",
    r"[Gg]loo",
    r"[Dd]ump",
)

MEANING, IDENTITY, ONCE = 0, 1, 2


@dataclass(frozen=True)
class PatternSet:
    """The scan gate: every pattern with its class, whether it is a caseless literal, and the
    lower-case literals the pure-Python path looks for (one of them is in each match)."""

    patterns: tuple[str, ...]
    classes: tuple[int, ...]
    caseless: tuple[bool, ...]
    literals: tuple[tuple[str, ...], ...]
    # The patterns the gate may leave out for the rest of a region once seen (recurring_patterns).
    recurring: frozenset[int] = frozenset()

    def of(self, cls: int) -> list[str]:
        return [p for p, c in zip(self.patterns, self.classes, strict=False) if c == cls]


def _catalog_class(role: str, cause: str | None, priority: int) -> int | None:
    from .signatures.schema import CATCH_ALL_PRIORITY

    if role in ("fault", "symptom"):
        return MEANING
    if role == "context" and (cause or priority > CATCH_ALL_PRIORITY):
        return IDENTITY
    return None  # harmless lines and catch-alls: the ONCE keywords sample them


@lru_cache(maxsize=1)
def pattern_set() -> PatternSet:
    """The parsers' structural keywords as they are, and the catalog's entries as a cover of
    caseless literals (gate.py): the catalog itself runs on the lines the gate lets through.
    Kept on disk by content hash, like the compiled databases: the cover takes longer to work
    out than a worker may spend on a small bundle."""
    from . import gate
    from .parsers import GATE_IDENTITY, GATE_MEANING
    from .signatures import CATALOG

    by_class: dict[int, list[str]] = {MEANING: [], IDENTITY: []}
    for sig in CATALOG:
        cls = _catalog_class(sig.role, sig.cause, sig.priority)
        if cls is not None:
            by_class[cls].extend(sig.patterns)
    inputs = json.dumps([GATE_MEANING, GATE_IDENTITY, ONCE_KEYWORDS, by_class, gate.fingerprint(), "recurring"])

    def load(data: bytes) -> PatternSet:
        rows = json.loads(data)
        return PatternSet(tuple(r[0] for r in rows), tuple(r[1] for r in rows), tuple(r[2] for r in rows),
                          tuple(tuple(r[3]) for r in rows), frozenset(i for i, r in enumerate(rows) if r[4]))

    def dump(ps: PatternSet) -> bytes:
        flags = [i in ps.recurring for i in range(len(ps.patterns))]
        return json.dumps(list(zip(ps.patterns, ps.classes, ps.caseless, ps.literals, flags, strict=False))).encode()

    return _disk_cached(f"gate-{_digest(inputs)}.json", load, lambda: _build_pattern_set(by_class), dump)


def _build_pattern_set(by_class: dict[int, list[str]]) -> PatternSet:
    from .gate import cover
    from .parsers import GATE_IDENTITY, GATE_MEANING

    rows: dict[tuple[str, bool], tuple[int, tuple[str, ...]]] = {}

    def add(expr: str, cls: int, caseless: bool, literals: tuple[str, ...]) -> None:
        old = rows.get((expr, caseless))
        if old is None or old[0] > cls:
            rows[(expr, caseless)] = (cls, literals)

    for cls, keywords in ((MEANING, GATE_MEANING), (IDENTITY, GATE_IDENTITY), (ONCE, ONCE_KEYWORDS)):
        for p in keywords:
            add(p, cls, False, _keyword_literals(p))
    structural = set(GATE_MEANING) | set(GATE_IDENTITY)
    for cls in (MEANING, IDENTITY):
        for literal in cover([p for p in dict.fromkeys(by_class[cls]) if p not in structural]):
            add(re.escape(literal), cls, True, (literal,))
    keys = list(rows)
    ps = PatternSet(tuple(k[0] for k in keys), tuple(rows[k][0] for k in keys), tuple(k[1] for k in keys),
                    tuple(rows[k][1] for k in keys))
    return dataclasses.replace(ps, recurring=recurring_patterns(ps))


def _keyword_literals(pattern: str) -> tuple[str, ...]:
    from .signatures.literals import required_literals

    # A pattern with no literal run of 3 (rare, short words): its own letters, lower-cased.
    return required_literals(pattern) or (re.sub(r"[^a-z0-9/ _.-]", "", pattern.lower())[:8] or pattern.lower(),)


def keyword_patterns() -> tuple[str, ...]:
    return pattern_set().patterns


Hits = list[tuple[int, int]]  # (gate pattern id, absolute offset inside the line it matched)


@dataclass
class Prefilter:
    """A compiled gate. Over buf[lo:hi] (whole lines):
    `first` -> {pattern id: offset of its first match} for every pattern present;
    `every` -> (id, offset) of every match of a MEANING pattern;
    `learn` -> offsets of every IDENTITY match.
    Offsets are absolute in `buf` and may point anywhere inside the line; the scanner widens
    them to lines. All engines report the same lines for the same pattern ids."""

    engine: str
    classes: tuple[int, ...]
    first: Callable[[bytes, int, int], dict[int, int]]
    every: Callable[[bytes, int, int], Hits]
    learn: Callable[[bytes, int, int], list[int]]
    # `first_without(buf, lo, hi, drop)`: `first` less the patterns of `drop` (see _gate), for
    # an engine that can leave patterns out (None: it cannot, `first` is used). `recurring`:
    # the IDENTITY and ONCE patterns it may leave out (droppable_groups); a flooding MEANING
    # pattern may always be.
    first_without: Callable[[bytes, int, int, frozenset[int]], dict[int, int]] | None = None
    recurring: frozenset[int] = frozenset()


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:24]


T = TypeVar("T")


def _disk_cached(name: str, load: Callable[[bytes], T], build: Callable[[], T], dump: Callable[[T], bytes]) -> T:
    """`build()`, kept in the private state directory (statedir.py) under `name` (a content
    hash of what it is built from) and loaded from there next time. A file is loaded only if
    its header names that same hash and its payload's sha256 matches; an absent, stale or
    unreadable file is built again, a cache that cannot be written is only a missed saving. A
    state directory that is not private is never read nor written (the service refuses to
    start on it: triage.settings)."""
    directory = _state_dir()
    loaded = _disk_load(directory, name, load)
    if loaded is not None:
        return loaded
    value = build()
    if directory is not None:
        with contextlib.suppress(OSError):
            statedir.write_private(directory, name, statedir.pack(name, dump(value)))
    return value


def _state_dir() -> Path | None:
    try:
        return statedir.state_dir()
    except (statedir.UnsafeStateDir, OSError) as e:
        _warn_once(str(e))
        return None


def _disk_load(directory: Path | None, name: str, load: Callable[[bytes], T]) -> T | None:
    """What _disk_cached keeps under `name`, or None when it is absent, stale or unreadable."""
    if directory is None:
        return None
    data = statedir.read_private(directory, name)
    payload = statedir.unpack(name, data) if data is not None else None
    if payload is not None:
        try:
            return load(payload)
        except Exception:  # noqa: BLE001 - stale or unreadable: build it
            pass
    return None


@cache
def _warn_once(message: str) -> None:
    import logging

    logging.getLogger(__name__).warning("compiled patterns not cached: %s", message)


def hyperscan_db(hyperscan: object, patterns: list[str], flags: list[int], ids: list[int] | None = None,
                 compile_it: bool = True) -> Any:
    """A compiled Hyperscan database, kept on disk by content hash: compiling the catalog takes
    longer than scanning a large log, and the result never changes for the same patterns.
    `ids`: what a match of each pattern reports (default: its index). `compile_it` False: the
    one on disk, or None."""
    hs: Any = hyperscan  # the module
    pattern_ids = list(range(len(patterns))) if ids is None else ids

    def build() -> Any:
        db = hs.Database()
        db.compile(expressions=[p.encode() for p in patterns], ids=pattern_ids, elements=len(patterns), flags=flags)
        return db

    key = _digest("\x00".join(patterns) + repr(flags) + ("" if ids is None else repr(ids))
                  + getattr(hs, "__version__", ""))
    name = f"hs-{key}.db"
    if not compile_it:
        return _disk_load(_state_dir(), name, lambda data: hs.loadb(data, hs.HS_MODE_BLOCK))
    return _disk_cached(name, lambda data: hs.loadb(data, hs.HS_MODE_BLOCK), build, hs.dumpb)


# Most variants of the gate (patterns left out) held in one process (~1.5 MB each with its
# scratch); past that, the largest one that leaves out no more than asked is used (same
# picks, slower).
MAX_GATE_VARIANTS = 8
# A variant not on disk yet is compiled only when the gate has scanned this many bytes since
# the last one was: compiling one (~60 ms) costs as much as it saves over a few hundred MB, so
# a small or middling bundle uses the variants at hand (on disk from an earlier diagnosis,
# or none: the whole gate) and only a large one pays for new ones.
GATE_COMPILE_EVERY = 256 * 1024 * 1024


def recurring_patterns(ps: PatternSet) -> frozenset[int]:
    """The IDENTITY and ONCE patterns the gate may leave out for the rest of a region once
    they have been seen in it, because the scanner reads no more of them there (_gate): the
    ONCE class, and each IDENTITY pattern that recurs on ordinary lines (two or more lines of
    gate.BACKGROUND: init, nRanks, channel lines). Those fire line after line in a long log;
    leaving them out makes the scan faster, not different. Chosen from samples, not named, so
    they follow the catalog and the parsers. Worked out with the gate (pattern_set) and kept
    with it on disk: compiling the patterns here takes longer than a small diagnosis."""
    from .gate import BACKGROUND

    background = [x for x in BACKGROUND.splitlines() if x.strip()]
    out = {i for i, c in enumerate(ps.classes) if c == ONCE}
    for i, (pattern, cls, caseless) in enumerate(zip(ps.patterns, ps.classes, ps.caseless, strict=False)):
        if cls != IDENTITY:
            continue
        try:
            compiled = re.compile(pattern, re.IGNORECASE if caseless else 0)
        except re.error:
            continue
        if sum(1 for line in background if compiled.search(line)) >= 2:  # noqa: PLR2004
            out.add(i)
    return frozenset(out)


def _hyperscan(ps: PatternSet) -> Prefilter | None:
    try:
        import hyperscan
    except ImportError:
        return None
    try:
        base = hyperscan.HS_FLAG_MULTILINE
        flags = [base | (hyperscan.HS_FLAG_CASELESS if c else 0) for c in ps.caseless]
        first_db = hyperscan_db(hyperscan, list(ps.patterns), [f | hyperscan.HS_FLAG_SINGLEMATCH for f in flags])
        meaning_ids = [i for i, c in enumerate(ps.classes) if c == MEANING]
        every_db = hyperscan_db(hyperscan, [ps.patterns[i] for i in meaning_ids], [flags[i] for i in meaning_ids])
        learn_ids = [i for i, c in enumerate(ps.classes) if c == IDENTITY]
        learn_db = hyperscan_db(hyperscan, [ps.patterns[i] for i in learn_ids], [flags[i] for i in learn_ids])
        first_scratch = hyperscan.Scratch(first_db)
        every_scratch = hyperscan.Scratch(every_db)
        learn_scratch = hyperscan.Scratch(learn_db)
    except Exception:  # noqa: BLE001 - a pattern Hyperscan cannot take: use the next engine
        return None

    def first(buf: bytes, lo: int, hi: int) -> dict[int, int]:
        return scan_first(first_db, first_scratch, buf, lo, hi)

    def scan_first(db: Any, scratch: Any, buf: bytes, lo: int, hi: int) -> dict[int, int]:
        found: dict[int, int] = {}
        base = lo - 1

        def on_match(pid: int, _from: int, to: int, _flags: int, _ctx: object) -> None:
            found[pid] = base + to if to else lo

        db.scan(memoryview(buf)[lo:hi], match_event_handler=on_match, scratch=scratch)
        return found

    variants: dict[frozenset[int], tuple[Any, Any]] = {frozenset(): (first_db, first_scratch)}
    missing: set[frozenset[int]] = set()  # neither held nor on disk
    scanned = [0]  # bytes scanned since a variant was last compiled

    def first_without(buf: bytes, lo: int, hi: int, drop: frozenset[int]) -> dict[int, int]:
        # The gate less the patterns of `drop` (the ids stay those of the whole gate): held,
        # else on disk, else compiled if the bytes scanned since the last compile pay for it
        # (GATE_COMPILE_EVERY), else the largest variant held that leaves out less.
        scanned[0] += hi - lo
        variant = variants.get(drop)
        if variant is None and len(variants) < MAX_GATE_VARIANTS:
            compile_it = scanned[0] >= GATE_COMPILE_EVERY
            if compile_it or drop not in missing:
                kept = [i for i in range(len(ps.patterns)) if i not in drop]
                db = hyperscan_db(hyperscan, [ps.patterns[i] for i in kept],
                                  [flags[i] | hyperscan.HS_FLAG_SINGLEMATCH for i in kept], kept, compile_it)
                if db is None:
                    if len(missing) >= MAX_GATE_VARIANTS * 64:
                        missing.clear()
                    missing.add(drop)
                else:
                    variant = variants[drop] = (db, hyperscan.Scratch(db))
                    scanned[0] = 0 if compile_it else scanned[0]
        if variant is None:
            variant = variants[max((k for k in variants if k <= drop), key=len)]
        return scan_first(variant[0], variant[1], buf, lo, hi)

    def every(buf: bytes, lo: int, hi: int) -> Hits:
        hits: Hits = []
        append = hits.append
        base = lo - 1

        def on_match(pid: int, _from: int, to: int, _flags: int, _ctx: object) -> None:
            append((meaning_ids[pid], base + to if to else lo))

        every_db.scan(memoryview(buf)[lo:hi], match_event_handler=on_match, scratch=every_scratch)
        return hits

    def learn(buf: bytes, lo: int, hi: int) -> list[int]:
        ends: list[int] = []
        append = ends.append
        base = lo - 1

        def on_match(_pid: int, _from: int, to: int, _flags: int, _ctx: object) -> None:
            append(base + to if to else lo)

        learn_db.scan(memoryview(buf)[lo:hi], match_event_handler=on_match, scratch=learn_scratch)
        return ends

    return Prefilter("hyperscan", ps.classes, first, every, learn, first_without, ps.recurring)


def _re2(ps: PatternSet) -> Prefilter | None:
    """RE2: a set tells which patterns a window holds (one pass), then each of those is searched
    on its own for where."""
    try:
        import re2
    except ImportError:
        return None
    exprs = [f"(?m)(?i:{p})" if c else f"(?m){p}" for p, c in zip(ps.patterns, ps.caseless, strict=False)]
    try:
        options = re2.Options()
        options.max_mem = 256 << 20
        present = re2.Set.SearchSet(options)
        for e in exprs:
            present.Add(e.encode())
        present.Compile()
        compiled = [re2.compile(e.encode(), options) for e in exprs]
    except Exception:  # noqa: BLE001 - any RE2 build problem falls back to literals
        return None
    classes = ps.classes

    def ids(window: bytes, cls: int | None = None) -> list[int]:
        return [i for i in (present.Match(window) or ()) if cls is None or classes[i] == cls]

    def first(buf: bytes, lo: int, hi: int) -> dict[int, int]:
        window = bytes(buf[lo:hi])
        found: dict[int, int] = {}
        for pid in ids(window):
            m = compiled[pid].search(window)
            if m is not None:
                found[pid] = lo + max(m.end() - 1, m.start())
        return found

    def all_of(buf: bytes, lo: int, hi: int, cls: int) -> Hits:
        window = bytes(buf[lo:hi])
        return [(pid, lo + max(m.end() - 1, m.start()))
                for pid in ids(window, cls) for m in compiled[pid].finditer(window)]

    def every(buf: bytes, lo: int, hi: int) -> Hits:
        return all_of(buf, lo, hi, MEANING)

    def learn(buf: bytes, lo: int, hi: int) -> list[int]:
        return [pos for _pid, pos in all_of(buf, lo, hi, IDENTITY)]

    return Prefilter("re2", classes, first, every, learn)


def _python(ps: PatternSet) -> Prefilter:
    """No Hyperscan or RE2: plain lower-case literals, found with bytes.find at memchr speed. The
    gate's catalog part is literals already; a structural keyword is stood in for by its required
    literals (a superset: the parsers decide). Each literal costs one pass over the bytes, so
    this runs at some MB/s: a last resort."""
    owners: dict[bytes, list[int]] = {}
    for pid, lits in enumerate(ps.literals):
        for lit in lits:
            owners.setdefault(lit.encode(), []).append(pid)
    classes = ps.classes
    by_class = {cls: tuple(n for n, pids in owners.items() if any(classes[p] == cls for p in pids))
                for cls in (MEANING, IDENTITY)}

    def first(buf: bytes, lo: int, hi: int) -> dict[int, int]:
        low = buf[lo:hi].lower()
        found: dict[int, int] = {}
        for needle, pids in owners.items():
            i = low.find(needle)
            if i >= 0:
                for pid in pids:
                    if pid not in found or found[pid] > lo + i:
                        found[pid] = lo + i
        return found

    def all_of(buf: bytes, lo: int, hi: int, cls: int) -> Hits:
        low = buf[lo:hi].lower()
        hits: Hits = []
        for needle in by_class[cls]:
            pids = [p for p in owners[needle] if classes[p] == cls]
            i = low.find(needle)
            while i >= 0:
                hits.extend((pid, lo + i) for pid in pids)
                i = low.find(needle, i + 1)
        return hits

    def every(buf: bytes, lo: int, hi: int) -> Hits:
        return all_of(buf, lo, hi, MEANING)

    def learn(buf: bytes, lo: int, hi: int) -> list[int]:
        return [pos for _pid, pos in all_of(buf, lo, hi, IDENTITY)]

    return Prefilter("python", classes, first, every, learn)


_PREFILTER: Prefilter | None = None


def prefilter(prefer: str | None = None) -> Prefilter:
    """The fastest available engine (cached). `prefer` forces one, for tests and benchmarks:
    "hyperscan", "re2", or "python" (also "re") for the pure-Python fallback."""
    global _PREFILTER  # noqa: PLW0603 - the module-wide cache of the compiled prefilter
    if _PREFILTER is not None and prefer is None:
        return _PREFILTER
    ps = pattern_set()
    chosen: Prefilter | None = None
    if prefer in (None, "hyperscan"):
        chosen = _hyperscan(ps)
    if chosen is None and prefer in (None, "re2", "hyperscan"):
        chosen = _re2(ps)
    if chosen is None:
        chosen = _python(ps)
    if prefer is None:
        _PREFILTER = chosen
    return chosen


@dataclass
class Floods:
    """Which MEANING patterns recur all through the logs of one diagnosis (a harmless WARN on
    every step, a retry loop): a pattern seen in FLOOD_WINDOWS windows is flooding, and from
    then on only its first line per block is parsed. Lines of patterns that do not flood are
    all parsed, so a burst (every rank's watchdog line at the end) is read whole. Shared by all
    the sources of one diagnosis."""

    windows: dict[int, int] = field(default_factory=dict)
    sampled: int = 0  # windows read as a sample only
    # (pid, k): the k-th window of the pattern (counted from 0) was read whole and would have
    # been read differently had the pattern been flooding already: more than one of its lines
    # in the window, or the pattern in another window of the same region too (parallel.py
    # reads runs of sources with counts of their own, and reads again where this says the
    # true counts would have read a window differently).
    decisive: list[tuple[int, int]] = field(default_factory=list)

    def flooding(self, pid: int) -> bool:
        return self.windows.get(pid, 0) >= FLOOD_WINDOWS

    def seen(self, pids: list[int]) -> None:
        for pid in pids:
            self.windows[pid] = self.windows.get(pid, 0) + 1

    def read_whole(self, whole: list[tuple[int, int, int]], region: dict[int, int]) -> None:
        """End of a region: `whole` (pid, k, lines) for the windows read whole, `region` the
        windows of the region each pattern was in."""
        for pid, k, n in whole:
            if n > 1 or region[pid] > 1:
                self.decisive.append((pid, k))


# What makes two identity lines say the same thing: the same process (host:pid of an NCCL
# prefix) and the same words once pointers, times and thread ids are masked.
_HEX = re.compile(rb"0x[0-9a-fA-F]+")
_CHANNEL = re.compile(rb"^Channel \d+/\d+")
# ProcessGroupNCCL's log prefix names the group ('[PG ID 3 PG GUID 45 Rank 5]'): a job that
# creates groups all run long repeats the same rank facts under new group ids.
_NOISE = re.compile(rb"0x[0-9a-fA-F]+|\d+:\d\d:\d\d(?:[.,]\d+)?|\b\d+\.\d{3,}\b|PG (?:ID|GUID|Name:) [^\s\],]+")
_PREFIX = re.compile(rb"([^\s:\[\]]+:\d+):\d+ (?:\[\d+\] )?(?:\d+\.\d+ )?(?:\S+:\d+ )?$")


# The process part of the key for each NCCL prefix seen (the bytes before 'NCCL INFO '): the
# lines of one process all carry the same prefix, so the search runs once per process. A fleet
# bundle has a file per process and each its own two prefixes: a few thousand are all that is
# ever asked again (65,536 held 5 MB of a 16,384-rank bundle's prefixes through the diagnosis).
_PREFIX_KEYS: dict[bytes, bytes] = {}
_MAX_PREFIX_KEYS = 4096


def identity_key(raw: bytes) -> bytes:
    i = raw.find(b"NCCL INFO ")
    if i >= 0:
        before = bytes(raw[max(0, i - 120) : i])
        who = _PREFIX_KEYS.get(before)
        if who is None:
            m = _PREFIX.search(before)
            who = m.group(1) if m else b""
            if len(_PREFIX_KEYS) >= _MAX_PREFIX_KEYS:
                _PREFIX_KEYS.clear()
            _PREFIX_KEYS[before] = who
        rest = raw[i + 10 : i + 400]
        if b"0x" in rest:
            rest = _HEX.sub(b"", rest)
        # One channel line of a process says what the others say (its rank, device, peers
        # and transport); NCCL prints one per channel, 16 to 64 per communicator.
        if rest.startswith(b"Channel "):
            rest = _CHANNEL.sub(b"Channel", rest)
        return who + b"|" + rest
    return _NOISE.sub(b"", raw[:400])


class Learner:
    """Remembers which identity lines were seen (bounded): `__call__(line)` is True for a new one."""

    def __init__(self, limit: int = MAX_LEARNED_KEYS) -> None:
        self.seen: set[bytes] = set()
        self.limit = limit
        # Lines met before, as they were: a line NCCL prints again unchanged (a channel line of
        # each new communicator) has the same key, found without working it out again.
        self.lines: set[bytes] = set()

    def __call__(self, raw: bytes) -> bool:
        line = bytes(raw)
        if line in self.lines:
            return False
        if len(self.lines) >= MAX_REMEMBERED_LINES:
            self.lines.clear()
        self.lines.add(line)
        key = identity_key(line)
        if key in self.seen or len(self.seen) >= self.limit:
            return False
        self.seen.add(key)
        return True


def _byte_counter() -> Callable[[bytes, int, int], int]:
    # Counting newlines is the one full pass besides the gate. bytes.count runs at about 3 GB/s
    # here, as long as the gate itself on an INFO-heavy log; StringZilla's SIMD count at 14-18
    # GB/s (bench/parse.py). Without its wheel the count is bytes.count, same result.
    try:
        import stringzilla
    except ImportError:
        return lambda buf, lo, hi: buf.count(b"\n", lo, hi)
    count = stringzilla.count
    return lambda buf, lo, hi: count(buf, "\n", lo, hi)


count_lines: Callable[[bytes, int, int], int] = _byte_counter()


def line_indexes(buf: bytes, lo: int, starts: list[int]) -> list[int]:
    """For each (sorted, absolute) offset, how many newlines come between `lo` and it."""
    out = []
    counted_to = lo
    n = 0
    for start in starts:
        n += count_lines(buf, counted_to, start)
        counted_to = start
        out.append(n)
    return out


def _introduces_next(raw: bytes) -> bool:
    return raw.rstrip(b"\r").endswith(b":")


@dataclass
class ScanStats:
    lines: int = 0
    bytes: int = 0
    long_lines_cut: int = 0
    last_line: int = 0
    learned: int = 0


@dataclass
class LineScanner:
    """Yields (line_number, raw_line) for the lines worth parsing, in order."""

    stream: BinaryIO
    engine: Prefilter = field(default_factory=prefilter)
    head_lines: int = HEAD_LINES
    tail_lines: int = TAIL_LINES
    block_bytes: int = BLOCK_BYTES
    stats: ScanStats = field(default_factory=ScanStats)
    learner: Callable[[bytes], bool] = field(default_factory=Learner)
    floods: Floods = field(default_factory=Floods)
    fold_nuls: Callable[[bytes, bytes | None], bytes] | None = None
    # Line numbers emitted only because they are among the first or last lines of the source
    # (no pattern of the gate is on them): a reader may take just their time and text.
    plain: set[int] = field(default_factory=set)

    def __iter__(self) -> Iterator[tuple[int, bytes]]:
        pool = _buffers()
        buf = pool.pop() if pool and len(pool[-1]) == self.block_bytes else bytearray(self.block_bytes)
        try:
            yield from self._scan(self._blocks(buf))
        finally:
            pool.append(buf)

    def _scan(self, read: Callable[[], tuple[bytes, int]]) -> Iterator[tuple[int, bytes]]:
        tail: deque[tuple[int, bytes]] = deque(maxlen=self.tail_lines)
        recent: deque[int] = deque(maxlen=self.tail_lines + 8)  # line numbers already yielded
        held: list[tuple[int, bytes]] = []  # picks not yet yielded (kept one step back)
        self._line_base = 0  # lines completed before the current region
        self._bring_next = False  # the previous region ended with a line ending in ':'
        carry = b""
        skipping_long = False  # inside a line longer than MAX_KEPT_LINE: drop until newline
        while True:
            chunk, size = read()  # chunk[:size] is the block (chunk may be the longer buffer)
            if not size:
                break
            self.stats.bytes += size
            start = 0
            current: list[tuple[int, bytes]] = []
            if skipping_long:
                nl = chunk.find(b"\n", 0, size)
                if nl < 0:
                    continue
                # The over-long line ends here: keep its cut head as one line of its own.
                start = nl + 1
                skipping_long = False
                current.extend(self._region(carry + b"\n", 0, len(carry) + 1, tail))
                carry = b""
            first = chunk.find(b"\n", start, size)
            if first < 0:
                carry += chunk[start:size]
                if len(carry) > MAX_KEPT_LINE:
                    carry = carry[:MAX_KEPT_LINE]
                    skipping_long = True
                    self.stats.long_lines_cut += 1
                held.extend(current)
                continue
            # The line cut by the previous block, completed by this one: a region of its own
            # (counted even when it is empty: a file or a block that starts with a newline).
            cut = chunk.rfind(b"\n", 0, size)
            if carry:
                bridge = carry + chunk[start : first + 1]
                current.extend(self._region(bridge, 0, len(bridge), tail))
                whole_from = first + 1
            else:
                # Nothing carried (a source's first block): its first line needs no bridge, and a
                # small file is one region, gated once.
                whole_from = start
            # Lines wholly inside the block are scanned in place: no copy of the block is made.
            if cut >= whole_from:
                current.extend(self._region(chunk, whole_from, cut + 1, tail))
            carry = bytes(chunk[cut + 1 : size])
            if len(carry) > MAX_KEPT_LINE:
                carry = carry[:MAX_KEPT_LINE]
                skipping_long = True
                self.stats.long_lines_cut += 1
            # The previous block's picks go out now; this block's wait, so that the tail (which may
            # reach back into it) is merged in order at the end.
            for item in held:
                recent.append(item[0])
                yield item
            held = current
        if carry:
            line_no = self._line_base + 1
            self._line_base = line_no
            tail.append((line_no, carry))
            data = carry + b"\n"
            found = self.engine.first(data, 0, len(data))
            classes = {self.engine.classes[pid] for pid in found}
            if (self._bring_next or MEANING in classes or ONCE in classes
                    or (IDENTITY in classes and self.learner(carry))):
                held.append((line_no, carry))
        self.stats.lines = self._line_base
        self.stats.last_line = self._line_base
        done = set(recent)
        final: dict[int, bytes] = {}
        for n, raw in held:
            if n not in done:
                final.setdefault(n, raw)
        for n, raw in tail:
            if n not in done and n not in final:
                final[n] = raw
                self.plain.add(n)
        for n in sorted(final):
            yield n, final[n]

    def _blocks(self, buf: bytearray) -> Callable[[], tuple[bytes, int]]:
        """Reads blocks into `buf`, reused for the whole source and, through _buffers(), by the
        next source: a fresh 4 MB object per block costs more in page faults than the scan
        itself. Picks and carried lines are copied out of it, so nothing refers to the buffer
        after the next read. NUL runs are folded here when the stream leaves that to the
        scanner (bundle.NulFold.hand_over). A read gives (block, its size): a short last block
        is the first `size` bytes of `buf`, not copied out of it."""
        readinto = getattr(self.stream, "readinto", None)
        if readinto is None:

            def read_bytes() -> tuple[bytes, int]:
                data = self.stream.read(self.block_bytes)
                return data, len(data)

            return read_bytes
        view = memoryview(buf)[: self.block_bytes]
        fold = self.fold_nuls
        last = b""

        def read() -> tuple[bytes, int]:
            nonlocal last
            n = readinto(view)
            if not n:
                return b"", 0
            before, last = last, bytes(buf[n - 1 : n])
            if fold is not None and buf.find(b"\x00", 0, n) >= 0:
                folded = fold(bytes(buf[:n]), before)
                return folded, len(folded)
            return buf, n  # type: ignore[return-value]  # a bytearray: bytes' methods, no copy

        return read

    def _region(self, buf: bytes, lo: int, hi: int, tail: deque[tuple[int, bytes]]) -> list[tuple[int, bytes]]:
        """The picks of whole lines buf[lo:hi] (hi just after a newline); advances the line count."""
        picks, n_lines = self._select(buf, lo, hi, self._line_base, self._bring_next)
        self._bring_next = bool(picks) and picks[-1][0] == self._line_base + n_lines and _introduces_next(picks[-1][1])
        self._remember_tail(buf, lo, hi, self._line_base, n_lines, tail)
        self._line_base += n_lines
        return picks

    def _learn(self, buf: bytes, start: int, hi: int, judged: frozenset[int] | set[int] = frozenset()) -> set[int]:
        """Line starts of new identity lines from `start` on, window by window, until a window
        teaches nothing new. Lines in `judged` were put to the learner already: it would call
        them known now, so they are not keyed again."""
        found: set[int] = set()
        learner, learn = self.learner, self.engine.learn
        while start < hi:
            end = buf.rfind(b"\n", start, min(hi, start + LEARN_WINDOW)) + 1
            if end <= start:
                end = buf.find(b"\n", start, hi) + 1 or hi
            new = 0
            last = -1
            for pos in learn(buf, start, end):
                ls = buf.rfind(b"\n", start, pos) + 1 or start
                if ls == last:
                    continue
                last = ls
                if ls not in judged and learner(buf[ls : buf.find(b"\n", ls, end)]):
                    found.add(ls)
                    new += 1
            self.stats.learned += new
            if not new:
                break
            start = end
        return found

    def _gate(self, buf: bytes, lo: int, hi: int) -> tuple[list[int], list[int], list[int]]:
        """The gate over buf[lo:hi], window by window: offsets of the MEANING lines to parse, the
        first offset of each IDENTITY pattern, and of each ONCE pattern. A window is first
        scanned for which patterns it holds; only when one of them is not flooding is it scanned
        again for all their matches."""
        engine, floods = self.engine, self.floods
        classes = engine.classes
        windows = floods.windows
        meaning: list[int] = []
        identity: dict[int, int] = {}
        once: dict[int, int] = {}
        sampled: dict[int, int] = {}  # flooding pattern -> its first line in this region
        region: dict[int, int] = {}  # MEANING pattern -> windows of this region it is in
        whole: list[tuple[int, int, int]] = []  # (pattern, its windows before, lines) read whole
        # Patterns the rest of the region needs no more: only the first line of an IDENTITY
        # pattern, of the ONCE class and of a flooding MEANING pattern in a region is read. The
        # gate leaves them out from then on (Prefilter.first_without): the same picks, faster.
        drop: frozenset[int] = frozenset()
        first_without = engine.first_without
        recurring = engine.recurring
        start = lo
        while start < hi:
            end = hi if hi - start <= WINDOW_BYTES else (buf.find(b"\n", start + WINDOW_BYTES - 1, hi) + 1 or hi)
            found = engine.first(buf, start, end) if not drop or first_without is None else first_without(
                buf, start, end, drop)
            present: list[int] = []
            for pid, pos in found.items():
                cls = classes[pid]
                if cls == MEANING:
                    present.append(pid)
                elif cls == IDENTITY:
                    identity.setdefault(pid, pos)
                else:
                    once.setdefault(pid, pos)
            if present:
                if all(windows.get(pid, 0) >= FLOOD_WINDOWS for pid in present):  # all flooding
                    floods.sampled += 1
                    for pid in present:
                        sampled.setdefault(pid, found[pid])
                else:
                    lines: dict[int, int] = {}
                    for pid, pos in engine.every(buf, start, end):
                        if windows.get(pid, 0) < FLOOD_WINDOWS:  # not flooding
                            meaning.append(pos)
                            lines[pid] = lines.get(pid, 0) + 1
                        elif pid not in sampled:
                            sampled[pid] = pos
                    whole.extend((pid, floods.windows.get(pid, 0), n) for pid, n in lines.items())
                floods.seen(present)
                for pid in present:
                    region[pid] = region.get(pid, 0) + 1
            if first_without is not None and found:
                more = {pid for pid in found if pid in sampled or (pid in recurring and classes[pid] == IDENTITY)}
                if once:
                    more.update(pid for pid in recurring if classes[pid] == ONCE)
                if not more <= drop:
                    drop = drop.union(more)
            start = end
        meaning.extend(sampled.values())
        if whole:
            floods.read_whole(whole, region)
        return meaning, list(identity.values()), list(once.values())

    def _line_start(self, buf: bytes, lo: int, pos: int) -> int:
        return max(buf.rfind(b"\n", lo, pos) + 1, lo)

    def _context_before(self, buf: bytes, lo: int, ls: int, starts: set[int]) -> None:
        """Up to CONTEXT_BEFORE line starts before the line at `ls`, not past an NCCL debug
        line: a frame or a failure record's head is never one (a rank's last INFO lines
        before its watchdog's report were 3 of the ~15 lines parsed per rank file)."""
        for _ in range(CONTEXT_BEFORE):
            if ls <= lo:
                break
            end = ls - 1
            ls = self._line_start(buf, lo, end)
            if _NCCL_RECORD.search(buf, ls, end):
                break
            starts.add(ls)

    def _select(
        self, buf: bytes, lo: int, hi: int, line_base: int, bring_first: bool = False
    ) -> tuple[list[tuple[int, bytes]], int]:
        """The picks of buf[lo:hi] and its number of lines (newlines are counted once, on the
        way to the picks and past the last one)."""
        starts: set[int] = {lo} if bring_first else set()
        meaning, identity, once = self._gate(buf, lo, hi)
        done: set[int] = set()  # lines already taken as MEANING lines (one line often holds many hits)
        for pos in meaning:
            ls = max(buf.rfind(b"\n", lo, pos) + 1, lo)
            if ls in done:
                continue
            done.add(ls)
            starts.add(ls)
            # A few lines before: a traceback's last frame and its source line, the head of a
            # torchrun failure record ('[1]:', time, host, rank) before its exitcode line. An
            # NCCL debug line is a record of its own (its trail lines are hits themselves).
            if not _NCCL_RECORD.search(buf, ls, buf.find(b"\n", ls, hi)):
                self._context_before(buf, lo, ls, starts)
        if once:
            # The first catch-all line of the region, the same line whatever the engine.
            starts.add(self._line_start(buf, lo, min(once)))
        first_new = -1
        judged: set[int] = set()
        for pos in sorted(identity):
            ls = self._line_start(buf, lo, pos)
            if ls in judged:
                continue  # (several patterns on one line: the learner knows it after the first)
            judged.add(ls)
            if self.learner(buf[ls : buf.find(b"\n", ls, hi)]):
                starts.add(ls)
                first_new = ls if first_new < 0 else min(first_new, ls)
        if first_new >= 0:
            starts |= self._learn(buf, buf.find(b"\n", first_new, hi) + 1, hi, judged)
        head: set[int] = set()
        if line_base < self.head_lines:
            pos = lo
            for _ in range(self.head_lines - line_base):
                if pos not in starts:
                    head.add(pos)
                pos = buf.find(b"\n", pos, hi) + 1
                if pos == 0:
                    break
            starts |= head
        starts.discard(hi)
        if not starts:
            return [], count_lines(buf, lo, hi)
        ordered = sorted(starts)
        extra: list[int] = []
        for start in ordered:
            end = buf.find(b"\n", start, hi)
            # A line ending in ':' ("Last error:", "Root Cause ...:") introduces the next line.
            if _introduces_next(buf[max(start, end - 2) : end]) and end + 1 < hi:
                extra.append(end + 1)
        if extra:
            ordered = sorted(starts.union(extra))
        extra_set = set(extra)
        picks: list[tuple[int, bytes]] = []
        indexes = line_indexes(buf, lo, ordered)
        for start, before in zip(ordered, indexes, strict=False):
            end = buf.find(b"\n", start, hi)
            if start in head and start not in extra_set:
                self.plain.add(line_base + before + 1)
            picks.append((line_base + before + 1, bytes(buf[start:end])))
        return picks, indexes[-1] + count_lines(buf, ordered[-1], hi)

    def _remember_tail(self, buf: bytes, lo: int, hi: int, line_base: int, n_lines: int,
                       tail: deque[tuple[int, bytes]]) -> None:
        want = self.tail_lines
        if want <= 0 or n_lines <= 0:
            return
        lines: list[bytes] = []
        pos = hi - 1  # index of the final newline
        while len(lines) < want and pos >= lo:
            start = self._line_start(buf, lo, pos)
            lines.append(bytes(buf[start:pos]))
            pos = start - 1
        last = line_base + n_lines
        for offset, raw in enumerate(reversed(lines)):
            tail.append((last - len(lines) + 1 + offset, raw))
