"""PyTorch c10d: ProcessGroupNCCL watchdog, NCCL errors surfaced by torch, desync reports,
heartbeat monitor, and the rendezvous / TCPStore errors (docs/log-formats.md §2.2-2.6, §2.9)."""
from __future__ import annotations

import re
from typing import Any

from ..model import Record
from .base import LineCtx, SourceState, searched
from .nccl import warn_event

# What the scan gate (scan.py) must let through for this parser: ProcessGroupNCCL's watchdog,
# work and progress lines, its NCCL error reports and the 'Last error:' that introduces NCCL's
# text, desync and heartbeat reports, and the store's connect attempts and client counts.
GATE_MEANING: tuple[str, ...] = (
    r"[Ww]atchdog",
    r"WorkNCCL",
    r"NCCL [Ee]rror",
    r"NCCL communicator",
    r"[Ll]ast (?:error|completed|enqueued)",
    r"[Tt]imeout at",
    r"clients joined",
    r"lagging",
    r"joined but didn't finish",
    r"[Hh]eartbeat",
    r"[Mm]ismatch between collectives",
    r"dump signal",
    r"remote error",
    r"has (?:failed to connect|timed out)",
    r"retrying \(try=",
    r"will retry",
)

_WORK = re.compile(
    r"WorkNCCL\((?:SeqNum=(?P<seq>\d+), )?OpType=(?P<op>\w+)"
    r"(?:, NumelIn=(?P<nin>\d+)(?:, Nume(?:lOut=(?P<nout>\d+))?)?)?"
    r"(?:, TensorShape=\[[^\]]*\])?(?:, Timeout\(ms\)=(?P<tmo>\d+))?"
)
_RAN_FOR = re.compile(r"ran for (?P<ms>\d+) milliseconds")
_PG = re.compile(r"\[PG (?:ID (?P<pgid>\d+) PG GUID (?P<guid>[^\s(\]]+)|(?P<old>[^\s(\]]+))(?: ?\((?P<desc>[^)]*)\))?"
                 r" Rank (?P<rank>\d+)\]")
_RANK_TAG = re.compile(r"\[Rank (?P<rank>\d+)\]")
_PROGRESS = re.compile(
    r"(?:failure detected by watchdog at work sequence id: (?P<seq1>\d+) PG status: last enqueued work: (?P<enq1>\d+)"
    r", last completed work: (?P<done1>-?\d+)"
    r"|(?:Exception \(either an error or timeout\) detected by watchdog at work|Timeout at NCCL work): (?P<seq2>\d+)"
    r", last enqueued NCCL work: (?P<enq2>-?\d+), last completed NCCL work: (?P<done2>-?\d+)"
    r"|NCCL Work update periodically: last enqueued NCCL work: (?P<enq3>-?\d+), last completed NCCL work: "
    r"(?P<done3>-?\d+))"
)
_NCCL_ERROR = re.compile(
    r"NCCL [Ee]rror(?: in: (?P<where>\S+?))?(?::? (?P<code>\d+))?[,:] (?P<reason>[^,]+?)(?:\s*\(run with[^)]*\))?"
    r"(?:, NCCL version (?P<version>[\w.+]+))?\s*$"
)
# The head of the same report (C10D_NCCL_CHECK's 'NCCL error in: <file>:<line>, ...') cut short.
_REPORT_CUT = re.compile(r"NCCL [Ee]rror in: (?P<where>\S+)\s*$")
_DETAIL = re.compile(r"^\s*(?P<name>nccl(?:UnhandledCudaError|SystemError|InternalError|InvalidArgument|InvalidUsage"
                     r"|RemoteError|Timeout)): ?(?P<text>.*)$")
_TERMINATED = re.compile(r"[Ww]atchdog thread terminated with exception: (?P<what>.*)$")
_ASYNC = re.compile(r"Collective WorkNCCL\(.*?\) raised the following async exception: (?P<what>.*)$")
_REMOTE = re.compile(r"remote error detected from rank: (?P<rank>\d+)")
_DUMP_FROM = re.compile(r"Received a dump signal due to a collective timeout from "
                        r"(?:this local rank|rank (?P<rank>\d+))")
_HEARTBEAT = re.compile(r"watchdog got stuck for (?P<s>\d+) seconds|Heartbeat monitor timed out")
_LAGGING = re.compile(r"ranks \[(?P<ranks>[\d, ]+)\] are the lagging ranks|\[(?P<ranks2>[\d, ]+)"
                      r"\] joined but didn't finish collective #(?P<seq>\d+)")
_MISMATCH = re.compile(r"Detected mismatch between collectives on ranks\. Rank (?P<a>\d+) is running collective: "
                       r"(?P<fa>.*?), but Rank (?P<b>\d+) is running collective: (?P<fb>.*)")
_ABORTED = re.compile(r"NCCL communicator was aborted on rank (?P<rank>\d+)")

# Rendezvous and TCPStore.
_CLIENT_TIMEOUT = re.compile(r"client socket has timed out after (?P<t>\d+)(?P<unit>ms|s|min)"
                             r" while trying to connect to \(?(?P<addr>[^)]+)\)?")
_CLIENT_FAILED = re.compile(r"client socket has failed to connect to (?:any network address of )?\(?\[?"
                            r"(?P<addr>[^)\]]+)\]?\)?.*?(?:\(errno: (?P<errno>\d+) - (?P<err>[^)]+)\))?")
# c10d's glog prefix with level W: '[W socket.cpp:663]', '[W1203 10:00:00.123456 77 torch/csrc/...cpp:663]'.
_GLOG_WARNING = re.compile(r"\[W[\d :.]*\s\S+:\d+\]")
_RETRY_TARGET = re.compile(r"(?:to host|server socket on|No socket on) \(?(?P<addr>[^\s),]+(?:, \d+)?)\)?")
_WAITING_CLIENTS = re.compile(r"Timed out after (?P<s>\d+) seconds waiting for clients\. (?P<joined>\d+)/(?P<world>\d+)"
                              r" clients joined")

def _pg(text: str) -> dict[str, Any]:
    m = _PG.search(text)
    if not m:
        return {}
    return {"pg": m["pgid"] or m["old"], "pg_desc": m["desc"], "pg_rank": int(m["rank"])}


def parse(ctx: LineCtx, state: SourceState) -> list[Record]:
    body = ctx.body
    events: list[Record] = []

    if state.expect_last_error is not None:
        pending = state.expect_last_error
        state.expect_last_error = None
        text = body.strip()
        if text and not text.startswith(("Exception raised", "frame #")):
            pending.data["last_error"] = text
            # The 'Last error:' text is the body of NCCL's last WARN: read it as one (its fields).
            classified = warn_event(ctx, text)
            classified.data["via_last_error"] = True
            events.append(classified)

    if "WorkNCCL" in body and ("timeout" in body or "timed out" in body or "Timeout" in body):
        w = _WORK.search(body)
        if w and ("Watchdog caught" in body or "timed out in blocking wait" in body
                  or "Caught collective operation timeout" in body):
            ran = _RAN_FOR.search(body)
            ev = ctx.record(
                "watchdog_timeout",
                op=w["op"],
                numel_in=int(w["nin"]) if w["nin"] else None,
                numel_out=int(w["nout"]) if w["nout"] else None,
                timeout_ms=int(w["tmo"]) if w["tmo"] else None,
                ran_ms=int(ran["ms"]) if ran else None,
                **_pg(body),
            )
            ev.seq = int(w["seq"]) if w["seq"] else None
            return events + [ev]
    # Each search below is tried only where the line holds what its pattern needs: a torch line
    # that is none of these reports (ProcessGroupNCCL's init options) ran them all, ~7 us a line.
    low = body.lower()
    p = searched(_PROGRESS, body, low)
    if p:
        seq = p["seq1"] or p["seq2"]
        enq = p["enq1"] or p["enq2"] or p["enq3"]
        done = p["done1"] or p["done2"] or p["done3"]
        ev = ctx.record(
            "watchdog_progress",
            failed_seq=int(seq) if seq else None,
            last_enqueued=int(enq) if enq else None,
            last_completed=int(done) if done is not None else None,
            **_pg(body),
        )
        ev.seq = int(done) if done is not None else None
        return events + [ev]
    m = searched(_TERMINATED, body, low)
    if m:
        ev = ctx.record("watchdog_terminated", what=m["what"], **_pg(body))
        return events + [ev] + _cuda_fault(ctx, m["what"])
    m = searched(_ASYNC, body, low)
    if m:
        return events + [ctx.record("nccl_async_error", what=m["what"])] + _cuda_fault(ctx, m["what"])
    if "NCCL error" in body or "NCCL Error" in body:
        m = _NCCL_ERROR.search(body)
        cut = m is None and _REPORT_CUT.search(body) is not None
        if m or cut:
            # c10d's report of an NCCL result; a line wrapped or cut before the reason is still
            # that report (its reason is then unknown).
            ev = ctx.record(
                "torch_nccl_error",
                reason=m["reason"].strip() if m else None,
                nccl_version=m["version"] if m else None,
                where=m["where"] if m else None,
            )
            state.extra["last_nccl_error"] = ev
            return events + [ev]
    m = _DETAIL.match(body) if "nccl" in body else None
    if m:
        ev = ctx.record("nccl_result_detail", result=m["name"], detail=m["text"])
        state.extra["last_nccl_error"] = ev
        return events + [ev]
    if body.strip() == "Last error:" or body.rstrip().endswith("Last error:"):
        anchor = state.extra.get("last_nccl_error")
        state.expect_last_error = (
            anchor if isinstance(anchor, Record) else ctx.record("torch_nccl_error", reason="")
        )
        return events
    m = searched(_REMOTE, body, low)
    if m:
        return events + [ctx.record("remote_error_from", peer_rank=int(m["rank"]))]
    m = searched(_DUMP_FROM, body, low)
    if m:
        return events + [ctx.record("dump_signal", peer_rank=int(m["rank"]) if m["rank"] else None)]
    m = searched(_HEARTBEAT, body, low)
    if m:
        return events + [ctx.record("heartbeat_timeout", stuck_s=int(m["s"]) if m["s"] else None)]
    m = searched(_LAGGING, body, low)
    if m:
        ranks = m["ranks"] or m["ranks2"]
        lagging = [int(x) for x in ranks.split(",") if x.strip()]
        return events + [ctx.record("desync_report", lagging=lagging)]
    m = searched(_MISMATCH, body, low)
    if m:
        return events + [
            ctx.record("collective_mismatch", rank_a=int(m["a"]), rank_b=int(m["b"]), fp_a=m["fa"],
                      fp_b=m["fb"])
        ]
    m = searched(_ABORTED, body, low)
    if m:
        return events + [ctx.record("comm_aborted", on_rank=int(m["rank"]))]
    events.extend(_rendezvous(ctx, body, low))
    return events


_CUDA_IN_WHAT = re.compile(r"CUDA error: (?P<err>[^.\n\[]+)")


def _cuda_fault(ctx: LineCtx, what: str) -> list[Record]:
    """The CUDA error the watchdog quotes when polling the collective's CUDA event fails: a CUDA
    error report of its own (its text), whose class the catalog gives (facts.py)."""
    m = _CUDA_IN_WHAT.search(what)
    if not m:
        return []
    return [ctx.record("cuda_error", error=m["err"].strip(), cuda_name=None,
                      via_watchdog=True)]


def _connect_failed(ctx: LineCtx, body: str, target: re.Match[str] | None) -> Record:
    errno = re.search(r"errno: (\d+) - ([^)]+)", body)
    return ctx.record(
        "store_connect_failed",
        # c10d logs each retry at glog level W while the store's host is not yet up; the same
        # words end a DistNetworkError once it gives up (signatures/data/records.toml).
        log_level="W" if _GLOG_WARNING.search(body) else None,
        address=target["addr"].strip() if target else None,
        errno=int(errno.group(1)) if errno else None,
        error=errno.group(2) if errno else None,
    )


def _rendezvous(ctx: LineCtx, body: str, low: str) -> list[Record]:
    m = searched(_WAITING_CLIENTS, body, low)
    if m:
        return [
            ctx.record(
                "store_clients_missing",
                waited_s=int(m["s"]),
                joined=int(m["joined"]),
                world=int(m["world"]),
            )
        ]
    m = searched(_CLIENT_TIMEOUT, body, low)
    if m:
        return [ctx.record("store_connect_timeout", address=m["addr"].strip(),
                          after=m["t"] + m["unit"])]
    if "- retrying (try=" in body or ", will retry" in body:
        # TCPStore's own retry warning (torch >= 2.3) quotes the failed attempt; like socket.cpp's
        # 'failed to connect' retries it is a rendezvous problem only if nothing ever gets through.
        return [_connect_failed(ctx, body, _RETRY_TARGET.search(body))]
    if "client socket has failed to connect" in body:
        return [_connect_failed(ctx, body, _CLIENT_FAILED.search(body))]
    return []
