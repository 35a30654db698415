"""`manage.py apitoken create --name NAME [--team TEAM] [--scope upload|read|read_upload]` prints
a new token on one line (shown only then); `list` and `revoke` manage them."""
from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from triage.accounts.models import ApiToken, Team
from triage.accounts.services import apitoken_create, apitoken_revoke, team_default, team_get_or_create

SCOPES = {"upload": ApiToken.Scope.UPLOAD, "read": ApiToken.Scope.READ,
          "read_upload": ApiToken.Scope.READ_UPLOAD, "read+upload": ApiToken.Scope.READ_UPLOAD}


class Command(BaseCommand):
    help = "Create, list or revoke API tokens for collectors and dashboards."

    def add_arguments(self, parser: CommandParser) -> None:
        sub = parser.add_subparsers(dest="action", required=True)
        create = sub.add_parser("create", help="create a token and print it (shown only once)")
        create.add_argument("--name", required=True, help="what the token is for, e.g. a cluster")
        create.add_argument("--team", default=None, help="its team (default: the default team; created if new)")
        create.add_argument("--scope", default="read_upload", choices=sorted(SCOPES),
                            help="upload: collectors; read: read incidents and share them; default both")
        listing = sub.add_parser("list", help="list tokens (names and prefixes, never the token)")
        listing.add_argument("--team", default=None)
        revoke = sub.add_parser("revoke", help="revoke every token with this name")
        revoke.add_argument("--name", required=True)
        revoke.add_argument("--team", default=None, help="only in this team")

    def handle(self, *args: Any, **options: Any) -> None:
        action = options["action"]
        if action == "create":
            try:
                team = team_get_or_create(name=options["team"]) if options["team"] else team_default()
                row, token = apitoken_create(name=options["name"], team=team, scope=SCOPES[options["scope"]])
            except ValueError as e:
                raise CommandError(str(e)) from e
            # stdout is the token alone, on one line, so scripts can capture it; the rest to stderr.
            self.stdout.write(token)
            scope = {"upload": "upload bundles", "read": "read and share incidents",
                     "read_upload": "upload bundles, read and share incidents"}.get(str(row.scope), str(row.scope))
            self.stderr.write(
                f"Token {options['name']!r} for team {team.name!r}, scope {row.scope} ({scope}). "
                "It is shown only this once (only its hash is stored): copy it now.")
        elif action == "list":
            rows = ApiToken.objects.select_related("team")
            if options["team"]:
                rows = rows.filter(team__name=options["team"])
            for row in rows:
                state = "active" if row.is_active else "revoked"
                used = row.last_used_at.isoformat() if row.last_used_at else "never"
                self.stdout.write(f"{row.prefix}…  {row.name}  team={row.team.name}  scope={row.scope}  {state}  "
                                  f"last used: {used}")
        else:
            only = Team.objects.filter(name=options["team"]).first() if options["team"] else None
            if options["team"] and only is None:
                raise CommandError(f"no team named {options['team']!r}")
            count = apitoken_revoke(name=options["name"], team=only)
            if not count:
                raise CommandError(f"no active token named {options['name']!r}")
            self.stdout.write(f"revoked {count} token(s)")
