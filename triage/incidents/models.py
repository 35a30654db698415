"""Incidents, the raw bundles uploaded to them, and their stored diagnosis.

The diagnosis is kept twice on purpose: whole, as the engine's JSON (what the API returns and
the timeline draws), and in rows (findings, rank states) plus a few columns on Incident, so the
list can filter and the page can render without digging through JSON.
"""
from __future__ import annotations

import secrets
from pathlib import Path

from django.conf import settings
from django.db import models
from django.utils.text import get_valid_filename


def new_incident_id() -> str:
    # Short enough to read out in a call, long enough (~60 bits) not to be guessed.
    return secrets.token_hex(6)


class Workflow(models.TextChoices):
    """Where a person has taken an incident (not the diagnosis: that is Incident.status)."""

    OPEN = "open"
    ACKNOWLEDGED = "acknowledged"
    RESOLVED = "resolved"
    IGNORED = "ignored"


class Incident(models.Model):
    Workflow = Workflow

    class Status(models.TextChoices):
        QUEUED = "queued"
        PARSING = "parsing"
        READY = "ready"
        FAILED = "failed"

    id = models.CharField(primary_key=True, max_length=16, default=new_incident_id, editable=False)
    # Who may see it. PROTECT: a team with incidents is not deleted by accident (and its raw
    # files are removed by pruning, which a cascade would skip).
    team = models.ForeignKey("accounts.Team", on_delete=models.PROTECT, related_name="incidents")
    job = models.CharField(max_length=200, blank=True, default="", db_index=True)
    title = models.CharField(max_length=300, blank=True, default="")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    error = models.TextField(blank=True, default="")
    # Bumped with every bundle added; a diagnosis remembers the revision it covered, so an older
    # parse finishing late never overwrites a newer one.
    revision = models.PositiveIntegerField(default=0)
    parse_started_at = models.DateTimeField(null=True, blank=True)
    # Parses of this revision that started; the sweep gives up on a bundle that keeps killing
    # its worker (see incident_requeue_stale).
    parse_attempts = models.PositiveSmallIntegerField(default=0)
    # The verdict, copied out of the diagnosis for the list and its filters.
    cause = models.CharField(max_length=40, blank=True, default="", db_index=True)
    confidence = models.CharField(max_length=10, blank=True, default="")
    summary = models.TextField(blank=True, default="")
    first_failure = models.JSONField(null=True, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    updated_at = models.DateTimeField(auto_now=True)
    # The on-call workflow (triage/incidents/workflow.py): who has it, where it stands, the
    # ticket it is tracked in, and what fixed it (shown to the next incident of its problem).
    workflow = models.CharField(max_length=12, choices=Workflow.choices, default=Workflow.OPEN, db_index=True)
    assignee = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    ticket_url = models.URLField(max_length=500, blank=True, default="")
    resolution = models.TextField(blank=True, default="")
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    resolved_at = models.DateTimeField(null=True, blank=True)
    # True while the title is the one generated from the verdict (a person's edit keeps theirs).
    title_generated = models.BooleanField(default=False)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            # Uploads naming the same job join one incident, even when they race; per team, so
            # another team's job of the same name can neither join nor reveal this one.
            models.UniqueConstraint(
                fields=["team", "job"], condition=~models.Q(job=""), name="incident_unique_team_job"
            ),
        ]

    def __str__(self) -> str:
        return self.display_title

    @property
    def display_title(self) -> str:
        """The title, else (before a verdict names the failure) the job, else the id."""
        return self.title or (f"job {self.job}" if self.job else f"incident {self.id}")

    @property
    def is_settled(self) -> bool:
        return self.status in (self.Status.READY, self.Status.FAILED)


def bundle_upload_to(bundle: Bundle, filename: str) -> str:
    # One folder per content inside the incident. The file keeps its (sanitised) original name:
    # the engine names a single-file bundle's source after it, and archives by their suffix.
    name = get_valid_filename(Path(filename).name)[:120] or "bundle"
    return f"bundles/{bundle.incident_id}/{bundle.sha256}/{name}"


class Bundle(models.Model):
    incident = models.ForeignKey(Incident, on_delete=models.CASCADE, related_name="bundles")
    # Prefix of this bundle's sources in the diagnosis ("<label>/<inner path>"); stable, unique
    # within the incident, so evidence links keep working when the diagnosis is re-run.
    label = models.CharField(max_length=80)
    file = models.FileField(upload_to=bundle_upload_to, max_length=300)
    sha256 = models.CharField(max_length=64)
    size = models.BigIntegerField()
    original_name = models.CharField(max_length=255)
    host = models.CharField(max_length=200, blank=True, default="")
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    uploaded_by_token = models.ForeignKey(
        "accounts.ApiToken", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["incident", "sha256"], name="bundle_unique_content"),
            models.UniqueConstraint(fields=["incident", "label"], name="bundle_unique_label"),
        ]

    def __str__(self) -> str:
        return f"{self.original_name} ({self.sha256[:12]})"


class Diagnosis(models.Model):
    """The engine's diagnosis of all bundles of an incident, replaced whole on each re-run."""

    incident = models.OneToOneField(Incident, on_delete=models.CASCADE, related_name="diagnosis")
    revision = models.PositiveIntegerField()
    data = models.JSONField()  # Diagnosis.to_dict(), exactly as the engine returned it
    parse_seconds = models.FloatField(default=0.0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name_plural = "diagnoses"


class Finding(models.Model):
    incident = models.ForeignKey(Incident, on_delete=models.CASCADE, related_name="findings")
    position = models.PositiveIntegerField()  # 0 is the verdict
    cause = models.CharField(max_length=40, db_index=True)
    rule = models.CharField(max_length=100)
    confidence = models.CharField(max_length=10)
    title = models.TextField()
    detail = models.TextField(blank=True, default="")
    fix = models.TextField(blank=True, default="")
    ranks = models.JSONField(default=list)
    hosts = models.JSONField(default=list)
    evidence = models.JSONField(default=list)  # [{"source", "line", "text"}]

    class Meta:
        ordering = ["incident", "position"]
        constraints = [
            models.UniqueConstraint(fields=["incident", "position"], name="finding_unique_position")
        ]


class RankState(models.Model):
    incident = models.ForeignKey(Incident, on_delete=models.CASCADE, related_name="rank_states")
    rank = models.IntegerField(null=True, blank=True)  # null: a process that could not be named
    host = models.CharField(max_length=200, blank=True, default="", db_index=True)
    pid = models.IntegerField(null=True, blank=True)
    device = models.IntegerField(null=True, blank=True)
    state = models.CharField(max_length=10)
    first_time = models.CharField(max_length=40, blank=True, default="")  # as the logs said it
    last_time = models.CharField(max_length=40, blank=True, default="")
    last_seq = models.BigIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["incident", "rank", "host", "pid"]


class Comment(models.Model):
    """A note on an incident; @name mentions of team members are kept with it."""

    incident = models.ForeignKey(Incident, on_delete=models.CASCADE, related_name="comments")
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    body = models.TextField()
    mentions = models.JSONField(default=list)  # user names of the team's members it mentions
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["incident", "created_at", "id"]


class IncidentEvent(models.Model):
    """One thing a person did to an incident (assigned it, acknowledged it, commented...): the
    incident's history, shown on its page and given by the API. Written by workflow.py, never
    edited; the actor's name is kept too, so the line still reads right after the account is gone."""

    class Verb(models.TextChoices):
        ASSIGNED = "assigned"
        UNASSIGNED = "unassigned"
        ACKNOWLEDGED = "acknowledged"
        RESOLVED = "resolved"
        REOPENED = "reopened"
        IGNORED = "ignored"
        COMMENTED = "commented"
        MENTIONED = "mentioned"
        TICKET = "ticket"
        RESOLUTION = "resolution"
        RENAMED = "renamed"

    incident = models.ForeignKey(Incident, on_delete=models.CASCADE, related_name="history")
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    actor_name = models.CharField(max_length=150, blank=True, default="")
    verb = models.CharField(max_length=20, choices=Verb.choices)
    # What changed: {"assignee": "bob", "previous": "alice"}, {"from": "resolved", "to": "open"},
    # {"mentions": ["bob"], "comment": 12}, {"ticket_url": ...}.
    details = models.JSONField(default=dict)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["incident", "created_at", "id"]
