"""Reads for teams, roles and share links."""
from __future__ import annotations

from typing import Any

from django.db.models import QuerySet

from .models import Membership, Role, ShareLink, Team
from .services import secret_hash

# Longer than any secret sharelink_create makes: refused without a hash or a query.
SECRET_MAX_CHARS = 100


def team_ids_for(*, user: Any, role: str = Role.VIEWER) -> list[int]:
    """The teams where `user` has at least `role`."""
    if user is None or not getattr(user, "is_authenticated", False):
        return []
    return [m.team_id for m in Membership.objects.filter(user=user) if m.allows(role)]


def teams_for(*, user: Any, role: str = Role.VIEWER) -> QuerySet[Team]:
    return Team.objects.filter(pk__in=team_ids_for(user=user, role=role))


def membership_get(*, user: Any, team_id: int) -> Membership | None:
    if user is None or not getattr(user, "is_authenticated", False):
        return None
    return Membership.objects.filter(user=user, team_id=team_id).first()


def user_can(*, user: Any, team_id: int, role: str) -> bool:
    membership = membership_get(user=user, team_id=team_id)
    return membership is not None and membership.allows(role)


def sharelink_from_secret(*, secret: str) -> ShareLink | None:
    """The share link with this secret, active or not (the caller says why it cannot be used)."""
    if not secret or len(secret) > SECRET_MAX_CHARS:
        return None
    return ShareLink.objects.select_related("incident").filter(token_hash=secret_hash(secret)).first()


def sharelinks_of(*, incident: Any) -> QuerySet[ShareLink]:
    return ShareLink.objects.filter(incident=incident).select_related("created_by", "created_by_token")
