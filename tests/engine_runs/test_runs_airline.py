"""Issue 14: classes found on the tau-bench airline runs of the second dev set (tasks 24-28).

The runs are written for these tests (a made-up ferry operator and its bookings), not copied from the set.
"""

import pytest

from tests.engine_runs.runs_helpers import flagged as _flagged
from tests.engine_runs.runs_helpers import run_with_calls as _run
from verification.engine.runs import verify_run

_USER = {"user_id": "ines_8", "bookings": ["FX81QZ", "FX92LA"], "sku": None}


@pytest.mark.parametrize(
    "answer,bad",
    [
        # "IDs" is the plural of the id the results key their bookings by.
        ("Here are your booking IDs:\n\n1. FX81QZ\n2. FX92LA", None),
        # An abbreviation the run does not have is still a name to check.
        ("Here are your booking PINs:\n\n1. FX81QZ\n2. FX92LA", "PINs"),
    ],
)
def test_it_reads_the_plural_of_an_abbreviation_of_the_run_as_that_abbreviation(answer, bad):
    report = verify_run(_run("My bookings?", [("get_user", {"user_id": "ines_8"}, _USER)], answer))
    assert [t for t, _ in _flagged(report)] == ([] if bad is None else [bad])
