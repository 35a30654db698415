"""`manage.py loaddemo`: a demo user and one demo incident per scenario cause. Idempotent."""
from __future__ import annotations

import secrets
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

from triage.accounts.models import Role
from triage.accounts.services import membership_set, team_default
from triage.incidents.demo import demo_fleet_load, demo_incidents_load

DEMO_USER = "demo"
# Documented in the README; only ever set on a local instance (DEBUG on, or the embedded default
# serving the loopback only).
DEMO_DEV_PASSWORD = "demo"


class Command(BaseCommand):
    help = "Create the demo user and the demo incidents (once; running it again changes nothing)."

    def handle(self, *args: Any, **options: Any) -> None:
        user = self._demo_user()
        try:
            created = demo_incidents_load() + demo_fleet_load(user=user)
        except ImportError as e:
            self.stderr.write(f"No demo incidents: the scenario generator is not available ({e}).")
            return
        for incident in created:
            self.stdout.write(f"demo incident {incident.pk}: {incident.title} ({incident.status})")
        if not created:
            self.stdout.write("demo incidents already loaded")

    def _demo_user(self) -> Any:
        users = get_user_model()
        existing = users.objects.filter(username=DEMO_USER).first()
        if existing is not None:
            # Upgraded installs: the demo user predates teams; it belongs to the demo's team.
            membership_set(team=team_default(), user=existing, role=Role.ADMIN)
            return existing
        password = DEMO_DEV_PASSWORD if settings.DEBUG or settings.EMBEDDED else secrets.token_urlsafe(12)
        user = users.objects.create_user(DEMO_USER, password=password, is_staff=True, is_superuser=True)
        # The demo incidents go to the default team; the demo user administers it.
        membership_set(team=team_default(), user=user, role=Role.ADMIN)
        if settings.DEBUG or settings.EMBEDDED:
            self.stdout.write(f"created user {DEMO_USER!r} with the dev password {DEMO_DEV_PASSWORD!r}")
        else:
            self.stdout.write(f"created user {DEMO_USER!r}; its password, shown only now: {password}")
        return user
