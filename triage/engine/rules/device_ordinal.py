"""device_ordinal: ranks mapped to GPUs wrongly: two ranks on one GPU (NCCL Duplicate GPU), or a
local rank beyond the visible devices (invalid device ordinal)."""
from __future__ import annotations

from collections import defaultdict

from ..facts import Facts
from ..model import Finding
from .common import earliest, evidence, hosts_of, ranks_of, where

FIX = (
    "Give every process its own GPU: call torch.cuda.set_device(local_rank) (LOCAL_RANK from the "
    "launcher) before init_process_group / model creation, and make --nproc-per-node match the "
    "GPUs in CUDA_VISIBLE_DEVICES. Check what each process sees:\n"
    "python -c 'import os, torch; print(os.environ.get(\"CUDA_VISIBLE_DEVICES\"), os.environ.get(\"LOCAL_RANK\"), "
    "torch.cuda.device_count())'\n"
    "nvidia-smi --query-compute-apps=pid,gpu_bus_id --format=csv"
)


def find(facts: Facts) -> list[Finding]:
    findings: list[Finding] = []
    dup = facts.kind("nccl_duplicate_gpu")
    ordinal = [e for e in facts.kind("cuda_error") if e.data.get("error_class") == "device_ordinal"]
    busy = [e for e in facts.kind("cuda_error") if e.data.get("cuda_name") == "cudaErrorDevicesUnavailable"]
    if dup:
        first = earliest(dup)
        assert first is not None
        pair = first.data.get("ranks") or []
        findings.append(Finding(
            cause="device_ordinal", rule="device_ordinal.duplicate_gpu", confidence="high",
            title="Two ranks on the same GPU"
                  + (f" (ranks {pair[0]} and {pair[1]}, bus {first.data.get('bus_id')})" if pair else ""),
            detail="NCCL refused to build the communicator because several ranks use one GPU (ncclInvalidUsage). "
                   "The process-to-GPU mapping is wrong, typically a missing torch.cuda.set_device(local_rank).",
            fix=FIX, ranks=sorted(set(pair)) or ranks_of(dup), hosts=hosts_of(dup), evidence=evidence(dup), weight=92,
            culprit=None,
        ))
    if ordinal:
        first = earliest(ordinal)
        assert first is not None
        findings.append(Finding(
            cause="device_ordinal", rule="device_ordinal.invalid_ordinal", confidence="high",
            title=f"Invalid device ordinal on {where(facts, first)}",
            detail="A process asked for a GPU index that does not exist among its visible devices: LOCAL_RANK (or the "
                   "device index) is larger than the number of GPUs in CUDA_VISIBLE_DEVICES.",
            fix=FIX, ranks=ranks_of(ordinal), hosts=hosts_of(ordinal), evidence=evidence(ordinal), weight=92,
            culprit=first,
        ))
    if not dup:
        shared = _shared_bus(facts)
        if shared:
            findings.append(shared)
    if busy and not findings:
        first = earliest(busy)
        assert first is not None
        findings.append(Finding(
            cause="device_ordinal", rule="device_ordinal.busy", confidence="medium",
            title=f"GPU busy or unavailable on {where(facts, first)}",
            detail="CUDA says the device is busy or unavailable: another process holds it (exclusive-process mode) or "
                   "two ranks share it.",
            fix=FIX, ranks=ranks_of(busy), hosts=hosts_of(busy), evidence=evidence(busy), weight=70, culprit=first,
        ))
    return findings


def _shared_bus(facts: Facts) -> Finding | None:
    users: dict[tuple[str, str], set[int]] = defaultdict(set)
    evs = defaultdict(list)
    for ev in facts.kind("nccl_init"):
        if ev.host and ev.pid is not None and ev.data.get("nranks") == facts.world_size:
            users[(ev.host, ev.data["bus_id"])].add(ev.pid)
            evs[(ev.host, ev.data["bus_id"])].append(ev)
    for key, pids in users.items():
        if len(pids) > 1:
            found = evs[key]
            return Finding(
                cause="device_ordinal", rule="device_ordinal.shared_bus", confidence="medium",
                title=f"Several processes initialised NCCL on the same GPU ({key[0]}, bus {key[1]})",
                detail=f"Processes {sorted(pids)} on {key[0]} report the same busId {key[1]}.",
                fix=FIX, ranks=ranks_of(found), hosts=[key[0]], evidence=evidence(found), weight=75,
            )
    return None
