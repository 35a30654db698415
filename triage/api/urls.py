from __future__ import annotations

from django.urls import path

from . import views

app_name = "api"

urlpatterns = [
    path("bundles", views.bundle_upload, name="bundle-upload"),
    path("incidents/<str:incident_id>", views.incident_detail, name="incident-detail"),
]
