from __future__ import annotations

from django.urls import path

from . import views

app_name = "web"

urlpatterns = [
    path("", views.incident_list_view, name="incident-list"),
    path("incidents.csv", views.incident_csv_view, name="incident-csv"),
    path("upload", views.upload_view, name="upload"),
    path("incidents/<str:incident_id>/", views.incident_detail_view, name="incident-detail"),
    path("incidents/<str:incident_id>/status.json", views.incident_status_view, name="incident-status"),
    path("incidents/<str:incident_id>/edit", views.incident_edit_view, name="incident-edit"),
    path("incidents/<str:incident_id>/workflow", views.incident_workflow_view, name="incident-workflow"),
    path("incidents/<str:incident_id>/comments", views.incident_comment_view, name="incident-comment"),
    path("incidents/<str:incident_id>/reparse", views.incident_reparse_view, name="incident-reparse"),
    path("incidents/<str:incident_id>/log", views.log_view, name="incident-log"),
    path("incidents/<str:incident_id>/timeline.json", views.incident_timeline_view, name="incident-timeline"),
    path("incidents/<str:incident_id>/trace.json", views.incident_trace_view, name="incident-trace"),
    path(
        "incidents/<str:incident_id>/bundles/<int:bundle_id>/download",
        views.bundle_download_view, name="bundle-download",
    ),
    path("incidents/<str:incident_id>/shares", views.share_create_view, name="share-create"),
    path("incidents/<str:incident_id>/shares/<str:share_id>/revoke", views.share_revoke_view, name="share-revoke"),
    # Share links: the secret is the whole credential (256 bits, only its hash is stored).
    path("s/<str:secret>/", views.share_detail_view, name="share-detail"),
    path("s/<str:secret>/log", views.share_log_view, name="share-log"),
    path("s/<str:secret>/timeline.json", views.share_timeline_view, name="share-timeline"),
    path("s/<str:secret>/trace.json", views.share_trace_view, name="share-trace"),
]
