from __future__ import annotations

from typing import Any

from django.apps import AppConfig
from django.db.models.signals import post_delete


class FleetConfig(AppConfig):
    name = "triage.fleet"
    label = "fleet"
    verbose_name = "Fleet: problems, hosts, drain, notifications"

    def ready(self) -> None:
        from .models import Occurrence

        # Incidents leave through retention pruning (a cascade, not our service): their
        # problems' counts must follow, and a problem left with no incident goes away.
        post_delete.connect(_occurrence_deleted, sender=Occurrence, dispatch_uid="fleet-occurrence-deleted")


def _occurrence_deleted(sender: Any, instance: Any, **kwargs: Any) -> None:
    from django.db import transaction

    from .services import problem_refresh

    if instance.problem_id is not None:
        transaction.on_commit(lambda: problem_refresh(problem_id=instance.problem_id))
