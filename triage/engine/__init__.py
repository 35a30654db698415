"""The diagnosis engine: pure Python, no Django. See docs/engine-api.md."""
from __future__ import annotations

from .bundle import Blob, BundleError, open_source
from .model import CAUSES, Diagnosis, Event, Evidence, Finding, RankInfo
from .pipeline import diagnose

__all__ = [
    "Blob",
    "BundleError",
    "CAUSES",
    "Diagnosis",
    "Event",
    "Evidence",
    "Finding",
    "RankInfo",
    "diagnose",
    "open_source",
]
