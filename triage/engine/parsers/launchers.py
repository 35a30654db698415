"""Launcher and serving-stack lines that carry facts (docs/log-formats-launchers.md part B): versions, the
master address a launcher passed, vLLM's NCCL library loading, sglang's weight loading,
rank/world-size announcements and the environment echoed in launch commands."""
from __future__ import annotations

import ipaddress
import re

from ..model import Record
from .base import LineCtx, SourceState

# What the scan gate (scan.py) must let through for this parser: the lines that say who is who
# and which versions run (launch commands, ranks, world sizes, visible GPUs, version banners).
GATE_IDENTITY: tuple[str, ...] = (
    r"[Ll]ocal_rank",
    r"LOCAL_RANK",
    r"GLOBAL_RANK",
    r"[Ww]orld_size",
    r"WORLD_SIZE",
    r"[Mm]aster_addr",
    r"MASTER_ADDR",
    r"CUDA_VISIBLE_DEVICES",
    r"init_device",
    r"nccl==",
    r"libnccl",
    r"torch(?:==| version|\.__version__)",
    r"PyTorch version",
    r"[Dd]river [Vv]ersion",
    r"CUDA [Vv]ersion",
    r"Load weight",
    r": Test command: ",  # CTest's header (identity ctest.verbose_header): its 'N: ' is no Slurm task
)

_MASTER_ADDR = re.compile(r"(?:--master[_-]addr[= ]|MASTER_ADDR=)(?P<addr>[^\s;,'\"]+)")
_VLLM_NCCL_LOAD = re.compile(r"Failed to load NCCL library from (?P<lib>\S+?)\s?\.?(?:\s|$)"
                             r"|Failed to import NCCL library")
_LIB_MISSING = re.compile(r"(?P<lib>lib\w+\.so[\w.]*): (?:cannot open shared object file|No such file or directory)")
_VLLM_NCCL_VER = re.compile(r"vLLM is using nccl==(?P<v>[\d.]+)|Found nccl from library (?P<lib>\S+)")
_UNDEFINED_SYMBOL = re.compile(r"undefined symbol: (?P<sym>\w*nccl\w*)", re.I)
_NAME_UNDEFINED = re.compile(r"name '(?P<sym>nccl\w+)' is not defined")
_WORLD = re.compile(r"world_size=(?P<world>\d+) rank=(?P<rank>\d+) local_rank=(?P<lrank>\d+)")
_LIGHTNING = re.compile(r"initializing (?:ddp|distributed): GLOBAL_RANK: (?P<rank>\d+), MEMBER: (?P<member>\d+)/"
                        r"(?P<world>\d+)")
_LOAD_WEIGHT = re.compile(r"Load weight (?P<phase>begin|end)")
_TORCH_VERSION = re.compile(r"(?:torch(?:==| version:? |\.__version__\s*[=:]\s*)|PyTorch version:? )"
                            r"(?P<v>\d+\.\d+(?:\.\d+)?(?:\+\w+)?)")
_DRIVER_VERSION = re.compile(r"Driver Version:? (?P<v>\d+\.\d+(?:\.\d+)?)")
_CUDA_VERSION = re.compile(r"CUDA Version:? (?P<v>\d+\.\d+)")
_VISIBLE = re.compile(r"CUDA_VISIBLE_DEVICES[=:]\s*\[?(?P<v>[\d, ]*)\]?")
# Every pattern above holds one of these words (lower case): a line with none of them is
# skipped with a few substring checks instead of thirteen searches (most lines a large bundle
# yields are NCCL INFO lines).
_WORDS = (
    "master", "nccl library", ".so", "undefined", "not defined", "nccl==", "found nccl", "world_size",
    "global_rank", "load weight", "torch", "driver version", "cuda version", "cuda_visible_devices",
)
_LOCAL_RANK_LINE = re.compile(r"LOCAL_RANK[=:]\s*(?P<lr>\d+)")


def valid_address(addr: str) -> bool:
    """An IP or a plausible host name (not a path, not shell noise)."""
    addr = addr.strip("[]")
    if addr in ("localhost",):
        return True
    try:
        ipaddress.ip_address(addr)
        return True
    except ValueError:
        pass
    if "/" in addr or addr.startswith(".") or addr.startswith("$"):
        return False
    return bool(re.fullmatch(r"[A-Za-z0-9]([A-Za-z0-9-]{0,62})(\.[A-Za-z0-9-]{1,63})*", addr))


def parse(ctx: LineCtx, state: SourceState) -> list[Record]:
    body = ctx.body
    low = body.lower()
    # A substring check per word: half the time of one regex alternation over them all.
    for word in _WORDS:
        if word in low:
            break
    else:
        return []
    out: list[Record] = []
    m = _MASTER_ADDR.search(body)
    if m:
        addr = m["addr"]
        out.append(ctx.record("master_addr", address=addr,
                             valid=valid_address(addr)))
    m = _VLLM_NCCL_LOAD.search(body)
    if m:
        out.append(ctx.record("nccl_library_missing", library=m["lib"]))
    else:
        m = _LIB_MISSING.search(body)
        if m and "nccl" in m["lib"]:
            out.append(ctx.record("nccl_library_missing", library=m["lib"]))
    m = _UNDEFINED_SYMBOL.search(body) or _NAME_UNDEFINED.search(body)
    if m:
        out.append(ctx.record("nccl_symbol_missing", symbol=m["sym"]))
    m = _VLLM_NCCL_VER.search(body)
    if m and m["v"]:
        out.append(ctx.record("component_version", component="nccl", version=m["v"]))
    m = _WORLD.search(body)
    if m:
        out.append(ctx.record("rank_announce", announced_rank=int(m["rank"]), world=int(m["world"]),
                             local_rank=int(m["lrank"])))
    m = _LIGHTNING.search(body)
    if m:
        out.append(ctx.record("rank_announce", announced_rank=int(m["rank"]), world=int(m["world"]), local_rank=None))
    m = _LOAD_WEIGHT.search(body)
    if m:
        out.append(ctx.record("load_weight", phase=m["phase"]))
    m = _TORCH_VERSION.search(body)
    if m:
        out.append(ctx.record("component_version", component="torch", version=m["v"]))
    m = _DRIVER_VERSION.search(body)
    if m:
        out.append(ctx.record("component_version", component="driver", version=m["v"]))
    m = _CUDA_VERSION.search(body)
    if m:
        out.append(ctx.record("component_version", component="cuda_driver", version=m["v"]))
    m = _VISIBLE.search(body)
    if m and m["v"].strip():
        out.append(ctx.record("visible_devices", devices=[d.strip() for d in m["v"].split(",") if d.strip()]))
    return out
