"""The environment variables that explain a distributed job, with secrets redacted, and job ids."""
from __future__ import annotations

import re
from collections.abc import Mapping

REDACTED = "[redacted]"

# A name that looks like it holds a credential. Broad on purpose: hiding NCCL_IB_PKEY's value
# costs little, leaking a WANDB_API_KEY into a shared incident page costs a lot.
_SECRET_NAME = re.compile(r"token|key|password|secret|credential", re.IGNORECASE)

_EXACT = frozenset({
    "CUDA_VISIBLE_DEVICES", "LOCAL_RANK", "RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "GROUP_RANK",
    "ROLE_RANK", "MASTER_ADDR", "MASTER_PORT", "OMP_NUM_THREADS", "LD_LIBRARY_PATH",
    "SLURM_JOB_ID", "SLURM_JOB_NODELIST", "SLURM_NODEID", "SLURM_PROCID", "SLURM_LOCALID",
    "SLURM_NTASKS", "SLURM_STEP_ID",
})
_PREFIXES = ("NCCL_", "TORCH_", "TORCHELASTIC_", "PYTORCH_", "CUDA_", "NVIDIA_", "PET_")

# Schedulers and launchers whose job id names the incident, most specific first.
JOB_ID_VARS = (
    "NCCL_TRIAGE_JOB", "SLURM_JOB_ID", "TORCHELASTIC_RUN_ID", "PBS_JOBID", "LSB_JOBID",
    "FLUX_JOB_ID", "JOB_ID", "KUBEFLOW_JOB_NAME",
)


def is_secret_name(name: str) -> bool:
    return bool(_SECRET_NAME.search(name))


def redact(env: Mapping[str, str]) -> dict[str, str]:
    return {k: (REDACTED if is_secret_name(k) else v) for k, v in env.items()}


def relevant_env(environ: Mapping[str, str]) -> dict[str, str]:
    """The variables that matter for triage, sorted by name, secrets redacted."""
    picked = {k: v for k, v in environ.items() if k in _EXACT or k.startswith(_PREFIXES)}
    return redact(dict(sorted(picked.items())))


def job_id_from_env(environ: Mapping[str, str]) -> str | None:
    for name in JOB_ID_VARS:
        value = environ.get(name, "").strip()
        # torchrun's default rendezvous id is the literal "none": it names no job.
        if value and value.lower() != "none":
            return value
    return None
