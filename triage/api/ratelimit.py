"""Uploads per API token, counted in fixed windows in the cache (Redis when configured, so all
gunicorn workers share the count). A fixed window lets a burst through at a window's edge,
which is what a job failure on a thousand nodes looks like anyway; it only stops floods."""
from __future__ import annotations

import math
import time
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache


@dataclass(frozen=True)
class RateDecision:
    allowed: bool
    limit: int
    remaining: int
    retry_after: int  # seconds until the window resets


def upload_rate_check(*, token_id: int) -> RateDecision:
    """Count one upload for this token; say whether it is within the limit."""
    limit, window = settings.TRIAGE_UPLOAD_RATE_LIMIT, settings.TRIAGE_UPLOAD_RATE_WINDOW
    if limit <= 0:
        return RateDecision(allowed=True, limit=0, remaining=0, retry_after=0)
    now = time.time()
    slot = int(now // window)
    key = f"triage:upload-rate:{token_id}:{slot}"
    # add() creates the counter only if absent; incr() is atomic on Redis (and under the
    # local-memory cache's lock), so concurrent uploads each get their own number.
    cache.add(key, 0, timeout=window + 5)
    try:
        count = cache.incr(key)
    except ValueError:  # expired between add and incr: start again
        cache.add(key, 1, timeout=window + 5)
        count = 1
    retry_after = max(1, math.ceil((slot + 1) * window - now))
    return RateDecision(allowed=count <= limit, limit=limit, remaining=max(0, limit - count), retry_after=retry_after)
