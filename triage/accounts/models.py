"""Teams and who belongs to them, identities at a sign-in provider, API tokens, and share links.

Every incident belongs to one team. People see a team's incidents through a membership (with
a role), collectors through a team's API token, and anyone through a share link to one
incident. Tokens and share links are stored only as sha256 hashes: their text is shown once.
"""
from __future__ import annotations

import secrets

from django.conf import settings
from django.db import models
from django.utils import timezone


class Team(models.Model):
    name = models.CharField(max_length=100, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Role(models.TextChoices):
    # Ordered by power: each role can do what the ones before it can.
    VIEWER = "viewer"  # read incidents, logs, raw bundles
    MEMBER = "member"  # + upload, run the diagnosis again, share links
    ADMIN = "admin"  # + revoke anyone's share links


ROLE_RANK = {Role.VIEWER: 0, Role.MEMBER: 1, Role.ADMIN: 2}


class Membership(models.Model):
    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=10, choices=Role.choices, default=Role.MEMBER)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["team", "user"]
        constraints = [models.UniqueConstraint(fields=["team", "user"], name="membership_unique_user")]

    def __str__(self) -> str:
        return f"{self.user} in {self.team} ({self.role})"

    def allows(self, role: str) -> bool:
        return ROLE_RANK[Role(self.role)] >= ROLE_RANK[Role(role)]


class ExternalIdentity(models.Model):
    """Who a person is at an identity provider: its issuer and subject (`iss`, `sub`), which
    never change, unlike a name or an email. A sign-in through the provider finds its user by
    these only, so an account made by hand is never taken over by a provider's account with
    the same name or email."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="identities")
    issuer = models.CharField(max_length=300)
    subject = models.CharField(max_length=255)
    created_at = models.DateTimeField(auto_now_add=True)
    last_login_at = models.DateTimeField(null=True, blank=True)
    # The groups the provider named at the last sign-in (shown in the admin; teams follow them).
    groups = models.JSONField(default=list, blank=True)

    class Meta:
        ordering = ["issuer", "subject"]
        constraints = [models.UniqueConstraint(fields=["issuer", "subject"], name="identity_unique_subject")]
        verbose_name_plural = "external identities"

    def __str__(self) -> str:
        return f"{self.subject} at {self.issuer}"


class ApiToken(models.Model):
    class Scope(models.TextChoices):
        UPLOAD = "upload"  # collectors on training nodes: can add bundles, read nothing
        READ = "read"  # dashboards and bots: read incidents, make share links
        READ_UPLOAD = "read_upload"

    name = models.CharField(max_length=100)
    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="api_tokens")
    scope = models.CharField(max_length=12, choices=Scope.choices, default=Scope.READ_UPLOAD)
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

    @property
    def can_upload(self) -> bool:
        return self.scope in (self.Scope.UPLOAD, self.Scope.READ_UPLOAD)

    @property
    def can_read(self) -> bool:
        return self.scope in (self.Scope.READ, self.Scope.READ_UPLOAD)


def new_share_id() -> str:
    # The share's public id (in its API URL): not the secret, so it may be short.
    return secrets.token_hex(8)


class ShareLink(models.Model):
    """A read-only link to one incident for people without an account (an on-call channel)."""

    id = models.CharField(primary_key=True, max_length=16, default=new_share_id, editable=False)
    incident = models.ForeignKey("incidents.Incident", on_delete=models.CASCADE, related_name="share_links")
    # sha256 of the URL's secret (256 random bits); the secret itself exists only in the URL.
    token_hash = models.CharField(max_length=64, unique=True)
    prefix = models.CharField(max_length=8)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_by_token = models.ForeignKey(
        ApiToken, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    access_count = models.PositiveIntegerField(default=0)
    last_accessed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"share {self.prefix}… of {self.incident_id}"

    @property
    def is_expired(self) -> bool:
        return self.expires_at is not None and self.expires_at <= timezone.now()

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None and not self.is_expired


class ShareAccess(models.Model):
    """One opening of a share link: who had the link, roughly, and when."""

    link = models.ForeignKey(ShareLink, on_delete=models.CASCADE, related_name="accesses")
    at = models.DateTimeField(auto_now_add=True, db_index=True)
    path = models.CharField(max_length=300)
    ip = models.GenericIPAddressField(null=True, blank=True)
    user_agent = models.CharField(max_length=300, blank=True, default="")
    # Set when the person opening it was signed in (it need not be a team member).
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                             related_name="+")

    class Meta:
        ordering = ["-at"]
        verbose_name_plural = "share accesses"


class LoginFailure(models.Model):
    """Failed sign-ins counted per key ("user:<name>", "addr:<address>", "pair:<address> <name>")
    and fixed window (triage.accounts.throttle). Kept in the database, not the cache: the lock
    must hold while Redis is down, and sign-in needs the database anyway."""

    key = models.CharField(max_length=250)
    window = models.BigIntegerField()  # unix time // TRIAGE_LOGIN_FAILURE_WINDOW
    count = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["key", "window"], name="loginfailure_unique_key_window")]
