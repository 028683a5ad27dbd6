"""Issue 14, span F1: a route that introduces this turn's search, with one end wrong, blames that end.

"I found two nonstop flights from JFK to SFO on May 19, 2024:" after a search from IAH to SFO on May 19,
when the booking has JFK to SFO on another day: the route exists on another day, so the date used to be
flagged ("the run has this route on other days"), but the sentence introduces the search just made, whose
day it tells; the wrong value is the origin (``trips.check_trips``). The runs are made up for these tests.
"""

import pytest

from tests.engine_runs.runs_helpers import flagged as _flagged
from tests.engine_runs.runs_helpers import run_with_calls as _run
from verification.engine.runs import verify_run

_BOOKING = {
    "reservation_id": "Z8M3TQ",
    "origin": "JFK",
    "destination": "SFO",
    "flight_type": "one_way",
    "flights": [{"origin": "JFK", "destination": "SFO", "flight_number": "HAT023", "date": "2024-05-16"}],
}
_FOUND = [
    {
        "flight_number": "HAT072",
        "origin": "IAH",
        "destination": "SFO",
        "scheduled_departure_time_est": "11:00:00",
    },
    {
        "flight_number": "HAT278",
        "origin": "IAH",
        "destination": "SFO",
        "scheduled_departure_time_est": "16:00:00",
    },
]


def _verify(answer):
    calls = [
        ("get_reservation_details", {"reservation_id": "Z8M3TQ"}, _BOOKING),
        ("search_direct_flight", {"origin": "IAH", "destination": "SFO", "date": "2024-05-19"}, _FOUND),
    ]
    return verify_run(_run("Find me nonstop flights from Houston to San Francisco on May 19.", calls, answer))


_ANSWER = "I found two nonstop flights from {origin} to SFO on May 19, 2024:\n\n1. HAT072\n2. HAT278"


def test_it_blames_the_wrong_end_of_a_route_that_introduces_the_search():
    assert [text for text, _ in _flagged(_verify(_ANSWER.format(origin="JFK")))] == ["JFK"]


@pytest.mark.parametrize("origin", ["IAH"])
def test_it_keeps_the_searched_route_clean(origin):
    assert _flagged(_verify(_ANSWER.format(origin=origin))) == []


def test_it_still_flags_the_day_of_a_booked_route_told_on_the_searched_day():
    # Not an introduction of the search: the booking's route on the search's day is the booking's day wrong.
    answer = "Your booked trip from JFK to SFO on May 19, 2024 stays as it is."
    assert [text for text, _ in _flagged(_verify(answer))] == ["May 19, 2024"]
