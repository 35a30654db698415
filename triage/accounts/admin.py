from __future__ import annotations

from django.contrib import admin

from .models import ApiToken, ExternalIdentity, Membership, ShareAccess, ShareLink, Team


class MembershipInline(admin.TabularInline[Membership, Team]):
    model = Membership
    extra = 0


@admin.register(Team)
class TeamAdmin(admin.ModelAdmin[Team]):
    list_display = ("name", "created_at")
    inlines = [MembershipInline]


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin[ApiToken]):
    list_display = ("name", "team", "scope", "prefix", "created_at", "last_used_at", "revoked_at")
    list_filter = ("team", "scope")
    readonly_fields = ("prefix", "token_hash", "created_at", "last_used_at")


@admin.register(ShareLink)
class ShareLinkAdmin(admin.ModelAdmin[ShareLink]):
    list_display = ("id", "incident", "prefix", "created_at", "expires_at", "revoked_at", "access_count")
    readonly_fields = ("id", "incident", "token_hash", "prefix", "created_at", "access_count", "last_accessed_at")


@admin.register(ShareAccess)
class ShareAccessAdmin(admin.ModelAdmin[ShareAccess]):
    list_display = ("link", "at", "ip", "user", "path")
    readonly_fields = ("link", "at", "ip", "user", "path", "user_agent")


@admin.register(ExternalIdentity)
class ExternalIdentityAdmin(admin.ModelAdmin[ExternalIdentity]):
    list_display = ("user", "issuer", "subject", "last_login_at")
    readonly_fields = ("user", "issuer", "subject", "created_at", "last_login_at", "groups")
