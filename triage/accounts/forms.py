from __future__ import annotations

from typing import Any

from django.contrib.auth.forms import AuthenticationForm
from django.core.exceptions import ValidationError

from .throttle import login_failure_record, login_lockout


class RateLimitedAuthenticationForm(AuthenticationForm):
    """Sign-in that stops guessing (triage.accounts.throttle): a locked account, or an account
    that failed from an address locked for spraying, is refused (the right password too) until
    the window ends, with a message that says so."""

    rate_limited = False

    def _who(self) -> dict[str, str]:
        address = self.request.META.get("REMOTE_ADDR", "") if self.request is not None else ""
        return {"username": self.data.get("username") or "", "address": address}

    def clean(self) -> dict[str, Any]:
        lockout = login_lockout(**self._who())
        if lockout is not None:
            self.rate_limited = True
            raise ValidationError(lockout.message, code="rate_limited")
        try:
            return super().clean()
        except ValidationError:
            login_failure_record(**self._who())
            raise
