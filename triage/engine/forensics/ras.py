"""NCCL RAS output (`ncclras`, NCCL >= 2.24; JSON with `-f json` from 2.28.7), read by content.

The text is what src/ras/client_support.cc prints (rasOutAppend format strings):

    NCCL version 2.26.2+cuda12.8 compiled with CUDA 12.8
    Job summary / ===========
    Communicators... (0.00s) / =============
    Group     Comms     Nodes     Ranks     Ranks     Ranks    Status  Errors
        #  in group  per comm  per node  per comm  in group
        0         1         4       7-8        32        32   RUNNING  INCOMPLETE
        ^ printed with "%5d  %8d  %8d  %8s  %8d  %8d  %8s  %6s"
    Errors / ======
    INCOMPLETE
      Missing communicator data from %d job process(es)
      Process %d on node %s managing GPU(s) %s
    DEAD
      %d job process(es is|are) considered dead (unreachable via the RAS network)
      Process %d on node %s managing GPU(s) %s
    #%d-%d (%016lx) INCOMPLETE
      Missing communicator data from %d rank(s)
      Rank %d -- GPU %s managed by process %d on node %s          ("The missing rank: %d" before 2.26)
    #%d-%d (%016lx) ERROR
      Initialization error(s) on %d rank(s) / Asynchronous error(s) on %d rank(s)
      %d ranks reported %s / Rank %d reported %s -- GPU %s managed by process %d on node %s
    Warnings / ========
    TIMEOUT
      Encountered %d communication timeout(s) while gathering communicator data
    #%d-%d (%016lx) MISMATCH
      Communicator ranks have different status | different [<op> ]operation counts
      %d ranks have status %s | %d ranks have launched up to operation %ld | %d ranks have not launched any operations
      Rank %d -- GPU %s managed by process %d on node %s          (a member of the group above)
      Rank %d has launched up to operation %ld -- GPU %s managed by process %d on node %s
      Rank %d has status %s -- ...

Ranks here are communicator ranks; they are global ranks only in a communicator as large as
the job. Successive snapshots of one job are diffed: a rank whose launched-operation count did
not move while others' did, or whose count stayed behind in every snapshot, is stuck.
"""
from __future__ import annotations

import json
import re
from typing import Any

from ..shapes import MAX_NAME, LeftOut, integer, number
from ..text import holds

_VERSION = re.compile(r"^NCCL version (\S+)")
_ROW = re.compile(r"^\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+(?:-\d+)?)\s+(\d+)\s+(\d+)\s+([A-Z]+)\s+([A-Z]+)\s*$")
_COMM = re.compile(r"^#(\d+)-(\d+) \(([0-9a-f]+)\) (INCOMPLETE|ERROR|MISMATCH)\s*$")
_PROCESS = re.compile(r"^\s+Process (\d+) on node (\S+) managing GPUs? (.+?)\s*$")
_RANK_AT = re.compile(r"^\s+Rank (\d+)(?: has launched up to operation (\d+)| has not launched any operations"
                      r"| has status ([A-Z]+)| reported (.+?))? -- (?:GPU (.+?) managed by process (\d+) on node (\S+)"
                      r"|\[process information not found\])\s*$")
_MISSING_OLD = re.compile(r"^\s+The missing rank: (\d+)")
_GROUP_COUNT = re.compile(r"^\s+(\d+) ranks have (?:launched up to operation (\d+)|(not) launched any operations"
                          r"|status ([A-Z]+))")
_DIFFERENT = re.compile(r"^\s+Communicator ranks have different (status|(?:(\w+) )?operation counts)")
_DEAD = re.compile(r"^\s+(\d+) job process(?:es are| is) considered dead")
_TIMEOUTS = re.compile(r"^\s+Encountered (\d+) communication timeout")
_SNAPSHOT = re.compile(r"^# ncclras snapshot at (\S+)")
_LINE_END = re.compile("\r\n|[\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")  # str.splitlines()'s
# Output budgets. A report is a few hundred bytes plus one item per line that names a rank or a
# process; a 16 MB file (the most read) of real output is some 200,000 lines. Successive
# snapshots of one job: one a minute is 1,440 a day.
MAX_LINES = 250_000
MAX_REPORTS = 4096
MAX_COMMS = 65_536  # communicators of one JSON report
MAX_RANKS = 1 << 20  # ranks of one JSON communicator
MAX_OPS = 64  # operation kinds counted per rank (NCCL has a dozen)


def looks_like_ras(head: bytes) -> bool:
    """ncclras text (its job summary and communicator table) or its JSON (-f json)."""
    # Asked of every file's 64 KB head: the words are looked for with the SIMD search.
    if holds(head, b"Job summary\n===") or holds(head, b"Group     Comms     Nodes     Ranks"):
        return True
    return (holds(head, b'"communicators"') and holds(head, b'"nccl_version"')
            and (holds(head, b'"missing_ranks') or holds(head, b'"ras"')))


def _int(digits: str) -> int | None:
    """A number the text printed (`%d`, `%ld`): 64-bit, not a 5,000-digit run."""
    return integer(digits) if len(digits) <= 20 else None  # noqa: PLR2004 - digits of a 64-bit int


def _rank_info(m: re.Match[str]) -> dict[str, Any]:
    return {"rank": _int(m[1]), "gpu": m[5], "pid": _int(m[6]) if m[6] else None, "host": m[7]}


def _lines(text: str) -> Any:
    """text.splitlines(), one line at a time (not a list of all of them first)."""
    pos = 0
    for m in _LINE_END.finditer(text):
        yield text[pos:m.start()]
        pos = m.end()
    if pos < len(text):
        yield text[pos:]


def parse_text(text: str, source: str = "", notes: list[str] | None = None) -> list[dict[str, Any]]:  # noqa: C901 - one branch per section of ncclras's text output
    """Every report in the text (a file may hold several successive snapshots)."""
    reports: list[dict[str, Any]] = []
    report: dict[str, Any] | None = None
    section = ""
    comm: dict[str, Any] | None = None
    count_group: dict[str, Any] | None = None
    pending_time: str | None = None
    for lineno, line in enumerate(_lines(text), 1):
        if lineno > MAX_LINES:
            if notes is not None:
                notes.append(f"{source}: NCCL RAS output: read up to line {MAX_LINES}; the rest left out")
            break
        snap = _SNAPSHOT.match(line)
        if snap:
            pending_time = snap[1]
            continue
        m = _VERSION.match(line)
        if m or report is None and line.startswith(("Job summary", "Communicators")):
            if len(reports) >= MAX_REPORTS:
                if notes is not None:
                    notes.append(f"{source}: NCCL RAS output: read the first {MAX_REPORTS} reports; the rest left out")
                break
            report = {"source": source, "line": lineno, "time": pending_time, "nccl_version": m[1] if m else None,
                      "groups": [], "dead": [], "missing_processes": [], "comms": {}, "timeouts": 0}
            pending_time = None
            reports.append(report)
            section, comm = "", None
            if m:
                continue
        if report is None:
            continue
        stripped = line.strip()
        if stripped in ("Errors", "Warnings", "INCOMPLETE", "DEAD",
                        "TIMEOUT") or stripped.startswith(("Job summary", "Communicators")):
            section, comm, count_group = stripped.split(" ")[0].rstrip("."), None, None
            continue
        row = _ROW.match(line)
        if row and section == "Communicators":
            report["groups"].append({"group": _int(row[1]), "comms": _int(row[2]), "nodes": _int(row[3]),
                                     "ranks_per_node": row[4], "ranks_per_comm": _int(row[5]),
                                     "ranks_in_group": _int(row[6]), "status": row[7], "errors": row[8]})
            continue
        c = _COMM.match(line)
        if c:
            key = f"{c[1]}-{c[2]}"
            comm = report["comms"].setdefault(key, {"id": key, "hash": c[3], "incomplete": None, "missing_ranks": [],
                                                   "errors": [], "mismatch": [], "line": lineno})
            section, count_group = c[4], None
            if c[4] == "MISMATCH":
                comm["mismatch"].append({"what": None, "op": None, "groups": []})
            continue
        p = _PROCESS.match(line)
        if p and comm is None and section in ("INCOMPLETE", "DEAD"):
            item = {"pid": _int(p[1]), "host": p[2], "gpus": p[3], "line": lineno}
            report["dead" if section == "DEAD" else "missing_processes"].append(item)
            continue
        if section == "DEAD" and (d := _DEAD.match(line)):
            report["dead_count"] = _int(d[1])
            continue
        if section == "TIMEOUT" and (t := _TIMEOUTS.match(line)):
            report["timeouts"] = _int(t[1])
            continue
        if comm is None:
            continue
        if section == "INCOMPLETE":
            n = re.match(r"^\s+Missing communicator data from (\d+) rank", line)
            if n:
                comm["incomplete"] = _int(n[1])
            elif r := _RANK_AT.match(line):
                comm["missing_ranks"].append(_rank_info(r))
            elif old := _MISSING_OLD.match(line):
                comm["missing_ranks"].append({"rank": _int(old[1]), "gpu": None, "pid": None, "host": None})
        elif section == "ERROR":
            r = _RANK_AT.match(line)
            if r and r[4]:
                comm["errors"].append(dict(_rank_info(r), error=r[4]))
            elif stripped:
                comm["errors"].append({"text": stripped})
        elif section == "MISMATCH":
            mm = comm["mismatch"][-1]
            diff = _DIFFERENT.match(line)
            if diff:
                if mm["what"] is not None:
                    mm = {"what": None, "op": None, "groups": []}
                    comm["mismatch"].append(mm)
                mm["what"] = "status" if diff[1] == "status" else "operation counts"
                mm["op"] = diff[2]
                count_group = None
                continue
            g = _GROUP_COUNT.match(line)
            if g:
                value: Any = g[4] if g[4] else (0 if g[3] else _int(g[2]))
                count_group = {"count": _int(g[1]), "value": value, "ranks": []}
                mm["groups"].append(count_group)
                continue
            r = _RANK_AT.match(line)
            if r:
                if r[2] is not None or r[3] is not None or "has not launched" in line:
                    value = r[3] if r[3] else _int(r[2]) if r[2] else 0
                    mm["groups"].append({"count": 1, "value": value, "ranks": [_rank_info(r)]})
                    count_group = None
                elif count_group is not None:
                    count_group["ranks"].append(_rank_info(r))
    return reports


def parse_json(doc: Any, source: str = "", notes: list[str] | None = None) -> dict[str, Any] | None:  # noqa: C901 - one pass over the communicators
    """`ncclras -f json`: the same report, from the raw per-rank data. Each field is taken in
    the shape NCCL writes it (src/ras/client_support.cc: numbers, a hostname, a GPU index);
    anything else is left out, with a note."""
    if not isinstance(doc, dict) or not isinstance(doc.get("communicators"), list):
        return None
    left_out = LeftOut()
    ras = doc.get("ras")
    timeouts = integer(ras.get("timeouts_count", 0)) if isinstance(ras, dict) else 0
    report: dict[str, Any] = {"source": source, "line": 1, "time": _scalar(doc.get("timestamp"), "timestamp", left_out),
                              "nccl_version": _scalar(doc.get("nccl_version"), "nccl_version", left_out),
                              "groups": [], "dead": [], "missing_processes": [], "comms": {},
                              "timeouts": timeouts}
    communicators = doc["communicators"]
    if len(communicators) > MAX_COMMS:
        left_out.add(f"communicators past the first {MAX_COMMS}")
    for i, c in enumerate(communicators[:MAX_COMMS]):
        if not isinstance(c, dict):
            continue
        key = _name(c.get("hash", i), "communicator hash", left_out)
        if key is None:
            continue
        ranks = _dicts(c.get("ranks"), "ranks", left_out)
        missing = _dicts(c.get("missing_ranks"), "missing_ranks", left_out)
        people = {id(r): _who(r, left_out) for r in ranks + missing}
        comm: dict[str, Any] = {"id": key, "hash": key, "size": _number(c.get("size"), "size", left_out),
                                "incomplete": len(missing) or None,
                                "missing_ranks": [dict(people[id(r)], dead=_dead(r)) for r in missing],
                                "errors": [{"rank": people[id(r)]["rank"], "error": f"async error {error}"}
                                           for r in ranks if (error := _async_error(r, left_out))],
                                "mismatch": [], "counts": {}, "line": 1}
        counts_of: dict[int, dict[str, int]] = {}
        for r in ranks:
            counts = r.get("collective_counts")
            if not isinstance(counts, dict):
                if counts is not None:
                    left_out.add("collective_counts")
                counts = {}
            if len(counts) > MAX_OPS:
                left_out.add("collective_counts")
                counts = {}
            kept = {k: v for k, v in counts.items()
                    if isinstance(k, str) and len(k) <= MAX_NAME and isinstance(v, int) and integer(v) is not None}
            counts_of[id(r)] = kept
            comm["counts"][str(people[id(r)]["rank"])] = kept
        ops = sorted({op for counts in comm["counts"].values() for op in counts})
        for op in ops:
            by_value: dict[int, list[dict[str, Any]]] = {}
            for r in ranks:
                v = counts_of[id(r)].get(op)
                if v is not None:
                    by_value.setdefault(v, []).append(people[id(r)])
            if len(by_value) > 1:
                comm["mismatch"].append({"what": "operation counts", "op": op,
                                         "groups": [{"count": len(rs), "value": v, "ranks": rs} for v,
                                                    rs in sorted(by_value.items(), reverse=True)]})
        report["comms"][key] = comm
        report["dead"] += [{"pid": people[id(r)]["pid"], "host": people[id(r)]["host"],
                            "gpus": people[id(r)]["gpu"], "line": 1} for r in missing if _dead(r)]
    note = left_out.note(source, "NCCL RAS output")
    if note is not None and notes is not None:
        notes.append(note)
    return report


def _name(value: Any, what: str, left_out: LeftOut) -> str | None:
    """A short text as NCCL prints it (a number shown as text, as the text output has it)."""
    if isinstance(value, str) and len(value) <= MAX_NAME:
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool) and (
            isinstance(value, float) or integer(value) is not None):
        return str(value)
    if value is not None:
        left_out.add(what)
    return None


def _scalar(value: Any, what: str, left_out: LeftOut) -> str | int | float | None:
    """A short text or a number, as it is."""
    out = number(value) if isinstance(value, (int, float)) else _name(value, what, left_out)
    if out is None and value is not None and isinstance(value, (int, float)):
        left_out.add(what)
    return out


def _number(value: Any, what: str, left_out: LeftOut) -> int | None:
    out = integer(value) if not isinstance(value, str) else None
    if out is None and value is not None:
        left_out.add(what)
    return out


def _dicts(value: Any, what: str, left_out: LeftOut) -> list[dict[str, Any]]:
    if not isinstance(value, list):
        if value is not None:
            left_out.add(what)
        return []
    if len(value) > MAX_RANKS:
        left_out.add(f"{what} past the first {MAX_RANKS}")
    return [r for r in value[:MAX_RANKS] if isinstance(r, dict)]


def _who(r: dict[str, Any], left_out: LeftOut) -> dict[str, Any]:
    gpu = r.get("cuda_dev")
    return {"rank": _number(r.get("rank"), "rank", left_out),
            "gpu": str(gpu) if gpu is None else _name(gpu, "cuda_dev", left_out),
            "pid": _number(r.get("pid"), "pid", left_out), "host": _name(r.get("host"), "host", left_out)}


def _status(r: dict[str, Any]) -> dict[str, Any]:
    status = r.get("status")
    return status if isinstance(status, dict) else {}


def _dead(r: dict[str, Any]) -> bool:
    return bool(_status(r).get("considered_dead"))


def _async_error(r: dict[str, Any], left_out: LeftOut) -> str | None:
    error = _status(r).get("async_error")
    return _name(error, "async_error", left_out) if error else None


def behind(report: dict[str, Any]) -> list[dict[str, Any]]:
    """Per communicator with an operation-count mismatch: the ranks at the lowest count."""
    out = []
    for comm in report["comms"].values():
        for mm in comm["mismatch"]:
            if mm["what"] != "operation counts":
                continue
            groups = [g for g in mm["groups"] if isinstance(g["value"], int)]
            if len(groups) < 2:  # noqa: PLR2004 - one group: all ranks at the same operation
                continue
            low = min(g["value"] for g in groups)
            high = max(g["value"] for g in groups)
            lagging = [r for g in groups if g["value"] == low for r in g["ranks"]]
            n_low = sum(g["count"] for g in groups if g["value"] == low)
            out.append({"comm": comm["id"], "hash": comm["hash"], "op": mm["op"], "low": low, "high": high,
                        "ranks": lagging, "count": n_low, "total": sum(g["count"] for g in groups)})
    return out


def diff(reports: list[dict[str, Any]]) -> dict[str, Any]:
    """Successive snapshots of one job: per communicator, whether the operation counts moved."""
    progress: dict[str, Any] = {}
    for report in reports:
        for lag in behind(report):
            key = f"{lag['hash']}:{lag['op']}"
            seen = progress.setdefault(key, {"comm": lag["comm"], "hash": lag["hash"], "op": lag["op"], "lows": [],
                                             "highs": [],
                                             "ranks": lag["ranks"], "count": lag["count"], "total": lag["total"]})
            seen["lows"].append(lag["low"])
            seen["highs"].append(lag["high"])
            seen["ranks"] = lag["ranks"] or seen["ranks"]
    for item in progress.values():
        lows = item["lows"]
        item["snapshots"] = len(lows)
        item["stuck"] = len(lows) > 1 and lows[-1] == lows[0]
        item["others_moved"] = len(lows) > 1 and item["highs"][-1] > item["highs"][0]
    return {"snapshots": len(reports), "lagging": list(progress.values())}


def read_ras(name: str, data: bytes, notes: list[str] | None = None) -> list[dict[str, Any]]:
    """The RAS reports in one file (text, or the JSON of `-f json`); what was left out is said
    in `notes`."""
    text = data.decode("utf-8", "replace")
    if text.lstrip().startswith("{"):
        try:
            doc = json.loads(text)
        except (ValueError, RecursionError):
            doc = None
        report = parse_json(doc, name, notes)
        return [report] if report else []
    return parse_text(text, name, notes)
