"""Fleet pages (problems, hosts, GPUs, the fleet overview, webhooks), the host API and /metrics.
Thin: selectors read, services write; everything is scoped to the person's or token's team."""
from __future__ import annotations

import ipaddress
from typing import Any

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_not_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from triage.accounts.models import Role, Team
from triage.accounts.selectors import team_ids_for, user_can
from triage.accounts.services import apitoken_authenticate
from triage.api.auth import api_error, token_required

from . import selectors, services
from .models import Event, Webhook

HOST_MAX = 200


def _teams(request: HttpRequest, role: str = Role.VIEWER) -> list[int]:
    return team_ids_for(user=request.user, role=role)


def _host_or_404(host: str) -> str:
    host = host.strip()
    if not host or len(host) > HOST_MAX:
        raise Http404("no such host")
    return host


@require_GET
def fleet_view(request: HttpRequest) -> HttpResponse:
    overview = selectors.fleet_overview(team_ids=_teams(request))
    return render(request, "fleet/fleet.html", {"o": overview})


@require_GET
def problem_view(request: HttpRequest, problem_id: int) -> HttpResponse:
    problem = selectors.problem_get(team_ids=_teams(request), problem_id=problem_id)
    if problem is None:
        raise Http404("no such problem")
    return render(request, "fleet/problem.html", {
        "problem": problem,
        "occurrences": selectors.problem_occurrences(problem=problem),
        "flags": selectors.problem_wander_flags(problem=problem),
        "resolution": selectors.problem_resolution(problem=problem),
        "drain": selectors.host_drain(team_id=problem.team_id, host=problem.host) if problem.host else None,
        "can_write": user_can(user=request.user, team_id=problem.team_id, role=Role.MEMBER),
    })


@require_POST
def problem_status_view(request: HttpRequest, problem_id: int) -> HttpResponse:
    problem = selectors.problem_get(team_ids=_teams(request, Role.MEMBER), problem_id=problem_id)
    if problem is None:
        raise Http404("no such problem")
    if request.POST.get("action") == "reopen":
        services.problem_reopen(problem=problem)
        messages.info(request, "The problem is open again.")
    else:
        services.problem_resolve(problem=problem)
        messages.info(request, "Resolved. The next incident with this fingerprint reopens it as a regression.")
    return redirect("fleet:problem", problem.pk)


@require_GET
def host_view(request: HttpRequest, host: str) -> HttpResponse:
    detail = selectors.host_detail(team_ids=_teams(request), host=_host_or_404(host))
    if not detail["occurrences"] and not detail["gpus"] and not detail["health"]:
        raise Http404("no incident of your teams names this host")
    return render(request, "fleet/host.html", {"d": detail})


@require_GET
def gpu_view(request: HttpRequest, host: str, gpu: str) -> HttpResponse:
    teams, host = _teams(request), _host_or_404(host)
    detail = selectors.gpu_detail(team_ids=teams, host=host, gpu=gpu[:120])
    if not detail["occurrences"] and not detail["records"]:
        canonical = selectors.gpu_canonical(team_ids=teams, host=host, gpu=gpu[:120])
        if canonical and canonical != gpu:
            return redirect("fleet:gpu", host, canonical)
        raise Http404("no incident of your teams names this GPU")
    return render(request, "fleet/gpu.html", {"d": detail})


# --- Webhooks settings page -------------------------------------------------------------------

class WebhookForm(forms.Form):
    team = forms.ModelChoiceField(queryset=Team.objects.none(), empty_label=None)
    url = forms.URLField(max_length=500, assume_scheme="https")
    format = forms.ChoiceField(choices=Webhook.Format.choices)
    events = forms.MultipleChoiceField(choices=Event.choices, required=False, widget=forms.CheckboxSelectMultiple,
                                       help_text="None ticked: every event.")
    # Never rendered back into the page (a form shown again after an error has it empty).
    secret = forms.CharField(max_length=200, required=False, widget=forms.PasswordInput(render_value=False),
                             help_text="Empty: a random one is made and shown once.")

    def __init__(self, *args: Any, teams: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        team_field = self.fields["team"]
        assert isinstance(team_field, forms.ModelChoiceField)
        team_field.queryset = teams


@never_cache  # it may show a new secret
@require_http_methods(["GET", "POST"])
def webhooks_view(request: HttpRequest) -> HttpResponse:
    admin_teams = Team.objects.filter(pk__in=_teams(request, Role.ADMIN))
    form = WebhookForm(request.POST or None, teams=admin_teams)
    if request.method == "POST":
        if not admin_teams.exists():
            raise PermissionDenied("managing webhooks needs the admin role in a team")
        if form.is_valid():
            try:
                webhook = services.webhook_add(
                    team=form.cleaned_data["team"], url=form.cleaned_data["url"], secret=form.cleaned_data["secret"],
                    events=form.cleaned_data["events"], format=form.cleaned_data["format"],
                )
            except ValueError as e:
                form.add_error(None, str(e))
            else:
                messages.info(request, "Webhook added.")
                if not form.cleaned_data["secret"]:
                    # Shown on the next page only: kept in the (server-side) session, not in a
                    # message cookie, and removed from it as it is shown.
                    request.session[NEW_SECRET_KEY] = {"id": webhook.pk, "secret": webhook.secret}
                return redirect("fleet:webhooks")
    teams = _teams(request)
    admin_team_ids = list(admin_teams.values_list("pk", flat=True))
    webhooks = selectors.webhooks_of(team_ids=teams)
    deliveries = selectors.deliveries_of(team_ids=teams)
    # A webhook URL is often its own credential (Slack): only the team's admins see it whole;
    # likewise the receiver's answers (status codes, errors) are for admins only.
    for w in webhooks:
        w.shown_url = w.url if w.team_id in admin_team_ids else mask_url(w.url)  # type: ignore[attr-defined]
    for d in deliveries:
        d.is_admin = d.webhook.team_id in admin_team_ids  # type: ignore[attr-defined]
        d.shown_url = d.webhook.url if d.is_admin else mask_url(d.webhook.url)  # type: ignore[attr-defined]
    new_secret = request.session.pop(NEW_SECRET_KEY, None) if request.method == "GET" else None
    return render(request, "fleet/webhooks.html", {
        "form": form, "can_admin": admin_teams.exists(),
        "webhooks": webhooks, "deliveries": deliveries, "admin_team_ids": admin_team_ids,
        "new_secret": new_secret,
    }, status=400 if request.method == "POST" else 200)


NEW_SECRET_KEY = "webhook-new-secret"


def mask_url(url: str) -> str:
    """The URL's scheme and host only: its path and query are often the credential."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
    except ValueError:
        return "…"
    return f"{parts.scheme}://{host}/…"


@require_POST
def webhook_delete_view(request: HttpRequest, webhook_id: int) -> HttpResponse:
    webhook = Webhook.objects.filter(pk=webhook_id, team_id__in=_teams(request, Role.ADMIN)).first()
    if webhook is None:
        raise Http404("no such webhook")
    services.webhook_remove(webhook=webhook)
    messages.info(request, "Webhook removed.")
    return redirect("fleet:webhooks")


# --- API and metrics ------------------------------------------------------------------------

@never_cache
@require_GET
@token_required("read")
def host_api(request: HttpRequest, host: str) -> HttpResponse:
    host = host.strip()
    if not host or len(host) > HOST_MAX:
        return api_error(400, f"a host name is 1 to {HOST_MAX} characters")
    return JsonResponse(selectors.host_summary(team_id=request.api_token.team_id, host=host))  # type: ignore[attr-defined]


def _address_allowed(address: str) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    for entry in settings.TRIAGE_METRICS_ALLOW:
        try:
            if ip in ipaddress.ip_network(entry, strict=False):
                return True
        except ValueError:
            continue
    return False


@never_cache
@login_not_required
@require_GET
def metrics_view(request: HttpRequest) -> HttpResponse:
    """Prometheus text format: every team from an allowed address, a token's own team otherwise."""
    from .metrics import render_metrics

    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        row = apitoken_authenticate(token=token.strip())
        if row is None or not row.can_read:
            return api_error(401 if row is None else 403, "a valid API token with the read scope is required")
        team_ids: list[int] | None = [row.team_id]
    elif _address_allowed(request.META.get("REMOTE_ADDR", "")):
        team_ids = None
    else:
        return api_error(401, "metrics need an API token (Authorization: Bearer) or an address in "
                              "TRIAGE_METRICS_ALLOW", WWW_Authenticate='Bearer realm="nccl-triage"')
    body, content_type = render_metrics(team_ids=team_ids)
    return HttpResponse(body, content_type=content_type)
