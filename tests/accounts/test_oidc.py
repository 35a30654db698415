"""Sign-in with the identity provider, piece by piece: the team map, the memberships it keeps,
the accounts it makes, the checks on the ID token, and every way the sign-in can go wrong
(answered with the sign-in page and a message, never a 500). The provider is the real one of
tests/accounts/idp where one is needed; the whole flow in a browser is test_oidc_browser.py."""
from __future__ import annotations

import time
from typing import Any
from urllib.parse import parse_qs, urlsplit

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from django.core.exceptions import SuspiciousOperation
from django.test import Client

from tests.accounts.conftest import CLIENT_ID, Provider
from tests.collectors.api_server import free_port
from triage.accounts.oidcconfig import check, csp_with_provider
from triage.accounts.teammap import ROLE_NAMES, Grant, TeamMapError, parse_team_map, teams_of

# --- The team map -----------------------------------------------------------------------------


def test_the_team_map_reads_groups_teams_and_roles() -> None:
    grants = parse_team_map(" gpu-sre=cluster-a:member, gpu-leads=cluster-a:admin,/research/ml=ml-research ,")
    assert grants == (
        Grant("gpu-sre", "cluster-a", "member"), Grant("gpu-leads", "cluster-a", "admin"),
        Grant("/research/ml", "ml-research", "member"),
    )
    # One entry a line (a _FILE, or group names with commas such as distinguished names).
    dn = parse_team_map("# groups of the directory\ncn=gpu-sre,ou=groups,dc=example=cluster-a:viewer\n")
    assert dn == (Grant("cn=gpu-sre,ou=groups,dc=example", "cluster-a", "viewer"),)
    assert parse_team_map("") == ()


@pytest.mark.parametrize(("text", "says"), [
    ("gpu-sre", "write group=team:role"),
    ("=cluster-a:member", "write group=team:role"),
    ("gpu-sre=cluster-a:owner", "unknown role 'owner'"),
    ("gpu-sre=:admin", "the team name is empty"),
    ("gpu-sre=" + "t" * 101 + ":member", "at most 100 characters"),
])
def test_a_bad_team_map_says_what_is_wrong(text: str, says: str) -> None:
    with pytest.raises(TeamMapError, match=says):
        parse_team_map(text)


def test_the_highest_role_of_a_persons_groups_wins() -> None:
    grants = parse_team_map("gpu-sre=cluster-a:member,gpu-leads=cluster-a:admin,all=cluster-a:viewer,all=fleet:viewer")
    assert teams_of(grants, ["all", "gpu-sre"]) == {"cluster-a": "member", "fleet": "viewer"}
    assert teams_of(grants, ["gpu-leads", "all"]) == {"cluster-a": "admin", "fleet": "viewer"}
    assert teams_of(grants, ["somebody-else"]) == {}


def test_the_map_knows_the_roles_of_the_model() -> None:
    from triage.accounts.models import ROLE_RANK, Role

    assert list(ROLE_NAMES) == sorted(Role.values, key=lambda r: ROLE_RANK[Role(r)])


def test_start_up_checks_of_the_provider_settings() -> None:
    check(issuer="https://login.example.com/realms/gpu", endpoints={}, secret="s")
    check(issuer="http://127.0.0.1:8080/o", endpoints={}, secret="s")
    with pytest.raises(ValueError, match="use an https:// URL"):
        check(issuer="http://login.example.com", endpoints={}, secret="s")
    with pytest.raises(ValueError, match="CLIENT_SECRET"):
        check(issuer="https://login.example.com", endpoints={}, secret="")
    with pytest.raises(ValueError, match="missing TRIAGE_OIDC_TOKEN_ENDPOINT, TRIAGE_OIDC_JWKS_URI"):
        check(issuer="", endpoints={"authorization_endpoint": "https://login.example.com/auth"}, secret="s")


def test_signing_out_may_send_the_browser_to_the_provider_and_nowhere_else() -> None:
    policy = "default-src 'self'; form-action 'self'; base-uri 'none'"
    assert csp_with_provider(policy, "https://login.example.com/realms/gpu", {}) == (
        "default-src 'self'; form-action 'self' https://login.example.com; base-uri 'none'"
    )


# --- Accounts and memberships -------------------------------------------------------------------


def _person(**kwargs: Any) -> Any:
    from triage.accounts.services import ProviderPerson

    defaults: dict[str, Any] = {"issuer": "https://idp.example.com", "subject": "s-1", "username": "alice",
                                "email": "alice@example.com", "groups": ("gpu-sre",)}
    return ProviderPerson(**{**defaults, **kwargs})


def _teams(user: Any) -> set[tuple[str, str]]:
    from triage.accounts.models import Membership

    return {(m.team.name, m.role) for m in Membership.objects.filter(user=user).select_related("team")}


@pytest.mark.django_db
def test_memberships_follow_the_groups_and_leave_unmapped_teams_alone(django_user_model: Any) -> None:
    from tests.conftest import join_team
    from triage.accounts.services import identity_sign_in

    grants = parse_team_map("gpu-sre=cluster-a:member,gpu-leads=cluster-a:admin,ml=ml-research:viewer")
    user = identity_sign_in(person=_person(groups=("gpu-sre", "ml")), grants=grants)
    assert _teams(user) == {("cluster-a", "member"), ("ml-research", "viewer")}
    join_team(user, team="on-call", role="admin")  # given by hand: no group decides it

    again = identity_sign_in(person=_person(groups=("gpu-leads",)), grants=grants)
    assert again.pk == user.pk
    assert _teams(user) == {("cluster-a", "admin"), ("on-call", "admin")}
    identity_sign_in(person=_person(groups=()), grants=grants)
    assert _teams(user) == {("on-call", "admin")}


@pytest.mark.django_db
def test_a_person_with_no_mapped_group_gets_no_team(django_user_model: Any) -> None:
    from triage.accounts.services import identity_sign_in

    user = identity_sign_in(person=_person(groups=("interns",)), grants=parse_team_map("gpu-sre=cluster-a"))
    assert _teams(user) == set()


@pytest.mark.django_db
def test_an_account_made_by_hand_is_never_taken_over(django_user_model: Any) -> None:
    from tests.conftest import join_team
    from triage.accounts.models import ExternalIdentity
    from triage.accounts.services import identity_sign_in

    local = join_team(django_user_model.objects.create_user("alice", email="alice@example.com", password="x"),
                      team="cluster-a", role="admin")
    user = identity_sign_in(person=_person(groups=()), grants=parse_team_map("gpu-sre=cluster-b"))
    assert user.pk != local.pk
    assert user.username.startswith("alice-") and len(user.username) == len("alice-") + 8
    assert not user.has_usable_password()
    assert _teams(user) == set()
    assert _teams(local) == {("cluster-a", "admin")}
    # Another subject with the same name and email is another person again.
    other = identity_sign_in(person=_person(subject="s-2", groups=()), grants=())
    assert other.pk not in (user.pk, local.pk)
    # Found again by issuer and subject, the profile kept to the provider's.
    renamed = identity_sign_in(person=_person(email="alice@new.example.com", first_name="Alice"), grants=())
    assert renamed.pk == user.pk
    renamed.refresh_from_db()
    assert (renamed.email, renamed.first_name) == ("alice@new.example.com", "Alice")
    assert ExternalIdentity.objects.get(user=user).groups == ["gpu-sre"]


def test_groups_come_from_the_configured_claim(settings: Any) -> None:
    from triage.accounts.oidc import groups_of, person_of

    claims = {"sub": "1", "groups": ["b", "a", 3, "a"], "realm_access": {"roles": ["gpu-sre"]}, "hd": "example.com",
              "email": "e@example.com"}
    assert groups_of(claims) == ("a", "b")
    settings.TRIAGE_OIDC_GROUPS_CLAIM = "realm_access.roles"
    assert groups_of(claims) == ("gpu-sre",)
    settings.TRIAGE_OIDC_GROUPS_CLAIM = "hd"  # Google: the Workspace domain as the one group
    assert groups_of(claims) == ("example.com",)
    settings.TRIAGE_OIDC_GROUPS_CLAIM = "nowhere.at.all"
    assert groups_of(claims) == ()
    # No preferred_username: the email, then the subject.
    assert person_of(claims, "https://idp").username == "e@example.com"
    assert person_of({"sub": "1"}, "https://idp").username == "1"


# --- The ID token's checks ------------------------------------------------------------------------


@pytest.fixture
def signed(settings: Any) -> Any:
    """A backend that trusts one local key, and a function signing ID tokens with it."""
    from triage.accounts.oidc import ProviderBackend

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    settings.TRIAGE_OIDC_ENABLED = True
    settings.TRIAGE_OIDC_ISSUER = "https://idp.example.com"
    settings.OIDC_RP_CLIENT_ID = CLIENT_ID
    backend = ProviderBackend()
    backend.OIDC_RP_IDP_SIGN_KEY = key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode()

    def sign(**claims: Any) -> str:
        base = {"iss": "https://idp.example.com", "aud": CLIENT_ID, "sub": "1", "nonce": "n",
                "iat": int(time.time()), "exp": int(time.time()) + 60}
        return jwt.encode({**base, **claims}, key, algorithm="RS256")

    return backend, sign


def test_the_id_token_must_be_from_the_issuer_to_this_client(signed: Any) -> None:
    backend, sign = signed
    assert backend.verify_token(sign(), nonce="n")["sub"] == "1"
    assert backend.verify_token(sign(aud=["other", CLIENT_ID], azp=CLIENT_ID), nonce="n")["sub"] == "1"
    for claims, says in (
        ({"iss": "https://evil.example.com"}, "issuer"),
        ({"aud": "another-client"}, "aud"),
        ({"aud": [CLIENT_ID, "other"], "azp": "other"}, "azp"),
        ({"nonce": "replayed"}, "Nonce"),
    ):
        with pytest.raises(SuspiciousOperation, match=says):
            backend.verify_token(sign(**claims), nonce="n")
    with pytest.raises(jwt.ExpiredSignatureError):
        backend.verify_token(sign(exp=int(time.time()) - 600), nonce="n")


# --- The pages ------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_without_a_provider_there_is_the_local_form_only(client: Client, settings: Any) -> None:
    settings.TRIAGE_OIDC_ENABLED = False
    page = client.get("/accounts/login/")
    assert page.status_code == 200
    assert b"id_username" in page.content and b"oidc-sign-in" not in page.content
    assert client.get("/accounts/oidc/authenticate/").status_code == 404
    assert client.get("/accounts/oidc/callback/?code=x&state=y").status_code == 404


@pytest.mark.django_db
def test_the_sign_in_goes_to_the_provider_with_state_nonce_and_pkce(
    client: Client, oidc_configured: Provider, django_user_model: Any,
) -> None:
    page = client.get("/accounts/login/?next=/fleet/")
    assert b"Sign in with Test IdP" in page.content
    assert b'href="/accounts/oidc/authenticate/?next=/fleet/"' in page.content

    answer = client.get("/accounts/oidc/authenticate/?next=/fleet/")
    assert answer.status_code == 302
    where = urlsplit(answer["Location"])
    query = {k: v[0] for k, v in parse_qs(where.query).items()}
    assert f"{where.scheme}://{where.netloc}{where.path}" == f"{oidc_configured.issuer}/authorize/"
    assert query["client_id"] == CLIENT_ID
    assert query["response_type"] == "code" and query["code_challenge_method"] == "S256"
    assert query["scope"] == "openid email profile"
    assert query["redirect_uri"] == "http://testserver/accounts/oidc/callback/"
    states = client.session["oidc_states"]
    assert list(states) == [query["state"]] and states[query["state"]]["nonce"] == query["nonce"]
    assert len(states[query["state"]]["code_verifier"]) == 64

    # Local accounts stay: the form still signs in.
    django_user_model.objects.create_user("local", password="correct horse")
    signed_in = client.post("/accounts/login/", {"username": "local", "password": "correct horse"})
    assert signed_in.status_code == 302 and signed_in["Location"] == "/"


def _messages(client: Client, answer: Any) -> list[str]:
    assert answer.status_code == 302 and answer["Location"] == "/accounts/login/"
    page = client.get(answer["Location"])
    return [str(m) for m in page.context["messages"]]


@pytest.mark.django_db
def test_a_callback_that_does_not_fit_is_refused_with_a_message(client: Client, oidc_configured: Provider) -> None:
    # No sign-in was started in this session.
    assert _messages(client, client.get("/accounts/oidc/callback/?code=c&state=s")) == [
        "Sign-in with Test IdP did not complete."]
    client.get("/accounts/oidc/authenticate/")
    # A state this session did not make.
    assert _messages(client, client.get("/accounts/oidc/callback/?code=c&state=forged")) == [
        "Sign-in with Test IdP was refused; please start again."]
    # The right state with a code the provider never gave: its token endpoint refuses it.
    state = next(iter(client.session["oidc_states"]))
    assert _messages(client, client.get(f"/accounts/oidc/callback/?code=made-up&state={state}")) == [
        "Sign-in with Test IdP was refused; please start again."]
    # The person said no at the provider.
    assert _messages(client, client.get("/accounts/oidc/callback/?error=access_denied&state=x")) == [
        "Sign-in with Test IdP did not complete (access_denied)."]
    assert "_auth_user_id" not in client.session


@pytest.mark.django_db
def test_a_provider_that_cannot_be_reached_is_said_so(client: Client, settings: Any) -> None:
    settings.TRIAGE_OIDC_ENABLED = True
    settings.TRIAGE_OIDC_ISSUER = f"http://127.0.0.1:{free_port()}/o"  # nothing listens there
    settings.TRIAGE_OIDC_ENDPOINTS = {}
    settings.OIDC_RP_CLIENT_ID = CLIENT_ID
    settings.TRIAGE_OIDC_NAME = "Corp SSO"
    settings.OIDC_TIMEOUT = 2
    assert _messages(client, client.get("/accounts/oidc/authenticate/")) == [
        "Corp SSO cannot be reached just now; try again later."]


@pytest.mark.django_db
def test_a_discovery_document_of_another_issuer_is_not_used(
    client: Client, oidc_configured: Provider, settings: Any,
) -> None:
    # The provider answers for http://127.0.0.1:<port>/o; asked as localhost it names that issuer.
    settings.TRIAGE_OIDC_ISSUER = oidc_configured.issuer.replace("127.0.0.1", "localhost")
    assert _messages(client, client.get("/accounts/oidc/authenticate/")) == [
        "Test IdP cannot be reached just now; try again later."]
