"""`manage.py prune_incidents [--days N] [--dry-run]`: retention by hand (beat runs it hourly)."""
from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from triage.incidents.services import incident_prune


class Command(BaseCommand):
    help = "Delete incidents (rows and raw files) older than N days (default: TRIAGE_RETENTION_DAYS)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--days", type=int, default=None, help="age in days (default: TRIAGE_RETENTION_DAYS)")
        parser.add_argument("--dry-run", action="store_true", help="list what would be deleted, delete nothing")

    def handle(self, *args: Any, **options: Any) -> None:
        days = settings.TRIAGE_RETENTION_DAYS if options["days"] is None else options["days"]
        if days < 0:
            raise CommandError("--days must be 0 (keep everything) or more")
        if days == 0:
            self.stdout.write("retention is off (0 days): nothing deleted")
            return
        ids = incident_prune(older_than_days=days, dry_run=options["dry_run"])
        verb = "would delete" if options["dry_run"] else "deleted"
        self.stdout.write(f"{verb} {len(ids)} incident(s) older than {days} days")
        for incident_id in ids:
            self.stdout.write(f"  {incident_id}")
