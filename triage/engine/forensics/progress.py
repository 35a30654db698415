"""Per-rank collective progress for the timeline: from each rank's dump, its collectives of the
group that matters (the culprit's, else the default group) as (time, seq, done) points, with
the wavefront and the mismatched sequence ids marked."""
from __future__ import annotations

from typing import Any

from ..model import from_epoch, iso

MAX_POINTS_PER_RANK = 300


def collective_progress(report: dict[str, Any] | None, dumps: list[dict[str, Any]]) -> dict[str, Any] | None:
    """`report`: forensics.match's; `dumps`: the summaries it matched (rank set)."""
    if not report or not report["groups"]:
        return None
    culprit = report.get("culprit")
    pg = culprit["pg"] if culprit else report["groups"][0]["pg"]
    group = next(g for g in report["groups"] if g["pg"] == pg)
    series = []
    for d in sorted(dumps, key=lambda d: (d.get("rank") is None, d.get("rank"))):
        g = d["groups"].get(pg)
        if g is None or not isinstance(d.get("rank"), int):
            continue
        points: dict[int, list[Any]] = {}
        for seq, created, _completed, done in g["points"]:
            points[seq] = [_time(created), seq, bool(done)]
        for e in g["entries"]:
            if isinstance(e.get("seq"), int):
                points[e["seq"]] = [_time(e.get("t_created")), e["seq"], bool(e["done"]), e["op"], e["state"]]
        kept = [points[s] for s in sorted(points)][-MAX_POINTS_PER_RANK:]
        series.append({"rank": d["rank"], "source": d["source"], "points": kept})
    return {
        "pg": pg, "desc": group["desc"],
        "last_completed_by_all": group["last_completed_by_all"], "first_incomplete": group["first_incomplete"],
        "mismatched": sorted({m["seq"] for m in group["mismatches"]}),
        "culprits": list(culprit["ranks"]) if culprit else [],
        "series": series,
    }


def _time(ns: Any) -> str | None:
    return iso(from_epoch(ns / 1e9)) if isinstance(ns, int) and ns > 0 else None
