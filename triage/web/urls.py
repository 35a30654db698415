from __future__ import annotations

from django.urls import path

from . import views

app_name = "web"

urlpatterns = [
    path("", views.incident_list_view, name="incident-list"),
    path("upload", views.upload_view, name="upload"),
    path("incidents/<str:incident_id>/", views.incident_detail_view, name="incident-detail"),
    path("incidents/<str:incident_id>/status.json", views.incident_status_view, name="incident-status"),
    path("incidents/<str:incident_id>/reparse", views.incident_reparse_view, name="incident-reparse"),
    path("incidents/<str:incident_id>/log", views.log_view, name="incident-log"),
    path("incidents/<str:incident_id>/timeline.json", views.incident_timeline_view, name="incident-timeline"),
    path("incidents/<str:incident_id>/trace.json", views.incident_trace_view, name="incident-trace"),
    path(
        "incidents/<str:incident_id>/bundles/<int:bundle_id>/download",
        views.bundle_download_view, name="bundle-download",
    ),
]
