"""Celery tasks of the fleet: thin, by id, each calling one service."""
from __future__ import annotations

import logging
from typing import Any

from celery import shared_task
from django.conf import settings

from .services import DeliveryFailed, delivery_attempt, fleet_incident_update

log = logging.getLogger(__name__)


@shared_task
def fleet_incident_task(incident_id: str) -> None:
    try:
        fleet_incident_update(incident_id=incident_id)
    except Exception:
        # Grouping is derived data: a bug here must not surface as a failed upload (eager mode)
        # or loop forever; the next diagnosis of the incident runs it again.
        log.exception("fleet update of incident %s failed", incident_id)


@shared_task(bind=True, max_retries=None)
def webhook_deliver_task(self: Any, delivery_id: int) -> None:
    # Embedded mode runs tasks inside the request: one attempt, never a retry loop in an upload.
    final = self.request.is_eager or self.request.retries >= settings.TRIAGE_WEBHOOK_MAX_RETRIES
    try:
        delivery_attempt(delivery_id=delivery_id, final=final)
    except DeliveryFailed as e:
        # Exponential backoff, capped: 10 s, 20 s, 40 s ... by default; tests set milliseconds.
        delay_ms = min(settings.TRIAGE_WEBHOOK_BACKOFF_MS * 2 ** self.request.retries,
                       settings.TRIAGE_WEBHOOK_BACKOFF_MAX_MS)
        log.info("webhook delivery %s failed (%s); retry in %.1f s", delivery_id, e, delay_ms / 1000)
        raise self.retry(countdown=delay_ms / 1000, exc=e) from e
