r"""The scan gate: a few hundred patterns, compiled from the catalog, that every line worth
parsing matches.

Matching all ~1,600 catalog patterns over every byte of a large log runs at about 50 MB/s in
Hyperscan; a set of plain literals runs at well over 1 GB/s. So the scanner does not run the
catalog itself over the bytes: it runs this gate, and the reader runs the catalog over the few
lines the gate lets through (which then name their entry). The gate is built so that it lets
through every line any fault or symptom entry can match:

- every entry pattern contributes one set of literals that each of its matches must contain
  (`factor_sets`: adjacent parts of the regex multiply, so `(?:socket|ncclOsSocket)TryAccept`
  needs 'sockettryaccept', not the word 'socket'); of its sets the one that costs least is
  taken, where a literal costs how often it occurs in ordinary, harmless log text (BACKGROUND
  plus the catalog's own harmless and context samples) plus a chance that falls with its
  length, so a long required run wins over a short one ('initialization error' over
  'initialization'); a literal another entry already brought, or one containing it, costs
  nothing, and a literal containing another of the gate is dropped (the shorter passes it);
- where even the cheapest set fires on ordinary lines (a common word), it is still a literal:
  the scanner reports each gate pattern once per window once it recurs (scan.py), so a common
  literal costs a lookup per window, not per line; regexes in the gate would cost more (one
  with a common prefix, `nccl\w+ failed`, halves Hyperscan's speed on its own);
- literals that share a long substring absent from ordinary text are merged into it;
- the parsers' structural keywords (parsers.GATE_MEANING / GATE_IDENTITY) go in as they are.

A line the gate passes but no entry matches costs one catalog lookup in the reader and
produces nothing; a line no entry can match never reaches Python.
"""
from __future__ import annotations

import hashlib
import re
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

from . import statedir
from .signatures.literals import MIN_LITERAL, needed_sets

sre_parse: Any = re._parser  # type: ignore[attr-defined]  # the parser literals.py reads too (3.11+)

# Lines any healthy run prints, drawn from the formats of NCCL, PyTorch and the launchers
# (docs/log-formats.md): a gate literal that occurs here would fire on every run.
BACKGROUND = """\
gpu-node-001:40001:40078 [1] NCCL INFO Bootstrap : Using eth0:10.0.0.11<0>
gpu-node-001:40001:40078 [1] NCCL INFO cudaDriverVersion 12040
NCCL version 2.21.5+cuda12.4
gpu-node-001:40001:40078 [1] NCCL INFO NET/Plugin: Failed to find ncclNetPlugin_v8 symbol.
gpu-node-001:40001:40078 [1] NCCL INFO NET/Plugin: Loaded net plugin NCCL RDMA Plugin (v7)
gpu-node-001:40001:40078 [1] NCCL INFO NET/Plugin : No plugin found (libnccl-net.so), using internal implementation
gpu-node-001:40001:40078 [1] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [RO]; OOB eth0:10.0.0.1<0>
gpu-node-001:40001:40078 [1] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.11<0>
gpu-node-001:40001:40078 [1] NCCL INFO Using non-device net plugin version 0
gpu-node-001:40001:40078 [1] NCCL INFO Using network IB
gpu-node-001:40001:40078 [1] NCCL INFO ncclCommInitRank comm 0x55d1c2a0e3b0 rank 1 nranks 64 cudaDev 1 nvmlDev 1 busId 28000 commId 0x9f3c000000000001 - Init START
gpu-node-001:40001:40078 [1] NCCL INFO Setting affinity for GPU 1 to ffff,ffffffff
gpu-node-001:40001:40078 [1] NCCL INFO NVLS multicast support is not available on dev 1
gpu-node-001:40001:40078 [1] NCCL INFO comm 0x55d1c2a0e3b0 rank 1 nRanks 64 nNodes 8 localRanks 8 localRank 1 MNNVL 0
gpu-node-001:40001:40078 [1] NCCL INFO Trees [0] 2/-1/-1->1->0 [1] 2/-1/-1->1->0
gpu-node-001:40001:40078 [1] NCCL INFO P2P Chunksize set to 524288
gpu-node-001:40001:40078 [1] NCCL INFO Channel 00/0 : 1[1] -> 2[2] via P2P/CUMEM/read
gpu-node-001:40001:40078 [1] NCCL INFO Channel 01/0 : 1[1] -> 9[1] [send] via NET/IB/0(0)/GDRDMA
gpu-node-001:40001:40078 [1] NCCL INFO Channel 00/02 :    0   1   2   3   4   5   6   7
gpu-node-001:40001:40078 [1] NCCL INFO Connected all rings
gpu-node-001:40001:40078 [1] NCCL INFO Connected all trees
gpu-node-001:40001:40078 [1] NCCL INFO threadThresholds 8/8/64 | 512/8/64 | 512 | 512
gpu-node-001:40001:40078 [1] NCCL INFO 24 coll channels, 24 collnet channels, 0 nvls channels, 32 p2p channels, 32 p2p channels per peer
gpu-node-001:40001:40078 [1] NCCL INFO CC Off, Multi-GPU CC Off, workFifoBytes 1048576
gpu-node-001:40001:40078 [1] NCCL INFO TUNER/Plugin: Could not find: libnccl-tuner.so. Using internal tuner plugin.
gpu-node-001:40001:40078 [1] NCCL INFO ncclCommInitRank comm 0x55d1c2a0e3b0 rank 1 nranks 64 cudaDev 1 nvmlDev 1 busId 28000 commId 0x9f3c000000000001 - Init COMPLETE
gpu-node-001:40001:40078 [1] NCCL INFO Init timings - ncclCommInitRank: rank 1 nranks 64 total 1.23 (kernels 0.20, alloc 0.10, bootstrap 0.50, allgathers 0.01, topo 0.20, graphs 0.01, connections 0.20, rest 0.01)
gpu-node-001:40001:40078 [1] NCCL INFO AllReduce: opCount 1a2 sendbuff 0x7f3a00000000 recvbuff 0x7f3b00000000 count 1048576 datatype 7 op 0 root 0 comm 0x55d1c2a0e3b0 [nranks=64] stream 0x55e1c2a4d0
gpu-node-001:40001:40078 [1] NCCL INFO Broadcast: opCount 1a3 sendbuff 0x7f3a00000000 recvbuff 0x7f3b00000000 count 262144 datatype 0 op 0 root 0 comm 0x55d1c2a0e3b0 [nranks=64] stream 0x55e1c2a4d0
gpu-node-001:40001:40078 [1] NCCL INFO comm 0x55d1c2a0e3b0 rank 1 nranks 64 cudaDev 1 busId 28000 - Destroy COMPLETE
gpu-node-001:40001:40082 [1] NCCL INFO [Service thread] Connection closed by localRank 1
gpu-node-001:40001:40085 [1] 13.652887 ncclProxyProgress:1133 NCCL TRACE recvProxy [12/3/16] received, size 524288 chunkSize=524288
gpu-node-001:40001:40085 [1] 13.652901 ncclProxyProgress:1120 NCCL TRACE sendProxy [12/3/16] Isend posted, req 0x7f3a2c001230, buff 0x7f3a00000000, size 524288, proto 2, myRank 1, channelId 0, mhandle 0x7f3a2c000f00
gpu-node-001:40001:40085 [1] 13.652950 ncclProxyProgress:1151 NCCL TRACE sendProxy [12/3/16] request 0x7f3a2c001230 done
gpu-node-001:40001:40085 [1] 13.652977 ncclProxyProgress:1202 NCCL TRACE recvProxy [13/4/16] Irecv posted, buff 0x7f3a00080000, size 524288, myRank 1, channelId 0, mhandle 0x7f3a2c000f00
gpu-node-001:40001:40078 [1] 13.001002 ncclTopoTuneModel:402 NCCL TRACE 1048576 Bytes -> Algo 1 proto 2 time 12.345000
gpu-node-001:40001:40078 [1] 12.900010 ncclSocketConnect:611 NCCL TRACE Connecting to socket 10.0.0.1<43215>
gpu-node-001:40001:40078 [1] 12.900020 ncclSocketListen:402 NCCL TRACE Listening on socket 10.0.0.11<51234>
gpu-node-001:40001:40082 [1] NCCL INFO ncclPollProxyResponse Received new opId=0x55d1c2b0f000
gpu-node-001:40001:40082 [1] NCCL INFO Received and initiated operation=Init res=0
gpu-node-001:40001:40082 [1] NCCL INFO NET/IB: ncclIbPostFifo: Sender received completion for device 0 (comm=0x55d1c2b0f000, wr_id=12, opcode=IBV_WC_RDMA_WRITE, imm_data=0)
gpu-node-001:40001:40082 [1] NCCL INFO NET/IB: ncclIbTest: Receiver received completion for device 0 (comm=0x55d1c2b0f000, wr_id=13, opcode=IBV_WC_RECV_RDMA_WITH_IMM, imm_data=524288)
gpu-node-001:40001:40082 [1] NCCL INFO NCCL_SOCKET_IFNAME set by environment to eth0
gpu-node-001:40001:40082 [1] NCCL INFO NCCL_IB_HCA set to mlx5_0,mlx5_1
gpu-node-001:40001:40082 [1] NCCL INFO NET/IB : Got async event : port active
[I1201 14:30:00.000000 ProcessGroupNCCL.cpp:935] [PG ID 0 PG GUID 0(default_pg) Rank 1] ProcessGroupNCCL initialization options: size: 64, global rank: 1, TIMEOUT(ms): 600000, USE_HIGH_PRIORITY_STREAM: 0, SPLIT_FROM: 0, SPLIT_COLOR: 0, PG Name: 0
[I1201 14:30:00.000000 ProcessGroupNCCL.cpp:944] [PG ID 0 PG GUID 0(default_pg) Rank 1] ProcessGroupNCCL environments: NCCL version: 2.21.5, TORCH_NCCL_ASYNC_ERROR_HANDLING: 3, TORCH_NCCL_DUMP_ON_TIMEOUT: 0, TORCH_NCCL_WAIT_TIMEOUT_DUMP_MILSEC: 60000, TORCH_NCCL_DESYNC_DEBUG: 0, TORCH_NCCL_ENABLE_TIMING: 0, TORCH_NCCL_BLOCKING_WAIT: 0, TORCH_DISTRIBUTED_DEBUG: OFF, TORCH_NCCL_ENABLE_MONITORING: 1, TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC: 480, TORCH_NCCL_TRACE_BUFFER_SIZE: 2000, TORCH_NCCL_COORD_CHECK_MILSEC: 1000, TORCH_NCCL_NAN_CHECK: 0
[I1201 14:30:00.000000 ProcessGroupNCCL.cpp:852] [PG ID 0 PG GUID 0 Rank 1] Using non-blocking mode: 0
[I1201 14:30:01.000000 ProcessGroupNCCL.cpp:2210] [PG ID 0 PG GUID 0(default_pg) Rank 1] ProcessGroupNCCL broadcast unique ID through store took 0.10 ms
[I1201 14:30:01.000000 NCCLUtils.cpp:75] Rank 1: creating NCCL communicator with mode: blocking
[I1201 14:30:01.000000 ProcessGroupNCCL.cpp:1310] [PG ID 0 PG GUID 0(default_pg) Rank 1] Starting NCCL heartbeat monitor thread with timeout 480 sec
[I1201 14:30:01.000000 TCPStore.cpp:275] [c10d - debug] The server has started on port = 29500.
[I1201 14:30:01.000000 TCPStoreLibUvBackend.cpp:1142] [c10d - debug] Uv main loop running
[I1201 14:30:01.000000 socket.cpp:779] [c10d] The client socket has connected to [gpu-node-000]:29500 on SocketImpl(fd=3, addr=[gpu-node-001]:51234, remote=[gpu-node-000]:29500).
[I1201 14:30:01.000000 ProcessGroupNCCL.cpp:1501] [PG ID 0 PG GUID 0(default_pg) Rank 1] ProcessGroupNCCL destructor entered.
INFO:torch.distributed.launcher.api:Starting elastic_operator with launch configs:
INFO:torch.distributed.elastic.agent.server.api:[default] starting workers for entrypoint: python
INFO:torch.distributed.elastic.agent.server.api:[default] Rendezvous complete for workers. Result:
  restart_count=0
  master_addr=gpu-node-000
  master_port=29500
  group_rank=0
  group_world_size=8
  local_ranks=[0, 1, 2, 3, 4, 5, 6, 7]
  role_ranks=[0, 1, 2, 3, 4, 5, 6, 7]
  global_ranks=[0, 1, 2, 3, 4, 5, 6, 7]
INFO:torch.distributed.elastic.agent.server.api:[default] Starting worker group
INFO:torch.distributed.elastic.agent.server.local_elastic_agent:Environment variable 'TORCHELASTIC_ENABLE_FILE_TIMER' not found. Do not start FileTimerServer.
INFO:torch.distributed.elastic.agent.server.api:[default] worker group successfully finished. Waiting 300 seconds for other agents to finish.
INFO:torch.distributed.elastic.agent.server.api:Local worker group finished (WorkerState.SUCCEEDED). Waiting 300 seconds for other agents to finish
INFO:torch.distributed.elastic.agent.server.api:Done waiting for other agents. Elapsed: 0.0011 seconds
WARNING:torch.distributed.run:Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed.
[rank1]: step 1200 loss 2.3104 lr 3.0e-4 grad_norm 0.812 tokens/s 11234 data loader wait 0.012s
[rank1]: epoch 3 iter 4500/10000 | loss 1.0234 | elapsed 00:12:31 | eta 00:20:10 | mem 61.2 GiB
Epoch 1: 100%|##########| 1000/1000 [10:00<00:00, 1.67it/s, loss=0.123, v_num=0]
INFO 12-01 14:30:00 model_runner.py:1056] Loading model weights took 13.4967 GB
INFO 12-01 14:30:00 gpu_executor.py:122] # GPU blocks: 27911, # CPU blocks: 2048
INFO 12-01 14:30:00 custom_all_reduce_utils.py:204] generating GPU P2P access cache in /root/.cache/vllm/gpu_p2p_access_cache_for_0,1.json
INFO 12-01 14:30:00 metrics.py:341] Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 35.1 tokens/s, Running: 1 reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: 0.1%, CPU KV cache usage: 0.0%.
/opt/app/torch/utils/checkpoint.py:464: UserWarning: torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly.
  return fn(*args, **kwargs)
  File "/opt/app/train.py", line 120, in main
    out = self.block0(x)
Stack (most recent call last):
Using device: cuda:1, world size 64, backend nccl
Saving checkpoint to /checkpoints/step_1200 ... done in 12.3 s
| distributed init (rank 1): env://, gpu 1
"""

def state_dir() -> Path:
    """The private directory the compiled gate and databases are kept in (statedir.py):
    NCCL_TRIAGE_STATE_DIR, else $XDG_CACHE_HOME/nccl-triage; created 0700 and checked for
    owner and mode. Raises statedir.UnsafeStateDir when another user could write it."""
    return statedir.state_dir()


def build_cache() -> str:
    """Compile the gate cover and the pattern databases of every available engine now and keep
    them in state_dir() (an install or image build step, so the first parse does not pay for
    it). Returns the name of the engine the scanner will use. Each cache file is named by, and
    loaded only if its header matches, a hash of what it was compiled from."""
    from . import scan
    from .signatures.matcher import matcher

    statedir.state_dir()  # refuse loudly here rather than skip the cache quietly
    matcher()
    return scan.prefilter().engine


_PLAIN_WORD = re.compile(r"[a-z]{1,9}")
# A literal needs this many letters to be selective at all.
MIN_LETTERS = 3
# Shared substrings replace several literals when they are at least this long (see merge_literals).
MERGE_MIN = 8
MERGE_MAX = 16
# A plain word shared by several entries gates them only from this length on.
WORD_GATE_MIN = 10


def fingerprint() -> list[object]:
    """Everything the cover depends on besides the patterns (for the scanner's disk cache): the
    background, the thresholds, and this module's own text, so a change to how the cover is
    chosen is a new key without a version to remember to bump."""
    return [_background(), MIN_LETTERS, MERGE_MIN, MERGE_MAX, _own_digest()]


@cache
def _own_digest() -> str:
    return hashlib.sha256(Path(__file__).read_bytes()).hexdigest()


@lru_cache(maxsize=1)
def _background() -> tuple[str, ...]:
    """BACKGROUND and the catalog's harmless and catch-all samples, lower case."""
    from .signatures import CATALOG

    lines = [x.lower() for x in BACKGROUND.splitlines() if x.strip()]
    for sig in CATALOG:
        if sig.role == "harmless" or (sig.role == "context" and sig.cause is None):
            lines.extend(s.lower() for s in sig.samples)
    return tuple(lines)


@cache
def background_lines(literal: str) -> int:
    return sum(1 for x in _background() if literal in x)


def cover(patterns: list[str]) -> list[str]:
    """Lower-case literals, matched caselessly, that together pass every line any of `patterns`
    matches (see the module doc)."""
    plans = [(p, factor_sets(p)) for p in patterns]

    def rarity(plan: tuple[str, list[frozenset[str]]]) -> float:
        return min((set_cost(s) for s in plan[1] if usable(s)), default=float(1 << 30))

    order: list[str] = []  # chosen, in the order taken
    by_head: dict[str, list[str]] = {}  # chosen literals by their first MIN_LITERAL characters
    short: list[str] = []  # chosen literals shorter than that

    def take(x: str) -> None:
        order.append(x)
        (by_head.setdefault(x[:MIN_LITERAL], []) if len(x) >= MIN_LITERAL else short).append(x)

    @cache
    def contains_chosen(x: str, _size: int) -> bool:
        if any(c in x for c in short):
            return True
        return any(x.startswith(c, i) for i in range(len(x) - MIN_LITERAL + 1)
                   for c in by_head.get(x[i : i + MIN_LITERAL], ()))

    def covered(x: str) -> bool:
        # Whether a chosen literal is in x (then x passes the gate already).
        return contains_chosen(x, len(order))

    def cost(s: frozenset[str]) -> float:
        # A literal another entry already brought (or one containing it) costs nothing more.
        return sum(0.0 if covered(x) else literal_cost(x) for x in s)

    # Rare entries first: their literals are then free for the common ones that share them.
    for pattern, sets in sorted(plans, key=rarity):
        candidates = [s for s in sets if usable(s)] or [s for s in sets if all(x for x in s)]
        if not candidates:
            raise ValueError(f"catalog pattern without any literal of {MIN_LITERAL} characters: {pattern!r}")
        best = min(candidates, key=lambda s: (cost(s), sum(not covered(x) for x in s), -min(len(x) for x in s), sorted(s)))
        for x in sorted(best):
            if not covered(x):
                take(x)
    return merge_literals(minimal(order))


def minimal(literals: object) -> list[str]:
    """The literals that contain no other one of them: a line holding 'cudaerrorinvalidvalue'
    holds 'cudaerrori' too, so the longer one adds nothing to the gate's reach."""
    lits = sorted(set(literals), key=lambda x: (len(x), x))  # type: ignore[call-overload]
    out: list[str] = []
    for x in lits:
        if not any(y in x for y in out):
            out.append(x)
    return out


def usable(s: frozenset[str]) -> bool:
    # Digits and punctuation ('108', '-> ') are in every log line: never a gate.
    return bool(s) and all(sum(c.isalpha() for c in x) >= MIN_LETTERS for x in s)


@cache
def literal_cost(x: str) -> float:
    """How often a gate literal can be expected to fire on ordinary lines, by its structure: a
    literal seen in ordinary text costs a line each time; otherwise the chance that text holds
    it falls with its length (a letter or digit counts whole, a space or a sign half: ' -> 2'
    is in every ring line); a lone common-looking word ('received', 'invalid') fires on text no
    sample shows."""
    weight = sum(1.0 if c.isalnum() else 0.5 for c in x)
    return background_lines(x) + (0.5 if _PLAIN_WORD.fullmatch(x) else 0.0) + 2.0 ** (MIN_LETTERS - weight)


@cache
def set_cost(s: frozenset[str]) -> float:
    return sum(literal_cost(x) for x in s)


# ---- Required factors of a regex (a simplified form of the trigram-index analysis of RE2's
# prefilter): for each part of the parsed pattern, the exact strings it can match when they are
# few, the strings every match starts and ends with, and sets of factors, one of each set in
# every match. Adjacent parts multiply (`(?:socket|ncclOsSocket)TryAccept` needs 'sockettryaccept'
# or 'ncclossockettryaccept', not just 'socket'), and a short alternation inside a sequence is
# expanded, so each alternative brings the long run it forms with its neighbours. All lower
# case: the gate is caseless, so a caseless factor of a case-sensitive pattern is still needed.
_PRODUCT_MAX = 64  # most strings a product or an alternation keeps exact
_EXPAND_MAX = 32  # most sequences an alternation inside a sequence is expanded into
_CLASS_MAX = 4  # a character class of at most this many letters is kept exact ([Ee], [ =:])

_Strings = frozenset[str]


class _Info:
    __slots__ = ("exact", "facs", "pre", "suf")

    def __init__(self, exact: _Strings | None, pre: _Strings | None = None, suf: _Strings | None = None,
                 facs: list[_Strings] | None = None) -> None:
        self.exact = exact
        self.pre = exact if exact is not None else _known(pre)
        self.suf = exact if exact is not None else _known(suf)
        self.facs = facs or []


def _known(s: _Strings | None) -> _Strings | None:
    """None for 'nothing known' (a set holding the empty string says nothing either)."""
    return None if s is None or "" in s else s


def _cross(a: _Strings, b: _Strings) -> _Strings | None:
    if len(a) * len(b) > _PRODUCT_MAX:
        return None
    return frozenset(x + y for x in a for y in b)


_UNKNOWN = _Info(None)
_EMPTY = _Info(frozenset({""}))


def _concat(a: _Info, b: _Info) -> _Info:
    facs = a.facs + b.facs
    if a.exact is not None and b.exact is not None:
        both = _cross(a.exact, b.exact)
        if both is not None:  # each string of a and of b is inside one of both: nothing to add
            return _Info(both, facs=facs)
    pre_ext = _cross(a.exact, b.pre) if a.exact is not None and b.pre is not None else None
    suf_ext = _cross(a.suf, b.exact) if b.exact is not None and a.suf is not None else None
    pre = pre_ext or (a.exact if a.exact is not None else a.pre)
    suf = suf_ext or (b.exact if b.exact is not None else b.suf)
    # What every match needs that neither the new prefix nor the new suffix carries.
    if a.exact is None and b.exact is None:
        edge = _cross(a.suf, b.pre) if a.suf is not None and b.pre is not None else None
        facs = facs + ([edge] if edge is not None else [x for x in (a.suf, b.pre) if x is not None])
    elif a.exact is not None and pre_ext is None and b.exact is None and b.pre is not None:
        facs = [*facs, b.pre]
    elif b.exact is not None and suf_ext is None and a.exact is None and a.suf is not None:
        facs = [*facs, a.suf]
    return _Info(None, pre, suf, facs)


def _alternation(infos: list[_Info]) -> _Info:
    exact: _Strings | None = None
    if all(i.exact is not None for i in infos):
        exact = frozenset().union(*(i.exact or () for i in infos))
        if len(exact) > _PRODUCT_MAX:
            exact = None
    pre = frozenset().union(*(i.pre or () for i in infos)) if all(i.pre is not None for i in infos) else None
    suf = frozenset().union(*(i.suf or () for i in infos)) if all(i.suf is not None for i in infos) else None
    facs: list[_Strings] = []
    picks = [_best(i) for i in infos]
    if all(p is not None for p in picks):
        facs.append(frozenset().union(*(p or () for p in picks)))
    return _Info(exact, pre, suf, facs)


def _candidates(info: _Info) -> list[_Strings]:
    out = list(info.facs)
    for s in (info.exact, info.pre, info.suf):
        if s is not None:
            out.append(s)
    return list(dict.fromkeys(_reduced(s) for s in out if "" not in s))


def _best(info: _Info) -> _Strings | None:
    sets = [s for s in _candidates(info) if usable(s)]
    return min(sets, key=lambda s: (set_cost(s), sorted(s))) if sets else None


@cache
def _reduced(s: _Strings) -> _Strings:
    """A set with no member containing another (the shorter one is in every line the longer is)."""
    return frozenset(minimal(s))


def _class(arg: list[tuple[object, Any]]) -> _Strings | None:
    chars: set[str] = set()
    for op, value in arg:
        if op is sre_parse.LITERAL:
            chars.add(chr(value).lower())
        elif op is sre_parse.RANGE:
            lo: int = value[0]
            hi: int = value[1]
            if hi - lo >= _CLASS_MAX:
                return None
            chars.update(chr(c).lower() for c in range(lo, hi + 1))
        else:  # a category (\d, \w), a negation
            return None
    return frozenset(chars) if 0 < len(chars) <= _CLASS_MAX else None


def _alternatives(op: object, arg: Any) -> list[Any] | None:
    """The alternatives of a branch (possibly inside a plain group), as item lists."""
    if op is sre_parse.BRANCH:
        return list(arg[1])
    if op is sre_parse.SUBPATTERN and len(arg[3]) == 1:
        inner_op, inner_arg = arg[3][0]
        return _alternatives(inner_op, inner_arg)
    return None


def _sequence(items: list[tuple[object, Any]]) -> _Info:
    # Expand the smallest alternations first while the number of sequences stays small.
    branches = sorted((len(alts), i, alts) for i, (op, arg) in enumerate(items)
                      if (alts := _alternatives(op, arg)) is not None and len(alts) > 1)
    chosen: list[tuple[int, list[Any]]] = []
    total = 1
    for n, i, alts in branches:
        if total * n > _EXPAND_MAX:
            break
        total *= n
        chosen.append((i, alts))
    if chosen:
        variants: list[list[tuple[object, Any]]] = [[]]
        expand = dict(chosen)
        for i, item in enumerate(items):
            parts = [list(a) for a in expand[i]] if i in expand else [[item]]
            variants = [v + p for v in variants for p in parts]
        return _alternation([_plain_sequence(v) for v in variants])
    return _plain_sequence(items)


def _plain_sequence(items: list[tuple[object, Any]]) -> _Info:
    info = _EMPTY
    for op, arg in items:
        info = _concat(info, _node(op, arg))
    return info


def _node(op: object, arg: Any) -> _Info:
    if op is sre_parse.LITERAL:
        return _Info(frozenset({chr(arg).lower()}))
    if op is sre_parse.IN:
        chars = _class(arg)
        return _Info(chars) if chars is not None else _UNKNOWN
    if op is sre_parse.AT or op is sre_parse.ASSERT or op is sre_parse.ASSERT_NOT:
        return _EMPTY
    if op is sre_parse.SUBPATTERN:
        return _sequence(list(arg[3]))
    if op is getattr(sre_parse, "ATOMIC_GROUP", None):
        return _sequence(list(arg))
    if op is sre_parse.BRANCH:
        return _alternation([_sequence(list(a)) for a in arg[1]])
    if op in (sre_parse.MAX_REPEAT, sre_parse.MIN_REPEAT, getattr(sre_parse, "POSSESSIVE_REPEAT", None)):
        low, high, sub = arg
        inner = _sequence(list(sub))
        if low == 0:
            if high == 1 and inner.exact is not None:
                return _Info(inner.exact | {""})
            return _UNKNOWN
        if low == high and inner.exact is not None and len(inner.exact) ** low <= _PRODUCT_MAX:
            out = _EMPTY
            for _ in range(low):
                out = _concat(out, inner)
            return out
        return _Info(None, inner.pre, inner.suf, inner.facs + [s for s in (inner.exact,) if s is not None])
    return _UNKNOWN  # any character, a negated literal, a back reference


def factor_sets(pattern: str) -> list[frozenset[str]]:
    """Sets of lower-case literals such that every match of `pattern` contains one literal of
    each set (the gate takes the one set it finds cheapest)."""
    flags = re.IGNORECASE if pattern.startswith("(?i)") else 0
    info = _sequence(list(sre_parse.parse(pattern, flags)))
    out = list(dict.fromkeys(_candidates(info)))
    return out or [frozenset(s) for s in needed_sets(pattern)]


def merge_literals(literals: list[str]) -> list[str]:
    """Fewer, shorter literals with the same reach: a substring of MERGE_MIN characters that
    several chosen literals share and that ordinary text never contains replaces them all
    ('cudaerrorinvalid…', 'cudaerrorillegal…' -> 'cudaerrori'). Hyperscan's literal matcher
    slows with the number of literals; every line a replaced literal passed still passes."""
    text = "\n".join(_background())
    owners: dict[str, set[int]] = {}
    for i, lit in enumerate(literals):
        for a in range(len(lit)):
            for b in range(a + MERGE_MIN, min(len(lit), a + MERGE_MAX) + 1):
                owners.setdefault(lit[a:b], set()).add(i)
    shared = [(sub, ids) for sub, ids in owners.items() if len(ids) > 1 and sum(c.isalpha() for c in sub) >= MERGE_MIN]
    # A plain word ('received') is a poor gate whatever the samples say; a longer run or one
    # with punctuation or spaces in it ('cudaerrori', ' timed out') is not.
    shared = [(sub, ids) for sub, ids in shared if sub not in text and (not sub.isalpha() or len(sub) >= WORD_GATE_MIN)]
    shared.sort(key=lambda item: (-len(item[1]), -len(item[0]), item[0]))
    covered: set[int] = set()
    out: list[str] = []
    for sub, ids in shared:
        if len(ids - covered) > 1:
            out.append(sub)
            covered |= ids
    out.extend(lit for i, lit in enumerate(literals) if i not in covered)
    return sorted(set(out))


def build() -> str:
    """Work out the gate and compile its scan databases into the cache now, as an install or
    upgrade does (`python -m triage.engine.gate --build`; Makefile, Dockerfile), so that the
    first diagnosis loads them instead of building them. Returns the scan engine in use."""
    from .scan import prefilter
    from .signatures.matcher import matcher

    matcher()  # the catalog's own database
    return prefilter().engine


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description="The engine's scan gate.")
    parser.add_argument("--build", action="store_true", help="build the gate and its compiled databases into the cache")
    if parser.parse_args().build:
        print(f"scan gate ready ({build()})")
