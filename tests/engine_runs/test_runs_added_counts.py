"""Issue 14: a count of things the user asked to add, restated on an answer line about adding, must be the
requested count (``added_counts.check_added_counts``).

The runs are written for these tests: a made-up coach company whose booking record counts suitcases and
seats, and a user who asks to add suitcases or seats.
"""

import pytest

from tests.engine_runs.runs_helpers import flagged as _flagged
from tests.engine_runs.runs_helpers import run_with_calls as _run
from verification.engine.runs import verify_run

_BOOKING = {"booking_id": "CX41", "suitcases": 2, "seats": 2, "route": "Leeds to York"}


def _report(ask, answer):
    return verify_run(_run(ask, [("get_coach_booking", {"booking_id": "CX41"}, _BOOKING)], answer))


@pytest.mark.parametrize(
    "answer,bad",
    [
        ("- **Additional suitcase:** 1 suitcase\n\nShall I go ahead?", None),
        # The user asked for one; 2 is the booking's own count, not the added one.
        ("- **Additional suitcase:** 2 suitcases\n\nShall I go ahead?", "2"),
        ("I will add two extra suitcases to booking CX41. Shall I go ahead?", "two"),
    ],
)
def test_it_reads_an_added_count_against_the_request(answer, bad):
    report = _report("Please add one suitcase to booking CX41.", answer)
    assert _flagged(report) == ([] if bad is None else [(bad, "CONTRADICTED")])


def test_it_leaves_a_total_after_the_addition_alone():
    # The booking's count after the addition is another count than the added one.
    calls = [
        ("get_coach_booking", {"booking_id": "CX41"}, _BOOKING),
        ("update_coach_booking", {"booking_id": "CX41", "suitcases": 3}, dict(_BOOKING, suitcases=3)),
    ]
    answer = "Done: one suitcase added, so the booking now has 3 suitcases."
    report = verify_run(_run("Please add one suitcase to booking CX41.", calls, answer))
    assert _flagged(report) == []


def test_it_leaves_counts_alone_when_the_user_added_nothing():
    answer = "Your booking has 2 suitcases and 2 seats; an additional suitcase can be added on request."
    assert _flagged(_report("How many suitcases are on booking CX41?", answer)) == []
