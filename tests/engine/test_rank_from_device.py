"""A failing line that names a GPU but no rank: its rank is inferred from the device only where
the other processes of the node show how ranks sit on GPUs, and never against them."""
from __future__ import annotations

from pathlib import Path

import pytest

from triage.engine import diagnose


def _log(known: list[tuple[int, int]]) -> str:
    """Init START and COMPLETE of each known (rank, GPU) of a 16-rank world on node-a, then a
    process on GPU 3 that no line gives a rank fails."""
    out = []
    for rank, dev in known:
        pid = 100 + dev
        for phase in ("Init START", "Init COMPLETE"):
            out.append(f"node-a:{pid}:{pid} [{dev}] NCCL INFO ncclCommInitRank comm 0x55{dev} rank {rank} nranks 16 "
                       f"cudaDev {dev} nvmlDev {dev} busId {0x18 + dev:x}000 commId 0x9 - {phase}")
    out.append("node-a:103:103 [3] NCCL INFO cudaDriverVersion 12040")
    out.append("node-a:103:103 [3] include/alloc.h:100 NCCL WARN Cuda failure 'out of memory'")
    return "\n".join(out) + "\n"


@pytest.mark.parametrize(("known", "rank", "rank_from"), [
    # One rank shows no offset, however many init lines it prints (START, COMPLETE): rank 8 on
    # GPU 0 says only that GPU N is not rank N on this node.
    ([(8, 0)], None, None),
    ([(8, 0), (9, 1)], 11, "log"),  # two ranks at GPU + 8: GPU 3 is rank 11
    ([(0, 0)], 3, "GPU index on a single node"),
    ([(0, 0), (1, 1)], 3, "log"),
])
def test_the_rank_of_a_gpu_is_inferred_only_where_the_node_shows_the_layout(
        tmp_path: Path, known: list[tuple[int, int]], rank: int | None, rank_from: str | None) -> None:
    log = tmp_path / "node-a.log"
    log.write_text(_log(known))
    d = diagnose(log).to_dict()
    assert d["findings"][0]["rule"] == "oom.nccl_alloc"
    assert d["first_failure"]["device"] == 3
    assert d["first_failure"]["rank"] == rank
    assert d["first_failure"]["rank_from"] == rank_from


def _oom_on(dev: int, pid: int, init: bool) -> str:
    lines = []
    if init:
        lines.append(f"node-a:{pid}:{pid} [{dev}] NCCL INFO ncclCommInitRank comm 0x55 rank {dev} nranks 2 "
                     f"cudaDev {dev} nvmlDev {dev} busId 18000 commId 0x9 - Init COMPLETE")
    lines.append(f"node-a:{pid}:{pid} [{dev}] include/alloc.h:100 NCCL WARN Cuda failure 'out of memory'")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(("dev", "init", "rank"), [
    (2, False, 2),     # GPU 2: the process chose it (cudaSetDevice(local_rank)): local rank 2 on one node
    (0, False, None),  # GPU 0: every process's default, the only GPU under per-process isolation
    (0, True, 0),      # an init line pairs rank 0 with cudaDev 0: the layout is shown
])
def test_gpu_0_names_a_rank_only_where_an_init_line_shows_the_layout(
        tmp_path: Path, dev: int, init: bool, rank: int | None) -> None:
    log = tmp_path / "node-a.log"
    log.write_text(_oom_on(dev, 4242, init))
    d = diagnose(log).to_dict()
    assert d["findings"][0]["cause"] == "oom"
    assert d["first_failure"]["rank"] == rank
    assert d["first_failure"]["device"] == dev


def test_two_ranks_failing_alike_untimed_name_no_rank_for_a_shared_cause(tmp_path: Path) -> None:
    # Rank 3's network error is whole, rank 2's traceback is cut: file order is not failure order.
    lines = [
        "[rank3]: Traceback (most recent call last):",
        '[rank3]:   File "train.py", line 9, in <module>',
        "[rank3]: torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:3763, remote process "
        "exited or there was a network error, NCCL version 2.28.8",
        "[rank3]: ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.",
        "[rank3]: Last error:",
        "[rank3]: NET/OFI Request 0x7f14cc5b60c0 completed with error. RC: 113. Error: 2 (UNDELIVERABLE). Completed "
        "length: 0",
        "[rank2]: Traceback (most recent call last):",
        '[rank2]:   File "train.py", line 9, in <module>',
    ]
    log = tmp_path / "job.log"
    log.write_text("\n".join(lines) + "\n")
    d = diagnose(log).to_dict()
    assert d["findings"][0]["cause"] == "network"
    assert d["first_failure"]["rank"] is None
    # Rank 2 alone failing: rank 3's error names it.
    log.write_text("\n".join(lines[:6]) + "\n")
    assert diagnose(log).to_dict()["first_failure"]["rank"] == 3
