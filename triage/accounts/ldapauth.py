"""Sign-in with a password of the company's LDAP directory (OpenLDAP, Active Directory), through
django-auth-ldap: the person types their directory name and password in the sign-in form, the
library finds their entry, binds as them and reads their groups. This module adds what
triage/accounts/oidc.py does for OpenID Connect: people found by their entry's DN
(ExternalIdentity, never by a name an account made by hand could share) and their team
memberships kept to their groups (TRIAGE_LDAP_TEAM_MAP) at every sign-in.

Optional (requirements-ldap.txt: python-ldap builds against libldap): settings.py lists this
backend only when TRIAGE_LDAP_SERVER_URI is set.
"""
from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.http import HttpRequest
from django_auth_ldap.backend import LDAPBackend

from .services import ProviderPerson, identity_sign_in

log = logging.getLogger(__name__)

# ExternalIdentity.issuer of directory people: DNs are unique within the one directory, and
# the server's address may change (a replica, a new name) without them changing.
ISSUER = "ldap"


def _first(attrs: Any, name: str) -> str:
    values = attrs.get(name) or []
    return str(values[0]) if values else ""


def person_of(ldap_user: Any, username: str) -> ProviderPerson:
    attrs = ldap_user.attrs or {}
    groups: set[str] = set()
    if getattr(settings, "AUTH_LDAP_GROUP_SEARCH", None) is not None:
        # A group matches the map by its name (cn) or its whole DN.
        groups = set(ldap_user.group_names) | set(ldap_user.group_dns)
    return ProviderPerson(
        issuer=ISSUER, subject=str(ldap_user.dn).lower(),
        username=_first(attrs, settings.TRIAGE_LDAP_USERNAME_ATTR) or username,
        email=_first(attrs, "mail"), first_name=_first(attrs, "givenName"), last_name=_first(attrs, "sn"),
        groups=tuple(sorted(groups)),
    )


class DirectoryBackend(LDAPBackend):  # type: ignore[misc]
    def authenticate(self, request: HttpRequest | None, username: str | None = None, password: str | None = None,
                     **kwargs: Any) -> Any:
        if not settings.TRIAGE_LDAP_ENABLED:
            return None
        return super().authenticate(request, username=username, password=password, **kwargs)

    def get_or_build_user(self, username: str, ldap_user: Any) -> tuple[Any, bool]:
        """Called by the library once the password bound: our account of this entry, made or
        found and its teams synced. Returned as not built, so the library neither makes a
        second one nor overwrites what identity_sign_in set (AUTH_LDAP_ALWAYS_UPDATE_USER off)."""
        person = person_of(ldap_user, username)
        user = identity_sign_in(person=person, grants=settings.TRIAGE_LDAP_TEAM_MAP)
        log.info("sign-in through the directory: %s (%s), groups %s", user.get_username(), person.subject,
                 list(person.groups))
        return user, False

    def get_user(self, user_id: Any) -> Any:
        # An account made inactive is signed out at its next request (as ModelBackend does; the
        # library's own get_user does not look at is_active).
        user = super().get_user(user_id)
        return user if user is not None and user.is_active else None
