"""Counting requests in fixed windows in the cache (Redis when configured, so all gunicorn
workers share the count). A fixed window lets a burst through at a window's edge; it only
stops floods and guessing, which is all it is for.

A limiter must never be the reason a request fails: when the cache (Redis) is down, the
request is allowed and the outage logged."""
from __future__ import annotations

import logging
import math
import time
from dataclasses import dataclass

from django.core.cache import cache

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RateDecision:
    allowed: bool
    limit: int
    remaining: int
    retry_after: int  # seconds until the window resets


def rate_check(*, key: str, limit: int, window: int, count: bool = True) -> RateDecision:
    """Count one event under `key` (unless count=False: only look) and say whether it is within
    `limit` per `window` seconds. limit 0: no limit."""
    if limit <= 0:
        return RateDecision(allowed=True, limit=0, remaining=0, retry_after=0)
    now = time.time()
    slot = int(now // window)
    slot_key = f"triage:rate:{key}:{slot}"
    retry_after = max(1, math.ceil((slot + 1) * window - now))
    try:
        if count:
            # add() creates the counter only if absent; incr() is atomic on Redis (and under
            # the local-memory cache's lock), so concurrent requests each get their own number.
            cache.add(slot_key, 0, timeout=window + 5)
            try:
                seen = cache.incr(slot_key)
            except ValueError:  # expired between add and incr: start again
                cache.add(slot_key, 1, timeout=window + 5)
                seen = 1
        else:
            seen = int(cache.get(slot_key) or 0)
    except Exception as e:  # the cache is down: let the request through
        log.warning("rate limit %s not checked: the cache is unreachable (%s)", key.split(":")[0], e)
        return RateDecision(allowed=True, limit=limit, remaining=limit, retry_after=0)
    # Looking (count=False) asks whether one more would still fit.
    over = seen > limit if count else seen >= limit
    return RateDecision(allowed=not over, limit=limit, remaining=max(0, limit - seen), retry_after=retry_after)
