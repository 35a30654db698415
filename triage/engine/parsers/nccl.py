"""NCCL debug lines (NCCL_DEBUG=INFO/WARN), every version from 2.4 to 2.30 (docs/log-formats.md §1).

Layout: `[ts] host:pid:tid [dev] NCCL INFO msg` and `host:pid:tid [dev] file:line [(func)] NCCL WARN msg`.
Lines can be spliced mid-way when several ranks share stdout, so the prefix is searched, not
anchored. The version banner has no prefix at all before 2.22.
"""
from __future__ import annotations

import errno
import os
import re
from sys import intern

from .. import identity
from ..model import Record
from .base import LineCtx, SourceState

# What the scan gate (scan.py) must let through for this parser, whatever the catalog says: every
# WARN (its identity fields), the `-> N` error trails, and the INFO lines that say who is who.
GATE_MEANING: tuple[str, ...] = (
    r"NCCL WARN [A-Z]",
    r"\.(?:cc|c|h|cu|cpp|hpp):[0-9]+ (?:\([A-Za-z_0-9]+\) )?-> [0-9]",
)
GATE_IDENTITY: tuple[str, ...] = (
    r"Init (?:COMPLETE|START)",
    r" n[Rr]anks [0-9]",
    r"NCCL version",
    r"cudaDriverVersion",
    r"Using network",
    r"NET/IB ?: (?:Using|No device)",
    r"NET/Socket ?: Using",
    r"via (?:P2P|SHM|NET|direct)",
    r"direct shared memory",
    r"set by environment",
    r"Bootstrap ?: Using",
    r"Connected all rings",
)

# host:pid:tid [dev] ... NCCL LEVEL: the identity catalog's entry (identity/reports.toml).
_LINE = identity.pattern("nccl.debug_prefix")
_LEVEL = re.compile(r"NCCL (?:INFO|WARN|TRACE|CALL) ")
# Prefix stripped by the user, or very old NCCL: '[3] include/shm.h:28 NCCL WARN ...', 'misc/x.cc:60 WARN ...'
_BARE_WARN = re.compile(r"(?:\[(?P<dev>\d+)\] )?(?P<loc>[\w./+-]+\.(?:cc|c|h|cu|cpp):\d+)(?: \((?P<func>\w+)\))? "
                        r"(?:NCCL )?WARN (?P<msg>.*)$")
_VERSION = re.compile(r"NCCL version (?P<v>\d+\.\d+\.\d+)(?P<suffix>\S*?)(?:\+cuda(?P<cuda>\d+\.\d+))?(?:\s|$|,)")
_TRAIL = re.compile(r"^(?P<file>[\w./+-]+):(?P<line>\d+)(?: \((?P<func>\w+)\))? -> (?P<rc>\d+)(?: \((?P<err>[^)]*)\))?")
_INIT = re.compile(
    r"(?:\[Rank \d+\] )?(?:(?P<fn>nccl\w+) )?comm (?P<comm>0x[0-9a-f]+) rank (?P<rank>\d+) nranks (?P<nranks>\d+)"
    r" cudaDev (?P<dev>\d+)(?: nvmlDev (?P<nvml>\d+))? busId (?P<bus>[0-9a-f]+)(?P<rest>.*?)- "
    r"(?P<phase>Init START|Init COMPLETE|Abort COMPLETE|Destroy COMPLETE)"
)
_TRANSPORT = re.compile(
    r"(?:Channel|Ring) (?P<ch>\d+)(?:/\d+)? : (?P<src>\d+)\[(?P<srcdev>[0-9a-f]+)\] -> (?P<dst>\d+)\["
    r"(?P<dstdev>[0-9a-f]+)\]"
    r"(?: \[(?P<dir>send|receive)\])? via (?P<via>\S+(?: shared memory| pointer)?)"
)
_NET = re.compile(r"Using network (?P<net>.+?)\s*$")
_IB_USING = re.compile(r"NET/IB ?: Using (?P<devs>.*?)(?:; OOB (?P<oob>\S+))?\s*$")
_SOCKET_USING = re.compile(r"NET/Socket ?: Using (?P<devs>.*)$")
_ENV = re.compile(r"(?P<var>NCCL_\w+) set by environment to (?P<val>.*?)\.?$")
_DRIVER = re.compile(r"cudaDriverVersion (?P<v>\d+)")
# What a WARN's text names, whatever the message says: who (peer, ranks, bus id, the segment's
# owner), which call failed, with which code. What the message *means* is the catalog's
# (signatures/nccl.py): every WARN is one `nccl_warn` event with these fields where present.
_RANK_PAIR = re.compile(r"rank (?P<a>\d+) and rank (?P<b>\d+) both on CUDA device (?P<bus>[0-9a-f]+)")
_COMPLETION = re.compile(r"completion from peer (?P<peer>\S+) with (?:error|status=?) ?(?P<status>\w+)"
                         r"(?:\((?P<code>\d+)\))?")
_CALL = re.compile(r"Call to (?P<fn>\w+)")
_CUDA_TEXT = re.compile(r"Cuda failure (?:(?P<code>\d+) )?'(?P<err>[^']+)'")
_BYTES = re.compile(r"(?P<bytes>\d+) bytes")
_PROXY = re.compile(r"\[Proxy Service (?P<svc>\d+)\] Failed to execute operation (?P<op>\w+) from rank (?P<rank>\d+)"
                    r", retcode (?P<rc>\d+)")
_WRONG_TYPE = re.compile(r"wrong type (?P<got>\d+) != (?P<want>\d+)")
_SOCKET_PEER = re.compile(r"(?:peer|from|to) (\S+<\d+>)")
_VENDOR = re.compile(r"vendor[ _]err(?:=| )(\d+)")
# errno's strerror texts as the C library prints them ('No space left on device' -> ENOSPC).
_STRERROR = {os.strerror(code): name for code, name in errno.errorcode.items()}
_STRERROR_TEXT = re.compile("|".join(re.escape(t) for t in sorted(_STRERROR, key=len, reverse=True)))


def _errno_name(text: str) -> str | None:
    m = _STRERROR_TEXT.search(text)
    return _STRERROR[m.group(0)] if m else None


def parse(ctx: LineCtx, state: SourceState) -> list[Record]:
    body = ctx.body
    if "NCCL" not in body and "WARN" not in body:
        return []
    out: list[Record] = []
    # _LINE and _BARE_WARN search unanchored and take ~20 us each on a long line that mentions
    # NCCL without being a debug line (ProcessGroupNCCL, WorkNCCL): first the literal each needs.
    m = _LINE.search(body) if _LEVEL.search(body) else None
    if m:
        # Interned: every line of a process names its host, and every rank of a host the same
        # one; a job of thousands of ranks keeps one copy of it, not one per event.
        ctx.origin.host = intern(m["host"])
        ctx.origin.pid = _pid(m["pid"])
        dev = int(m["device"]) if m["device"] is not None else None
        level, msg, loc, func = m["x_lvl"], m["x_msg"], m["x_loc"], m["x_func"]
    else:
        vm = _VERSION.search(body)
        if vm and "NCCL error" not in body:
            return [ctx.record("nccl_version", version=vm["v"], cuda=vm["cuda"], suffix=vm["suffix"])]
        bm = _BARE_WARN.search(body) if "WARN " in body else None
        if not bm:
            return []
        dev = int(bm["dev"]) if bm["dev"] is not None else None
        level, msg, loc, func = "WARN", bm["msg"], bm["loc"], bm["func"]
    events = _parse_message(ctx, level, msg, loc)
    for ev in events:
        ev.device = dev
        ev.host = ctx.origin.host
        ev.pid = ctx.origin.pid
        if loc:
            ev.data.setdefault("location", loc)
        if func:
            ev.data.setdefault("function", func)
    out.extend(events)
    return out


def _parse_message(ctx: LineCtx, level: str, msg: str, loc: str | None) -> list[Record]:
    if level == "WARN":
        return [warn_event(ctx, msg)]
    if level != "INFO":
        return []
    # Each search below is guarded by a literal its pattern needs: most INFO lines of a large
    # log match none of them, and nine unanchored searches per line were a third of the parse.
    # The identity lines every rank prints (init, channels, bootstrap, other INFO) keep the
    # line's own text as their message (ctx.record's default, no copy): what they say is in
    # their data and their meaning, nothing reads their message, and a copy of the words after
    # 'NCCL INFO' was 5 a rank of a fleet's files, 0.7 KB a rank at the diagnosis' peak.
    t = _TRAIL.match(msg) if " -> " in msg else None
    if t:
        return [ctx.record("nccl_trail", message=msg, rc=int(t["rc"]), file=t["file"], err=t["err"])]
    i = _INIT.search(msg) if " nranks " in msg else None
    if i:
        return [
            ctx.record(
                "nccl_init",
                rank=int(i["rank"]),
                nranks=int(i["nranks"]),
                cuda_dev=int(i["dev"]),
                bus_id=intern(i["bus"]),
                comm=intern(i["comm"]),
                phase=intern(i["phase"]),
            )
        ]
    v = _VERSION.search(msg) if "NCCL version" in msg else None
    if v:
        return [ctx.record("nccl_version", version=intern(v["v"]), cuda=_interned(v["cuda"]),
                          suffix=intern(v["suffix"]))]
    tr = _TRANSPORT.search(msg) if " via " in msg else None
    if tr:
        via = intern(tr["via"])
        kind = "P2P" if via.startswith("P2P") or via.startswith("direct pointer") else (
            "SHM" if via.startswith("SHM") or "shared memory" in via else ("NET" if via.startswith("NET") else via)
        )
        return [ctx.record("nccl_transport", transport=kind, via=via, src=int(tr["src"]),
                          dst=int(tr["dst"]), direction=tr["dir"])]
    n = _NET.search(msg) if "Using network" in msg else None
    if n:
        return [ctx.record("nccl_net", net=intern(n["net"]))]
    if "NET/IB" in msg and "No device found" in msg:
        return [ctx.record("nccl_ib_missing")]
    ib = _IB_USING.search(msg) if "NET/IB" in msg else None
    if ib:
        return [ctx.record("nccl_ib_devices", devices=intern(ib["devs"]), oob=_interned(ib["oob"]))]
    so = _SOCKET_USING.search(msg) if "NET/Socket" in msg else None
    if so:
        return [ctx.record("nccl_socket_devices", devices=so["devs"])]
    e = _ENV.search(msg) if "set by environment" in msg else None
    if e:
        return [ctx.record("nccl_env", var=e["var"], value=e["val"])]
    d = _DRIVER.search(msg) if "cudaDriverVersion" in msg else None
    if d:
        return [ctx.record("nccl_driver", cuda_driver=int(d["v"]))]
    if "Connected all rings" in msg:
        return [ctx.record("nccl_rings_connected")]
    if "Bootstrap" in msg and "Using" in msg:
        return [ctx.record("nccl_bootstrap")]
    return [ctx.record("nccl_info")]


# One int per process id: each of a process's lines names it, and a number above 256 is a new
# object each time it is read (28 bytes on every event of a fleet's ranks). The lines of one
# process come together (its own file, or a few processes interleaved): a few thousand ids are
# enough, and a fleet's 16,384 texts were 1.5 MB kept through the diagnosis.
_PIDS: dict[str, int] = {}
_MAX_PIDS = 4096


def _pid(text: str) -> int:
    pid = _PIDS.get(text)
    if pid is None:
        if len(_PIDS) >= _MAX_PIDS:
            _PIDS.clear()
        pid = _PIDS[text] = int(text)
    return pid


def _interned(text: str | None) -> str | None:
    return None if text is None else intern(text)


def warn_event(ctx: LineCtx, msg: str) -> Record:
    """One NCCL WARN (or the 'Last error:' text c10d quotes from it): its identity fields."""
    data: dict[str, object] = {}
    m = _RANK_PAIR.search(msg)
    if m:
        data.update(ranks=[int(m["a"]), int(m["b"])], bus_id=m["bus"])
    m = _COMPLETION.search(msg)
    if m:
        status = m["status"]
        code = m["code"] or (status if status and status.isdigit() else None)
        data.update(peer=m["peer"], status=int(code) if code else None,
                    status_name=status if status and not status.isdigit() else None)
    else:
        peer = _SOCKET_PEER.search(msg)
        if peer:
            data["peer"] = peer.group(1)
    m = _CALL.search(msg)
    if m:
        data["fn"] = m["fn"]
    vendor = _VENDOR.search(msg)
    if vendor:
        data["vendor_err"] = int(vendor.group(1))
    name = _errno_name(msg)
    if name:
        data["errno"] = name
    owner = _shm_owner(msg)
    if owner is not None:
        data["own_rank"] = owner
    m = _WRONG_TYPE.search(msg)
    if m:
        data.update(got=int(m["got"]), want=int(m["want"]))
    m = _PROXY.search(msg)
    if m:
        data.update(op=m["op"], peer_rank=int(m["rank"]), rc=int(m["rc"]))
    m = _CUDA_TEXT.search(msg)
    if m:
        data["error"] = m["err"]
    m = _BYTES.search(msg)
    if m:
        data["bytes"] = int(m["bytes"])
    return ctx.record("nccl_warn", message=msg, **data)


# Pre-2.7 shm transport segment names: nccl-shm-<recv|send>-<pidHash>-<channel>-<sendRank>-<recvRank>;
# a receive buffer is created by the receiving rank, a send buffer by the sender.
_SHM_NAME = re.compile(r"nccl-shm-(?P<side>recv|send)-[0-9a-f]+-\d+-(?P<send>\d+)-(?P<recv>\d+)")


def _shm_owner(msg: str) -> int | None:
    m = _SHM_NAME.search(msg)
    if not m:
        return None
    return int(m["recv"]) if m["side"] == "recv" else int(m["send"])
