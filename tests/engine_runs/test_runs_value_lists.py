"""Issue 14, third round: false alarms on terse, correct answers (value lists, list markers, durations in
clock notation, totals over several steps), each class on runs written for these tests."""

from typing import Any

import pytest

from tests.engine_runs.runs_helpers import flagged as _flagged
from tests.engine_runs.runs_helpers import run_with_calls as _run
from verification.engine.runs import verify_run

SHELVES: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    ("list_shelves", {}, {"shelves": [{"label": "north", "bins": 7}, {"label": "south", "bins": 2}]})
]


@pytest.mark.parametrize(
    "answer",
    [
        "1. north 2. south",
        "1.  2.",
        "Two things:\n1. The north shelf.\n2. The south shelf.\n3. Nothing else.",
        "1) north\n2) south",
    ],
)
def test_it_reads_no_value_into_the_numbers_of_a_list(answer):
    run = _run("Which shelves are there, in two points?", SHELVES, answer)
    assert _flagged(verify_run(run)) == []


def test_it_still_checks_a_value_inside_a_numbered_list():
    run = _run("How many bins has the north shelf?", SHELVES, "1. The north shelf has 12 bins.\n2. Done.")
    assert ("12", "CONTRADICTED") in _flagged(verify_run(run))


def test_it_keeps_a_sentence_final_number_that_no_list_numbers():
    run = _run(
        "What does the ticket cost?",
        [("fare", {}, {"fare_usd": 40})],
        "The ticket costs $52. Have a good trip.",
    )
    assert ("$52", "CONTRADICTED") in _flagged(verify_run(run)) or ("$52", "UNSUPPORTED") in _flagged(
        verify_run(run)
    )


DAY = [
    (
        "agenda",
        {"day": "2031-02-04"},
        {
            "events": [
                {"title": "stand-up", "start": "2031-02-04 09:15", "end": "2031-02-04 09:40"},
                {"title": "dentist", "start": "2031-02-04 11:10", "end": "2031-02-04 12:00"},
            ]
        },
    )
]


@pytest.mark.parametrize("answer", ["1:30", "You have 1:30 between the stand-up and the dentist.", "0:25"])
def test_it_reads_hours_and_minutes_between_two_times_as_a_duration(answer):
    # 09:40 -> 11:10 is an hour and a half; 09:15 -> 09:40 twenty-five minutes.
    run = _run("How long is the gap before the dentist? Answer as H:MM.", DAY, answer)
    assert _flagged(verify_run(run)) == []


def test_it_still_contradicts_a_clock_time_that_is_no_duration_of_the_run():
    run = _run("When does the dentist start?", DAY, "The dentist starts at 1:20.")
    assert ("1:20", "CONTRADICTED") in _flagged(verify_run(run))


TRIP = [
    (
        "quotes",
        {"city": "Ghent"},
        {"rooms": [{"inn": "Lindenhof", "nightly": 85.0}], "meals": [{"place": "De Kade", "per_day": 21.0}]},
    )
]


def test_it_does_not_flag_a_bare_total_it_cannot_derive():
    # 3 nights at 85 plus meals at 21 a day: 318, two steps of arithmetic the rules do not follow. A bare
    # number (no unit, currency or noun) is not a checkable value on its own.
    run = _run("Three nights in Ghent with meals: what in total?", TRIP, "Lindenhof, De Kade, 318")
    assert _flagged(verify_run(run)) == []


def test_it_still_flags_a_total_with_its_currency_that_nothing_supports():
    run = _run("Three nights in Ghent with meals: what in total?", TRIP, "Lindenhof, De Kade, €9,318")
    assert [label for text, label in _flagged(verify_run(run)) if text == "€9,318"] == ["UNSUPPORTED"]


def test_it_still_contradicts_a_bare_number_of_another_item():
    run = _run(
        "What does a night at Lindenhof cost?",
        [
            (
                "rooms",
                {},
                {"rooms": [{"inn": "Lindenhof", "nightly": 85.0}, {"inn": "Zonnehuis", "nightly": 120.0}]},
            )
        ],
        "Lindenhof: 120.0 a night.",
    )
    assert _flagged(verify_run(run)) != []


def test_it_still_flags_a_bare_number_nothing_supports_when_no_total_was_asked_for():
    run = _run("Which inn and where to eat?", TRIP, "Lindenhof, De Kade, 318")
    assert ("318", "UNSUPPORTED") in _flagged(verify_run(run))


def test_it_still_flags_a_changed_value_of_an_item_when_a_total_was_asked_for():
    # The inn's nightly price told wrong: smaller than the values of the items, so it is no total.
    run = _run("Three nights in Ghent with meals: what in total?", TRIP, "Lindenhof at 58, De Kade")
    assert ("58", "UNSUPPORTED") in _flagged(verify_run(run))


CHORES: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    ("list_reminders", {}, {"reminders": [{"text": "defrost the freezer", "due": "2031-03-02"}]})
]


@pytest.mark.parametrize(
    "answer",
    [
        "You have a reminder to clean the gutters on March 2.",
        'Your only reminder is "Clean the gutters".',
    ],
)
def test_it_flags_a_task_text_or_quoted_title_that_appears_nowhere(answer):
    run = _run("What is on my list?", CHORES, answer)
    assert [label for _, label in _flagged(verify_run(run))] in (["UNSUPPORTED"], ["CONTRADICTED"])


@pytest.mark.parametrize(
    "answer",
    [
        "You have a reminder to defrost the freezer on March 2.",
        "You have a reminder to defrost your freezr on March 2.",
        'Your only reminder is "Defrost the freezer".',
        "I'll remind you to do it on March 2.",
    ],
)
def test_it_grounds_a_task_text_the_results_give_even_retold(answer):
    run = _run("What is on my list?", CHORES, answer)
    assert _flagged(verify_run(run)) == []
