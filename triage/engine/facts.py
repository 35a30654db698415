"""From events to facts the rules can ask about: who is who (rank <-> host, pid, GPU), what each
rank did last, versions per host, and the structured documents of the bundle."""
from __future__ import annotations

import contextlib
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from .demux import Origin
from .model import Event, Evidence, RankInfo, from_epoch, shared_data
from .parsers.kernel import bus_key
from .processes import (
    LAUNCHER_REPORT,
    LAUNCHER_TABLE,
    LOG,
    MANIFEST,
    NCCL,
    NCCL_INIT,
    NCCL_LOCAL,
    NCCL_TESTS,
    Process,
    Processes,
    nvml_uuids,
)
from .reader import Collected, SourceInfo, read_recorded
from .signatures import BY_ID
from .signatures.readings import cuda_class, fault_class, record_view
from .signatures.records import severity as record_severity
from .structured import StructuredDocs, elastic_error_summary, fr_summary
from .timeparse import YEAR_UNKNOWN

LOCAL_NAMES = {"localhost", "localhost.localdomain", "127.0.0.1", "::1"}


def short_host(host: str | None) -> str | None:
    # NCCL prints gethostname() cut at the first '.'; elastic prints the FQDN. Join on the short name.
    if not host:
        return host
    if host.replace(".", "").isdigit():
        return host
    return host.split(".", 1)[0]


@dataclass
class Facts:
    events: list[Event]
    sources: list[SourceInfo]
    docs: StructuredDocs
    problems: list[str]
    ranks: dict[int, RankInfo] = field(default_factory=dict)
    by_kind: dict[str, list[Event]] = field(default_factory=lambda: defaultdict(list))
    world_size: int | None = None
    versions: dict[str, dict[str, str]] = field(default_factory=dict)
    host_pid_rank: dict[tuple[str, int], int] = field(default_factory=dict)
    bus_of_rank: dict[int, str] = field(default_factory=dict)  # rank -> bus key 'bb:dd'
    has_nccl: bool = False
    # source -> line -> what the catalog says that line means (a "signature" event); by source
    # first: a small dict a rank file, not a (source, line) tuple for each of its lines.
    meaning: dict[str, dict[int, Event]] = field(default_factory=dict)
    # Kernel logs that name no host in a bundle of several hosts: source -> the candidates.
    host_unknown: dict[str, list[str]] = field(default_factory=dict)
    host_candidates: list[str] = field(default_factory=list)
    # What the diagnosis must say of the bundle's clocks (facts._resolve_zones).
    time_notes: list[str] = field(default_factory=list)
    # (host, local rank) -> global rank, from the launcher's failure table or NCCL's cudaDev.
    local_ranks: dict[tuple[str, int], int] = field(default_factory=dict)
    local_offsets: dict[str, set[int]] = field(default_factory=dict)
    # rank -> its identity record (processes.py), made once by _rank_table.
    processes: Processes = field(default_factory=Processes)
    # kind -> (its number of events, them sorted): see kind().
    _sorted: dict[str, tuple[int, list[Event]]] = field(default_factory=dict, repr=False, compare=False)
    _sorted_many: dict[tuple[str, ...], tuple[tuple[int, ...], list[Event]]] = field(
        default_factory=dict, repr=False, compare=False)
    # all_last_words() once the facts are built (build_facts sets `built`): the rules ask for
    # it again and again, and it is a pass over every source (16,384 in a fleet bundle).
    built: bool = field(default=False, repr=False, compare=False)
    _words: dict[int, tuple[Evidence, datetime | None]] | None = field(default=None, repr=False, compare=False)
    # release_indexes() was called: what it let go must not be asked for again.
    released: bool = field(default=False, repr=False, compare=False)

    def release_indexes(self) -> None:
        """Once the verdict is made (pipeline._conclude), let go of what only the rules and the
        verdict read, before the timeline is drawn: the diagnosis peaks there, with every event
        and every rank's row alive at once, and these are some 1 KB a rank of a fleet (each
        source's meanings, the events by kind and sorted, the last words, the process and bus
        tables). kind(), meaning_of() and all_last_words() refuse to answer after it."""
        self.released = True
        self.by_kind = defaultdict(list)
        self._sorted = {}
        self._sorted_many = {}
        self.meaning = {}
        self._words = None
        self.host_pid_rank = {}
        self.bus_of_rank = {}

    def _check_kept(self) -> None:
        if self.released:
            raise RuntimeError("facts: the rules' indexes were released (release_indexes)")

    def global_rank(self, host: str | None, local_rank: int) -> int | None:
        if host is None:
            return None
        if (host, local_rank) in self.local_ranks:
            return self.local_ranks[(host, local_rank)]
        offsets = self.local_offsets.get(host) or set()
        return local_rank + next(iter(offsets)) if len(offsets) == 1 else None

    def last_words(self, rank: int) -> tuple[Evidence, datetime | None] | None:
        """The last line rank `rank` printed itself, and the time of its last timed line: from
        its own files and from its prefixed lines in combined logs (never the launcher's
        report about it)."""
        return self.all_last_words().get(rank)

    def all_last_words(self) -> dict[int, tuple[Evidence, datetime | None]]:
        """`last_words` of every rank, in one pass over the sources."""
        if self._words is not None:
            return self._words
        self._check_kept()
        best: dict[int, tuple[tuple[Any, ...], Evidence, datetime | None]] = {}
        for src in self.sources:
            own = src.file_origin.rank
            found: list[tuple[int, int, str, datetime | None]] = []
            if own is not None and src.last_line is not None:
                found.append((own, src.last_line[0], src.last_line[1], src.last_time))
            for writer, (line, text, when) in src.last_by_writer.items():
                kind, _, num = writer.partition(":")
                who = int(num) if kind == "rank" else self.global_rank(short_host(src.file_origin.host), int(num))
                if who is not None:
                    found.append((who, line, text, when))
            for who, line, text, when in found:
                key = (when is not None, when or datetime.min, own == who)
                if who not in best or key > best[who][0]:
                    best[who] = (key, Evidence(src.name, line, text), when)
        words = {who: (ev, when) for who, (_key, ev, when) in best.items()}
        if self.built:
            self._words = words
        return words

    def meaning_of(self, ev: Event) -> Event | None:
        """The catalog's reading of the line `ev` was read from: `ev` itself where it is the
        catalog's event, else the catalog's event on the same line (None where it reads none)."""
        self._check_kept()
        if ev.kind == "signature":
            return ev
        lines = self.meaning.get(ev.source)
        return None if lines is None else lines.get(ev.line)

    def kind(self, *kinds: str) -> list[Event]:
        self._check_kept()
        if len(kinds) == 1:
            # The rules ask for the same kind many times: sorted once (again if events were added).
            events = self.by_kind.get(kinds[0], [])
            cached = self._sorted.get(kinds[0])
            if cached is None or cached[0] != len(events):
                cached = self._sorted[kinds[0]] = (len(events), sorted(events, key=event_sort_key))
            return list(cached[1])
        # Several kinds: the rules ask for the same few sets again and again (each a sort of a
        # fleet's every line of those kinds), sorted once too (again if events were added).
        lengths = tuple(len(self.by_kind.get(k, ())) for k in kinds)
        both = self._sorted_many.get(kinds)
        if both is None or both[0] != lengths:
            out: list[Event] = []
            for k in kinds:
                out.extend(self.by_kind.get(k, []))
            both = self._sorted_many[kinds] = (lengths, sorted(out, key=event_sort_key))
        return list(both[1])

    def rank_label(self, rank: int | None, host: str | None = None) -> str:
        if rank is None:
            return f"a process on {host}" if host else "an unidentified process"
        proc = self.processes.get(rank)
        host = host or (proc.host if proc else None)
        dev = proc.device if proc else None
        where = ", ".join(x for x in (host, f"GPU {dev}" if dev is not None else None) if x)
        return f"rank {rank} ({where})" if where else f"rank {rank}"


def event_sort_key(ev: Event) -> tuple[Any, ...]:
    # Time where known, then reading order: events without a time sort by position only
    # against each other, so a timed event never jumps behind an untimed one by accident.
    t = ev.time or ev.approx_time
    return (t is None, t or datetime.min, ev.order)


def build_facts(collected: Collected, problems: list[str]) -> Facts:
    events = collected.events
    _content_order(collected)
    facts = Facts(events=events, sources=collected.sources, docs=collected.docs, problems=problems)
    _fix_years(collected, facts)
    _read_codes(events)
    _devices_of_their_kind(events)
    _apply_manifests(facts)
    _apply_dir_hosts(facts)
    _normalise_hosts(facts)
    _identify(facts)
    _only_host(facts)
    _add_structured_events(facts)
    _hosts_unknown(facts)
    _resolve_uptimes(facts)
    _resolve_zones(facts)
    for ev in facts.events:
        facts.by_kind[ev.kind].append(ev)
        if ev.kind.startswith("nccl"):
            facts.has_nccl = True
        if ev.kind == "signature":
            facts.meaning.setdefault(ev.source, {})[ev.line] = ev
    _collect_versions(facts)
    _rank_table(facts)
    facts.built = True
    return facts


def _read_codes(events: list[Event]) -> None:
    """What the catalog says the codes and lines the parsers read mean (signatures/readings.py):
    a CUDA error's class (and its cudaError_t name where the entry gives it), an Xid's name and
    class, and the kind the rules read a record as (the allocator's report the catalog reads as
    out of memory is `cuda_oom`). An Xid the catalog has as hardware or the process's own fault
    is an error, else a warning."""
    viewed = [ev for ev in events if ev.kind in VIEWED_KINDS]
    if viewed:
        lines = {(ev.source, ev.line): ev.data for ev in events if ev.kind == "signature"}
        for ev in viewed:
            meaning = lines.get((ev.source, ev.line))
            if meaning is not None:
                ev.kind, extra = record_view(ev.kind, BY_ID.get(str(meaning.get("sig"))))
                if extra:
                    ev.data = {**ev.data, **extra}  # (read data is shared: never in place)
    for ev in events:
        if ev.kind == "cuda_error" and "error_class" not in ev.data:
            name, cls = cuda_class(str(ev.data.get("error") or ""), ev.data.get("cuda_name"))
            ev.data = {**ev.data, "cuda_name": name, "error_class": cls}  # (read data is shared: never in place)
        elif ev.kind == "xid" and "fault_class" not in ev.data:
            xname, cls = fault_class(int(ev.data["xid"]))
            ev.data = {**ev.data, "xid_name": xname, "fault_class": cls}
            ev.severity = "error" if cls in ("hardware", "app") else "warn"


# The parser records the catalog's reading of their line may give another kind (record_view).
VIEWED_KINDS = frozenset({"allocator_report", "kernel_kill", "nvrm_gpu"})


# A CUDA device ordinal counts the GPUs one process sees: a node's worth, never a pid or a tid
# ('GPU 32586 · pid 21613' drew a thread id as a GPU).
MAX_DEVICE_ORDINAL = 255


def _devices_of_their_kind(events: list[Event]) -> None:
    for ev in events:
        if ev.device is not None and not 0 <= ev.device <= MAX_DEVICE_ORDINAL:
            ev.device = None


def _content_order(collected: Collected) -> None:
    """Reading order as the content gives it, never the names: the files are read in the order the
    archive or folder lists them (by name), so renaming them changed which of two lines of one
    instant came first, which evidence a capped list kept and where an untimed line sat on the
    position axis. Sources are ordered by what they hold (kind, size, line count, last line, the
    first line read from it), the name only between files that hold the same; lines keep their
    order within a file."""
    sources = collected.sources
    first: dict[str, str] = {}
    for ev in collected.events:
        first.setdefault(ev.source, ev.text)
    sources.sort(key=lambda s: (s.kind, s.bytes, s.lines, s.last_line[1] if s.last_line else "", first.get(s.name, ""),
                                s.name))
    place = {src.name: i for i, src in enumerate(sources)}
    collected.events.sort(key=lambda e: (place.get(e.source, len(place)), e.line, e.order))
    for i, ev in enumerate(collected.events, 1):
        ev.order = i


def _bundle_year(collected: Collected) -> int | None:
    """The year the bundle itself writes: the most common one of its full dates (log lines),
    its snapshots' `collected_at` and its torchelastic error files' epochs. None when it writes
    none: the machine's calendar is no witness."""
    years = list(collected.years_seen)
    for _name, doc in collected.docs.snapshots:
        taken = doc.get("collected_at")
        if isinstance(taken, str) and taken[:4].isdecimal():
            years.append(int(taken[:4]))
    for _name, doc in collected.docs.elastic_errors:
        when = elastic_error_summary(doc)["time"]
        if when is not None:
            years.append(when.year)
    years = [y for y in years if y != YEAR_UNKNOWN]
    if not years:
        return None
    counts = Counter(years)
    return max(sorted(counts), key=counts.__getitem__)


def _fix_years(collected: Collected, facts: Facts) -> None:
    """glog/vLLM/syslog times have no year: they take the bundle's (_bundle_year); without one
    they stay in YEAR_UNKNOWN and the diagnosis says their time is unknown (model.iso)."""
    year = _bundle_year(collected)
    if year is None:
        return

    def fixed(t: Any) -> Any:
        if isinstance(t, datetime) and t.year == YEAR_UNKNOWN:
            with contextlib.suppress(ValueError):  # 29 February of a year that has none
                return t.replace(year=year)
        return t

    for ev in collected.events:
        ev.approx_time = fixed(ev.approx_time)
        if ev.time is not None and "_yearless" in ev.data:
            ev.data = shared_data({k: v for k, v in ev.data.items() if k != "_yearless"})  # (shared: never in place)
            if ev.time.year != year:  # the bundle's year beats a caller's reference year
                with contextlib.suppress(ValueError):
                    ev.time = ev.time.replace(year=year)
    for src in collected.sources:
        src.first_time, src.last_time = fixed(src.first_time), fixed(src.last_time)
        for said in src.last_by_writer.values():
            said[2] = fixed(said[2])


def _apply_manifests(facts: Facts) -> None:
    by_source: dict[str, dict[str, Any]] = {}
    for name, doc in facts.docs.manifests:
        base = name.rsplit("/", 1)[0] if "/" in name else ""
        host = doc.get("host")
        for entry in doc.get("files") or []:
            if not isinstance(entry, dict) or not entry.get("path"):
                continue
            path = f"{base}/{entry['path']}" if base else str(entry["path"])
            by_source[path] = {"rank": entry.get("rank"), "host": host, "pid": entry.get("pid")}
    if not by_source:
        return
    for ev in facts.events:
        meta = by_source.get(ev.source)
        if not meta:
            continue
        if (ev.rank is None and isinstance(meta["rank"], int)
                and not ev.kind.startswith(("xid", "host_oom", "kernel_kill"))):
            # A rank's own log: every line in it is that rank's, unless a prefix said otherwise.
            ev.rank = meta["rank"]
        if ev.host is None and meta["host"]:
            ev.host = str(meta["host"])
    for src in facts.sources:
        meta = by_source.get(src.name)
        if meta:
            if meta["rank"] is not None and src.file_origin.rank is None:
                src.file_origin.rank = meta["rank"]
            src.file_origin.host = src.file_origin.host or meta["host"]


# Lines that speak of another process than the writer's (the kernel, a launcher's report).
LAUNCHER_KINDS = ("xid", "nvrm_gpu", "host_oom_kill", "kernel_kill", "iommu_fault", "pcie_aer", "elastic_failure",
                  "process_exit")
# Kernel lines that name a GPU by its PCI bus: joined to the rank whose NCCL busId is on it.
BUS_KINDS = ("xid", "nvrm_gpu")


def _apply_dir_hosts(facts: Facts) -> None:
    """Which host wrote a file with no host on its lines (a traceback, a launcher log)? The host
    its own NCCL lines name, else the one NCCL names in the other files of its folder (a
    collector writes one folder per host). A folder's or file's name is never taken for a host:
    the same bundle renamed or packed under another name must say the same. What is still
    unplaced belongs to the bundle's only host, when it has one (see `_only_host`)."""

    named: dict[str, Counter[str]] = defaultdict(Counter)
    procs: dict[str, set[int]] = defaultdict(set)
    for ev in facts.events:
        if ev.kind.startswith("nccl") and ev.host:
            named[ev.source][ev.host] += 1
            if ev.pid is not None:
                procs[ev.source].add(ev.pid)
    by_dir: dict[str, Counter[str]] = defaultdict(Counter)
    for source, counts in named.items():
        by_dir[source.rsplit("/", 1)[0] if "/" in source else ""].update(counts)
    for src in facts.sources:
        if src.file_origin.host is not None:
            continue
        folder = src.name.rsplit("/", 1)[0] if "/" in src.name else ""
        own, siblings = named.get(src.name), by_dir.get(folder)
        if own:
            # One host in the file's NCCL lines: the file is that host's. Several: unknown.
            if len(own) == 1:
                src.file_origin.host = next(iter(own))
                # ... and one process in them: the file is that process's own log.
                if len(procs[src.name]) == 1 and src.file_origin.pid is None:
                    src.file_origin.pid = next(iter(procs[src.name]))
        elif siblings and len(siblings) == 1:
            src.file_origin.host = next(iter(siblings))
    hosts = {s.name: s.file_origin.host for s in facts.sources if s.file_origin.host}
    # 'localhost' (torchelastic's failure block on many machines) names no machine: the file's
    # own host stands for it, else the bundle's only host.
    real = {h for h in hosts.values() if h.lower() not in LOCAL_NAMES} | {
        h for counts in named.values() for h in counts if h.lower() not in LOCAL_NAMES}
    for ev in facts.events:
        if ev.host is not None and ev.host.lower() in LOCAL_NAMES:
            ev.host = hosts.get(ev.source) if hosts.get(ev.source, "").lower() not in LOCAL_NAMES else None
            if ev.host is None and len(real) == 1:
                ev.host = next(iter(real))
    ranks = {s.name: s.file_origin.rank for s in facts.sources if s.file_origin.rank is not None}
    pids = {s.name: s.file_origin.pid for s in facts.sources if s.file_origin.pid is not None}
    for ev in facts.events:
        if ev.host is None and ev.source in hosts:
            ev.host = hosts[ev.source]
        if ev.pid is None and ev.source in pids and ev.host == hosts.get(ev.source) and ev.kind not in LAUNCHER_KINDS:
            ev.pid = pids[ev.source]
        if ev.rank is None and ev.source in ranks and ev.kind not in LAUNCHER_KINDS:
            ev.rank = ranks[ev.source]


def _normalise_hosts(facts: Facts) -> None:
    short: dict[str | None, str | None] = {}  # a bundle names few hosts, on many events
    for ev in facts.events:
        host = ev.host
        if host not in short:
            short[host] = short_host(host)
        ev.host = short[host]


KERNEL_KINDS = ("xid", "nvrm_gpu", "host_oom_kill", "kernel_kill", "iommu_fault", "pcie_aer")


def _only_host(facts: Facts) -> None:
    """Lines no content places on a host (a dmesg capture, a bare traceback) belong to the
    bundle's only host when it has exactly one; with several, a kernel log's host is unknown
    and the candidates are kept for the notes (never the file's or folder's name)."""
    hosts = sorted({ev.host for ev in facts.events if ev.host and ev.host.lower() not in LOCAL_NAMES}
                   | {short_host(str((doc.get("host") or {}).get("hostname"))) or "" for _n, doc in facts.docs.snapshots
                      if (doc.get("host") or {}).get("hostname")} - {""})
    if len(hosts) == 1:
        for ev in facts.events:
            if ev.host is None:
                ev.host = hosts[0]
        for src in facts.sources:
            src.file_origin.host = src.file_origin.host or hosts[0]
        return
    facts.host_candidates = hosts


def _hosts_unknown(facts: Facts) -> None:
    """After every join: kernel lines still on no host, in a bundle of several hosts."""
    if len(facts.host_candidates) > 1:
        for ev in facts.events:
            if ev.host is None and ev.kind in KERNEL_KINDS:
                facts.host_unknown.setdefault(ev.source, facts.host_candidates)


def _identify(facts: Facts) -> None:
    """(host, pid) -> global rank from NCCL init lines (the largest communicator is the world),
    from proxy-service lines (a proxy serves its own process's rank), and from the pid/device
    pattern of the other processes on the same host."""
    # The passes below that look at one kind of event read it from here: one pass over every
    # event instead of one per kind (a bundle of 16,384 ranks holds some 365,000).
    of_kind: dict[str, list[Event]] = defaultdict(list)
    for ev in facts.events:
        of_kind[ev.kind].append(ev)
    best: dict[tuple[str, int], tuple[int, int, int, str]] = {}  # key -> (nranks, rank, dev, bus)
    for ev in of_kind["nccl_init"]:
        if ev.host and ev.pid is not None:
            key = (ev.host, ev.pid)
            cand = (ev.data["nranks"], ev.data["rank"], ev.data["cuda_dev"], ev.data["bus_id"])
            if key not in best or cand[0] > best[key][0]:
                best[key] = cand
    world = max((v[0] for v in best.values()), default=None)
    mapping: dict[tuple[str, int], int] = {}
    device_of: dict[tuple[str, int], int] = {}
    for key, (nranks, rank, dev, bus) in best.items():
        if nranks == world:
            mapping[key] = rank
            device_of[key] = dev
            facts.bus_of_rank[rank] = bus_key(bus)
    for ev in of_kind["nccl_warn"]:
        if not ev.host or ev.pid is None:
            continue
        if ev.data.get("peer_rank") is not None:  # '[Proxy Service N] ... from rank R': its own proxy
            mapping.setdefault((ev.host, ev.pid), ev.data["peer_rank"])
        if ev.data.get("own_rank") is not None:
            mapping.setdefault((ev.host, ev.pid), ev.data["own_rank"])
    _test_failure_pids(facts, of_kind["test_failure"])
    by_device = _from_test_table(facts, of_kind["rank_table"], mapping)
    _infer_from_transport(of_kind["nccl_transport"], mapping)
    _infer_from_devices(facts, mapping)
    facts.world_size = world
    facts.host_pid_rank = mapping
    rank_host: dict[int, str] = {}
    for (host, _pid), rank in mapping.items():
        rank_host.setdefault(rank, host)
    for ev in facts.events:
        if ev.rank is None and ev.host and ev.pid is not None:
            ev.rank = mapping.get((ev.host, ev.pid))
            if ev.rank is None and ev.device is not None and by_device:
                ev.rank = by_device.get((ev.host, ev.pid, ev.device))
        if ev.host is None and ev.rank is not None and ev.rank in rank_host:
            ev.host = rank_host[ev.rank]
    _apply_local_ranks(facts, mapping, of_kind)
    for src in facts.sources:
        o = src.file_origin
        if o.rank is None and o.host and o.pid is not None and (short_host(o.host), o.pid) in mapping:
            o.rank = mapping[(short_host(o.host) or "", o.pid)]
    _apply_child_pids(of_kind, mapping)


def _test_failure_pids(facts: Facts, failures: list[Event]) -> None:
    """An nccl-tests failure line names its host, the trail after it the process's pid
    (parsers/nccltests.py): the line's events, its catalog reading included, are that process's."""
    pids = {(ev.source, ev.line): ev.data["process_pid"] for ev in failures if ev.data.get("process_pid") is not None}
    if not pids:
        return
    for ev in facts.events:
        if ev.pid is None and (ev.source, ev.line) in pids:
            ev.pid = pids[(ev.source, ev.line)]


def _from_test_table(facts: Facts, table: list[Event], mapping: dict[tuple[str, int], int]
                     ) -> dict[tuple[str, int, int], int]:
    """nccl-tests' device table (parsers/nccltests.py) names each rank's host, pid, CUDA device
    and PCI address, as NCCL's init lines do: a process with one rank in it is that rank (where
    no init line said otherwise); the ranks of a process with several GPUs are told apart by the
    device its lines name, returned as (host, pid, device) -> rank."""
    ranks_of: dict[tuple[str, int], set[int]] = defaultdict(set)
    by_device: dict[tuple[str, int, int], int] = {}
    for ev in table:
        d = ev.data
        host = short_host(d["listed_host"]) or d["listed_host"]
        ranks_of[(host, d["listed_pid"])].add(d["listed_rank"])
        by_device[(host, d["listed_pid"], d["listed_device"])] = d["listed_rank"]
        if d.get("listed_bus"):
            facts.bus_of_rank.setdefault(d["listed_rank"], bus_key(d["listed_bus"]))
    for key, ranks in ranks_of.items():
        if len(ranks) == 1:
            mapping.setdefault(key, next(iter(ranks)))
    return by_device


def _apply_child_pids(of_kind: dict[str, list[Event]], mapping: dict[tuple[str, int], int]) -> None:
    """Elastic agent lines name the child pid: that pid's rank is the failed rank."""
    pid_rank: dict[int, int] = {}
    for (_host, known_pid), rank in mapping.items():
        pid_rank[known_pid] = rank if known_pid not in pid_rank else -1
    for kind in ("process_exit", "host_oom_kill", "closing_signal", "signal_received"):
        for ev in of_kind[kind]:
            pid = ev.data.get("child_pid") or ev.data.get("victim_pid")
            if ev.rank is None and pid is not None and pid_rank.get(pid, -1) >= 0:
                ev.rank = pid_rank[pid]


def _apply_local_ranks(facts: Facts, mapping: dict[tuple[str, int], int], of_kind: dict[str, list[Event]]) -> None:
    """`[default3]:` prefixes and elastic lines give a local rank; the ChildFailedError block
    pairs local and global rank per host, and NCCL's cudaDev is the local rank on hosts where
    that holds for every known process."""
    pairs: dict[tuple[str, int], int] = {}
    for ev in of_kind["elastic_failure"]:
        if ev.host and ev.rank is not None and ev.data.get("local_rank") is not None:
            pairs[(ev.host, ev.data["local_rank"])] = ev.rank
    offsets: dict[str, set[int]] = defaultdict(set)
    for ev in of_kind["nccl_init"]:
        if ev.host and ev.pid is not None and (ev.host, ev.pid) in mapping:
            offsets[ev.host].add(mapping[(ev.host, ev.pid)] - ev.data["cuda_dev"])
    facts.local_ranks, facts.local_offsets = pairs, dict(offsets)
    for ev in facts.events:
        lr = ev.data.get("local_rank")
        if ev.rank is not None or lr is None or not ev.host or ev.kind in ("process_exit", "elastic_failure"):
            continue
        if (ev.host, lr) in pairs:
            ev.rank = pairs[(ev.host, lr)]
        elif len(offsets.get(ev.host, ())) == 1:
            ev.rank = lr + next(iter(offsets[ev.host]))


def _infer_from_transport(transports: list[Event], mapping: dict[tuple[str, int], int]) -> None:
    """A process logs the channels it connects: 'a[x] -> b[y]' is its own rank a when sending,
    b when '[receive]'. Used only where no init line names the rank, and only when consistent."""
    seen: dict[tuple[str, int], set[int]] = defaultdict(set)
    for ev in transports:
        if not ev.host or ev.pid is None:
            continue
        own = ev.data["dst"] if ev.data.get("direction") == "receive" else ev.data["src"]
        seen[(ev.host, ev.pid)].add(own)
    taken = {(h, r) for (h, _p), r in mapping.items()}
    for key, ranks in seen.items():
        if key in mapping or len(ranks) != 1:
            continue
        rank = next(iter(ranks))
        if (key[0], rank) not in taken:
            mapping[key] = rank
            taken.add((key[0], rank))


def _infer_from_devices(facts: Facts, mapping: dict[tuple[str, int], int]) -> None:
    """On a host where every known process has rank = device + k, an unknown pid that logged
    with device d is rank d + k (local ranks are laid out on devices in order)."""
    by_host: dict[str, list[tuple[int, int]]] = defaultdict(list)
    dev_of_pid: dict[tuple[str, int], int] = {}
    for ev in facts.events:
        if ev.kind == "nccl_init" and ev.host and ev.pid is not None and (ev.host, ev.pid) in mapping:
            by_host[ev.host].append((mapping[(ev.host, ev.pid)], ev.data["cuda_dev"]))
        if ev.host and ev.pid is not None and ev.device is not None:
            dev_of_pid.setdefault((ev.host, ev.pid), ev.device)
    for key, dev in dev_of_pid.items():
        host, _pid = key
        if key in mapping or host not in by_host:
            continue
        offsets = {rank - d for rank, d in by_host[host]}
        known = {r for r, _ in by_host[host]}
        # Two ranks at least, not two init lines: one rank prints Init START and COMPLETE, and
        # one init line per communicator it joins, and one rank shows no offset.
        if len(offsets) != 1 or len(known) < 2:  # noqa: PLR2004
            continue
        guess = dev + offsets.pop()
        if guess not in known:
            mapping[key] = guess


def _recorded_lines(message: str, callstack: object) -> list[str]:
    """What to read of an error file: the traceback it recorded where that ends with the
    recorded message (traceback.format_exc() names the type in full, the message by its short
    name), else the message alone."""
    said = message.split(":", 1)[-1].strip()
    tail = said.splitlines()[-1].strip() if said else message.strip()
    if isinstance(callstack, str):
        lines = [x for x in callstack.splitlines() if x.strip()]
        if lines and lines[-1].strip().endswith(tail):
            return lines
    return [x for x in message.splitlines() if x.strip()] or [message]


def _add_error_files(facts: Facts) -> None:
    """torchelastic's error files: the exception a worker raised and the traceback it recorded,
    read as the same lines in a log would be. Where a log in the bundle printed the exception
    itself, that line is the finding and the file's reading is kept as meaning only."""
    if not facts.docs.elastic_errors:
        return
    named = {name for name, _ in facts.docs.elastic_errors}
    logged = [ev.text for ev in facts.events if ev.source not in named]
    added: list[Event] = []
    for name, doc in facts.docs.elastic_errors:
        summary = elastic_error_summary(doc)
        rank = next((s.file_origin.rank for s in facts.sources if s.name == name), None)
        msg = summary["message"]
        read = read_recorded(name, _recorded_lines(msg, summary["callstack"]), Origin(rank=rank), summary["time"])
        raised = [ev for ev in read if ev.kind == "exception"]
        if not raised:
            exc_type = msg.split(":", 1)[0] if ":" in msg else None
            raised = [Event(kind="exception", source=name, line=1, text=msg[:500],
                            severity=record_severity("exception", {}), message=msg[:500], rank=rank,
                            time=summary["time"], order=0,
                            data={"exc_type": exc_type, "exc_short": (exc_type or "").rsplit(".", 1)[-1] or None,
                                  "exc_message": msg.split(":", 1)[-1].strip(), "frame": None})]
            read = raised + read
        # The exception's line as a log prints it ('[rank0]: torch.OutOfMemoryError: CUDA out of
        # memory ...' holds 'OutOfMemoryError: CUDA out of memory ...'); a bare type is no line.
        said = str(raised[-1].data.get("exc_message") or "")
        line = f"{raised[-1].data.get('exc_short') or ''}: {said}"
        in_log = bool(said) and any(line in text for text in logged)
        for ev in read:
            ev.data["from_error_file"] = True
            if ev.kind == "exception" or not in_log:
                added.append(ev)
            elif ev.kind == "signature":
                facts.meaning.setdefault(ev.source, {})[ev.line] = ev
    _read_codes(added)
    facts.events.extend(added)


def _add_structured_events(facts: Facts) -> None:
    _add_error_files(facts)
    for name, rank, doc in facts.docs.flight_records:
        summary = fr_summary(doc)
        done = min(summary["last_completed"].values()) if summary["last_completed"] else None
        stuck = summary["stuck"] or {}
        when = from_epoch(summary["last_time_ns"] / 1e9) if summary["last_time_ns"] else None
        ev = Event(
            kind="fr_status",
            source=name,
            line=1,
            text=f"flight recorder: last completed collective {done}, first unfinished {stuck.get('op')} "
                 f"#{stuck.get('seq')}",
            severity="info",
            rank=rank,
            time=None,
            order=0,
            seq=done,
            data={"last_completed": done, "stuck": stuck, "last_time": when},
        )
        facts.events.append(ev)
    for name, doc in facts.docs.snapshots:
        host = short_host((doc.get("host") or {}).get("hostname"))
        for item in doc.get("xid") or []:
            if not isinstance(item, dict) or item.get("xid") is None:
                continue
            xname, cls = fault_class(int(item["xid"]))
            facts.events.append(
                Event(
                    kind="xid",
                    source=name,
                    line=1,
                    text=str(item.get("text") or f"Xid {item['xid']}"),
                    severity="error",
                    host=host,
                    order=0,
                    data={"xid": int(item["xid"]), "xid_name": xname, "fault_class": cls,
                          "bus": bus_key(item["pci"]) if item.get("pci") else None, "xid_pid": None, "process": None,
                          "detail": item.get("text")},
                )
            )
    # Xid lines name a PCI bus: join to the rank whose NCCL busId is on that bus, same host.
    bus_rank: dict[tuple[str | None, str], int] = {}
    for (host, _pid), rank in facts.host_pid_rank.items():
        bus = facts.bus_of_rank.get(rank)
        if bus:
            bus_rank[(host, bus)] = rank
    # What the catalog says about the same kernel line (an NVRM line's signature event) takes the
    # rank and host its PCI id gave.
    said_on: dict[tuple[str, int], Event] | None = None  # (made where a kernel line is joined: rare)
    for ev in facts.events:
        if ev.kind in BUS_KINDS and ev.rank is None and ev.data.get("bus"):
            rank = bus_rank.get((ev.host, ev.data["bus"]))
            if rank is None:
                # No host on the line: the one process in the bundle on that bus, if only one
                # (identical machines put GPUs on the same buses: then it stays unknown).
                matches = [(h, r) for (h, b), r in bus_rank.items() if b == ev.data["bus"]]
                if len(matches) == 1 and ev.host is None:
                    ev.host, rank = matches[0]
            ev.rank = rank
            if said_on is None:
                said_on = {(e.source, e.line): e for e in facts.events if e.kind == "signature"}
            said = said_on.get((ev.source, ev.line))
            if said is not None and said.rank is None and rank is not None:
                said.rank, said.host = rank, said.host or ev.host


def _resolve_uptimes(facts: Facts) -> None:
    """dmesg times are seconds since boot: with the host's boot time from its snapshot (UTC,
    plus the host's UTC offset, since the logs print local time) they become wall times."""
    boots: dict[str, datetime] = {}
    offsets = _host_offsets(facts)
    for _name, doc in facts.docs.snapshots:
        host = doc.get("host") or {}
        name = short_host(host.get("hostname"))
        boot = host.get("boot_time")
        if not name or not isinstance(boot, str):
            continue
        try:
            when = datetime.fromisoformat(boot.replace("Z", "+00:00"))
        except ValueError:
            continue
        if when.tzinfo is not None:
            when = (when + timedelta(seconds=offsets.get(name, 0))).replace(tzinfo=None)
        boots[name] = when
    if not boots:
        return
    for ev in facts.events:
        up = ev.data.get("uptime_s")
        if up is not None and ev.time is None and ev.host in boots:
            ev.time = boots[ev.host] + timedelta(seconds=up)
            ev.data["kernel_clock"] = True


def _host_offsets(facts: Facts) -> dict[str, int]:
    """Each host's UTC offset (seconds east) where its snapshot records it."""
    out: dict[str, int] = {}
    for _name, doc in facts.docs.snapshots:
        host = doc.get("host") or {}
        name = short_host(host.get("hostname"))
        offset = (host.get("timezone") or {}).get("utc_offset_seconds")
        if name and isinstance(offset, int) and not isinstance(offset, bool):
            out[name] = offset
    return out


def _resolve_zones(facts: Facts) -> None:
    """Apply the zones lines state (the reader's `utc_offset_s`, timeparse.stated_offset), as
    timeparse's docstring says: to the host's local wall time where its snapshot gives its UTC
    offset; as instants (UTC) where every timed line states a zone and they state several; as
    printed, with a note, where zoned and zone-less times mix and the offset is unknown."""
    zoned = [ev for ev in facts.events if ev.time is not None and "utc_offset_s" in ev.data]
    if not zoned:
        return
    offsets = _host_offsets(facts)
    mixed = any(ev.time is not None and "utc_offset_s" not in ev.data for ev in facts.events)
    shift: dict[int, int] = {}  # id(event) -> seconds its time moves
    if all(ev.host in offsets for ev in zoned) or mixed:
        for ev in zoned:
            if ev.host is not None and ev.host in offsets:
                shift[id(ev)] = offsets[ev.host] - int(ev.data["utc_offset_s"])
        if len(shift) < len(zoned):
            facts.time_notes.append(
                "Some lines state their time's zone (kubectl, CRI, syslog, journalctl, dmesg iso) and others print "
                "local time with no zone, and no host snapshot gives the hosts' UTC offset: the two are compared as "
                "printed, which may misorder them by the offset. Collect with the collector (its snapshot records "
                "it).")
    elif len({ev.data["utc_offset_s"] for ev in zoned}) > 1:
        shift = {id(ev): -int(ev.data["utc_offset_s"]) for ev in zoned}
    if not shift:
        return
    # A file's own times (its first and last, each writer's last line, the times of its untimed
    # lines' neighbours) move with its events where all its timed events moved alike.
    by_source: dict[str, set[int | None]] = defaultdict(set)
    for ev in facts.events:
        if ev.time is not None:
            by_source[ev.source].add(shift.get(id(ev)))
        if id(ev) in shift and ev.time is not None:
            ev.time += timedelta(seconds=shift[id(ev)])
    uniform = {name: next(iter(moved)) for name, moved in by_source.items() if len(moved) == 1}
    for ev in facts.events:
        moved = uniform.get(ev.source)
        if moved and ev.approx_time is not None:
            ev.approx_time += timedelta(seconds=moved)
    for src in facts.sources:
        moved = uniform.get(src.name)
        if moved:
            step = timedelta(seconds=moved)
            src.first_time = src.first_time + step if src.first_time is not None else None
            src.last_time = src.last_time + step if src.last_time is not None else None
            for said in src.last_by_writer.values():
                if said[2] is not None:
                    said[2] = said[2] + step


def _collect_versions(facts: Facts) -> None:
    versions: dict[str, dict[str, str]] = defaultdict(dict)
    for ev in facts.events:
        host = ev.host or "?"
        if ev.kind == "nccl_version" and ev.data.get("version"):
            versions[host].setdefault("nccl", ev.data["version"])
            if ev.data.get("cuda"):
                versions[host].setdefault("cuda", ev.data["cuda"])
        elif ev.kind == "torch_nccl_error" and ev.data.get("nccl_version"):
            versions[host].setdefault("nccl", _fix_nccl_version(ev.data["nccl_version"]))
        elif ev.kind == "component_version":
            versions[host].setdefault(ev.data["component"], ev.data["version"])
        elif ev.kind == "nccl_driver":
            versions[host].setdefault("cuda_driver_api", str(ev.data["cuda_driver"]))
    for _name, doc in facts.docs.snapshots:
        host = short_host((doc.get("host") or {}).get("hostname")) or "?"
        v = doc.get("versions") or {}
        for key in ("torch", "cuda", "nccl", "python"):
            if v.get(key):
                versions[host][key] = str(v[key])
        nvml = doc.get("nvml") or {}
        if nvml.get("driver_version"):
            versions[host]["driver"] = str(nvml["driver_version"])
        if nvml.get("cuda_driver_version"):
            versions[host]["cuda_driver"] = str(nvml["cuda_driver_version"])
    facts.versions = {h: dict(v) for h, v in versions.items() if v}


def _fix_nccl_version(text: str) -> str:
    # Some torch 1.10 builds printed NCCL 2.10.3 as '21.0.3'.
    parts = text.split(".")
    if len(parts) == 3 and parts[0].isdigit() and int(parts[0]) >= 20 and len(parts[0]) == 2:  # noqa: PLR2004 - "21.0.3"
        return f"{parts[0][0]}.{parts[0][1]}{parts[1]}.{parts[2]}"
    return text


def _prefixed_last_times(facts: Facts, ranks: dict[int, RankInfo]) -> None:
    """A rank's prefixed lines in a file of its own or a combined log (`[rank3]:`, `srun -l`):
    its last timed line counts even when the catalog gave that line no meaning."""
    words_of = facts.all_last_words()
    for r, info in ranks.items():
        words = words_of.get(r)
        when = words[1] if words is not None else None
        # The reader keeps these times as read: a yearless glog time has not had the bundle's
        # year voted onto it (_fix_years works on events), so a time of another year is not used.
        if when is None or (info.last_time is not None and when.year != info.last_time.year):
            continue
        try:
            later = info.last_time is None or when > info.last_time
        except TypeError:  # a zoned time against a local one: not comparable
            later = False
        if later:
            info.last_time = when


def _rank_events(facts: Facts, ranks: dict[int, RankInfo], procs: Processes) -> None:
    """What each rank's events say of it: host, pid, device (into its identity record, where
    nothing before said), sources, first and last times and reading order, its last line, the
    lowest sequence number its watchdog reported."""
    last_event: dict[int, Event] = {}  # rank -> its event last in reading order (its Evidence made once)
    for ev in facts.events:
        if ev.rank is None:
            continue
        info = ranks.get(ev.rank)
        if info is None:
            info = ranks[ev.rank] = RankInfo(rank=ev.rank)
        proc = procs.get(ev.rank)
        if proc is None:
            proc = procs[ev.rank] = Process(rank=ev.rank)
        if proc.host is None and ev.host:
            proc.host, proc.host_from = ev.host, LOG
        if proc.pid is None and ev.pid is not None and ev.kind not in ("process_exit", "elastic_failure"):
            proc.pid, proc.pid_from = ev.pid, LOG
        if proc.device is None and ev.device is not None and ev.kind.startswith("nccl"):
            proc.device, proc.device_from = ev.device, LOG
        if proc.local_rank is None and ev.data and ev.data.get("local_rank") is not None and ev.kind not in (
                "process_exit", "elastic_failure"):  # a `[defaultN]:` prefix on the rank's own line
            proc.local_rank, proc.local_rank_from = ev.data["local_rank"], LOG
        info.sources.add(ev.source)
        if ev.time is not None:
            info.first_time = min(info.first_time, ev.time) if info.first_time else ev.time
            if info.last_time is None or ev.time >= info.last_time:
                info.last_time = ev.time
        if info.first_order is None or ev.order < info.first_order:
            info.first_order = ev.order
        if info.last_order is None or ev.order >= info.last_order:
            info.last_order = ev.order
            last_event[ev.rank] = ev
        if ev.seq is not None and ev.kind in ("watchdog_progress", "fr_status"):
            info.last_seq = ev.seq if info.last_seq is None else min(info.last_seq, ev.seq)
    for r, ev in last_event.items():
        ranks[r].last_line = Evidence(ev.source, ev.line, ev.text)


def _test_table(facts: Facts, ranks: dict[int, RankInfo], procs: Processes) -> None:
    """Every rank nccl-tests' device table lists, with its host, pid, device and PCI address
    (where NCCL's own lines did not say them)."""
    for ev in facts.by_kind.get("rank_table", ()):
        d = ev.data
        rank = d["listed_rank"]
        ranks.setdefault(rank, RankInfo(rank=rank))
        proc = procs.of(rank, NCCL_TESTS)
        proc.offer("host", short_host(d["listed_host"]), NCCL_TESTS)
        proc.offer("pid", d["listed_pid"], NCCL_TESTS)
        proc.offer("device", d["listed_device"], NCCL_TESTS)
        proc.offer("bus_id", d.get("listed_bus"), NCCL_TESTS)


def _launcher_tables(facts: Facts, procs: Processes) -> None:
    """torchrun's failure table pairs each failed rank with its worker's pid and local rank;
    mpirun's and Hydra's exit reports name a rank's pid and node (the catalog's groups)."""
    for ev in facts.by_kind.get("elastic_failure", ()):
        proc = procs.get(ev.rank) if ev.rank is not None else None
        if proc is not None:
            proc.offer("pid", ev.pid, LAUNCHER_TABLE)
            proc.offer("local_rank", ev.data.get("local_rank"), LAUNCHER_TABLE)
    for ev in facts.by_kind.get("signature", ()):
        groups = ev.data.get("groups")
        if not groups or groups.get("pid") is None or groups.get("culprit_rank") is None:
            continue
        said, pid = str(groups["culprit_rank"]), str(groups["pid"])
        proc = procs.get(int(said)) if said.isdecimal() and said.isascii() else None
        if proc is not None and pid.isdecimal() and pid.isascii():
            proc.offer("pid", int(pid), LAUNCHER_REPORT)
            proc.offer("host", short_host(groups.get("host")), LAUNCHER_REPORT)


def _manifest_pids(facts: Facts, procs: Processes) -> None:
    """A collector manifest may name the pid of a rank's log file."""
    for _name, doc in facts.docs.manifests:
        for entry in doc.get("files") or []:
            if isinstance(entry, dict) and isinstance(entry.get("rank"), int) and isinstance(entry.get("pid"), int):
                proc = procs.get(entry["rank"])
                if proc is not None:
                    proc.offer("pid", entry["pid"], MANIFEST)
                    proc.offer("host", short_host(doc.get("host")), MANIFEST)


def _local_ranks(facts: Facts, procs: Processes) -> None:
    """Local ranks where the rank's own lines (_rank_events) and torchrun's failure table
    (_launcher_tables) named none: the table's (host, local rank) pairs, else NCCL's cudaDev
    where it is the local rank for every known process of the host."""
    for (host, lr), rank in facts.local_ranks.items():
        if rank in procs and procs[rank].host == host:
            procs[rank].offer("local_rank", lr, LAUNCHER_TABLE)
    for proc in procs.values():
        offsets = facts.local_offsets.get(proc.host or "") or set()
        if proc.local_rank is None and len(offsets) == 1:
            lr = proc.rank - next(iter(offsets))
            if lr >= 0:
                proc.offer("local_rank", lr, NCCL_LOCAL)


def dump_rank(facts: Facts, name: str, rank: int | None, summary: dict[str, Any]) -> int | None:
    """Whose a flight-recorder dump is: the rank the dump holds, then the collector manifest's,
    then torch's default name (forensics/flight_recorder.py)."""
    if summary.get("rank_from") == "dump":
        return summary.get("rank")
    return next((s.file_origin.rank for s in facts.sources if s.name == name and s.file_origin.rank is not None), rank)


_FR_TIMES = ("t_created", "t_started", "t_completed")


def _dump_times(facts: Facts, ranks: dict[int, RankInfo]) -> None:
    """A rank's time on the timeline includes its flight recorder's: the collectives it
    enqueued and finished (the stall began when the last of them did, long before the exit the
    logs print). Epoch times, read as UTC (model.from_epoch)."""
    for name, rank, summary in facts.docs.flight_records:
        who = dump_rank(facts, name, rank, summary) if isinstance(summary, dict) else None
        if who is None:
            continue
        stamps = [t for g in (summary.get("groups") or {}).values()
                  for t in [*(p[1] for p in g.get("points") or ()), *(p[2] for p in g.get("points") or ()),
                            *(e.get(k) for e in g.get("entries") or () for k in _FR_TIMES)]
                  if isinstance(t, int) and t > 0]
        if not stamps:
            continue
        first, last = from_epoch(min(stamps) / 1e9), from_epoch(max(stamps) / 1e9)
        info = ranks.setdefault(who, RankInfo(rank=who))
        if info.first_time is None or first < info.first_time:
            info.first_time = first
        if info.last_time is None or last > info.last_time:
            info.last_time = last


def _rank_table(facts: Facts) -> None:
    ranks: dict[int, RankInfo] = {}
    procs = Processes()
    for (host, pid), rank in facts.host_pid_rank.items():
        ranks.setdefault(rank, RankInfo(rank=rank))
        proc = procs.of(rank, NCCL)
        proc.offer("host", host, NCCL)
        proc.offer("pid", pid, NCCL)
    for ev in facts.by_kind.get("nccl_init", ()):
        if ev.rank is not None and ev.data["nranks"] == facts.world_size:
            ranks.setdefault(ev.rank, RankInfo(rank=ev.rank))
            proc = procs.of(ev.rank, NCCL_INIT)
            proc.set("device", ev.data["cuda_dev"], NCCL_INIT)
            proc.set("bus_id", ev.data["bus_id"], NCCL_INIT)
    _test_table(facts, ranks, procs)
    _rank_events(facts, ranks, procs)
    _launcher_tables(facts, procs)
    _manifest_pids(facts, procs)
    _local_ranks(facts, procs)
    nvml_uuids(procs, facts.docs.snapshots, bus_key, short_host)
    facts.processes = procs
    for n, row in ranks.items():
        known = procs.get(n)
        if known is not None:
            row.host, row.pid, row.device, row.bus_id = known.host, known.pid, known.device, known.bus_id
    # A rank's own file: its last line and times are the file's.
    for src in facts.sources:
        r = src.file_origin.rank
        if r is None or r not in ranks or src.last_line is None:
            continue
        info = ranks[r]
        info.last_line = Evidence(src.name, src.last_line[0], src.last_line[1])
        if src.last_time and (info.last_time is None or src.last_time > info.last_time):
            info.last_time = src.last_time
        if src.first_time and (info.first_time is None or src.first_time < info.first_time):
            info.first_time = src.first_time
    _prefixed_last_times(facts, ranks)
    _dump_times(facts, ranks)
    facts.ranks = dict(sorted(ranks.items()))
    if facts.world_size is None:
        announced = [e.data.get("world") for e in facts.events if e.kind in ("rank_announce",) and e.data.get("world")]
        fr = [e.data.get("world") for e in facts.events if e.kind == "store_clients_missing"]
        sizes = [s for s in announced + fr if s]
        facts.world_size = max(sizes) if sizes else None
