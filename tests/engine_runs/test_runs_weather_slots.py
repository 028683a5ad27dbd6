"""Weather conditions compared as a slot, including "fog" and "snow showers".

A bare "fog" in an answer is a condition, and "snow showers" is snow, not rain: before, "with fog" was no
claim at all and "snow showers" read as its last word, so a changed condition went through.
"""

from __future__ import annotations

import pytest

from tests.engine_runs.runs_helpers import make_run
from verification.engine.runs import verify_run

Q = "What's the weather like in Gdansk?"


def _run(condition: str, answer: str):
    result = {"city": "Gdansk", "temperature_c": 4, "condition": condition, "wind_kmh": 18}
    return verify_run(make_run(Q, [result], answer, tool="get_weather"))


@pytest.mark.parametrize(
    ("condition", "told"),
    [
        ("thunderstorms", "fog"),
        ("light rain", "snow showers"),
        ("snow showers", "sunny"),
        ("fog", "light rain"),
    ],
)
def test_it_contradicts_another_condition(condition, told):
    r = _run(condition, f"In Gdansk it is 4°C with {told} and a wind of 18 km/h.")
    assert [(c.text, c.label) for c in r.flagged_claims] == [(told, "CONTRADICTED")]


@pytest.mark.parametrize(
    ("condition", "told"),
    [("fog", "fog"), ("fog", "foggy"), ("snow showers", "snow showers"), ("light snow", "snow showers")],
)
def test_it_supports_the_same_condition_in_other_words(condition, told):
    r = _run(condition, f"In Gdansk it is 4°C with {told} and a wind of 18 km/h.")
    assert not r.hallucination_detected
    assert any(c.label == "SUPPORTED" and c.reason == "state matches" for c in r.claims)
