"""version_mismatch: PyTorch / CUDA / NCCL / driver differ across hosts or ranks, a driver older
than the runtime, no kernel image for the GPU, or an NCCL library that cannot be loaded."""
from __future__ import annotations

from collections import defaultdict

from ..facts import Facts
from ..model import Evidence, Finding
from .common import CHECKLIST_VERSIONS, earliest, evidence, hosts_of, ranks_of, where

FIX = (
    "Install the same PyTorch, CUDA and NCCL builds on every node (one container image or one "
    "lockfile), and a driver at least as new as the CUDA runtime needs. Compare on every host:\n"
    + CHECKLIST_VERSIONS
)
FIX_LIB = (
    "Point the framework at a working NCCL library of the expected version (for vLLM: "
    "VLLM_NCCL_SO_PATH=<site-packages>/nvidia/nccl/lib/libnccl.so.2, or upgrade vLLM), or install "
    "the NCCL build the framework was compiled against:\n"
    "python -c 'import torch; print(torch.cuda.nccl.version())'\n"
    "pip show nvidia-nccl-cu12; ldconfig -p | grep libnccl"
)
COMPONENTS = ("nccl", "torch", "cuda", "driver")


def find(facts: Facts) -> list[Finding]:
    findings: list[Finding] = []
    differing = _differing(facts)
    if differing:
        parts = [f"{comp}: " + ", ".join(f"{v} on {', '.join(sorted(h))}" for v, h in sorted(vals.items()))
                 for comp, vals in differing.items()]
        evs = [e for e in facts.kind("nccl_version", "component_version")
               if e.data.get("component", "nccl") in differing]
        ev_lines = evidence(evs) or [Evidence(name, 1, f"versions: {doc.get('versions')}")
                                     for name, doc in facts.docs.snapshots][:4]
        findings.append(Finding(
            cause="version_mismatch", rule="version_mismatch.across_hosts", confidence="high",
            title="Different " + "/".join(differing) + " versions across hosts",
            detail="The ranks of one job run different builds: " + "; ".join(parts)
                   + ". Mixed NCCL builds can disagree on the wire protocol.",
            fix=FIX, hosts=sorted({h for vals in differing.values() for hs in vals.values() for h in hs}),
            evidence=ev_lines,
            weight=83,
        ))
    runtime = [e for e in facts.kind("cuda_error") if e.data.get("error_class") == "version"]
    if runtime:
        first = earliest(runtime)
        assert first is not None
        findings.append(Finding(
            cause="version_mismatch", rule="version_mismatch.cuda_runtime", confidence="high",
            title=f"CUDA build does not fit this driver/GPU on {where(facts, first)}: {first.data.get('error')}",
            detail="The CUDA runtime or the compiled kernels in this build do not match the installed driver or the "
                   "GPU architecture.",
            fix=FIX, ranks=ranks_of(runtime), hosts=hosts_of(runtime), evidence=evidence(runtime), weight=90,
            culprit=first,
        ))
    lib = facts.kind("nccl_library_missing", "nccl_symbol_missing")
    if lib:
        first = earliest(lib)
        assert first is not None
        findings.append(Finding(
            cause="version_mismatch", rule="version_mismatch.nccl_library", confidence="medium",
            title="The NCCL library could not be loaded"
                  + (f" ({first.data.get('library') or first.data.get('symbol')})"
                     if first.data.get("library") or first.data.get("symbol") else ""),
            detail="The framework looked for an NCCL shared library of a specific version and could not load it "
                   "(missing file or "
                   "missing symbol), so the workers failed during device initialisation.",
            fix=FIX_LIB, ranks=ranks_of(lib), hosts=hosts_of(lib),
            evidence=evidence(lib + facts.kind("worker_method_failed")), weight=80, culprit=first,
        ))
    protocol = facts.kind("nccl_truncated", "nccl_version_mismatch")
    if protocol and not differing:
        first = earliest(protocol)
        assert first is not None
        findings.append(Finding(
            cause="version_mismatch", rule="version_mismatch.wire_protocol", confidence="medium",
            title="Ranks disagree on NCCL's wire protocol",
            detail="NCCL received messages of unexpected size from a peer: different NCCL builds (or settings such as "
                   "NCCL_PROTO/NCCL_ALGO) across ranks.",
            fix=FIX, ranks=ranks_of(protocol), hosts=hosts_of(protocol), evidence=evidence(protocol), weight=70,
            culprit=first,
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
