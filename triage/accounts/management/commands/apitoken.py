"""`manage.py apitoken create --name NAME` prints a new token; `list` and `revoke` manage them."""
from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from triage.accounts.models import ApiToken
from triage.accounts.services import apitoken_create, apitoken_revoke


class Command(BaseCommand):
    help = "Create, list or revoke API tokens for collectors."

    def add_arguments(self, parser: CommandParser) -> None:
        sub = parser.add_subparsers(dest="action", required=True)
        create = sub.add_parser("create", help="create a token and print it (shown only once)")
        create.add_argument("--name", required=True, help="what the token is for, e.g. a cluster")
        sub.add_parser("list", help="list tokens (names and prefixes, never the token)")
        revoke = sub.add_parser("revoke", help="revoke every token with this name")
        revoke.add_argument("--name", required=True)

    def handle(self, *args: Any, **options: Any) -> None:
        action = options["action"]
        if action == "create":
            try:
                _, token = apitoken_create(name=options["name"])
            except ValueError as e:
                raise CommandError(str(e)) from e
            self.stdout.write(token)
        elif action == "list":
            for row in ApiToken.objects.all():
                state = "active" if row.is_active else "revoked"
                used = row.last_used_at.isoformat() if row.last_used_at else "never"
                self.stdout.write(f"{row.prefix}…  {row.name}  {state}  last used: {used}")
        else:
            count = apitoken_revoke(name=options["name"])
            if not count:
                raise CommandError(f"no active token named {options['name']!r}")
            self.stdout.write(f"revoked {count} token(s)")
