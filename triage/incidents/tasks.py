"""Celery tasks: thin wrappers that load by id and call one service.

Delivery is at-least-once (acks_late, reject_on_worker_lost): a task may run twice, or again
after its worker died half-way. `incident_diagnose` is idempotent, which makes that safe.
"""
from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.core.cache import cache
from django.db import InterfaceError, OperationalError
from kombu.exceptions import OperationalError as BrokerError

from .services import (
    incident_diagnose,
    incident_fail_stuck,
    incident_mark_failed,
    incident_prune,
    incident_requeue,
    incident_requeue_stale,
)

log = logging.getLogger(__name__)

# Errors worth another try: the database or the storage was briefly unreachable.
# BotoCoreError: the bucket's connection errors and timeouts (TRIAGE_STORAGE=s3; botocore is
# installed with requirements-s3.txt only).
TRANSIENT_ERRORS: tuple[type[BaseException], ...] = (OperationalError, InterfaceError, ConnectionError, TimeoutError)
try:
    from botocore.exceptions import BotoCoreError
except ImportError:  # the small install (`make run`): local disk only
    pass
else:
    TRANSIENT_ERRORS += (BotoCoreError,)


@shared_task(
    bind=True,
    autoretry_for=TRANSIENT_ERRORS,
    retry_backoff=5,  # 5 s, 10 s, 20 s ... with jitter
    retry_backoff_max=120,  # well under the broker's visibility timeout
    max_retries=5,
)
def incident_parse_task(self: Any, incident_id: str, force: bool = False) -> None:
    try:
        incident_diagnose(incident_id=incident_id, force=force)
    except SoftTimeLimitExceeded:
        incident_mark_failed(
            incident_id=incident_id,
            reason=f"parsing took longer than {settings.TRIAGE_PARSE_SOFT_TIME_LIMIT} s and was stopped",
        )
    except TRANSIENT_ERRORS:
        if self.request.retries >= self.max_retries:
            incident_mark_failed(incident_id=incident_id, reason="the database or storage stayed unreachable")
        raise
    except BrokerError as e:
        # Redis went away while this diagnosis queued its parts: not the input's fault, and no
        # retry can be sent either. Back to `queued`: the sweep sends it again.
        log.warning("diagnosis of incident %s put back in the queue: the broker is unreachable (%s)", incident_id, e)
        incident_requeue(incident_id=incident_id)
    except Exception as e:
        # A bug, not bad input (bad input is BundleError, handled in the service): log it and
        # record it, so the incident does not stay `parsing`. Not re-raised: a retry would
        # hit the same bug, and in embedded mode it would turn the upload into a 500.
        log.exception("diagnosis of incident %s failed", incident_id)
        incident_mark_failed(
            incident_id=incident_id, reason=f"internal error while diagnosing: {type(e).__name__}: {e}"
        )


@shared_task(soft_time_limit=50, time_limit=55)
def incident_fail_stuck_task() -> int:
    count = incident_fail_stuck(older_than=timedelta(seconds=settings.TRIAGE_STUCK_AFTER_SECONDS))
    if count:
        log.warning("marked %d incident(s) stuck in parsing as failed", count)
    return count


@shared_task(soft_time_limit=50, time_limit=55)
def incident_requeue_task() -> int:
    """Rebuild the queue from the database (see incident_requeue_stale). A second beat (an
    orphan of a killed `worker -B`, two deployments by mistake) sends this too: the lock makes
    the second copy within the period a no-op."""
    period = settings.TRIAGE_REQUEUE_AFTER_SECONDS
    try:
        first = cache.add("triage:requeue-sweep", 1, timeout=max(1, period - 5))
    except Exception:  # the cache is Redis: down, the sweep still runs (it is idempotent)
        first = True
    if not first:
        return 0
    requeued, failed = incident_requeue_stale(
        queued_for=timedelta(seconds=period),
        # No task runs past its hard limit: a parse older than that (and a sweep period) lost its worker.
        parse_limit=timedelta(seconds=settings.TRIAGE_PARSE_TIME_LIMIT + period),
        max_attempts=settings.TRIAGE_PARSE_MAX_ATTEMPTS,
    )
    if requeued or failed:
        log.warning("sweep: queued %d incident(s) again, failed %d that kept killing their worker", requeued, failed)
    return requeued


@shared_task(soft_time_limit=3000, time_limit=3300)
def incident_prune_task() -> int:
    """Retention: delete incidents older than TRIAGE_RETENTION_DAYS (0: keep forever)."""
    deleted = incident_prune(older_than_days=settings.TRIAGE_RETENTION_DAYS)
    if deleted:
        log.info("retention: deleted %d incident(s) older than %d days", len(deleted), settings.TRIAGE_RETENTION_DAYS)
    return len(deleted)


@shared_task(bind=True, max_retries=5, soft_time_limit=settings.EMAIL_TIMEOUT * 3 + 15,
             time_limit=settings.EMAIL_TIMEOUT * 3 + 30)
def mail_send_task(self: Any, to: str, subject: str, body: str) -> None:
    """One notification e-mail (notify.py). An SMTP server that is down or refuses is tried
    again later (1, 2, 4 ... minutes); embedded mode tries once, inside the request."""
    import smtplib

    from .notify import mail_send

    try:
        mail_send(to=to, subject=subject, body=body)
    except (OSError, smtplib.SMTPException) as e:
        log.warning("mail to %s failed: %s", to, e)
        if self.request.is_eager:
            return  # a page that assigned someone never fails because the mail server is down
        raise self.retry(countdown=60 * 2 ** self.request.retries, exc=e) from e
