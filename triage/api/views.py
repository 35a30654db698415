"""The collector API (docs/dashboard.md): upload a bundle, read an incident, share it.

Every upload answer names the limits in headers (X-Bundle-Size-Limit per file, X-Upload-Size-
Limit per request, X-Incident-Size-Limit per incident, X-RateLimit-Limit/-Remaining per token
and window), so a collector can size what it sends without reading the docs.
"""
from __future__ import annotations

import json
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from triage.accounts.models import ShareLink
from triage.accounts.services import ShareRateLimited, sharelink_create, sharelink_revoke
from triage.fleet.commands import incident_drain
from triage.incidents.notify import history_data
from triage.incidents.redact import redact_data, redact_text
from triage.incidents.selectors import incident_get
from triage.incidents.services import (
    IncidentTooLarge,
    InvalidUpload,
    incident_ingest,
    incoming_from_upload,
)
from triage.incidents.storage import StorageUnavailable
from triage.incidents.uploads import too_large
from triage.incidents.workflow import workflow_data

from .auth import api_error, token_required
from .ratelimit import RateDecision, upload_rate_check
from .textgate import BadText, check_post, text_gate_in_view

# Room for the multipart framing and the small fields around the file.
MULTIPART_OVERHEAD = 64 * 1024


def _mib(limit: int) -> int:
    return limit // (1024 * 1024)


def _limit_headers(rate: RateDecision | None = None) -> dict[str, str]:
    headers = {
        "X_Bundle_Size_Limit": str(settings.TRIAGE_MAX_BUNDLE_BYTES),
        "X_Upload_Size_Limit": str(settings.TRIAGE_MAX_UPLOAD_BYTES),
        "X_Incident_Size_Limit": str(settings.TRIAGE_MAX_INCIDENT_BYTES),
    }
    if rate is not None and rate.limit:
        headers["X_RateLimit_Limit"] = f"{rate.limit};w={settings.TRIAGE_UPLOAD_RATE_WINDOW}"
        headers["X_RateLimit_Remaining"] = str(rate.remaining)
    return headers


def _with_headers(response: HttpResponse, headers: dict[str, str]) -> HttpResponse:
    for name, value in headers.items():
        response[name.replace("_", "-")] = value
    return response


@text_gate_in_view  # after the rate and size checks below, which come before reading the body
@require_POST
@token_required("upload")
def bundle_upload(request: HttpRequest) -> HttpResponse:
    token = request.api_token  # type: ignore[attr-defined]
    # Before reading a byte of the body: a flood is refused for the price of a cache hit.
    rate = upload_rate_check(token_id=token.pk)
    headers = _limit_headers(rate)
    if not rate.allowed:
        return api_error(
            429, f"too many uploads with this token: at most {rate.limit} per "
            f"{settings.TRIAGE_UPLOAD_RATE_WINDOW} s; retry in {rate.retry_after} s",
            Retry_After=str(rate.retry_after), **headers,
        )
    file_limit, upload_limit = settings.TRIAGE_MAX_BUNDLE_BYTES, settings.TRIAGE_MAX_UPLOAD_BYTES
    try:
        length = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        length = 0
    if length > min(file_limit, upload_limit) + MULTIPART_OVERHEAD:
        # Refuse before reading a byte of the body.
        if file_limit <= upload_limit:
            message = f"bundle larger than the {_mib(file_limit)} MiB limit per file"
        else:
            message = f"upload larger than the {_mib(upload_limit)} MiB limit per upload"
        return api_error(413, message, **headers)
    upload = request.FILES.get("file")
    exceeded = too_large(request)
    if exceeded is not None:
        return api_error(413, str(exceeded), **headers)
    try:
        check_post(request)
    except BadText as e:
        return api_error(400, str(e), **headers)
    if upload is None:
        return api_error(400, "multipart field 'file' is missing", **headers)
    try:
        incident, _ = incident_ingest(
            bundles=[incoming_from_upload(upload)],
            job=request.POST.get("job", ""),
            host=request.POST.get("host", ""),
            token=token,
        )
    except IncidentTooLarge as e:
        return api_error(413, str(e), **headers)
    except InvalidUpload as e:
        return api_error(400, str(e), **headers)
    except StorageUnavailable as e:
        return api_error(503, str(e), Retry_After=str(settings.TRIAGE_STORAGE_RETRY_AFTER), **headers)
    body = {
        "incident": incident.pk,
        "url": request.build_absolute_uri(reverse("web:incident-detail", args=[incident.pk])),
        "api": request.build_absolute_uri(reverse("api:incident-detail", args=[incident.pk])),
    }
    return _with_headers(JsonResponse(body, status=202), headers)


LIST_PAGE_SIZE = 50


def _incident_summary(request: HttpRequest, incident: Any) -> dict[str, Any]:
    ff = redact_data(incident.first_failure) if incident.first_failure else None
    return {
        "id": incident.pk,
        "title": redact_text(incident.display_title),
        "job": incident.job,
        "status": incident.status,
        "cause": incident.cause or None,
        "confidence": incident.confidence or None,
        "summary": redact_text(incident.summary),
        "first_failure": {k: ff.get(k) for k in ("rank", "host", "pid", "device", "bus_id", "time")} if ff else None,
        "created_at": incident.created_at.isoformat(),
        "workflow": workflow_data(incident, related=False),
        "url": request.build_absolute_uri(reverse("web:incident-detail", args=[incident.pk])),
        "api": request.build_absolute_uri(reverse("api:incident-detail", args=[incident.pk])),
    }


@never_cache
@require_GET
@token_required("read")
def incident_list_api(request: HttpRequest) -> HttpResponse:
    """Incidents of the token's team, newest first, filtered like the list page (q, cause,
    status, host, job, date_from, date_to) and paged (`page`, 50 a page)."""
    from django.core.paginator import EmptyPage, PageNotAnInteger, Paginator

    from triage.incidents.selectors import incident_list
    from triage.web.forms import IncidentFilterForm

    form = IncidentFilterForm(request.GET or None)
    if form.is_bound and not form.is_valid():
        problems = "; ".join(f"{k}: {' '.join(str(m) for m in v)}" for k, v in form.errors.items())
        return api_error(400, "bad filter: " + problems)
    paginator = Paginator(incident_list(filters=form.filters(), token=request.api_token), LIST_PAGE_SIZE)  # type: ignore[attr-defined]
    try:
        page = paginator.page(request.GET.get("page") or 1)
    except (EmptyPage, PageNotAnInteger):
        return api_error(400, f"page must be a number from 1 to {paginator.num_pages}")
    query = request.GET.copy()

    def link(number: int) -> str:
        query["page"] = str(number)
        return request.build_absolute_uri(f"{request.path}?{query.urlencode()}")

    return JsonResponse({
        "count": paginator.count,
        "page": page.number,
        "pages": paginator.num_pages,
        "next": link(page.next_page_number()) if page.has_next() else None,
        "previous": link(page.previous_page_number()) if page.has_previous() else None,
        "results": [_incident_summary(request, i) for i in page.object_list],
    })


@never_cache
@require_GET
@token_required("read")
def incident_detail(request: HttpRequest, incident_id: str) -> HttpResponse:
    incident = incident_get(incident_id=incident_id, token=request.api_token)  # type: ignore[attr-defined]
    if incident is None:
        return api_error(404, "no such incident")
    diagnosis = getattr(incident, "diagnosis", None)
    return JsonResponse(
        {
            "status": incident.status,
            "error": incident.error or None,
            "title": redact_text(incident.display_title),
            "workflow": workflow_data(incident),
            # Who did what, when (assigned, acknowledged, commented ...), oldest first.
            "history": history_data(incident),
            # The commands that take the culprit host out of service (null: no host named).
            "drain": incident_drain(incident_id=incident.pk, host=(incident.first_failure or {}).get("host"),
                                    title=redact_text(incident.display_title)),
            # Secrets that reached the logs are not repeated by the API (the raw file has them).
            "diagnosis": redact_data(diagnosis.data) if diagnosis is not None else None,
        }
    )


def _expires_in(request: HttpRequest) -> int | None:
    """`expires_in` from a JSON or form body; None when absent. ValueError when not a count."""
    raw: Any = None
    if request.content_type == "application/json" and request.body:
        try:
            payload = json.loads(request.body)
        except json.JSONDecodeError as e:
            raise ValueError("the body is not JSON") from e
        raw = payload.get("expires_in") if isinstance(payload, dict) else None
    else:
        raw = request.POST.get("expires_in") or None
    if raw is None:
        return None
    if isinstance(raw, bool) or not isinstance(raw, (int, str)) or not str(raw).isdigit() or int(raw) <= 0:
        raise ValueError("expires_in must be a positive whole number of seconds")
    return int(raw)


def _share_body(request: HttpRequest, link: ShareLink) -> dict[str, Any]:
    return {
        "id": link.pk,
        "incident": link.incident_id,
        "created_at": link.created_at.isoformat(),
        "expires_at": link.expires_at.isoformat() if link.expires_at else None,
        "revoked_at": link.revoked_at.isoformat() if link.revoked_at else None,
        "active": link.is_active,
        "access_count": link.access_count,
    }


@never_cache
@require_POST
@token_required("read")
def share_create(request: HttpRequest, incident_id: str) -> HttpResponse:
    token = request.api_token  # type: ignore[attr-defined]
    incident = incident_get(incident_id=incident_id, token=token)
    if incident is None:
        return api_error(404, "no such incident")
    try:
        link, secret = sharelink_create(incident=incident, expires_in=_expires_in(request), created_by_token=token)
    except ShareRateLimited as e:
        return api_error(429, str(e), Retry_After=str(e.retry_after))
    except ValueError as e:
        return api_error(400, str(e))
    body = {"url": request.build_absolute_uri(reverse("web:share-detail", args=[secret])), "id": link.pk}
    response = JsonResponse(body, status=201)
    response["Location"] = request.build_absolute_uri(reverse("api:share-detail", args=[incident.pk, link.pk]))
    return response


@never_cache
@require_http_methods(["GET", "DELETE"])
@token_required("read")
def share_detail(request: HttpRequest, incident_id: str, share_id: str) -> HttpResponse:
    """GET: the share's state (never its secret). DELETE: revoke it, at once and for good."""
    incident = incident_get(incident_id=incident_id, token=request.api_token)  # type: ignore[attr-defined]
    link = ShareLink.objects.filter(pk=share_id, incident=incident).first() if incident is not None else None
    if link is None:
        return api_error(404, "no such share link")
    if request.method == "DELETE":
        link = sharelink_revoke(link=link)
    return JsonResponse(_share_body(request, link))
