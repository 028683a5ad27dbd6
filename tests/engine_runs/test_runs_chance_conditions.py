"""A forecast condition that carries its chance ("30% Snow", "60% Rainy") is that condition's state (issue
14, seventh round): before, the percentage kept it from being read as weather, and "sunny" went through."""

from __future__ import annotations

import pytest

from tests.engine_runs.runs_helpers import make_run
from verification.engine.runs import verify_run

Q = "How will the weather be in Tromso on Saturday?"


def _run(condition: str, answer: str):
    result = {"forecast": [{"date": "2025-02-08", "conditions": condition, "high_c": -2, "low_c": -7}]}
    return verify_run(make_run(Q, [result], answer, tool="get_forecast"))


@pytest.mark.parametrize(("condition", "told"), [("30% Snow", "sunny"), ("60% Rainy", "snowy")])
def test_it_contradicts_another_condition_than_the_likely_one(condition, told):
    r = _run(condition, f"On Saturday it will be {told}, with a high of -2°C.")
    assert ("CONTRADICTED", told) in [(c.label, c.text) for c in r.flagged_claims], r.claims


@pytest.mark.parametrize(("condition", "told"), [("30% Snow", "snowy"), ("60 % Rainy", "rainy")])
def test_it_supports_the_likely_condition(condition, told):
    r = _run(condition, f"On Saturday it will be {told}, with a high of -2°C.")
    assert not r.hallucination_detected, r.claims


def test_it_reads_no_weather_in_other_percentages():
    result = {"deals": [{"item": "Scarf", "discount": "30% off"}]}
    r = verify_run(make_run("Any deals?", [result], "The scarf is 30% off and it is sunny out."))
    assert not r.hallucination_detected, r.claims
