"""The engine in the admin: tool profiles are editable; verifications are evidence, read-only."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils import timezone

from common.admin import ReadOnlyAdmin

from .models import (
    Operator,
    OperatorAgentLink,
    OperatorApiKey,
    RunVerification,
    ShadowCount,
    ToolProfileRecord,
    ToolVerification,
)
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
        if "created_by" in form.changed_data:
            # Admins hand a profile to an operator (or take it back, leaving it admin-only).
            ToolProfileRecord.objects.filter(pk=saved.pk).update(created_by=obj.created_by)
        obj.pk = saved.pk


@admin.register(ToolVerification)
class ToolVerificationAdmin(ReadOnlyAdmin):
    list_display = ["created_at", "tool", "verdict", "posterior", "confidence", "agent", "was_hallucination"]
    list_filter = ["verdict", "tool", "was_hallucination", "shadow"]
    search_fields = ["tool", "public_id", "session_id"]
    date_hierarchy = "created_at"


@admin.register(OperatorApiKey)
class OperatorApiKeyAdmin(ReadOnlyAdmin):
    list_display = ["name", "prefix", "owner", "created_at", "last_used_at", "revoked_at"]
    list_filter = [("revoked_at", admin.EmptyFieldListFilter)]
    search_fields = ["name", "prefix", "owner__name"]
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
    list_filter = ["action", "hallucination_detected", "request_type", "source", "shadow"]
    search_fields = ["run_id", "agent__subject_id"]
    date_hierarchy = "created_at"


@admin.register(ShadowCount)
class ShadowCountAdmin(ReadOnlyAdmin):
    """Shadow mode: verifications per operator, day and endpoint, and what enforcing would have done."""

    list_display = ["day", "operator", "endpoint", "checks", "would_block", "would_warn"]
    list_filter = ["endpoint", "day"]
    search_fields = ["operator__name"]
    date_hierarchy = "day"


# --- operators and their links to agents (the authorization model; docs/security.md) --------------


class OperatorAgentLinkInline(admin.TabularInline):
    model = OperatorAgentLink
    fk_name = "operator"
    extra = 0
    can_delete = False
    fields = ("agent", "granted_by", "granted_at", "revoked_at", "reason")
    readonly_fields = ("granted_by", "granted_at")
    autocomplete_fields = ("agent",)


@admin.register(Operator)
class OperatorAdmin(admin.ModelAdmin):
    list_display = ["name", "status", "wallet_address", "wallet_verified_at", "created_at"]
    list_filter = ["status"]
    search_fields = ["name", "wallet_address"]
    # The wallet is set only by a signed challenge (operator_wallet_prove), never typed in.
    readonly_fields = [
        "wallet_address",
        "wallet_verified_at",
        "wallet_challenge",
        "wallet_challenge_expires_at",
        "status_changed_at",
        "created_at",
    ]
    fields = ["name", "status", *readonly_fields]
    inlines = [OperatorAgentLinkInline]

    def save_model(self, request: HttpRequest, obj: Operator, form: Any, change: bool) -> None:
        if "status" in form.changed_data:
            obj.status_changed_at = timezone.now()
        super().save_model(request, obj, form, change)

    def save_formset(self, request: HttpRequest, form: Any, formset: Any, change: bool) -> None:
        # Links added here are granted by the admin who saved them.
        for link in formset.save(commit=False):
            if not link.granted_by:
                link.granted_by = f"admin:{request.user.get_username()}"
            link.save()
        formset.save_m2m()


@admin.register(OperatorAgentLink)
class OperatorAgentLinkAdmin(admin.ModelAdmin):
    list_display = ["operator", "agent", "granted_by", "granted_at", "revoked_at"]
    list_filter = ["revoked_at"]
    search_fields = ["operator__name", "agent__subject_id"]
    autocomplete_fields = ["agent"]
    readonly_fields = ["granted_by", "granted_at"]
    actions = ["revoke_links"]

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # revoke instead: the link's history explains past scores

    def save_model(self, request: HttpRequest, obj: OperatorAgentLink, form: Any, change: bool) -> None:
        if not obj.granted_by:
            obj.granted_by = f"admin:{request.user.get_username()}"
        super().save_model(request, obj, form, change)

    @admin.action(description="Revoke the selected links")
    def revoke_links(self, request: HttpRequest, queryset: Any) -> None:
        ended = queryset.filter(revoked_at__isnull=True).update(revoked_at=timezone.now())
        self.message_user(request, f"Revoked {ended} link(s).")
