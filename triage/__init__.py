"""nccl-triage: which rank of a multi-GPU job failed first, and why."""
from __future__ import annotations

# Load the Celery app whenever Django starts, so `delay_on_commit` uses our configuration.
from .celery import app as celery_app

__all__ = ["celery_app"]
