"""Celery task for one part of a bundle (see services.py): thin, idempotent on redelivery."""
from __future__ import annotations

import logging
from typing import Any

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings

from triage.incidents.services import incident_mark_failed
from triage.incidents.tasks import TRANSIENT_ERRORS

from .models import BundlePart
from .services import bundle_part_parse

log = logging.getLogger(__name__)


def _fail(part_id: int, reason: str) -> None:
    incident_id = BundlePart.objects.filter(pk=part_id).values_list("bundle__incident_id", flat=True).first()
    if incident_id is not None:
        incident_mark_failed(incident_id=incident_id, reason=reason)


@shared_task(bind=True, autoretry_for=TRANSIENT_ERRORS, retry_backoff=5, retry_backoff_max=120, max_retries=5)
def bundle_part_parse_task(self: Any, part_id: int) -> None:
    try:
        bundle_part_parse(part_id=part_id)
    except SoftTimeLimitExceeded:
        _fail(part_id, f"reading a part of a bundle took longer than {settings.TRIAGE_PARSE_SOFT_TIME_LIMIT} s "
                       "and was stopped")
    except TRANSIENT_ERRORS:
        if self.request.retries >= self.max_retries:
            _fail(part_id, "the database or storage stayed unreachable")
        raise
    except Exception as e:
        log.exception("reading part %s failed", part_id)  # a bug: recorded, not retried
        _fail(part_id, f"internal error while diagnosing: {type(e).__name__}: {e}")
