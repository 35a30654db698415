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
