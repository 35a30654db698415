"""The fleet view of incidents: problems (incidents grouped by fingerprint), what each incident
says about its hosts and GPUs over time, the "failures wander across nodes" flag, and webhooks.

Everything here is derived from stored diagnoses and can be rebuilt from them
(`fleet_incident_update` is idempotent); only problem resolutions and webhooks are typed in by
people. Rows are per team, like incidents: a team sees its own fleet.
"""
from __future__ import annotations

import base64
import secrets

from django.db import models


class FingerprintParts(models.Model):
    """The parts of a fingerprint (triage.fleet.fingerprint), kept by a problem and each incident."""

    fingerprint = models.CharField(max_length=40)
    cause = models.CharField(max_length=40)
    host = models.CharField(max_length=200, blank=True, default="")
    gpu = models.CharField(max_length=120, blank=True, default="")
    gpu_label = models.CharField(max_length=200, blank=True, default="")
    nic = models.CharField(max_length=40, blank=True, default="")
    family = models.CharField(max_length=300, blank=True, default="")

    class Meta:
        abstract = True


class Problem(FingerprintParts):
    """Incidents with the same fingerprint: one fault seen again and again."""

    class Status(models.TextChoices):
        OPEN = "open"
        RESOLVED = "resolved"

    team = models.ForeignKey("accounts.Team", on_delete=models.CASCADE, related_name="problems")
    grouped_because = models.TextField(blank=True, default="")
    # Kept up to date by the grouping service so the fleet page needs no aggregate per problem.
    count = models.PositiveIntegerField(default=0)
    first_seen = models.DateTimeField(null=True, blank=True)
    last_seen = models.DateTimeField(null=True, blank=True, db_index=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN, db_index=True)
    resolved_at = models.DateTimeField(null=True, blank=True)
    # Set when an incident arrived after the problem was resolved: the fix did not hold.
    regression = models.BooleanField(default=False)
    regressed_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-last_seen"]
        constraints = [models.UniqueConstraint(fields=["team", "fingerprint"], name="problem_unique_fingerprint")]

    def __str__(self) -> str:
        where = " ".join(p for p in (self.host, self.gpu_label or self.gpu, self.nic) if p)
        return f"{self.cause} {where}".strip()


class WanderFlag(models.Model):
    """One job (family) failing on a different host each time: the fault is probably in what
    the hosts share (interconnect, topology), not in any one of them."""

    team = models.ForeignKey("accounts.Team", on_delete=models.CASCADE, related_name="wander_flags")
    # The scope's key: a job family ("4411" for jobs 4411_1, 4411_2 ...), or for a cluster
    # "cluster:<hash>" of the cluster and the message family the failures share.
    job_family = models.CharField(max_length=200)
    label = models.CharField(max_length=300, blank=True, default="")  # "job 4411", "cluster a, message family …"
    active = models.BooleanField(default=True, db_index=True)
    evidence = models.JSONField(default=dict)  # {"incidents", "hosts", "shared": [...], "summary"}
    raised_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-updated_at"]
        constraints = [models.UniqueConstraint(fields=["team", "job_family"], name="wander_unique_family")]

    MESSAGE = "failures wander across nodes: review the interconnect / topology"

    def __str__(self) -> str:
        return f"{self.scope}: {self.MESSAGE}"

    @property
    def scope(self) -> str:
        return self.label or f"job {self.job_family}"


class Occurrence(FingerprintParts):
    """What one ready incident says about the fleet: its fingerprint, culprit and when."""

    incident = models.OneToOneField(
        "incidents.Incident", on_delete=models.CASCADE, primary_key=True, related_name="occurrence"
    )
    team = models.ForeignKey("accounts.Team", on_delete=models.CASCADE, related_name="+")
    problem = models.ForeignKey(Problem, on_delete=models.SET_NULL, null=True, blank=True, related_name="occurrences")
    wander = models.ForeignKey(WanderFlag, on_delete=models.SET_NULL, null=True, blank=True, related_name="occurrences")
    cluster_wander = models.ForeignKey(
        WanderFlag, on_delete=models.SET_NULL, null=True, blank=True, related_name="cluster_occurrences"
    )
    revision = models.PositiveIntegerField(default=0)  # the diagnosis revision it was read from
    transport = models.CharField(max_length=40, blank=True, default="")
    switch = models.CharField(max_length=100, blank=True, default="")  # where a snapshot names it
    job_family = models.CharField(max_length=200, blank=True, default="")
    # The collector token's name its bundles came with: tokens are made per cluster.
    cluster = models.CharField(max_length=100, blank=True, default="")
    # A fault of the machine seen (fingerprint.machine_reading): counted per host, GPU and NIC.
    machine_fault = models.BooleanField(default=False)
    machine_reason = models.CharField(max_length=100, blank=True, default="")
    # The most severe catalog `severity` among the entries of the verdict's cause reading its
    # lines ("drain", "reset", "" where none sets one): what the drain rule counts.
    severity = models.CharField(max_length=10, blank=True, default="")
    xid = models.PositiveIntegerField(null=True, blank=True)  # the Xid code those entries read
    seen_at = models.DateTimeField(db_index=True)  # when the incident was reported
    # The same failure uploaded again (a bundle with the same sha256, or the same first-failure
    # line and time on the same host): linked to the first incident that reported it, and not
    # counted again by the drain rule, problems or wander flags.
    failure_key = models.CharField(max_length=40, blank=True, default="", db_index=True)
    duplicate_of = models.ForeignKey(
        "incidents.Incident", on_delete=models.SET_NULL, null=True, blank=True, related_name="duplicates"
    )

    class Meta:
        ordering = ["-seen_at"]
        indexes = [
            # machine_fault and severity included: ranking hosts and the drain rule are then index-only scans.
            models.Index(fields=["team", "host", "seen_at"], include=["machine_fault", "severity"],
                         name="occurrence_host_severity"),
            models.Index(fields=["team", "job_family", "seen_at"], name="occurrence_job_time"),
            models.Index(fields=["team", "cluster", "family", "seen_at"], name="occurrence_cluster_time"),
            models.Index(fields=["team", "seen_at", "cause"], name="occurrence_time_cause"),
        ]


class GpuRecord(models.Model):
    """One GPU as a snapshot of one incident saw it: error counters and Xids at that time."""

    incident = models.ForeignKey("incidents.Incident", on_delete=models.CASCADE, related_name="+")
    team = models.ForeignKey("accounts.Team", on_delete=models.CASCADE, related_name="+")
    host = models.CharField(max_length=200)
    gpu = models.CharField(max_length=120)  # same key as Occurrence.gpu
    index = models.IntegerField(null=True, blank=True)
    pci = models.CharField(max_length=20, blank=True, default="")
    uuid = models.CharField(max_length=80, blank=True, default="")
    name = models.CharField(max_length=100, blank=True, default="")
    ecc_uncorrected = models.BigIntegerField(null=True, blank=True)
    ecc_corrected = models.BigIntegerField(null=True, blank=True)
    remapped_rows = models.JSONField(null=True, blank=True)
    xids = models.JSONField(default=list)  # [{"xid", "text"}] of this GPU in the snapshot
    seen_at = models.DateTimeField()

    class Meta:
        ordering = ["seen_at"]
        indexes = [models.Index(fields=["team", "host", "gpu", "seen_at"], name="gpurecord_gpu_time")]


class HealthRecord(models.Model):
    """A `collectors smoke` result that reached the server in a bundle."""

    incident = models.ForeignKey("incidents.Incident", on_delete=models.CASCADE, related_name="+")
    team = models.ForeignKey("accounts.Team", on_delete=models.CASCADE, related_name="+")
    host = models.CharField(max_length=200)
    ok = models.BooleanField()
    backend = models.CharField(max_length=20, blank=True, default="")
    world_size = models.IntegerField(null=True, blank=True)
    busbw_gbps = models.FloatField(null=True, blank=True)
    first_error = models.TextField(blank=True, default="")
    seen_at = models.DateTimeField()

    class Meta:
        ordering = ["seen_at"]
        indexes = [models.Index(fields=["team", "host", "seen_at"], name="health_host_time")]


class HostState(models.Model):
    """The last drain decision per host, remembered so that a change is announced once."""

    team = models.ForeignKey("accounts.Team", on_delete=models.CASCADE, related_name="+")
    host = models.CharField(max_length=200)
    drain = models.BooleanField(default=False)
    reason = models.TextField(blank=True, default="")
    changed_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["team", "host"], name="hoststate_unique_host")]


class Event(models.TextChoices):
    INCIDENT_READY = "incident.ready"
    PROBLEM_NEW = "problem.new"
    PROBLEM_REGRESSION = "problem.regression"
    DRAIN_RECOMMENDED = "host.drain_recommended"
    WANDER_FLAG = "fleet.wander"
    # What people do with an incident (triage/incidents/workflow.py).
    INCIDENT_ASSIGNED = "incident.assigned"
    INCIDENT_MENTIONED = "incident.mentioned"
    INCIDENT_ACKNOWLEDGED = "incident.acknowledged"
    INCIDENT_RESOLVED = "incident.resolved"
    INCIDENT_REOPENED = "incident.reopened"


def new_webhook_secret() -> str:
    """A Standard Webhooks secret: "whsec_" and the base64 of 24 random bytes (the signing key)."""
    return "whsec_" + base64.b64encode(secrets.token_bytes(24)).decode()


def new_message_id() -> str:
    """The `webhook-id` of a delivery: the same on every retry, so a receiver can drop a repeat."""
    return "msg_" + secrets.token_hex(12)


class Webhook(models.Model):
    class Format(models.TextChoices):
        GENERIC = "generic"  # our JSON: {"event", "team", "text", "data"}
        SLACK = "slack"  # Slack-compatible incoming webhook: {"text"}

    team = models.ForeignKey("accounts.Team", on_delete=models.CASCADE, related_name="webhooks")
    url = models.URLField(max_length=500)
    secret = models.CharField(max_length=200, default=new_webhook_secret)
    format = models.CharField(max_length=10, choices=Format.choices, default=Format.GENERIC)
    events = models.JSONField(default=list)  # [] means every event
    active = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["team", "created_at"]

    def __str__(self) -> str:
        return f"{self.url} ({self.team})"

    def wants(self, event: str) -> bool:
        return self.active and (not self.events or event in self.events)


class Delivery(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending"
        DELIVERED = "delivered"
        FAILED = "failed"

    webhook = models.ForeignKey(Webhook, on_delete=models.CASCADE, related_name="deliveries")
    event = models.CharField(max_length=40)
    payload = models.JSONField()
    message_id = models.CharField(max_length=40, default=new_message_id, unique=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveIntegerField(default=0)
    response_code = models.IntegerField(null=True, blank=True)
    error = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    delivered_at = models.DateTimeField(null=True, blank=True)
    # When the next attempt is due (a retry's backoff, or the end of a running attempt's
    # budget): a pending delivery overdue by a minute lost its message and is sent again.
    next_attempt_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name_plural = "deliveries"
