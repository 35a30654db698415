"""device_ordinal: ranks mapped to GPUs wrongly: two ranks on one GPU (NCCL Duplicate GPU, or two
processes whose NCCL init names one bus id). What one line says ("invalid device ordinal",
"busy or unavailable", which a GPU the kernel says is lost outranks) is the catalog's."""
from __future__ import annotations

from collections import defaultdict

from ..facts import Facts
from ..model import Finding, Support
from ..signatures import fix_text
from .common import earliest, evidence, hosts_of, ranks_of, read_as
from .signature import catalog_fix

FIX = fix_text("device_ordinal")


def find(facts: Facts) -> list[Finding]:
    findings: list[Finding] = []
    # The catalog says two ranks share a GPU; NCCL's WARN names the pair and the bus where it can.
    dup = read_as(facts, facts.kind("nccl_warn"), "device_ordinal", roles=("fault",))
    dup = [e for e in dup if e.data.get("ranks")] or [e for e in dup if e.data.get("bus_id")]
    if dup:
        first = earliest(dup)
        assert first is not None
        pair = first.data.get("ranks") or []
        findings.append(Finding(
            cause="device_ordinal", rule="device_ordinal.duplicate_gpu",
            title="Two ranks on the same GPU"
            + (f" (ranks {pair[0]} and {pair[1]}, bus {first.data.get('bus_id')})" if pair else ""),
            detail="NCCL refused to build the communicator because several ranks use one GPU (ncclInvalidUsage). "
                   "The process-to-GPU mapping is wrong, typically a missing torch.cuda.set_device(local_rank).",
            fix=catalog_fix(facts, first, "device_ordinal", FIX),
            ranks=sorted(set(pair)) or ranks_of(dup), hosts=hosts_of(dup), evidence=evidence(dup),
            role="fault", culprit=None, support=frozenset({Support.NAMES}),  # NCCL names the pair on one GPU
        ))
    if not dup:
        shared = _shared_bus(facts)
        if shared:
            findings.append(shared)
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
                cause="device_ordinal", rule="device_ordinal.shared_bus",
                title=f"Several processes initialised NCCL on the same GPU ({key[0]}, bus {key[1]})",
                detail=f"Processes {sorted(pids)} on {key[0]} report the same busId {key[1]}.",
                fix=FIX, ranks=ranks_of(found), hosts=[key[0]], evidence=evidence(found),
                role="fault",  # the NCCL init lines show the two processes on one GPU
                support=frozenset({Support.POINTS}),  # ... and not that it failed them
            )
    return None
