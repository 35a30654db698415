"""Training script run by torchrun (or plainly) in the real gloo scenarios; see gloo.py.

Run as a separate process only: it imports torch at module level, which the rest of the
scenarios package must not do.

Modes:
  exception  rank FAIL_RANK raises a Python exception at step FAIL_STEP; the others are
             inside an all_reduce at that moment.
  sigkill    rank FAIL_RANK sends itself SIGKILL at step FAIL_STEP.
  segv       rank FAIL_RANK dies of SIGSEGV at step FAIL_STEP (a null read through ctypes; with
             PYTHONFAULTHANDLER=1 CPython's faulthandler prints its 'Fatal Python error' dump,
             which no rank prefix marks), while the others are inside an all_reduce.
WRAP_ERRORS=1: a rank whose all_reduce fails raises the application's own RuntimeError from
the collective's error (the last exception line is then the application's, not gloo's).
  rendezvous plain init_process_group with WORLD_SIZE larger than the processes started,
             so the TCPStore barrier times out.
  stall      rank FAIL_RANK stops in its data loader at step FAIL_STEP (sleeps past the
             process group timeout) while the others wait in all_reduce and time out.
  skip       rank FAIL_RANK skips the all_reduce of step FAIL_STEP (a branch on rank) and then
             blocks in a barrier the others never reach.
  mismatch   rank FAIL_RANK calls broadcast where the others call all_reduce at step FAIL_STEP
             (run with TORCH_DISTRIBUTED_DEBUG=DETAIL: c10d's wrapper checks every collective).
  barrier    every step begins with dist.monitored_barrier (MONITOR_S seconds); rank FAIL_RANK
             stops in its data loader at step FAIL_STEP, so rank 0 reports it as not arriving
             ('Rank N failed to pass monitoredBarrier') and the others lose rank 0.
"""
from __future__ import annotations

import logging
import os
import signal
import sys
import time
from datetime import timedelta

import torch
import torch.distributed as dist
from torch.distributed.elastic.multiprocessing.errors import record

log = logging.getLogger("train")


def _setup_logging(rank: int) -> None:
    # A timestamped application log line per step gives the bundle a wall clock near the failure,
    # as real training scripts do.
    logging.basicConfig(
        level=logging.INFO,
        # LOG_RANK_TAG=0: the script names no rank itself, the launcher's prefix is all that does.
        format=(f"%(asctime)s [rank{rank}] %(levelname)s %(message)s" if os.environ.get("LOG_RANK_TAG", "1") == "1"
                else "%(asctime)s %(levelname)s %(message)s"),
        stream=sys.stdout,
    )


def _train(mode: str, fail_rank: int, fail_step: int, steps: int) -> None:
    rank = dist.get_rank()
    tensor = torch.ones(16)
    for step in range(1, steps + 1):
        if mode == "barrier" and not (rank == fail_rank and step == fail_step):
            dist.monitored_barrier(timeout=timedelta(seconds=float(os.environ.get("MONITOR_S", "3"))))
        if rank == fail_rank and step == fail_step:
            # Give the other ranks time to enter the all_reduce of this step first.
            time.sleep(0.5)
            if mode in ("exception", "sigkill", "segv"):
                log.info("step %d: failing on purpose (%s)", step, mode)
                sys.stdout.flush()
            if mode == "sigkill":
                os.kill(os.getpid(), signal.SIGKILL)
            if mode == "segv":
                import ctypes
                ctypes.string_at(0)
            if mode in ("stall", "barrier"):
                log.info("step %d: loading the next batch", step)
                sys.stdout.flush()
                time.sleep(3600)  # torchrun stops it once the others time out
            if mode == "mismatch":
                log.info("step %d: broadcast where the others all_reduce", step)
                sys.stdout.flush()
                dist.broadcast(tensor, 0)
                continue
            if mode == "skip":
                log.info("step %d: skipping all_reduce on this rank", step)
                sys.stdout.flush()
                dist.barrier()
                continue
            raise ValueError(f"loss is NaN at step {step} (injected failure on rank {rank})")
        try:
            dist.all_reduce(tensor)
        except RuntimeError as e:
            if os.environ.get("WRAP_ERRORS") != "1":
                raise
            # As training loops do: the collective's error wrapped in the application's own.
            raise RuntimeError(f"training failed at step {step}") from e
        log.info("step %d all_reduce done sum=%.1f", step, float(tensor[0]))
        tensor.fill_(1.0)
        time.sleep(0.05)


@record
def main() -> None:
    mode = os.environ.get("SCENARIO_MODE", "exception")
    fail_rank = int(os.environ.get("FAIL_RANK", "1"))
    fail_step = int(os.environ.get("FAIL_STEP", "3"))
    steps = int(os.environ.get("STEPS", "6"))
    timeout = timedelta(seconds=float(os.environ.get("PG_TIMEOUT_S", "10")))
    # RANK as torchrun sets it, or the rank a launcher names its processes by (mpirun, srun).
    rank = int(os.environ.get("RANK") or os.environ.get("OMPI_COMM_WORLD_RANK") or os.environ["SLURM_PROCID"])
    os.environ["RANK"] = str(rank)
    os.environ.setdefault("WORLD_SIZE", os.environ.get("OMPI_COMM_WORLD_SIZE") or os.environ.get("SLURM_NTASKS", "1"))
    _setup_logging(rank)
    log.info("starting: mode=%s world_size=%s pid=%d", mode, os.environ.get("WORLD_SIZE"), os.getpid())
    sys.stdout.flush()
    dist.init_process_group("gloo", timeout=timeout)
    log.info("process group ready: rank %d of %d", dist.get_rank(), dist.get_world_size())
    try:
        _train(mode, fail_rank, fail_step, steps)
    finally:
        sys.stdout.flush()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
