"""The seed's log-odds fusion and verdict thresholds."""

import math

from hypothesis import given
from hypothesis import strategies as st

from verification.engine.tools import Signal, Verdict
from verification.engine.tools.fusion import fuse, verdict_for

lrs = st.floats(min_value=1.0, max_value=100.0)
scores = st.floats(min_value=0.0, max_value=1.0)
priors = st.floats(min_value=0.01, max_value=0.99)


def _logit(p: float) -> float:
    return math.log(p / (1 - p))


@given(priors, lrs, scores)
def test_it_applies_the_effective_likelihood_ratio_of_a_fired_signal(prior, lr, score):
    post = fuse(prior, [Signal("s", True, score, lr)])
    assert math.isclose(_logit(post) - _logit(prior), math.log(1 + (lr - 1) * score), abs_tol=1e-9)


@given(priors, lrs)
def test_it_lowers_the_odds_by_the_absent_formula(prior, lr):
    post = fuse(prior, [Signal("s", False, 0.0, lr)])
    assert math.isclose(_logit(prior) - _logit(post), math.log(max(0.1 * lr, 1.01)), abs_tol=1e-9)


@given(priors, lrs, scores, scores)
def test_it_never_lowers_the_posterior_when_a_score_grows(prior, lr, a, b):
    lo, hi = sorted((a, b))
    assert fuse(prior, [Signal("s", True, lo, lr)]) <= fuse(prior, [Signal("s", True, hi, lr)]) + 1e-12


@given(st.lists(st.tuples(st.booleans(), scores, lrs), max_size=8), priors)
def test_it_keeps_the_posterior_a_probability(signals, prior):
    post = fuse(prior, [Signal("s", f, s, lr) for f, s, lr in signals])
    assert 0.0 <= post <= 1.0


def test_it_maps_posteriors_to_the_seed_verdict_bands():
    assert verdict_for(0.199) is Verdict.ACCEPT
    assert verdict_for(0.2) is Verdict.FLAG
    assert verdict_for(0.499) is Verdict.FLAG
    assert verdict_for(0.5) is Verdict.BLOCK
