from __future__ import annotations

from django.contrib import admin
from django.urls import include, path

from triage.accounts.views import RateLimitedLoginView

urlpatterns = [
    # Before Django's own: the same page, with failed sign-ins rate-limited.
    path("accounts/login/", RateLimitedLoginView.as_view(), name="login"),
    path("accounts/", include("django.contrib.auth.urls")),
    path("admin/", admin.site.urls),
    path("api/v1/", include("triage.api.urls")),
    path("", include("triage.web.urls")),
]
