"""Browser pages. Thin: read through selectors, write through services, render templates."""
from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib import messages
from django.core.paginator import Paginator
from django.http import FileResponse, Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from triage.incidents.logs import SourceNotFound, log_page
from triage.incidents.models import Incident
from triage.incidents.selectors import incident_bundle, incident_get, incident_list
from triage.incidents.services import incident_ingest, incident_reparse, incoming_from_upload
from triage.incidents.uploads import too_large

from .forms import IncidentFilterForm, UploadForm
from .presenters import incident_page_context


def _incident_or_404(request: HttpRequest, incident_id: str) -> Incident:
    incident = incident_get(incident_id=incident_id, user=request.user)
    if incident is None:
        raise Http404("no such incident")
    return incident


@require_GET
def incident_list_view(request: HttpRequest) -> HttpResponse:
    form = IncidentFilterForm(request.GET or None)
    filters = form.filters()
    page = Paginator(incident_list(filters=filters, user=request.user), 50).get_page(request.GET.get("page"))
    query = request.GET.copy()
    query.pop("page", None)
    return render(
        request,
        "incidents/list.html",
        {"form": form, "page": page, "query": query.urlencode(), "filtered": form.has_filters()},
    )


@require_GET
def incident_detail_view(request: HttpRequest, incident_id: str) -> HttpResponse:
    incident = _incident_or_404(request, incident_id)
    return render(request, "incidents/detail.html", incident_page_context(incident))


@never_cache
@require_GET
def incident_status_view(request: HttpRequest, incident_id: str) -> HttpResponse:
    """What the page polls while the diagnosis runs."""
    incident = _incident_or_404(request, incident_id)
    return JsonResponse({"status": incident.status, "error": incident.error or None, "revision": incident.revision})


@require_POST
def incident_reparse_view(request: HttpRequest, incident_id: str) -> HttpResponse:
    incident = _incident_or_404(request, incident_id)
    incident_reparse(incident=incident)
    messages.info(request, "The diagnosis is running again over the stored bundles.")
    return redirect("web:incident-detail", incident.pk)


def _upload_page(request: HttpRequest, form: UploadForm, *, status: int = 200, error: str = "") -> HttpResponse:
    limit = settings.TRIAGE_MAX_BUNDLE_BYTES
    context = {"form": form, "limit_bytes": limit, "limit_mb": limit // (1024 * 1024), "upload_error": error}
    return render(request, "incidents/upload.html", context, status=status)


@require_http_methods(["GET", "POST"])
def upload_view(request: HttpRequest) -> HttpResponse:
    if request.method == "GET":
        return _upload_page(request, UploadForm())
    wants_json = request.headers.get("Accept", "").startswith("application/json")
    form = UploadForm(request.POST, request.FILES)
    exceeded = too_large(request)
    if exceeded is not None:
        if wants_json:
            return JsonResponse({"error": str(exceeded)}, status=413)
        return _upload_page(request, UploadForm(), status=413, error=str(exceeded))
    if not form.is_valid():
        if wants_json:
            return JsonResponse({"error": form.errors.get_json_data()}, status=400)
        return _upload_page(request, form, status=400)

    incident, added = incident_ingest(
        bundles=[incoming_from_upload(f) for f in form.cleaned_data["files"]],
        job=form.cleaned_data["job"],
        host=form.cleaned_data["host"],
        user=request.user,
    )
    url = reverse("web:incident-detail", args=[incident.pk])
    if not added:
        messages.info(request, "These files were already in this incident; nothing new was stored.")
    if wants_json:
        return JsonResponse({"incident": incident.pk, "url": url}, status=201)
    return redirect(url)


@require_GET
def bundle_download_view(request: HttpRequest, incident_id: str, bundle_id: int) -> HttpResponse:
    incident = _incident_or_404(request, incident_id)
    bundle = incident_bundle(incident=incident, bundle_id=bundle_id)
    if bundle is None:
        raise Http404("no such bundle")
    # Always a download (never rendered inline): the content is untrusted.
    return FileResponse(
        bundle.file.open("rb"), as_attachment=True, filename=bundle.original_name,
        content_type="application/octet-stream",
    )


@require_GET
def log_view(request: HttpRequest, incident_id: str) -> HttpResponse:
    incident = _incident_or_404(request, incident_id)
    source = request.GET.get("source", "")
    target = _positive_int(request.GET.get("line"), 0)
    size = settings.TRIAGE_LOG_PAGE_LINES
    # Open with the wanted line a little below the top, so what led to it is on screen.
    default_start = max(1, target - size // 4) if target else 1
    start = _positive_int(request.GET.get("start"), default_start)
    try:
        page = log_page(
            incident=incident, source=source, first=start, count=size,
            max_chars=settings.TRIAGE_LOG_MAX_LINE_CHARS,
        )
    except SourceNotFound as e:
        raise Http404(str(e)) from e
    context: dict[str, Any] = {
        "incident": incident,
        "page": page,
        "source": source,
        "target": target,
        "prev_start": max(1, page.first - size) if page.first > 1 else None,
        "next_start": None if page.at_end else page.first + len(page.lines),
    }
    return render(request, "incidents/log.html", context)


@require_GET
def incident_timeline_view(request: HttpRequest, incident_id: str) -> HttpResponse:
    from triage.timeline.figure import build_figure

    incident = _incident_or_404(request, incident_id)
    diagnosis = getattr(incident, "diagnosis", None)
    if diagnosis is None:
        raise Http404("this incident has no diagnosis yet")
    return JsonResponse(build_figure(diagnosis.data.get("timeline") or {}))


@require_GET
def incident_trace_view(request: HttpRequest, incident_id: str) -> HttpResponse:
    from triage.timeline.perfetto import build_trace

    incident = _incident_or_404(request, incident_id)
    diagnosis = getattr(incident, "diagnosis", None)
    if diagnosis is None:
        raise Http404("this incident has no diagnosis yet")
    response = JsonResponse(build_trace(diagnosis.data.get("timeline") or {}))
    response["Content-Disposition"] = f'attachment; filename="incident-{incident.pk}-trace.json"'
    return response


def _positive_int(value: str | None, default: int) -> int:
    try:
        number = int(value or "")
    except ValueError:
        return default
    return number if number > 0 else default
