"""A count of one is checked when the list it counts came back empty (issue 14: a result claimed that the
tool did not return); elsewhere "one" and "1" stay trivial."""

from __future__ import annotations

import pytest

from tests.engine_runs.runs_helpers import make_run
from verification.engine.runs import verify_run


def _labels(result: dict, answer: str) -> dict[str, str]:
    report = verify_run(make_run("Find the users named Bo.", [result], answer))
    return {c.text: c.label for c in report.claims}


@pytest.mark.parametrize("answer", ["Okay, I checked and found one user.", "I found 1 user named Bo."])
def test_it_flags_one_item_of_a_list_that_came_back_empty(answer):
    labels = _labels({"users": []}, answer)
    assert "CONTRADICTED" in labels.values(), labels


@pytest.mark.parametrize("answer", ["Okay, I checked and found one user.", "I found 1 user named Bo."])
def test_it_keeps_one_item_of_a_list_that_holds_one(answer):
    labels = _labels({"users": [{"name": "Bo", "id": "u-1"}]}, answer)
    assert set(labels.values()) <= {"SUPPORTED"}, labels


def test_it_keeps_one_of_something_the_empty_list_does_not_count():
    labels = _labels({"users": []}, "I searched for one minute and found no users.")
    assert "CONTRADICTED" not in labels.values(), labels
