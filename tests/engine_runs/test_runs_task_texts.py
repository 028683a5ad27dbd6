"""The text of a reminder or task, however the answer introduces it.

"a reminder for you to ...", "reminder added to ...", "your first reminder is to ..." put a task's text
after the word as much as "a reminder to ..." does; a text whose words are nowhere in the run is a made-up
task in each of these forms.
"""

from __future__ import annotations

import pytest

from tests.engine_runs.runs_helpers import make_run
from verification.engine.runs import verify_run

RESULT = {"reminders": [{"id": "r-19", "task": "Water the ferns", "due": "2024-06-02 18:00:00"}]}


@pytest.mark.parametrize(
    "lead",
    [
        "I set a reminder for you to",
        "Reminder added to",
        "Your first reminder is to",
        "A reminder was set to",
    ],
)
def test_it_checks_the_task_text_after_every_introducer(lead):
    good = verify_run(make_run("My reminders?", [RESULT], f"{lead} water the ferns."))
    bad = verify_run(make_run("My reminders?", [RESULT], f"{lead} repaint the garage door."))
    assert not good.hallucination_detected
    assert [c.text for c in bad.flagged_claims] == ["repaint the garage door"]


def test_it_reads_no_task_text_where_to_is_not_the_task():
    answer = "I added the reminder to your list; it says water the ferns."
    assert not verify_run(make_run("My reminders?", [RESULT], answer)).hallucination_detected
