"""Issue 14: an amount called a total that only a difference of the run's values gives is unsupported
(``labelled_totals.check_labelled_totals``).

The run is written for these tests: a made-up rail booking whose two fares, balance and refund give
differences an edited total can fall on.
"""

import pytest

from tests.engine_runs.runs_helpers import flagged as _flagged
from tests.engine_runs.runs_helpers import run_with_calls as _run
from verification.engine.runs import verify_run

_BOOKING = {
    "legs": [{"train": "IC512", "fare": 84}, {"train": "IC519", "fare": 71}],
    "voucher_balance": 240,
    "paid": 310,
}


@pytest.mark.parametrize(
    "answer,bad",
    [
        # 84 + 71: the total of the two fares.
        ("Your trip:\n- IC512\n- IC519\n- **Total Price:** $155", None),
        # 156 = 240 - 84, a difference only: no sum of the run's amounts is 156.
        ("Your trip:\n- IC512\n- IC519\n- **Total Price:** $156", "$156"),
        # A total after a subtraction the line names is a difference by its own words.
        ("Your trip:\n- IC512\n- **Total after the voucher:** $156", None),
        # The amounts listed just before it add up to it: the total stands, the edited fare does not.
        ("Your trip:\n- IC512: $84\n- IC519: $72\n- **Total Price:** $156", "$72"),
    ],
)
def test_it_reads_a_total_as_a_sum(answer, bad):
    report = verify_run(_run("What does my trip cost?", [("get_booking", {"id": "R7"}, _BOOKING)], answer))
    assert _flagged(report) == ([] if bad is None else [(bad, "UNSUPPORTED")])
