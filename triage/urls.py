from __future__ import annotations

from django.contrib import admin
from django.contrib.auth.decorators import login_not_required
from django.urls import include, path

from triage.accounts import oidc
from triage.accounts.views import RateLimitedLoginView, SignOutView
from triage.fleet import views as fleet_views

urlpatterns = [
    # Before Django's own: the same page, with failed sign-ins rate-limited.
    path("accounts/login/", RateLimitedLoginView.as_view(), name="login"),
    path("accounts/logout/", SignOutView.as_view(), name="logout"),
    # Sign-in with the identity provider (docs/sign-in.md): 404 while it is not configured.
    path("accounts/oidc/authenticate/", login_not_required(oidc.SignInView.as_view()), name="oidc-sign-in"),
    path("accounts/oidc/callback/", login_not_required(oidc.CallbackView.as_view()),
         name="oidc_authentication_callback"),
    path("accounts/", include("django.contrib.auth.urls")),
    path("admin/", admin.site.urls),
    path("api/v1/", include("triage.api.urls")),
    path("fleet/", include("triage.fleet.urls")),
    path("metrics", fleet_views.metrics_view, name="metrics"),
    path("", include("triage.web.urls")),
]
