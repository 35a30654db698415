from __future__ import annotations

from django.contrib import admin

from .models import Bundle, Incident


class BundleInline(admin.TabularInline[Bundle, Incident]):
    model = Bundle
    extra = 0
    fields = ("label", "original_name", "host", "size", "sha256", "created_at")
    readonly_fields = fields


@admin.register(Incident)
class IncidentAdmin(admin.ModelAdmin[Incident]):
    list_display = ("id", "title", "team", "job", "status", "cause", "created_at")
    list_filter = ("team", "status", "cause")
    search_fields = ("id", "title", "job", "summary")
    readonly_fields = ("id", "revision", "parse_started_at", "first_failure", "created_at", "updated_at")
    inlines = [BundleInline]
