"""Sign-in with a password of the company's directory: the real sign-in form against a real
OpenLDAP slapd on loopback (tests/accounts/directory.py), the person's directory groups
deciding their teams, local accounts still signing in beside it."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from tests.accounts.conftest import DIRECTORY_PEOPLE
from tests.collectors.api_server import free_port
from tests.conftest import REPO
from tests.security.helpers import team_incident

pytestmark = pytest.mark.django_db


def _sign_in(uid: str, password: str | None = None) -> tuple[Client, Any]:
    client = Client()
    answer = client.post("/accounts/login/", {"username": uid, "password": password or DIRECTORY_PEOPLE[uid][0]})
    return client, answer


def _teams(username: str) -> set[tuple[str, str]]:
    from triage.accounts.models import Membership

    return set(Membership.objects.filter(user__username=username).values_list("team__name", "role"))


def test_directory_people_sign_in_and_see_their_team_only(
    ldap_on: Any, shm_bundle: Path, media_root: Path,
) -> None:
    cluster_a = team_incident(shm_bundle, team="cluster-a", job="cluster-a-job")
    alice, answer = _sign_in("alice")
    assert answer.status_code == 302 and answer["Location"] == "/"
    assert f"/incidents/{cluster_a.pk}/".encode() in alice.get("/").content
    assert alice.get(f"/incidents/{cluster_a.pk}/").status_code == 200
    assert _teams("alice") == {("cluster-a", "member")}

    bob, answer = _sign_in("bob")
    assert answer.status_code == 302
    assert f"/incidents/{cluster_a.pk}/".encode() not in bob.get("/").content
    assert bob.get(f"/incidents/{cluster_a.pk}/").status_code == 404
    assert _teams("bob") == set()  # ml-research is mapped to no team here

    # A group named by its DN in the map, the highest role winning.
    _sign_in("dave")
    assert _teams("dave") == {("cluster-a", "admin")}
    from django.contrib.auth import get_user_model

    made = get_user_model().objects.get(username="alice")
    assert (made.email, made.first_name, made.has_usable_password()) == ("alice@example.com", "Alice", False)


def test_a_wrong_directory_password_is_refused_and_counted(ldap_on: Any) -> None:
    from triage.accounts.models import LoginFailure

    _, answer = _sign_in("alice", "not-her-password")
    assert answer.status_code == 200
    assert b"didn't match" in answer.content
    assert LoginFailure.objects.filter(key="user:alice").exists()
    assert _teams("alice") == set()


def test_a_group_left_in_the_directory_takes_the_team_away_at_the_next_sign_in(ldap_on: Any) -> None:
    _sign_in("alice")
    assert _teams("alice") == {("cluster-a", "member")}
    ldap_on.leave_group("alice", "gpu-sre")
    try:
        _, answer = _sign_in("alice")
        assert answer.status_code == 302
        assert _teams("alice") == set()
    finally:
        ldap_on.join_group("alice", "gpu-sre")


def test_local_accounts_stay_and_are_not_taken_over(ldap_on: Any, django_user_model: Any) -> None:
    from tests.conftest import join_team

    join_team(django_user_model.objects.create_user("alice", password="local-password"), team="ops", role="admin")
    local, answer = _sign_in("alice", "local-password")
    assert answer.status_code == 302
    assert local.session["_auth_user_backend"] == "django.contrib.auth.backends.ModelBackend"
    directory, answer = _sign_in("alice")
    assert answer.status_code == 302
    assert directory.session["_auth_user_id"] != local.session["_auth_user_id"]
    names = set(django_user_model.objects.values_list("username", flat=True))
    assert "alice" in names and any(n.startswith("alice-") for n in names)
    assert _teams("alice") == {("ops", "admin")}


def test_a_directory_that_is_down_leaves_local_accounts_working(
    ldap_on: Any, settings: Any, django_user_model: Any,
) -> None:
    settings.AUTH_LDAP_SERVER_URI = f"ldap://127.0.0.1:{free_port()}"  # nothing listens there
    django_user_model.objects.create_user("local", password="local-password")
    _, answer = _sign_in("local", "local-password")
    assert answer.status_code == 302
    _, answer = _sign_in("alice")
    assert answer.status_code == 200 and b"didn't match" in answer.content


def _settings_with(**env: str) -> subprocess.CompletedProcess[str]:
    code = ("import django; django.setup(); from django.conf import settings as s; "
            "print(s.AUTHENTICATION_BACKENDS[1], s.AUTH_LDAP_USER_SEARCH.filterstr, type(s.AUTH_LDAP_GROUP_TYPE).__name__)")
    return subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120, check=False,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "triage.settings", **env},
    )


def test_the_settings_read_the_directory_from_the_environment() -> None:
    ok = _settings_with(TRIAGE_LDAP_SERVER_URI="ldaps://ldap.example.com", TRIAGE_LDAP_USERNAME_ATTR="sAMAccountName",
                        TRIAGE_LDAP_USER_SEARCH_BASE="dc=corp,dc=example", TRIAGE_LDAP_GROUP_SEARCH_BASE="dc=corp,dc=example",
                        TRIAGE_LDAP_GROUP_TYPE="activeDirectory")
    assert ok.stdout.split() == ["triage.accounts.ldapauth.DirectoryBackend", "(sAMAccountName=%(user)s)",
                                 "NestedActiveDirectoryGroupType"], ok.stderr
    plain = _settings_with(TRIAGE_LDAP_SERVER_URI="ldap://ldap.example.com", TRIAGE_LDAP_USER_SEARCH_BASE="dc=x")
    assert "use ldaps://, or ldap:// with TRIAGE_LDAP_START_TLS=1" in plain.stderr
    no_base = _settings_with(TRIAGE_LDAP_SERVER_URI="ldaps://ldap.example.com")
    assert "TRIAGE_LDAP_USER_SEARCH_BASE must be set" in no_base.stderr
    bad_type = _settings_with(TRIAGE_LDAP_SERVER_URI="ldaps://l.example.com", TRIAGE_LDAP_USER_SEARCH_BASE="dc=x",
                              TRIAGE_LDAP_GROUP_TYPE="posix")
    assert "TRIAGE_LDAP_GROUP_TYPE='posix': use one of" in bad_type.stderr
