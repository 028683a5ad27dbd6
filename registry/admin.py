"""The admin: audit providers (coverage, block rate, rubber stamps), suspend and reinstate them.

Summaries, outcomes, scores and configurations are evidence: read-only here.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db import models, transaction
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.timesince import timesince

from adapters import ScoringParams
from adapters.graph import GraphError
from common.admin import LargeTableAdmin, ReadOnlyAdmin, ReadOnlyInline
from common.errors import ApplicationError

from .models import (
    Agent,
    CheckOutcome,
    FeedbackEntry,
    Provider,
    ProviderApiKey,
    ProviderAuditEvent,
    ProviderAuditSnapshot,
    ProviderAuditStats,
    RescoreJob,
    ScoringConfig,
    TrustScore,
    VerificationSummary,
)
from .selectors import (
    FULL_POWER_BLOCK_RATE,
    LENIENCY_DELTA,
    OWNER_CONCENTRATION_FLAG,
    CollusionSignals,
    ProviderAudit,
    provider_audit_history,
    provider_audit_of,
    provider_signals_of,
)
from .services.providers import api_key_revoke_record, provider_endpoint_check, provider_set_status
from .services.rescore import RescoreProgress, rescore_progress
from .services.scoring import scoring_config_create
from .tasks import refresh_provider_audit

# The block-rate chart's drawing area in SVG user units (the public score chart's proportions).
CHART_WIDTH = 600
CHART_HEIGHT = 160
CHART_PAD = 24


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
    check_endpoint = forms.URLField(
        required=False,
        assume_scheme="https",
        help_text="URL answering POST {messages, tools} with {verdict, confidence}: canary cases (https)",
    )

    def _endpoint(self, name: str, field: str) -> str:
        url: str = self.cleaned_data.get(name) or ""
        try:
            provider_endpoint_check(url=url, field=field)
        except ApplicationError as error:
            raise forms.ValidationError(error.errors[0].detail if error.errors else error.detail) from None
        return url

    def clean_stats_endpoint(self) -> str:
        return self._endpoint("stats_endpoint", "statsEndpoint")

    def clean_check_endpoint(self) -> str:
        return self._endpoint("check_endpoint", "checkEndpoint")


def block_rate_chart(snapshots: list[ProviderAuditSnapshot]) -> str:
    """The block rate of each audit snapshot (oldest first) as an inline SVG line; "" if under two.

    Drawn on the server like the public agent page's score chart: no script, no CDN. The y axis runs
    from 0 to the larger of the highest rate and twice full discriminative power, so a rubber stamp
    hugs the bottom line.
    """
    points = [s for s in snapshots if s.block_rate is not None]
    if len(points) < 2:
        return ""
    width, height, pad = CHART_WIDTH, CHART_HEIGHT, CHART_PAD
    top = max(2 * FULL_POWER_BLOCK_RATE, max(float(s.block_rate or 0) for s in points))
    first, last = points[0].computed_at, points[-1].computed_at
    span = (last - first).total_seconds() or 1.0
    inner_w, inner_h = width - 2 * pad, height - 2 * pad
    coords = [
        (
            round(pad + inner_w * (s.computed_at - first).total_seconds() / span, 1),
            round(pad + inner_h * (1 - float(s.block_rate or 0) / top), 1),
            s,
        )
        for s in points
    ]
    dots = format_html_join(
        "",
        '<circle cx="{}" cy="{}" r="2.5" fill="#4f46e5"><title>{} on {} UTC ({} checks)</title></circle>',
        (
            (x, y, f"{float(s.block_rate or 0):.2%}", s.computed_at.strftime("%Y-%m-%d %H:%M"), s.checks)
            for x, y, s in coords
        ),
    )
    return format_html(
        '<svg viewBox="0 0 {w} {h}" width="{w}" height="{h}" role="img" '
        'aria-label="Block rate over time, 0 to {top}">'
        '<line x1="{p}" y1="{p}" x2="{r}" y2="{p}" stroke="#e3e6ec"/>'
        '<line x1="{p}" y1="{b}" x2="{r}" y2="{b}" stroke="#e3e6ec"/>'
        '<text x="2" y="{ty}" font-size="11" fill="#6b7280">{top}</text>'
        '<text x="2" y="{by}" font-size="11" fill="#6b7280">0%</text>'
        '<polyline points="{points}" fill="none" stroke="#4f46e5" stroke-width="2"/>{dots}</svg>',
        w=width,
        h=height,
        p=pad,
        r=width - pad,
        b=height - pad,
        ty=pad + 4,
        by=height - pad + 4,
        top=f"{top:.0%}",
        points=" ".join(f"{x},{y}" for x, y, _ in coords),
        dots=dots,
    )


def short_flag_labels(signals: CollusionSignals) -> list[str]:
    """One or two words per flag of `signals.flags`, in the same order (the list's narrow column)."""
    labels = []
    if signals.owner_concentration is not None and signals.owner_concentration >= OWNER_CONCENTRATION_FLAG:
        labels.append(f"capture {signals.owner_concentration:.0%}")
    labels.extend(f"copies {slug}" for slug, _, _ in signals.copies)
    if signals.leniency is not None and signals.leniency >= LENIENCY_DELTA:
        labels.append(f"lenient +{signals.leniency:.0%}")
    return labels


@admin.register(Provider)
class ProviderAdmin(admin.ModelAdmin):
    """Providers with their stored audit numbers (ProviderAuditStats; "Refresh now" recomputes them).

    The changelist reads one joined row per provider: a constant number of queries whatever the
    number of agents and summaries. Column headers are short so the list fits 1400 px.
    """

    form = ProviderAdminForm
    # A URL typed without a scheme means https (Django 6.0's default; 5.2 warns unless told).
    formfield_overrides = {models.URLField: {"assume_scheme": "https"}}
    # The slug names and links the provider (the name is on its page): every column counts at 1400 px.
    list_display = [
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
    list_display_links = ["slug"]
    list_filter = ["status"]
    search_fields = ["name", "slug", "signer_address"]
    # The provider's own agent identity: an id box, not a <select> of every agent (a million options).
    raw_id_fields = ["agent"]
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
        "collusion_signals",
        "last_summary",
        "audit_computed_at",
        "block_rate_over_time",
        "canary_accuracy",
    ]
    inlines = [ApiKeyInline, AuditEventInline]
    actions = ["suspend", "reinstate"]
    change_list_template = "admin/registry/provider/change_list.html"

    def get_queryset(self, request: HttpRequest) -> QuerySet[Provider]:
        return super().get_queryset(request).select_related("audit_stats", "accuracy")

    def changelist_view(self, request: HttpRequest, extra_context: dict[str, Any] | None = None) -> Any:
        newest = ProviderAuditStats.objects.order_by("-computed_at").values_list("computed_at", flat=True)
        context = {"audit_computed_at": newest.first(), **(extra_context or {})}
        return super().changelist_view(request, context)

    def _stored(self, obj: Provider) -> ProviderAuditStats | None:
        # A missing reverse one-to-one raises RelatedObjectDoesNotExist, an AttributeError.
        return getattr(obj, "audit_stats", None) if obj.pk is not None else None

    def _audit(self, obj: Provider) -> ProviderAudit:
        return provider_audit_of(self._stored(obj))

    @admin.display(description="agents")
    def agents(self, obj: Provider) -> int:
        return self._audit(obj).agents

    @admin.display(description="checks")
    def checks(self, obj: Provider) -> int:
        return self._audit(obj).checks

    @admin.display(description="block")
    def block_rate(self, obj: Provider) -> str:
        rate = self._audit(obj).block_rate
        return "–" if rate is None else f"{rate:.2%}"

    @admin.display(description="power")
    def discriminative_power(self, obj: Provider) -> str:
        dp = self._audit(obj).discriminative_power
        return "–" if dp is None else f"{dp:.2f}"

    @admin.display(description="accuracy on canary cases")
    def canary_accuracy(self, obj: Provider) -> str:
        accuracy = getattr(obj, "accuracy", None) if obj.pk is not None else None
        return "no canary cases yet" if accuracy is None else accuracy.summary()

    @admin.display(description="stamp?")
    def rubber_stamp(self, obj: Provider) -> str:
        if self._audit(obj).rubber_stamp:
            return format_html(
                '<strong style="color:#b00;display:inline-block;max-width:7em">{}</strong>',
                "⚠ blocks almost nothing",
            )
        return ""

    @admin.display(description="collusion / capture")
    def audit_flags(self, obj: Provider) -> str:
        signals = provider_signals_of(self._stored(obj))
        if not signals.flags:
            return ""
        # The list shows one short label per flag (the sentence is its tooltip and on the change
        # page), so the column stays narrow enough for the list to fit 1400 px.
        labels = short_flag_labels(signals)
        return format_html_join(
            "",
            '<div style="color:#b00;white-space:nowrap" title="{}">⚠ {}</div>',
            ((full, short) for short, full in zip(labels, signals.flags, strict=True)),
        )

    @admin.display(description="collusion / capture")
    def collusion_signals(self, obj: Provider) -> str:
        """The change page's version of audit_flags: each flag as a sentence naming its evidence."""
        flags = provider_signals_of(self._stored(obj)).flags
        if not flags:
            return "none"
        return format_html_join("", '<div style="color:#b00">⚠ {}</div>', ((f,) for f in flags))

    @admin.display(description="latest")
    def last_summary(self, obj: Provider) -> str:
        at = self._audit(obj).last_summary_at
        if at is None:
            return "–"
        local = timezone.localtime(at)
        # Date over time: two short lines instead of one wide one.
        return format_html(
            '<time datetime="{}">{}<br>{}</time>', at.isoformat(), f"{local:%Y-%m-%d}", f"{local:%H:%M}"
        )

    @admin.display(description="audit computed")
    def audit_computed_at(self, obj: Provider) -> str:
        at = self._audit(obj).computed_at
        if at is None:
            return "never: press “Refresh audit numbers” on the provider list"
        return format_html(
            '<time datetime="{}">{}</time> ({} ago)',
            at.isoformat(),
            timezone.localtime(at).strftime("%Y-%m-%d %H:%M:%S"),
            timesince(at),
        )

    @admin.display(description="block rate over time")
    def block_rate_over_time(self, obj: Provider) -> str:
        if obj.pk is None:
            return ""
        chart = block_rate_chart(provider_audit_history(provider_id=obj.pk))
        return chart or "Fewer than two audit snapshots with checks so far."

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
            ),
            path(
                "refresh-audit/",
                self.admin_site.admin_view(self.refresh_audit_view),
                name="registry_provider_refresh_audit",
            ),
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

    def refresh_audit_view(self, request: HttpRequest) -> HttpResponse:
        """POST: queue a refresh of every provider's audit numbers (a few seconds at a million agents)."""
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        if not self.has_change_permission(request):
            raise PermissionDenied
        transaction.on_commit(refresh_provider_audit.delay)
        self.message_user(
            request, "The audit numbers are being recomputed; reload in a moment.", messages.SUCCESS
        )
        return HttpResponseRedirect(reverse("admin:registry_provider_changelist"))

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
class AgentAdmin(LargeTableAdmin):
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
    list_filter = ["source", "provider", ("received_at", admin.DateFieldListFilter)]
    search_fields = ["agent__subject_id", "provider__slug"]
    # Newest first by the primary key: the model's (window_end, id) order has no index of its own and
    # would sort every summary per page. A date hierarchy would scan them all for its year links.
    ordering = ["-id"]


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
    ordering = ["-id"]


@admin.register(TrustScore)
class TrustScoreAdmin(ReadOnlyAdmin):
    list_display = ["agent", "trust_score", "trust_confidence", "config", "computed_at", "newest_input_at"]
    search_fields = ["agent__subject_id"]
    list_filter = [("computed_at", admin.DateFieldListFilter)]
    ordering = ["-id"]


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


class ScoringConfigAdminForm(forms.ModelForm):
    class Meta:
        model = ScoringConfig
        fields = ["params", "note"]

    def clean_params(self) -> Any:
        # The same checks as the service (composition graph included), shown on the field
        # instead of failing the save.
        params = self.cleaned_data["params"]
        try:
            ScoringParams.from_dict(params)
        except GraphError as error:
            raise forms.ValidationError(f"{error.pointer}: {error.detail}") from None
        except ValueError as error:
            raise forms.ValidationError(str(error)) from None
        return params


@admin.register(ScoringConfig)
class ScoringConfigAdmin(admin.ModelAdmin):
    """New versions may be added; stored versions never change."""

    form = ScoringConfigAdminForm
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
