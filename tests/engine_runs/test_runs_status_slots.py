"""Status words compared as a slot of the item they are told of.

Words such as "returned", "on hold", "boarding" or "completed" are statuses only in some places: "the parcel
was returned" is one, "the lookup returned two rows" is not. They are read as states where a tool result
gives them as the value of a status-like key (``status``, ``state``) and where the answer puts them after a
copula ("is on hold", "has been shipped"); the status of the item the clause names (by its identifier or its
values) is what they are compared with.
"""

from __future__ import annotations

import pytest

from tests.engine_runs.runs_helpers import make_run
from verification.engine.runs import verify_run


def _flags(report) -> list[tuple[str, str]]:
    return [(c.text, c.label) for c in report.flagged_claims]


def _parcel(status: str, told: str):
    result = {"parcel_ref": "PX-40417", "status": status, "weight_kg": 2.5}
    return verify_run(make_run("Where is parcel PX-40417?", [result], f"Parcel PX-40417 is {told}."))


@pytest.mark.parametrize(
    ("status", "told"),
    [("returned", "on hold"), ("on_hold", "returned"), ("shipped", "delivered"), ("Returned", "processing")],
)
def test_it_contradicts_another_status_of_the_item(status, told):
    assert _flags(_parcel(status, told)) == [(told, "CONTRADICTED")]


@pytest.mark.parametrize(
    ("status", "told"),
    [("returned", "returned"), ("ON HOLD", "on hold"), ("shipped", "in transit"), ("dispatched", "shipped")],
)
def test_it_supports_the_same_status_in_other_words(status, told):
    report = _parcel(status, told)
    assert not report.hallucination_detected
    assert any(c.text == told and c.label == "SUPPORTED" for c in report.claims)


def test_it_reads_a_flight_status_that_is_no_common_state():
    result = {"flight": "ZQ2210", "status": "boarding", "gate": "C12"}
    good = verify_run(make_run("Status of ZQ2210?", [result], "Flight ZQ2210 is boarding at gate C12."))
    told = "Flight ZQ2210 is delayed; it leaves from gate C12."
    bad = verify_run(make_run("Status of ZQ2210?", [result], told))
    assert not good.hallucination_detected
    assert _flags(bad) == [("delayed", "CONTRADICTED")]


def test_it_ignores_the_same_words_outside_a_status_position():
    result = {"parcel_ref": "PX-40417", "status": "on hold", "weight_kg": 2.5}
    answers = [
        "The tracking lookup returned one parcel, PX-40417, which is on hold.",
        "Parcel PX-40417 is on hold; I completed the check and it is scheduled to be reviewed.",
    ]
    for answer in answers:
        assert not verify_run(make_run("Where is PX-40417?", [result], answer)).hallucination_detected, answer


def test_it_compares_with_the_item_the_clause_names_among_several():
    results = {
        "tickets": [
            {"ticket": "TK-5512", "state": "resolved", "opened": "2024-02-01"},
            {"ticket": "TK-5530", "state": "on hold", "opened": "2024-02-03"},
        ]
    }
    right = "Ticket TK-5512 is resolved, and ticket TK-5530 is on hold."
    swapped = "Ticket TK-5512 is on hold, and ticket TK-5530 is resolved."
    assert not verify_run(make_run("My tickets?", [results], right)).hallucination_detected
    flags = _flags(verify_run(make_run("My tickets?", [results], swapped)))
    assert ("on hold", "CONTRADICTED") in flags
    assert ("resolved", "CONTRADICTED") in flags


def test_it_takes_a_status_word_outside_a_status_key_as_no_state():
    # "returned" under a key that is no status (a note) says nothing about the item's state.
    result = {"parcel_ref": "PX-40417", "note": "returned", "status": "in transit"}
    report = verify_run(make_run("Where is PX-40417?", [result], "Parcel PX-40417 is in transit."))
    assert not report.hallucination_detected
