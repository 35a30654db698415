"""Python, torch, CUDA and NCCL versions.

torch is probed in a child process with a timeout: importing it on a node whose GPU fell off the
bus can hang in CUDA initialisation, and the snapshot is most needed on exactly such a node.
"""
from __future__ import annotations

import json
import platform
import subprocess
import sys
from typing import Any

_PROBE = r"""
import json, sys
out = {}
try:
    import torch
except Exception as exc:
    print(json.dumps({"error": f"torch not importable: {exc}"})); sys.exit(0)
out["torch"] = torch.__version__
out["cuda"] = torch.version.cuda
try:
    v = torch.cuda.nccl.version()
    out["nccl"] = ".".join(str(p) for p in v) if isinstance(v, tuple) else str(v)
except Exception:
    out["nccl"] = None
try:
    out["torch_device_count"] = torch.cuda.device_count()
except Exception:
    out["torch_device_count"] = None
print(json.dumps(out))
"""


def torch_versions(python: str = sys.executable, timeout: float = 60.0) -> dict[str, Any]:
    try:
        proc = subprocess.run([python, "-c", _PROBE], capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return {"torch_error": f"importing torch did not finish within {timeout:.0f}s"}
    except OSError as exc:
        return {"torch_error": str(exc)}
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if proc.returncode != 0 or not lines:
        tail = (proc.stderr.strip().splitlines() or [f"exit {proc.returncode}"])[-1]
        return {"torch_error": tail}
    data: dict[str, Any] = json.loads(lines[-1])
    if "error" in data:
        return {"torch_error": data["error"]}
    return data


def versions() -> dict[str, Any]:
    result: dict[str, Any] = {"python": platform.python_version(), "torch": None, "cuda": None,
                              "nccl": None, "torch_device_count": None}
    result.update(torch_versions())
    return result
