from __future__ import annotations

from django.apps import AppConfig


class WebConfig(AppConfig):
    name = "triage.web"
    label = "web"
