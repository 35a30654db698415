import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0002_teams"),
        ("incidents", "0003_default_team"),
    ]

    operations = [
        migrations.AlterField(
            model_name="apitoken",
            name="team",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE, related_name="api_tokens", to="accounts.team"
            ),
        ),
    ]
