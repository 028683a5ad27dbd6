"""A provider's error rates on the canary cases of the last CANARY_WINDOW_DAYS, counted in SQL."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db.models import Count, Max, Q
from django.utils import timezone

from adapters.intervals import wilson_interval
from registry.models import Provider, ProviderAccuracy, VerificationSummary
from registry.services.recompute import recompute_mark
from registry.services.scoring import accuracy_counts, scoring_config_current, scoring_params

from ..models import CanaryCase

_ANSWERED = Q(status=CanaryCase.Status.ANSWERED)
_FAITHFUL = Q(label=CanaryCase.Label.FAITHFUL)
_FABRICATED = Q(label=CanaryCase.Label.FABRICATED)


def provider_accuracy_refresh(*, provider: Provider, window_days: int | None = None) -> ProviderAccuracy:
    """Count the window's cases and store the rates with their 95 % Wilson intervals.

    False-positive rate = faithful cases BLOCKed / faithful cases answered ALLOW or BLOCK;
    false-negative rate = fabricated cases ALLOWed / fabricated cases answered ALLOW or BLOCK.
    """
    days = settings.CANARY_WINDOW_DAYS if window_days is None else window_days
    now = timezone.now()
    decisive = _ANSWERED & Q(verdict__in=["ALLOW", "BLOCK"])
    counts = CanaryCase.objects.filter(provider=provider, sent_at__gte=now - timedelta(days=days)).aggregate(
        cases=Count("pk"),
        faithful=Count("pk", filter=decisive & _FAITHFUL),
        fabricated=Count("pk", filter=decisive & _FABRICATED),
        false_positives=Count("pk", filter=_ANSWERED & _FAITHFUL & Q(verdict="BLOCK")),
        false_negatives=Count("pk", filter=_ANSWERED & _FABRICATED & Q(verdict="ALLOW")),
        abstentions=Count("pk", filter=_ANSWERED & Q(verdict="UNCERTAIN")),
        failures=Count("pk", filter=Q(status=CanaryCase.Status.FAILED)),
        last=Max("sent_at"),
    )
    before = accuracy_counts(ProviderAccuracy.objects.filter(provider=provider).first())
    fp = wilson_interval(counts["false_positives"], counts["faithful"])
    fn = wilson_interval(counts["false_negatives"], counts["fabricated"])
    accuracy, _ = ProviderAccuracy.objects.update_or_create(
        provider=provider,
        defaults={
            "window_days": days,
            "cases": counts["cases"],
            "faithful_answered": counts["faithful"],
            "fabricated_answered": counts["fabricated"],
            "false_positives": counts["false_positives"],
            "false_negatives": counts["false_negatives"],
            "abstentions": counts["abstentions"],
            "failures": counts["failures"],
            "false_positive_rate": fp.rate,
            "false_positive_low": fp.low,
            "false_positive_high": fp.high,
            "false_negative_rate": fn.rate,
            "false_negative_low": fn.low,
            "false_negative_high": fn.high,
            "last_case_at": counts["last"],
            "computed_at": now,
        },
    )
    _rescore_if_weighted(provider=provider, before=before, after=accuracy_counts(accuracy))
    return accuracy


def _rescore_if_weighted(*, provider: Provider, before: tuple[int, int], after: tuple[int, int]) -> None:
    """Queue a recompute of the agents the provider reports on when its weight factor moved.

    Only under a configuration that weights providers by accuracy, and only when the factor (not
    merely the counts) changed: the factor is what the scoring inputs carry, so a recompute for
    unchanged counts or an unchanged factor would store nothing new anyway.
    """
    weighting = scoring_params(scoring_config_current()).accuracy_weighting
    if weighting is None or weighting.factor(*before) == weighting.factor(*after):
        return
    agent_ids = (
        VerificationSummary.objects.filter(provider=provider)
        .order_by()
        .values_list("agent_id", flat=True)
        .distinct()
    )
    recompute_mark(agent_ids=set(agent_ids))
