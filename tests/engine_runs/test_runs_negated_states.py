"""Issue 14: "there are no nonstop flights available" says what "not available" says.

A quantifier of none earlier in the clause ("no", "not any", "none of the") turns "available" into its
opposite (``mentions._NO_BEFORE``): an agent that reports an empty search in those words agrees with an
"Error: ... not available" of the run, and one that says a room is available still does not. The run is
written for these tests: a made-up room booking whose update fails.
"""

import pytest

from tests.engine_runs.runs_helpers import flagged as _flagged
from tests.engine_runs.runs_helpers import run_with_calls as _run
from verification.engine.runs import verify_run

_CALLS = [
    (
        "update_booking",
        {"room": "A12", "date": "2024-06-03"},
        "Error: room A12 not available on date 2024-06-03",
    ),
    ("search_rooms", {"date": "2024-06-03"}, []),
]


@pytest.mark.parametrize(
    "answer,bad",
    [
        ("It appears there are no rooms available on June 3, 2024. Shall I try another date?", None),
        ("Sorry, none of the rooms available on June 3, 2024 fit.", None),
        # Said the other way round, the claim is still against the error.
        ("Room A12 is available on June 3, 2024.", "available"),
        # "no" in another clause does not reach the state.
        ("No problem, room A12 is available on June 3, 2024.", "available"),
    ],
)
def test_it_reads_no_before_available_as_not_available(answer, bad):
    report = verify_run(_run("Can I have room A12 on June 3?", _CALLS, answer))
    assert [text for text, _ in _flagged(report)] == ([] if bad is None else [bad])
