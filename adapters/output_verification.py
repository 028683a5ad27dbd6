"""The output-verification adapter (SPEC 2.1, seed 001): quality and coverage from providers.

Per provider summary (allowRate a, blockRate b, avgConfidence c, totalChecks n)::

    dp = clamp(b / 0.05, 0, 1)                                  # rubber stamps get 0
    sm = clamp(Σ weight_level · checks_level / Σ checks_level, 0.5, 3)   # 1 without stake data
    q  = clamp(a · c · dp · min(sm, 1.5) · 100, 0, 100)

Across the eligible providers (weights ``w = log10(n + 1)``, times the provider's canary
accuracy factor ``f`` when the configuration weights providers by accuracy,
:class:`adapters.params.AccuracyWeighting`)::

    q̄ = Σ w q / Σ w;  D = Σ w |q − q̄| / Σ w
    quality  = q̄ · (1 − 0.5 · D / 100)      (q̄ alone with one provider)
    coverage = 100 · clamp(min(50, log10(N + 1) · 20) / 50, 0, 1),  N = Σ n
    total    = 0.7 · round(quality) + 0.3 · round(coverage)

The adapter is not applicable ("insufficient sample") when N < 10.  Each provider's
quality is clamped to [0, 100] before combining, because a single provider's quality
is itself a component in [0, 100] (seed 001) and an uncapped 108 from a critical-stake
provider would otherwise inflate the disagreement with a provider reporting 100.

Sums run provider by provider in input order so that :mod:`adapters.vectorised`
reproduces every bit.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from adapters.core import AdapterResult, Component, adapter_result
from adapters.numbers import clamp, log10, round_half_up
from adapters.params import MIN_ACCURACY_FACTOR, STAKE_LEVELS, AdapterSpec, OutputVerificationParams

__all__ = [
    "REASON_INSUFFICIENT_SAMPLE",
    "ExcludedProvider",
    "OutputVerificationProvenance",
    "ProviderContribution",
    "ProviderQuality",
    "ProviderSummary",
    "coverage",
    "exclusion_reason",
    "input_exclusion_reason",
    "provider_quality",
    "provider_weight",
    "score_output_verification",
    "stake_multiplier",
]

REASON_INSUFFICIENT_SAMPLE = "insufficient sample"
QUALITY_KEY = "output-verification.quality"
COVERAGE_KEY = "output-verification.coverage"


def _rate(owner: str, name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ValueError(f"{owner}.{name} must be a finite number, got {value!r}")
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"{owner}.{name} must be in [0, 1], got {value!r}")
    return float(value)


@dataclass(frozen=True)
class ProviderSummary:
    """One provider's latest summary of its verifications of one agent.

    ``stake_distribution`` maps a stake level to its number of checks (or to the signal
    schema's ``{"checks": n, ...}`` object, which is reduced to ``n``); unknown levels
    (e.g. ThoughtProof's ``micro``) are kept but ignored.  ``excluded_reason`` (e.g.
    ``"suspended"``, ``"self-reported"``, ``"stale"``) removes the provider from the
    score; so does ``age_days`` above the configured maximum age.  ``accuracy_factor``
    (in [0.001, 1], from the provider's canary accuracy) multiplies its weight when set.

    >>> s = ProviderSummary("tp", 0.9, 0.1, 0.0, 0.8, 10, {"low": 8, "medium": 2})
    >>> s.total_checks
    10
    """

    provider_id: str
    allow_rate: float
    block_rate: float
    uncertain_rate: float | None
    avg_confidence: float
    total_checks: int
    stake_distribution: Mapping[str, int] | None = None
    excluded_reason: str | None = None
    age_days: float | None = None
    accuracy_factor: float | None = None

    def __post_init__(self) -> None:
        owner = f"ProviderSummary[{self.provider_id}]"
        if not isinstance(self.provider_id, str) or not self.provider_id:
            raise ValueError(
                f"ProviderSummary.provider_id must be a non-empty string, got {self.provider_id!r}"
            )
        object.__setattr__(self, "allow_rate", _rate(owner, "allow_rate", self.allow_rate))
        object.__setattr__(self, "block_rate", _rate(owner, "block_rate", self.block_rate))
        object.__setattr__(self, "avg_confidence", _rate(owner, "avg_confidence", self.avg_confidence))
        if self.uncertain_rate is not None:
            object.__setattr__(self, "uncertain_rate", _rate(owner, "uncertain_rate", self.uncertain_rate))
        if (
            isinstance(self.total_checks, bool)
            or not isinstance(self.total_checks, int)
            or self.total_checks < 0
        ):
            raise ValueError(f"{owner}.total_checks must be an integer >= 0, got {self.total_checks!r}")
        if self.stake_distribution is not None:
            if not isinstance(self.stake_distribution, Mapping):
                raise ValueError(
                    f"{owner}.stake_distribution must be a mapping, got {self.stake_distribution!r}"
                )
            levels: dict[str, int] = {}
            for level, entry in self.stake_distribution.items():
                # Accept the signal schema's {"low": {"checks": 8, ...}} as well as {"low": 8}.
                checks = entry.get("checks", 0) if isinstance(entry, Mapping) else entry
                if isinstance(checks, bool) or not isinstance(checks, int) or checks < 0:
                    raise ValueError(
                        f"{owner}.stake_distribution[{level!r}] must be an integer >= 0, got {checks!r}"
                    )
                levels[str(level)] = checks
            object.__setattr__(self, "stake_distribution", levels)
        if self.age_days is not None and (not math.isfinite(self.age_days) or self.age_days < 0):
            raise ValueError(f"{owner}.age_days must be a finite number >= 0, got {self.age_days!r}")
        factor = self.accuracy_factor
        if factor is not None:
            # Near 0 a lone provider's weight would underflow to 0 (and the weighted mean be undefined).
            low = MIN_ACCURACY_FACTOR
            if isinstance(factor, bool) or not isinstance(factor, int | float) or not low <= factor <= 1.0:
                raise ValueError(f"{owner}.accuracy_factor must be a number in [{low}, 1], got {factor!r}")
            object.__setattr__(self, "accuracy_factor", float(factor))


@dataclass(frozen=True)
class ProviderQuality:
    """The per-provider terms: discriminative power, stake multiplier and quality in [0, 100]."""

    discriminative_power: float
    stake_multiplier: float
    quality: float


def stake_multiplier(stake_distribution: Mapping[str, int] | None, params: OutputVerificationParams) -> float:
    """Return the stake multiplier: mean level weight over the known levels' checks.

    1 when there is no distribution or the known levels hold no checks.

    >>> p = OutputVerificationParams()
    >>> stake_multiplier({"low": 8, "medium": 2}, p)
    0.6
    >>> stake_multiplier({"micro": 10}, p), stake_multiplier(None, p)
    (1.0, 1.0)
    """
    if not stake_distribution:
        return 1.0
    weighted = 0.0
    checks = 0
    # Fixed level order (not the mapping's order) keeps the float sum reproducible.
    for level, weight in zip(STAKE_LEVELS, params.stake_weights.as_tuple(), strict=True):
        count = stake_distribution.get(level, 0)
        weighted += weight * count
        checks += count
    if checks == 0:
        return 1.0
    return clamp(weighted / checks, params.stake_multiplier_min, params.stake_multiplier_max)


def provider_quality(summary: ProviderSummary, params: OutputVerificationParams) -> ProviderQuality:
    """Return one provider's discriminative power, stake multiplier and quality.

    >>> q = provider_quality(ProviderSummary("p", 0.9, 0.0, 0.1, 0.8, 10), OutputVerificationParams())
    >>> q.discriminative_power, q.quality
    (0.0, 0.0)
    >>> good = ProviderSummary("p", 0.9, 0.1, 0.0, 0.8, 10)
    >>> round(provider_quality(good, OutputVerificationParams()).quality, 9)
    72.0
    """
    dp = clamp(summary.block_rate / params.full_power_block_rate, 0.0, 1.0)
    sm = stake_multiplier(summary.stake_distribution, params)
    raw = summary.allow_rate * summary.avg_confidence * dp * min(sm, params.stake_multiplier_cap) * 100.0
    return ProviderQuality(discriminative_power=dp, stake_multiplier=sm, quality=clamp(raw))


@dataclass(frozen=True)
class ProviderContribution:
    """How one eligible provider entered the score (for provenance)."""

    provider_id: str
    total_checks: int
    weight: float
    quality: float
    discriminative_power: float
    stake_multiplier: float
    accuracy_factor: float | None = None


def provider_weight(summary: ProviderSummary) -> float:
    """A provider's weight in the mean: ``log10(n + 1)``, times its accuracy factor when it has one.

    >>> provider_weight(ProviderSummary("p", 0.9, 0.1, 0.0, 0.8, 99, accuracy_factor=0.5))
    1.0
    """
    weight = log10(float(summary.total_checks) + 1.0)
    if summary.accuracy_factor is not None:
        weight *= summary.accuracy_factor
    return weight


@dataclass(frozen=True)
class ExcludedProvider:
    """A provider left out of the score, with the reason (stale, suspended, self-reported...)."""

    provider_id: str
    reason: str


@dataclass(frozen=True)
class OutputVerificationProvenance:
    """What went into the output-verification adapter: per-provider terms, q̄, D, N.

    ``mean_quality`` and ``disagreement`` are None when no provider is eligible;
    ``disagreement`` is 0 with a single provider.
    """

    providers: tuple[ProviderContribution, ...]
    excluded: tuple[ExcludedProvider, ...]
    mean_quality: float | None
    disagreement: float | None
    total_checks: int


def exclusion_reason(summary: ProviderSummary, params: OutputVerificationParams) -> str | None:
    """Return why *summary* does not count (its own reason, "stale", "no checks"), or None.

    >>> old = ProviderSummary("p", 0.9, 0.1, 0.0, 0.8, 10, age_days=31)
    >>> exclusion_reason(old, OutputVerificationParams())
    'stale'
    """
    if summary.excluded_reason:
        return summary.excluded_reason
    return input_exclusion_reason(
        age_days=summary.age_days, total_checks=summary.total_checks, max_age_days=params.max_age_days
    )


def input_exclusion_reason(*, age_days: float | None, total_checks: int, max_age_days: float) -> str | None:
    """The rule on a summary's own numbers: older than *max_age_days* is "stale", no checks is "no checks".

    The registry applies it to stored summaries (after its own reasons: suspended, self-reported), so
    the rule is written once.

    >>> input_exclusion_reason(age_days=30.5, total_checks=10, max_age_days=30)
    'stale'
    >>> input_exclusion_reason(age_days=None, total_checks=0, max_age_days=30)
    'no checks'
    """
    if age_days is not None and age_days > max_age_days:
        return "stale"
    if total_checks == 0:
        return "no checks"
    return None


def coverage(total_checks: int, params: OutputVerificationParams) -> float:
    """Return the unrounded log-scaled coverage of *total_checks* checks.

    >>> round(coverage(10, OutputVerificationParams()), 4)
    41.6557
    """
    raw = min(params.volume_cap, log10(float(total_checks) + 1.0) * params.volume_scale)
    return 100.0 * clamp(raw / params.volume_cap, 0.0, 1.0)


def score_output_verification(
    summaries: Iterable[ProviderSummary],
    params: OutputVerificationParams,
    spec: AdapterSpec,
    registry: str | None = None,
    protocol: str | None = None,
) -> tuple[AdapterResult, OutputVerificationProvenance]:
    """Score the output-verification adapter of one agent from its providers' summaries.

    >>> from adapters.params import AdapterSpec
    >>> s = ProviderSummary("tp", 0.9, 0.1, 0.0, 0.8, 10, {"low": 8, "medium": 2})
    >>> spec = AdapterSpec("output-verification", "scoped")
    >>> result, prov = score_output_verification([s], OutputVerificationParams(), spec)
    >>> [(c.key, c.value) for c in result.components], result.total
    ([('output-verification.quality', 43.2), ('output-verification.coverage', 41.66)], 42.74)
    """
    contributions: list[ProviderContribution] = []
    excluded: list[ExcludedProvider] = []
    for summary in summaries:
        reason = exclusion_reason(summary, params)
        if reason is not None:
            excluded.append(ExcludedProvider(summary.provider_id, reason))
            continue
        terms = provider_quality(summary, params)
        contributions.append(
            ProviderContribution(
                provider_id=summary.provider_id,
                total_checks=summary.total_checks,
                weight=provider_weight(summary),
                quality=terms.quality,
                discriminative_power=terms.discriminative_power,
                stake_multiplier=terms.stake_multiplier,
                accuracy_factor=summary.accuracy_factor,
            )
        )
    total_checks = sum(c.total_checks for c in contributions)
    mean_quality: float | None = None
    disagreement: float | None = None
    if contributions:
        weight_sum = 0.0
        weighted = 0.0
        for c in contributions:
            weight_sum += c.weight
            weighted += c.weight * c.quality
        mean_quality = weighted / weight_sum
        spread = 0.0
        for c in contributions:
            spread += c.weight * abs(c.quality - mean_quality)
        disagreement = spread / weight_sum if len(contributions) > 1 else 0.0
    provenance = OutputVerificationProvenance(
        providers=tuple(contributions),
        excluded=tuple(excluded),
        mean_quality=mean_quality,
        disagreement=disagreement,
        total_checks=total_checks,
    )
    if not spec.applies_to(registry, protocol):
        return adapter_result(spec, (), applicable=False), provenance
    if mean_quality is None or disagreement is None or total_checks < params.min_checks:
        return adapter_result(spec, (), applicable=False, reason=REASON_INSUFFICIENT_SAMPLE), provenance
    if len(contributions) > 1:
        quality = mean_quality * (1.0 - params.disagreement_factor * disagreement / 100.0)
    else:
        quality = mean_quality
    quality_value = round_half_up(clamp(quality))
    coverage_value = round_half_up(clamp(coverage(total_checks, params)))
    total = params.quality_weight * quality_value + params.coverage_weight * coverage_value
    components = (Component(QUALITY_KEY, quality_value, "ok"), Component(COVERAGE_KEY, coverage_value, "ok"))
    return adapter_result(spec, components, total=total), provenance
