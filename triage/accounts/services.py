"""Writes for teams, memberships, identities at a sign-in provider, API tokens and share links."""
from __future__ import annotations

import hashlib
import re
import secrets
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from .models import ApiToken, ExternalIdentity, Membership, Role, ShareAccess, ShareLink, Team
from .ratelimit import rate_check
from .teammap import Grant, managed_teams, teams_of

TOKEN_PREFIX = "nct_"
# last_used_at is informative only: write it at most this often, not on every request.
LAST_USED_RESOLUTION = timedelta(minutes=5)


def secret_hash(secret: str) -> str:
    # Tokens and share secrets are 256 random bits: a fast hash is enough (no brute force).
    return hashlib.sha256(secret.encode()).hexdigest()


# --- Teams ----------------------------------------------------------------------------------

def team_default() -> Team:
    """The team of incidents and tokens that name none (created when first needed)."""
    return team_get_or_create(name=settings.TRIAGE_DEFAULT_TEAM)


def team_get_or_create(*, name: str) -> Team:
    name = name.strip()
    if not name:
        raise ValueError("a team needs a name")
    try:
        with transaction.atomic():
            team, _ = Team.objects.get_or_create(name=name)
    except IntegrityError:
        team = Team.objects.get(name=name)  # created concurrently
    return team


def membership_set(*, team: Team, user: Any, role: str = Role.MEMBER) -> Membership:
    """Make `user` a member of `team` with `role` (changing the role if already a member)."""
    if role not in Role.values:
        raise ValueError(f"unknown role {role!r}: use one of {', '.join(Role.values)}")
    membership, _ = Membership.objects.update_or_create(team=team, user=user, defaults={"role": role})
    return membership


def memberships_sync(*, user: Any, grants: Sequence[Grant], groups: Iterable[str]) -> dict[str, str]:
    """Give `user` the memberships their provider groups grant, in the teams the map names:
    added, role changed, or removed when no group grants the team any more. Memberships in
    teams the map does not name are left as an admin set them. Returns team -> role granted."""
    wanted = teams_of(grants, groups)
    managed = managed_teams(grants)
    with transaction.atomic():
        Membership.objects.filter(user=user, team__name__in=managed - wanted.keys()).delete()
        for team, role in sorted(wanted.items()):
            membership_set(team=team_get_or_create(name=team), user=user, role=role)
    return wanted


# --- Identities at a sign-in provider -------------------------------------------------------

USERNAME_MAX = 150  # django.contrib.auth's User.username
_USERNAME_UNSAFE = re.compile(r"[^\w.@+-]")


@dataclass(frozen=True)
class ProviderPerson:
    """What a provider said about someone at a sign-in (from its ID token and userinfo)."""

    issuer: str
    subject: str
    username: str
    email: str = ""
    first_name: str = ""
    last_name: str = ""
    groups: tuple[str, ...] = ()


def _free_username(person: ProviderPerson) -> str:
    """The provider's name for the person when no account has it yet; else that name with a
    suffix from their subject, so a hand-made account of the same name is never theirs."""
    base = _USERNAME_UNSAFE.sub("-", person.username)[:USERNAME_MAX] or "user"
    suffix = "-" + hashlib.sha256(f"{person.issuer} {person.subject}".encode()).hexdigest()[:8]
    tails = [suffix] + [f"{suffix}-{n}" for n in range(1, 20)]
    candidates = [base] + [base[:USERNAME_MAX - len(tail)] + tail for tail in tails]
    taken = set(get_user_model().objects.filter(username__in=candidates).values_list("username", flat=True))
    for name in candidates:
        if name not in taken:
            return name
    raise IntegrityError(f"no free user name for {person.username!r}")


def identity_sign_in(*, person: ProviderPerson, grants: Sequence[Grant]) -> Any:
    """The user of this provider identity, made at their first sign-in (with no password: they
    sign in at the provider only), their name and email kept to the provider's, and their
    team memberships to their groups (memberships_sync)."""
    try:
        return _identity_sign_in(person, grants)
    except IntegrityError:
        # The same person's first sign-in in two tabs at once: the other one made the user.
        return _identity_sign_in(person, grants)


def _identity_sign_in(person: ProviderPerson, grants: Sequence[Grant]) -> Any:
    with transaction.atomic():
        identity = (ExternalIdentity.objects.select_for_update().select_related("user")
                    .filter(issuer=person.issuer, subject=person.subject).first())
        if identity is None:
            user = get_user_model()(username=_free_username(person))
            user.set_unusable_password()
            _copy_profile(user, person)
            user.save()
            identity = ExternalIdentity.objects.create(user=user, issuer=person.issuer, subject=person.subject)
        else:
            user = identity.user
            if _copy_profile(user, person):
                user.save(update_fields=["email", "first_name", "last_name"])
        identity.groups = list(person.groups)
        identity.last_login_at = timezone.now()
        identity.save(update_fields=["groups", "last_login_at"])
        memberships_sync(user=user, grants=grants, groups=person.groups)
        return user


def _copy_profile(user: Any, person: ProviderPerson) -> bool:
    fields = {"email": person.email[:254], "first_name": person.first_name[:150], "last_name": person.last_name[:150]}
    changed = False
    for field, value in fields.items():
        if getattr(user, field) != value:
            setattr(user, field, value)
            changed = True
    return changed


# --- API tokens -----------------------------------------------------------------------------

def apitoken_create(
    *, name: str, team: Team | None = None, scope: str = ApiToken.Scope.READ_UPLOAD, created_by: Any = None
) -> tuple[ApiToken, str]:
    """Create a token; return the row and the token text (the only time it exists in clear)."""
    name = name.strip()
    if not name:
        raise ValueError("a token needs a name")
    if scope not in ApiToken.Scope.values:
        raise ValueError(f"unknown scope {scope!r}: use one of {', '.join(ApiToken.Scope.values)}")
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    row = ApiToken.objects.create(
        name=name, team=team or team_default(), scope=scope, prefix=token[:12],
        token_hash=secret_hash(token), created_by=created_by,
    )
    return row, token


def apitoken_authenticate(*, token: str) -> ApiToken | None:
    """The active token row for this token text, or None."""
    if not token.startswith(TOKEN_PREFIX):
        return None
    row = ApiToken.objects.select_related("team").filter(token_hash=secret_hash(token), revoked_at=None).first()
    if row is None:
        return None
    now = timezone.now()
    if row.last_used_at is None or now - row.last_used_at > LAST_USED_RESOLUTION:
        ApiToken.objects.filter(pk=row.pk).update(last_used_at=now)
    return row


def apitoken_revoke(*, name: str, team: Team | None = None) -> int:
    """Revoke every active token with this name (in this team, when given); return how many."""
    rows = ApiToken.objects.filter(name=name, revoked_at=None)
    if team is not None:
        rows = rows.filter(team=team)
    return rows.update(revoked_at=timezone.now())


# --- Share links ----------------------------------------------------------------------------

def sharelink_create(
    *, incident: Any, expires_in: int | None = None, created_by: Any = None, created_by_token: ApiToken | None = None
) -> tuple[ShareLink, str]:
    """A new read-only link to `incident`; returns the row and the secret for its URL (shown
    once, like a token). `expires_in` seconds (None: the default; 0: the longest allowed,
    TRIAGE_SHARE_MAX_DAYS: no link lives forever). Raises ShareRateLimited past
    TRIAGE_SHARE_RATE_LIMIT links per person or token and hour."""
    if expires_in is None:
        expires_in = settings.TRIAGE_SHARE_DEFAULT_SECONDS
    if expires_in < 0:
        raise ValueError("expires_in must be a positive number of seconds")
    if expires_in > settings.TRIAGE_SHARE_MAX_SECONDS:
        raise ValueError(f"expires_in may be at most {settings.TRIAGE_SHARE_MAX_SECONDS} seconds")
    expires_in = expires_in or settings.TRIAGE_SHARE_MAX_SECONDS
    who = f"token:{created_by_token.pk}" if created_by_token is not None else f"user:{getattr(created_by, 'pk', None)}"
    rate = rate_check(key=f"share:{who}", limit=settings.TRIAGE_SHARE_RATE_LIMIT, window=SHARE_RATE_WINDOW)
    if not rate.allowed:
        raise ShareRateLimited(rate.limit, rate.retry_after)
    secret = secrets.token_urlsafe(32)  # 256 bits
    link = ShareLink.objects.create(
        incident=incident, token_hash=secret_hash(secret), prefix=secret[:6],
        expires_at=timezone.now() + timedelta(seconds=expires_in) if expires_in else None,
        created_by=created_by, created_by_token=created_by_token,
    )
    return link, secret


SHARE_RATE_WINDOW = 3600


class ShareRateLimited(Exception):
    """Too many share links made by one person or token within the hour (answered 429)."""

    def __init__(self, limit: int, retry_after: int) -> None:
        super().__init__(f"at most {limit} share links per hour; try again in {retry_after} s")
        self.retry_after = retry_after


def sharelink_revoke(*, link: ShareLink) -> ShareLink:
    if link.revoked_at is None:
        ShareLink.objects.filter(pk=link.pk, revoked_at=None).update(revoked_at=timezone.now())
        link.refresh_from_db()
    return link


def sharelink_record_access(*, link: ShareLink, path: str, ip: str | None, user_agent: str, user: Any = None) -> None:
    """Note that someone opened the link (kept for the team to see who saw what, and when)."""
    now = timezone.now()
    ShareLink.objects.filter(pk=link.pk).update(access_count=F("access_count") + 1, last_accessed_at=now)
    ShareAccess.objects.create(
        link=link, path=path[:300], ip=ip or None, user_agent=user_agent[:300],
        user=user if getattr(user, "is_authenticated", False) else None,
    )
