"""Issue 14 (h14e): recall on edited values without losing precision.

Runs written for these tests: a made-up harbour cruise operator with a list of cruises and their fares.
An amount the sentence states as a plain value (a fare under a label, a price in brackets) is a value the
agent read: that it happens to be the sum or the difference of two other fares of the results is no
support for it. A sentence that calls the amount computed (a difference, a total, "more than") keeps the
one-step arithmetic.
"""

import pytest

from tests.engine_runs.runs_helpers import flagged as _flagged
from tests.engine_runs.runs_helpers import run_with_calls as _run
from verification.engine.runs import verify_run

_CRUISES = [
    {"cruise": "BX210", "name": "Harbour Lights", "departs": "18:30:00", "fares": {"deck": 48, "lounge": 75}},
    {"cruise": "BX344", "name": "Island Hopper", "departs": "10:15:00", "fares": {"deck": 39, "lounge": 66}},
]
_CALLS = [("search_cruises", {"date": "2025-09-12"}, _CRUISES)]


@pytest.mark.parametrize("amount,bad", [("$48", False), ("$27", True), ("$123", True)])
def test_it_flags_a_labelled_fare_that_is_only_a_sum_or_difference_of_other_fares(amount, bad):
    # $27 is 75 - 48 and 66 - 39, $123 is 48 + 75: neither is a fare of BX210's deck.
    answer = f"Here is the evening option:\n\n- Cruise: BX210\n- Deck Fare: {amount}\n- Departs: 18:30"
    flagged = _flagged(verify_run(_run("Evening cruises?", _CALLS, answer)))
    assert (any(t == amount for t, _ in flagged)) == bad


@pytest.mark.parametrize("amount,bad", [("$48", False), ("$27", True)])
def test_it_flags_a_price_in_brackets_that_is_only_a_difference_of_other_fares(amount, bad):
    answer = f"Harbour Lights (BX210) leaves at 18:30: Deck ({amount}), Lounge ($75)."
    flagged = _flagged(verify_run(_run("Evening cruises?", _CALLS, answer)))
    assert (any(t == amount for t, _ in flagged)) == bad


@pytest.mark.parametrize(
    "sentence",
    [
        "The lounge on Harbour Lights costs {a} more than the deck.",
        "Moving from deck to lounge on BX210 is a difference of {a}.",
    ],
)
@pytest.mark.parametrize("amount,bad", [("$27", False), ("$31", True)])
def test_it_keeps_a_difference_the_sentence_calls_computed(sentence, amount, bad):
    flagged = _flagged(verify_run(_run("Is the lounge worth it?", _CALLS, sentence.format(a=amount))))
    assert (any(t == amount for t, _ in flagged)) == bad


@pytest.mark.parametrize("amount,bad", [("$123", False), ("$133", True)])
def test_it_keeps_a_sum_the_sentence_calls_a_total(amount, bad):
    answer = f"One deck and one lounge ticket on BX210 come to {amount} in total."
    flagged = _flagged(verify_run(_run("Two tickets?", _CALLS, answer)))
    assert (any(t == amount for t, _ in flagged)) == bad
