"""Celery tasks of the fleet: thin, by id, each calling one service."""
from __future__ import annotations

import logging
from typing import Any

from celery import shared_task
from django.conf import settings

from .services import DeliveryFailed, deliveries_requeue, delivery_attempt, fleet_incident_update

log = logging.getLogger(__name__)


@shared_task
def fleet_incident_task(incident_id: str) -> None:
    try:
        fleet_incident_update(incident_id=incident_id)
    except Exception:
        # Grouping is derived data: a bug here must not surface as a failed upload (eager mode)
        # or loop forever; the next diagnosis of the incident runs it again.
        log.exception("fleet update of incident %s failed", incident_id)


# Its own queue (settings.CELERY_TASK_ROUTES) and its own time limits: an attempt is bounded by
# the connect timeout plus the total deadline, never by the parse limits.
@shared_task(bind=True, max_retries=None,
             soft_time_limit=settings.TRIAGE_WEBHOOK_CONNECT_TIMEOUT + settings.TRIAGE_WEBHOOK_DEADLINE + 15,
             time_limit=settings.TRIAGE_WEBHOOK_CONNECT_TIMEOUT + settings.TRIAGE_WEBHOOK_DEADLINE + 30)
def webhook_deliver_task(self: Any, delivery_id: int) -> None:
    # Embedded mode runs tasks inside the request: one attempt, never a retry loop in an upload.
    try:
        delivery_attempt(delivery_id=delivery_id, final=self.request.is_eager)
    except DeliveryFailed as e:
        # Exponential backoff, capped: 10 s, 20 s, 40 s ... by default; tests set milliseconds.
        log.info("webhook delivery %s failed (%s); retry in %.1f s", delivery_id, e, e.retry_in)
        raise self.retry(countdown=e.retry_in, exc=e) from e


@shared_task
def webhook_requeue_task() -> None:
    """Beat, every minute: send again the deliveries whose message was lost."""
    for delivery_id in deliveries_requeue():
        webhook_deliver_task.delay(delivery_id)
