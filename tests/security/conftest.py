"""Fixtures of the security tests: named personas and a clean rate-limit count."""
from __future__ import annotations

from typing import Any

import pytest
from django.core.cache import cache
from django.test import Client

from tests.conftest import join_team
from tests.security.helpers import OTHER_TEAM, TEAM, Personas


@pytest.fixture
def personas(db: None, django_user_model: Any) -> Personas:
    users = {}
    clients = {}
    for name, team, role in (
        ("owner", TEAM, "admin"), ("member", TEAM, "member"), ("viewer", TEAM, "viewer"),
        ("outsider", OTHER_TEAM, "admin"),
    ):
        users[name] = join_team(django_user_model.objects.create_user(name, password="x"), team=team, role=role)
        clients[name] = Client()
        clients[name].force_login(users[name])
    return Personas(anonymous=Client(), users=users, **clients)


@pytest.fixture(autouse=True)
def fresh_rate_counts() -> None:
    # The upload rate limit counts in the cache; every test starts with a clean count.
    cache.clear()
