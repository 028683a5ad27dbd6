"""Properties of the output-verification adapter."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from adapters import (
    AdapterSpec,
    OutputVerificationParams,
    ProviderSummary,
    provider_quality,
    score_output_verification,
)
from adapters.output_verification import coverage

PARAMS = OutputVerificationParams()
SPEC = AdapterSpec("output-verification", "scoped", 1.0)

rates = st.floats(0, 1)
stakes = st.one_of(
    st.none(),
    st.dictionaries(st.sampled_from(["low", "medium", "high", "critical", "micro"]), st.integers(0, 300)),
)
summaries = st.builds(
    ProviderSummary,
    provider_id=st.sampled_from(["a", "b", "c"]),
    allow_rate=rates,
    block_rate=rates,
    uncertain_rate=st.none(),
    avg_confidence=rates,
    total_checks=st.integers(0, 100_000),
    stake_distribution=stakes,
)


@given(st.lists(summaries, max_size=5))
def test_it_keeps_components_and_totals_in_range(providers: list[ProviderSummary]) -> None:
    result, provenance = score_output_verification(providers, PARAMS, SPEC)
    assert 0.0 <= result.total <= 100.0
    for component in result.components:
        assert component.value is not None and 0.0 <= component.value <= 100.0
    for p in provenance.providers:
        assert 0.0 <= p.quality <= 100.0
        assert 0.0 <= p.discriminative_power <= 1.0
        assert 0.5 <= p.stake_multiplier <= 3.0
    if provenance.disagreement is not None:
        assert 0.0 <= provenance.disagreement <= 100.0


@given(st.integers(0, 10**9), st.integers(0, 10**9))
def test_it_never_lowers_coverage_with_more_checks(n: int, extra: int) -> None:
    assert coverage(n + extra, PARAMS) >= coverage(n, PARAMS)


@given(st.integers(0, 10**6))
def test_it_saturates_coverage_at_100(n: int) -> None:
    assert 0.0 <= coverage(n, PARAMS) <= 100.0


@given(rates, rates, st.integers(1, 10_000), stakes)
def test_it_gives_rubber_stamps_zero_quality(allow: float, confidence: float, n: int, stake: object) -> None:
    summary = ProviderSummary("p", allow, 0.0, None, confidence, n, stake)  # type: ignore[arg-type]
    assert provider_quality(summary, PARAMS).quality == 0.0


@given(rates, rates, rates, st.integers(1, 10_000))
def test_it_ignores_unknown_stake_levels(allow: float, block: float, confidence: float, n: int) -> None:
    plain = ProviderSummary("p", allow, block, None, confidence, n)
    micro = ProviderSummary("p", allow, block, None, confidence, n, {"micro": n, "low": 0})
    assert provider_quality(micro, PARAMS) == provider_quality(plain, PARAMS)


def _good(provider_id: str, n: int = 100, **kwargs: object) -> ProviderSummary:
    return ProviderSummary(provider_id, 0.9, 0.1, 0.0, 0.8, n, **kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("summary", "reason"),
    [
        (_good("susp", excluded_reason="suspended"), "suspended"),
        (_good("self", excluded_reason="self-reported"), "self-reported"),
        (_good("old", age_days=31.0), "stale"),
        (_good("none", n=0), "no checks"),
    ],
)
def test_it_leaves_excluded_providers_out(summary: ProviderSummary, reason: str) -> None:
    # A provider that would drag the score down if it counted.
    bad = replace(summary, allow_rate=0.1, block_rate=0.9, avg_confidence=0.1)
    alone, _ = score_output_verification([_good("main")], PARAMS, SPEC)
    together, provenance = score_output_verification([_good("main"), bad], PARAMS, SPEC)
    assert together == alone
    assert [(e.provider_id, e.reason) for e in provenance.excluded] == [(summary.provider_id, reason)]
    assert [p.provider_id for p in provenance.providers] == ["main"]


def test_it_keeps_providers_within_the_maximum_age() -> None:
    _, provenance = score_output_verification([_good("fresh", age_days=30.0)], PARAMS, SPEC)
    assert [p.provider_id for p in provenance.providers] == ["fresh"]


def test_it_reports_the_weighted_mean_and_disagreement() -> None:
    # Same numbers as the "two providers disagree" vector, checked through provenance:
    # q = 72 at 100 checks and 30 at 10 checks, weights log10(101) and log10(11).
    one = ProviderSummary("one", 0.9, 0.1, 0.0, 0.8, 100)
    two = ProviderSummary("two", 0.5, 0.5, 0.0, 0.6, 10)
    _, provenance = score_output_verification([one, two], PARAMS, SPEC)
    w1, w2 = provenance.providers[0].weight, provenance.providers[1].weight
    assert w1 == pytest.approx(math.log10(101)) and w2 == pytest.approx(math.log10(11))
    mean = (w1 * 72 + w2 * 30) / (w1 + w2)
    assert provenance.mean_quality == pytest.approx(mean)
    assert provenance.disagreement == pytest.approx((w1 * abs(72 - mean) + w2 * abs(30 - mean)) / (w1 + w2))
    assert provenance.total_checks == 110


def test_it_is_not_applicable_without_enough_checks_or_for_excluded_registries() -> None:
    result, _ = score_output_verification([_good("p", n=9)], PARAMS, SPEC)
    assert (result.applicable, result.in_denominator, result.reason) == (False, False, "insufficient sample")
    empty, provenance = score_output_verification([], PARAMS, SPEC)
    assert not empty.applicable and provenance.mean_quality is None
    excluded = AdapterSpec("output-verification", "scoped", exclude_registries=("hcs-10",))
    result, _ = score_output_verification([_good("p")], PARAMS, excluded, "hcs-10")
    assert (result.applicable, result.reason) == (False, "not applicable to registry")


@pytest.mark.parametrize(
    "kwargs",
    [
        {"allow_rate": 1.2},
        {"block_rate": -0.1},
        {"avg_confidence": float("nan")},
        {"total_checks": -1},
        {"total_checks": 2.0},
        {"stake_distribution": {"low": -1}},
    ],
)
def test_it_refuses_malformed_summaries(kwargs: dict[str, object]) -> None:
    base: dict[str, object] = {
        "provider_id": "p",
        "allow_rate": 0.9,
        "block_rate": 0.1,
        "uncertain_rate": None,
        "avg_confidence": 0.8,
        "total_checks": 10,
    }
    base.update(kwargs)
    with pytest.raises(ValueError, match=next(iter(kwargs))):
        ProviderSummary(**base)  # type: ignore[arg-type]


def test_it_accepts_the_signal_schema_stake_shape() -> None:
    nested_levels = {"low": {"checks": 8, "allowRate": 0.9}, "medium": {"checks": 2}}
    nested = ProviderSummary("p", 0.9, 0.1, 0.0, 0.8, 10, nested_levels)  # type: ignore[arg-type]
    flat = ProviderSummary("p", 0.9, 0.1, 0.0, 0.8, 10, {"low": 8, "medium": 2})
    assert nested.stake_distribution == {"low": 8, "medium": 2}
    assert provider_quality(nested, PARAMS) == provider_quality(flat, PARAMS)
