from __future__ import annotations

from django.apps import AppConfig


class FleetConfig(AppConfig):
    name = "triage.fleet"
    label = "fleet"
    verbose_name = "Fleet: problems, hosts, drain, notifications"
