import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("incidents", "0003_default_team"),
    ]

    operations = [
        migrations.AlterField(
            model_name="incident",
            name="team",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT, related_name="incidents", to="accounts.team"
            ),
        ),
        migrations.RemoveConstraint(model_name="incident", name="incident_unique_job"),
        migrations.AddConstraint(
            model_name="incident",
            constraint=models.UniqueConstraint(
                condition=models.Q(("job", ""), _negated=True), fields=("team", "job"), name="incident_unique_team_job"
            ),
        ),
    ]
