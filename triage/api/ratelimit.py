"""Uploads per API token (triage.accounts.ratelimit): floods are refused with 429 before a byte
of the body is read."""
from __future__ import annotations

from django.conf import settings

from triage.accounts.ratelimit import RateDecision, rate_check

__all__ = ["RateDecision", "upload_rate_check"]


def upload_rate_check(*, token_id: int) -> RateDecision:
    """Count one upload for this token; say whether it is within the limit."""
    return rate_check(
        key=f"upload:{token_id}", limit=settings.TRIAGE_UPLOAD_RATE_LIMIT, window=settings.TRIAGE_UPLOAD_RATE_WINDOW
    )
