"""Relative dates ("today", "tomorrow", "next Friday", "in 3 days") read against the run's own date.

The system prompt of many assistants states when the conversation happens. A relative date in the answer is
then a date like any other: right when the results give it, wrong when the item it is told of has another
date. Without a date in the system prompt, relative dates are no claims.
"""

from __future__ import annotations

import json
from datetime import date, timedelta

import pytest

from tests.engine_runs.runs_helpers import make_run
from verification.engine.runs import verify_run

RUN_DAY = date(2024, 3, 5)  # a Tuesday
SYSTEM = f"You are a scheduling assistant.\nuser: kim\ncurrent time: {RUN_DAY.isoformat()} 08:15:00"


def _day(offset: int) -> str:
    return (RUN_DAY + timedelta(days=offset)).isoformat()


def _outlook(days: list[int], conditions: list[str]) -> dict:
    return {
        "outlook": [
            {"day": _day(d), "temp_max_c": 10 + 3 * i, "sky": c}
            for i, (d, c) in enumerate(zip(days, conditions, strict=True))
        ]
    }


ALARM = json.dumps({"at": "06:45"})


def _flags(report) -> list[tuple[str, str]]:
    return [(c.text, c.label) for c in report.flagged_claims]


@pytest.mark.parametrize(("offset", "word"), [(0, "today"), (1, "tomorrow"), (2, "the day after tomorrow")])
def test_it_supports_a_relative_day_that_the_results_give(offset, word):
    tasks = {"tasks": [{"title": "Dentist", "due": f"{_day(offset)} 16:00:00"}]}
    run = make_run("What's due?", [tasks], f"The dentist appointment is due {word} at 4 PM.", system=SYSTEM)
    report = verify_run(run)
    assert not report.hallucination_detected
    assert any(c.text == word and c.label == "SUPPORTED" for c in report.claims)


def test_it_contradicts_today_for_an_item_due_tomorrow():
    tasks = {"tasks": [{"title": "Dentist", "due": f"{_day(1)} 16:00:00"}]}
    run = make_run("What's due?", [tasks], "The dentist appointment is due today at 4 PM.", system=SYSTEM)
    assert _flags(verify_run(run)) == [("today", "CONTRADICTED")]


def test_it_reads_the_weather_of_the_day_a_relative_date_names():
    # "tomorrow" picks tomorrow's entry of the outlook: its sky is what the sentence must agree with.
    result = _outlook([1, 2, 3], ["Overcast", "Sunny", "Snowy"])
    good = verify_run(make_run("Weather ahead?", [result], "Tomorrow it will be overcast.", system=SYSTEM))
    bad = verify_run(make_run("Weather ahead?", [result], "Tomorrow it will be sunny.", system=SYSTEM))
    assert not good.hallucination_detected
    assert ("sunny", "CONTRADICTED") in _flags(bad)


def test_it_contradicts_a_forecast_day_told_as_today():
    result = _outlook([1, 2, 3], ["Overcast", "Sunny", "Snowy"])
    run = make_run("Weather ahead?", [result], "In Turin it will be overcast today.", system=SYSTEM)
    assert ("today", "CONTRADICTED") in _flags(verify_run(run))


def test_it_resolves_weekdays_and_day_counts():
    # The run is on a Tuesday: "this Friday" and "in 3 days" are both the 8th.
    tasks = {"tasks": [{"title": "Report", "due": f"{_day(3)} 09:00:00"}]}
    for phrase in ("this Friday", "in 3 days", "next Friday"):
        run = make_run("When is the report due?", [tasks], f"Your report is due {phrase}.", system=SYSTEM)
        assert not verify_run(run).hallucination_detected, phrase
    wrong = make_run("When is the report due?", [tasks], "Your report is due next Monday.", system=SYSTEM)
    assert _flags(verify_run(wrong)) == [("next Monday", "CONTRADICTED")]


def test_it_makes_no_claim_of_a_relative_date_without_the_run_date():
    tasks = {"tasks": [{"title": "Dentist", "due": f"{_day(1)} 16:00:00"}]}
    run = make_run("What's due?", [tasks], "The dentist appointment is due today at 4 PM.")
    report = verify_run(run)
    assert not report.hallucination_detected
    assert all(c.text != "today" for c in report.claims)


def test_it_leaves_pleasantries_and_quoted_text_alone():
    tasks = {"tasks": [{"title": "Dentist", "due": f"{_day(1)} 16:00:00"}]}
    question = 'What is due? Also tell Ana "see you on Saturday".'
    answers = [
        "Your dentist appointment is tomorrow at 4 PM. Is there anything else I can help with today?",
        'The dentist appointment is tomorrow at 4 PM, and I told Ana "see you on Saturday".',
    ]
    for answer in answers:
        report = verify_run(make_run(question, [tasks], answer, system=SYSTEM))
        assert not report.hallucination_detected, answer
        assert [c.text for c in report.claims if c.text in ("today", "on Saturday")] == []


def test_it_makes_no_claim_for_an_item_that_has_no_date():
    # An alarm is set for a time only: "tomorrow" says nothing the call could contradict, even when another
    # result of the run has dates.
    messages = [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": "Set an alarm for 6:45 and list my tasks."},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "a", "type": "function", "function": {"name": "set_alarm", "arguments": ALARM}},
                {"id": "b", "type": "function", "function": {"name": "list_tasks", "arguments": "{}"}},
            ],
        },
        {"role": "tool", "tool_call_id": "a", "content": json.dumps({"alarm": "al-77"})},
        {
            "role": "tool",
            "tool_call_id": "b",
            "content": json.dumps({"tasks": [{"title": "Gym", "due": f"{_day(4)} 18:00:00"}]}),
        },
        {"role": "assistant", "content": "Done: your alarm will ring at 6:45 tomorrow."},
    ]
    assert not verify_run(messages).hallucination_detected
