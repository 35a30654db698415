"""version_mismatch: PyTorch / CUDA / NCCL / driver differ across hosts or ranks (a cross-rank
fact no single line says). What one line says (a driver older than the runtime, no kernel image
for the GPU, an NCCL library that cannot be loaded, a truncated message) is the catalog's."""
from __future__ import annotations

from collections import defaultdict

from ..facts import Facts
from ..model import Evidence, Finding, Support
from ..signatures import fix_text
from .common import evidence

FIX = fix_text("version_mismatch")
COMPONENTS = ("nccl", "torch", "cuda", "driver")


def find(facts: Facts) -> list[Finding]:
    findings: list[Finding] = []
    differing = _differing(facts)
    if differing:
        parts = [f"{comp}: " + ", ".join(f"{v} on {', '.join(sorted(h))}" for v, h in sorted(vals.items())) for comp,
                 vals in differing.items()]
        evs = [e for e in facts.kind("nccl_version", "component_version")
               if e.data.get("component", "nccl") in differing]
        ev_lines = evidence(evs) or [Evidence(name, 1, f"versions: {doc.get('versions')}") for name,
                                     doc in facts.docs.snapshots][:4]
        findings.append(Finding(
            cause="version_mismatch", rule="version_mismatch.across_hosts",
            title="Different " + "/".join(differing) + " versions across hosts",
            detail="The ranks of one job run different builds: " + "; ".join(parts)
            + ". Mixed NCCL builds can disagree on the wire protocol.",
            fix=FIX, hosts=sorted({h for vals in differing.values() for hs in vals.values() for h in hs}),
            evidence=ev_lines,
            role="fault",  # the differing versions are the fault, no line says it
            support=frozenset({Support.NAMES}),
        ))
    return findings


def _differing(facts: Facts) -> dict[str, dict[str, set[str]]]:
    out: dict[str, dict[str, set[str]]] = {}
    for comp in COMPONENTS:
        vals: dict[str, set[str]] = defaultdict(set)
        for host, versions in facts.versions.items():
            if host != "?" and versions.get(comp):
                vals[_norm(versions[comp])].add(host)
        if len(vals) > 1:
            out[comp] = dict(vals)
    # Within one host, two NCCL banners with different versions (two processes, two builds).
    per_proc: dict[tuple[str | None, int | None], str] = {}
    for ev in facts.kind("nccl_version"):
        per_proc.setdefault((ev.host, ev.pid), ev.data["version"])
    if "nccl" not in out and len(set(per_proc.values())) > 1:
        vals = defaultdict(set)
        for (proc_host, pid), v in per_proc.items():
            vals[v].add(f"{proc_host}:{pid}" if proc_host else str(pid))
        out["nccl"] = dict(vals)
    return out


def _norm(version: str) -> str:
    return version.split("+")[0]
