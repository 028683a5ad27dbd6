"""A count that announces a list is checked against the list itself ("the 2 newest files: A, B, C")."""

from __future__ import annotations

import pytest

from tests.engine_runs.runs_helpers import make_run
from verification.engine.runs import verify_run

RESULT = {
    "files": [
        {"name": "budget.xlsx", "size_kb": 88},
        {"name": "plan.docx", "size_kb": 41},
        {"name": "notes.txt", "size_kb": 3},
    ]
}


def _report(answer: str):
    return verify_run(make_run("Which files are in the folder?", [RESULT], answer))


def test_it_contradicts_a_count_its_own_list_disagrees_with():
    report = _report("The folder has 2 files: budget.xlsx, plan.docx and notes.txt.")
    assert [(c.text, c.label) for c in report.flagged_claims] == [("2", "CONTRADICTED")]
    assert "lists 3" in report.flagged_claims[0].reason


@pytest.mark.parametrize(
    "answer",
    [
        "The folder has 3 files: budget.xlsx, plan.docx and notes.txt.",
        "The folder has 3 files. The largest is budget.xlsx, then plan.docx and notes.txt.",
        "The folder has 3 files, of which 2 are documents: plan.docx, notes.txt.",
    ],
)
def test_it_leaves_a_count_that_agrees_or_announces_no_list(answer):
    assert not _report(answer).hallucination_detected


CALENDAR = {
    "entries": [
        {"title": "Stand-up", "kind": "meeting", "attendees": ["ana", "raj"]},
        {"title": "Dentist", "kind": "appointment", "attendees": []},
        {"title": "Design review", "kind": "meeting", "attendees": ["ana", "li"]},
        {"title": "Budget sync", "kind": "meeting", "attendees": ["raj", "li"]},
    ]
}


def test_it_counts_the_items_of_the_kind_its_noun_names():
    good = "You have 3 meetings and 1 appointment."
    bad = "You have 2 meetings and 1 appointment."
    assert not verify_run(make_run("My calendar?", [CALENDAR], good)).hallucination_detected
    report = verify_run(make_run("My calendar?", [CALENDAR], bad))
    # 2 is the number of attendees of each meeting, but "meetings" counts the entries of kind "meeting".
    assert [(c.text, c.label) for c in report.flagged_claims] == [("2", "CONTRADICTED")]
    assert "have 3 of this kind" in report.flagged_claims[0].reason
