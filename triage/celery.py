"""The Celery app. Configuration lives in settings.py under the CELERY_ namespace."""
from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "triage.settings")

app = Celery("triage")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
