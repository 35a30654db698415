from __future__ import annotations

import hashlib
from io import StringIO

import pytest
from django.core.management import call_command

from triage.accounts.models import ApiToken
from triage.accounts.services import apitoken_authenticate

pytestmark = pytest.mark.django_db


def test_it_prints_a_new_token_on_one_line_and_stores_only_its_hash() -> None:
    out = StringIO()
    call_command("apitoken", "create", "--name", "cluster-a", stdout=out)
    lines = out.getvalue().splitlines()
    assert len(lines) == 1
    token = lines[0]
    row = ApiToken.objects.get(name="cluster-a")
    assert row.token_hash == hashlib.sha256(token.encode()).hexdigest()
    assert token not in str(list(ApiToken.objects.values()))
    assert apitoken_authenticate(token=token) == row


def test_a_revoked_token_no_longer_works() -> None:
    out = StringIO()
    call_command("apitoken", "create", "--name", "old", stdout=out)
    token = out.getvalue().strip()
    call_command("apitoken", "revoke", "--name", "old", stdout=StringIO())
    assert apitoken_authenticate(token=token) is None


def test_create_says_on_stderr_it_is_shown_once_with_its_team_and_scope() -> None:
    out, err = StringIO(), StringIO()
    call_command("apitoken", "create", "--name", "cluster-b", "--team", "gpu-infra", "--scope", "upload",
                 stdout=out, stderr=err)
    assert len(out.getvalue().splitlines()) == 1  # stdout: the token alone, for scripts
    said = err.getvalue()
    assert "shown only this once" in said
    assert "team 'gpu-infra'" in said and "scope upload" in said
    assert out.getvalue().strip() not in said
