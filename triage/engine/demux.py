"""Demultiplexing: who wrote this line?

Launchers glue prefixes in front of every line of a combined log (torchrun `[rank3]:`,
`[default3]:`, Slurm `srun -l` `3: `, pdsh `host: `, vLLM `(VllmWorker rank=3 pid=42)`, sglang
`[... TP3]`), and capture layers put theirs (journald, syslog, kubectl, CRI, Docker). The
formats are the identity catalog's `prefix` entries (triage/engine/identity/, each with its
program, source file and samples); `split_prefix` peels them off, in any nesting order, and
returns what they said about the writer plus the body the format parsers read. A file name
says who wrote it only where a program chose it and it says what it is: torchrun's log dir
(`<run>/attempt_N/<local_rank>/stdout.log`). Names people give files (`rank3.log`,
`node-b/`, the upload's archive name) say nothing: the same bundle renamed or repacked must
give the same answer.

NCCL_DEBUG_FILE is not such a layout: the name is the user's pattern (`%h` and `%p` expand
where the user put them, if anywhere), so `nccl_run_2024.log` or a renamed `nccl_zq_2203.log`
would name host "run", pid 2024 or host "zq". Where the name is NCCL's expansion, the file's
own lines say the same: NCCL writes every line of it with its `host:pid:tid [dev]` header
(src/debug.cc), which the NCCL parser reads. So the name is never read; the lines confirm
nothing a line does not already say.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, fields
from typing import Any

from . import identity

# Words that look like a pdsh host but start ordinary log lines.
_NOT_HOSTS = {
    "INFO", "WARNING", "WARN", "ERROR", "DEBUG", "CRITICAL", "FATAL", "NOTE", "Note", "note",
    "Traceback", "Warning", "Error", "Exception", "stdout", "stderr", "kernel", "ldd", "frame",
    "Failures", "Root", "time", "host", "rank", "exitcode", "error_file", "traceback", "what",
    "Hint", "HINT", "Last", "http", "https", "File", "Caused", "During", "Message", "Reason",
}

# torchrun --log-dir (torch.distributed.elastic.multiprocessing): <run>/attempt_<n>/<local_rank>/
# with stdout.log, stderr.log and error.json in it.
_TORCHRUN_DIR = re.compile(r"(?:^|/)attempt_\d+/(?P<lrank>\d{1,5})/(?:stdout\.log|stderr\.log|error\.json)$")


@dataclass
class Origin:
    rank: int | None = None
    local_rank: int | None = None
    host: str | None = None
    pid: int | None = None
    tp_rank: int | None = None
    time_text: str | None = None  # a timestamp carried by the prefix (sglang, GCP)
    task: int | None = None  # Slurm's task id (srun --label): a rank where no launcher names one

    def known(self) -> list[tuple[str, Any]]:
        """The fields this origin knows, for fill(). Read one by one: asking for __dict__ would
        give the origin a dict of its own (64 B each of a fleet's kept file origins)."""
        return [(name, value) for name in _ORIGIN_FIELDS if (value := getattr(self, name)) is not None]

    def fill(self, known: list[tuple[str, Any]]) -> None:
        """Fill what this origin does not know from another's `known()` (once a line: a file
        name's origin is worked out once per source, and is empty for most files)."""
        mine = self.__dict__
        for name, value in known:
            if mine[name] is None:
                mine[name] = value


_ORIGIN_FIELDS = tuple(f.name for f in fields(Origin))


@dataclass(frozen=True)
class _Prefix:
    """One prefix entry of the identity catalog, ready for the line loop."""

    id: str
    regex: re.Pattern[str]
    sets: tuple[tuple[str, str, bool], ...]  # (group, Origin attribute, read as an int)
    unless: tuple[str, ...]  # Origin attributes that, once known, keep this prefix from applying
    check: str | None


# The catalog's fields as Origin keeps them (the others are the catalog's record only: a tid,
# a device and a zone are read from the lines that carry them by the parsers).
_ATTR = {"rank": "rank", "local_rank": "local_rank", "task": "task", "host": "host", "pid": "pid",
         "tp_rank": "tp_rank", "time": "time_text"}
_INT_FIELDS = {"rank", "local_rank", "task", "pid", "tp_rank"}


def _prefix(e: identity.Entry) -> _Prefix:
    return _Prefix(
        id=e.id, regex=e.regex, check=e.check, unless=tuple(_ATTR.get(f, f) for f in e.unless),
        sets=tuple((g, _ATTR[g], g in _INT_FIELDS) for g in e.groups() if g in _ATTR),
    )


def _compile(entries: tuple[identity.Entry, ...]) -> dict[str, tuple[re.Pattern[str], tuple[_Prefix, ...]]]:
    """Per first character: the union of the prefixes that can start with it (one anchored
    pass says whether a line has any: most lines carry none, and a union of only the few that
    can start with its first character is tried the fastest) and those prefixes, in order."""
    by_first: dict[str, list[tuple[identity.Entry, _Prefix]]] = {}
    for e in entries:
        prefix = _prefix(e)
        for ch in e.start_chars():
            by_first.setdefault(ch, []).append((e, prefix))
    out: dict[str, tuple[re.Pattern[str], tuple[_Prefix, ...]]] = {}
    for ch, pairs in by_first.items():
        # Each alternative a named group (its own groups unnamed): the match's lastgroup says
        # the first prefix that holds, so the others before it are not tried one by one.
        union = re.compile("|".join(f"(?P<a{i}>" + re.sub(r"\(\?P<\w+>", "(?:", e.pattern) + ")"
                                    for i, (e, _p) in enumerate(pairs)))
        out[ch] = (union, tuple(p for _e, p in pairs))
    return out


_BY_FIRST = _compile(identity.prefixes())
_ALTERNATIVE = {f"a{i}": i for i in range(len(identity.prefixes()))}  # a union's group -> its prefix's index
MAX_PREFIXES = 6  # nested prefixes peeled off one line at most


def _looks_like_host(token: str) -> bool:
    if token in _NOT_HOSTS or token.endswith(("Error", "Exception", "Warning", "Interrupt")):
        return False
    if "." in token and not token.replace(".", "").isdigit() and token.split(".")[-1] in ("py", "cc", "cpp", "c", "h"):
        return False
    # Real pdsh targets are host names with a digit or a dash, or dotted IPs.
    return any(ch.isdigit() for ch in token) or "-" in token


def split_prefix(line: str) -> tuple[Origin, str]:
    """Peel launcher prefixes off a line; returns (who wrote it, the remaining body)."""
    first = _BY_FIRST.get(line[:1])
    held = first[0].match(line) if first is not None else None
    if held is None:
        return Origin(), line
    return _peel(line, held)


def _peel(line: str, held: re.Match[str] | None) -> tuple[Origin, str]:
    """The catalog's prefixes, outermost first: each field the first (outermost) prefix that
    names it says, but a Slurm task is a rank only where no launcher inside it names one.
    `held`: the union's match on the line (its lastgroup the first prefix that holds)."""
    origin = Origin()
    known = origin.__dict__
    body = line
    for _ in range(MAX_PREFIXES):
        first = _BY_FIRST.get(body[:1])
        if first is None:
            break
        if held is None:
            held = first[0].match(body)
            if held is None:
                break  # no prefix holds: the body after the last one, mostly
        start, held = _ALTERNATIVE[held.lastgroup or ""], None
        for prefix in first[1][start:]:
            m = prefix.regex.match(body)
            if m is None:
                continue
            if prefix.unless and _known_any(known, prefix.unless):
                continue
            rest = _read(prefix, m, body, origin, known)
            if rest is None:
                continue
            body = rest
            break
        else:
            break
    if origin.task is not None and origin.rank is None and origin.local_rank is None:
        origin.rank = origin.task
    return origin, body


def _known_any(known: dict[str, Any], attrs: tuple[str, ...]) -> bool:
    for attr in attrs:  # noqa: SIM110 - a plain loop: any() over a generator costs twice as much
        if known[attr] is not None:
            return True
    return False


def peel_one(entry: identity.Entry, line: str) -> tuple[Origin, str] | None:
    """What one prefix entry alone reads of a line (its checks included), None where it does
    not hold: the catalog's tests read samples and not-samples entry by entry with it."""
    m = entry.regex.match(line)
    if m is None:
        return None
    origin = Origin()
    rest = _read(_prefix(entry), m, line, origin, origin.__dict__)
    return None if rest is None else (origin, rest)


def _read(prefix: _Prefix, m: re.Match[str], body: str, origin: Origin, known: dict[str, Any]) -> str | None:
    """What is left of `body` once `prefix` (matched as `m`) is peeled, its fields set where the
    origin does not know them yet; None where its check refuses the match."""
    rest = body[m.end():]
    if prefix.check is not None:
        checked = _check(prefix.check, m, body, rest, origin)
        if checked is None:
            return None
        rest = checked
    for group, attr, as_int in prefix.sets:
        value = m[group]
        if value is not None and known[attr] is None:
            known[attr] = int(value) if as_int else value
    return rest


def _check(check: str, m: re.Match[str], body: str, rest: str, origin: Origin) -> str | None:
    """What a regex cannot say of a prefix (identity.CHECKS): the rest of the line where the
    prefix holds, None where it does not."""
    if check == "host":
        return rest if _looks_like_host(m["host"]) else None
    if check == "not_nccl_prefix":
        # 'host:pid:tid [d] NCCL ...' must stay whole for the NCCL parser.
        return rest if _looks_like_host(m["host"]) and not _is_nccl_prefix(body) else None
    if check == "vllm_process":
        who = m["x_who"]
        return rest if "Worker" in who or who.startswith("EngineCore") else None
    if check == "sglang_tp":
        if m["dp_rank"] is None and m["pp_rank"] is None and origin.rank is None:
            origin.rank = int(m["tp_rank"])  # pure tensor parallelism: the TP rank is the global rank
        return rest
    if check == "ompi_xml":
        # The end tag of the same stream closes the record (iof_base_output.c's endtag).
        end = f"</{m['x_stream']}>"
        return rest[: -len(end)] if rest.endswith(end) else rest
    if check == "hydra_rank":
        # '[dev] ' with NCCL's host:pid:tid cut off is NCCL's device; a launcher's rank prefix
        # inside means the number is no Hydra rank (Hydra starts the MPI processes themselves).
        return None if _NCCL_LINE.match(_CUT_HOST + body) or _TORCHRUN_RANK.match(rest) else rest
    if check == "docker_json":
        record = _docker_record(body)
        if record is None:
            return None
        origin.time_text = origin.time_text or record[1]
        return record[0]
    raise ValueError(f"unknown identity check {check!r}")


def _docker_record(line: str) -> tuple[str, str | None] | None:
    """The text and time of a Docker json-file record, or None when the line is not one."""
    try:
        record = json.loads(line)
    except ValueError:
        return None
    if not isinstance(record, dict) or not isinstance(record.get("log"), str):
        return None
    when = record.get("time")
    return record["log"].rstrip("\r\n"), when if isinstance(when, str) else None


_NCCL_PREFIX_COLONS = 2  # host:pid:tid
# NCCL's debug line (the catalog's nccl.debug_prefix): an excerpt that lost its host:pid:tid
# still reads as one once a host:pid:tid is put back in front of its '[dev] '.
_NCCL_LINE = identity.pattern("nccl.debug_prefix")
_CUT_HOST = "h:0:0 "
_TORCHRUN_RANK = identity.pattern("torchrun.rank_prefix")


def _is_nccl_prefix(body: str) -> bool:
    # 'host:pid:tid [d] NCCL ...' must stay whole for the NCCL parser.
    head = body.split(" ", 1)[0]
    return head.count(":") >= _NCCL_PREFIX_COLONS


def origin_from_name(name: str) -> Origin:
    """What a program-written file name says about its writer: torchrun's log dir
    (attempt_0/3/stderr.log: local rank 3). Any other name says nothing, NCCL_DEBUG_FILE's
    included (see the module docstring)."""
    origin = Origin()
    m = _TORCHRUN_DIR.search(name)
    if m:
        origin.local_rank = int(m["lrank"])
    return origin
