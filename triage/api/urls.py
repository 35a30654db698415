from __future__ import annotations

from django.urls import path

from triage.fleet import views as fleet_views

from . import views

app_name = "api"

urlpatterns = [
    path("bundles", views.bundle_upload, name="bundle-upload"),
    path("incidents", views.incident_list_api, name="incident-list"),
    path("incidents/<str:incident_id>", views.incident_detail, name="incident-detail"),
    path("hosts/<str:host>", fleet_views.host_api, name="host-detail"),
    path("incidents/<str:incident_id>/share", views.share_create, name="share-create"),
    path("incidents/<str:incident_id>/share/<str:share_id>", views.share_detail, name="share-detail"),
]
