"""Sign-in with the company's identity provider (OpenID Connect), through mozilla-django-oidc.

The library runs the authorization-code flow: state, nonce and a PKCE verifier kept in the
session, the code exchanged at the token endpoint, the ID token's signature checked against
the provider's published keys. This module adds what it leaves to its users:
- the endpoints found by discovery (`<issuer>/.well-known/openid-configuration`) when first
  needed, not at start-up, so a provider that is down stops only its own sign-in;
- the ID token's issuer and audience checked, userinfo's subject held to the ID token's;
- people found by issuer and subject (ExternalIdentity), never by email, and their team
  memberships kept to their groups (services.identity_sign_in);
- failures answered with the sign-in page and a message, never a 500.
"""
from __future__ import annotations

import logging
import threading
from typing import Any
from urllib.parse import urlencode

import requests
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.core.exceptions import SuspiciousOperation
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse
from django.views import View
from mozilla_django_oidc.auth import OIDCAuthenticationBackend
from mozilla_django_oidc.views import OIDCAuthenticationCallbackView, OIDCAuthenticationRequestView

from .services import ProviderPerson, identity_sign_in

log = logging.getLogger(__name__)

DISCOVERY_PATH = "/.well-known/openid-configuration"


class ProviderUnavailable(Exception):
    """The provider's discovery document could not be read or does not fit the settings."""


_discovered: dict[str, dict[str, Any]] = {}
_discovered_lock = threading.Lock()


@receiver(setting_changed)
def _forget_discovery(*, setting: str, **kwargs: Any) -> None:
    if setting.startswith(("TRIAGE_OIDC", "OIDC_")):
        with _discovered_lock:
            _discovered.clear()


def enabled() -> bool:
    return bool(getattr(settings, "TRIAGE_OIDC_ENABLED", False))


def provider_name() -> str:
    return str(settings.TRIAGE_OIDC_NAME)


def _discover(issuer: str) -> dict[str, Any]:
    with _discovered_lock:
        if issuer in _discovered:
            return _discovered[issuer]
    url = issuer + DISCOVERY_PATH
    try:
        response = requests.get(url, timeout=settings.OIDC_TIMEOUT, verify=settings.OIDC_VERIFY_SSL)
        response.raise_for_status()
        document = response.json()
    except (requests.RequestException, ValueError) as e:
        raise ProviderUnavailable(f"cannot read {url}: {e}") from e
    if not isinstance(document, dict):
        raise ProviderUnavailable(f"{url} is not a discovery document")
    # OpenID Connect Discovery 1.0 §4.3: the issuer it names must be the one asked for exactly,
    # or tokens could be taken from a provider that is not the one configured.
    if str(document.get("issuer", "")).rstrip("/") != issuer:
        raise ProviderUnavailable(f"{url} names issuer {document.get('issuer')!r}, not {issuer!r}")
    with _discovered_lock:
        _discovered[issuer] = document
    return document


def endpoints() -> dict[str, str]:
    """authorization_endpoint, token_endpoint, jwks_uri and, where the provider has them,
    userinfo_endpoint and end_session_endpoint: the settings' own, else discovery's."""
    explicit: dict[str, str] = dict(settings.TRIAGE_OIDC_ENDPOINTS)
    names = ("authorization_endpoint", "token_endpoint", "jwks_uri", "userinfo_endpoint", "end_session_endpoint")
    issuer = settings.TRIAGE_OIDC_ISSUER
    if not issuer:
        return explicit
    document = _discover(issuer)
    found = {name: str(document[name]) for name in names if isinstance(document.get(name), str)}
    found.update(explicit)
    missing = [name for name in names[:3] if name not in found]
    if missing:
        raise ProviderUnavailable(f"the provider's discovery document has no {', '.join(missing)}")
    return found


def _claim(claims: dict[str, Any], path: str) -> Any:
    value: Any = claims
    for part in path.split("."):
        if not isinstance(value, dict):
            return None
        value = value.get(part)
    return value


def groups_of(claims: dict[str, Any]) -> tuple[str, ...]:
    """The person's groups from the configured claim: a list of strings, or one string."""
    value = _claim(claims, settings.TRIAGE_OIDC_GROUPS_CLAIM)
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list):
        return tuple(sorted({item for item in value if isinstance(item, str)}))
    return ()


def person_of(claims: dict[str, Any], issuer: str) -> ProviderPerson:
    def text(name: str) -> str:
        value = claims.get(name)
        return value if isinstance(value, str) else ""

    subject = text("sub")
    username = str(_claim(claims, settings.TRIAGE_OIDC_USERNAME_CLAIM) or "") or text("email") or subject
    return ProviderPerson(
        issuer=issuer, subject=subject, username=username, email=text("email"),
        first_name=text("given_name"), last_name=text("family_name"), groups=groups_of(claims),
    )


class ProviderBackend(OIDCAuthenticationBackend):  # type: ignore[misc]
    """mozilla-django-oidc's backend, with the endpoints resolved at the sign-in only: Django
    makes a backend on every request of a signed-in person (to load them), and that must not
    ask the provider anything."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.UserModel = get_user_model()
        self.OIDC_RP_IDP_SIGN_KEY = None
        self._endpoints: dict[str, str] | None = None

    def _endpoint(self, name: str) -> str | None:
        if self._endpoints is None:
            self._endpoints = endpoints()
        return self._endpoints.get(name)

    @property
    def OIDC_OP_TOKEN_ENDPOINT(self) -> str | None:  # noqa: N802 - the library's attribute names
        return self._endpoint("token_endpoint")

    @property
    def OIDC_OP_USER_ENDPOINT(self) -> str | None:  # noqa: N802
        return self._endpoint("userinfo_endpoint")

    @property
    def OIDC_OP_JWKS_ENDPOINT(self) -> str | None:  # noqa: N802
        return self._endpoint("jwks_uri")

    @property
    def OIDC_RP_CLIENT_ID(self) -> str:  # noqa: N802
        return str(settings.OIDC_RP_CLIENT_ID)

    @property
    def OIDC_RP_CLIENT_SECRET(self) -> str:  # noqa: N802
        return str(settings.OIDC_RP_CLIENT_SECRET)

    @property
    def OIDC_RP_SIGN_ALGO(self) -> str:  # noqa: N802
        return str(settings.OIDC_RP_SIGN_ALGO)

    def authenticate(self, request: HttpRequest | None, **kwargs: Any) -> Any:
        if not enabled() or request is None or "username" in kwargs:
            return None  # the local sign-in form: ModelBackend's
        return super().authenticate(request, **kwargs)

    def verify_token(self, token: str, **kwargs: Any) -> dict[str, Any]:
        payload: dict[str, Any] = super().verify_token(token, **kwargs)
        # The library checks signature, expiry and nonce; the issuer and the audience are ours.
        issuer = settings.TRIAGE_OIDC_ISSUER
        if issuer and str(payload.get("iss", "")).rstrip("/") != issuer:
            raise SuspiciousOperation(f"ID token from issuer {payload.get('iss')!r}, not {issuer!r}")
        audience = payload.get("aud")
        audiences = audience if isinstance(audience, list) else [audience]
        if self.OIDC_RP_CLIENT_ID not in audiences:
            raise SuspiciousOperation("ID token not issued to this client (aud)")
        if len(audiences) > 1 and payload.get("azp") != self.OIDC_RP_CLIENT_ID:
            raise SuspiciousOperation("ID token with several audiences and another authorized party (azp)")
        return payload

    def get_userinfo(self, access_token: str, id_token: str, payload: dict[str, Any]) -> dict[str, Any]:
        """The ID token's claims, with userinfo's on top where the provider has the endpoint
        (Azure AD puts groups in the ID token only; others in userinfo only)."""
        claims = dict(payload)
        if self.OIDC_OP_USER_ENDPOINT:
            userinfo = super().get_userinfo(access_token, id_token, payload)
            if not isinstance(userinfo, dict) or userinfo.get("sub") != payload.get("sub"):
                # OpenID Connect Core §5.3.2: userinfo of another subject must not be used.
                raise SuspiciousOperation("userinfo is about another subject than the ID token")
            claims.update(userinfo)
        return claims

    def verify_claims(self, claims: dict[str, Any]) -> bool:
        return isinstance(claims.get("sub"), str) and bool(claims["sub"])

    def get_or_create_user(self, access_token: str, id_token: str, payload: dict[str, Any]) -> Any:
        claims = self.get_userinfo(access_token, id_token, payload)
        if not self.verify_claims(claims):
            raise SuspiciousOperation("the provider named no subject (sub)")
        issuer = settings.TRIAGE_OIDC_ISSUER or str(payload.get("iss", ""))
        person = person_of(claims, issuer)
        user = identity_sign_in(person=person, grants=settings.TRIAGE_OIDC_TEAM_MAP)
        log.info("sign-in through the provider: %s (%s), groups %s", user.get_username(), person.subject,
                 list(person.groups))
        return user

    def get_user(self, user_id: Any) -> Any:
        # ModelBackend's: an account made inactive is signed out at its next request.
        return ModelBackend.get_user(self, user_id)


def _back_to_sign_in(request: HttpRequest, message: str) -> HttpResponse:
    messages.error(request, message)
    return HttpResponseRedirect(reverse("login"))


class SignInView(OIDCAuthenticationRequestView):  # type: ignore[misc]
    """Sends the browser to the provider (with state, nonce and a PKCE challenge)."""

    def __init__(self, **kwargs: Any) -> None:
        # The library reads the endpoint here; ours is resolved in get(), where failing is answered.
        View.__init__(self, **kwargs)
        self.OIDC_RP_CLIENT_ID = ""
        self.OIDC_OP_AUTH_ENDPOINT = ""

    def get(self, request: HttpRequest) -> HttpResponse:
        if not enabled():
            raise Http404("sign-in with an identity provider is not configured")
        try:
            self.OIDC_OP_AUTH_ENDPOINT = endpoints()["authorization_endpoint"]
        except ProviderUnavailable as e:
            log.warning("sign-in with %s unavailable: %s", provider_name(), e)
            return _back_to_sign_in(request, f"{provider_name()} cannot be reached just now; try again later.")
        self.OIDC_RP_CLIENT_ID = settings.OIDC_RP_CLIENT_ID
        response: HttpResponse = super().get(request)
        return response


class CallbackView(OIDCAuthenticationCallbackView):  # type: ignore[misc]
    """Where the provider sends the browser back with a code (or an error)."""

    @property
    def failure_url(self) -> str:
        return reverse("login")

    def login_failure(self) -> HttpResponse:
        error = self.request.GET.get("error")
        reason = f" ({error})" if error else ""
        return _back_to_sign_in(self.request, f"Sign-in with {provider_name()} did not complete{reason}.")

    def get(self, request: HttpRequest) -> HttpResponse:
        if not enabled():
            raise Http404("sign-in with an identity provider is not configured")
        try:
            response: HttpResponse = super().get(request)
        except (SuspiciousOperation, requests.HTTPError) as e:
            # A state not in this session (an old tab, a replayed link), a code the provider
            # refused (used twice, expired), a token that fails its checks.
            log.warning("sign-in with %s refused: %s", provider_name(), e)
            return _back_to_sign_in(request, f"Sign-in with {provider_name()} was refused; please start again.")
        except (requests.RequestException, ProviderUnavailable) as e:
            log.warning("sign-in with %s failed: %s", provider_name(), e)
            return _back_to_sign_in(request, f"{provider_name()} did not answer the sign-in; try again later.")
        return response


def provider_logout_url(request: HttpRequest, id_token: str) -> str | None:
    """The provider's end-session URL for this sign-out (RP-initiated logout), or None."""
    if not (enabled() and settings.TRIAGE_OIDC_PROVIDER_LOGOUT and id_token):
        return None
    try:
        end_session = endpoints().get("end_session_endpoint")
    except ProviderUnavailable as e:
        log.warning("signed out here only: %s", e)
        return None
    if not end_session:
        return None
    query = urlencode({
        "id_token_hint": id_token, "client_id": settings.OIDC_RP_CLIENT_ID,
        "post_logout_redirect_uri": request.build_absolute_uri(reverse("login")),
    })
    return f"{end_session}{'&' if '?' in end_session else '?'}{query}"
