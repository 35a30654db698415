from __future__ import annotations

from django.contrib import admin
from django.urls import include, path

from triage.accounts.views import RateLimitedLoginView
from triage.fleet import views as fleet_views

urlpatterns = [
    # Before Django's own: the same page, with failed sign-ins rate-limited.
    path("accounts/login/", RateLimitedLoginView.as_view(), name="login"),
    path("accounts/", include("django.contrib.auth.urls")),
    path("admin/", admin.site.urls),
    path("api/v1/", include("triage.api.urls")),
    path("fleet/", include("triage.fleet.urls")),
    path("metrics", fleet_views.metrics_view, name="metrics"),
    path("", include("triage.web.urls")),
]
