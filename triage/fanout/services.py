"""Diagnosing an incident in parts: each bundle is read once, in one or several parts (each by
its own task when there are several), into stored partial states; whoever stores the last
missing state merges all of the incident's states and runs the rules (engine `conclude`).

Every step is idempotent, so at-least-once delivery is safe: a part already read is not read
again, a part is stored only over an empty state, and concluding twice stores the same
diagnosis twice. Completion is decided under the incident's row lock, so of several parts
finishing together exactly one sees "all read" and concludes.
"""
from __future__ import annotations

import logging
import time
from collections.abc import Iterable

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from triage.incidents.memory import DiagnosisOutOfMemory
from triage.incidents.models import Bundle, Incident
from triage.incidents.services import (
    _store_diagnosis,
    _store_failure,
    archive_limits,
    diagnosis_limited,
    failure_reason,
)
from triage.incidents.storage import StoredBlob, engine_input

from .models import BundlePart

log = logging.getLogger(__name__)


def _inputs(bundle: Bundle) -> list[tuple[str, str | StoredBlob]]:
    return [(bundle.label, engine_input(bundle.file.name, bundle.size))]


def bundle_plan_parts(*, bundle: Bundle) -> list[BundlePart]:
    """The parts of a bundle, planned once: one for a bundle up to TRIAGE_PARSE_PART_BYTES,
    else the engine's groups of members (by host folder, then size)."""
    from triage.engine.partial import plan_groups

    parts = list(BundlePart.objects.filter(bundle=bundle))
    if parts:
        return parts
    target = settings.TRIAGE_PARSE_PART_BYTES
    groups: list[list[str]] = [[]]  # [] = the whole bundle
    if target and bundle.size > target:
        groups = plan_groups(_inputs(bundle), target_bytes=target, limits=archive_limits()) or [[]]
    BundlePart.objects.bulk_create(
        [BundlePart(bundle=bundle, index=i, of=len(groups), members=group if len(groups) > 1 else [])
         for i, group in enumerate(groups)],
        ignore_conflicts=True,  # a second delivery planned the same parts at the same time
    )
    return list(BundlePart.objects.filter(bundle=bundle))


def incident_read_in_parts(*, incident_id: str, revision: int, bundles: list[Bundle],
                           force: bool = False) -> Incident | None:
    """Plan the parts of bundles not read yet, read one-part bundles here and queue the others
    part by part; conclude when nothing is left to read (e.g. all bundles were small). Called by
    incidents.services.incident_diagnose once the incident is marked `parsing`."""
    from triage.engine import BundleError

    from .tasks import bundle_part_parse_task

    if force:  # e.g. after an engine upgrade: every bundle is read again
        BundlePart.objects.filter(bundle__incident_id=incident_id).delete()

    # One query for what is known (a job's 64th node must not cost 64 round trips); only the
    # bundles without parts are planned. The states themselves are not loaded here.
    known = BundlePart.objects.filter(bundle__incident_id=incident_id).defer("state")
    unread = [p for p in known.filter(state__isnull=True)]
    planned = set(known.values_list("bundle_id", flat=True).distinct())
    try:
        for bundle in bundles:
            if bundle.pk not in planned:
                unread.extend(p for p in bundle_plan_parts(bundle=bundle) if p.state is None)
    except BundleError as e:
        return _store_failure(incident_id=incident_id, revision=revision, reason=f"the bundle could not be read: {e}")
    if not unread:
        return incident_conclude(incident_id=incident_id)
    for part in unread:
        if part.of > 1:
            bundle_part_parse_task.delay(part.pk)
    done = None
    for part in unread:
        if part.of == 1:
            done = bundle_part_parse(part_id=part.pk)
    return done if done is not None else Incident.objects.filter(pk=incident_id).first()


def bundle_part_parse(*, part_id: int) -> Incident | None:
    """Read one part into its partial state (once), and conclude if it was the last one."""
    from triage.engine import BundleError
    from triage.engine.partial import parse_members

    part = BundlePart.objects.select_related("bundle").filter(pk=part_id).first()
    if part is None:
        return None  # its incident (or a forced re-read) deleted it
    incident_id = part.bundle.incident_id
    if part.state is None:
        started = time.monotonic()
        inputs, members, limits = _inputs(part.bundle), set(part.members) if part.members else None, archive_limits()
        try:
            blob = diagnosis_limited(lambda: parse_members(inputs, members, limits=limits).to_bytes())
        except (BundleError, DiagnosisOutOfMemory) as e:
            revision = Incident.objects.values_list("revision", flat=True).get(pk=incident_id)
            return _store_failure(incident_id=incident_id, revision=revision, reason=failure_reason(e))
        seconds = time.monotonic() - started
    with transaction.atomic():
        incident = Incident.objects.select_for_update().filter(pk=incident_id).first()
        if incident is None:
            return None
        if part.state is None:
            BundlePart.objects.filter(pk=part.pk, state__isnull=True).update(
                state=blob, parse_seconds=seconds, parsed_at=timezone.now()
            )
        complete = _all_read(incident_id)
    return incident_conclude(incident_id=incident_id) if complete else incident


def _all_read(incident_id: str) -> bool:
    """Every bundle of the incident planned, and every part of them read."""
    if Bundle.objects.filter(incident_id=incident_id, parts__isnull=True).exists():
        return False  # a bundle that has just arrived: its own diagnosis will conclude
    return not BundlePart.objects.filter(bundle__incident_id=incident_id, state__isnull=True).exists()


def incident_conclude(*, incident_id: str) -> Incident | None:
    """Merge the stored states of all the incident's bundles and store the diagnosis. Reads no
    log: the cost is the states' size, not the bundles'."""
    from triage.engine import BundleError
    from triage.engine.partial import PartialState, conclude

    revision = Incident.objects.filter(pk=incident_id).values_list("revision", flat=True).first()
    if revision is None:
        return None
    bundles = list(Bundle.objects.filter(incident_id=incident_id))
    parts = list(
        BundlePart.objects.filter(bundle__in=bundles).order_by("bundle__created_at", "bundle_id", "index")
    )
    if not _complete(bundles, parts):
        return Incident.objects.filter(pk=incident_id).first()  # the last part to be read concludes
    started = time.monotonic()
    # Every part has its state here (_complete); the filter only tells mypy so.
    states = [bytes(p.state) for p in parts if p.state is not None]
    try:
        data = diagnosis_limited(lambda: conclude([PartialState.from_bytes(s) for s in states]).to_dict())
    except (BundleError, DiagnosisOutOfMemory) as e:
        return _store_failure(incident_id=incident_id, revision=revision, reason=failure_reason(e))
    seconds = time.monotonic() - started + sum(p.parse_seconds for p in parts)
    return _store_diagnosis(incident_id=incident_id, revision=revision, data=data, seconds=seconds)



def _complete(bundles: Iterable[Bundle], parts: list[BundlePart]) -> bool:
    planned = {p.bundle_id for p in parts}
    return all(b.pk in planned for b in bundles) and all(p.state is not None for p in parts)
