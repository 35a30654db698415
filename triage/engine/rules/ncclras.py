"""NCCL RAS (`ncclras`) snapshots: a rank behind in launched operations while the others moved
on (collective_timeout_straggler), and processes RAS declared dead (rank_crash)."""
from __future__ import annotations

from typing import Any

from ..facts import Facts
from ..forensics.ras import diff
from ..model import Evidence, Finding, Support
from ..signatures import fix_text
from .collective_timeout_straggler import FIX

FIX_DEAD = fix_text("ncclras.dead")


def _world_size(reports: list[dict[str, Any]]) -> int | None:
    sizes = [g["ranks_per_comm"] for r in reports for g in r["groups"]]
    sizes += [c.get("size") for r in reports for c in r["comms"].values() if isinstance(c.get("size"), int)]
    return max(sizes) if sizes else None


def _comm_size(report: dict[str, Any], comm_id: str) -> int | None:
    comm = report["comms"].get(comm_id) or {}
    if isinstance(comm.get("size"), int):
        return int(comm["size"])
    group = comm_id.split("-", 1)[0]
    return next((g["ranks_per_comm"] for g in report["groups"] if str(g["group"]) == group), None)


def find(facts: Facts) -> list[Finding]:
    reports = [r for _name, r in facts.docs.ras_reports]
    if not reports:
        return []
    findings: list[Finding] = []
    world = _world_size(reports)
    progress = diff(reports)
    for lag in progress["lagging"]:
        if not lag["ranks"] or lag["count"] * 2 >= lag["total"]:
            continue  # RAS lists a group's members only when it is an outlier
        last = next(r for r in reversed(reports) if lag["comm"] in r["comms"])
        global_ranks = _comm_size(last, lag["comm"]) == world
        ranks = sorted({int(x["rank"]) for x in lag["ranks"] if x.get("rank") is not None}) if global_ranks else []
        where = ", ".join(f"rank {x['rank']} (process {x['pid']} on {x['host']})" for x in lag["ranks"][:4])
        op = f"{lag['op']} " if lag["op"] else ""
        moved = " while the others moved on" if lag["others_moved"] else ""
        if lag["stuck"]:
            detail = (f"In {lag['snapshots']} ncclras snapshots {where} stayed at {op}operation "
                      f"{lag['lows'][-1]}{moved} "
                      f"(the others reached {lag['highs'][-1]}): stuck in or before that collective.")
        else:
            detail = (f"ncclras: {where} had launched {op}operations up to {lag['lows'][-1]} while the other ranks of "
                      f"the "
                      f"communicator reached {lag['highs'][-1]}. One snapshot can catch ranks in flight; repeated ones "
                      f"tell.")
        evidence = [Evidence(name, r["line"], f"#{lag['comm']} ({lag['hash']}) MISMATCH: {op}operation counts "
                             f"{lag['lows'][i] if i < len(lag['lows']) else '?'} vs "
                             f"{lag['highs'][i] if i < len(lag['highs']) else '?'}")
                    for i, (name, r) in enumerate(x for x in facts.docs.ras_reports
                                                  if lag["comm"] in x[1]["comms"])][:6]
        findings.append(Finding(
            cause="collective_timeout_straggler", rule="collective_timeout_straggler.ras_lagging_rank",
            title=f"Straggler (NCCL RAS): {where} behind in communicator {lag['hash']}",
            detail=detail, fix=FIX, ranks=ranks, hosts=sorted({str(x["host"]) for x in lag["ranks"] if x.get("host")}),
            evidence=evidence, role="inferred",
            # Repeated snapshots that show it stuck while the others moved on agree with each other.
            support=frozenset({Support.POINTS, Support.CORROBORATED} if lag["stuck"] and lag["others_moved"]
                              else {Support.POINTS}),
        ))
        break
    dead = {(d["pid"], d["host"]): (name, d) for name, r in facts.docs.ras_reports for d in r["dead"]}
    if dead:
        missing = [(name, m) for name, r in facts.docs.ras_reports for c in r["comms"].values()
                   for m in c["missing_ranks"]
                   if _comm_size(r, c["id"]) == world]
        pids = {pid for pid, _host in dead}
        ranks = sorted({int(m["rank"]) for _n, m in missing if m.get("rank") is not None
                        and (m.get("pid") in pids or m.get("pid") is None)})
        names = ", ".join(f"process {pid} on {host}" for pid, host in list(dead)[:4])
        findings.append(Finding(
            cause="rank_crash", rule="rank_crash.ras_dead_process",
            title=f"NCCL RAS: {names} considered dead",
            detail=f"ncclras reports {names} unreachable over the RAS network for over 60 s (crashed, killed, or its "
                   f"node hung)"
                   + (f"; the job's communicator misses rank {', '.join(map(str, ranks))}." if ranks else "."),
            fix=FIX_DEAD, ranks=ranks, hosts=sorted({str(h) for _p, h in dead}),
            evidence=[Evidence(name, d["line"],
                               f"DEAD: Process {d['pid']} on node {d['host']} managing GPU {d['gpus']}")
                      for name, d in list(dead.values())[:4]],
            role="inferred", support=frozenset({Support.POINTS}),
        ))
    return findings
