"""Browser pages. Thin: read through selectors, write through services, render templates.

Two ways in: a signed-in member of the incident's team (the `incident_*` views), or anyone
holding a share link (the `share_*` views, read-only, logged out, one incident)."""
from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_not_required
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.http import FileResponse, Http404, HttpRequest, HttpResponse, JsonResponse, StreamingHttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from triage.accounts.models import Role, ShareLink
from triage.accounts.selectors import membership_get, sharelink_from_secret, sharelinks_of, teams_for
from triage.accounts.services import (
    ShareRateLimited,
    sharelink_create,
    sharelink_record_access,
    sharelink_revoke,
)
from triage.incidents.logs import SourceNotFound, log_find, log_page
from triage.incidents.models import Incident
from triage.incidents.redact import redact_data
from triage.incidents.selectors import NOBODY, assignable_users, incident_bundle, incident_get, incident_list
from triage.incidents.services import (
    IncidentJobTaken,
    IncidentTooLarge,
    incident_ingest,
    incident_rename,
    incident_reparse,
    incoming_from_upload,
)
from triage.incidents.storage import StorageUnavailable
from triage.incidents.uploads import too_large
from triage.incidents.workflow import (
    WorkflowError,
    comment_add,
    incident_set_workflow,
    previous_resolution,
    team_members,
)

from .forms import CommentForm, IncidentEditForm, IncidentFilterForm, ShareForm, UploadForm, WorkflowForm
from .presenters import PageLinks, incident_csv_rows, incident_page_context, share_links, team_links

logger = logging.getLogger(__name__)


def _incident_or_404(request: HttpRequest, incident_id: str, role: str = Role.VIEWER) -> Incident:
    """The incident if the user's team may see it (404 otherwise: another team's incident
    does not exist for them), and 403 when they see it but their role is too low."""
    incident = incident_get(incident_id=incident_id, user=request.user)
    if incident is None:
        raise Http404("no such incident")
    if role != Role.VIEWER:
        membership = membership_get(user=request.user, team_id=incident.team_id)
        if membership is None or not membership.allows(role):
            raise PermissionDenied(f"this needs the {role} role in the incident's team")
    return incident


@require_GET
def incident_list_view(request: HttpRequest) -> HttpResponse:
    form = IncidentFilterForm(request.GET or None, me=request.user.get_username())
    filters = form.filters()
    page = Paginator(incident_list(filters=filters, user=request.user), 50).get_page(request.GET.get("page"))
    query = request.GET.copy()
    query.pop("page", None)
    return render(
        request,
        "incidents/list.html",
        {"form": form, "page": page, "query": query.urlencode(), "filtered": form.has_filters(),
         "assignees": assignable_users(user=request.user), "nobody": NOBODY},
    )


@require_GET
def incident_csv_view(request: HttpRequest) -> StreamingHttpResponse:
    """The list as filtered, every page, as CSV (a spreadsheet, a weekly report)."""
    form = IncidentFilterForm(request.GET or None, me=request.user.get_username())
    rows = incident_csv_rows(incidents=incident_list(filters=form.filters(), user=request.user),
                             base_url=request.build_absolute_uri("/"))
    response = StreamingHttpResponse(rows, content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = 'attachment; filename="incidents.csv"'
    return response


@require_GET
def incident_detail_view(request: HttpRequest, incident_id: str) -> HttpResponse:
    incident = _incident_or_404(request, incident_id)
    context = incident_page_context(incident)
    membership = membership_get(user=request.user, team_id=incident.team_id)
    context["can_write"] = membership is not None and membership.allows(Role.MEMBER)
    context["can_admin"] = membership is not None and membership.allows(Role.ADMIN)
    context["comments"] = list(incident.comments.select_related("author"))
    context["previous_resolution"] = previous_resolution(incident=incident)
    context["history"] = list(incident.history.all())
    if context["can_write"]:
        context["members"] = list(team_members(incident=incident))
        context["workflow_statuses"] = Incident.Workflow.choices
        context["edit_form"] = IncidentEditForm(initial={"title": incident.title, "job": incident.job})
        context["share_form"] = ShareForm()
        context["share_links"] = list(sharelinks_of(incident=incident))
    return render(request, "incidents/detail.html", context)


@never_cache
@require_GET
def incident_status_view(request: HttpRequest, incident_id: str) -> HttpResponse:
    """What the page polls while the diagnosis runs."""
    incident = _incident_or_404(request, incident_id)
    return JsonResponse({"status": incident.status, "error": incident.error or None, "revision": incident.revision})


@require_POST
def incident_edit_view(request: HttpRequest, incident_id: str) -> HttpResponse:
    incident = _incident_or_404(request, incident_id, Role.MEMBER)
    form = IncidentEditForm(request.POST)
    if not form.is_valid():
        messages.error(request, "The title or job id is too long.")
        return redirect("web:incident-detail", incident.pk)
    try:
        incident_rename(incident=incident, title=form.cleaned_data["title"], job=form.cleaned_data["job"],
                        user=request.user)
    except IncidentJobTaken as e:
        messages.error(request, f"Not saved: {e}.")
    else:
        messages.info(request, "Title and job saved.")
    return redirect("web:incident-detail", incident.pk)


@require_POST
def incident_workflow_view(request: HttpRequest, incident_id: str) -> HttpResponse:
    """Assign, acknowledge, resolve or ignore, link a ticket, say what fixed it (members only)."""
    incident = _incident_or_404(request, incident_id, Role.MEMBER)
    form = WorkflowForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Not saved: " + " ".join(str(e) for errs in form.errors.values() for e in errs))
        return redirect("web:incident-detail", incident.pk)
    try:
        incident_set_workflow(incident=incident, user=request.user, base_url=request.build_absolute_uri("/"),
                              **form.changes(request.POST))
    except WorkflowError as e:
        messages.error(request, f"Not saved: {e}.")
    else:
        messages.info(request, f"Saved: {incident.workflow}"
                      + (f", assigned to {incident.assignee.get_username()}" if incident.assignee else "") + ".")
    return redirect("web:incident-detail", incident.pk)


@require_POST
def incident_comment_view(request: HttpRequest, incident_id: str) -> HttpResponse:
    incident = _incident_or_404(request, incident_id, Role.MEMBER)
    form = CommentForm(request.POST)
    try:
        if not form.is_valid():
            raise WorkflowError("a comment needs some text (at most 10,000 characters)")
        comment_add(incident=incident, user=request.user, body=form.cleaned_data["body"],
                    base_url=request.build_absolute_uri("/"))
    except WorkflowError as e:
        messages.error(request, f"Not saved: {e}.")
    return redirect(reverse("web:incident-detail", args=[incident.pk]) + "#workflow")


@require_POST
def incident_reparse_view(request: HttpRequest, incident_id: str) -> HttpResponse:
    incident = _incident_or_404(request, incident_id, Role.MEMBER)
    incident_reparse(incident=incident)
    messages.info(request, "The diagnosis is running again over the stored bundles.")
    return redirect("web:incident-detail", incident.pk)


def _upload_page(request: HttpRequest, form: UploadForm, *, status: int = 200, error: str = "") -> HttpResponse:
    limit = settings.TRIAGE_MAX_BUNDLE_BYTES
    context = {
        "form": form, "limit_bytes": limit, "limit_mb": limit // (1024 * 1024),
        "upload_limit_mb": settings.TRIAGE_MAX_UPLOAD_BYTES // (1024 * 1024),
        "incident_limit_mb": settings.TRIAGE_MAX_INCIDENT_BYTES // (1024 * 1024),
        "upload_error": error,
    }
    return render(request, "incidents/upload.html", context, status=status)


@require_http_methods(["GET", "POST"])
def upload_view(request: HttpRequest) -> HttpResponse:
    teams = teams_for(user=request.user, role=Role.MEMBER)
    if not teams.exists():
        raise PermissionDenied("uploading needs the member role in a team; ask a team admin")
    if request.method == "GET":
        return _upload_page(request, UploadForm(teams=teams))
    wants_json = request.headers.get("Accept", "").startswith("application/json")
    form = UploadForm(request.POST, request.FILES, teams=teams)
    exceeded = too_large(request)
    if exceeded is not None:
        if wants_json:
            return JsonResponse({"error": str(exceeded)}, status=413)
        return _upload_page(request, UploadForm(teams=teams), status=413, error=str(exceeded))
    if not form.is_valid():
        if wants_json:
            return JsonResponse({"error": form.errors.get_json_data()}, status=400)
        return _upload_page(request, form, status=400)

    try:
        incident, added = incident_ingest(
            bundles=[incoming_from_upload(f) for f in form.cleaned_data["files"]],
            job=form.cleaned_data["job"],
            host=form.cleaned_data["host"],
            title=form.cleaned_data["title"],
            user=request.user,
            team=form.cleaned_data["team"],
        )
    except IncidentTooLarge as e:
        if wants_json:
            return JsonResponse({"error": str(e)}, status=413)
        return _upload_page(request, UploadForm(teams=teams), status=413, error=str(e))
    except StorageUnavailable as e:
        retry_after = str(settings.TRIAGE_STORAGE_RETRY_AFTER)
        response: HttpResponse
        if wants_json:
            response = JsonResponse({"error": str(e)}, status=503)
        else:
            response = _upload_page(request, UploadForm(teams=teams), status=503, error=str(e))
        response["Retry-After"] = retry_after
        return response
    url = reverse("web:incident-detail", args=[incident.pk])
    if not added:
        messages.info(request, "These files were already in this incident; nothing new was stored.")
    if wants_json:
        return JsonResponse({"incident": incident.pk, "url": url}, status=201)
    return redirect(url)


@require_GET
def bundle_download_view(request: HttpRequest, incident_id: str, bundle_id: int) -> FileResponse:
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
    return _log_page(request, incident, team_links(incident), shared=False)


def _log_page(request: HttpRequest, incident: Incident, links: PageLinks, *, shared: bool) -> HttpResponse:
    source = request.GET.get("source", "")
    target = _positive_int(request.GET.get("line"), 0)
    size = settings.TRIAGE_LOG_PAGE_LINES
    find = (request.GET.get("find") or "").strip()[:200]
    found = None
    if find:
        # Search forward from the line after the current match (or the page's first line).
        try:
            found = log_find(incident=incident, source=source, text=find,
                             start=_positive_int(request.GET.get("from"), 1))
        except SourceNotFound as e:
            raise Http404(str(e)) from e
        if found.line is not None:
            target = found.line
    # Open with the wanted line a little below the top, so what led to it is on screen.
    default_start = max(1, target - size // 4) if target else 1
    start = (default_start if found is not None and found.line
             else _positive_int(request.GET.get("start"), default_start))
    try:
        page = log_page(
            incident=incident, source=source, first=start, count=size,
            max_chars=settings.TRIAGE_LOG_MAX_LINE_CHARS,
        )
        past_end = None
        if not page.lines and page.first > 1 and not page.notice:
            # A line number past the end (an old link, a typo): the last page, and say so.
            past_end = max(start, target)
            page = log_page(incident=incident, source=source, first=max(1, page.first - size + 1), count=size,
                            max_chars=settings.TRIAGE_LOG_MAX_LINE_CHARS)
    except SourceNotFound as e:
        raise Http404(str(e)) from e
    context: dict[str, Any] = {
        "incident": incident,
        "page": page,
        "source": source,
        "target": target,
        "past_end": past_end,
        "find": find,
        "found": found,
        "links": links,
        "shared": shared,
        "back_url": request.path.rsplit("/log", 1)[0] + "/",
        "prev_start": max(1, page.first - size) if page.first > 1 else None,
        "next_start": None if page.at_end else page.first + len(page.lines),
    }
    return render(request, "incidents/log.html", context)


def _timeline(incident: Incident) -> HttpResponse:
    from triage.timeline.figure import build_figure

    diagnosis = getattr(incident, "diagnosis", None)
    if diagnosis is None:
        raise Http404("this incident has no diagnosis yet")
    # Hover texts quote log lines: redacted like every other view of them.
    try:
        figure = build_figure(redact_data(diagnosis.data.get("timeline") or {}))
    except Exception:  # noqa: BLE001 - a stored timeline the figure cannot draw is bad data, not a server fault
        logger.exception("timeline of incident %s could not be drawn", incident.pk)
        return JsonResponse({"error": "this incident's timeline could not be drawn; the findings above still hold"},
                            status=422)
    return JsonResponse(figure)


def _trace(incident: Incident) -> HttpResponse:
    from triage.timeline.perfetto import build_trace

    diagnosis = getattr(incident, "diagnosis", None)
    if diagnosis is None:
        raise Http404("this incident has no diagnosis yet")
    try:
        trace = build_trace(redact_data(diagnosis.data.get("timeline") or {}))
    except Exception:  # noqa: BLE001 - as for the figure: bad stored data, a clear 422
        logger.exception("trace of incident %s could not be built", incident.pk)
        return JsonResponse({"error": "this incident's timeline could not be exported"}, status=422)
    response = JsonResponse(trace)
    response["Content-Disposition"] = f'attachment; filename="incident-{incident.pk}-trace.json"'
    return response


@require_GET
def incident_timeline_view(request: HttpRequest, incident_id: str) -> HttpResponse:
    return _timeline(_incident_or_404(request, incident_id))


@require_GET
def incident_trace_view(request: HttpRequest, incident_id: str) -> HttpResponse:
    return _trace(_incident_or_404(request, incident_id))


# --- Share links: managed by team members, opened by anyone holding one ----------------------

@require_POST
def share_create_view(request: HttpRequest, incident_id: str) -> HttpResponse:
    incident = _incident_or_404(request, incident_id, Role.MEMBER)
    form = ShareForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Choose when the link expires.")
        return redirect("web:incident-detail", incident.pk)
    try:
        _, secret = sharelink_create(incident=incident, expires_in=form.cleaned_data["expires_in"],
                                     created_by=request.user)
    except ShareRateLimited as e:
        messages.error(request, f"No link made: {e}.")
        return redirect("web:incident-detail", incident.pk)
    url = request.build_absolute_uri(reverse("web:share-detail", args=[secret]))
    # Shown this once: only its hash is stored.
    messages.success(request, url, extra_tags="share-url")
    return redirect("web:incident-detail", incident.pk)


@require_POST
def share_revoke_view(request: HttpRequest, incident_id: str, share_id: str) -> HttpResponse:
    incident = _incident_or_404(request, incident_id, Role.MEMBER)
    link = ShareLink.objects.filter(pk=share_id, incident=incident).first()
    if link is None:
        raise Http404("no such share link")
    membership = membership_get(user=request.user, team_id=incident.team_id)
    # A member may take back their own links; an admin anyone's.
    if link.created_by_id != request.user.pk and not (membership and membership.allows(Role.ADMIN)):
        raise PermissionDenied("only its creator or a team admin can revoke this link")
    sharelink_revoke(link=link)
    messages.info(request, "The share link was revoked: it no longer opens anything.")
    return redirect("web:incident-detail", incident.pk)


def _shared_incident(request: HttpRequest, secret: str, *, record: bool) -> tuple[Incident, ShareLink] | HttpResponse:
    link = sharelink_from_secret(secret=secret)
    if link is None:
        raise Http404("no such share link")
    if not link.is_active:
        reason = "was revoked" if link.revoked_at else "has expired"
        return render(request, "incidents/share_gone.html", {"reason": reason}, status=410)
    if record:
        sharelink_record_access(
            link=link, path=request.path.replace(secret, secret[:6] + "…"), ip=request.META.get("REMOTE_ADDR"),
            user_agent=request.headers.get("User-Agent", ""), user=request.user,
        )
    return link.incident, link


def _private(response: HttpResponse) -> HttpResponse:
    # The URL is the credential: no caching on the way, no search engine, no Referer out.
    response["Cache-Control"] = "private, no-store"
    response["Referrer-Policy"] = "no-referrer"
    response["X-Robots-Tag"] = "noindex, nofollow"
    return response


@login_not_required
@require_GET
def share_detail_view(request: HttpRequest, secret: str) -> HttpResponse:
    found = _shared_incident(request, secret, record=True)
    if isinstance(found, HttpResponse):
        return _private(found)
    incident, link = found
    context = incident_page_context(incident, links=share_links(secret), shared=True)
    context["share"] = link
    return _private(render(request, "incidents/detail.html", context))


@login_not_required
@require_GET
def share_log_view(request: HttpRequest, secret: str) -> HttpResponse:
    found = _shared_incident(request, secret, record=True)
    if isinstance(found, HttpResponse):
        return _private(found)
    return _private(_log_page(request, found[0], share_links(secret), shared=True))


@login_not_required
@require_GET
def share_timeline_view(request: HttpRequest, secret: str) -> HttpResponse:
    found = _shared_incident(request, secret, record=False)
    if isinstance(found, HttpResponse):
        return _private(found)
    return _private(_timeline(found[0]))


@login_not_required
@require_GET
def share_trace_view(request: HttpRequest, secret: str) -> HttpResponse:
    found = _shared_incident(request, secret, record=False)
    if isinstance(found, HttpResponse):
        return _private(found)
    return _private(_trace(found[0]))


def _positive_int(value: str | None, default: int) -> int:
    try:
        number = int(value or "")
    except ValueError:
        return default
    return number if number > 0 else default
