"""Welford running statistics over a window and the Western Electric rules."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verification.engine.tools.stats import new_stats, push, push_bounded, quantile, std, western_electric

values = st.lists(st.floats(min_value=-1e6, max_value=1e6, allow_nan=False), min_size=2, max_size=300)


@settings(max_examples=60)
@given(values, st.integers(min_value=2, max_value=120))
def test_it_matches_numpy_over_the_window(xs, window):
    rs = new_stats()
    for x in xs:
        push(rs, x, window=window)
    tail = np.array(xs[-window:])
    assert rs["buf"] == list(tail)
    assert np.isclose(rs["mean"], tail.mean(), rtol=1e-6, atol=1e-3)
    if len(tail) > 1:
        # Removing values from a running sum of squares cancels: after evicting values of magnitude M,
        # sigma keeps an absolute error of about sqrt(machine epsilon) * M (~0.02 for M = 1e6 and a
        # constant window), so the tolerance scales with the largest value seen, not only with sigma.
        scale = max(abs(x) for x in xs)
        assert np.isclose(std(rs), tail.std(ddof=1), rtol=1e-4, atol=1e-2 + 3e-7 * scale)
    assert rs["total"] == len(xs)


def _baseline(values):
    rs = new_stats()
    for v in values:
        push(rs, v)
    return rs


def test_it_stays_silent_before_eight_observations():
    rs = _baseline([10.0, 11.0, 9.0, 10.0, 10.5, 9.5, 10.0])
    assert western_electric(rs, 1000.0) == (0.0, [])


def test_it_fires_rule_one_beyond_three_sigma():
    rs = _baseline([10.0, 11.0, 9.0, 10.0, 10.5, 9.5, 10.0, 10.2, 9.8, 10.1])
    score, rules = western_electric(rs, 40.0)
    assert 1 in rules and score >= 0.4


def test_it_fires_rule_four_on_eight_points_on_one_side():
    base = [9.0, 11.0] * 10
    rs = _baseline(base + [10.5] * 7)
    _, rules = western_electric(rs, 10.5)
    assert 4 in rules


def test_it_weights_rules_as_the_seed_does():
    rs = _baseline(
        [0.0, 1.0, -1.0, 0.5, -0.5, 0.2, -0.2, 0.1, -0.1, 0.0] * 3 + [2.6, 2.7, 2.8, 2.9, 2.5, 2.6, 2.7]
    )
    score, rules = western_electric(rs, 50.0)
    weights = {1: 0.40, 2: 0.25, 3: 0.20, 4: 0.15}
    assert np.isclose(score, sum(weights[r] for r in rules))


@given(st.lists(st.floats(min_value=-1e3, max_value=1e3), min_size=1, max_size=50), st.floats(0, 1))
def test_it_computes_quantiles_like_numpy(xs, q):
    assert np.isclose(quantile(xs, q), np.quantile(xs, q), atol=1e-9)


def test_it_winsorises_a_spike_at_the_three_sigma_limit():
    rs = _baseline([10.0, 11.0, 9.0, 10.0, 10.5, 9.5, 10.0, 10.2, 9.8])
    limit = rs["mean"] + 3 * std(rs)
    push_bounded(rs, 1000.0)
    assert rs["buf"][-1] == pytest.approx(limit)
    low = _baseline([10.0, 11.0, 9.0, 10.0, 10.5, 9.5, 10.0, 10.2, 9.8])
    push_bounded(low, -1000.0, min_sigma=5.0)
    assert low["buf"][-1] == pytest.approx(
        sum([10.0, 11.0, 9.0, 10.0, 10.5, 9.5, 10.0, 10.2, 9.8]) / 9 - 15.0
    )


def test_it_takes_values_in_unchanged_before_the_rules_are_active_and_within_the_limits():
    early = _baseline([10.0, 11.0])
    push_bounded(early, 1000.0)
    assert early["buf"][-1] == 1000.0
    rs = _baseline([10.0, 11.0, 9.0, 10.0, 10.5, 9.5, 10.0, 10.2, 9.8])
    push_bounded(rs, 11.5)
    assert rs["buf"][-1] == 11.5


def _spike_then_normal(pusher):
    # A young baseline (8 values), where one outlier weighs most: the situation.
    rs = _baseline([10.0, 11.0, 9.0, 10.0, 10.5, 9.5, 10.0, 10.2])
    first = western_electric(rs, 15.0)[1]
    pusher(rs, 15.0)
    pusher(rs, 10.1)
    return first, western_electric(rs, 15.0)[1]


def test_it_still_flags_a_second_spike_after_normal_traffic():
    first, second = _spike_then_normal(push_bounded)
    assert 1 in first and 1 in second
    # Learned at full weight (what push does), the first spike widens sigma until the second passes.
    first, second = _spike_then_normal(push)
    assert 1 in first and 1 not in second


@settings(max_examples=60)
@given(st.lists(st.floats(min_value=-1e3, max_value=1e3), min_size=9, max_size=60), st.floats(-1e6, 1e6))
def test_it_never_stores_a_value_beyond_the_three_sigma_limits(xs, spike):
    rs = _baseline(xs)
    before, limit = rs["mean"], 3 * std(rs)
    push_bounded(rs, spike)
    assert abs(rs["buf"][-1] - before) <= limit * (1 + 1e-9) + 1e-9
