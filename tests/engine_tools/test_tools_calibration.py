"""Calibration report (Brier, ECE, reliability bins, AUROC) and calibrators."""

from itertools import pairwise

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verification.engine.tools.calibration import (
    IsotonicCalibrator,
    PlattCalibrator,
    auroc,
    brier_score,
    calibration_by_tool,
    calibration_report,
    expected_calibration_error,
    fit_calibrator,
)

labelled = st.lists(st.tuples(st.floats(0, 1), st.booleans()), min_size=1, max_size=200)


@given(labelled)
def test_it_keeps_brier_and_ece_in_the_unit_interval(pairs):
    s, y = zip(*pairs, strict=True)
    assert 0.0 <= brier_score(s, y) <= 1.0
    assert 0.0 <= expected_calibration_error(s, y) <= 1.0


@given(labelled)
def test_it_puts_every_score_in_exactly_one_bin(pairs):
    s, y = zip(*pairs, strict=True)
    report = calibration_report(s, y)
    assert sum(b["count"] for b in report.bins) == len(s)
    assert report.positives == sum(y)


def test_it_scores_a_perfect_forecaster_as_perfect():
    r = calibration_report([0.0, 0.0, 1.0, 1.0], [0, 0, 1, 1])
    assert r.brier == 0.0 and r.ece == 0.0


def test_it_measures_overconfidence():
    rng = np.random.default_rng(0)
    y = rng.random(5000) < 0.3  # true rate 0.3 ...
    s = np.full(5000, 0.9)  # ... reported as 0.9
    assert expected_calibration_error(s, y) == pytest.approx(0.6, abs=0.03)


@settings(max_examples=50)
@given(st.lists(st.floats(0, 1), min_size=2, max_size=60), st.data())
def test_it_computes_auroc_as_the_pairwise_ranking_probability(scores, data):
    labels = data.draw(st.lists(st.booleans(), min_size=len(scores), max_size=len(scores)))
    if all(labels) or not any(labels):
        labels[0] = not labels[0]
    pos = [s for s, lab in zip(scores, labels, strict=True) if lab]
    neg = [s for s, lab in zip(scores, labels, strict=True) if not lab]
    brute = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg) / (len(pos) * len(neg))
    assert auroc(scores, labels) == pytest.approx(brute)


def test_it_reports_per_tool_and_overall():
    reports = calibration_by_tool([("a", 0.9, True), ("a", 0.2, False), ("b", 0.7, False)])
    assert reports["a"].n == 2 and reports["b"].n == 1 and reports["overall"].n == 3


def _miscalibrated(n=4000, seed=1):
    rng = np.random.default_rng(seed)
    true_p = rng.random(n)
    y = rng.random(n) < true_p
    logit = np.log(np.clip(true_p, 1e-6, 1 - 1e-6) / np.clip(1 - true_p, 1e-6, 1))
    raw = 1 / (1 + np.exp(-(2.5 * logit + 1.0)))  # over-confident and biased towards "hallucinated"
    return raw, y


@pytest.mark.parametrize("method", ["isotonic", "platt"])
def test_it_reduces_calibration_error_on_held_out_data(method):
    raw, y = _miscalibrated(seed=1)
    cal = fit_calibrator(raw, y, method)
    raw2, y2 = _miscalibrated(seed=2)
    fixed = cal.predict_many(raw2)
    assert expected_calibration_error(fixed, y2) < expected_calibration_error(raw2, y2) / 2


@given(st.lists(st.tuples(st.floats(0, 1), st.booleans()), min_size=2, max_size=100))
def test_it_fits_a_monotone_isotonic_map(pairs):
    s, y = zip(*pairs, strict=True)
    cal = IsotonicCalibrator().fit(s, y)
    grid = np.linspace(0, 1, 21)
    out = cal.predict_many(grid)
    assert all(a <= b + 1e-12 for a, b in pairwise(out))
    assert all(0.0 <= v <= 1.0 for v in out)


def test_it_refuses_bad_input():
    with pytest.raises(ValueError, match="probabilities"):
        brier_score([1.5], [1])
    with pytest.raises(ValueError, match="equally long"):
        brier_score([0.5, 0.5], [1])
    with pytest.raises(RuntimeError, match="before fit"):
        IsotonicCalibrator().predict(0.5)
    with pytest.raises(ValueError, match="isotonic"):
        fit_calibrator([0.5], [1], "magic")
    assert 0.0 < PlattCalibrator().fit([0.2, 0.8], [0, 1]).predict(0.9) <= 1.0
