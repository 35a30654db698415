"""Start-up checks of the identity-provider settings (read by triage/settings.py before the apps
are loaded, so no Django here)."""
from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

# Without discovery (no issuer), these endpoints must all be named.
REQUIRED_ENDPOINTS = ("authorization_endpoint", "token_endpoint", "jwks_uri")


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_url(name: str, url: str) -> None:
    """https only (plain http only to this machine, e.g. a provider started by the tests):
    the client secret and the codes travel to these URLs."""
    parts = urlsplit(url)
    if parts.scheme == "https" and parts.hostname:
        return
    if parts.scheme == "http" and parts.hostname and is_loopback(parts.hostname):
        return
    raise ValueError(f"{name}={url!r}: use an https:// URL (http:// only on loopback)")


def check(*, issuer: str, endpoints: dict[str, str], secret: str) -> None:
    if issuer:
        check_url("TRIAGE_OIDC_ISSUER", issuer)
    else:
        missing = [name for name in REQUIRED_ENDPOINTS if name not in endpoints]
        if missing:
            names = ", ".join(f"TRIAGE_OIDC_{name.upper()}" for name in missing)
            raise ValueError(f"set TRIAGE_OIDC_ISSUER (discovery) or all of the endpoints; missing {names}")
    for name, url in endpoints.items():
        check_url(f"TRIAGE_OIDC_{name.upper()}", url)
    if not secret:
        raise ValueError("TRIAGE_OIDC_CLIENT_SECRET (or TRIAGE_OIDC_CLIENT_SECRET_FILE) must be set with "
                         "TRIAGE_OIDC_CLIENT_ID: the dashboard is a confidential client")


def origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def origins(issuer: str, endpoints: dict[str, str]) -> list[str]:
    """Where signing out may send the browser: the issuer's origin (its end-session endpoint
    is found by discovery, at run time) and an end-session endpoint named in the settings."""
    found = [origin(url) for url in (issuer, endpoints.get("end_session_endpoint", "")) if url]
    return sorted(set(found))


def csp_with_provider(policy: str, issuer: str, endpoints: dict[str, str]) -> str:
    """The Content-Security-Policy with the provider's origins added to form-action: signing
    out is a form whose answer redirects to the provider's end-session endpoint, and Chromium
    holds form-action to every redirect of a form's navigation."""
    directives = [d.strip() for d in policy.split(";") if d.strip()]
    extra = " ".join(origins(issuer, endpoints))
    return "; ".join(f"{d} {extra}" if d.startswith("form-action") and extra else d for d in directives)
