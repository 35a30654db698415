"""One module per cause of the vocabulary (docs/design.md). Each `find(facts)` returns findings with
evidence; the verdict module ranks them. To add a rule: copy a neighbour, write its test first."""
from __future__ import annotations

from collections.abc import Callable

from ..facts import Facts
from ..model import Finding
from . import (
    collective_timeout_straggler,
    device_ordinal,
    flight_recorder,
    hardware_fault,
    ncclras,
    network,
    oom,
    p2p_unsupported,
    rank_crash,
    rendezvous_hang,
    shm_exhausted,
    signature,
    version_mismatch,
)

RULES: tuple[Callable[[Facts], list[Finding]], ...] = (
    hardware_fault.find,
    oom.find,
    device_ordinal.find,
    shm_exhausted.find,
    version_mismatch.find,
    rendezvous_hang.find,
    rank_crash.find,
    network.find,
    p2p_unsupported.find,
    collective_timeout_straggler.find,
    flight_recorder.find,
    ncclras.find,
    signature.find,
)


def run_rules(facts: Facts) -> list[Finding]:
    findings: list[Finding] = []
    for rule in RULES:
        findings.extend(rule(facts))
    for f in findings:
        f.fix = collective_timeout_straggler.fill_pids(f.fix, facts, f.ranks)
    return findings
