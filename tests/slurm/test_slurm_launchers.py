"""srun --label for real: a Slurm task id is the rank where srun starts the ranks itself, and is
no rank where each task runs a launcher (srun torchrun): the job's output file alone must name
the rank that failed first (identity catalog: slurm.label, torchrun.*).

No incident is made here (no slurm.env: the prolog and epilog do nothing); the job's output is
diagnosed as the file Slurm wrote."""
from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from tests.slurm.conftest import Slurm
from triage.engine import diagnose
from triage.scenarios.gloo import WORKER, free_port


def _job(slurm: Slurm, tmp_path: Path, body: str, fail_rank: int, tasks: int, mode: str = "exception") -> dict:
    script = (
        "#!/bin/bash\n"
        # More tasks than the test machine has cores: the ranks mostly wait in collectives.
        f"#SBATCH --ntasks={tasks} --overcommit\n"
        "export OMP_NUM_THREADS=1 PYTHONUNBUFFERED=1 LOG_RANK_TAG=0\n"
        f"export SCENARIO_MODE={mode} FAIL_RANK={fail_rank} FAIL_STEP=3 STEPS=6 PG_TIMEOUT_S=30\n"
        f"export MASTER_ADDR=127.0.0.1 MASTER_PORT={free_port()}\n"
        "unset RANK WORLD_SIZE LOCAL_RANK\n"
        f"{body}\n"
    )
    job = slurm.submit(script)
    assert slurm.wait_done(job, timeout=180) == "FAILED", slurm.logs()
    out = tmp_path / "bundle"
    out.mkdir()
    shutil.copyfile(slurm.root / "jobs" / f"job-{job}.out", out / "output.txt")
    return diagnose(str(out)).to_dict()


@pytest.mark.parametrize("fail_rank", [1, 2])
def test_srun_label_of_ranks_started_by_srun_names_the_failing_rank(slurm: Slurm, tmp_path: Path,
                                                                    fail_rank: int) -> None:
    d = _job(slurm, tmp_path, f"srun --label --overcommit -n 3 {sys.executable} {WORKER}", fail_rank, 3)
    assert d["findings"][0]["cause"] == "rank_crash"
    assert d["first_failure"]["rank"] == fail_rank
    assert {r["rank"] for r in d["ranks"]} == {0, 1, 2}


def test_srun_label_over_torchrun_agents_names_the_global_rank_not_the_task(slurm: Slurm, tmp_path: Path) -> None:
    # Two tasks, each a torchrun agent of a 2-"node" job on this machine: task 1 runs global
    # ranks 2 and 3. Rank 2 (task 1, local rank 0) fails: neither 1 (its task) nor 0 (its local rank).
    port = free_port()
    body = ("srun --label --overcommit -n 2 bash -c '" + sys.executable + " -m torch.distributed.run --nnodes 2 "
            "--node-rank $SLURM_PROCID --nproc-per-node 2 --master-addr 127.0.0.1 "
            f"--master-port {port} --max-restarts 0 --tee 3 {WORKER}'")
    d = _job(slurm, tmp_path, body, fail_rank=2, tasks=2)
    assert d["findings"][0]["cause"] == "rank_crash"
    assert d["first_failure"]["rank"] == 2
    assert {r["rank"] for r in d["ranks"]} <= {0, 1, 2, 3}
