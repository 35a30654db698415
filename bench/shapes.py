"""Log shapes for the parse benchmark: each a bundle of about `total` bytes in which rank
CULPRIT hits a CUDA OOM near the end and the other ranks' watchdogs time out after it.

1 info_recurring  NCCL_DEBUG=INFO, identity lines (init, comm/nRanks, channels, c10d INFO)
                  recurring through the run, as with many communicators or SUBSYS=ALL
2 trace_warns     NCCL_DEBUG=TRACE-like: TRACE lines, many harmless WARNs and connect retries
3 combined_256    one torchrun stdout of 256 interleaved ranks (`[rankN]:` prefixes)
4 files_2048      2,048 small per-rank files
5 traceback_dense a Python warning with its stack on every step
6 long_line_junk  one 50 MB line and binary junk mixed into INFO logs
7 files_16k       16,384 per-rank files (not in the issue's list: the cost of many ranks)
8 files_64k       65,536 per-rank files, generated small (about 4 KB each whatever the size asked)
"""
from __future__ import annotations

import os
import random
from collections.abc import Callable, Iterator
from pathlib import Path

CULPRIT = 37
FLUSH = 1 << 20


def _host(rank: int, per_host: int = 8) -> str:
    return f"gpu-node-{rank // per_host:03d}"


def _p(rank: int, per_host: int = 8) -> str:
    dev = rank % per_host
    return f"{_host(rank, per_host)}:{40000 + rank}:{40077 + rank} [{dev}] NCCL INFO "


def _ending(rank: int, ranks: int, seq: int, prefix: str = "") -> list[str]:
    dev = rank % 8
    if rank == CULPRIT:
        return [
            f"{prefix}Traceback (most recent call last):",
            f'{prefix}  File "train.py", line 212, in <module>',
            f"{prefix}    loss.backward()",
            f"{prefix}torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU {dev} has a total "
            f"capacity of 79.10 GiB of which 1.12 GiB is free. Of the allocated memory 74.20 GiB is allocated by PyTorch.",
        ]
    return [
        f"{prefix}[E1201 14:42:{rank % 60:02d}.123456 ProcessGroupNCCL.cpp:616] [Rank {rank}] Watchdog caught collective "
        f"operation timeout: WorkNCCL(SeqNum={seq}, OpType=ALLREDUCE, NumelIn=4194304, NumelOut=4194304, "
        f"Timeout(ms)=600000) ran for 600031 milliseconds before timing out."
    ]


def _init_block(rank: int, ranks: int, comm: int) -> list[str]:
    p = _p(rank)
    dev = rank % 8
    bus = f"{0x18 + dev * 0x10:x}000"
    out = [p + f"ncclCommInitRank comm 0x55{comm:08x} rank {rank} nranks {ranks} cudaDev {dev} nvmlDev {dev} busId {bus} commId 0x9f3c{comm:012x} - Init START",
           p + f"comm 0x55{comm:08x} rank {rank} nRanks {ranks} nNodes {ranks // 8} localRanks 8 localRank {dev} MNNVL 0"]
    for ch in range(16):
        out.append(p + f"Channel {ch:02d}/0 : {rank}[{dev}] -> {(rank + 1) % ranks}[{(dev + 1) % 8}] via P2P/CUMEM/read")
    out.append(p + f"ncclCommInitRank comm 0x55{comm:08x} rank {rank} nranks {ranks} cudaDev {dev} nvmlDev {dev} busId {bus} commId 0x9f3c{comm:012x} - Init COMPLETE")
    out.append(f"[rank{rank}]:[I1201 14:30:00.000000 ProcessGroupNCCL.cpp:935] [PG ID {comm % 7} PG GUID {comm} Rank {rank}] ProcessGroupNCCL "
               f"initialization options: size: {ranks}, global rank: {rank}, TIMEOUT(ms): 600000, USE_HIGH_PRIORITY_STREAM: 0, "
               f"SPLIT_FROM: 0, SPLIT_COLOR: 0, PG Name: {comm % 7}")
    return out


def _banner(rank: int) -> list[str]:
    p = _p(rank)
    h = f"{_host(rank)}:{40000 + rank}:{40000 + rank} [{rank % 8}] NCCL INFO "
    return [h + f"Bootstrap : Using eth0:10.0.{rank // 8}.{rank % 8 + 10}<0>", h + "cudaDriverVersion 12040",
            h + "NCCL version 2.21.5+cuda12.4", p + "NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [RO]; OOB eth0:10.0.0.1<0>",
            p + "Using network IB"]


def _coll(rank: int, rng: random.Random, op_count: int) -> str:
    op = ("AllReduce", "AllGather", "ReduceScatter", "Broadcast")[op_count % 4]
    return (f"{_p(rank)}{op}: opCount {op_count:x} sendbuff 0x7f3a{rng.getrandbits(24):06x}00 recvbuff 0x7f3b{rng.getrandbits(24):06x}00 "
            f"count {rng.choice((1, 262144, 1048576))} datatype 7 op 0 root 0 comm 0x5561{rank:04x}0 [nranks=64] stream 0x55e1c2a4d0")


def _write(path: Path, lines: Iterator[str], target: int) -> int:
    written = 0
    buf: list[str] = []
    size = 0
    with open(path, "w", encoding="utf-8", newline="\n") as out:
        for line in lines:
            buf.append(line)
            size += len(line) + 1
            if size >= min(FLUSH, target):
                out.write("\n".join(buf) + "\n")
                written += size
                buf, size = [], 0
                if written >= target:
                    break
        if buf:
            out.write("\n".join(buf) + "\n")
            written += size
    return written


def _rank_file(path: Path, rank: int, ranks: int, target: int, body: Callable[[int, random.Random], Iterator[str]]) -> None:
    rng = random.Random(rank)
    seq = 0

    def lines() -> Iterator[str]:
        nonlocal seq
        yield from _banner(rank)
        yield from _init_block(rank, ranks, 1)
        for line in body(rank, rng):
            seq += 1
            yield line

    _write(path, lines(), max(target - 4096, 1))
    with open(path, "a", encoding="utf-8") as out:
        out.write("\n".join(_ending(rank, ranks, seq)) + "\n")


def info_recurring(root: Path, total: int) -> None:
    ranks = 64

    def body(rank: int, rng: random.Random) -> Iterator[str]:
        n = 0
        comm = 2
        while True:
            for _ in range(8):
                n += 1
                yield _coll(rank, rng, n)
            comm += 1
            yield from _init_block(rank, ranks, comm if comm % 5 else 1)

    for rank in range(ranks):
        (root / _host(rank)).mkdir(parents=True, exist_ok=True)
        _rank_file(root / _host(rank) / f"rank{rank}.log", rank, ranks, total // ranks, body)


def trace_warns(root: Path, total: int) -> None:
    ranks = 64

    def body(rank: int, rng: random.Random) -> Iterator[str]:
        host, pid, dev = _host(rank), 40000 + rank, rank % 8
        n = 0
        while True:
            n += 1
            t = f"{n * 0.000731:.6f}"
            yield f"{host}:{pid}:{pid + 3} [{dev}] {t} ncclProxyProgress:1120 NCCL TRACE [{n % 16}] Sent step {n} posted {n + 1} size 524288"
            yield f"{host}:{pid}:{pid + 3} [{dev}] {t} ncclProxyProgress:1133 NCCL TRACE [{n % 16}] Received step {n} transmitted {n}"
            if n % 3 == 0:
                yield f"{host}:{pid}:{pid + 9} [{dev}] misc/socket.cc:{560 + n % 7} NCCL WARN NET/Socket : Call to connect returned Connection refused, retrying"
            if n % 5 == 0:
                yield f"{host}:{pid}:{pid + 9} [{dev}] graph/xml.cc:{320} NCCL WARN Could not find real path of /sys/class/net/ib{n % 4}/device"
            if n % 7 == 0:
                yield f"{host}:{pid}:{pid + 9} [{dev}] NCCL INFO NET/IB : Got async event : port active (retry {n % 4})"

    for rank in range(ranks):
        (root / _host(rank)).mkdir(parents=True, exist_ok=True)
        _rank_file(root / _host(rank) / f"rank{rank}.log", rank, ranks, total // ranks, body)


def combined_256(root: Path, total: int) -> None:
    ranks = 256
    rng = random.Random(3)
    root.mkdir(parents=True, exist_ok=True)

    def lines() -> Iterator[str]:
        for rank in range(ranks):
            for line in _banner(rank) + _init_block(rank, ranks, 1):
                yield f"[rank{rank}]:{line}"
        step = 0
        while True:
            step += 1
            for rank in range(ranks):
                r = rng.random()
                if r < 0.5:
                    yield f"[rank{rank}]:{_coll(rank, rng, step)}"
                elif r < 0.8:
                    yield f"[rank{rank}]:step {step} loss {rng.random() * 3:.4f} lr 3.0e-4 tokens/s {rng.randint(9000, 12000)}"
                else:
                    yield f"[rank{rank}]:[I1201 14:{30 + step // 6000 % 30:02d}:{step // 100 % 60:02d}.{rng.randint(0, 999999):06d} trainer.py:88] data loader wait {rng.random():.3f}s"

    _write(root / "torchrun.log", lines(), total - 65536)
    with open(root / "torchrun.log", "a", encoding="utf-8") as out:
        for rank in [CULPRIT] + [r for r in range(ranks) if r != CULPRIT]:
            out.write("\n".join(_ending(rank, ranks, 1000, f"[rank{rank}]:")) + "\n")


def files_2048(root: Path, total: int) -> None:
    _per_rank_files(root, total, 2048)


def files_16k(root: Path, total: int) -> None:
    """16,384 ranks, one small file each: the per-source cost and the per-rank state."""
    _per_rank_files(root, total, 16384)


def files_64k(root: Path, total: int) -> None:
    """65,536 ranks: the per-rank state at fleet scale; each file a banner, an init block, a
    few collectives and its last words (about 4 KB; 280 MB in all), whatever `total` says."""
    _per_rank_files(root, 65536 * 8192, 65536)


def _per_rank_files(root: Path, total: int, ranks: int) -> None:
    def body(rank: int, rng: random.Random) -> Iterator[str]:
        n = 0
        while True:
            n += 1
            yield _coll(rank, rng, n) if n % 4 else f"[rank{rank}]: step {n} loss {rng.random() * 3:.4f}"

    for rank in range(ranks):
        (root / _host(rank)).mkdir(parents=True, exist_ok=True)
        _rank_file(root / _host(rank) / f"rank{rank}.log", rank, ranks, total // ranks, body)


def traceback_dense(root: Path, total: int) -> None:
    ranks = 64

    def body(rank: int, rng: random.Random) -> Iterator[str]:
        n = 0
        while True:
            n += 1
            yield f"[rank{rank}]: step {n} loss {rng.random() * 3:.4f}"
            yield f"[rank{rank}]: Stack (most recent call last):"
            for depth, (fname, func) in enumerate((("train.py", "<module>"), ("train.py", "main"), ("trainer.py", "fit"),
                                                   ("trainer.py", "step"), ("torch/nn/modules/module.py", "_call_impl"),
                                                   ("model.py", "forward"), ("torch/utils/checkpoint.py", "checkpoint"))):
                yield f'[rank{rank}]:   File "/opt/app/{fname}", line {100 + depth * 7}, in {func}'
                yield f"[rank{rank}]:     out = self.block{depth}(x)"
            yield (f"[rank{rank}]: /opt/app/torch/utils/checkpoint.py:464: UserWarning: torch.utils.checkpoint: the use_reentrant "
                   "parameter should be passed explicitly.")

    for rank in range(ranks):
        (root / _host(rank)).mkdir(parents=True, exist_ok=True)
        _rank_file(root / _host(rank) / f"rank{rank}.log", rank, ranks, total // ranks, body)


def long_line_junk(root: Path, total: int) -> None:
    ranks = 64

    def body(rank: int, rng: random.Random) -> Iterator[str]:
        n = 0
        while True:
            n += 1
            yield _coll(rank, rng, n)
            if n % 20000 == 0:
                yield "".join(chr(rng.choice((0xFFFD, 0x7, 0x1B, 0x2591, 0x41))) for _ in range(200))

    for rank in range(ranks):
        (root / _host(rank)).mkdir(parents=True, exist_ok=True)
        _rank_file(root / _host(rank) / f"rank{rank}.log", rank, ranks, total // ranks, body)
    # One 50 MB line (a tensor printed whole) in the middle of one rank's log, and a binary blob.
    victim = root / _host(5) / "rank5.log"
    data = victim.read_bytes()
    cut = data.index(b"\n", len(data) // 2) + 1
    with open(victim, "wb") as out:
        out.write(data[:cut])
        out.write(b"tensor([" + b"0.1234, " * (50 * 1024 * 1024 // 8) + b"])\n")
        out.write(data[cut:])
    (root / "core.bin").write_bytes(os.urandom(8 * 1024 * 1024))


SHAPES: dict[str, Callable[[Path, int], None]] = {
    "info_recurring": info_recurring,
    "trace_warns": trace_warns,
    "combined_256": combined_256,
    "files_2048": files_2048,
    "files_16k": files_16k,
    "traceback_dense": traceback_dense,
    "long_line_junk": long_line_junk,
    "files_64k": files_64k,
}
