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


_SEARCH = [
    {
        "flight": "PX210",
        "origin": "OSL",
        "destination": "BGO",
        "departs": "09:15:00",
        "arrives": "10:10:00",
        "fare": 88,
    },
    {
        "flight": "PX318",
        "origin": "OSL",
        "destination": "BGO",
        "departs": "13:40:00",
        "arrives": "14:35:00",
        "fare": 121,
    },
    {
        "flight": "PX402",
        "origin": "OSL",
        "destination": "BGO",
        "departs": "18:05:00",
        "arrives": "19:00:00",
        "fare": 97,
    },
]
_FLIGHT_CALLS = [("search_flights", {"origin": "OSL", "destination": "BGO"}, _SEARCH)]


def _block(flight: str) -> str:
    return (
        "Here is the option I found:\n\n"
        f"1. **Flight {flight}**\n   - Departs: 1:40 PM from OSL\n"
        "   - Arrives: 2:35 PM at BGO\n   - Fare: $121\n\n"
        "Shall I book it?"
    )


@pytest.mark.parametrize("flight,bad", [("PX318", False), ("PX210", True), ("PX402", True)])
def test_it_flags_an_identifier_whose_details_are_another_items(flight, bad):
    flagged = _flagged(verify_run(_run("Afternoon flights to Bergen?", _FLIGHT_CALLS, _block(flight))))
    assert (any(t == flight for t, _ in flagged)) == bad


def test_it_cites_the_identifier_of_the_item_the_details_belong_to():
    report = verify_run(_run("Afternoon flights to Bergen?", _FLIGHT_CALLS, _block("PX210")))
    claim = next(c for c in report.claims if c.text == "PX210")
    assert claim.label == "CONTRADICTED"
    assert "PX318" in [e.text for e in claim.evidence_spans]


def test_it_leaves_an_identifier_whose_details_come_from_different_items():
    # The departure is PX210's, the fare PX318's: no single item gives the block, nothing is decided.
    answer = "Your option:\n\n- Flight PX210\n  - Departs: 9:15 AM\n  - Fare: $121\n"
    flagged = _flagged(verify_run(_run("Morning flights?", _FLIGHT_CALLS, answer)))
    assert not any(t == "PX210" for t, _ in flagged)


def test_it_leaves_an_identifier_when_the_items_have_no_identifier_of_that_key():
    # The booking names the flight; the timetable's items have no flight key: the block is not comparable.
    booking = {"booking": "KQ81ZT", "flight": "PX210", "date": "2025-10-03"}
    timetable = [{"slot": "afternoon", "departs": "13:40:00", "arrives": "14:35:00", "fare": 121}]
    calls = [
        ("get_booking", {"booking": "KQ81ZT"}, booking),
        ("get_timetable", {"route": "OSL-BGO"}, timetable),
    ]
    answer = "Your flight:\n\n- Flight PX210\n  - Departs: 1:40 PM\n  - Arrives: 2:35 PM\n"
    flagged = _flagged(verify_run(_run("When do I fly?", calls, answer)))
    assert not any(t == "PX210" for t, _ in flagged)


_RETURN = [
    {
        "flight": "PX611",
        "origin": "BGO",
        "destination": "OSL",
        "departs": "07:50:00",
        "arrives": "08:45:00",
        "fare": 134,
    },
]
# The return search is another result: its values are found by no check of sibling items of one list.
_BOTH_CALLS = [*_FLIGHT_CALLS, ("search_flights", {"origin": "BGO", "destination": "OSL"}, _RETURN)]


def _fare_block(fare: str, departs: str = "9:15 AM") -> str:
    return f"Outbound:\n\n- Flight Number: PX210\n- Departs: {departs}\n- Arrives: 10:10 AM\n- Fare: {fare}\n"


@pytest.mark.parametrize("fare,bad", [("$88", False), ("$134", True)])
def test_it_flags_an_amount_of_an_identifiers_block_that_only_another_result_gives(fare, bad):
    # $134 is the return flight's fare; PX210's own fare is $88.
    flagged = _flagged(verify_run(_run("Flights both ways?", _BOTH_CALLS, _fare_block(fare))))
    assert (any(t == fare for t, _ in flagged)) == bad


@pytest.mark.parametrize("departs,bad", [("9:15 AM", False), ("7:50 AM", True)])
def test_it_flags_a_time_of_an_identifiers_block_that_only_another_result_gives(departs, bad):
    flagged = _flagged(verify_run(_run("Flights both ways?", _BOTH_CALLS, _fare_block("$88", departs))))
    assert (any(t == departs for t, _ in flagged)) == bad


def test_it_ends_an_identifiers_block_at_the_next_numbered_item():
    # Each line's details precede its identifier: the next line's fare is not PX318's.
    answer = (
        "Your flights:\n\n"
        "1. OSL to BGO, $88, Flight Number: PX210\n"
        "2. OSL to BGO, $121, Flight Number: PX318\n"
    )
    flagged = _flagged(verify_run(_run("List them", _FLIGHT_CALLS, answer)))
    assert not any(t in ("$88", "$121", "PX210", "PX318") for t, _ in flagged)


_POLICY = {
    "refunds": "Refunds reach the original card in 5 to 7 business days.",
    "max_bags": 2,
    "max_pets": 3,
}
_POLICY_CALLS = [("get_policy", {"topic": "refunds"}, _POLICY)]


@pytest.mark.parametrize("low,bad", [("5", False), ("6", True)])
def test_it_flags_an_end_of_a_range_that_is_only_a_product_of_other_numbers(low, bad):
    # 6 is 2 x 3 (the bag and pet limits): a range is read, not computed.
    answer = f"Your refund will reach the original card within {low} to 7 business days."
    flagged = _flagged(verify_run(_run("When do I get my money?", _POLICY_CALLS, answer)))
    assert (any(t == low for t, _ in flagged)) == bad


def test_it_ends_an_identifiers_block_at_its_sentence_in_prose():
    # The order total comes from another result, at its top level, in the next sentence: PX210 is not
    # asked about it.
    order = {"order_id": "ord-5512", "status": "shipped", "total": 97.0}
    calls = [*_FLIGHT_CALLS, ("get_order", {"order": "ord-5512"}, order)]
    answer = "Flight PX210 leaves at 9:15 AM for $88. Your order has shipped. It came to $97.00."
    flagged = _flagged(verify_run(_run("Flight and order?", calls, answer)))
    assert not any(t in ("$97.00", "PX210") for t, _ in flagged)


@pytest.mark.parametrize(
    "when,bad",
    [("on October 3", False), ("on October 34", True), ("on October 34.", True), ("in October 2025", False)],
)
def test_it_flags_a_day_past_any_months_end(when, bad):
    # 34 = 121 - 87 is a difference of two numbers of the results; no month has a 34th day.
    booking = {"booking": "KQ81ZT", "flight": "PX210", "date": "2025-10-03", "fare": 121, "miles": 87}
    answer = f"Your flight PX210 departs {when}"
    flagged = _flagged(verify_run(_run("When?", [("get_booking", {"booking": "KQ81ZT"}, booking)], answer)))
    assert any(t == "34" for t, _ in flagged) == bad
