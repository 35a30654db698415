from __future__ import annotations

from typing import Any

from django.contrib.auth import BACKEND_SESSION_KEY
from django.contrib.auth.views import LoginView, LogoutView
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect

from . import oidc
from .forms import RateLimitedAuthenticationForm

OIDC_BACKEND = f"{oidc.ProviderBackend.__module__}.{oidc.ProviderBackend.__qualname__}"


class RateLimitedLoginView(LoginView):
    """The local form, and beside it "Sign in with <provider>" where one is configured."""

    authentication_form = RateLimitedAuthenticationForm

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        context["oidc_name"] = oidc.provider_name() if oidc.enabled() else ""
        return context

    def form_invalid(self, form: Any) -> HttpResponse:
        response = super().form_invalid(form)
        if getattr(form, "rate_limited", False):
            response.status_code = 429
        return response


class SignOutView(LogoutView):
    """Django's sign-out; a person who came through the provider is then sent to its
    end-session endpoint, so the next "Sign in with" asks for their password again."""

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        through_provider = request.session.get(BACKEND_SESSION_KEY) == OIDC_BACKEND
        id_token = str(request.session.get("oidc_id_token") or "") if through_provider else ""
        response = super().post(request, *args, **kwargs)
        provider_url = oidc.provider_logout_url(request, id_token)
        return HttpResponseRedirect(provider_url) if provider_url else response
