"""API tokens for collectors. Only a hash is stored; the token itself is shown once."""
from __future__ import annotations

from django.conf import settings
from django.db import models


class ApiToken(models.Model):
    name = models.CharField(max_length=100)
    # The first characters of the token, kept in clear so a person can tell tokens apart.
    prefix = models.CharField(max_length=12)
    # sha256 of the whole token: tokens are 256 random bits, so a fast hash is enough.
    token_hash = models.CharField(max_length=64, unique=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None
