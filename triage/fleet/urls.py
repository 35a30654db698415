from __future__ import annotations

from django.urls import path

from . import views

app_name = "fleet"

urlpatterns = [
    path("", views.fleet_view, name="fleet"),
    path("problems/<int:problem_id>/", views.problem_view, name="problem"),
    path("problems/<int:problem_id>/status", views.problem_status_view, name="problem-status"),
    path("hosts/<str:host>/", views.host_view, name="host"),
    path("hosts/<str:host>/gpus/<str:gpu>/", views.gpu_view, name="gpu"),
    path("webhooks", views.webhooks_view, name="webhooks"),
    path("webhooks/<int:webhook_id>/delete", views.webhook_delete_view, name="webhook-delete"),
]
