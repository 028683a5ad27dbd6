"""The admin: audit providers (coverage, block rate, rubber stamps), suspend and reinstate them.

Summaries, outcomes, scores and configurations are evidence: read-only here.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db import models
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join

from common.errors import ApplicationError

from .models import (
    Agent,
    CheckOutcome,
    FeedbackEntry,
    Provider,
    ProviderApiKey,
    ProviderAuditEvent,
    RescoreJob,
    ScoringConfig,
    TrustScore,
    VerificationSummary,
)
from .selectors import CollusionSignals, ProviderAudit, provider_audit_stats, provider_collusion_signals
from .services.providers import api_key_revoke_record, provider_set_status, provider_stats_endpoint_check
from .services.rescore import RescoreProgress, rescore_progress
from .services.scoring import scoring_config_create


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class ReadOnlyInline(admin.TabularInline):
    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class ApiKeyInline(ReadOnlyInline):
    model = ProviderApiKey
    fields = ("prefix", "name", "created_at", "last_used_at", "revoked_at")
    readonly_fields = fields


class AuditEventInline(ReadOnlyInline):
    model = ProviderAuditEvent
    fields = ("at", "action", "actor_label", "reason")
    readonly_fields = fields


class ProviderStatusForm(forms.Form):
    to = forms.ChoiceField(
        label="New status",
        choices=[(Provider.Status.SUSPENDED, "suspended"), (Provider.Status.ACTIVE, "active")],
    )
    # Required: a suspension takes a provider's summaries out of every score, so the log says why.
    reason = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), max_length=1000, strip=True)


class ProviderAdminForm(forms.ModelForm):
    """The provider form; the stats endpoint is checked like everywhere else (no inside addresses).

    No Meta: the admin builds the form's Meta (model, fields) from ProviderAdmin.
    """

    stats_endpoint = forms.URLField(
        required=False, assume_scheme="https", help_text="Base URL serving GET /v1/stats/{agent_id} (https)"
    )

    def clean_stats_endpoint(self) -> str:
        url: str = self.cleaned_data.get("stats_endpoint") or ""
        try:
            provider_stats_endpoint_check(url=url)
        except ApplicationError as error:
            raise forms.ValidationError(error.errors[0].detail if error.errors else error.detail) from None
        return url


@admin.register(Provider)
class ProviderAdmin(admin.ModelAdmin):
    form = ProviderAdminForm
    # A URL typed without a scheme means https (Django 6.0's default; 5.2 warns unless told).
    formfield_overrides = {models.URLField: {"assume_scheme": "https"}}
    list_display = [
        "name",
        "slug",
        "status",
        "agents",
        "checks",
        "block_rate",
        "discriminative_power",
        "rubber_stamp",
        "audit_flags",
        "last_summary",
    ]
    list_filter = ["status"]
    search_fields = ["name", "slug", "signer_address"]
    readonly_fields = [
        "status",
        "status_actions",
        "status_changed_at",
        "created_at",
        "agents",
        "checks",
        "block_rate",
        "discriminative_power",
        "rubber_stamp",
        "audit_flags",
        "last_summary",
    ]
    inlines = [ApiKeyInline, AuditEventInline]
    _stats: dict[int, ProviderAudit]
    _collusion: dict[int, CollusionSignals]
    actions = ["suspend", "reinstate"]

    # The audit numbers are computed once per page for all rows (the admin instance is shared, so
    # each view starts from a clean cache).
    def change_view(
        self, request: HttpRequest, object_id: str, form_url: str = "", extra_context: Any = None
    ) -> Any:
        self._stats, self._collusion = {}, {}
        return super().change_view(request, object_id, form_url, extra_context)

    def changelist_view(self, request: HttpRequest, extra_context: dict[str, Any] | None = None) -> Any:
        self._stats, self._collusion = {}, {}
        response = super().changelist_view(request, extra_context)
        cl = getattr(response, "context_data", {}).get("cl")
        if cl is not None:
            ids = [p.pk for p in cl.result_list]
            self._stats = provider_audit_stats(provider_ids=ids)
            self._collusion = provider_collusion_signals(provider_ids=ids)
        return response

    def _audit(self, obj: Provider) -> ProviderAudit:
        stats = getattr(self, "_stats", None) or {}
        if obj.pk not in stats:
            stats.update(provider_audit_stats(provider_ids=[obj.pk]))
            self._stats = stats
        return stats[obj.pk]

    @admin.display(description="agents")
    def agents(self, obj: Provider) -> int:
        return self._audit(obj).agents

    @admin.display(description="checks contributed")
    def checks(self, obj: Provider) -> int:
        return self._audit(obj).checks

    @admin.display(description="block rate")
    def block_rate(self, obj: Provider) -> str:
        rate = self._audit(obj).block_rate
        return "–" if rate is None else f"{rate:.2%}"

    @admin.display(description="discriminative power")
    def discriminative_power(self, obj: Provider) -> str:
        dp = self._audit(obj).discriminative_power
        return "–" if dp is None else f"{dp:.2f}"

    @admin.display(description="rubber stamp?")
    def rubber_stamp(self, obj: Provider) -> str:
        if self._audit(obj).rubber_stamp:
            return format_html('<strong style="color:#b00">{}</strong>', "⚠ blocks almost nothing")
        return ""

    @admin.display(description="collusion / capture")
    def audit_flags(self, obj: Provider) -> str:
        if obj.pk is None:
            return ""
        cached = getattr(self, "_collusion", None) or {}
        if obj.pk not in cached:
            cached.update(provider_collusion_signals(provider_ids=[obj.pk]))
            self._collusion = cached
        signals = cached[obj.pk]
        if not signals.flags:
            return ""
        return format_html_join("", '<div style="color:#b00">⚠ {}</div>', ((flag,) for flag in signals.flags))

    @admin.display(description="last summary")
    def last_summary(self, obj: Provider) -> Any:
        return self._audit(obj).last_summary_at

    @admin.display(description="change status")
    def status_actions(self, obj: Provider) -> str:
        if obj.pk is None:
            return ""
        url = reverse("admin:registry_provider_status", args=[obj.pk])
        if obj.status == Provider.Status.SUSPENDED:
            return format_html('<a class="button" href="{}?to=active">Reinstate…</a>', url)
        return format_html('<a class="button" href="{}?to=suspended">Suspend…</a>', url)

    def get_urls(self) -> list[Any]:
        custom = [
            path(
                "<path:object_id>/status/",
                self.admin_site.admin_view(self.status_view),
                name="registry_provider_status",
            )
        ]
        return custom + super().get_urls()

    def status_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        """Suspend or reinstate one provider with a reason, which its audit log keeps."""
        provider = get_object_or_404(Provider, pk=object_id)
        if not self.has_change_permission(request, provider):
            raise PermissionDenied
        form = ProviderStatusForm(request.POST or None, initial={"to": request.GET.get("to")})
        if request.method == "POST" and form.is_valid():
            status = form.cleaned_data["to"]
            provider_set_status(
                provider=provider,
                status=status,
                actor=request.user,
                actor_label=request.user.get_username(),
                reason=form.cleaned_data["reason"],
            )
            self.message_user(
                request,
                f"{provider.name} is {status}; its agents are being rescored.",
                messages.SUCCESS,
            )
            return HttpResponseRedirect(reverse("admin:registry_provider_change", args=[provider.pk]))
        context = {
            **self.admin_site.each_context(request),
            "title": f"Change the status of {provider.name}",
            "opts": self.model._meta,
            "original": provider,
            "form": form,
        }
        return TemplateResponse(request, "admin/registry/provider/status.html", context)

    def _set_status(self, request: HttpRequest, queryset: QuerySet[Provider], status: str) -> None:
        user = request.user
        for provider in queryset:
            provider_set_status(
                provider=provider,
                status=status,
                actor=user,
                actor_label=user.get_username(),
                reason=f"{status} from the admin",
            )
        self.message_user(
            request,
            f"{queryset.count()} provider(s) {status}; their agents are being rescored.",
            messages.SUCCESS,
        )

    @admin.action(description="Suspend: their summaries leave every score")
    def suspend(self, request: HttpRequest, queryset: QuerySet[Provider]) -> None:
        self._set_status(request, queryset, Provider.Status.SUSPENDED)

    @admin.action(description="Reinstate")
    def reinstate(self, request: HttpRequest, queryset: QuerySet[Provider]) -> None:
        self._set_status(request, queryset, Provider.Status.ACTIVE)


@admin.register(ProviderApiKey)
class ProviderApiKeyAdmin(ReadOnlyAdmin):
    list_display = ["prefix", "provider", "name", "created_at", "last_used_at", "revoked_at"]
    list_filter = [("revoked_at", admin.EmptyFieldListFilter)]
    search_fields = ["prefix", "name", "provider__slug"]
    list_select_related = ["provider"]
    actions = ["revoke_keys"]

    def has_revoke_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("registry.change_providerapikey")

    @admin.action(description="Revoke selected keys", permissions=["revoke"])
    def revoke_keys(self, request: HttpRequest, queryset: QuerySet[ProviderApiKey]) -> None:
        revoked = 0
        for key in queryset.filter(revoked_at__isnull=True).select_related("provider"):
            # Recorded as the provider's audit event (who, when, which key) like every key change.
            api_key_revoke_record(key=key, actor=request.user, actor_label=request.user.get_username())
            revoked += 1
        self.message_user(
            request, f"{revoked} API key(s) revoked; they are refused from now on.", messages.SUCCESS
        )


@admin.register(Agent)
class AgentAdmin(admin.ModelAdmin):
    list_display = ["subject_id", "name", "registry", "protocol", "trust_score", "trust_score_updated_at"]
    list_filter = ["registry", "auto_registered"]
    search_fields = ["subject_id", "name", "owner_address"]
    readonly_fields = [
        "public_page",
        "latest_score",
        "trust_score",
        "confidence",
        "breakdown",
        "trust_score_updated_at",
        "created_at",
    ]

    @admin.display(description="confidence")
    def confidence(self, obj: Agent) -> str:
        score = obj.latest_score
        if score is None:
            return "–"
        return f"{score.trust_confidence}" if score.trust_confidence > 0 else "0 (not rated yet)"

    @admin.display(description="breakdown")
    def breakdown(self, obj: Agent) -> str:
        """The latest record's adapters and the providers it counted or left out, as on the public page."""
        score = obj.latest_score
        if score is None:
            return "–"
        record = score.record
        adapters = format_html_join(
            "",
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            (
                (
                    a.get("adapterId"),
                    a.get("weight"),
                    a.get("total"),
                    "yes" if a.get("inDenominator") else a.get("reason", "no"),
                )
                for a in record.get("breakdown", {}).get("adapters", [])
            ),
        )
        verification = record.get("provenance", {}).get("outputVerification", {})
        providers = format_html_join(
            "",
            "<tr><td>{}</td><td>{}</td><td>quality {}, power {}</td><td>counted</td></tr>",
            (
                (p.get("providerId"), p.get("weight"), p.get("quality"), p.get("discriminativePower"))
                for p in verification.get("providers", [])
            ),
        )
        excluded = format_html_join(
            "",
            "<tr><td>{}</td><td></td><td></td><td>left out: {}</td></tr>",
            ((e.get("providerId"), e.get("reason")) for e in verification.get("excluded", [])),
        )
        return format_html(
            "<table><tr><th>adapter / provider</th><th>weight</th><th>total</th><th>counted</th></tr>"
            "{}{}{}</table>",
            adapters,
            providers,
            excluded,
        )

    @admin.display(description="public page")
    def public_page(self, obj: Agent) -> str:
        if obj.pk is None:
            return ""
        url = reverse("agent-page", args=[obj.subject_id])
        return format_html('<a href="{}" target="_blank" rel="noopener">{}</a>', url, url)


@admin.register(VerificationSummary)
class VerificationSummaryAdmin(ReadOnlyAdmin):
    list_display = [
        "id",
        "provider",
        "agent",
        "source",
        "total_checks",
        "allow_rate",
        "block_rate",
        "avg_confidence",
        "window_end",
        "received_at",
    ]
    list_filter = ["source", "provider"]
    search_fields = ["agent__subject_id", "provider__slug"]
    date_hierarchy = "received_at"


@admin.register(CheckOutcome)
class CheckOutcomeAdmin(ReadOnlyAdmin):
    list_display = [
        "outcome_id",
        "provider",
        "agent",
        "verdict",
        "reported_verdict",
        "confidence",
        "stake",
        "checked_at",
    ]
    list_filter = ["verdict", "provider"]
    search_fields = ["outcome_id", "agent__subject_id"]


@admin.register(TrustScore)
class TrustScoreAdmin(ReadOnlyAdmin):
    list_display = ["agent", "trust_score", "trust_confidence", "config", "computed_at", "newest_input_at"]
    search_fields = ["agent__subject_id"]
    date_hierarchy = "computed_at"


@admin.register(ProviderAuditEvent)
class ProviderAuditEventAdmin(ReadOnlyAdmin):
    list_display = ["at", "provider", "action", "actor_label", "reason"]
    list_filter = ["action"]


@admin.register(FeedbackEntry)
class FeedbackEntryAdmin(ReadOnlyAdmin):
    list_display = [
        "agent",
        "client_address",
        "feedback_index",
        "value",
        "value_decimals",
        "tag1",
        "tag2",
        "revoked",
    ]
    list_filter = ["tag1", "revoked"]


@admin.register(ScoringConfig)
class ScoringConfigAdmin(admin.ModelAdmin):
    """New versions may be added; stored versions never change."""

    list_display = ["version", "digest", "note", "created_by", "created_at"]
    fields = ["params", "note"]

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def save_model(self, request: HttpRequest, obj: ScoringConfig, form: Any, change: bool) -> None:
        stored = scoring_config_create(
            params=obj.params, note=obj.note, created_by=request.user.get_username()
        )
        obj.pk = stored.pk
        obj._state.adding = False


# --- rescore jobs (registry/services/rescore.py) ---------------------------------------------------


@admin.register(RescoreJob)
class RescoreJobAdmin(ReadOnlyAdmin):
    """Full rescores (a provider suspended, a new configuration): progress and ETA read from the queue."""

    list_display = ["pk", "reason", "status", "progress", "eta", "requested_by", "created_at", "finished_at"]
    list_filter = ["status"]
    # Progress counts the queue once per unfinished job; a page shows few jobs.
    list_per_page = 20

    def _progress(self, obj: RescoreJob) -> RescoreProgress:
        # Both columns of a row share one count.
        state: RescoreProgress | None = getattr(obj, "_progress_read", None)
        if state is None:
            state = rescore_progress(job=obj)
            obj._progress_read = state  # type: ignore[attr-defined]
        return state

    def progress(self, obj: RescoreJob) -> str:
        state = self._progress(obj)
        share = f" ({100 * state.done / state.total:.1f} %)" if state.total else ""
        return f"{state.done:,} / {state.total:,}{share}"

    def eta(self, obj: RescoreJob) -> str:
        state = self._progress(obj)
        if state.finished:
            return "done"
        return state.eta.isoformat(timespec="seconds") if state.eta else "-"
