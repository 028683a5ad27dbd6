"""Hallucination-risk indicator: each indicator moves the score the right way, and stays bounded."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from verification.engine.safety import RiskReport, score_hallucination_risk
from verification.engine.safety.risk import RISK_WEIGHTS


def test_it_scores_overconfident_language_above_hedged_language() -> None:
    sure = score_hallucination_risk("This is definitely correct. It is guaranteed to work, 100%.")
    hedged = score_hallucination_risk("This is probably correct. It might work in most cases.")
    assert sure.indicators["overconfidence"] > hedged.indicators["overconfidence"]
    assert sure.score > hedged.score
    assert any("overconfident" in r for r in sure.reasons)


def test_it_counts_entities_the_prompt_never_mentioned() -> None:
    prompt = "Who founded Acme Rockets and when? Sources say Jane Porter founded it in 1962."
    grounded = score_hallucination_risk("Acme Rockets was founded by Jane Porter in 1962.", prompt=prompt)
    invented = score_hallucination_risk(
        "Acme Rockets was founded by Marcus Bellweather and Ingrid Solberg in 1974 in Tulsa, Oklahoma.",
        prompt=prompt,
    )
    assert grounded.indicators["novel_entities"] == 0.0
    assert invented.indicators["novel_entities"] > 0.3
    assert invented.score > grounded.score
    assert (
        score_hallucination_risk(invented_text := "Marcus Bellweather did it.").indicators["novel_entities"]
        == 0.0
    )
    assert invented_text  # without a prompt there is nothing to compare against


def test_it_flags_a_subject_given_two_different_numbers() -> None:
    text = "The bridge is 1200 meters long. Later surveys agree the bridge is 1450 meters long."
    report = score_hallucination_risk(text)
    assert report.indicators["contradictions"] == 1.0
    assert score_hallucination_risk("The bridge is 1200 meters long.").indicators["contradictions"] == 0.0


def test_it_flags_a_statement_and_its_negation() -> None:
    report = score_hallucination_risk("The museum opens on Mondays. The museum does not open on Mondays.")
    assert report.indicators["contradictions"] == 1.0


def test_it_flags_json_keys_nobody_asked_for() -> None:
    output = 'Here you go: {"name": "Ada", "age": 36, "favourite_colour": "green"}'
    report = score_hallucination_risk(output, expected_keys=["name", "age"])
    assert report.indicators["fabricated_json_keys"] == round(1 / 3, 4)
    assert score_hallucination_risk(output, expected_keys=["name", "age", "favourite_colour"]).score == 0.0
    from_prompt = score_hallucination_risk(output, prompt="Return name and age as JSON.")
    assert from_prompt.indicators["fabricated_json_keys"] > 0


def test_it_is_labelled_as_an_indicator_not_a_verdict() -> None:
    report = score_hallucination_risk("It is certainly true.")
    data = json.loads(json.dumps(report.to_dict()))
    assert "not a verdict" in data["disclaimer"]
    assert set(data["indicators"]) == set(RISK_WEIGHTS)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=400), st.one_of(st.none(), st.text(max_size=200)))
def test_it_keeps_score_and_level_consistent(output: str, prompt: str | None) -> None:
    report = score_hallucination_risk(output, prompt=prompt)
    assert isinstance(report, RiskReport)
    assert 0.0 <= report.score <= 1.0
    assert all(0.0 <= v <= 1.0 for v in report.indicators.values())
    expected = "high" if report.score >= 0.6 else "medium" if report.score >= 0.3 else "low"
    assert report.level == expected
    # The score never exceeds what the weights allow with every indicator at full strength.
    ceiling = 1.0
    for weight in RISK_WEIGHTS.values():
        ceiling *= 1.0 - weight
    assert report.score <= round(1.0 - ceiling, 4)
