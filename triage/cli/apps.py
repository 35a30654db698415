from __future__ import annotations

from django.apps import AppConfig


class CliConfig(AppConfig):
    name = "triage.cli"
    label = "cli"
