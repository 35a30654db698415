from __future__ import annotations

from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("accounts/", include("django.contrib.auth.urls")),
    path("admin/", admin.site.urls),
    path("api/v1/", include("triage.api.urls")),
    path("", include("triage.web.urls")),
]
