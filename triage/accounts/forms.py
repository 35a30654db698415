from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.forms import AuthenticationForm
from django.core.exceptions import ValidationError

from .ratelimit import rate_check


class RateLimitedAuthenticationForm(AuthenticationForm):
    """Sign-in that stops guessing: after TRIAGE_LOGIN_FAILURE_LIMIT failures within
    TRIAGE_LOGIN_FAILURE_WINDOW seconds, for one user name or from one address, every attempt
    (the right password too) is refused until the window ends."""

    rate_limited = False

    def _keys(self) -> list[str]:
        username = (self.data.get("username") or "").strip().lower()[:150]
        address = self.request.META.get("REMOTE_ADDR", "") if self.request is not None else ""
        return [f"login-user:{username}", f"login-ip:{address}"]

    def _check(self, *, count: bool) -> int:
        """Seconds to wait when over the limit, else 0 (count=True records one failure)."""
        limit, window = settings.TRIAGE_LOGIN_FAILURE_LIMIT, settings.TRIAGE_LOGIN_FAILURE_WINDOW
        waits = [rate_check(key=key, limit=limit, window=window, count=count) for key in self._keys()]
        return max((d.retry_after for d in waits if not d.allowed), default=0)

    def clean(self) -> dict[str, Any]:
        wait = self._check(count=False)
        if wait:
            self.rate_limited = True
            raise ValidationError(f"Too many failed sign-ins; try again in {wait} s.", code="rate_limited")
        try:
            return super().clean()
        except ValidationError:
            self._check(count=True)
            raise
