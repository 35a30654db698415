"""One row per part of a bundle: which part it is, and once read, the engine's partial state.

A bundle is read in `of` parts (1 for a bundle too small to split). The states stay after the
diagnosis: a job whose nodes upload one by one reads each new bundle once, and every later
diagnosis of the incident only merges the stored states and runs the rules.
"""
from __future__ import annotations

from django.db import models


class BundlePart(models.Model):
    bundle = models.ForeignKey("incidents.Bundle", on_delete=models.CASCADE, related_name="parts")
    index = models.PositiveIntegerField()
    of = models.PositiveIntegerField()
    # Member names this part reads (engine plan_groups); empty when the part is the whole bundle.
    members = models.JSONField(default=list, blank=True)
    # triage.engine.partial.PartialState.to_bytes() (gzip'd JSON); null until the part is read.
    state = models.BinaryField(null=True, blank=True)
    parse_seconds = models.FloatField(default=0.0)
    parsed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["bundle", "index"]
        constraints = [models.UniqueConstraint(fields=["bundle", "index"], name="bundlepart_unique_index")]

    def __str__(self) -> str:
        return f"{self.bundle_id} part {self.index + 1}/{self.of}"
