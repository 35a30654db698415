"""Occurrences keep the catalog's `severity` of their verdict (drain, reset or none) and the Xid
code its entries read: the drain rule counts `drain` / `reset` only, a hardware fault whose
entry sets no severity (Xid 94, contained) being a fault seen, not a drain.

Rows made before are read again from their incident's stored diagnosis (the same reading a new
diagnosis gets, `fingerprint_of`): their machine fields only; their grouping (fingerprint,
problem) is left as it was, for `manage.py fleet_rebuild` to regroup where it changed.
"""
from __future__ import annotations

from typing import Any

from django.db import migrations, models


def read_again(apps: Any, schema_editor: Any) -> None:
    from triage.fleet.fingerprint import fingerprint_of

    Occurrence = apps.get_model("fleet", "Occurrence")
    Diagnosis = apps.get_model("incidents", "Diagnosis")
    ids = list(Occurrence.objects.values_list("pk", flat=True))
    for start in range(0, len(ids), 500):
        batch = ids[start:start + 500]
        for incident_id, data in Diagnosis.objects.filter(incident_id__in=batch).values_list("incident_id", "data"):
            fp = fingerprint_of(data or {})
            if fp is None:
                continue
            Occurrence.objects.filter(pk=incident_id).update(
                machine_fault=fp.machine_fault, machine_reason=fp.machine_reason[:100], severity=fp.severity,
                xid=fp.xid,
            )


class Migration(migrations.Migration):
    dependencies = [("fleet", "0006_delivery_message_id"), ("incidents", "0004_team_required")]

    operations = [
        migrations.AddField(
            model_name="occurrence", name="severity",
            field=models.CharField(blank=True, default="", max_length=10),
        ),
        migrations.AddField(
            model_name="occurrence", name="xid",
            field=models.PositiveIntegerField(blank=True, null=True),
        ),
        migrations.RemoveIndex(model_name="occurrence", name="occurrence_host_cover"),
        migrations.AddIndex(
            model_name="occurrence",
            index=models.Index(fields=["team", "host", "seen_at"], include=("machine_fault", "severity"),
                               name="occurrence_host_severity"),
        ),
        migrations.RunPython(read_again, migrations.RunPython.noop),
    ]
