"""nccl-triage collectors: run on a GPU node, gather what explains a failed NCCL job, upload it.

Standalone on purpose: only the standard library, `pynvml` (package nvidia-ml-py) and, where it
is installed, torch. Nothing here imports Django or the `triage` package, so the folder can be
copied onto a training node as it is.
"""
from __future__ import annotations

__version__ = "1.0"
COLLECTOR = f"nccl-triage-collectors {__version__}"
