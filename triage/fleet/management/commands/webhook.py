"""`manage.py webhook add URL [--team T] [--secret S] [--events E ...] [--format generic|slack]`,
`webhook list [--team T]`, `webhook remove ID`."""
from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from triage.accounts.models import Team
from triage.accounts.services import team_default
from triage.fleet.models import Event, Webhook
from triage.fleet.services import webhook_add, webhook_remove


class Command(BaseCommand):
    help = "Add, list or remove the webhooks a team's fleet events are sent to."

    def add_arguments(self, parser: CommandParser) -> None:
        sub = parser.add_subparsers(dest="action", required=True)
        add = sub.add_parser("add", help="add a webhook; prints its id and secret")
        add.add_argument("url")
        add.add_argument("--team", default=None, help="its team (default: the default team)")
        add.add_argument("--secret", default="", help="HMAC-SHA256 key (default: a random one, printed)")
        add.add_argument("--events", nargs="+", default=[], choices=Event.values, metavar="EVENT",
                         help=f"only these events (default: all): {', '.join(Event.values)}")
        add.add_argument("--format", default=Webhook.Format.GENERIC, choices=Webhook.Format.values)
        listing = sub.add_parser("list", help="list webhooks (secrets are not shown)")
        listing.add_argument("--team", default=None)
        remove = sub.add_parser("remove", help="remove a webhook by id")
        remove.add_argument("id", type=int)

    def handle(self, *args: Any, **options: Any) -> None:
        action = options["action"]
        if action == "add":
            if options["team"]:
                team = Team.objects.filter(name=options["team"]).first()
                if team is None:
                    raise CommandError(f"no team named {options['team']!r}")
            else:
                team = team_default()
            try:
                webhook = webhook_add(team=team, url=options["url"], secret=options["secret"],
                                      events=options["events"], format=options["format"])
            except ValueError as e:
                raise CommandError(str(e)) from e
            self.stdout.write(f"webhook {webhook.pk} for team {team.name}: {webhook.url}")
            if not options["secret"]:
                self.stdout.write(f"secret (shown only now): {webhook.secret}")
        elif action == "list":
            rows = Webhook.objects.select_related("team")
            if options["team"]:
                rows = rows.filter(team__name=options["team"])
            for w in rows:
                self.stdout.write(f"{w.pk}  team={w.team.name}  {w.format}  {w.url}  "
                                  f"events={','.join(w.events) or 'all'}"
                                  f"  {'active' if w.active else 'inactive'}")
        else:
            found = Webhook.objects.filter(pk=options["id"]).first()
            if found is None:
                raise CommandError(f"no webhook {options['id']}")
            webhook_remove(webhook=found)
            self.stdout.write(f"removed webhook {options['id']}")
