"""Demultiplexing: who wrote this line?

Launchers glue prefixes in front of every line of a combined log (torchrun `[rank3]:`,
`[default3]:`, Slurm `srun -l` `3: `, pdsh `host: `, vLLM `(VllmWorker rank=3 pid=42)`, sglang
`[... TP3]`). `split_prefix` peels them off, in any nesting order, and returns what they said
about the writer plus the body the format parsers read. A file name says who wrote it only
where a program chose it and it says what it is: torchrun's log dir
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

_TORCHRUN = re.compile(r"^\[(?:rank(?P<rank>\d+)|(?P<role>[A-Za-z_]+)(?P<lrank>\d+))\]:\s?")
# Open MPI's --tag-output ('[jobid,rank]<stdout>:'), which horovodrun turns on, and Horovod's
# Gloo launcher ('[rank]<stderr>:'): the rank is MPI_COMM_WORLD's, the job's global rank.
_MPI_TAG = re.compile(r"^\[(?:\d+,)?(?P<rank>\d+)\]<(?:stdout|stderr|stddiag)>:\s?")
# Open MPI's own messages (opal/util/stacktrace.c HOSTFORMAT "[%s:%05d] ", orte/prrte show_help):
# '[host:pid] ' names the process that wrote the line.
_OMPI_PROC = re.compile(r"^\[(?P<host>[A-Za-z0-9][\w.-]*):(?P<pid>\d{1,8})\] ")
# UCX's fatal-signal handler: '[host:pid:thread_index:tid]', the pid padded ('[h:5283 :0:5704]').
_UCX_PROC = re.compile(r"^\[(?P<host>[A-Za-z0-9][\w.-]*):(?P<pid>\d{1,8}) *:\d+:\d+\] ")
_SLURM = re.compile(r"^\s{0,4}(?P<task>\d{1,5}): ")
_VLLM = re.compile(
    r"^\((?P<who>[A-Za-z_]+)(?: rank=(?P<rank>\d+))?(?: pid=(?P<pid>\d+))?(?:, ip=(?P<ip>[\d.]+))?\) "
)
_SGLANG = re.compile(r"^\[(?P<ts>20\d\d-\d\d-\d\d \d\d:\d\d:\d\d)(?: DP(?P<dp>\d+))?(?: PP(?P<pp>\d+))? TP"
                     r"(?P<tp>\d+)\] ")
_PDSH_OWN = re.compile(r"^pdsh@(?P<launcher>[\w.-]+): (?P<host>[\w.-]+): ")
_PDSH = re.compile(r"^(?P<host>(?:\d{1,3}\.){3}\d{1,3}|[A-Za-z0-9][\w-]*(?:\.[\w-]+)*): ")
# Words that look like a pdsh host but start ordinary log lines.
_NOT_HOSTS = {
    "INFO", "WARNING", "WARN", "ERROR", "DEBUG", "CRITICAL", "FATAL", "NOTE", "Note", "note",
    "Traceback", "Warning", "Error", "Exception", "stdout", "stderr", "kernel", "ldd", "frame",
    "Failures", "Root", "time", "host", "rank", "exitcode", "error_file", "traceback", "what",
    "Hint", "HINT", "Last", "http", "https", "File", "Caused", "During", "Message", "Reason",
}
_GCP = re.compile(r"^(?:INFO|WARNING|ERROR|DEFAULT|DEBUG|CRITICAL) (?P<ts>20\d\d-\d\d-\d\dT[\d:.]+Z) ")
_BUILDKITE = re.compile(r"^\s*\|\s{1,2}")
# A CI runner's or log shipper's own timestamp in front of the line (GitHub Actions, GitLab,
# Loki/kubectl --timestamps): ISO 8601 with a 'T', then a space.
# One space separates it from the line, which keeps its own indentation (a traceback frame, a
# launcher table's '  rank : 3' field).
_CI_TIME = re.compile(r"^(?P<ts>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?) ")
# Kubernetes' CRI container log (kubelet, /var/log/containers/*.log): time, stream, then 'F'
# for a full line or 'P' for a partial one.
_CRI = re.compile(r"^(?P<ts>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d)) (?:stdout|stderr) [FP] ")
# journalctl's default (short) output: syslog time, host, the unit's process and its pid. That
# pid is the process that opened the stream, not necessarily the line's writer; the host is.
_JOURNALD = re.compile(
    r"^(?P<ts>[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d) (?P<host>[A-Za-z0-9][\w.-]*) [^\s:\[\]]+(?:\[\d+\])?: "
)
# A log viewer's or a paste site's line numbers: '  123 | text'.
_LINE_NUMBER = re.compile(r"^\s*\d{1,8} \| ")
# Docker's json-file log driver: one JSON object a line, the text in "log".
_DOCKER_JSON = re.compile(r'^\{\s*"log"\s*:')

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


# Any of the prefixes split_prefix peels, in one anchored pass: most lines carry none, and
# trying the patterns one by one cost a dozen regex calls a line before giving up.
_ANY_PREFIX = re.compile("|".join(
    "(?:" + re.sub(r"\(\?P<\w+>", "(?:", p.pattern) + ")"
    for p in (_TORCHRUN, _MPI_TAG, _OMPI_PROC, _UCX_PROC, _VLLM, _SGLANG, _PDSH_OWN, _DOCKER_JSON, _JOURNALD,
              _LINE_NUMBER, _GCP, _CRI, _CI_TIME, _SLURM, _PDSH)
))


def _looks_like_host(token: str) -> bool:
    if token in _NOT_HOSTS or token.endswith(("Error", "Exception", "Warning", "Interrupt")):
        return False
    if "." in token and not token.replace(".", "").isdigit() and token.split(".")[-1] in ("py", "cc", "cpp", "c", "h"):
        return False
    # Real pdsh targets are host names with a digit or a dash, or dotted IPs.
    return any(ch.isdigit() for ch in token) or "-" in token


def split_prefix(line: str) -> tuple[Origin, str]:
    """Peel launcher prefixes off a line; returns (who wrote it, the remaining body)."""
    if not _ANY_PREFIX.match(line):
        return Origin(), line
    return _peel(line)


def _peel(line: str) -> tuple[Origin, str]:
    origin = Origin()
    body = line
    for _ in range(6):
        # Every prefix is anchored and can start with only a few characters: the first one
        # says which can match at all (most lines start with none of them and try only pdsh).
        first = body[:1]
        bracket = first == "["
        upper = "A" <= first <= "Z"
        digit = first.isdigit()
        space_or_digit = digit or first.isspace()
        m = _TORCHRUN.match(body) if bracket else None
        if m:
            if m["rank"] is not None:
                origin.rank = int(m["rank"]) if origin.rank is None else origin.rank
            elif origin.local_rank is None:
                origin.local_rank = int(m["lrank"])
            body = body[m.end() :]
            continue
        m = _MPI_TAG.match(body) if bracket else None
        if m:
            origin.rank = int(m["rank"]) if origin.rank is None else origin.rank
            body = body[m.end() :]
            continue
        m = (_OMPI_PROC.match(body) or _UCX_PROC.match(body)) if bracket else None
        if m and origin.pid is None and _looks_like_host(m["host"]):
            origin.host = origin.host or m["host"]
            origin.pid = int(m["pid"])
            body = body[m.end() :]
            continue
        m = _VLLM.match(body) if first == "(" else None
        if m and m["who"] and ("Worker" in m["who"] or m["who"] in ("EngineCore", "Worker", "pid")):
            if m["rank"] is not None and origin.rank is None:
                origin.rank = int(m["rank"])
            if m["pid"] is not None and origin.pid is None:
                origin.pid = int(m["pid"])
            body = body[m.end() :]
            continue
        m = _SGLANG.match(body) if bracket else None
        if m:
            origin.tp_rank = int(m["tp"])
            if m["dp"] is None and m["pp"] is None and origin.rank is None:
                # Pure tensor parallelism: the TP rank is the global rank.
                origin.rank = origin.tp_rank
            origin.time_text = m["ts"]
            body = body[m.end() :]
            continue
        m = _PDSH_OWN.match(body) if first == "p" else None
        if m:
            origin.host = origin.host or m["host"]
            body = body[m.end() :]
            continue
        m = _DOCKER_JSON.match(body) if first == "{" else None
        if m:
            record = _docker_record(body)
            if record is not None:
                body, origin.time_text = record[0], origin.time_text or record[1]
                continue
        m = _JOURNALD.match(body) if upper else None
        if m:
            origin.time_text = origin.time_text or m["ts"]
            origin.host = origin.host or m["host"]
            body = body[m.end() :]
            continue
        m = _LINE_NUMBER.match(body) if space_or_digit else None
        if m:
            body = body[m.end() :]
            continue
        m = (_GCP.match(body) if upper else None) or ((_CRI.match(body) or _CI_TIME.match(body)) if digit else None)
        if m:
            origin.time_text = origin.time_text or m["ts"]
            body = body[m.end() :]
            continue
        m = _SLURM.match(body) if space_or_digit else None
        if m and origin.rank is None:
            origin.rank = int(m["task"])
            body = body[m.end() :]
            continue
        m = _PDSH.match(body) if digit or first.isalnum() else None
        if m and origin.host is None and _looks_like_host(m["host"]) and not _is_nccl_prefix(body):
            origin.host = m["host"]
            body = body[m.end() :]
            continue
        break
    return origin, body


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
