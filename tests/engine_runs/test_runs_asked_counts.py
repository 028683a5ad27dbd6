"""Issue 14: a bare number that answers "how many ...?" must be a count of the turn's results
(``asked_counts.check_asked_counts``).

The runs are written for these tests: a made-up calendar tool whose events carry ids and participant lists
(so the digits of an edited count are values of the results anyway), answered tersely, as AgentDojo's
agents answer.
"""

import pytest

from tests.engine_runs.runs_helpers import flagged as _flagged
from tests.engine_runs.runs_helpers import run_with_calls as _run
from verification.engine.runs import verify_run

_EVENTS = [
    {"id": "4", "title": "Stand-up", "participants": ["ana@example.org", "li@example.org"]},
    {"id": "9", "title": "Review", "participants": ["ana@example.org", "li@example.org", "jo@example.org"]},
    {"id": "12", "title": "Lunch", "participants": ["ana@example.org"]},
]


@pytest.mark.parametrize(
    "question,answer,bad",
    [
        ("How many events do I have today?", "3", None),
        # 4 is an event's id, not a count of anything the turn returned.
        ("How many events do I have today?", "4", "4"),
        ("Do these: 1. How many events do I have today? 2. Who is at the review?", "1. 4 2. Jo", "4"),
        # A count the results keep (two events have two participants or more) is a count of them.
        ("How many events do I have today?", "2", None),
        # Not asked how many: the number is read as any other value.
        ("What is the stand-up's id?", "4", None),
        # In prose the number may count something else; only a bare answer is read.
        ("How many events do I have today?", "The stand-up has id 4.", None),
    ],
)
def test_it_reads_a_bare_answer_to_how_many_as_a_count_of_the_turns_results(question, answer, bad):
    report = verify_run(_run(question, [("get_day_events", {"day": "2025-03-04"}, _EVENTS)], answer))
    assert _flagged(report) == ([] if bad is None else [(bad, "CONTRADICTED")])
