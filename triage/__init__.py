"""nccl-triage: which rank of a multi-GPU job failed first, and why."""
from __future__ import annotations

from typing import Any

__all__ = ["celery_app"]


def __getattr__(name: str) -> Any:
    # The Celery app is loaded when Django starts (incidents' AppConfig.ready) and by the worker
    # (`-A triage`); importing the engine (`triage.engine`, `manage.py diagnose`, benchmarks)
    # does not pay for it.
    if name == "celery_app":
        from .celery import app

        return app
    raise AttributeError(name)
