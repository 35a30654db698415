"""Reading one bundle member: structured document, or text log scanned and parsed line by line."""
from __future__ import annotations

import gzip
import io
import re
import tarfile
import zipfile
import zlib
from collections import Counter, deque
from dataclasses import dataclass, field
from typing import Any

from . import identity
from .bundle import Budget, LimitExceeded, Member, NulFold, Prefixed
from .demux import Origin, origin_from_name, split_prefix
from .forensics.flight_recorder import DumpError, is_pickle, looks_like_dump, read_dump
from .forensics.ras import looks_like_ras, read_ras
from .model import Event, Record, shared_data
from .parsers import ALWAYS, EXCLUSIVE
from .parsers.base import LineCtx, SourceState
from .scan import HEAD_LINES, TAIL_LINES, Floods, LineScanner, Prefilter
from .signatures.matcher import matcher
from .signatures.raised_in import raised_in
from .signatures.records import severity as record_severity
from .signatures.schema import CATCH_ALL_PRIORITY, Signature
from .structured import (
    MAX_JSON_BYTES,
    MAX_SAMPLES,
    StructuredDocs,
    first_line_is_sample,
    parse_json_blob,
    stream_nvml_samples,
)
from .text import clean_line, looks_binary
from .timeparse import Clock, dmesg_uptime, kernel_wall_time, parse_time, stated_offset


@dataclass(slots=True)
class SourceInfo:
    name: str
    # log | kernel_log | snapshot | manifest | nvml_samples | elastic_error | flight_recorder | ncclras | binary | empty
    kind: str
    lines: int = 0
    bytes: int = 0
    file_origin: Origin = field(default_factory=Origin)
    last_line: tuple[int, str] | None = None  # the last non-empty line (for "last words")
    first_time: Any = None
    last_time: Any = None
    # The last line each writer named by a launcher prefix printed here: "rank:N" ([rankN]:,
    # srun -l, mpirun tags) or "local:N" ([defaultN]:, torchrun's log dir) -> [line, text, time]
    # (the time of its last timed line). What a silent rank said last, in a combined log.
    last_by_writer: dict[str, list[Any]] = field(default_factory=dict)


@dataclass
class Collected:
    events: list[Event] = field(default_factory=list)
    sources: list[SourceInfo] = field(default_factory=list)
    docs: StructuredDocs = field(default_factory=StructuredDocs)
    years_seen: list[int] = field(default_factory=list)
    order: int = 0
    floods: Floods = field(default_factory=Floods)
    # Sources other readers read before these (parallel.py): the light-reading threshold counts them.
    sources_before: int = 0


# Bounded state per source: of each (rank, process, kind, catalog entry) the first KEEP_FIRST and
# the last KEEP_LAST events are kept, whatever the log's size; a retry loop or a warning on every
# step is counted, not stored line by line.
KEEP_FIRST = 16
KEEP_LAST = 16
# Past this many bytes, or this many sources (a job of thousands of ranks, one small file
# each), a bundle is large: its sources' first and last lines are read light.
LIGHT_AFTER_BYTES = 64 * 1024 * 1024
LIGHT_AFTER_SOURCES = 256
LIGHT_EDGE_LINES = 5
# The year of yearless timestamps is voted by the first timed lines; more would not change it.
MAX_YEARS = 10_000
# More kernel lines than this in a source not named dmesg: it is a kernel log all the same.
KERNEL_LOG_MIN_HITS = 2


class EventCap:
    def __init__(self) -> None:
        self.kept: list[Event] = []
        self.counts: dict[tuple[Any, ...], int] = {}
        self.tails: dict[tuple[Any, ...], deque[Event]] = {}

    def add(self, ev: Event, sig: object = None) -> None:
        """Keep `ev` unless its kind repeats: a format event is counted with what the catalog
        says its line means (`sig`), so one NCCL WARN is not capped away by a flood of others."""
        key = (ev.rank, ev.host, ev.pid, ev.kind, ev.data.get("sig") or sig)
        n = self.counts.get(key, 0) + 1
        self.counts[key] = n
        if n <= KEEP_FIRST:
            self.kept.append(ev)
        else:
            tail = self.tails.get(key)
            if tail is None:
                tail = self.tails[key] = deque(maxlen=KEEP_LAST)
            tail.append(ev)

    def finish(self) -> list[Event]:
        """The events kept, in reading order, their data shared with equal ones of other
        events and sources (model.shared_data)."""
        if self.tails:
            for key, tail in self.tails.items():
                tail[-1].data["repeated"] = self.counts[key]
                self.kept.extend(tail)
            self.kept.sort(key=lambda ev: ev.order)
        for ev in self.kept:
            ev.data = shared_data(ev.data)
        return self.kept


def _writer(origin: Origin, file_origin: Origin) -> str | None:
    """Who a launcher prefix (or torchrun's log dir) says printed the line, before any
    failure-block ownership is applied (the launcher's report is not the rank's own words)."""
    rank = origin.rank if origin.rank is not None else file_origin.rank
    local = origin.local_rank if origin.local_rank is not None else file_origin.local_rank
    return f"rank:{rank}" if rank is not None else f"local:{local}" if local is not None else None


def read_member(member: Member, out: Collected, budget: Budget, engine: Prefilter, clock: Clock) -> None:
    stream = member.stream
    try:
        head = stream.peek(65536)[:65536]  # type: ignore[attr-defined]
    except (EOFError, zlib.error, OSError, gzip.BadGzipFile) as exc:
        budget.note(f"{member.name}: unreadable ({exc})")
        return
    info = SourceInfo(name=member.name, kind="log", file_origin=origin_from_name(member.name))
    if not head:
        info.kind = "empty"
        if member.size:
            # Bytes, but no text once a byte-order mark is dropped and NUL runs folded.
            budget.note(f"{member.name}: empty file (nothing in it but a byte-order mark or NUL bytes)")
        out.sources.append(info)
        return
    if looks_like_dump(head) or is_pickle(head):
        # Flight-recorder dumps (pickle or JSON), recognised by content, read streaming.
        info.kind = "flight_recorder"
        notes: list[str] = []
        try:
            dump = read_dump(member.name, stream, notes=notes)
            out.docs.flight_records.append((member.name, dump["rank"], dump))
        except DumpError as exc:
            budget.note(str(exc))
            info.kind = "binary"
        _note_all(budget, notes)
        out.sources.append(info)
        return
    if looks_like_ras(head):
        # ncclras output (text or JSON): NCCL's own view of dead ranks and operation counts.
        data = stream.read(MAX_JSON_BYTES + 1)
        if len(data) <= MAX_JSON_BYTES:
            ras_notes: list[str] = []
            reports = read_ras(member.name, data, ras_notes)
            if reports:
                _note_all(budget, ras_notes)
                info.kind, info.bytes = "ncclras", len(data)
                out.docs.ras_reports.extend((member.name, r) for r in reports)
                out.sources.append(info)
                return
        stream = io.BufferedReader(Prefixed(data, stream), buffer_size=1 << 20)
    if looks_binary(head):
        info.kind = "binary"
        budget.note(f"{member.name}: binary file skipped")
        out.sources.append(info)
        return
    if b"\n" in head and first_line_is_sample(head):
        # NVML samples of a long job can be large: stream them line by line, never whole.
        info.kind = "nvml_samples"
        sample_notes: list[str] = []
        info.bytes, dropped = stream_nvml_samples(member.name, stream, out.docs, sample_notes)
        _note_all(budget, sample_notes)
        if dropped:
            budget.note(f"{member.name}: {dropped} older NVML samples dropped (kept the last {MAX_SAMPLES})")
        out.sources.append(info)
        return
    if _looks_like_json(head):
        data = stream.read(MAX_JSON_BYTES + 1)
        json_notes: list[str] = []
        kind = parse_json_blob(member.name, data, out.docs, json_notes) if len(data) <= MAX_JSON_BYTES else False
        _note_all(budget, json_notes)
        if kind:
            info.kind = kind
            info.bytes = len(data)
            out.sources.append(info)
            return
        # Not a document we know (or too big to be one): read it as text, all of it.
        stream = io.BufferedReader(Prefixed(data, stream), buffer_size=1 << 20)
    # Listed before reading: a source cut off half-way still counts as (partly) read.
    out.sources.append(info)
    light = budget.total_bytes > LIGHT_AFTER_BYTES or len(out.sources) + out.sources_before > LIGHT_AFTER_SOURCES
    _read_text(stream, info, out, engine, clock, light=light)


def _note_all(budget: Budget, notes: list[str]) -> None:
    """What a structured reader refused or left out, on the diagnosis's problems."""
    for note in notes:
        budget.note(note)


_JSON_START = re.compile(rb"^\s*(?:\{|\[\s*(?:\{|\]))")


def _looks_like_json(head: bytes) -> bool:
    # '{' or '[{' / '[]': a JSON document. Not '[rank0]:' or '[2026-05-05 06:16:47]' log lines.
    return bool(_JSON_START.match(head[:256]))


# A log pasted from a terminal or a web page is often hard-wrapped: every long record cut into
# lines of exactly the console's width. Such a file is read with the pieces joined again (up
# to this size; larger files are read as they are), line numbers still pointing at the file.
MAX_UNWRAP_BYTES = 32 * 1024 * 1024
CONSOLE_WIDTHS = frozenset((80, 100, 110, 120, 128, 132, 140, 150, 160, 180, 200, 220, 240, 250, 256))
# Besides a word character, what a piece cut inside a token may end in: a character that opens
# or joins one (`peer fe80::1%ib0<` | `53249>`, `key=` | `value`), never how a record ends.
_MID_TOKEN_END = frozenset(b"<([{=%/@&+_")


def _cut_mid_token(line: bytes, following: bytes) -> bool:
    end = line[-1:]
    return (end.isalnum() or (end != b"" and end[0] in _MID_TOKEN_END)) and following[:1].isalnum()


def wrap_width(head: bytes) -> int | None:
    """The console width a text was hard-wrapped at, or None: the longest line is exactly a
    usual console width, nothing is longer, and full-width lines are cut mid-token (the line
    ends in a word character, or one that opens or joins a token, and the next one starts with
    a word character), as a terminal or a web page cuts a record, unlike a long line that simply
    ends there."""
    raw_lines = head.split(b"\n")[:-1][:4000]
    if len(raw_lines) < 2:  # noqa: PLR2004 - one line cannot show a wrap
        return None
    if b"\r" in head:
        longest = max(map(len, raw_lines))
        if longest not in CONSOLE_WIDTHS and longest - 1 not in CONSOLE_WIDTHS:  # (a CR may end it)
            return None
        lines = [x.rstrip(b"\r") for x in raw_lines]
    else:
        lines = raw_lines
        if max(map(len, lines)) not in CONSOLE_WIDTHS:
            return None  # (most files: told before the lengths are counted)
    lengths = Counter(map(len, lines))
    width = max(lengths)
    if width not in CONSOLE_WIDTHS:
        return None
    # Wrapping makes a spike at the width: every long record leaves a piece of exactly that
    # length. Lines of varying length whose longest happens to be a console width do not (one
    # such line among hundreds is chance; in a short paste it may be the one long record).
    # Told from the counts first: the lines themselves are looked at only past this.
    near = max(lengths[width - k] for k in range(1, 6))
    n_full = lengths[width] - (len(lines[-1]) == width)  # full-width lines with one after them
    if not n_full or n_full <= 2 * near or (n_full < 2 and len(lines) > 100):  # noqa: PLR2004 - see above
        return None
    full = [i for i in range(len(lines) - 1) if len(lines[i]) == width]
    cut = [i for i in full if _cut_mid_token(lines[i], lines[i + 1])]
    if len(cut) * 2 < len(full) or len({lines[i] for i in full}) * 2 < len(full):
        return None
    return width


def unwrap(data: bytes, width: int) -> tuple[bytes, list[int]]:
    """The text with full-width pieces joined to what follows, and for each joined line the
    1-based number of its first line in the file."""
    out: list[bytes] = []
    first_line: list[int] = []
    pending: list[bytes] = []
    start = 1
    for number, raw in enumerate(data.split(b"\n"), 1):
        piece = raw.rstrip(b"\r")
        if not pending:
            start = number
        pending.append(piece)
        if len(piece) != width:
            out.append(b"".join(pending))
            first_line.append(start)
            pending = []
    if pending:
        out.append(b"".join(pending))
        first_line.append(start)
    return b"\n".join(out), first_line


def _read_text(stream: Any, info: SourceInfo, out: Collected, engine: Prefilter, clock: Clock,  # noqa: C901
               light: bool = False) -> None:  # C901: the per-line hot loop, kept in one frame for speed
    """`light`: a large bundle (more than LIGHT_AFTER_BYTES read before this source): fewer
    first and last lines, and of those only the time and the text are taken unless the gate
    flagged them too. A small bundle, as users paste, is read in full."""
    line_of: list[int] | None = None
    try:
        head = stream.peek(65536)[:65536]
    except (AttributeError, OSError, ValueError):
        head = b""
    width = wrap_width(head) if head else None
    if width is not None:
        data = stream.read(MAX_UNWRAP_BYTES + 1)
        if len(data) <= MAX_UNWRAP_BYTES:
            joined, line_of = unwrap(data, width)
            info.bytes = len(data)
            stream = io.BytesIO(joined)
        else:
            stream = io.BufferedReader(Prefixed(data, stream), buffer_size=1 << 20)
    raw = getattr(stream, "raw", None)
    fold = raw.hand_over() if isinstance(raw, NulFold) else None
    edges = LIGHT_EDGE_LINES if light else None
    scanner = LineScanner(stream, engine=engine, floods=out.floods, fold_nuls=fold, head_lines=edges or HEAD_LINES,
                          tail_lines=edges or TAIL_LINES)
    plain = scanner.plain if light else None
    state = SourceState(name=info.name)
    cap = EventCap()
    file_origin = info.file_origin
    # What the file's name says of its writer, given to each line that does not say it itself.
    inherited = file_origin.known()
    kernel_hits = 0
    try:
        for lineno, raw in scanner:
            text = clean_line(raw)
            if not text.strip():
                continue
            edge_only = plain is not None and lineno in plain
            if line_of is not None:
                lineno = line_of[lineno - 1] if lineno <= len(line_of) else lineno  # noqa: PLW2901 - to the original
            info.last_line = (lineno, text)
            if edge_only:
                when, yearless = parse_time(text, clock)
                if when is not None:
                    info.first_time = info.first_time or when
                    info.last_time = when
                continue
            origin, body = split_prefix(text)
            if origin.task is not None:
                _task_rank(origin, state, text)
            writer = _writer(origin, file_origin)
            owner = state.extra.get("block_owner")
            reported = False
            if owner is not None and body[:1].isspace() and (origin.rank is None or origin.rank == origin.task):
                reported = True
                origin.rank, origin.host = owner[0], origin.host or owner[1]
            if inherited:
                origin.fill(inherited)
            time_read = origin.time_text or body
            when, yearless = parse_time(time_read, clock)
            if when is None and origin.time_text is None and body is not text:
                # A launcher prefix was peeled off: the time may sit in front of it.
                time_read = text
                when, yearless = parse_time(text, clock)
            if when is not None:
                if not yearless and len(out.years_seen) < MAX_YEARS:
                    out.years_seen.append(when.year)
                info.first_time = info.first_time or when
                info.last_time = when
            if writer is not None:
                before = info.last_by_writer.get(writer)
                info.last_by_writer[writer] = [lineno, text,
                                               when if when is not None else (before[2] if before else None)]
            out.order += 1
            ctx = LineCtx(source=info.name, lineno=lineno, text=text, body=body, origin=origin, time=when,
                          order=out.order)
            events, meaning = read_line(ctx, state)
            if events and origin.rank is None and ("Rank " in body or "RANK " in body):
                # ProcessGroupNCCL's log prefix: '[Rank N]' (before 2.2) or '[PG 0 Rank N]' /
                # '[PG ID 0 PG GUID 0(default_pg) Rank N]' name the global rank (the default
                # group's rank); other groups' ranks are not global and stay out. accelerate's
                # logger starts a message with '[RANK N]', its process index (the global rank).
                tag = _TORCH_RANK.search(body) or _ACCELERATE_RANK.search(body)
                if tag:
                    for ev in events:
                        if ev.rank is None:
                            ev.rank = int(tag["rank"])
            uptime = dmesg_uptime(body) if when is None and events else None
            if uptime is None and when is None and events and body is not text:
                uptime = dmesg_uptime(text)  # journalctl short-monotonic: the uptime before its host
            # The zone the line's time states (facts._resolve_zones applies it), from its prefix's
            # time, else the text that time was read from; journalctl short-full's zone follows
            # its prefix's time, in the line.
            offset = None
            if when is not None and events:
                offset = stated_offset(time_read)
                prefix_time = origin.time_text if offset is None else None
                at = text.find(prefix_time) if prefix_time is not None else -1
                if prefix_time is not None and at >= 0:
                    offset = stated_offset(text[: at + len(prefix_time) + _ZONE_CHARS])
            kernel_clock = when is not None and bool(events) and kernel_wall_time(text)
            if events and origin.task is not None and origin.rank == origin.task:
                _agent_lines_name_no_task_rank(events, origin.task)
            # The launcher's failure table speaks of a rank: its lines are not the rank's words.
            reported = reported or (bool(events) and any(e.kind == "elastic_failure" for e in events))
            for ev in events:
                if uptime is not None:
                    ev.data["uptime_s"] = uptime
                elif kernel_clock and ev.time is when:
                    ev.data["kernel_clock"] = True
                if offset is not None and ev.time is when:
                    ev.data["utc_offset_s"] = offset
                if ev.time is None:
                    ev.approx_time = info.last_time
                if yearless and ev.time is not None and ev.time is when:
                    ev.data["_yearless"] = True
                if ev.kind in ("xid", "nvrm_gpu", "kernel_kill", "iommu_fault"):
                    kernel_hits += 1
                if reported:
                    ev.data["launcher_report"] = True  # the launcher's words about the rank, not its own
            line_sig = meaning.data.get("sig") if meaning is not None else None
            for ev in events:
                cap.add(ev, line_sig)
    finally:
        out.events.extend(cap.finish())
        info.lines = scanner.stats.lines if line_of is None else (line_of[-1] if line_of else 0)
        info.bytes = scanner.stats.bytes if line_of is None else info.bytes
    out.events.extend(flush_source(state, info))
    if (kernel_hits and "dmesg" in info.name.lower()) or kernel_hits > KERNEL_LOG_MIN_HITS:
        info.kind = "kernel_log"


# What a launcher's agent prints about its children (torchrun's agent, DeepSpeed's launcher):
# under `srun --label` the task that ran the agent is a node's launcher, not a rank.
_CTEST_HEADER = identity.pattern("ctest.verbose_header")
_AGENT_KINDS = frozenset({"process_exit", "closing_signal", "process_exit_no_error_file", "launcher_killing",
                          "elastic_failure"})


_ZONE_CHARS = 6  # the longest zone time.stated_zone reads after a prefix's time ("+01:00"; " UTC" is 4)


def _task_rank(origin: Origin, state: SourceState, text: str) -> None:
    """A Slurm task label is the rank only where srun started the ranks: once a line of the
    source shows a launcher inside a task naming its own rank or local rank (srun torchrun),
    the tasks run launchers, and a task's number names no rank of the lines after. A number
    CTest's header gave its test (ctest -V: 'N: Test command: ...') is that test's index, no
    task, on the lines after."""
    header = _CTEST_HEADER.match(text)
    tests: set[int] = state.extra.setdefault("ctest_tests", set())
    if header is not None:
        tests.add(int(header["x_test"]))
    if origin.task in tests:
        if origin.rank == origin.task:
            origin.rank = None
        origin.task = None
        return
    if origin.rank != origin.task or origin.local_rank is not None:
        state.extra["tasks_run_launchers"] = True
    elif state.extra.get("tasks_run_launchers"):
        origin.rank = None


def _agent_lines_name_no_task_rank(events: list[Event], task: int) -> None:
    """A line of the agent behind a Slurm task label: the task's number is no rank of its
    events (the failure table names its own, set where it was read)."""
    if not any(e.kind in _AGENT_KINDS for e in events):
        return
    for ev in events:
        if ev.rank == task and ev.kind != "elastic_failure":
            ev.rank = None


def read_line(ctx: LineCtx, state: SourceState) -> tuple[list[Event], Event | None]:
    """The format parsers' records of one line as events, and what the catalog says it means
    (also among the events)."""
    records = ALWAYS[0](ctx, state)
    for parse in EXCLUSIVE:
        found = parse(ctx, state)
        if found:
            records.extend(found)
            break
    for parse in _ALWAYS_AFTER:
        records.extend(parse(ctx, state))
    events = [as_event(rec) for rec in records] if records else []
    # An exception CPython reported as ignored (in __del__, at shutdown) means nothing.
    ignored = events and any(e.kind == "exception_ignored" for e in events)
    meaning = None if ignored else signature_event(ctx, events)
    if meaning is not None:
        events.append(meaning)
    return events, meaning


def as_event(rec: Record, severity: str | None = None) -> Event:
    """A record as an event: what a parser's record says of its writer is the catalog's
    (signatures/records.py) unless `severity` (a catalog entry's reading) is given; the record's
    own dict is the event's (a parser may still fill it from the next line: c10d's 'Last error:')."""
    return Event(rec.kind, rec.source, rec.line, rec.text, rec.message, rec.rank, rec.host, rec.pid, rec.device,
                 rec.time, rec.seq, rec.order, rec.data,
                 record_severity(rec.kind, rec.data) if severity is None else severity)


def read_recorded(name: str, lines: list[str], origin: Origin, when: Any) -> list[Event]:
    """Lines a program recorded outside a log (torchelastic's error file: the exception's
    message, the traceback it was raised with), read as the same lines in a log would be."""
    state = SourceState(name=name)
    events: list[Event] = []
    for lineno, text in enumerate(lines, 1):
        if text.strip():
            ctx = LineCtx(source=name, lineno=lineno, text=text, body=text, origin=Origin(**vars(origin)),
                          time=when, order=0)
            events.extend(read_line(ctx, state)[0])
    return events


_ALWAYS_AFTER = ALWAYS[1:]
_TORCH_RANK = identity.pattern("torch.pg_rank_tag")
_ACCELERATE_RANK = identity.pattern("accelerate.rank_tag")


def signature_event(ctx: LineCtx, events: list[Event]) -> Event | None:
    """What the catalog says this line means, wherever it sits in the line. The format parsers'
    events on the same line lend their identity (an NCCL prefix names host, pid and device)."""
    found = matcher().best(ctx.text)
    if found is None and ctx.body != ctx.text:
        # A few entries hold the whole line ('No devices were found', a shell's 'Killed'):
        # behind a launcher's prefix they are read from the rest of the line.
        found = matcher().best(ctx.body)
    if found is None or found.sig.priority <= CATCH_ALL_PRIORITY:
        # No specific entry reads the line: an exception raised in a module the catalog knows
        # is read by where it was raised (signatures/data/raised_in.toml).
        for exc in events:
            if exc.kind == "exception" and exc.data.get("frame"):
                sig = raised_in(str(exc.message), str(exc.data["frame"]), tuple(exc.data.get("stack") or ()))
                if sig is not None:
                    return _meaning(ctx, sig, {}, events)
    if found is None:
        return None
    if found.sig.role == "context" and found.sig.cause is None and found.sig.priority <= CATCH_ALL_PRIORITY:
        return None  # a catch-all with nothing to say (an unknown WARN stays a format event)
    return _meaning(ctx, found.sig, dict(found.groups), events)


def _meaning(ctx: LineCtx, sig: Signature, groups: dict[str, str], events: list[Event]) -> Event:
    ev = as_event(ctx.record(
        "signature",
        message=ctx.body.strip(),
        sig=sig.id,
        cause=sig.cause,
        role=sig.role,
        confidence=sig.confidence,
        priority=sig.priority,
    ), severity="error" if sig.role == "fault" else "warn" if sig.role == "symptom" else "info")
    if groups:
        # Only where the entry extracted something (readers take `data.get("groups") or {}`):
        # an empty dict on each of a fleet's identity lines was 5% of what a rank kept.
        ev.data["groups"] = groups
    for other in events:
        ev.host = ev.host or other.host
        ev.pid = ev.pid if ev.pid is not None else other.pid
        ev.device = ev.device if ev.device is not None else other.device
        if ev.rank is None and other.rank is not None:
            ev.rank = other.rank
    return ev


def flush_source(state: SourceState, info: SourceInfo) -> list[Event]:
    """End of a source: a traceback whose exception line was cut off is still a fact."""
    events: list[Event] = []
    for key, tb in (state.extra.get("tracebacks") or {}).items():
        if not tb.get("frames") or tb.get("ignored"):
            continue
        rank_text, host, pid = key.split("|")
        events.append(
            Event(
                kind="exception",
                source=info.name,
                line=tb["line"],
                # The line as printed (its header, or its first frame); the message says what is missing.
                text=tb.get("text") or "",
                severity=record_severity("exception", {}),
                message="traceback cut off before the exception line",
                rank=int(rank_text) if rank_text != "None" else None,
                host=None if host == "None" else host,
                pid=int(pid) if pid != "None" else None,
                data={"exc_type": None, "exc_short": None, "exc_message": "", "frame": tb["frames"][-1],
                      "had_header": True, "cut_off": True},
            )
        )
    return events


READ_ERRORS = (EOFError, zlib.error, tarfile.TarError, zipfile.BadZipFile, gzip.BadGzipFile, OSError, LimitExceeded)

