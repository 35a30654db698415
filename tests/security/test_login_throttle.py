"""The sign-in throttle holds without Redis (its counts are in the database), locks the account
that is being guessed from every address, and locks an address only for the accounts that failed
from it: the other people behind one NAT or VPN still sign in."""
from __future__ import annotations

from typing import Any

import pytest
from django.core.cache import caches
from django.test import Client

pytestmark = pytest.mark.django_db


def sign_in(client: Client, username: str, password: str) -> Any:
    return client.post("/accounts/login/", {"username": username, "password": password})


@pytest.fixture
def redis_down(settings: Any) -> None:
    """The cache is a Redis nobody listens on (port 1), as when Redis is down."""
    settings.CACHES = {"default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": "redis://127.0.0.1:1/0",
        "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
    }}
    # (Django's setting_changed signal drops the cache connections made with the old setting.)
    with pytest.raises(Exception):  # noqa: B017 - whatever the Redis client raises on a refused connection
        caches["default"].get("probe")


def test_with_redis_down_25_wrong_passwords_lock_the_account_even_for_the_right_one(
    redis_down: None, django_user_model: Any, settings: Any,
) -> None:
    settings.TRIAGE_LOGIN_FAILURE_LIMIT = 10
    django_user_model.objects.create_user("sre", password="right-password")
    attacker = Client(REMOTE_ADDR="203.0.113.7")
    statuses = [sign_in(attacker, "sre", f"guess-{n}").status_code for n in range(25)]
    assert statuses[:10] == [200] * 10 and set(statuses[10:]) == {429}
    refused = sign_in(attacker, "sre", "right-password")
    assert refused.status_code == 429 and "_auth_user_id" not in attacker.session
    page = refused.content.decode()
    assert "Too many failed sign-ins for this account: it is locked for about" in page
    assert "whatever password is typed" in page
    # The account is locked from everywhere: its owner elsewhere waits too (fail closed) ...
    assert sign_in(Client(REMOTE_ADDR="198.51.100.1"), "sre", "right-password").status_code == 429
    # ... while everyone else signs in, from the attacker's address too (open for other users).
    django_user_model.objects.create_user("other", password="pw")
    assert sign_in(Client(REMOTE_ADDR="203.0.113.7"), "other", "pw").status_code == 302


def test_spraying_from_one_address_locks_only_the_accounts_that_failed_from_it(
    django_user_model: Any, settings: Any,
) -> None:
    settings.TRIAGE_LOGIN_FAILURE_LIMIT, settings.TRIAGE_LOGIN_ADDRESS_FACTOR = 3, 2
    nat = "192.0.2.10"
    for name in ("alice", "bob", "carol", "dave", "erin", "frank", "grace"):
        django_user_model.objects.create_user(name, password=f"{name}-pw")
    sprayer = Client(REMOTE_ADDR=nat)
    for name in ("alice", "bob", "carol", "dave", "erin", "frank"):  # one guess each: 6 = 3 x 2
        assert sign_in(sprayer, name, "Summer2026!").status_code == 200
    # The address is now over its limit: an account that failed from it is refused there ...
    refused = sign_in(Client(REMOTE_ADDR=nat), "alice", "alice-pw")
    assert refused.status_code == 429 and "from your network address" in refused.content.decode()
    # ... but not from elsewhere (the account itself failed once, far below its own limit),
    assert sign_in(Client(REMOTE_ADDR="198.51.100.1"), "alice", "alice-pw").status_code == 302
    # and a colleague behind the same NAT who never failed signs in.
    assert sign_in(Client(REMOTE_ADDR=nat), "grace", "grace-pw").status_code == 302


def test_below_the_limits_nothing_is_locked(django_user_model: Any, settings: Any) -> None:
    settings.TRIAGE_LOGIN_FAILURE_LIMIT = 3
    django_user_model.objects.create_user("sre", password="pw")
    client = Client()
    for _ in range(2):
        assert sign_in(client, "sre", "wrong").status_code == 200
    assert sign_in(client, "sre", "pw").status_code == 302
