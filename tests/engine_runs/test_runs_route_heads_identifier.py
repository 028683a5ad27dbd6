"""Issue 14, recall: a route that heads an identifier on its line is that identifier's route.

"  - JFK to LAS: Flight HAT112" when HAT112 flies from IAH: the route comes before the identifier, so the
identifier's block (the rest of its line and the lines under it) never held it (``trips._check_identified``).
A line that goes on to a second flight ("IAH to SEA: Flight HAT112 (then HAT047)") heads a connection,
not its first flight. The runs are made up for these tests.
"""

from tests.engine_runs.runs_helpers import flagged as _flagged
from tests.engine_runs.runs_helpers import run_with_calls as _run
from verification.engine.runs import verify_run


def _leg(origin, destination, number, day):
    return {"origin": origin, "destination": destination, "flight_number": number, "date": day, "price": 120}


_BOOKING = {
    "reservation_id": "M4XQ7B",
    "origin": "IAH",
    "destination": "SEA",
    "flight_type": "one_way",
    "flights": [_leg("IAH", "LAS", "HAT112", "2024-05-24"), _leg("LAS", "SEA", "HAT047", "2024-05-24")],
}
_OTHER = {
    "reservation_id": "P2R8NC",
    "origin": "JFK",
    "destination": "LAS",
    "flight_type": "one_way",
    "flights": [_leg("JFK", "LAS", "HAT010", "2024-05-20")],
}


def _verify(answer):
    calls = [
        ("get_reservation_details", {"reservation_id": "M4XQ7B"}, _BOOKING),
        ("get_reservation_details", {"reservation_id": "P2R8NC"}, _OTHER),
    ]
    return verify_run(_run("What flights are on reservation M4XQ7B?", calls, answer))


_SEGMENTS = (
    "Here is reservation M4XQ7B on May 24, 2024:\n\n"
    "- **Flight Segments:**\n"
    "  - {origin} to LAS: Flight HAT112\n"
    "  - LAS to SEA: Flight HAT047 (Economy)\n"
)


def test_it_flags_the_wrong_end_of_a_route_that_heads_an_identifier():
    assert [text for text, _ in _flagged(_verify(_SEGMENTS.format(origin="JFK")))] == ["JFK"]


def test_it_keeps_a_route_its_identifier_has():
    assert _flagged(_verify(_SEGMENTS.format(origin="IAH"))) == []


def test_it_reads_a_route_before_a_connection_as_the_connections():
    # IAH to SEA is the connection HAT112 then HAT047, not HAT112's route: its end is not read as wrong.
    answer = "Your trip on May 24, 2024:\n- IAH to SEA: Flight HAT112 (then HAT047)\n"
    assert "SEA" not in [text for text, _ in _flagged(_verify(answer))]
