"""Everything that existed before teams goes to the default team, and every existing user
joins it (admins for superusers), so an upgraded install shows what it showed before."""
from __future__ import annotations

from django.conf import settings
from django.db import migrations


def forwards(apps, schema_editor):  # type: ignore[no-untyped-def]
    Team = apps.get_model("accounts", "Team")
    ApiToken = apps.get_model("accounts", "ApiToken")
    Membership = apps.get_model("accounts", "Membership")
    Incident = apps.get_model("incidents", "Incident")
    User = apps.get_model(*settings.AUTH_USER_MODEL.split("."))
    if not (Incident.objects.exists() or ApiToken.objects.exists() or User.objects.exists()):
        return  # a fresh database: the default team is made when first needed
    team, _ = Team.objects.get_or_create(name=settings.TRIAGE_DEFAULT_TEAM)
    Incident.objects.filter(team=None).update(team=team)
    ApiToken.objects.filter(team=None).update(team=team)
    for user in User.objects.all():
        Membership.objects.get_or_create(
            team=team, user=user, defaults={"role": "admin" if user.is_superuser else "member"}
        )


class Migration(migrations.Migration):
    dependencies = [
        ("incidents", "0002_teams"),
        ("accounts", "0002_teams"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
