"""`manage.py team create NAME`, `team add --team T --user U [--role viewer|member|admin]`,
`team remove --team T --user U`, `team list`."""
from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from triage.accounts.models import Membership, Role, Team
from triage.accounts.services import membership_set, team_get_or_create


class Command(BaseCommand):
    help = "Create teams and manage who belongs to them."

    def add_arguments(self, parser: CommandParser) -> None:
        sub = parser.add_subparsers(dest="action", required=True)
        create = sub.add_parser("create", help="create a team (nothing happens if it exists)")
        create.add_argument("name")
        add = sub.add_parser("add", help="add a user to a team, or change their role")
        add.add_argument("--team", required=True)
        add.add_argument("--user", required=True)
        add.add_argument("--role", default=Role.MEMBER, choices=Role.values)
        remove = sub.add_parser("remove", help="remove a user from a team")
        remove.add_argument("--team", required=True)
        remove.add_argument("--user", required=True)
        sub.add_parser("list", help="teams and their members")

    def handle(self, *args: Any, **options: Any) -> None:
        action = options["action"]
        if action == "create":
            created = team_get_or_create(name=options["name"])
            self.stdout.write(f"team {created.name}")
        elif action in ("add", "remove"):
            team = Team.objects.filter(name=options["team"]).first()
            if team is None:
                raise CommandError(f"no team named {options['team']!r} (create it with `team create`)")
            user = get_user_model().objects.filter(username=options["user"]).first()
            if user is None:
                raise CommandError(f"no user named {options['user']!r}")
            if action == "add":
                membership = membership_set(team=team, user=user, role=options["role"])
                self.stdout.write(f"{user} is {membership.role} of {team}")
            else:
                Membership.objects.filter(team=team, user=user).delete()
                self.stdout.write(f"{user} left {team}")
        else:
            for team in Team.objects.prefetch_related("memberships__user"):
                members = ", ".join(f"{m.user} ({m.role})" for m in team.memberships.all()) or "no members"
                self.stdout.write(f"{team.name}: {members}")
