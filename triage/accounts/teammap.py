"""Which identity-provider groups make someone a member of which team, with which role.

Read from TRIAGE_OIDC_TEAM_MAP by the settings (so a bad map stops the start, loudly), hence no
Django import here. The text is `group=team:role` entries separated by commas, or by newlines
when it has any (group names that hold commas, such as LDAP distinguished names, then fit):

    gpu-sre=cluster-a:member,gpu-leads=cluster-a:admin,/research/ml=ml-research:viewer

The role may be left out (`member`). A group may be mapped to several teams, and several
groups to one team: a person gets, per team, the highest role of their mapped groups.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

# The roles of triage.accounts.models.Role, weakest first (tests check the two agree; the
# settings read this module before the apps, so it cannot import the model).
ROLE_NAMES = ("viewer", "member", "admin")
DEFAULT_ROLE = "member"
TEAM_NAME_MAX = 100  # Team.name


class TeamMapError(ValueError):
    pass


@dataclass(frozen=True)
class Grant:
    group: str
    team: str
    role: str


def parse_team_map(text: str) -> tuple[Grant, ...]:
    separator = "\n" if "\n" in text else ","
    grants: list[Grant] = []
    for raw in text.split(separator):
        entry = raw.strip()
        if not entry or entry.startswith("#"):
            continue
        group, equals, target = entry.rpartition("=")
        group, target = group.strip(), target.strip()
        if not equals or not group or not target:
            raise TeamMapError(f"{entry!r}: write group=team:role (e.g. gpu-sre=cluster-a:member)")
        team, colon, role = target.rpartition(":")
        if not colon:
            team, role = target, DEFAULT_ROLE
        team, role = team.strip(), role.strip().lower()
        if not team:
            raise TeamMapError(f"{entry!r}: the team name is empty")
        if len(team) > TEAM_NAME_MAX:
            raise TeamMapError(f"{entry!r}: a team name has at most {TEAM_NAME_MAX} characters")
        if role not in ROLE_NAMES:
            raise TeamMapError(f"{entry!r}: unknown role {role!r}, use one of {', '.join(ROLE_NAMES)}")
        grants.append(Grant(group=group, team=team, role=role))
    return tuple(grants)


def teams_of(grants: Iterable[Grant], groups: Iterable[str]) -> dict[str, str]:
    """Team name -> the highest role any of `groups` grants in it."""
    held = set(groups)
    roles: dict[str, str] = {}
    for grant in grants:
        if grant.group not in held:
            continue
        current = roles.get(grant.team)
        if current is None or ROLE_NAMES.index(grant.role) > ROLE_NAMES.index(current):
            roles[grant.team] = grant.role
    return roles


def managed_teams(grants: Iterable[Grant]) -> set[str]:
    """The teams whose memberships the identity provider decides (those the map names)."""
    return {grant.team for grant in grants}
