"""The test identity provider's settings: everything it keeps lives in IDP_DIR."""
from __future__ import annotations

import os
from pathlib import Path

HERE = Path(__file__).resolve().parent
STATE = Path(os.environ["IDP_DIR"])

SECRET_KEY = "test-identity-provider-only"  # noqa: S105 - a throwaway provider on loopback
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "oauth2_provider",
]
MIDDLEWARE = [
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
]
ROOT_URLCONF = "tests.accounts.idp.urls"
TEMPLATES = [{
    "BACKEND": "django.template.backends.django.DjangoTemplates",
    "DIRS": [HERE / "templates"],
    "APP_DIRS": True,
    "OPTIONS": {"context_processors": ["django.template.context_processors.request"]},
}]
DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": STATE / "idp.sqlite3"}}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
USE_TZ = True
# Its own cookie names, though it runs on 127.0.0.1 and the dashboard on localhost.
SESSION_COOKIE_NAME = "idp_session"
CSRF_COOKIE_NAME = "idp_csrftoken"
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
LOGIN_URL = "/login/"

OAUTH2_PROVIDER = {
    "OIDC_ENABLED": True,
    # One issuer whatever host name it is asked by, as a real deployment has.
    "OIDC_ISS_ENDPOINT": os.environ["IDP_ISSUER"],
    "OIDC_RSA_PRIVATE_KEY": (STATE / "signing-key.pem").read_text(),
    # A client that sends no PKCE challenge is refused: the dashboard must send one.
    "PKCE_REQUIRED": True,
    "OIDC_RP_INITIATED_LOGOUT_ENABLED": True,
    "OIDC_RP_INITIATED_LOGOUT_ALWAYS_PROMPT": False,
    "SCOPES": {"openid": "OpenID Connect", "email": "email address", "profile": "name"},
    "OAUTH2_VALIDATOR_CLASS": "tests.accounts.idp.claims.GroupsClaimValidator",
}
LOGGING = {"version": 1, "disable_existing_loggers": False}
