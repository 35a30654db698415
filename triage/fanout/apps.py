from __future__ import annotations

from django.apps import AppConfig


class FanoutConfig(AppConfig):
    name = "triage.fanout"
    label = "fanout"
    verbose_name = "parsing in parts"
