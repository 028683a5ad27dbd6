"""A period the run names by a word ("the past decade", "a fortnight") is the same length in numbers."""

from __future__ import annotations

import pytest

from tests.engine_runs.runs_helpers import make_run
from verification.engine.runs import verify_run

RESULT = {"station": "Harbour Point", "rain_mm_today": 4}


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        (
            "How has rainfall changed over the past decade?",
            "I have no records for the past 10 years, only today's 4 mm.",
        ),
        ("Any rain in the last fortnight?", "I can't see the last 14 days; today there were 4 mm."),
    ],
)
def test_it_supports_a_period_the_run_names_in_words(question, answer):
    assert not verify_run(make_run(question, [RESULT], answer)).hallucination_detected


def test_it_still_flags_a_period_of_another_length():
    answer = "I have no records for the past 12 years, only today's 4 mm."
    report = verify_run(make_run("How has rainfall changed over the past decade?", [RESULT], answer))
    assert [c.text for c in report.flagged_claims] == ["12 years"]
