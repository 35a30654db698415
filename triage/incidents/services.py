"""Writes: taking in bundles, running the engine over them, storing what it found.

Views, the API, tasks and management commands all come through here. Parsing itself is the
engine's (`triage.engine.diagnose`); this module only feeds it files and stores its answer.
"""
from __future__ import annotations

import hashlib
import logging
import re
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any, TypeVar

from django.conf import settings
from django.core.files import File
from django.core.files.storage import default_storage
from django.db import IntegrityError, InterfaceError, OperationalError, transaction
from django.db.models import F, Sum
from django.utils import timezone

from triage.fleet.services import fleet_on_diagnosis

from .memory import DiagnosisOutOfMemory, run_limited
from .models import Bundle, Diagnosis, Finding, Incident, IncidentEvent, RankState
from .notify import history_record
from .storage import StorageUnavailable, engine_input, is_transient
from .workflow import title_refresh

log = logging.getLogger(__name__)
T = TypeVar("T")

ARCHIVE_SUFFIXES = (".tar.gz", ".tgz", ".tar", ".zip", ".gz", ".tar.bz2", ".tar.xz")


@dataclass(frozen=True)
class IncomingBundle:
    """One file to add to an incident: already on disk, its sha256 already known."""

    file: File[Any]
    name: str
    size: int
    sha256: str


def incoming_from_upload(upload: Any) -> IncomingBundle:
    """From a request file (HashedUploadedFile: streamed to disk, hashed on the way)."""
    return IncomingBundle(file=upload, name=upload.name or "bundle", size=upload.size, sha256=upload.sha256)


@contextmanager
def incoming_from_path(path: Path) -> Iterator[IncomingBundle]:
    """From a local file (demo data, benchmarks): hashed in chunks, never read whole."""
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1024 * 1024), b""):
            digest.update(chunk)
        f.seek(0)
        yield IncomingBundle(file=File(f, name=path.name), name=path.name, size=path.stat().st_size,
                             sha256=digest.hexdigest())


def _label_base(*, host: str, name: str) -> str:
    base = host or name
    for suffix in ARCHIVE_SUFFIXES:
        if base.lower().endswith(suffix):
            base = base[: -len(suffix)]
            break
    # Labels prefix source names ("<label>/<path>"), so no slashes, nothing odd, kept short.
    base = re.sub(r"[^A-Za-z0-9._-]+", "-", base).strip(".-")[:60]
    return base or "bundle"


def _unique_label(*, incident: Incident, base: str) -> str:
    taken = set(incident.bundles.values_list("label", flat=True))
    label, n = base, 1
    while label in taken:
        n += 1
        label = f"{base}-{n}"
    return label


class IncidentTooLarge(Exception):
    """Adding these bundles would take the incident over TRIAGE_MAX_INCIDENT_BYTES."""

    def __init__(self, limit: int) -> None:
        super().__init__(
            f"the incident would hold more than the {limit // (1024 * 1024)} MiB limit per incident; "
            "nothing was stored"
        )
        self.limit = limit


def _incident_for_job(*, team: Any, job: str, title: str, user: Any) -> Incident:
    # No title typed: the verdict gives one (workflow.title_refresh), never the file's name.
    if not job:
        return Incident.objects.create(team=team, title=title, title_generated=not title, created_by=user)
    try:
        with transaction.atomic():
            incident, _ = Incident.objects.get_or_create(
                team=team, job=job, defaults={"title": title, "title_generated": not title, "created_by": user}
            )
    except IntegrityError:
        # Another upload for this job created it between our read and our insert.
        incident = Incident.objects.get(team=team, job=job)
    return incident


def _check_incident_size(*, incident: Incident | None, adding: int) -> None:
    limit = settings.TRIAGE_MAX_INCIDENT_BYTES
    held = 0
    if incident is not None:
        held = Bundle.objects.filter(incident=incident).aggregate(total=Sum("size"))["total"] or 0
    if held + adding > limit:
        raise IncidentTooLarge(limit)


def incident_ingest(
    *,
    bundles: Sequence[IncomingBundle],
    job: str = "",
    host: str = "",
    title: str = "",
    user: Any = None,
    token: Any = None,
    team: Any = None,
) -> tuple[Incident, list[Bundle]]:
    """Store bundles (untouched) in the incident of `job` in `team` (a new one when no job),
    and queue a diagnosis of all its bundles. A bundle already in the incident is not stored
    twice. The team is the token's when a token uploads, else the default team.
    Returns the incident and the bundles newly added. Nothing is stored when it raises:
    IncidentTooLarge past TRIAGE_MAX_INCIDENT_BYTES, InvalidUpload for a field over 200
    characters or an empty file, StorageUnavailable when the file store or the database fails.
    Durable once it returns: the broker being down only delays the diagnosis (the sweep)."""
    from triage.accounts.services import team_default

    if not bundles:
        raise ValueError("no file to store")
    job, host = job.strip(), host.strip()
    _check_fields(job=job, host=host, bundles=bundles)
    if team is None:
        team = token.team if token is not None else team_default()
    # Refuse before creating anything when these files alone are over the limit.
    _check_incident_size(incident=None, adding=sum(b.size for b in bundles))
    incident = _incident_for_job(team=team, job=job, title=title[:300], user=user)
    try:
        return _ingest_into(incident=incident, bundles=bundles, host=host, user=user, token=token)
    except BaseException:
        # A job-less upload made this incident for itself alone; a job's incident is shared
        # with the job's other nodes (maybe uploading right now) and stays.
        if not job:
            _drop_if_empty(incident_id=incident.pk)
        raise


def _ingest_into(
    *, incident: Incident, bundles: Sequence[IncomingBundle], host: str, user: Any, token: Any
) -> tuple[Incident, list[Bundle]]:
    known = set(incident.bundles.values_list("sha256", flat=True))
    stored: list[tuple[IncomingBundle, str]] = []
    # Files go to storage before the transaction: a slow disk or object store must not hold
    # database locks, and a failed transaction below deletes what it stored.
    for incoming in bundles:
        if incoming.sha256 in known:
            continue
        known.add(incoming.sha256)
        probe = Bundle(incident=incident, sha256=incoming.sha256)
        try:
            name = default_storage.save(probe.file.field.generate_filename(probe, incoming.name), incoming.file)
        except Exception as e:
            _delete_stored(name for _, name in stored)
            # A full or broken local disk is "not now" too; a refused bucket is configuration.
            if not (is_transient(e) or isinstance(e, OSError)):
                raise
            raise StorageUnavailable(f"the bundle store is unreachable right now ({type(e).__name__}); "
                                     "nothing was stored, send the bundle again") from e
        stored.append((incoming, name))

    added: list[Bundle] = []
    try:
        with transaction.atomic():
            incident = Incident.objects.select_for_update().get(pk=incident.pk)
            # Under the incident's lock, so two uploads racing cannot both fit in the last room.
            _check_incident_size(incident=incident, adding=sum(incoming.size for incoming, _ in stored))
            for incoming, name in stored:
                bundle = Bundle(
                    incident=incident,
                    label=_unique_label(incident=incident, base=_label_base(host=host, name=incoming.name)),
                    sha256=incoming.sha256,
                    size=incoming.size,
                    original_name=incoming.name[:255],
                    host=host,
                    uploaded_by=user,
                    uploaded_by_token=token,
                )
                bundle.file.name = name
                try:
                    with transaction.atomic():
                        bundle.save()
                except IntegrityError:
                    # The same content arrived in a concurrent upload and won: keep theirs.
                    default_storage.delete(name)
                    continue
                added.append(bundle)
            if added:
                incident.revision += 1
                incident.status = Incident.Status.QUEUED
                incident.error = ""
                incident.parse_attempts = 0
                incident.save(update_fields=["revision", "status", "error", "parse_attempts", "updated_at"])
    except (OperationalError, InterfaceError) as e:
        _delete_stored(name for _, name in stored)
        raise StorageUnavailable(f"the database is unreachable right now ({type(e).__name__}); "
                                 "nothing was stored, send the bundle again") from e
    except BaseException:
        _delete_stored(name for _, name in stored)
        raise
    # Committed: rows and files are the record now. The broker is only told; when it is down
    # the incident stays queued and the sweep (incident_requeue_stale) queues it again.
    # Files already there, incident still queued (its message lost): telling again is free.
    if added or incident.status == Incident.Status.QUEUED:
        incident_notify_worker(incident_id=incident.pk)
    return incident, added


def _check_fields(*, job: str, host: str, bundles: Sequence[IncomingBundle]) -> None:
    # Refused, never cut: two long job names cut to one prefix would merge two jobs' incidents.
    for field_name, value in (("job", job), ("host", host)):
        if len(value) > FIELD_MAX_CHARS:
            raise InvalidUpload(f"{field_name} is longer than {FIELD_MAX_CHARS} characters")
    for incoming in bundles:
        if incoming.size == 0:
            raise InvalidUpload(f"{incoming.name}: the file is empty")


FIELD_MAX_CHARS = 200


class InvalidUpload(ValueError):
    """A field or file the upload cannot be stored with (answered 400, nothing stored)."""


def _delete_stored(names: Iterator[str] | Sequence[str]) -> None:
    for name in names:
        try:
            default_storage.delete(name)
        except Exception:  # the store is what failed: an orphan file is harmless, a 500 is not
            log.warning("could not delete %s after a failed upload", name)


def _drop_if_empty(*, incident_id: str) -> None:
    """Remove an incident this upload created and could not fill (nothing half-written)."""
    try:
        with transaction.atomic():
            Incident.objects.filter(pk=incident_id, bundles__isnull=True).delete()
    except (OperationalError, InterfaceError):
        # The database is down: the empty incident stays; the sweep fails it with a reason.
        log.warning("could not remove the empty incident %s after a failed upload", incident_id)


def incident_notify_worker(*, incident_id: str, force: bool = False) -> None:
    """Tell the workers to diagnose this incident (after commit, so a worker sees the rows).

    A notification, not the record: the incident is `queued` in the database already, so a
    broker that is down or refuses the message loses nothing; the sweep queues it again."""
    from .tasks import incident_parse_task  # tasks import this module

    def send() -> None:
        try:
            incident_parse_task.delay(incident_id, force=force)
        except Exception as e:
            if getattr(settings, "CELERY_TASK_ALWAYS_EAGER", False) and not _is_broker_error(e):
                raise  # embedded mode runs the parse here: its bugs must surface
            log.warning("could not queue the diagnosis of %s (%s); the sweep will queue it again", incident_id, e)

    transaction.on_commit(send)


def _is_broker_error(exc: BaseException) -> bool:
    from kombu.exceptions import OperationalError as BrokerError

    return isinstance(exc, (BrokerError, ConnectionError, TimeoutError, OSError))


def incident_enqueue_parse(*, incident_id: str, force: bool = False) -> None:
    """Queue a diagnosis once the current transaction commits (see incident_notify_worker)."""
    incident_notify_worker(incident_id=incident_id, force=force)


def incident_reparse(*, incident: Incident) -> None:
    """Run the diagnosis again over the stored bundles (e.g. after an engine upgrade)."""
    with transaction.atomic():
        Incident.objects.filter(pk=incident.pk).update(
            status=Incident.Status.QUEUED, error="", parse_attempts=0, updated_at=timezone.now()
        )
    incident_notify_worker(incident_id=incident.pk, force=True)


def incident_requeue(*, incident_id: str) -> None:
    """Put a diagnosis that could not go on back to `queued` (the sweep sends it again)."""
    Incident.objects.filter(pk=incident_id, status=Incident.Status.PARSING).update(
        status=Incident.Status.QUEUED, parse_started_at=None, updated_at=timezone.now()
    )


def incident_requeue_stale(*, queued_for: timedelta, parse_limit: timedelta, max_attempts: int) -> tuple[int, int]:
    """The sweep that makes the broker disposable: rebuild the queue from the database.

    - `queued` longer than `queued_for` (its message was refused, or lost with a Redis that
      restarted without persistence): tell the workers again.
    - `parsing` longer than `parse_limit` (the hard time limit: no live parse is that old, so
      its worker died): queue it again rather than wait for the broker's visibility timeout;
      after `max_attempts` such deaths it is failed with a reason (a bundle that kills workers).
    Idempotent: a second message for an incident is a cheap no-op once it is diagnosed; the
    timestamps bumped here keep a backlog from being queued again every minute.
    Returns (queued again, failed)."""
    now = timezone.now()
    dead_parses = _parsing_without_progress(since=now - parse_limit)
    failed = dead_parses.filter(parse_attempts__gte=max_attempts).update(
        status=Incident.Status.FAILED,
        error=f"the diagnosis was cut off {max_attempts} times (its worker died each time: out of memory?); "
        "the raw bundles are kept: run the diagnosis again from the incident page",
        parse_started_at=None,
        updated_at=now,
    )
    ids: list[str] = []
    with transaction.atomic():
        dead = _parsing_without_progress(since=now - parse_limit).select_for_update(skip_locked=True)
        # revision 0: a job's incident whose first upload failed; nothing to diagnose yet.
        stale = Incident.objects.select_for_update(skip_locked=True).filter(
            status=Incident.Status.QUEUED, updated_at__lt=now - queued_for, revision__gt=0
        )
        ids = list(dead.values_list("pk", flat=True)) + list(stale.values_list("pk", flat=True))
        Incident.objects.filter(pk__in=ids).update(status=Incident.Status.QUEUED, parse_started_at=None, updated_at=now)
    for incident_id in ids:
        incident_notify_worker(incident_id=incident_id)
    return len(ids), failed


def bundle_inputs(bundles: Sequence[Bundle]) -> list[tuple[str, Any]]:
    """(label, what the engine reads) per bundle: a local path, or a stream out of the bucket."""
    return [(bundle.label, engine_input(bundle.file.name, bundle.size)) for bundle in bundles]


def incident_diagnose(*, incident_id: str, force: bool = False) -> Incident | None:
    """Diagnose all bundles of the incident and store the result, replacing any older one.

    Idempotent: run it twice, or have a worker die half-way and run it again, and the tables
    end up the same. Returns None when the incident no longer exists.
    """
    from triage.engine import BundleError, diagnose

    incident = Incident.objects.filter(pk=incident_id).first()
    if incident is None:
        return None
    if not force and incident.status == Incident.Status.READY and Diagnosis.objects.filter(
        incident=incident, revision__gte=incident.revision
    ).exists():
        return incident  # a duplicate delivery: this revision is already diagnosed

    Incident.objects.filter(pk=incident_id).update(
        status=Incident.Status.PARSING, parse_started_at=timezone.now(), updated_at=timezone.now(),
        parse_attempts=F("parse_attempts") + 1,
    )
    # Revision first, bundles second: bundles and revision are committed together, so the
    # bundles read here are at least those of this revision.
    revision = Incident.objects.values_list("revision", flat=True).get(pk=incident_id)
    bundles = list(Bundle.objects.filter(incident_id=incident_id))
    if not bundles:
        return incident_mark_failed(incident_id=incident_id, reason="the incident has no bundle to read")
    if settings.TRIAGE_PARSE_PART_BYTES:
        # Bundles read once each, in parts over the workers; states merged (triage/fanout).
        from triage.fanout.services import incident_read_in_parts

        return incident_read_in_parts(incident_id=incident_id, revision=revision, bundles=bundles, force=force)

    started = time.monotonic()
    inputs, limits = bundle_inputs(bundles), archive_limits()
    try:
        data = diagnosis_limited(lambda: diagnose(inputs, limits=limits).to_dict())
    except (BundleError, DiagnosisOutOfMemory) as e:
        return _store_failure(incident_id=incident_id, revision=revision, reason=failure_reason(e))
    return _store_diagnosis(
        incident_id=incident_id, revision=revision, data=data, seconds=time.monotonic() - started
    )


def failure_reason(error: Exception) -> str:
    """What an incident whose diagnosis stopped says."""
    if isinstance(error, DiagnosisOutOfMemory):
        return f"{error}; the raw bundles are kept"
    return f"the bundle could not be read: {error}"


def diagnosis_limited(run: Callable[[], T]) -> T:
    """run() under the diagnosis's own memory limit (incidents.memory) in a worker; in the
    web process (eager mode, `make run`) or with TRIAGE_DIAGNOSIS_MEMORY_MB=0, in place: a
    server's threads are not forked."""
    limit = settings.TRIAGE_DIAGNOSIS_MEMORY_MB
    if not limit or settings.CELERY_TASK_ALWAYS_EAGER:
        return run()
    from triage.engine.scan import prefilter
    from triage.engine.signatures.matcher import matcher

    prefilter()  # the catalog's gate and matcher, compiled once in the worker, shared with each child
    matcher()
    result: T = run_limited(run, limit_mb=limit)
    return result


def archive_limits() -> Any:
    """The engine's archive limits, from settings (member count, bytes, compression ratio)."""
    from triage.engine.bundle import Limits

    return Limits(
        max_members=settings.TRIAGE_ARCHIVE_MAX_MEMBERS,
        max_total_bytes=settings.TRIAGE_ARCHIVE_MAX_TOTAL_BYTES,
        max_member_bytes=min(Limits.max_member_bytes, settings.TRIAGE_ARCHIVE_MAX_TOTAL_BYTES),
        max_ratio=float(settings.TRIAGE_ARCHIVE_MAX_RATIO),
        ratio_grace_bytes=settings.TRIAGE_ARCHIVE_RATIO_GRACE_BYTES,
    )


def _store_diagnosis(*, incident_id: str, revision: int, data: dict[str, Any], seconds: float) -> Incident | None:
    with transaction.atomic():
        incident = Incident.objects.select_for_update().filter(pk=incident_id).first()
        if incident is None:
            return None
        current = Diagnosis.objects.filter(incident=incident).first()
        if current is not None and current.revision > revision:
            return incident  # a parse of newer bundles finished first; keep it
        Diagnosis.objects.filter(incident=incident).delete()
        Finding.objects.filter(incident=incident).delete()
        RankState.objects.filter(incident=incident).delete()
        Diagnosis.objects.create(incident=incident, revision=revision, data=data, parse_seconds=seconds)
        Finding.objects.bulk_create(_findings(incident, data))
        RankState.objects.bulk_create(_rank_states(incident, data))

        verdict = (data.get("findings") or [None])[0] or {}
        incident.cause = verdict.get("cause") or ""
        incident.confidence = verdict.get("confidence") or ""
        incident.summary = data.get("summary") or ""
        incident.first_failure = data.get("first_failure")
        title_refresh(incident=incident, data=data)
        incident.error = ""
        # A bundle that arrived during this parse has its own task queued: stay queued for it.
        settled = revision >= incident.revision
        incident.status = Incident.Status.READY if settled else Incident.Status.QUEUED
        incident.parse_started_at = None
        incident.save()
        fleet_on_diagnosis(incident_id=incident.pk)  # grouping, drain, notifications: after commit
    return incident


def _store_failure(*, incident_id: str, revision: int, reason: str) -> Incident | None:
    with transaction.atomic():
        incident = Incident.objects.select_for_update().filter(pk=incident_id).first()
        if incident is None or revision < incident.revision:
            return incident  # newer bundles are queued; their parse decides
        incident.status = Incident.Status.FAILED
        incident.error = reason
        incident.parse_started_at = None
        incident.save(update_fields=["status", "error", "parse_started_at", "updated_at"])
    return incident


def incident_mark_failed(*, incident_id: str, reason: str) -> Incident | None:
    """Record that the diagnosis could not be made; the raw bundles stay downloadable."""
    Incident.objects.filter(pk=incident_id).update(
        status=Incident.Status.FAILED, error=reason, parse_started_at=None, updated_at=timezone.now()
    )
    return Incident.objects.filter(pk=incident_id).first()


def incident_fail_stuck(*, older_than: timedelta) -> int:
    """Mark incidents `parsing` for longer than `older_than` as failed; return how many."""
    cutoff = timezone.now() - older_than
    minutes = int(older_than.total_seconds() // 60) or 1
    return Incident.objects.filter(status=Incident.Status.PARSING, parse_started_at__lt=cutoff).update(
        status=Incident.Status.FAILED,
        error=f"parsing did not finish within {minutes} min (its worker was probably lost); "
        "the raw bundles are kept: run the diagnosis again from the incident page",
        parse_started_at=None,
        updated_at=timezone.now(),
    )


def _parsing_without_progress(*, since: Any) -> Any:
    """Incidents `parsing` since before `since` with no sign of life after it. A diagnosis read
    in parts (triage.fanout) can rightly take longer than one task's limit: a part read since
    then is progress."""
    from django.apps import apps
    from django.db.models import Exists, OuterRef

    rows = Incident.objects.filter(status=Incident.Status.PARSING, parse_started_at__lt=since)
    if apps.is_installed("triage.fanout"):
        from triage.fanout.models import BundlePart

        recent = BundlePart.objects.filter(bundle__incident_id=OuterRef("pk"), parsed_at__gte=since)
        rows = rows.exclude(Exists(recent))
    return rows


def _findings(incident: Incident, data: dict[str, Any]) -> list[Finding]:
    return [
        Finding(
            incident=incident,
            position=i,
            cause=f.get("cause") or "other",
            rule=f.get("rule") or "",
            confidence=f.get("confidence") or "",
            title=f.get("title") or "",
            detail=f.get("detail") or "",
            fix=f.get("fix") or "",
            ranks=f.get("ranks") or [],
            hosts=f.get("hosts") or [],
            evidence=f.get("evidence") or [],
        )
        for i, f in enumerate(data.get("findings") or [])
    ]


def _rank_states(incident: Incident, data: dict[str, Any]) -> list[RankState]:
    return [
        RankState(
            incident=incident,
            rank=r.get("rank"),
            host=r.get("host") or "",
            pid=r.get("pid"),
            device=r.get("device"),
            state=r.get("state") or "unknown",
            first_time=r.get("first_time") or "",
            last_time=r.get("last_time") or "",
            last_seq=r.get("last_seq"),
        )
        for r in data.get("ranks") or []
    ]


def incident_prune(*, older_than_days: int, dry_run: bool = False) -> list[str]:
    """Delete incidents created more than `older_than_days` days ago, with their raw files.
    Returns the ids deleted (or that would be, with dry_run). 0 days deletes nothing: retention
    off is the default, and a typo must not empty the database."""
    if older_than_days <= 0:
        return []
    cutoff = timezone.now() - timedelta(days=older_than_days)
    ids = list(Incident.objects.filter(created_at__lt=cutoff).values_list("pk", flat=True))
    if dry_run:
        return ids
    for incident_id in ids:
        names = list(Bundle.objects.filter(incident_id=incident_id).values_list("file", flat=True))
        # Rows first: once they are gone nobody can open a file that is about to disappear, and
        # a crash between the two leaves orphan files (harmless), never rows without files.
        with transaction.atomic():
            Incident.objects.filter(pk=incident_id).delete()
        for name in names:
            try:
                default_storage.delete(name)
            except OSError:
                log.warning("could not delete %s of pruned incident %s", name, incident_id)
        _remove_empty_folders(f"bundles/{incident_id}")
    return ids


def _remove_empty_folders(name: str) -> None:
    """Drop `MEDIA_ROOT/<name>` and the folders in it once they hold no file (local storage)."""
    try:
        root = Path(default_storage.path(name))
    except NotImplementedError:
        return  # object storage has no folders
    if not root.is_dir():
        return
    for folder in sorted((p for p in root.rglob("*") if p.is_dir()), key=lambda p: len(p.parts), reverse=True):
        with suppress(OSError):
            folder.rmdir()
    with suppress(OSError):
        root.rmdir()


class IncidentJobTaken(Exception):
    """Another incident of the team already has this job id (uploads naming it join that one)."""


def incident_rename(*, incident: Incident, title: str, job: str, user: Any = None) -> Incident:
    """Set the title and job id people see in the list. A job id is unique per team: uploads
    naming it join the incident, so it cannot be given to a second one. A change made by a
    person (`user`) is a line of the incident's history."""
    title, job = title.strip()[:300], job.strip()[:200]
    before = (incident.title if not incident.title_generated else "", incident.job)
    if job and Incident.objects.filter(team_id=incident.team_id, job=job).exclude(pk=incident.pk).exists():
        raise IncidentJobTaken(f"job {job!r} already names another incident of this team")
    incident.title, incident.job = title, job
    # An emptied title goes back to the one the verdict gives.
    incident.title_generated = not title
    diagnosis = Diagnosis.objects.filter(incident=incident).first()
    if not title and diagnosis is not None:
        title_refresh(incident=incident, data=diagnosis.data)
    try:
        with transaction.atomic():
            incident.save(update_fields=["title", "job", "title_generated", "updated_at"])
            if user is not None and (title, job) != before:
                history_record(incident=incident, user=user, verb=IncidentEvent.Verb.RENAMED,
                               details={"title": title or None, "job": job or None})
    except IntegrityError as e:  # the same job id given to another incident a moment ago
        raise IncidentJobTaken(f"job {job!r} already names another incident of this team") from e
    return incident
