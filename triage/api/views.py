"""The collector API (docs/bundle-format.md): upload a bundle, read an incident."""
from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from triage.incidents.selectors import incident_get
from triage.incidents.services import incident_ingest, incoming_from_upload
from triage.incidents.uploads import too_large

from .auth import api_error, token_required

# Room for the multipart framing and the small fields around the file.
MULTIPART_OVERHEAD = 64 * 1024


def _limit_headers() -> dict[str, str]:
    return {"X_Bundle_Size_Limit": str(settings.TRIAGE_MAX_BUNDLE_BYTES)}


@require_POST
@token_required
def bundle_upload(request: HttpRequest) -> HttpResponse:
    limit = settings.TRIAGE_MAX_BUNDLE_BYTES
    try:
        length = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        length = 0
    if length > limit + MULTIPART_OVERHEAD:
        # Refuse before reading a byte of the body.
        return api_error(413, f"bundle larger than the {limit // (1024 * 1024)} MiB limit", **_limit_headers())
    upload = request.FILES.get("file")
    exceeded = too_large(request)
    if exceeded is not None:
        return api_error(413, str(exceeded), **_limit_headers())
    if upload is None:
        return api_error(400, "multipart field 'file' is missing")
    incident, _ = incident_ingest(
        bundles=[incoming_from_upload(upload)],
        job=request.POST.get("job", ""),
        host=request.POST.get("host", ""),
        token=request.api_token,  # type: ignore[attr-defined]
    )
    body = {
        "incident": incident.pk,
        "url": request.build_absolute_uri(reverse("web:incident-detail", args=[incident.pk])),
        "api": request.build_absolute_uri(reverse("api:incident-detail", args=[incident.pk])),
    }
    response = JsonResponse(body, status=202)
    response["X-Bundle-Size-Limit"] = str(limit)
    return response


@never_cache
@require_GET
@token_required
def incident_detail(request: HttpRequest, incident_id: str) -> HttpResponse:
    incident = incident_get(incident_id=incident_id, token=request.api_token)  # type: ignore[attr-defined]
    if incident is None:
        return api_error(404, "no such incident")
    diagnosis = getattr(incident, "diagnosis", None)
    return JsonResponse(
        {
            "status": incident.status,
            "error": incident.error or None,
            "diagnosis": diagnosis.data if diagnosis is not None else None,
        }
    )
