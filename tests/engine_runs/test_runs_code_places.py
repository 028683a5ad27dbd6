"""Issue 14, span F1 and recall: an airport code told after a place that is another airport of the run.

"from Houston (ORD) to Denver (DEN)" when the booking goes from IAH: Houston is IAH's city, ORD is another
airport the results hold, so the code is wrong (``code_places.check_code_places``). A code that the place
names ("New York (EWR)"), or a place that names no airport of the results, is left alone.
The runs are made up for these tests.
"""

import pytest

from tests.engine_runs.runs_helpers import flagged as _flagged
from tests.engine_runs.runs_helpers import run_with_calls as _run
from verification.engine.runs import verify_run


def _leg(origin, destination, number, day, price):
    leg = {"origin": origin, "destination": destination}
    return leg | {"flight_number": number, "date": day, "price": price}


_BOOKING = {
    "reservation_id": "K2P9QZ",
    "origin": "IAH",
    "destination": "DEN",
    "flight_type": "round_trip",
    "flights": [
        _leg("IAH", "ORD", "HAT078", "2024-05-27", 146),
        _leg("ORD", "DEN", "HAT118", "2024-05-27", 90),
        _leg("DEN", "EWR", "HAT290", "2024-05-30", 120),
        _leg("EWR", "IAH", "HAT300", "2024-05-30", 99),
    ],
}
_JFK = {"flight_number": "HAT001", "origin": "JFK", "destination": "DEN", "date": "2024-05-29", "price": 80}


def _verify(answer):
    calls = [
        ("get_reservation_details", {"reservation_id": "K2P9QZ"}, _BOOKING),
        ("get_flight_status", {"flight_number": "HAT001"}, _JFK),
    ]
    return verify_run(_run("Can you look at my booking K2P9QZ?", calls, answer))


def test_it_flags_a_code_told_after_another_airports_city():
    answer = "I found your booking K2P9QZ for the trip from Houston (ORD) to Denver (DEN)."
    flagged = _flagged(_verify(answer))
    assert flagged == [("ORD", "CONTRADICTED")]


@pytest.mark.parametrize(
    "answer",
    [
        "I found your booking K2P9QZ for the trip from Houston (IAH) to Denver (DEN).",
        # EWR's places hold "new york city": "New York" is a shorter form of it, though JFK is New York's too.
        "Your return goes from Denver (DEN) to Houston (IAH) through New York (EWR).",
        # A place that names no airport of the results decides nothing.
        "Your first stop is Chicago (ORD), on the way from Houston (IAH).",
    ],
)
def test_it_leaves_a_code_its_place_names_alone(answer):
    assert _flagged(_verify(answer)) == []
