from __future__ import annotations

from django.apps import AppConfig


class IncidentsConfig(AppConfig):
    name = "triage.incidents"
    label = "incidents"

    def ready(self) -> None:
        # Load the Celery app whenever Django starts, so `delay_on_commit` uses our configuration.
        from triage import celery  # noqa: F401
