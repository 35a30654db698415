"""Flight-recorder dumps matched across ranks: per process group, entries aligned by collective
sequence id; the wavefront (the last collective every rank completed, the first some did not);
missing ranks, op / size / dtype mismatches, states, the lagging rank; and one verdict naming
the culprit with its evidence.

Like torch's analyzer (torch/distributed/flight_recorder/components/builder.py) the unit is
(process group, collective_seq_id); unlike it, a rank is "done" with a collective when the
recorder says completed, or retired it (gloo never sets `completed`), or its `pg_status` says
so; a group missing from `pg_config` (gloo's default group is filed under "") falls back to
the ranks that dumped it; and the verdict is one sentence with the ranks named.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from ..model import from_epoch

STATE_ORDER = {"": 0, "scheduled": 1, "started": 2, "completed": 3}


LABEL_MAX_RANKS = 8  # more ranks than this are shortened to the first SHOWN_RANKS and a count
SHOWN_RANKS = 6
MAX_MISMATCHES = 8  # mismatching sequence numbers reported per group
NS_PER_S = 1_000_000_000

@dataclass
class RankView:
    rank: int
    source: str
    by_seq: dict[int, dict[str, Any]]
    last_enqueued: int
    last_completed: int
    window_start: int | None
    last: dict[str, Any] | None


@dataclass
class Culprit:
    kind: str  # missing | op_mismatch | size_mismatch | dtype_mismatch | lagging | no_dump
    pg: str
    seq: int
    ranks: list[int]
    waiting: list[int]
    text: str
    sources: list[tuple[str, str]] = field(default_factory=list)  # (source, what it shows)
    started_ns: int | None = None


def _label(ranks: list[int]) -> str:
    ranks = sorted(ranks)
    if len(ranks) > LABEL_MAX_RANKS:
        return "ranks " + ", ".join(map(str, ranks[:SHOWN_RANKS])) + f" … ({len(ranks)} ranks)"
    if len(ranks) == 1:
        return f"rank {ranks[0]}"
    return "ranks " + ", ".join(map(str, ranks[:-1])) + f" and {ranks[-1]}"


def _clock(ns: int | None) -> str:
    if not ns:
        return "?"
    return from_epoch(ns / 1e9).strftime("%H:%M:%S")


def _where(entry: dict[str, Any] | None) -> str:
    if not entry or not entry.get("frames"):
        return ""
    f = entry["frames"][0]
    return f"{f['file'].rsplit('/', 1)[-1]}:{f['line']} in {f['name']}"


def _last_words(rank: int, view: RankView) -> str:
    last = view.last or {}
    text = f"rank {rank} last enqueued {last.get('op', 'nothing')} #{view.last_enqueued}"
    if last.get("t_created"):
        text += f" at {_clock(last['t_created'])}"
    if _where(last):
        text += f" from {_where(last)}"
    return text


def _signature(e: dict[str, Any]) -> tuple[str, str, str]:
    return (e["op"], repr((e["in_sizes"], e["out_sizes"])), repr((e["in_dtypes"], e["out_dtypes"])))


def _views(dumps: list[dict[str, Any]], pg: str) -> dict[int, RankView]:
    views: dict[int, RankView] = {}
    for d in dumps:
        group = d["groups"].get(pg)
        rank = d.get("rank")
        if group is None or not isinstance(rank, int):
            continue
        entries = [e for e in group["entries"] if isinstance(e.get("seq"), int)]
        by_seq = {e["seq"]: e for e in entries}
        status = d["pg_status"].get(str(group.get("pg_id"))) or {}
        enq = max([s for s in [status.get("enqueued")] + list(by_seq) if isinstance(s, int)] or [0])
        done = max([s for s in [status.get("completed")] + [s for s, e in by_seq.items() if e["done"]]
                    if isinstance(s, int)] or [0])
        view = RankView(rank=rank, source=d["source"], by_seq=by_seq, last_enqueued=enq, last_completed=max(done, 0),
                        window_start=min(by_seq) if by_seq else None, last=entries[-1] if entries else None)
        old = views.get(rank)
        if old is None or len(old.by_seq) < len(view.by_seq):  # a rank dumped twice: the fuller dump
            views[rank] = view
    return views


def _expected(dumps: list[dict[str, Any]], pg: str, desc: str, ranks: set[int]) -> list[int]:
    for d in dumps:
        cfg = d["pg_config"].get(pg)
        if cfg and cfg["ranks"]:
            return sorted(set(cfg["ranks"]))
    # gloo files its default group under "" in pg_config: the one config of a one-group dump.
    for d in dumps:
        if len(d["pg_config"]) == 1 and len(d["groups"]) == 1:
            only = next(iter(d["pg_config"].values()))
            if only["ranks"] and (desc in ("default_pg", "") or only["desc"] == desc):
                return sorted(set(only["ranks"]))
    return sorted(ranks)


def _mismatch(pg: str, seq: int, present: dict[int, dict[str, Any]]) -> Culprit | None:
    if len(present) < 2:  # noqa: PLR2004 - one rank cannot mismatch
        return None
    for index, kind in ((0, "op_mismatch"), (1, "size_mismatch"), (2, "dtype_mismatch")):
        groups: dict[str, list[int]] = {}
        for rank, e in present.items():
            groups.setdefault(_signature(e)[index], []).append(rank)
        if len(groups) < 2:  # noqa: PLR2004 - all ranks agree
            continue
        ordered = sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))
        majority_key, majority = ordered[0]
        odd = sorted(r for _, rs in ordered[1:] for r in rs)
        if len(ordered[0][1]) == len(ordered[1][1]):
            # No majority: every side is named, none is called the culprit's.
            odd = sorted(present)
            majority = []
        sample = present[majority[0]] if majority else None
        what = {0: "op", 1: "sizes", 2: "dtypes"}[index]

        def show(e: dict[str, Any]) -> str:
            if index == 0:  # noqa: B023 - called within this iteration only
                return str(e["op"])
            if index == 1:  # noqa: B023 - called within this iteration only
                return f"{e['op']} of input {e['in_sizes']} output {e['out_sizes']}"
            return f"{e['op']} of {e['in_dtypes'] or e['out_dtypes']}"

        found = "; ".join(f"{_label(rs)}: {show(present[rs[0]])}" for _, rs in ordered)
        if majority:
            text = (f"{_label(odd)} ran {', '.join(sorted({show(present[r]) for r in odd}))} as collective #{seq} "
                    f"where {_label(majority)} ran {show(sample) if sample else '?'} ({what} mismatch)")
        else:
            text = f"the ranks disagree on collective #{seq} ({what} mismatch): {found}"
        return Culprit(kind=kind, pg=pg, seq=seq, ranks=odd if majority else [], waiting=sorted(majority),
                       text=text, started_ns=min((e.get("t_created") or 0) for e in present.values()) or None)
    return None


def _position(v: RankView, at: dict[str, Any] | None, front: int | None, front_op: str | None) -> dict[str, Any]:
    """Where a rank stands: at the first collective not completed by all (`front`), its entry
    there; a rank that never enqueued it stands at that collective, not enqueued (rank 2 of a
    stall at #6 is at 'all_reduce #6 not enqueued', not at its last #5); with nothing
    incomplete, its last collective and that one's state."""
    if at is not None:
        return {"op": at["op"], "seq": at["seq"], "state": at["state"] or ("done" if at["done"] else "pending")}
    if front is not None and v.last_enqueued < front:
        return {"op": front_op or (v.last or {}).get("op"), "seq": front, "state": "not enqueued"}
    last = v.last
    if last is None:
        return {"op": None, "seq": None, "state": "unknown"}
    # gloo leaves every state 'scheduled' and retires finished work: within last_completed it is done.
    finished = isinstance(last["seq"], int) and last["seq"] <= v.last_completed
    return {"op": last["op"], "seq": last["seq"],
            "state": "completed" if finished else last["state"] or ("done" if last["done"] else "pending")}


def match_group(dumps: list[dict[str, Any]], pg: str) -> dict[str, Any]:
    desc = next((d["groups"][pg]["desc"] for d in dumps if pg in d["groups"]), "")
    views = _views(dumps, pg)
    expected = _expected(dumps, pg, desc, set(views))
    no_dump = [r for r in expected if r not in views]
    out: dict[str, Any] = {"pg": pg, "desc": desc, "ranks": expected, "dumped": sorted(views), "no_dump": no_dump,
                           "last_completed_by_all": None, "first_incomplete": None, "first_mismatch": None,
                           "positions": {}, "mismatches": [], "culprit": None}
    if not views:
        return out
    wave = min(v.last_completed for v in views.values())
    front = wave + 1
    highest = max(v.last_enqueued for v in views.values())
    out["last_completed_by_all"] = wave
    out["first_incomplete"] = front if highest >= front else None
    out["first_mismatch"] = None
    # The first collective some rank never enqueued: a collective cannot succeed without every
    # rank of its group, so the others were stuck in it (gloo retires, and calls completed, a
    # collective that failed on its timeout: "done" does not clear them).
    lowest = min(v.last_enqueued for v in views.values())
    if highest > lowest:
        out["first_incomplete"] = front = min(front, lowest + 1)
    # What the others run at the front: the collective a rank that never enqueued it is missing.
    at_front = Counter(v.by_seq[front]["op"] for v in views.values() if front in v.by_seq).most_common(1)
    for rank, v in sorted(views.items()):
        at = v.by_seq.get(front) if out["first_incomplete"] is not None else None
        stands = at if at is not None else v.last
        out["positions"][str(rank)] = {
            "source": v.source, "last_enqueued": v.last_enqueued, "last_completed": v.last_completed,
            "frames": (stands or {}).get("frames") or [], **_position(v, at, front if out["first_incomplete"] else None,
                                                                    at_front[0][0] if at_front else None),
        }
    # Mismatches at every sequence id the windows share, earliest first.
    culprits: list[Culprit] = []
    seqs = sorted({s for v in views.values() for s in v.by_seq})
    for seq in seqs:
        present = {r: v.by_seq[seq] for r, v in views.items() if seq in v.by_seq}
        found = _mismatch(pg, seq, present)
        if found is not None:
            found.sources = [(views[r].source,
                              f"#{seq} {present[r]['op']} {present[r]['in_sizes']} {present[r]['in_dtypes']}")
                             for r in sorted(present, key=lambda r: (r not in found.ranks, r))][:8]
            out["mismatches"].append({"seq": seq, "kind": found.kind, "ranks": found.ranks, "text": found.text})
            if out["first_mismatch"] is None:
                out["first_mismatch"] = seq
            culprits.append(found)
            if len(out["mismatches"]) >= MAX_MISMATCHES:
                break
    if out["first_incomplete"] is not None:
        present = {r: v.by_seq[front] for r, v in views.items() if front in v.by_seq}
        missing = sorted(r for r, v in views.items() if v.last_enqueued < front)
        waiting = sorted(r for r, e in present.items() if missing or not e["done"])
        created = [e["t_created"] for e in present.values() if e.get("t_created")]
        latest = max((t for v in views.values() for e in v.by_seq.values()
                      for t in (e.get("t_created"), e.get("t_started"), e.get("t_completed")) if t), default=None)
        op = Counter(e["op"] for e in present.values()).most_common(1)[0][0] if present else "?"
        timeout = next((e.get("timeout_ms") for e in present.values() if e.get("timeout_ms")), None)
        waited = ""
        if created and latest and (latest - min(created)) >= NS_PER_S:
            waited = f" for at least {(latest - min(created)) / 1e9:.0f} s"
        since = f" since {_clock(min(created))}" if created else ""
        tmo = f"; their timeout is {timeout // 1000} s" if timeout else ""
        if missing:
            lasts = "; ".join(_last_words(r, views[r]) for r in missing[:4])
            text = (f"{_label(missing)} never enqueued {op} #{front}; {_label(waiting) if waiting else 'no rank'} "
                    f"waited in it{since}{waited}{tmo}" + (f" ({lasts})" if lasts else ""))
            c = Culprit(kind="missing", pg=pg, seq=front, ranks=missing, waiting=waiting, text=text,
                        started_ns=min(created) if created else None)
            c.sources = [(views[r].source,
                          f"rank {r}: last enqueued #{views[r].last_enqueued}, completed #{views[r].last_completed}")
                         for r in missing[:4]] + [
                (views[r].source, f"rank {r}: {present[r]['op']} #{front} {present[r]['state'] or 'pending'}"
                 + (", ended without the missing rank (error or timeout)" if present[r]["done"] else ", not completed")
                 + (f" at {_where(present[r])}" if _where(present[r]) else "")) for r in waiting[:4]]
            culprits.append(c)
        elif present and len({STATE_ORDER.get(e["state"], 0) + (3 if e["done"] else 0) for e in present.values()}) > 1:
            low = min(STATE_ORDER.get(e["state"], 0) + (3 if e["done"] else 0) for e in present.values())
            lag = sorted(r for r, e in present.items()
                         if STATE_ORDER.get(e["state"], 0) + (3 if e["done"] else 0) == low)
            ahead = sorted(set(present) - set(lag))
            text = (f"{_label(lag)} had not started {op} #{front} "
                    f"({', '.join(sorted({present[r]['state'] or 'pending' for r in lag}))}) "
                    f"while {_label(ahead)} were in it or past it{since}{tmo}")
            c = Culprit(kind="lagging", pg=pg, seq=front, ranks=lag, waiting=ahead, text=text,
                        started_ns=min(created) if created else None)
            c.sources = [(views[r].source, f"rank {r}: {op} #{front} {present[r]['state'] or 'pending'}")
                         for r in (lag + ahead)[:8]]
            culprits.append(c)
        elif no_dump and waiting and len(no_dump) <= max(1, len(expected) // 4):
            text = (f"{_label(waiting)} waited in {op} #{front}{since}{tmo}; {_label(no_dump)} left no flight-recorder "
                    "dump (stuck elsewhere, or gone)")
            c = Culprit(kind="no_dump", pg=pg, seq=front, ranks=no_dump, waiting=waiting, text=text,
                        started_ns=min(created) if created else None)
            c.sources = [(views[r].source, f"rank {r}: {op} #{front} not completed") for r in waiting[:6]]
            culprits.append(c)
    # A mismatch at or before the first incomplete collective is the cause of the hang; a
    # missing rank explains it otherwise.
    order = {"op_mismatch": 0, "size_mismatch": 1, "dtype_mismatch": 1, "missing": 2, "lagging": 3, "no_dump": 4}
    named = [c for c in culprits if c.ranks]
    if named:
        best = min(named, key=lambda c: (c.seq > front if c.kind.endswith("mismatch") else False,
                                         c.seq if c.kind.endswith("mismatch") else front, order[c.kind]))
        out["culprit"] = {"kind": best.kind, "seq": best.seq, "ranks": best.ranks, "waiting": best.waiting,
                          "text": best.text, "sources": [list(s) for s in best.sources], "started_ns": best.started_ns}
        for rank, position in out["positions"].items():
            position["culprit"] = int(rank) in best.ranks
    elif culprits:
        c = culprits[0]
        out["culprit"] = {"kind": c.kind, "seq": c.seq, "ranks": [], "waiting": c.waiting, "text": c.text,
                          "sources": [list(s) for s in c.sources], "started_ns": c.started_ns}
    return out


def match(dumps: list[dict[str, Any]]) -> dict[str, Any]:
    """The cross-rank report of the dumps (each a flight_recorder.read_dump summary with its
    rank set): per group, and the culprit of the first group that names one."""
    pgs: list[str] = []
    for d in dumps:
        for pg in d["groups"]:
            if pg not in pgs:
                pgs.append(pg)
    groups = [match_group(dumps, pg) for pg in pgs]
    unranked = [d["source"] for d in dumps if not isinstance(d.get("rank"), int)]
    named = [g for g in groups if g["culprit"] and g["culprit"]["ranks"]]
    # The earliest in time across groups when several name one.
    best = min(named, key=lambda g: g["culprit"]["started_ns"] or 0) if named else None
    return {
        "dumps": [{"source": d["source"], "rank": d.get("rank"), "format": d["format"], "version": d["version"],
                   "backends": d["backends"], "entries": d["entries_total"]} for d in dumps],
        "groups": groups,
        "unranked": unranked,
        "culprit": dict(best["culprit"], pg=best["pg"], desc=best["desc"]) if best else None,
    }
