"""Settings for pytest: the machine's PostgreSQL unless DATABASE_URL says otherwise.

pytest-django creates `test_<name>` from this and drops it afterwards.
"""
from __future__ import annotations

import os

os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/triage")
# The suite has always run with DEBUG on (the dev key, Django's 500 details in failures); the
# tests of DEBUG off (the embedded default's 404, secure cookies) run their own processes.
os.environ.setdefault("DEBUG", "1")

from .settings import *  # noqa: E402,F403

# Tests render pages without running collectstatic first.
STORAGES = {**STORAGES, "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}}  # noqa: F405
WHITENOISE_USE_FINDERS = True
# Fast hashing for the users tests create.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
