"""Reading a bundle's sources on several cores, with the verdict of reading them one by one.

A folder bundle of many files (a job's per-rank logs) is cut into as many runs of consecutive
files as there are cores; each run is read in a forked process into a partial state
(partial.py) and the states are merged in reading order. Reading one source depends on what
was read before it in three ways, and each is made exact:

- how many members, bytes and sources came before (the member limit, the light reading of a
  large bundle's later sources): a run starts from the counts its files' sizes predict, and
  is read again from the true counts when the files before it did not read as predicted (an
  archive or a compressed file among them);
- the scanner's flood counts (scan.Floods: a pattern seen in FLOOD_WINDOWS windows is only
  sampled from then on): a run starts with none, and reports how many windows each pattern
  was in (which does not depend on the counts it started with) and the windows where being
  flooding would have changed which lines were read (two lines of the pattern in one
  window, or the pattern in two windows of one region). Where the runs before it make such
  a window flooding, its files up to that window are read again from the true counts; the
  files after it keep what the run read. One watchdog line a rank file, however many
  files, is never such a window; a retry WARN in every window of every file is, in the
  first files of each run;
- a limit or an unreadable input that stops the reading: the whole input is read serially.

What is read again is read in parallel too (all the starting points are known by then): at
most two rounds. Anything unexpected in a worker falls back to the serial reading, which then
decides (and raises) as it always did.

Only folder inputs are read in parallel: an archive is one compressed stream (the fan-out
app reads large ones in parts on several workers).
"""
from __future__ import annotations

import gc
import multiprocessing
import os
import time
from collections.abc import Generator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from .bundle import Budget, Input, Limits, Member, dir_files, iter_dir_file, normalise_inputs
from .model import Event
from .partial import PartialState, merge, parse_members, read_into
from .reader import MAX_YEARS, Collected
from .scan import FLOOD_WINDOWS, Floods, prefilter
from .signatures.matcher import matcher
from .structured import StructuredDocs

WORKERS_ENV = "NCCL_TRIAGE_READ_WORKERS"
# Smaller inputs are read serially: forking and sending states back costs tens of ms.
MIN_PARALLEL_BYTES = 32 * 1024 * 1024
MIN_PARALLEL_FILES = 256
# What a file costs to read besides its bytes, in bytes (for cutting runs of equal cost).
FILE_COST_BYTES = 64 * 1024


def default_workers() -> int:
    """Processes to read with: $NCCL_TRIAGE_READ_WORKERS, else the cores this process may use."""
    env = os.environ.get(WORKERS_ENV, "").strip()
    if env.isdigit() and int(env) > 0:
        return int(env)
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


@dataclass
class _Unit:
    path: str
    name: str  # member name, as the serial reading names it
    size: int


@dataclass
class _Part:
    units: list[_Unit]
    limits: Limits
    year: int | None
    members_before: int = 0
    bytes_before: int = 0
    sources_before: int = 0
    floods: dict[int, int] = field(default_factory=dict)

    def start(self) -> tuple[int, int, int]:
        return self.members_before, self.bytes_before, self.sources_before


@dataclass
class _Mark:
    """Where a run's state stood after one of its files."""

    events: int
    sources: int
    years: int
    order: int
    problems: int
    docs: tuple[int, ...]
    decisive: int


@dataclass
class _Result:
    state: PartialState
    finished: bool
    read: tuple[int, int, int]  # members, bytes, sources of this run
    cpu: float  # CPU seconds the run took
    windows: dict[int, int]  # flood windows of this run alone
    decisive: list[tuple[int, int]]  # scan.Floods.decisive of this run
    marks: list[_Mark]  # one after each file


@dataclass
class ReadStats:
    parts: int = 1
    read_again: int = 0
    serial_because: str = ""
    # CPU seconds of the slowest run of each round: what the workers add to the reading's
    # time on an otherwise idle machine (bench/parse.py).
    workers_cpu: float = 0.0
    files_read_again: int = 0


def read_state(
    inputs: Input, *, limits: Limits | None = None, year: int | None = None, workers: int | None = None,
    min_bytes: int = MIN_PARALLEL_BYTES, min_files: int = MIN_PARALLEL_FILES, stats: ReadStats | None = None,
) -> PartialState:
    """The partial state of the whole input, read on `workers` processes where that pays
    (default_workers(); 1 reads serially); the same state as partial.parse_members."""
    stats = stats if stats is not None else ReadStats()
    limits = limits or Limits()
    n = workers if workers is not None else default_workers()
    units = _units(inputs) if n > 1 else None
    if units is None:
        stats.serial_because = "one worker" if n <= 1 else "not a folder input"
    elif len(units) < 2 or (  # noqa: PLR2004 - one unit has nothing to share out
          sum(u.size for u in units) < min_bytes and len(units) < min_files):
        stats.serial_because = "small input"
    elif len(units) > limits.max_members or sum(u.size for u in units) > limits.max_total_bytes:
        stats.serial_because = "over a limit: the serial reading stops where it is reached"
    else:
        state = _read_parallel(units, limits, year, min(n, len(units)), stats)
        if state is not None:
            return state
    stats.parts = 1
    return parse_members(inputs, limits=limits, year=year)


def _units(inputs: Input) -> list[_Unit] | None:
    units: list[_Unit] = []
    for label, path in normalise_inputs(inputs):
        if not isinstance(path, Path) or not path.is_dir():
            return None
        for full, rel in dir_files(path):
            try:
                size = os.lstat(full).st_size
            except OSError:
                size = 0
            units.append(_Unit(full, f"{label}/{rel}" if label else rel, size))
    return units


def _cut(units: list[_Unit], parts: int) -> list[list[_Unit]]:
    """Runs of consecutive units of about equal cost."""
    total = sum(u.size + FILE_COST_BYTES for u in units)
    runs: list[list[_Unit]] = [[]]
    done = 0
    for unit in units:
        if runs[-1] and len(runs) < parts and done >= total * len(runs) / parts:
            runs.append([])
        runs[-1].append(unit)
        done += unit.size + FILE_COST_BYTES
    return runs


def _read_part(part: _Part) -> _Result:
    cpu = time.process_time()
    budget = Budget(part.limits)
    budget.members, budget.total_bytes = part.members_before, part.bytes_before
    collected = Collected(floods=Floods(windows=dict(part.floods)), sources_before=part.sources_before)
    marks: list[_Mark] = []

    def members() -> Generator[Member, None, None]:
        for unit in part.units:
            yield from iter_dir_file(unit.path, unit.name, budget)
            c = collected
            marks.append(_Mark(len(c.events), len(c.sources), len(c.years_seen), c.order, len(budget.problems),
                               tuple(len(getattr(c.docs, f.name)) for f in fields(StructuredDocs)),
                               len(c.floods.decisive)))

    finished = read_into(members(), collected, budget, year=part.year)
    windows = {pid: n - part.floods.get(pid, 0) for pid, n in collected.floods.windows.items()}
    read = (budget.members - part.members_before, budget.total_bytes - part.bytes_before, len(collected.sources))
    collected.events = _Shipped(collected.events)
    state = PartialState(collected=collected, problems=list(budget.problems))
    return _Result(state, finished, read, time.process_time() - cpu, windows, collected.floods.decisive, marks)


class _Shipped(list[Event]):
    """A run's events on their way back from its worker: pickled as one tuple of field values
    each and made again on arrival (a plain list then). Event's own pickling (a slots
    dataclass: its fields looked up and set one by one, on every event) took about 2 s each
    way for a bundle of 16,384 rank files, in the workers and then in the parent waiting on
    them; this way half as long."""

    def __reduce__(self) -> tuple[Any, ...]:
        names = [f.name for f in fields(Event)]
        return _landed, ([tuple([getattr(ev, name) for name in names]) for ev in self],)


def _landed(rows: list[tuple[Any, ...]]) -> list[Event]:
    return [Event(*row) for row in rows]


def _last_misread(before: dict[int, int], started: dict[int, int], decisive: list[tuple[int, int]]) -> int:
    """Index in `decisive` of the last window a run read differently than it would have with
    the true flood counts `before` (-1: none). The run started from `started`; its k-th window
    of a pattern was decisive (scan.Floods), not flooding for it (k < FLOOD_WINDOWS), and was
    flooding in truth when before[pid] + k - started[pid] had reached FLOOD_WINDOWS."""
    last = -1
    for i, (pid, k) in enumerate(decisive):
        if before.get(pid, 0) + k - started.get(pid, 0) >= FLOOD_WINDOWS:
            last = i
    return last


def _after(result: _Result, mark: _Mark) -> PartialState:
    """The state a run read after `mark`, as if read by a run of its own."""
    c = result.state.collected
    docs = StructuredDocs(**{f.name: getattr(c.docs, f.name)[n:]
                             for f, n in zip(fields(StructuredDocs), mark.docs, strict=False)})
    events = c.events[mark.events :]
    for ev in events:
        ev.order -= mark.order
    rest = Collected(events=events, sources=c.sources[mark.sources :], docs=docs, years_seen=c.years_seen[mark.years :],
                     order=c.order - mark.order)
    return PartialState(collected=rest, problems=result.state.problems[mark.problems :])


def _read_parallel(units: list[_Unit], limits: Limits, year: int | None, workers: int,
                   stats: ReadStats) -> PartialState | None:
    prefilter()  # the gate and the catalog built (or loaded) once, before forking
    matcher()
    parts: list[_Part] = []
    members = size = 0
    for run in _cut(units, workers):
        parts.append(_Part(run, limits, year, members, size, members))
        members += len(run)
        size += sum(u.size for u in run)
    # The parent's objects out of the collector's reach while the workers run: a worker's
    # collection would otherwise write to (and so copy) every page of the parent's heap.
    gc.freeze()
    try:
        # concurrent.futures, not multiprocessing.Pool: a worker killed (out of memory) breaks
        # the pool with an error instead of leaving map() waiting forever.
        with ProcessPoolExecutor(len(parts), mp_context=multiprocessing.get_context("fork")) as pool:
            results = list(pool.map(_read_part, parts))
            stats.workers_cpu = max(r.cpu for r in results)
            # Each run checked against the true counts before it; what it read differently
            # (the whole run, or its files up to the last window read differently) is read
            # again in a second round, from the true counts.
            again: list[_Part] = []
            pieces: list[list[PartialState | int]] = []  # per run: states, or indexes into `again`
            start = (0, 0, 0)
            floods: dict[int, int] = {}
            for part, result in zip(parts, results, strict=False):
                if not result.finished:
                    stats.serial_because = "a limit or an unreadable input stopped the reading"
                    return None
                last = -1 if part.start() != start else _last_misread(floods, part.floods, result.decisive)
                if part.start() != start or last >= 0:
                    upto = len(part.units)
                    if part.start() == start:
                        upto = next(i for i, m in enumerate(result.marks) if m.decisive > last) + 1
                    redo = _Part(part.units[:upto], limits, year, *start, dict(floods))
                    again.append(redo)
                    piece: list[PartialState | int] = [len(again) - 1]
                    if upto < len(part.units):
                        piece.append(_after(result, result.marks[upto - 1]))
                    pieces.append(piece)
                else:
                    pieces.append([result.state])
                start = (start[0] + result.read[0], start[1] + result.read[1], start[2] + result.read[2])
                for pid, n in result.windows.items():
                    floods[pid] = floods.get(pid, 0) + n
            redone = list(pool.map(_read_part, again)) if again else []
            if redone:
                stats.workers_cpu += max(r.cpu for r in redone)
            if not all(r.finished for r in redone):
                stats.serial_because = "a limit or an unreadable input stopped the reading"
                return None
    except Exception as exc:  # noqa: BLE001 - no fork, a worker failed: the serial reading decides
        stats.serial_because = f"parallel reading failed ({type(exc).__name__})"
        return None
    finally:
        gc.unfreeze()
    stats.parts, stats.read_again = len(parts), len(again)
    stats.files_read_again = sum(len(p.units) for p in again)
    state = merge([redone[x].state if isinstance(x, int) else x for piece in pieces for x in piece])
    del state.collected.years_seen[MAX_YEARS:]
    return state
