"""Issue 14 (h22c): classes found on the tau-bench airline dev4 runs (trial 1 of tasks 19-27).

- The digits that end a snake_case identifier ("omar_reyes_1987", a user id the results give) are part of
  the identifier, not a year or a count to check (``mentions._SNAKE_GLUED``).
- Two legs named together with their routes in brackets ("IC401 (BRU to LYS) & IC519 (LYS to MRS)") head
  one itinerary: a price on the line under them may be either leg's, as without the brackets
  (``findings._JOINED``, ``records.check_records``).
- The addends of a sum written under the second leg ("- Price: $141 + $103 = $244") are the fares of the
  option's legs, the first leg's among them (``grounding._equation_operand``); a fare of another option's
  leg there is still flagged.
- A sum written out that does not add up ("$141 + $103 = $283") is contradicted, even when each amount is a
  value of the results (``equations.check_written_equations``).

The runs are written for these tests (a made-up rail operator and its customers), not copied from the set.
"""

import pytest

from tests.engine_runs.runs_helpers import flagged as _flagged
from tests.engine_runs.runs_helpers import run_with_calls as _run
from verification.engine.runs import verify_run

_BOOKING = {
    "booking_id": "RZ7Q2M",
    "user_id": "omar_reyes_1987",
    "origin": "BRU",
    "destination": "MRS",
    "legs": [{"train": "IC401", "date": "2025-03-14", "price": 141}],
    "passengers": [{"first_name": "Omar", "last_name": "Reyes", "dob": "1990-02-11"}],
    "created_at": "2025-03-02T10:12:00",
}


@pytest.mark.parametrize(
    "answer,bad",
    [
        ("I found your user ID, which is `omar_reyes_1987`. Your booking RZ7Q2M goes from BRU to MRS.", None),
        ('Your user ID is "omar_reyes_1987". The booking RZ7Q2M was made on 2025-03-02.', None),
        # A year in prose is still a year to check.
        ("Your booking RZ7Q2M was made in 1987.", "1987"),
    ],
)
def test_it_reads_the_digits_of_a_snake_case_identifier_as_part_of_it(answer, bad):
    report = verify_run(
        _run("Which booking is mine?", [("get_booking", {"booking_id": "RZ7Q2M"}, _BOOKING)], answer)
    )
    assert [t for t, _ in _flagged(report)] == ([] if bad is None else [bad])


def _leg(number, origin, destination, departs, arrives, second, first):
    return {
        "train": number,
        "origin": origin,
        "destination": destination,
        "departs": departs,
        "arrives": arrives,
        "prices": {"second": second, "first": first},
        "date": "2025-04-02",
    }


_SEARCH = [
    [
        _leg("IC401", "BRU", "LYS", "07:00:00", "11:30:00", 141, 377),
        _leg("IC519", "LYS", "MRS", "13:00:00", "15:00:00", 103, 283),
    ],
    [
        _leg("IC401", "BRU", "LYS", "07:00:00", "11:30:00", 141, 377),
        _leg("IC733", "LYS", "MRS", "18:00:00", "20:00:00", 96, 210),
    ],
    [
        _leg("IC618", "BRU", "LYS", "09:00:00", "13:30:00", 129, 342),
        _leg("IC519", "LYS", "MRS", "13:00:00", "15:00:00", 103, 283),
    ],
]


@pytest.mark.parametrize(
    "line,bad",
    [
        ("   - Trains: IC401 (BRU to LYS) & IC519 (LYS to MRS)\n     - Price: $141 + $103 = $244\n", None),
        ("   - Trains: IC401 (BRU to LYS) & IC733 (LYS to MRS)\n     - Price: $141 + $96 = $237\n", None),
        # A leg's price that is another train's is still caught.
        ("   - Trains: IC618 (BRU to LYS) & IC519 (LYS to MRS)\n     - Price: $129 + $96 = $225\n", "$96"),
    ],
)
def test_it_reads_two_legs_with_their_routes_in_brackets_as_one_itinerary(line, bad):
    answer = "Here are the second-class connections from BRU to MRS on April 2:\n\n" + line
    run = _run(
        "Connections to MRS?",
        [("search_connections", {"origin": "BRU", "destination": "MRS"}, _SEARCH)],
        answer,
    )
    flagged = [t for t, _ in _flagged(verify_run(run))]
    assert (bad in flagged) if bad else flagged == [], flagged


def _legs_answer(first, second, price_line):
    return (
        "Here are second-class options from BRU to MRS on 2025-04-02:\n\n"
        "1. **Option 1:**\n"
        f"   - **Train 1:** BRU to LYS on train {first}, departing at 07:00, arriving at 11:30\n"
        f"   - **Train 2:** LYS to MRS on train {second}, departing at 13:00, arriving at 15:00\n"
        f"   - **Price:** {price_line}\n"
    )


@pytest.mark.parametrize(
    "price_line,bad",
    [
        # The addends of a written sum under the second leg are both legs' fares.
        ("$141 + $103 = $244", []),
        # An addend nothing gives, and a sum its addends do not make, are still flagged.
        ("$141 + $150 = $291", ["$150"]),
        # Another option's leg fare (IC733's) under these two legs is still that item's.
        ("$141 + $96 = $237", ["$96"]),
    ],
)
def test_it_reads_the_addends_of_a_written_sum_under_a_leg_as_the_legs_fares(price_line, bad):
    answer = _legs_answer("IC401", "IC519", price_line)
    run = _run("Options to MRS?", [("search_connections", {"origin": "BRU"}, _SEARCH)], answer)
    flagged = [t for t, _ in _flagged(verify_run(run))]
    assert all(b in flagged for b in bad) and (flagged == [] if not bad else True), flagged


@pytest.mark.parametrize(
    "price_line,bad",
    [
        ("$141 + $103 = $244", []),
        ("$377 - $103 = $274", []),
        # A result that happens to be another value of the results (IC519's first-class fare) is still a
        # sum that does not add up; so is a result no value gives.
        ("$141 + $103 = $283", ["$283"]),
        ("$141 + $103 = $245", ["$245"]),
    ],
)
def test_it_flags_a_written_sum_that_does_not_add_up(price_line, bad):
    run = _run(
        "Options to MRS?",
        [("search_connections", {"origin": "BRU"}, _SEARCH)],
        _legs_answer("IC401", "IC519", price_line),
    )
    report = verify_run(run)
    assert [t for t, _ in _flagged(report)] == bad
    assert all(c.reason == "the sum the answer writes out does not add up" for c in report.flagged_claims)
