"""Deliveries get a `webhook-id` (Standard Webhooks): unique, kept across retries. Rows made
before get one each, then the column becomes unique."""
from __future__ import annotations

from typing import Any

from django.db import migrations, models

import triage.fleet.models


def fill(apps: Any, schema_editor: Any) -> None:
    Delivery = apps.get_model("fleet", "Delivery")
    for delivery in Delivery.objects.filter(message_id="").only("pk").iterator():
        Delivery.objects.filter(pk=delivery.pk).update(message_id=triage.fleet.models.new_message_id())


class Migration(migrations.Migration):
    dependencies = [("fleet", "0005_occurrence_duplicate_uploads")]

    operations = [
        migrations.AddField(
            model_name="delivery", name="message_id", field=models.CharField(default="", max_length=40),
            preserve_default=False,
        ),
        migrations.RunPython(fill, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="delivery", name="message_id",
            field=models.CharField(default=triage.fleet.models.new_message_id, max_length=40, unique=True),
        ),
    ]
