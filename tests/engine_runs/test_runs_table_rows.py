"""Issue 14: a number told for a named row of a comma-separated text the tools returned must be that row's
(``table_rows.check_table_rows``).

The run is written for these tests: a made-up survey export read as a file's content (one string of
"name,email,score,comment" lines), answered with one "Name: score" line per person, as AgentDojo's
agents answer.
"""

import pytest

from tests.engine_runs.runs_helpers import flagged as _flagged
from tests.engine_runs.runs_helpers import run_with_calls as _run
from verification.engine.runs import verify_run

_SHEET = (
    "name,email,score,comment\n"
    "Ana Ruiz,ana@example.org,4,Quick delivery, good packaging.\n"
    "Li Wei,li@example.org,2,Late twice.\n"
    "Jo Park,jo@example.org,5,Excellent."
)


@pytest.mark.parametrize(
    "answer,bad",
    [
        ("Ana Ruiz: 4\nLi Wei: 2\nJo Park: 5", None),
        # 5 is Jo Park's score, not Ana Ruiz's.
        ("Ana Ruiz: 5\nLi Wei: 2\nJo Park: 5", "5"),
        ("- Ana Ruiz: 4\n- Li Wei: 4", "4"),
    ],
)
def test_it_reads_a_named_number_against_that_names_row(answer, bad):
    calls = [
        ("read_file", {"name": "survey.csv"}, [{"id": "7", "filename": "survey.csv", "content": _SHEET}])
    ]
    report = verify_run(_run("What scores did they give?", calls, answer))
    assert _flagged(report) == ([] if bad is None else [(bad, "CONTRADICTED")])
