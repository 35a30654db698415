from __future__ import annotations

from django.apps import AppConfig


class IncidentsConfig(AppConfig):
    name = "triage.incidents"
    label = "incidents"
