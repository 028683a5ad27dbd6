"""Runtime health: baseline maths, the seed's thresholds, fingerprints and cosine similarity."""

from __future__ import annotations

import math
import statistics

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verification.engine.safety import (
    HealthBaseline,
    HealthObservation,
    HealthThresholds,
    assess_health,
    update_baseline,
)
from verification.engine.safety.health import FINGERPRINT_FEATURES, cosine_similarity, fingerprint

PROSE = [
    "The quarterly results were steady. Revenue grew a little, and costs stayed flat. We expect a calm year.",
    "Our team shipped the update on time. Customers liked the new search, and support tickets went down.",
    "The weather in the valley was mild this week. Farmers started planting, and the river stayed low.",
    "Sales in the north region improved slightly. The new store opened, and staffing was adequate.",
    "The library extended its hours in May. Visitors welcomed the change, and borrowing rose a bit.",
]
CODE_DUMP = (
    "ERROR 500!!! ID=77; TRACE: 0x00ff; 0x0a1b; 0x9c2d; RETRY=3; CODE=E42; E43; E44; 2024-01-01T00:00:00Z"
)

latencies = st.floats(min_value=1.0, max_value=60_000.0, allow_nan=False, allow_infinity=False)


def _baseline(latency: float = 100.0, tps: float = 50.0, n: int = 10) -> HealthBaseline:
    return HealthBaseline(
        "agent-1", "model-a", latency_count=n, latency_mean_ms=latency, tps_count=n, tps_mean=tps
    )


@settings(max_examples=100, deadline=None)
# Within a factor 2.4 of each other no value is ever outside the warn band, so none is winsorised.
@given(st.lists(st.floats(min_value=100.0, max_value=240.0), min_size=1, max_size=50))
def test_it_keeps_the_exact_mean_until_the_window_fills(values: list[float]) -> None:
    baseline = HealthBaseline("a", "m", window=100)
    for v in values:
        baseline = update_baseline(baseline, HealthObservation(v))
    assert baseline.latency_count == len(values)
    assert math.isclose(baseline.latency_mean_ms, statistics.fmean(values), rel_tol=1e-9)


def test_it_follows_an_exponential_average_once_the_window_is_full() -> None:
    baseline = HealthBaseline("a", "m", window=4, latency_count=4, latency_mean_ms=100.0)
    moved = update_baseline(baseline, HealthObservation(200.0))
    assert moved.latency_mean_ms == pytest.approx(100.0 + (200.0 - 100.0) / 4)
    assert baseline.latency_mean_ms == 100.0  # the input baseline is not changed


@pytest.mark.parametrize(
    ("latency", "status", "value"),
    [
        (100.0, "ok", 0.0),
        (249.0, "ok", 0.0),  # deviation 1.49 < 1.5
        (250.0, "warn", 1.5 / 3.0),
        (399.0, "warn", 2.99 / 3.0),
        (400.0, "error", 1.0),
        (1000.0, "error", 1.0),
    ],
)
def test_it_classifies_latency_with_the_seed_thresholds(latency: float, status: str, value: float) -> None:
    metric = assess_health(_baseline(), HealthObservation(latency)).metrics[0]
    assert metric.metric == "latency"
    assert (metric.status, metric.value) == (status, pytest.approx(value))


@pytest.mark.parametrize(
    ("tokens", "status"),
    [(100, "ok"), (71, "ok"), (69, "warn"), (41, "warn"), (39, "error"), (0, "error")],
)
def test_it_classifies_token_rate_deficits(tokens: int, status: str) -> None:
    # Baseline 50 tokens/s; 2000 ms: 100 tokens = 50/s (deficit 0), 70 = 35/s (0.3), 40 = 20/s (0.6).
    metric = assess_health(_baseline(latency=2000.0), HealthObservation(2000.0, tokens)).metrics[1]
    assert metric.metric == "token_rate"
    assert metric.status == status


def test_it_reports_unknown_until_the_baseline_has_enough_samples() -> None:
    young = HealthBaseline("a", "m", latency_count=2, latency_mean_ms=100.0)
    assessment = assess_health(young, HealthObservation(10_000.0, 5, "hello"))
    assert assessment.status == "unknown"
    assert {m.status for m in assessment.metrics} == {"unknown"}
    assert (
        assess_health(young, HealthObservation(10_000.0), thresholds=HealthThresholds(min_samples=1)).status
        == "error"
    )


def test_it_notices_structural_drift_of_the_answers() -> None:
    baseline = HealthBaseline("a", "m")
    for text in PROSE:
        baseline = update_baseline(baseline, HealthObservation(100.0, 50, text))
    same_style = assess_health(baseline, HealthObservation(100.0, 50, PROSE[0])).metrics[2]
    drifted = assess_health(baseline, HealthObservation(100.0, 50, CODE_DUMP)).metrics[2]
    assert same_style.status == "ok"
    assert drifted.measure is not None and same_style.measure is not None
    assert drifted.measure < same_style.measure
    assert drifted.status in {"warn", "error"}


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=500))
def test_it_keeps_fingerprints_in_the_unit_cube(text: str) -> None:
    vector = fingerprint(text)
    assert len(vector) == len(FINGERPRINT_FEATURES)
    assert all(0.0 <= x <= 1.0 for x in vector)


vectors = st.lists(st.floats(min_value=-100, max_value=100, allow_nan=False), min_size=3, max_size=3)


@settings(max_examples=200, deadline=None)
@given(vectors, vectors, st.floats(min_value=0.01, max_value=100))
def test_it_computes_a_symmetric_scale_free_cosine(a: list[float], b: list[float], k: float) -> None:
    s = cosine_similarity(a, b)
    assert -1.0 <= s <= 1.0
    assert s == pytest.approx(cosine_similarity(b, a))
    if any(abs(x * k) > 1e-6 for x in a) and any(abs(x) > 1e-6 for x in a):
        assert cosine_similarity([x * k for x in a], b) == pytest.approx(s, abs=1e-9)
    with pytest.raises(ValueError):
        cosine_similarity(a, [*b, 1.0])


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(latencies, st.integers(0, 5000), st.text(max_size=80)), max_size=8))
def test_it_round_trips_baselines_through_dicts(observations: list[tuple[float, int, str]]) -> None:
    baseline = HealthBaseline("agent-9", "model-z", window=5)
    for ms, tokens, text in observations:
        baseline = update_baseline(baseline, HealthObservation(ms, tokens, text))
    assert HealthBaseline.from_dict(baseline.to_dict()) == baseline


@pytest.mark.parametrize("latency", [0.0, -5.0, float("nan"), float("inf")])
def test_it_rejects_impossible_latencies(latency: float) -> None:
    with pytest.raises(ValueError, match="latency_ms"):
        HealthObservation(latency)
    with pytest.raises(ValueError, match="response_tokens"):
        HealthObservation(10.0, -1)


def test_it_rejects_a_latency_that_is_not_a_number_with_its_own_message() -> None:
    # health.py stays interpreted (setup.py): a compiled dataclass would refuse a str in a float field
    # with its own TypeError before this check.
    with pytest.raises(ValueError, match="latency_ms"):
        HealthObservation("fast")  # type: ignore[arg-type]


def test_it_still_flags_a_second_latency_spike_after_normal_traffic() -> None:
    # The case: a spike learned at full weight doubled the mean (860 -> 1,788 ms), so the next
    # spike looked normal.  Anomalous values now enter at the warn band's edge.
    baseline = HealthBaseline("a", "m")
    for ms in (820.0, 900.0, 850.0, 870.0, 860.0, 840.0, 880.0, 860.0, 850.0, 870.0):
        baseline = update_baseline(baseline, HealthObservation(ms))
    spike = HealthObservation(10_000.0)
    assert assess_health(baseline, spike).status == "error"
    baseline = update_baseline(baseline, spike)
    assert baseline.latency_mean_ms < 1.25 * 860.0
    for ms in (850.0, 870.0, 860.0, 845.0, 875.0):
        normal = HealthObservation(ms)
        assert assess_health(baseline, normal).status == "ok"
        baseline = update_baseline(baseline, normal)
    assert assess_health(baseline, spike).status == "error"


def test_it_bounds_the_influence_of_a_token_rate_collapse_and_an_odd_answer() -> None:
    baseline = HealthBaseline("a", "m")
    for text in PROSE * 2:
        baseline = update_baseline(baseline, HealthObservation(1000.0, 50, text))
    odd = HealthObservation(1000.0, 1, CODE_DUMP)
    assessment = assess_health(baseline, odd)
    assert {m.metric: m.status for m in assessment.metrics} == {
        "latency": "ok",
        "token_rate": "error",
        "fingerprint": "error",
    }
    after = update_baseline(baseline, odd)
    # Counted as a rate at the warn band's edge (70 % of the mean), not as the collapse itself.
    assert after.tps_mean == pytest.approx(baseline.tps_mean - 0.3 * baseline.tps_mean / 11)
    assert assess_health(after, odd).status == "error"
    plain = update_baseline(baseline, odd, thresholds=HealthThresholds(min_samples=1000))
    assert after.tps_mean > plain.tps_mean


def test_it_still_follows_a_lasting_slowdown() -> None:
    baseline = HealthBaseline("a", "m", window=20, latency_count=20, latency_mean_ms=100.0)
    for _ in range(60):
        baseline = update_baseline(baseline, HealthObservation(1000.0))
    assert assess_health(baseline, HealthObservation(1000.0)).status == "ok"
