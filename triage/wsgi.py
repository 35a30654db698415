"""WSGI entry point (gunicorn triage.wsgi:application)."""
from __future__ import annotations

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "triage.settings")

application = get_wsgi_application()
