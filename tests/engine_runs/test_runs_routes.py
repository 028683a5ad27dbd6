"""Issue 14: a route "A to B" of an answer must be a route of the run's records (``routes.check_routes``).

The runs are written for these tests: a made-up coach operator between Swiss and Portuguese stations
(codes of three capitals), a booking fetched first and a search after it, in the shape of the long
customer-service runs the class was found on (a place of another leg or of an earlier booking, swapped
into a sentence whose codes are each values of the run).
"""

import pytest

from tests.engine_runs.runs_helpers import flagged as _flagged
from tests.engine_runs.runs_helpers import run_with_calls as _run
from verification.engine.runs import verify_run

_BOOKING = {
    "booking": "K7QX2B",
    "origin": "BSL",
    "destination": "ZRH",
    "legs": [{"origin": "BSL", "destination": "ZRH", "coach": "CX410", "date": "2025-09-03"}],
}
_SEARCH = [
    {"coach": "CX120", "origin": "BRN", "destination": "GVA", "departs": "08:15:00", "fare": 39},
    {"coach": "CX128", "origin": "BRN", "destination": "GVA", "departs": "17:45:00", "fare": 44},
]


def _calls() -> list[tuple[str, dict[str, str], object]]:
    return [
        ("get_booking", {"booking": "K7QX2B"}, _BOOKING),
        ("search_coaches", {"origin": "BRN", "destination": "GVA", "date": "2025-09-04"}, _SEARCH),
    ]


@pytest.mark.parametrize(
    "answer,bad",
    [
        # The search's own route, and the booking's route the other way round (a return).
        ("Coaches CX120 and CX128 run from BRN to GVA on September 4.", None),
        ("Your booking K7QX2B goes BSL to ZRH; the way back would be ZRH to BSL.", None),
        # The booking's origin put on the search's route: a record goes to GVA from another origin.
        ("Coaches CX120 and CX128 run from ZRH to GVA on September 4.", "ZRH"),
        # The search's origin with the booking's origin as destination: BRN goes to GVA, not to BSL.
        ("Coaches CX120 and CX128 run from BRN to BSL on September 4.", "BSL"),
    ],
)
def test_it_contradicts_a_code_that_breaks_every_route_of_the_run(answer, bad):
    report = verify_run(_run("Coaches to Geneva on the 4th?", _calls(), answer))
    assert _flagged(report) == ([] if bad is None else [(bad, "CONTRADICTED")])


def test_it_cites_the_route_that_the_code_breaks():
    answer = "Coaches CX120 and CX128 run from ZRH to GVA on September 4."
    report = verify_run(_run("Coaches to Geneva on the 4th?", _calls(), answer))
    (claim,) = report.flagged_claims
    assert {e.text for e in claim.evidence_spans} >= {"BRN", "GVA"}


def test_it_joins_two_legs_of_one_result_as_one_stop():
    trip = {"origin": "BRN", "destination": "LIS", "legs": [
        {"origin": "BRN", "destination": "GVA", "coach": "CX120"},
        {"origin": "GVA", "destination": "LIS", "coach": "CX904"},
    ]}  # fmt: skip
    answer = "Your trip K2 runs BRN to LIS with a change in Geneva; CX120 takes you from BRN to GVA."
    report = verify_run(_run("My trip?", [("get_trip", {"trip": "K2"}, trip)], answer))
    assert _flagged(report) == []


def test_it_does_not_join_legs_of_two_results():
    first = {"origin": "BRN", "destination": "GVA", "coach": "CX120"}
    second = {"origin": "GVA", "destination": "LIS", "coach": "CX904"}
    calls = [("get_ticket", {"ticket": "T1"}, first), ("get_ticket", {"ticket": "T2"}, second)]
    answer = "Ticket T1 is coach CX120 from BRN to LIS."
    report = verify_run(_run("My tickets?", calls, answer))
    # GVA to LIS is a route of the run: the origin is the code that breaks it.
    assert _flagged(report) == [("BRN", "CONTRADICTED")]


def test_it_leaves_a_route_with_no_record_from_its_origin_or_to_its_destination():
    # Nothing leaves GVA and nothing reaches BSL: which end is wrong cannot be told.
    answer = "Coaches CX120 and CX128 run from BRN to GVA, and CX410 from GVA to BSL."
    report = verify_run(_run("Coaches to Geneva on the 4th?", _calls(), answer))
    assert _flagged(report) == []


@pytest.mark.parametrize("origin,bad", [("BRN", None), ("ZRH", "ZRH")])
def test_it_reads_origin_and_destination_lines_as_a_route(origin, bad):
    answer = (
        "Here are the details:\n\n"
        f"- **Origin:** {origin}\n- **Destination:** GVA\n- **Coach:** CX120\n- **Fare:** $39"
    )
    report = verify_run(_run("Coaches to Geneva on the 4th?", _calls(), answer))
    assert _flagged(report) == ([] if bad is None else [(bad, "CONTRADICTED")])


def test_it_reads_a_labelled_route_with_names_before_the_codes():
    answer = "- Origin: Zurich (ZRH)\n- Destination: Geneva (GVA)"
    report = verify_run(_run("Coaches to Geneva on the 4th?", _calls(), answer))
    assert ("ZRH", "CONTRADICTED") in _flagged(report)
