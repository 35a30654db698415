"""`manage.py fleet_rebuild`: group every ready incident again (after an upgrade that changed the
fingerprint or how an incident counts against its machine, a catalog severity set or changed, or
to fill the fleet from incidents diagnosed before it existed)."""
from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from triage.fleet.services import fleet_incident_update
from triage.incidents.models import Incident


class Command(BaseCommand):
    help = ("Group every ready incident into problems; those already grouped at their current diagnosis are left "
            "as they are.")

    def handle(self, *args: Any, **options: Any) -> None:
        ready = Incident.objects.filter(status=Incident.Status.READY).order_by("created_at")
        ids = list(ready.values_list("pk", flat=True))
        grouped = sum(1 for incident_id in ids if fleet_incident_update(incident_id=incident_id) is not None)
        self.stdout.write(f"grouped {grouped} of {len(ids)} ready incident(s)")
