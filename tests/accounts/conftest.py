"""A real OpenID Connect provider on loopback (tests/accounts/idp: django-oauth-toolkit under
gunicorn, a process and a database of its own), and the dashboard configured to sign in with it."""
from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from tests.collectors.api_server import free_port
from tests.conftest import REPO

CLIENT_ID = "nccl-triage-test"
CLIENT_SECRET = "client-secret-for-the-test-provider"  # noqa: S105
# Groups at the provider -> teams at the dashboard.
TEAM_MAP = "gpu-sre=cluster-a:member,gpu-leads=cluster-a:admin,ml-research=ml-research:viewer"


class Provider:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.port = free_port()
        self.issuer = f"http://127.0.0.1:{self.port}/o"
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def env(self) -> dict[str, str]:
        return {**os.environ, "DJANGO_SETTINGS_MODULE": "tests.accounts.idp.settings", "IDP_DIR": str(self.root),
                "IDP_ISSUER": self.issuer, "PYTHONPATH": str(REPO)}

    def admin(self, *args: str) -> None:
        subprocess.run([sys.executable, "-m", "tests.accounts.idp.admin", *args], cwd=REPO, env=self.env,
                       check=True, timeout=120)

    def person(self, name: str, password: str, *groups: str) -> None:
        """Create the person at the provider, or replace their password and groups."""
        self.admin("person", name, password, f"{name}@example.com", *groups)

    def client(self, dashboard_url: str) -> None:
        self.admin("client", CLIENT_ID, CLIENT_SECRET, f"{dashboard_url}/accounts/oidc/callback/",
                   f"{dashboard_url}/accounts/login/")

    def start(self) -> None:
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        (self.root / "signing-key.pem").write_bytes(key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
        self.admin("migrate")
        log = (self.root / "gunicorn.log").open("wb")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "--chdir", str(REPO), "--bind", f"127.0.0.1:{self.port}",
             "--workers", "1", "--threads", "4", "--access-logfile", "-", "tests.accounts.idp.wsgi:application"],
            cwd=REPO, env=self.env, stdout=log, stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 60
        while True:
            try:
                if requests.get(f"{self.issuer}/.well-known/openid-configuration", timeout=2).ok:
                    return
            except requests.ConnectionError:
                pass
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the test provider did not start:\n{(self.root / 'gunicorn.log').read_text()}")
            time.sleep(0.2)

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=30)


@pytest.fixture(scope="module")
def provider(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Provider]:
    provider = Provider(tmp_path_factory.mktemp("idp"))
    provider.start()
    try:
        yield provider
    finally:
        provider.stop()


@pytest.fixture
def oidc_configured(settings: Any, provider: Provider) -> Provider:
    """The dashboard signing in with the provider, as these environment variables would
    configure it: TRIAGE_OIDC_ISSUER, _CLIENT_ID, _CLIENT_SECRET, _NAME and _TEAM_MAP."""
    from triage.accounts.oidcconfig import csp_with_provider
    from triage.accounts.teammap import parse_team_map

    settings.TRIAGE_OIDC_ENABLED = True
    settings.TRIAGE_OIDC_ISSUER = provider.issuer
    settings.TRIAGE_OIDC_ENDPOINTS = {}
    settings.OIDC_RP_CLIENT_ID = CLIENT_ID
    settings.OIDC_RP_CLIENT_SECRET = CLIENT_SECRET
    settings.TRIAGE_OIDC_NAME = "Test IdP"
    settings.TRIAGE_OIDC_TEAM_MAP = parse_team_map(TEAM_MAP)
    settings.TRIAGE_CSP = csp_with_provider(settings.TRIAGE_CSP, provider.issuer, {})
    return provider


@pytest.fixture
def oidc_on(oidc_configured: Provider, live_server: Any) -> Provider:
    """...with the live server registered at the provider as its client."""
    oidc_configured.client(live_server.url)
    return oidc_configured


# --- LDAP -----------------------------------------------------------------------------------------

# uid -> (password, groups) in the test directory.
DIRECTORY_PEOPLE = {
    "alice": ("alice-in-ldap", ["gpu-sre"]),
    "bob": ("bob-in-ldap", ["ml-research"]),
    "dave": ("dave-in-ldap", ["gpu-sre", "gpu-leads"]),
}
# Groups by name, or by their whole DN (one entry a line, as DNs hold commas).
DIRECTORY_TEAM_MAP = "gpu-sre=cluster-a:member\ncn=gpu-leads,ou=groups,dc=example,dc=com=cluster-a:admin\n"


@pytest.fixture(scope="module")
def directory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from tests.accounts.directory import Directory

    directory = Directory(tmp_path_factory.mktemp("slapd"))
    directory.start(DIRECTORY_PEOPLE)
    try:
        yield directory
    finally:
        directory.stop()


@pytest.fixture
def ldap_on(settings: Any, directory: Any) -> Any:
    """The sign-in form trying the directory, as TRIAGE_LDAP_SERVER_URI, _USER_SEARCH_BASE,
    _GROUP_SEARCH_BASE and _TEAM_MAP would configure it."""
    from tests.accounts.directory import GROUPS, PEOPLE
    from triage.accounts import ldapconfig
    from triage.accounts.teammap import parse_team_map

    settings.TRIAGE_LDAP_ENABLED = True
    settings.AUTHENTICATION_BACKENDS = [
        "triage.accounts.oidc.ProviderBackend", "triage.accounts.ldapauth.DirectoryBackend",
        "django.contrib.auth.backends.ModelBackend",
    ]
    settings.AUTH_LDAP_SERVER_URI = directory.uri
    settings.AUTH_LDAP_ALWAYS_UPDATE_USER = False
    settings.AUTH_LDAP_USER_SEARCH = ldapconfig.user_search(base=PEOPLE, search_filter="(uid=%(user)s)")
    settings.AUTH_LDAP_GROUP_SEARCH, settings.AUTH_LDAP_GROUP_TYPE = ldapconfig.group_search(
        base=GROUPS, kind="groupOfNames")
    settings.AUTH_LDAP_CONNECTION_OPTIONS = ldapconfig.connection_options(ca_file=None, timeout=5)
    settings.TRIAGE_LDAP_TEAM_MAP = parse_team_map(DIRECTORY_TEAM_MAP)
    return directory
