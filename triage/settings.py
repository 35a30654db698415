"""Settings, read from the environment.

With no environment at all this is the embedded default: SQLite in the repository root, tasks
run in-process, DEBUG off (DEBUG=1 for Django's debug pages). Set REDIS_URL and DATABASE_URL (and SECRET_KEY) for the
full stack: Celery workers over Redis, PostgreSQL. A bad value fails at start-up, loudly.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import dj_database_url
import django_stubs_ext
from django.core.exceptions import ImproperlyConfigured
from kombu import Queue

# ModelAdmin[Model] and the other classes generic in django-stubs are made subscriptable at
# run time too (the admin modules name their model that way for mypy --strict).
django_stubs_ext.monkeypatch()

BASE_DIR = Path(__file__).resolve().parent.parent


def env(name: str, default: str | None = None) -> str | None:
    """The value of NAME, or the content of the file named by NAME_FILE (Docker secrets)."""
    path = os.environ.get(f"{name}_FILE")
    if path:
        try:
            return Path(path).read_text().strip()
        except OSError as e:
            raise ImproperlyConfigured(f"{name}_FILE={path}: cannot read it ({e.strerror})") from e
    return os.environ.get(name, default)


def envbool(name: str, default: bool) -> bool:
    value = env(name)
    if value is None or value == "":
        return default
    if value.lower() in ("1", "true", "yes", "on"):
        return True
    if value.lower() in ("0", "false", "no", "off"):
        return False
    raise ImproperlyConfigured(f"{name}={value!r} is not a boolean (use 1/0, true/false, yes/no)")


def envint(name: str, default: int, *, minimum: int = 0) -> int:
    value = env(name)
    if value is None or value == "":
        return default
    try:
        number = int(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={value!r} is not an integer") from None
    if number < minimum:
        raise ImproperlyConfigured(f"{name}={number} is below the minimum {minimum}")
    return number


def envlist(name: str, default: list[str]) -> list[str]:
    value = env(name)
    if value is None or value.strip() == "":
        return default
    return [item.strip() for item in value.split(",") if item.strip()]


# The embedded default (`make run`): no DATABASE_URL, so SQLite in the repository root and a
# server on the loopback only. It runs with DEBUG off like any install: Django's debug pages
# (the URL pattern list on a 404, tracebacks on a 500) are for DEBUG=1, set by hand.
EMBEDDED = not env("DATABASE_URL")
DEBUG = envbool("DEBUG", False)


def _embedded_secret_key() -> str:
    """The embedded default's own key, made once and kept beside db.sqlite3 (mode 0600): no
    key is shared by every checkout, and sessions survive a restart."""
    import secrets

    path = BASE_DIR / ".secret_key"
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return path.read_text().strip()
    except OSError:
        return secrets.token_urlsafe(50)  # a read-only checkout: this process's own key
    key = secrets.token_urlsafe(50)
    with os.fdopen(fd, "w") as f:
        f.write(key + "\n")
    return key


SECRET_KEY = env("SECRET_KEY") or ""
if not SECRET_KEY:
    if DEBUG:
        SECRET_KEY = "dev-only-insecure-key-nccl-triage"  # noqa: S105 - only ever used with DEBUG on
    elif EMBEDDED:
        SECRET_KEY = _embedded_secret_key()
    else:
        raise ImproperlyConfigured("SECRET_KEY (or SECRET_KEY_FILE) must be set when DEBUG is off")

ALLOWED_HOSTS = envlist("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]"] if DEBUG or EMBEDDED else [])
CSRF_TRUSTED_ORIGINS = envlist("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    # Before staticfiles: runserver serves static files through whitenoise too, as in production.
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "triage.accounts",
    "triage.incidents",
    "triage.fanout",
    "triage.api",
    "triage.web",
    "triage.cli",
    "triage.fleet",
]

MIDDLEWARE = [
    # First, so it sees every error (JSON for the API; 503 when the database is down).
    "triage.api.middleware.ErrorResponseMiddleware",
    # Second: a NUL, control character or lone surrogate in the path, a query or a form field
    # is a 400 before anything reads it (triage/api/textgate.py).
    "triage.api.textgate.TextGateMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # Every page needs a login unless its view says otherwise (the API uses tokens instead).
    "django.contrib.auth.middleware.LoginRequiredMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "triage.web.middleware.ContentSecurityPolicyMiddleware",
]

ROOT_URLCONF = "triage.urls"
WSGI_APPLICATION = "triage.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASES = {
    "default": dj_database_url.parse(
        env("DATABASE_URL") or f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        conn_max_age=envint("DB_CONN_MAX_AGE", 0),
    )
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "web:incident-list"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "/static/"
STATIC_ROOT = Path(env("STATIC_ROOT") or BASE_DIR / "staticfiles")
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    # Raw bundles live here, untouched. Local disk by default; any Django storage works as long
    # as workers can read it (a shared volume, or S3-compatible storage via django-storages).
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}
MEDIA_ROOT = Path(env("MEDIA_ROOT") or BASE_DIR / "media")
# TRIAGE_STORAGE=s3: raw bundles in S3-compatible object storage (several machines running
# workers), configured with django-storages' own names. Uploads still stream to MEDIA_ROOT/tmp
# while hashed, then on to the bucket; workers stream out of it (triage/incidents/storage.py).
# https://django-storages.readthedocs.io/en/latest/backends/amazon-S3.html
TRIAGE_STORAGE = (env("TRIAGE_STORAGE") or "local").lower()
if TRIAGE_STORAGE == "s3":
    AWS_STORAGE_BUCKET_NAME = env("AWS_STORAGE_BUCKET_NAME") or ""
    if not AWS_STORAGE_BUCKET_NAME:
        raise ImproperlyConfigured("TRIAGE_STORAGE=s3 needs AWS_STORAGE_BUCKET_NAME")
    AWS_S3_ENDPOINT_URL = env("AWS_S3_ENDPOINT_URL") or None  # None: AWS itself
    AWS_S3_REGION_NAME = env("AWS_S3_REGION_NAME") or None
    # Unset keys leave boto3 its own chain (instance role, ~/.aws, web identity in Kubernetes).
    AWS_ACCESS_KEY_ID = env("AWS_ACCESS_KEY_ID") or None
    AWS_SECRET_ACCESS_KEY = env("AWS_SECRET_ACCESS_KEY") or None
    AWS_LOCATION = env("AWS_LOCATION") or ""  # a key prefix, to share one bucket
    # Bundles are private: downloads go through the login-checked view, never a bucket URL.
    AWS_DEFAULT_ACL = None
    AWS_QUERYSTRING_AUTH = True
    # Names are content hashes: the same name is the same bytes, no existence check needed.
    AWS_S3_FILE_OVERWRITE = True
    from botocore.config import Config as _BotoConfig

    # Fail fast when the bucket is unreachable: the upload answers 503 + Retry-After and the
    # collector retries, rather than holding the request for boto's default ~minute.
    AWS_S3_CLIENT_CONFIG = _BotoConfig(
        connect_timeout=envint("AWS_S3_CONNECT_TIMEOUT", 5, minimum=1),
        read_timeout=envint("AWS_S3_READ_TIMEOUT", 60, minimum=1),
        retries={"mode": "standard", "max_attempts": envint("AWS_S3_MAX_ATTEMPTS", 3, minimum=1)},
    )
    STORAGES["default"] = {"BACKEND": "triage.incidents.storage.BundleS3Storage"}
elif TRIAGE_STORAGE != "local":
    raise ImproperlyConfigured(f"TRIAGE_STORAGE={TRIAGE_STORAGE!r}: use local (the default) or s3")
# Seconds a client is told to wait (Retry-After) when the bundle store is unreachable.
TRIAGE_STORAGE_RETRY_AFTER = envint("TRIAGE_STORAGE_RETRY_AFTER", 30, minimum=1)
MEDIA_URL = "/media/"  # never served directly: bundles are downloaded through a login-checked view

# --- Uploads -------------------------------------------------------------------------------
# Every upload streams to a temporary file in MEDIA_ROOT/tmp (so storing it is a rename, not a
# copy) while its sha256 is computed; nothing is held whole in memory.
FILE_UPLOAD_HANDLERS = ["triage.incidents.uploads.HashingUploadHandler"]
FILE_UPLOAD_PERMISSIONS = 0o640
# Size limits, each answered 413 with the limit named (and, on the API, in headers):
# one file may be at most this big (TRIAGE_MAX_BUNDLE_MB is the older name of the setting) ...
TRIAGE_MAX_BUNDLE_BYTES = envint("TRIAGE_MAX_FILE_MB", envint("TRIAGE_MAX_BUNDLE_MB", 4096, minimum=1),
                                 minimum=1) * 1024 * 1024
# ... all files of one upload (one bundle: a request, many files from the browser) together ...
TRIAGE_MAX_UPLOAD_BYTES = envint("TRIAGE_MAX_UPLOAD_MB", 8192, minimum=1) * 1024 * 1024
# ... and all bundles of one incident (every node of a job uploads to the same one).
TRIAGE_MAX_INCIDENT_BYTES = envint("TRIAGE_MAX_INCIDENT_MB", 65536, minimum=1) * 1024 * 1024
# What the engine reads out of one incident's archives (triage.engine.bundle.Limits): member
# count, uncompressed bytes, compression ratio. Beyond them it stops reading that archive and
# says so in the diagnosis' problems; the raw upload is kept either way.
TRIAGE_ARCHIVE_MAX_MEMBERS = envint("TRIAGE_ARCHIVE_MAX_MEMBERS", 20_000, minimum=1)
TRIAGE_ARCHIVE_MAX_TOTAL_BYTES = envint("TRIAGE_ARCHIVE_MAX_TOTAL_MB", 16 * 1024, minimum=1) * 1024 * 1024
TRIAGE_ARCHIVE_MAX_RATIO = envint("TRIAGE_ARCHIVE_MAX_RATIO", 100, minimum=2)
# Files this small may compress better than the ratio allows (a log of one repeated line).
TRIAGE_ARCHIVE_RATIO_GRACE_BYTES = envint("TRIAGE_ARCHIVE_RATIO_GRACE_MB", 32, minimum=0) * 1024 * 1024
# Collector uploads per API token: at most this many per window (0: no limit), else 429 with
# Retry-After. Generous on purpose: every node of a failed job uploads at the same moment.
TRIAGE_UPLOAD_RATE_LIMIT = envint("TRIAGE_UPLOAD_RATE_LIMIT", 600, minimum=0)
TRIAGE_UPLOAD_RATE_WINDOW = envint("TRIAGE_UPLOAD_RATE_WINDOW", 60, minimum=1)
# Non-file form fields (job, host) are tiny; Django's default 2.5 MB cap is plenty.
DATA_UPLOAD_MAX_NUMBER_FILES = envint("TRIAGE_MAX_FILES_PER_UPLOAD", 100, minimum=1)

# --- Teams, share links, retention ------------------------------------------------------------
# Incidents with no team named (the demo, `apitoken create` without --team) go to this team.
TRIAGE_DEFAULT_TEAM = env("TRIAGE_DEFAULT_TEAM") or "default"
# Longest a share link may live, and what one gets when none is asked for (0: never expires).
TRIAGE_SHARE_MAX_SECONDS = envint("TRIAGE_SHARE_MAX_DAYS", 90, minimum=1) * 86400
TRIAGE_SHARE_DEFAULT_SECONDS = envint("TRIAGE_SHARE_DEFAULT_DAYS", 7, minimum=0) * 86400
# Share links one person or token may create per hour (0: no limit), and failed sign-ins per
# account within the window before it is refused for the window's rest.
TRIAGE_SHARE_RATE_LIMIT = envint("TRIAGE_SHARE_RATE_LIMIT", 30, minimum=0)
TRIAGE_LOGIN_FAILURE_LIMIT = envint("TRIAGE_LOGIN_FAILURE_LIMIT", 10, minimum=0)
TRIAGE_LOGIN_FAILURE_WINDOW = envint("TRIAGE_LOGIN_FAILURE_WINDOW", 900, minimum=1)
# An address is locked (for the accounts that failed from it) after this many times the limit
# (triage/accounts/throttle.py); the counts are kept in the database, so they hold without Redis.
TRIAGE_LOGIN_ADDRESS_FACTOR = envint("TRIAGE_LOGIN_ADDRESS_FACTOR", 5, minimum=1)
# --- Sign-in with the company's identity provider (OpenID Connect; docs/sign-in.md) -----------
# Off unless an issuer (or the endpoints) and a client id are set; local accounts stay either
# way (the embedded default has only them). mozilla-django-oidc runs the authorization-code
# flow with PKCE, state and nonce; triage.accounts.oidc finds the endpoints by discovery,
# checks the ID token's issuer and audience, and keeps team memberships to the groups claim.
TRIAGE_OIDC_ISSUER = (env("TRIAGE_OIDC_ISSUER") or "").rstrip("/")
# Endpoints named here are used as they are instead of discovery's (all of the first three
# make discovery unnecessary).
TRIAGE_OIDC_ENDPOINTS = {
    key: value for key, value in (
        ("authorization_endpoint", env("TRIAGE_OIDC_AUTHORIZATION_ENDPOINT")),
        ("token_endpoint", env("TRIAGE_OIDC_TOKEN_ENDPOINT")),
        ("jwks_uri", env("TRIAGE_OIDC_JWKS_URI")),
        ("userinfo_endpoint", env("TRIAGE_OIDC_USERINFO_ENDPOINT")),
        ("end_session_endpoint", env("TRIAGE_OIDC_END_SESSION_ENDPOINT")),
    ) if value
}
OIDC_RP_CLIENT_ID = env("TRIAGE_OIDC_CLIENT_ID") or ""
OIDC_RP_CLIENT_SECRET = env("TRIAGE_OIDC_CLIENT_SECRET") or ""
TRIAGE_OIDC_ENABLED = bool(OIDC_RP_CLIENT_ID and (TRIAGE_OIDC_ISSUER or TRIAGE_OIDC_ENDPOINTS))
if TRIAGE_OIDC_ENABLED:
    from triage.accounts import oidcconfig

    try:
        oidcconfig.check(issuer=TRIAGE_OIDC_ISSUER, endpoints=TRIAGE_OIDC_ENDPOINTS,
                         secret=OIDC_RP_CLIENT_SECRET)
    except ValueError as e:
        raise ImproperlyConfigured(str(e)) from None
elif env("TRIAGE_OIDC_ISSUER") or TRIAGE_OIDC_ENDPOINTS or env("TRIAGE_OIDC_CLIENT_SECRET"):
    raise ImproperlyConfigured("TRIAGE_OIDC_CLIENT_ID must be set with the other TRIAGE_OIDC_ settings")
# The button reads "Sign in with <name>".
TRIAGE_OIDC_NAME = env("TRIAGE_OIDC_NAME") or "single sign-on"
OIDC_RP_SCOPES = env("TRIAGE_OIDC_SCOPES") or "openid email profile"
OIDC_RP_SIGN_ALGO = env("TRIAGE_OIDC_SIGN_ALGO") or "RS256"
# The claim that lists a person's groups (a dotted path reaches into objects, e.g. Keycloak's
# realm_access.roles; a single string counts as one group, e.g. Google's hosted domain `hd`),
# and the one their user name is made of (then their email, then the subject).
TRIAGE_OIDC_GROUPS_CLAIM = env("TRIAGE_OIDC_GROUPS_CLAIM") or "groups"
TRIAGE_OIDC_USERNAME_CLAIM = env("TRIAGE_OIDC_USERNAME_CLAIM") or "preferred_username"
# group=team:role entries (triage/accounts/teammap.py). The teams named here follow the groups
# at every sign-in: a membership is added, changed or removed; other teams are left to admins.
try:
    from triage.accounts.teammap import parse_team_map

    TRIAGE_OIDC_TEAM_MAP = parse_team_map(env("TRIAGE_OIDC_TEAM_MAP") or "")
except ValueError as e:
    raise ImproperlyConfigured(f"TRIAGE_OIDC_TEAM_MAP: {e}") from None
# The client authenticates at the token endpoint with its secret in the form (post) or in an
# Authorization header (basic).
_oidc_client_auth = (env("TRIAGE_OIDC_CLIENT_AUTH") or "post").lower()
if _oidc_client_auth not in ("post", "basic"):
    raise ImproperlyConfigured(f"TRIAGE_OIDC_CLIENT_AUTH={_oidc_client_auth!r}: use post or basic")
OIDC_TOKEN_USE_BASIC_AUTH = _oidc_client_auth == "basic"
OIDC_USE_PKCE = True
OIDC_USE_NONCE = True
# Kept in the session for the provider's sign-out (id_token_hint); the access token is not kept.
OIDC_STORE_ID_TOKEN = True
OIDC_TIMEOUT = envint("TRIAGE_OIDC_TIMEOUT", 10, minimum=1)
# A CA bundle for a provider behind a company CA (requests' `verify` takes a path).
OIDC_VERIFY_SSL: bool | str = env("TRIAGE_OIDC_CA_BUNDLE") or True
# Sign out at the provider too (its end_session_endpoint) when signing out here.
TRIAGE_OIDC_PROVIDER_LOGOUT = envbool("TRIAGE_OIDC_PROVIDER_LOGOUT", True)

# --- Sign-in with a password of the company's LDAP directory (django-auth-ldap; docs/sign-in.md)
# Off unless TRIAGE_LDAP_SERVER_URI is set; then the sign-in form tries the directory first and
# this dashboard's own accounts after it. Needs `pip install -r requirements-ldap.txt`.
TRIAGE_LDAP_SERVER_URI = env("TRIAGE_LDAP_SERVER_URI") or ""
TRIAGE_LDAP_ENABLED = bool(TRIAGE_LDAP_SERVER_URI)
# The attribute that names a person (their user name here): uid, or sAMAccountName in AD.
TRIAGE_LDAP_USERNAME_ATTR = env("TRIAGE_LDAP_USERNAME_ATTR") or "uid"
try:
    TRIAGE_LDAP_TEAM_MAP = parse_team_map(env("TRIAGE_LDAP_TEAM_MAP") or "")
except ValueError as e:
    raise ImproperlyConfigured(f"TRIAGE_LDAP_TEAM_MAP: {e}") from None
if TRIAGE_LDAP_ENABLED:
    try:
        from triage.accounts import ldapconfig
    except ImportError as e:
        raise ImproperlyConfigured(f"TRIAGE_LDAP_SERVER_URI needs python-ldap and django-auth-ldap "
                                   f"(pip install -r requirements-ldap.txt): {e}") from None
    # django-auth-ldap's own settings (https://django-auth-ldap.readthedocs.io/en/latest/reference.html)
    AUTH_LDAP_SERVER_URI = TRIAGE_LDAP_SERVER_URI
    AUTH_LDAP_START_TLS = envbool("TRIAGE_LDAP_START_TLS", False)
    # Who searches the directory for the person's entry (empty: an anonymous search).
    AUTH_LDAP_BIND_DN = env("TRIAGE_LDAP_BIND_DN") or ""
    AUTH_LDAP_BIND_PASSWORD = env("TRIAGE_LDAP_BIND_PASSWORD") or ""
    # identity_sign_in keeps the account's name, email and teams; the library changes nothing.
    AUTH_LDAP_ALWAYS_UPDATE_USER = False
    try:
        ldapconfig.check_uri(TRIAGE_LDAP_SERVER_URI, start_tls=AUTH_LDAP_START_TLS)
        AUTH_LDAP_USER_SEARCH = ldapconfig.user_search(
            base=env("TRIAGE_LDAP_USER_SEARCH_BASE") or "",
            search_filter=env("TRIAGE_LDAP_USER_FILTER") or f"({TRIAGE_LDAP_USERNAME_ATTR}=%(user)s)",
        )
        AUTH_LDAP_GROUP_SEARCH, AUTH_LDAP_GROUP_TYPE = ldapconfig.group_search(
            base=env("TRIAGE_LDAP_GROUP_SEARCH_BASE") or "", kind=env("TRIAGE_LDAP_GROUP_TYPE") or "groupOfNames",
        )
    except ValueError as e:
        raise ImproperlyConfigured(str(e)) from None
    AUTH_LDAP_CONNECTION_OPTIONS = ldapconfig.connection_options(
        ca_file=env("TRIAGE_LDAP_CA_FILE"), timeout=envint("TRIAGE_LDAP_TIMEOUT", 5, minimum=1),
    )

# How long a sign-in lasts (Django's two weeks by default). Teams follow the provider's or the
# directory's groups at each sign-in, so this also bounds how long a group taken away there keeps
# its team here (making the account inactive in the admin ends its sessions at once).
SESSION_COOKIE_AGE = envint("TRIAGE_SESSION_HOURS", 14 * 24, minimum=1) * 3600

AUTHENTICATION_BACKENDS = [
    # Answers only the provider's callback (a code and a state); everything else falls through.
    "triage.accounts.oidc.ProviderBackend",
    *(["triage.accounts.ldapauth.DirectoryBackend"] if TRIAGE_LDAP_ENABLED else []),
    "django.contrib.auth.backends.ModelBackend",
]

# Incidents older than this many days are deleted with their raw files by the beat job
# (0: keep forever).
TRIAGE_RETENTION_DAYS = envint("TRIAGE_RETENTION_DAYS", 0, minimum=0)

# Log viewer: lines shown per page, and the longest line shown whole.
TRIAGE_LOG_PAGE_LINES = envint("TRIAGE_LOG_PAGE_LINES", 200, minimum=10)
TRIAGE_LOG_MAX_LINE_CHARS = 4000

# --- Parsing in parts (triage/fanout) ---------------------------------------------------------
# A bundle larger than this is read in parts of about this size, each by its own task; the
# states of the parts are stored and merged by a last step. 0 reads every bundle in one task.
TRIAGE_PARSE_PART_BYTES = envint("TRIAGE_PARSE_PART_MB", 1024, minimum=0) * 1024 * 1024

# --- Fleet (docs/fleet.md) -------------------------------------------------------------------
# A host or GPU implicated as culprit by a fault of the machine's own (Xid, ECC, NVLink, a NIC
# error, repeated segfaults) in at least this many incidents within this many days is marked
# "drain recommended".
TRIAGE_DRAIN_THRESHOLD = envint("TRIAGE_DRAIN_THRESHOLD", 3, minimum=1)
TRIAGE_DRAIN_WINDOW_DAYS = envint("TRIAGE_DRAIN_WINDOW_DAYS", 7, minimum=1)
# One job (family) failing with culprits on at least this many different hosts, none twice,
# within this many days, raises "failures wander across nodes".
TRIAGE_WANDER_MIN_HOSTS = envint("TRIAGE_WANDER_MIN_HOSTS", 3, minimum=2)
TRIAGE_WANDER_WINDOW_DAYS = envint("TRIAGE_WANDER_WINDOW_DAYS", 14, minimum=1)
# Webhooks (docs/security.md): attempts, first retry delay (doubled each time, capped), then
# the delivery is `failed` with its reason. Each attempt: connect and read timeouts (seconds),
# and a total deadline however slowly the receiver trickles its answer.
TRIAGE_WEBHOOK_MAX_RETRIES = envint("TRIAGE_WEBHOOK_MAX_RETRIES", 6, minimum=0)
TRIAGE_WEBHOOK_BACKOFF_MS = envint("TRIAGE_WEBHOOK_BACKOFF_MS", 10_000, minimum=1)
TRIAGE_WEBHOOK_BACKOFF_MAX_MS = envint("TRIAGE_WEBHOOK_BACKOFF_MAX_MS", 600_000, minimum=1)
TRIAGE_WEBHOOK_CONNECT_TIMEOUT = envint("TRIAGE_WEBHOOK_CONNECT_TIMEOUT", 3, minimum=1)
TRIAGE_WEBHOOK_TIMEOUT = envint("TRIAGE_WEBHOOK_TIMEOUT", 5, minimum=1)
TRIAGE_WEBHOOK_DEADLINE = envint("TRIAGE_WEBHOOK_DEADLINE", 15, minimum=1)
# Receivers may only be public addresses. Private, loopback, link-local (cloud metadata),
# shared, multicast and reserved ones are refused unless listed here by the operator (never by
# a team admin): networks such as "10.20.0.0/16" or "127.0.0.1/32".
TRIAGE_WEBHOOK_ALLOW_NETWORKS = envlist("TRIAGE_WEBHOOK_ALLOW_NETWORKS", [])
# The dashboard's own address as people reach it ("https://triage.example.com"): the links in
# notifications. Unset, a notification made by a page links to the address that page was
# opened on.
TRIAGE_PUBLIC_URL = (env("TRIAGE_PUBLIC_URL") or "").rstrip("/")

# --- E-mail (assignments and @mentions; docs/fleet.md) -----------------------------------------
# Off unless EMAIL_HOST (SMTP) or EMAIL_BACKEND is set: Django's own mail backends and names.
EMAIL_HOST = env("EMAIL_HOST") or ""
EMAIL_BACKEND = env("EMAIL_BACKEND") or (
    "django.core.mail.backends.smtp.EmailBackend" if EMAIL_HOST else "django.core.mail.backends.dummy.EmailBackend"
)
TRIAGE_EMAIL_ENABLED = bool(env("EMAIL_BACKEND") or EMAIL_HOST)
EMAIL_PORT = envint("EMAIL_PORT", 25, minimum=1)
EMAIL_HOST_USER = env("EMAIL_HOST_USER") or ""
EMAIL_HOST_PASSWORD = env("EMAIL_HOST_PASSWORD") or ""
EMAIL_USE_TLS = envbool("EMAIL_USE_TLS", False)
EMAIL_USE_SSL = envbool("EMAIL_USE_SSL", False)
EMAIL_TIMEOUT = envint("EMAIL_TIMEOUT", 10, minimum=1)
DEFAULT_FROM_EMAIL = env("DEFAULT_FROM_EMAIL") or "nccl-triage@localhost"
EMAIL_SUBJECT_PREFIX = "[nccl-triage] "

# /metrics: readable with an API token (Authorization: Bearer), or without one from these
# addresses or networks (e.g. "10.0.0.0/8,127.0.0.1"; empty: token only).
TRIAGE_METRICS_ALLOW = envlist("TRIAGE_METRICS_ALLOW", [])

# --- Private state (triage/engine/statedir.py) ---------------------------------------------
# Everything written outside storage that is later loaded (the compiled gate and pattern
# databases, beat's schedule) lives here: created 0700, checked for owner and mode at every
# start, and the start refused when another user could write it. Default: the service user's
# own cache directory ($XDG_CACHE_HOME/nccl-triage, ~/.cache/nccl-triage), never a shared /tmp.


def _private_dir(path: Path, name: str) -> Path:
    from triage.engine.statedir import UnsafeStateDir, ensure_private

    try:
        return ensure_private(path)
    except UnsafeStateDir as e:
        raise ImproperlyConfigured(f"{name}: {e}") from None


def _state_dir() -> Path:
    from triage.engine import statedir

    return Path(env("TRIAGE_STATE_DIR") or statedir.configured_dir())


TRIAGE_STATE_DIR = _private_dir(_state_dir(), "TRIAGE_STATE_DIR")
# The engine has no Django: it finds the directory in its environment (so do worker children).
os.environ["NCCL_TRIAGE_STATE_DIR"] = str(TRIAGE_STATE_DIR)

# --- Celery --------------------------------------------------------------------------------
# Longest a parse may run. The soft limit raises inside the task so it can record a reason;
# the hard limit kills the child process if the soft one is ignored (e.g. stuck in C code).
TRIAGE_PARSE_SOFT_TIME_LIMIT = envint("TRIAGE_PARSE_SOFT_TIME_LIMIT", 25 * 60, minimum=1)
TRIAGE_PARSE_TIME_LIMIT = envint("TRIAGE_PARSE_TIME_LIMIT", 30 * 60, minimum=2)
# An incident in `parsing` longer than this is marked failed by the beat sweeper. It must leave
# room for one redelivery after a lost worker (visibility timeout + a full run).
TRIAGE_VISIBILITY_TIMEOUT = envint("CELERY_VISIBILITY_TIMEOUT", 2 * 60 * 60, minimum=2)
TRIAGE_STUCK_AFTER_SECONDS = envint(
    "TRIAGE_STUCK_AFTER_SECONDS",
    TRIAGE_VISIBILITY_TIMEOUT + 2 * TRIAGE_PARSE_TIME_LIMIT,
    minimum=1,
)
# The broker is a notification, not the record: incidents `queued` longer than this (their
# message refused or lost with Redis) are queued again by the beat sweep, which also runs this
# often; `parsing` ones older than the hard limit (their worker died) too, at most this many times.
TRIAGE_REQUEUE_AFTER_SECONDS = envint("TRIAGE_REQUEUE_AFTER_SECONDS", 60, minimum=1)
TRIAGE_PARSE_MAX_ATTEMPTS = envint("TRIAGE_PARSE_MAX_ATTEMPTS", 3, minimum=1)
# Each diagnosis in a worker runs in a child process with this much address space beyond the
# worker's own (RLIMIT_AS; incidents/memory.py): past it that incident fails with the reason and
# the worker goes on. 0: no limit of its own (the engine runs in the pool process).
TRIAGE_DIAGNOSIS_MEMORY_MB = envint("TRIAGE_DIAGNOSIS_MEMORY_MB", 4096, minimum=0)
if TRIAGE_PARSE_SOFT_TIME_LIMIT >= TRIAGE_PARSE_TIME_LIMIT:
    raise ImproperlyConfigured("TRIAGE_PARSE_SOFT_TIME_LIMIT must be below TRIAGE_PARSE_TIME_LIMIT")
if TRIAGE_VISIBILITY_TIMEOUT <= TRIAGE_PARSE_TIME_LIMIT:
    # Otherwise Redis hands a still-running task to a second worker.
    raise ImproperlyConfigured("CELERY_VISIBILITY_TIMEOUT must exceed TRIAGE_PARSE_TIME_LIMIT")

REDIS_URL = env("REDIS_URL") or ""
if REDIS_URL:
    # https://docs.celeryq.dev/en/stable/userguide/configuration.html#broker-url
    CELERY_BROKER_URL = REDIS_URL
    # Run tasks on workers (the default; spelled out because the embedded mode flips it).
    CELERY_TASK_ALWAYS_EAGER = False
else:
    # Embedded default: no broker; tasks run in-process right after the upload commits.
    # https://docs.celeryq.dev/en/stable/userguide/configuration.html#task-always-eager
    CELERY_BROKER_URL = "memory://"
    CELERY_TASK_ALWAYS_EAGER = True
# Eager tasks raise like normal code would, so a bug is not swallowed in embedded mode.
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_BROKER_TRANSPORT_OPTIONS: dict[str, Any] = {
    # Redis redelivers an unacknowledged task after this many seconds (a lost worker's task);
    # must exceed the longest task and the longest retry countdown.
    # https://docs.celeryq.dev/en/stable/getting-started/backends-and-brokers/redis.html#visibility-timeout
    "visibility_timeout": TRIAGE_VISIBILITY_TIMEOUT,
    # Prefix every Redis key, so several deployments (or test runs) can share one Redis.
    "global_keyprefix": env("CELERY_KEY_PREFIX") or "",
    # How often a worker looks for tasks whose visibility timeout expired (seconds).
    "unacked_restore_interval": envint("CELERY_UNACKED_RESTORE_INTERVAL", 10, minimum=1),
    # ...but only every Nth look scans Redis (tests set 1 to see redelivery quickly).
    "unacked_restore_throttle": envint("CELERY_UNACKED_RESTORE_THROTTLE", 10, minimum=1),
    "socket_connect_timeout": 3,
}
# Retry connecting to Redis at start-up instead of crashing (compose starts things together).
# https://docs.celeryq.dev/en/stable/userguide/configuration.html#broker-connection-retry-on-startup
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Acknowledge after the task finished, so a task whose worker died is delivered again;
# our tasks are idempotent, which is what makes this safe.
# https://docs.celeryq.dev/en/stable/userguide/configuration.html#task-acks-late
CELERY_TASK_ACKS_LATE = True
# A worker child killed mid-task (OOM killer, SIGKILL) also counts as "not done": redeliver.
# https://docs.celeryq.dev/en/stable/userguide/configuration.html#task-reject-on-worker-lost
CELERY_TASK_REJECT_ON_WORKER_LOST = True
# Take one task at a time: parses are long and uneven, so prefetching starves other workers.
# https://docs.celeryq.dev/en/stable/userguide/configuration.html#worker-prefetch-multiplier
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# Results live in our tables (Incident, Diagnosis), never in a result backend.
# https://docs.celeryq.dev/en/stable/userguide/configuration.html#task-ignore-result
CELERY_TASK_IGNORE_RESULT = True
CELERY_RESULT_BACKEND = None
# Tasks take ids only; JSON keeps pickles (code execution) out of the broker.
# https://docs.celeryq.dev/en/stable/userguide/configuration.html#task-serializer
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
# Soft/hard time limits for every task (the parse task uses these, the sweeper is quick).
# https://docs.celeryq.dev/en/stable/userguide/workers.html#time-limits
CELERY_TASK_SOFT_TIME_LIMIT = TRIAGE_PARSE_SOFT_TIME_LIMIT
CELERY_TASK_TIME_LIMIT = TRIAGE_PARSE_TIME_LIMIT
# A parse can use a lot of memory on a big bundle; recycle children instead of letting it grow.
# https://docs.celeryq.dev/en/stable/userguide/configuration.html#worker-max-memory-per-child
CELERY_WORKER_MAX_MEMORY_PER_CHILD = envint("CELERY_WORKER_MAX_MEMORY_PER_CHILD_KB", 2_000_000)
# Report "started" so `celery inspect active` shows what a worker is parsing.
CELERY_TASK_TRACK_STARTED = True
# Parses on one queue, webhook deliveries on their own, so a slow receiver never holds a parse
# worker: deployments run `celery worker -Q <CELERY_QUEUE>` for parsing and a separate
# `celery worker -Q <CELERY_WEBHOOK_QUEUE>` for deliveries (docker-compose.yml, deploy/k8s). A
# plain `celery worker` (development) consumes both. A test run or a second deployment can
# pick its own names.
# https://docs.celeryq.dev/en/stable/userguide/routing.html#manual-routing
CELERY_TASK_DEFAULT_QUEUE = env("CELERY_QUEUE") or "triage"
CELERY_WEBHOOK_QUEUE = env("CELERY_WEBHOOK_QUEUE") or f"{CELERY_TASK_DEFAULT_QUEUE}-webhooks"
CELERY_TASK_QUEUES = (Queue(CELERY_TASK_DEFAULT_QUEUE), Queue(CELERY_WEBHOOK_QUEUE))
CELERY_TASK_ROUTES = {
    "triage.fleet.tasks.webhook_deliver_task": {"queue": CELERY_WEBHOOK_QUEUE},
    # Mail is outbound too: a slow SMTP server holds a delivery worker, never a parse.
    "triage.incidents.tasks.mail_send_task": {"queue": CELERY_WEBHOOK_QUEUE},
}
CELERY_TIMEZONE = "UTC"
# The beat sweeper: nothing stays `parsing` forever.
# https://docs.celeryq.dev/en/stable/userguide/periodic-tasks.html
CELERY_BEAT_SCHEDULE = {
    "incidents-fail-stuck": {
        "task": "triage.incidents.tasks.incident_fail_stuck_task",
        "schedule": 60.0,
    },
    # Retention: hourly, so a restart never delays it by a day; it does nothing when
    # TRIAGE_RETENTION_DAYS is 0.
    "incidents-requeue": {
        "task": "triage.incidents.tasks.incident_requeue_task",
        "schedule": float(TRIAGE_REQUEUE_AFTER_SECONDS),
    },
    "incidents-prune": {
        "task": "triage.incidents.tasks.incident_prune_task",
        "schedule": 3600.0,
    },
    # Deliveries whose task was lost (Redis or PostgreSQL down at the wrong moment) are sent
    # again; nothing stays `pending` forever.
    "webhooks-requeue": {
        "task": "triage.fleet.tasks.webhook_requeue_task",
        "schedule": 60.0,
    },
}

# beat's own state (last run times) is a pickle-backed shelve: whoever can write it runs code
# as beat. So it lives in the private state directory (above), never in a shared /tmp; a file
# named by CELERY_BEAT_SCHEDULE_FILE must be in a directory as private.
# https://docs.celeryq.dev/en/stable/userguide/configuration.html#beat-schedule-filename
_beat_file = env("CELERY_BEAT_SCHEDULE_FILE")
if _beat_file:
    _private_dir(Path(_beat_file).parent, "CELERY_BEAT_SCHEDULE_FILE")
CELERY_BEAT_SCHEDULE_FILENAME = _beat_file or str(TRIAGE_STATE_DIR / "celerybeat-schedule")
# An upload must not hang on a broker that is down: try briefly, then leave the incident
# `queued` for the sweep (triage.incidents.services.incident_notify_worker).
CELERY_TASK_PUBLISH_RETRY_POLICY = {"max_retries": 2, "interval_start": 0, "interval_step": 0.2, "interval_max": 0.5}

# The upload rate limit counts in the cache: Redis when there is one, so every gunicorn worker
# and machine shares the count; otherwise this process's memory (the embedded default).
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": env("CACHE_REDIS_URL") or REDIS_URL,
            "KEY_PREFIX": (env("CELERY_KEY_PREFIX") or "") + "cache",
            # Rate limits fail open when Redis is down (triage.api.ratelimit): fail fast too.
            "OPTIONS": {"socket_connect_timeout": 2, "socket_timeout": 2},
        }
    }

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env("LOG_LEVEL") or "INFO"},
}

# --- Browser hardening ----------------------------------------------------------------------
# Content-Security-Policy (triage.web.middleware): no inline script anywhere. plotly.js (the
# strict, eval-free build in static/vendor) injects <style> elements and draws to data:/blob:
# images, hence those two allowances; nothing else leaves 'self'.
TRIAGE_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data: blob:; connect-src 'self'; object-src 'none'; base-uri 'none'; "
    "frame-ancestors 'none'; form-action 'self'"
)
if TRIAGE_OIDC_ENABLED and TRIAGE_OIDC_PROVIDER_LOGOUT:
    TRIAGE_CSP = oidcconfig.csp_with_provider(TRIAGE_CSP, TRIAGE_OIDC_ISSUER, TRIAGE_OIDC_ENDPOINTS)
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
# Share-link URLs carry their secret: never send them to another site in a Referer.
SECURE_REFERRER_POLICY = "same-origin"
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_SAMESITE = "Lax"

# The embedded default serves plain http on the loopback: secure cookies and HSTS would lock
# its own browser out, so they are for the served installs (DATABASE_URL set) unless asked for.
if not DEBUG:
    SESSION_COOKIE_SECURE = envbool("SECURE_COOKIES", not EMBEDDED)
    CSRF_COOKIE_SECURE = envbool("SECURE_COOKIES", not EMBEDDED)
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    # HSTS: browsers keep to https for a year once they saw it over https (0 turns it off, e.g.
    # for a plain-http intranet install behind nothing).
    SECURE_HSTS_SECONDS = envint("SECURE_HSTS_SECONDS", 0 if EMBEDDED else 365 * 86400, minimum=0)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = envbool("SECURE_HSTS_INCLUDE_SUBDOMAINS", False)
    SECURE_SSL_REDIRECT = envbool("SECURE_SSL_REDIRECT", False)
