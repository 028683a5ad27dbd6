"""Every canary case sent, for the auditor: what was asked, what the provider answered, and when."""

from __future__ import annotations

from django.contrib import admin

from common.admin import ReadOnlyAdmin

from .models import CanaryCase


@admin.register(CanaryCase)
class CanaryCaseAdmin(ReadOnlyAdmin):
    list_display = ["id", "provider", "domain", "label", "status", "verdict", "confidence"]
    list_filter = ["label", "status", "verdict", "domain"]
    search_fields = ["provider__slug", "digest"]
    list_select_related = ["provider"]
    readonly_fields = [
        "provider",
        "kind",
        "domain",
        "label",
        "edit",
        "digest",
        "body",
        "status",
        "verdict",
        "confidence",
        "error",
        "latency_ms",
        "sent_at",
        "answered_at",
    ]
