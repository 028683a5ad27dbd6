"""Issue 14, recall: a full name that joins one person's first name to another person's last name.

"the flights for Mia Okafor" when the user's saved passengers are Mia Lund and Tom Okafor: each word is in
the run, so the name used to be supported word by word, but it names nobody
(``person_names.check_person_names``). The runs are made up for these tests.
"""

import pytest

from tests.engine_runs.runs_helpers import flagged as _flagged
from tests.engine_runs.runs_helpers import run_with_calls as _run
from verification.engine.runs import verify_run

_USER = {
    "name": {"first_name": "Rosa", "last_name": "Lund"},
    "email": "rosa.lund@example.com",
    "saved_passengers": [
        {"first_name": "Mia", "last_name": "Lund", "dob": "1990-02-11"},
        {"first_name": "Tom", "last_name": "Okafor", "dob": "1985-07-30"},
    ],
}


def _verify(answer):
    calls = [("get_user_details", {"user_id": "rosa_lund_1"}, _USER)]
    return verify_run(_run("Book the same flights for one of my saved passengers.", calls, answer))


def test_it_flags_a_name_made_of_two_peoples_names():
    flagged = _flagged(_verify("The total for the flights for Mia Okafor is the same as yours."))
    assert flagged == [("Mia Okafor", "CONTRADICTED")]


@pytest.mark.parametrize(
    "answer",
    [
        "The total for the flights for Mia Lund is the same as yours.",
        "The total for the flights for Tom Okafor is the same as yours.",
        # The user's own name, from the ``name`` object.
        "Booked for Rosa Lund, as you asked.",
    ],
)
def test_it_keeps_a_persons_own_name(answer):
    assert _flagged(_verify(answer)) == []
