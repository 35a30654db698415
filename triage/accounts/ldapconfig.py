"""The django-auth-ldap settings made from TRIAGE_LDAP_* (read by triage/settings.py, only when
TRIAGE_LDAP_SERVER_URI is set: python-ldap is optional, requirements-ldap.txt)."""
from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import ldap
from django_auth_ldap.config import (
    GroupOfNamesType,
    GroupOfUniqueNamesType,
    LDAPGroupType,
    LDAPSearch,
    NestedActiveDirectoryGroupType,
    NestedGroupOfNamesType,
    PosixGroupType,
)

from .oidcconfig import is_loopback

# TRIAGE_LDAP_GROUP_TYPE -> how membership is written in the directory, and the filter that
# finds such groups.
GROUP_TYPES: dict[str, tuple[type[LDAPGroupType], str]] = {
    "groupOfNames": (GroupOfNamesType, "(objectClass=groupOfNames)"),
    "nestedGroupOfNames": (NestedGroupOfNamesType, "(objectClass=groupOfNames)"),
    "groupOfUniqueNames": (GroupOfUniqueNamesType, "(objectClass=groupOfUniqueNames)"),
    "posixGroup": (PosixGroupType, "(objectClass=posixGroup)"),
    "activeDirectory": (NestedActiveDirectoryGroupType, "(objectClass=group)"),
}


def check_uri(uri: str, *, start_tls: bool) -> None:
    """Passwords travel to the directory: ldaps://, or ldap:// with StartTLS (plain ldap://
    only to this machine, e.g. a directory started by the tests)."""
    for one in uri.split():
        parts = urlsplit(one)
        if parts.scheme == "ldaps" or (parts.scheme == "ldap" and (start_tls or is_loopback(parts.hostname or ""))):
            continue
        raise ValueError(f"TRIAGE_LDAP_SERVER_URI={one!r}: use ldaps://, or ldap:// with TRIAGE_LDAP_START_TLS=1")


def user_search(*, base: str, search_filter: str) -> LDAPSearch:
    if not base:
        raise ValueError("TRIAGE_LDAP_USER_SEARCH_BASE must be set with TRIAGE_LDAP_SERVER_URI "
                         "(e.g. ou=people,dc=example,dc=com)")
    if "%(user)s" not in search_filter:
        raise ValueError(f"TRIAGE_LDAP_USER_FILTER={search_filter!r} must contain %(user)s")
    return LDAPSearch(base, ldap.SCOPE_SUBTREE, search_filter)


def group_search(*, base: str, kind: str) -> tuple[LDAPSearch | None, LDAPGroupType | None]:
    """(None, None) without a base: people then sign in but get no team from the directory."""
    if kind not in GROUP_TYPES:
        raise ValueError(f"TRIAGE_LDAP_GROUP_TYPE={kind!r}: use one of {', '.join(GROUP_TYPES)}")
    if not base:
        return None, None
    group_type, search_filter = GROUP_TYPES[kind]
    return LDAPSearch(base, ldap.SCOPE_SUBTREE, search_filter), group_type()


def connection_options(*, ca_file: str | None, timeout: int) -> dict[Any, Any]:
    options: dict[Any, Any] = {ldap.OPT_NETWORK_TIMEOUT: timeout, ldap.OPT_TIMEOUT: timeout,
                               ldap.OPT_REFERRALS: 0}
    if ca_file:
        options[ldap.OPT_X_TLS_CACERTFILE] = ca_file
        options[ldap.OPT_X_TLS_REQUIRE_CERT] = ldap.OPT_X_TLS_DEMAND
        # Must come last: a new TLS context with the options above.
        options[ldap.OPT_X_TLS_NEWCTX] = 0
    return options
