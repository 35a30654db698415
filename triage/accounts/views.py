from __future__ import annotations

from typing import Any

from django.contrib.auth.views import LoginView
from django.http import HttpResponse

from .forms import RateLimitedAuthenticationForm


class RateLimitedLoginView(LoginView):
    authentication_form = RateLimitedAuthenticationForm

    def form_invalid(self, form: Any) -> HttpResponse:
        response = super().form_invalid(form)
        if getattr(form, "rate_limited", False):
            response.status_code = 429
        return response
