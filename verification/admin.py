"""The engine in the admin: tool profiles are editable; verifications are evidence, read-only."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from registry.admin import ReadOnlyAdmin

from .models import OperatorApiKey, RunVerification, ToolProfileRecord, ToolVerification
from .services.tools import operator_key_revoke_record, tool_profile_save, tool_profile_to_dict


@admin.register(ToolProfileRecord)
class ToolProfileAdmin(admin.ModelAdmin):
    list_display = [
        "tool_name",
        "has_network_io",
        "expected_latency_min_ms",
        "expected_latency_max_ms",
        "stake",
        "updated_at",
    ]
    search_fields = ["tool_name"]
    readonly_fields = ["updated_at", "updated_by"]

    def save_model(self, request: HttpRequest, obj: ToolProfileRecord, form: Any, change: bool) -> None:
        # Through the service, so the profile is validated by the engine and every process reloads it.
        data = tool_profile_to_dict(obj)
        data.pop("tool")
        data.pop("updatedAt")
        saved = tool_profile_save(tool_name=obj.tool_name, data=data, actor=request.user.get_username())
        obj.pk = saved.pk


@admin.register(ToolVerification)
class ToolVerificationAdmin(ReadOnlyAdmin):
    list_display = ["created_at", "tool", "verdict", "posterior", "confidence", "agent", "was_hallucination"]
    list_filter = ["verdict", "tool", "was_hallucination"]
    search_fields = ["tool", "public_id", "session_id"]
    date_hierarchy = "created_at"


@admin.register(OperatorApiKey)
class OperatorApiKeyAdmin(ReadOnlyAdmin):
    list_display = ["name", "prefix", "created_at", "last_used_at", "revoked_at"]
    list_filter = [("revoked_at", admin.EmptyFieldListFilter)]
    search_fields = ["name", "prefix"]
    actions = ["revoke_keys"]

    def has_revoke_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("verification.change_operatorapikey")

    @admin.action(description="Revoke selected keys", permissions=["revoke"])
    def revoke_keys(self, request: HttpRequest, queryset: QuerySet[OperatorApiKey]) -> None:
        revoked = 0
        for key in queryset.filter(revoked_at__isnull=True):
            operator_key_revoke_record(key=key, actor_label=request.user.get_username())
            self.log_change(request, key, "Revoked the key.")
            revoked += 1
        self.message_user(
            request, f"{revoked} operator key(s) revoked; they are refused from now on.", messages.SUCCESS
        )


@admin.register(RunVerification)
class RunVerificationAdmin(ReadOnlyAdmin):
    """Hallucination reports of agent runs, browsable by action and outcome."""

    list_display = [
        "created_at",
        "run_id",
        "source",
        "request_type",
        "action",
        "overall_score",
        "hallucination_detected",
        "agent",
    ]
    list_filter = ["action", "hallucination_detected", "request_type", "source"]
    search_fields = ["run_id", "agent__subject_id"]
    date_hierarchy = "created_at"
