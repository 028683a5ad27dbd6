"""The replayable runtime-health stream and what it shows about baselines anomalies cannot poison."""

from __future__ import annotations

import json
import math
import random
import statistics

from verification.engine.eval.health_streams import (
    ANOMALOUS_KINDS,
    HEALTH_DEV_SEEDS,
    HEALTH_HELDOUT_SEEDS,
    evaluate_health_stream,
    generate_health_stream,
)
from verification.engine.safety import HealthBaseline, HealthObservation, assess_health, update_baseline


def test_it_generates_the_same_stream_for_the_same_seed() -> None:
    assert json.dumps(generate_health_stream(7, 500)) == json.dumps(generate_health_stream(7, 500))


def test_it_draws_other_agents_and_another_mix_from_another_seed() -> None:
    a, b = (
        generate_health_stream(HEALTH_DEV_SEEDS[0], 1500),
        generate_health_stream(HEALTH_HELDOUT_SEEDS[0], 1500),
    )
    assert {x["agent"] for x in a}.isdisjoint({x["agent"] for x in b})
    assert not set(HEALTH_DEV_SEEDS) & set(HEALTH_HELDOUT_SEEDS)


def test_it_labels_every_anomaly_kind_anomalous_and_nothing_else() -> None:
    lines = generate_health_stream(HEALTH_DEV_SEEDS[1], 4000)
    kinds = {line["kind"] for line in lines}
    assert {"normal", "spike_repeat"} <= kinds
    for line in lines:
        assert (line["label"] == "anomalous") == (line["kind"] in ANOMALOUS_KINDS)
        assert line["latency_ms"] > 0 and line["response_tokens"] >= 1
    assert [x["ts"] for x in lines] == sorted(x["ts"] for x in lines)


def test_it_flags_the_second_spike_of_every_pair_with_the_bounded_baseline() -> None:
    for seed in HEALTH_DEV_SEEDS[:2]:
        metrics = evaluate_health_stream(generate_health_stream(seed, 4000))
        repeat = metrics["per_kind"]["spike_repeat"]
        assert repeat["n"] > 0
        assert repeat["error"] == 1.0


def test_it_alerts_on_fewer_normal_calls_than_a_baseline_that_learns_everything() -> None:
    lines = generate_health_stream(HEALTH_DEV_SEEDS[0], 4000)
    bounded = evaluate_health_stream(lines)
    plain = evaluate_health_stream(lines, bounded=False)
    assert bounded["normal_alerted_rate"] < plain["normal_alerted_rate"]
    assert bounded["alert"]["f1"] > plain["alert"]["f1"]


def test_it_keeps_the_token_rate_mean_unbiased_under_noise() -> None:
    # Clipping only the low side of a noisy rate drove the mean up until ordinary calls warned.
    rng = random.Random(3)
    baseline = HealthBaseline("a", "m")
    rates = [50.0 * math.exp(rng.gauss(0, 0.35)) for _ in range(3000)]
    warned = 0
    for i, tps in enumerate(rates):
        obs = HealthObservation(1000.0, round(tps))
        if i >= 100:
            warned += assess_health(baseline, obs).metrics[1].status != "ok"
        baseline = update_baseline(baseline, obs)
    assert abs(baseline.tps_mean / statistics.fmean(rates) - 1) < 0.15
    # A lognormal with sigma 0.35 falls 30 % below its mean in about 15 % of draws.
    assert warned / 2900 < 0.2


def test_it_relearns_a_lasting_change_but_not_a_burst() -> None:
    baseline = HealthBaseline("a", "m")
    for _ in range(30):
        baseline = update_baseline(baseline, HealthObservation(500.0))
    for _ in range(8):  # an outage of 8 calls
        baseline = update_baseline(baseline, HealthObservation(5000.0))
    assert baseline.latency_mean_ms < 1.5 * 500.0
    assert assess_health(baseline, HealthObservation(5000.0)).status == "error"
    for _ in range(3):
        baseline = update_baseline(baseline, HealthObservation(500.0))
    for _ in range(20):  # the provider is now this slow for good
        baseline = update_baseline(baseline, HealthObservation(2000.0))
    assert assess_health(baseline, HealthObservation(2000.0)).status == "ok"
    assert assess_health(baseline, HealthObservation(20_000.0)).status == "error"
