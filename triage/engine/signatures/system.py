"""Signatures of messages printed by system (see schema.py for what each field means)."""
from __future__ import annotations

from .schema import Signature

SIGNATURES: tuple[Signature, ...] = (
)
