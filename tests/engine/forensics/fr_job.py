"""A small real job for the flight-recorder tests: CPU torch, gloo, N ranks, eight all_reduces.

One rank (`--culprit`) misbehaves at the collective `--step` (1-based):
  stall   never reaches it (stuck in Python before it)
  skip    skips it (its later collectives shift by one)
  op      runs a broadcast where the others run all_reduce
  shape   runs it on a [2, 512] tensor where the others use [1024] (same bytes: gloo runs it)
  healthy does what the others do
Every rank then dumps its recorder with torch's own `_dump_fr_trace` (pickle) and
`_dump_fr_trace_json` into `<out>/pickle/nccl_trace_rank_<rank>` and `<out>/json/nccl_trace_rank_<rank>.json`,
as TORCH_NCCL_DUMP_ON_TIMEOUT would with TORCH_FR_DUMP_TEMP_FILE=<dir>/nccl_trace_rank_ (torch's default name), and leaves.

`--torchrun`: run as a torchrun worker (rank from the environment); the waiting ranks time out
(gloo, 3 s) and raise, as a real hang ends.
"""
from __future__ import annotations

import argparse
import os
import socket
import sys
import time
from datetime import timedelta


def work(rank: int, world: int, args: argparse.Namespace, init: str | None) -> None:
    os.environ.setdefault("TORCH_FR_BUFFER_SIZE", "2000")
    import torch
    import torch.distributed as dist
    from torch._C._distributed_c10d import _dump_fr_trace, _dump_fr_trace_json

    if init:
        # No rank waits on the collective that goes wrong here (each dumps and leaves): the
        # timeout bounds only the rendezvous and the collectives before it, which a loaded
        # machine (CI: two cores, the rest of the suite beside it) can slow past a few seconds.
        dist.init_process_group("gloo", init_method=init, rank=rank, world_size=world, timeout=timedelta(seconds=60))
    else:
        dist.init_process_group("gloo", timeout=timedelta(seconds=3))

    def dump() -> None:
        for sub, data, suffix in (("pickle", _dump_fr_trace(), ""), ("json", _dump_fr_trace_json(), ".json")):
            os.makedirs(os.path.join(args.out, sub), exist_ok=True)
            with open(os.path.join(args.out, sub, f"nccl_trace_rank_{rank}{suffix}"), "wb") as f:
                f.write(data)

    works = []
    culprit = rank == args.culprit
    for i in range(1, 9):
        tensor = torch.ones(1024)
        if culprit and i == args.step:
            if args.scenario == "stall":
                if args.torchrun:
                    time.sleep(1)  # stuck a while; it dumps and leaves before the others time out
                break
            if args.scenario == "skip":
                continue
            if args.scenario == "op":
                works.append(dist.broadcast(tensor, src=0, async_op=True))
                continue
            if args.scenario == "shape":
                tensor = torch.ones(2, 512)
        works.append(dist.all_reduce(tensor, async_op=True))
        if i < args.step:
            works[-1].wait()
    if args.torchrun and not culprit:
        try:
            for w in works:
                w.wait()
        except Exception:
            dump()
            print(f"[rank{rank}] dumped the flight recorder after a timeout", file=sys.stderr, flush=True)
            raise
    if args.scenario == "healthy":
        for w in works:
            w.wait()  # every collective finished before the dump, however loaded the machine
    time.sleep(0.5)
    dump()
    sys.stdout.flush()
    os._exit(0)


def _spawned(rank: int, world: int, args: argparse.Namespace, init: str) -> None:
    work(rank, world, args, init)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("scenario", nargs="+", help="NAME or NAME:WORLD:CULPRIT (several: run one after the other, "
                                                 "each into <out>/NAME-WORLD-CULPRIT)")
    p.add_argument("--world", type=int, default=4)
    p.add_argument("--culprit", type=int, default=2)
    p.add_argument("--step", type=int, default=6)
    p.add_argument("--out", required=True)
    p.add_argument("--port", type=int, default=0, help="the store's port (0: a free one, asked for each scenario)")
    p.add_argument("--torchrun", action="store_true")
    args = p.parse_args()
    if args.torchrun:
        args.scenario = args.scenario[0]
        work(int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"]), args, None)
        return
    import torch.multiprocessing as mp

    specs = args.scenario
    root = args.out
    for i, spec in enumerate(specs):
        name, _, rest = spec.partition(":")
        world, _, culprit = rest.partition(":")
        one = argparse.Namespace(**vars(args))
        one.scenario, one.world, one.culprit = name, int(world or args.world), int(culprit or args.culprit)
        one.out = root if len(specs) == 1 and ":" not in spec else os.path.join(root, f"{name}-{one.world}-{one.culprit}")
        for attempt in range(3):
            port = args.port + i if args.port else _free_port()
            try:
                mp.start_processes(_spawned, args=(one.world, one, f"tcp://127.0.0.1:{port}"), nprocs=one.world,
                                   start_method="fork", join=True)
                break
            except mp.ProcessRaisedException as exc:
                # Only the store's port taken between asking and binding is run again: any
                # other failure of the job is the test's to see.
                if args.port or attempt == 2 or "address already in use" not in str(exc).lower():
                    raise


def _free_port() -> int:
    # Asked right before each scenario: a port picked once for all of them, plus an offset, can
    # be another process's by then (the suite's own clients hold ephemeral ports).
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


if __name__ == "__main__":
    main()
