from __future__ import annotations

from django.contrib import admin

from .models import ApiToken


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ("name", "prefix", "created_at", "last_used_at", "revoked_at")
    readonly_fields = ("prefix", "token_hash", "created_at", "last_used_at")
