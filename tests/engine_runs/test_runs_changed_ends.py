"""Issue 14: the old end in "change the destination from X to Y" must be that end of the booking the run
fetched (``changed_ends.check_changed_ends``).

The runs are written for these tests: a made-up ferry company whose booking record gives the trip's origin
and destination at its top level and its two legs (through a stop) in a list.
"""

import pytest

from tests.engine_runs.runs_helpers import flagged as _flagged
from tests.engine_runs.runs_helpers import run_with_calls as _run
from verification.engine.runs import verify_run

_BOOKING = {
    "booking_id": "FR88QX",
    "origin": "KIE",
    "destination": "OSL",
    "legs": [
        {"origin": "KIE", "destination": "GOT", "sailing": "FK101", "date": "2025-06-03"},
        {"origin": "GOT", "destination": "OSL", "sailing": "FK207", "date": "2025-06-03"},
    ],
}
_ASK = "Can I go to CPH instead on the same day?"


@pytest.mark.parametrize(
    "answer,bad",
    [
        ("I'm sorry, the policy does not allow changing the destination from OSL to CPH.", None),
        # GOT is the stop of the trip, not its destination.
        ("I'm sorry, the policy does not allow changing the destination from GOT to CPH.", "GOT"),
        ("Changing your origin from GOT to CPH is not possible for this fare.", "GOT"),
        ("Changing your origin from KIE to CPH is not possible for this fare.", None),
    ],
)
def test_it_reads_the_old_end_of_a_change_against_the_bookings_end(answer, bad):
    report = verify_run(_run(_ASK, [("get_booking", {"booking_id": "FR88QX"}, _BOOKING)], answer))
    assert _flagged(report) == ([] if bad is None else [(bad, "CONTRADICTED")])


def test_it_leaves_the_phrase_alone_when_no_booking_was_fetched():
    # A search gives its sailings' ends inside a list: no top-level end to compare with.
    sailings = [{"origin": "KIE", "destination": "GOT"}, {"origin": "GOT", "destination": "OSL"}]
    answer = "You asked to change the destination from GOT to CPH; I can't do that here."
    report = verify_run(_run(_ASK, [("search_sailings", {"origin": "KIE"}, sailings)], answer))
    assert _flagged(report) == []
