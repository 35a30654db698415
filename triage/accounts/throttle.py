"""Sign-in throttle, held in the database (LoginFailure) so it holds while Redis is down.

Within one window of TRIAGE_LOGIN_FAILURE_WINDOW seconds:
- an account with TRIAGE_LOGIN_FAILURE_LIMIT failed sign-ins is locked, from every address
  (the right password too) until the window ends: guessing one password is stopped;
- an address with TRIAGE_LOGIN_ADDRESS_FACTOR times that many failures, over any accounts, is
  locked only for the accounts that already failed from it: spraying many accounts from one
  address gets one guess each, while the other people behind that address (a NAT, a VPN) who
  have not failed sign in as usual.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F

from .models import LoginFailure


@dataclass(frozen=True)
class Lockout:
    reason: str  # "account" or "address"
    retry_after: int  # seconds

    @property
    def message(self) -> str:
        minutes = max(1, math.ceil(self.retry_after / 60))
        if self.reason == "account":
            return (f"Too many failed sign-ins for this account: it is locked for about {minutes} more "
                    f"minute{'s' if minutes > 1 else ''}, whatever password is typed. Try again then.")
        return (f"Too many failed sign-ins from your network address: this account cannot sign in from "
                f"it for about {minutes} more minute{'s' if minutes > 1 else ''}. Try again then.")


def _keys(username: str, address: str) -> tuple[str, str, str]:
    name = username.strip().lower()[:150]
    return f"user:{name}", f"addr:{address[:45]}", f"pair:{address[:45]} {name}"


def _window() -> tuple[int, int]:
    """The current window and the seconds until it ends."""
    now = time.time()
    span = settings.TRIAGE_LOGIN_FAILURE_WINDOW
    window = int(now // span)
    return window, max(1, math.ceil((window + 1) * span - now))


def login_lockout(*, username: str, address: str) -> Lockout | None:
    """Whether this sign-in is refused before its password is checked."""
    limit = settings.TRIAGE_LOGIN_FAILURE_LIMIT
    if limit <= 0:
        return None
    window, retry_after = _window()
    user_key, addr_key, pair_key = _keys(username, address)
    counts = dict(LoginFailure.objects.filter(key__in=[user_key, addr_key, pair_key], window=window)
                  .values_list("key", "count"))
    if counts.get(user_key, 0) >= limit:
        return Lockout("account", retry_after)
    if counts.get(addr_key, 0) >= limit * settings.TRIAGE_LOGIN_ADDRESS_FACTOR and counts.get(pair_key, 0):
        return Lockout("address", retry_after)
    return None


def login_failure_record(*, username: str, address: str) -> None:
    """Count one failed sign-in for the account, the address and the two together."""
    if settings.TRIAGE_LOGIN_FAILURE_LIMIT <= 0:
        return
    window, _ = _window()
    for key in _keys(username, address):
        # Increment in place; the first failure of a window inserts (a concurrent insert of the
        # same row loses the race and increments instead).
        if LoginFailure.objects.filter(key=key, window=window).update(count=F("count") + 1):
            continue
        try:
            with transaction.atomic():
                LoginFailure.objects.create(key=key, window=window, count=1)
        except IntegrityError:
            LoginFailure.objects.filter(key=key, window=window).update(count=F("count") + 1)
    # Windows before the previous one are of no use any more.
    LoginFailure.objects.filter(window__lt=window - 1).delete()
