"""Dates at the calendar's ends: a run dated 9999-12-31 or 0001-01-01 is verified, not an exception.

"Tomorrow" of 9999-12-31 and "yesterday" of 0001-01-01 are past what ``datetime.date`` holds (an
``OverflowError``, which reached the caller as a 500); so was the next day of a flight dated 9999-12-31,
read for overnight arrivals.  Such dates now simply mean nothing to compare.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.engine_runs.runs_helpers import flagged, run_with_calls
from verification.engine.runs import verify_run


def _run(today: str, answer: str, result: Any) -> list[dict[str, Any]]:
    msgs = run_with_calls("Book it", [("search_flights", {}, result)], answer)
    return [{"role": "system", "content": f"timestamp: {today} 09:00:00"}, *msgs]


@pytest.mark.parametrize(
    ("today", "answer"),
    [
        ("9999-12-31", "Tomorrow flight HAT001 leaves JFK for LAX."),
        ("9999-12-31", "The day after tomorrow flight HAT001 leaves JFK for LAX."),
        ("9999-12-27", "Next Friday flight HAT001 leaves JFK for LAX."),
        ("0001-01-01", "Yesterday flight HAT001 left JFK for LAX."),
        ("0001-01-01", "On Friday flight HAT001 left JFK for LAX."),
    ],
)
def test_it_verifies_a_relative_date_past_the_calendars_end(today: str, answer: str) -> None:
    result = {"flight_number": "HAT001", "origin": "JFK", "destination": "LAX", "date": today}
    report = verify_run(_run(today, answer, result))
    assert not any(label == "CONTRADICTED" and "omorrow" in text for text, label in flagged(report))


def test_it_checks_a_route_of_a_flight_on_the_last_day_of_the_calendar() -> None:
    flights = [
        {"flight_number": "HAT001", "origin": "JFK", "destination": "LAX", "date": "9999-12-31"},
        {"flight_number": "HAT002", "origin": "LAX", "destination": "JFK", "date": "9999-12-31"},
    ]
    answer = "Flight HAT001 goes from LAX to JFK on 9999-12-31."
    report = verify_run(_run("9999-12-25", answer, {"flights": flights}))
    assert report.hallucination_detected


def test_it_verifies_a_weekday_told_for_a_date_no_calendar_has() -> None:
    # The result says 2024-02-30 (no such day); the answer names its weekday: nothing to compare, no error.
    result = {"flight_number": "HAT001", "date": "2024-02-30"}
    report = verify_run(_run("2024-02-01", "Flight HAT001 leaves on Friday, February 30, 2024.", result))
    assert report.hallucination_detected is False


def test_it_counts_days_between_evidence_dates_past_one_that_is_no_calendar_day() -> None:
    # A duration is checked against the days between the results' dates; 2024-02-30 is skipped, the
    # two real dates still support "12 days" and do not support "19 days".
    result = {"start": "2024-02-30", "end": "2024-03-01", "checkout": "2024-03-13"}
    told = verify_run(_run("2024-02-01", "The stay lasts 12 days.", result))
    assert flagged(told) == []
    wrong = verify_run(_run("2024-02-01", "The stay lasts 19 days.", result))
    assert flagged(wrong) == [("19 days", "UNSUPPORTED")]
