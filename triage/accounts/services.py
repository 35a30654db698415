"""Writes and reads for API tokens."""
from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta

from django.utils import timezone

from .models import ApiToken

TOKEN_PREFIX = "nct_"
# last_used_at is informative only: write it at most this often, not on every request.
LAST_USED_RESOLUTION = timedelta(minutes=5)


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def apitoken_create(*, name: str, created_by: object | None = None) -> tuple[ApiToken, str]:
    """Create a token; return the row and the token text (the only time it exists in clear)."""
    name = name.strip()
    if not name:
        raise ValueError("a token needs a name")
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    row = ApiToken.objects.create(
        name=name, prefix=token[:12], token_hash=_hash(token), created_by=created_by
    )
    return row, token


def apitoken_authenticate(*, token: str) -> ApiToken | None:
    """The active token row for this token text, or None."""
    if not token.startswith(TOKEN_PREFIX):
        return None
    row = ApiToken.objects.filter(token_hash=_hash(token), revoked_at=None).first()
    if row is None:
        return None
    now = timezone.now()
    if row.last_used_at is None or now - row.last_used_at > LAST_USED_RESOLUTION:
        ApiToken.objects.filter(pk=row.pk).update(last_used_at=now)
    return row


def apitoken_revoke(*, name: str) -> int:
    """Revoke every active token with this name; return how many."""
    return ApiToken.objects.filter(name=name, revoked_at=None).update(revoked_at=timezone.now())
