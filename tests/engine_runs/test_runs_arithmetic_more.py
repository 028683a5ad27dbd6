"""Issue 14 (h14a): amounts an agent computed from values the answer does not state.

Runs written for these tests: a made-up ferry operator with bookings, sailings and fares. A fare difference
between a booking and a search result, that difference for every passenger, a total over several bookings,
and a count of passengers times a fare are supported; the same amounts shifted stay flagged.
"""

import pytest

from tests.engine_runs.runs_helpers import flagged as _flagged
from tests.engine_runs.runs_helpers import run_with_calls as _run
from verification.engine.runs import verify_run

_BOOKING = {
    "booking_id": "QK7P2M",
    "passengers": [{"name": "Ines Moreau"}, {"name": "Tom Moreau"}],
    "sailings": [{"sailing": "FX101", "date": "2025-07-04", "deck": "standard", "fare": 120}],
    "payments": [{"method": "card_4421", "amount": 240}],
}
_SEARCH = [
    {"sailing": "FX101", "departs": "08:30:00", "fares": {"standard": 120, "premium": 185}},
    {"sailing": "FX305", "departs": "14:00:00", "fares": {"standard": 96, "premium": 151}},
]
_CALLS = [
    ("get_booking", {"booking_id": "QK7P2M"}, _BOOKING),
    ("search_sailings", {"date": "2025-07-04"}, _SEARCH),
]


@pytest.mark.parametrize("amount,bad", [("$65", False), ("$75", True)])
def test_it_supports_a_fare_difference_whose_fares_the_answer_does_not_state(amount, bad):
    answer = f"To move to the premium deck, you will pay the difference of {amount} per passenger."
    flagged = _flagged(verify_run(_run("Can I upgrade?", _CALLS, answer)))
    assert (any(t == amount for t, _ in flagged)) == bad


@pytest.mark.parametrize("amount,bad", [("$130", False), ("$150", True)])
def test_it_supports_a_difference_times_the_number_of_passengers(amount, bad):
    answer = f"The upgrade for both passengers comes to a total of {amount}, charged to card_4421."
    flagged = _flagged(verify_run(_run("Upgrade us both?", _CALLS, answer)))
    assert (any(t == amount for t, _ in flagged)) == bad


@pytest.mark.parametrize("amount,bad", [("$240", False), ("$290", True)])
def test_it_supports_a_fare_times_the_number_of_passengers(amount, bad):
    answer = f"For all passengers on FX101 the standard deck costs {amount} in total."
    flagged = _flagged(verify_run(_run("What did we pay per head?", _CALLS, answer)))
    assert (any(t == amount for t, _ in flagged)) == bad


_SECOND = {
    "booking_id": "ZR4T8W",
    "passengers": [{"name": "Ines Moreau"}],
    "sailings": [{"sailing": "FX512", "date": "2025-08-11", "deck": "premium", "fare": 315}],
    "payments": [{"method": "gift_77", "amount": 315}],
}


@pytest.mark.parametrize("amount,bad", [("$555", False), ("$575", True)])
def test_it_supports_a_total_over_several_bookings(amount, bad):
    calls = [
        ("get_booking", {"booking_id": "QK7P2M"}, _BOOKING),
        ("get_booking", {"booking_id": "ZR4T8W"}, _SECOND),
    ]
    answer = f"Across your two bookings you have paid {amount} altogether."
    flagged = _flagged(verify_run(_run("How much have I paid?", calls, answer)))
    assert (any(t == amount for t, _ in flagged)) == bad


@pytest.mark.parametrize("amount", ["$130", "$195"])
def test_it_keeps_flagging_an_amount_no_difference_or_total_is_said_of(amount):
    # Twice or three times a difference (185 - 120), but the sentence calls it a plain price.
    answer = f"Your seat costs {amount}."
    assert (amount, "UNSUPPORTED") in _flagged(verify_run(_run("Seat price?", _CALLS, answer)))


_WALLET = {
    "user_id": "ines_m_20",
    "payment_methods": {
        "voucher_5520417": {"source": "voucher", "amount": 60, "id": "voucher_5520417"},
        "travel_card_8873301": {"source": "travel_card", "amount": 95, "id": "travel_card_8873301"},
    },
}


@pytest.mark.parametrize(
    "number,bad", [("5520417", False), ("8873301", False), ("5520471", True), ("8873310", True)]
)
def test_it_reads_the_digits_of_an_identifier_of_the_results_as_that_identifier(number, bad):
    answer = f"- Voucher {number}: $60\n- I can charge the rest to the travel card."
    flagged = _flagged(
        verify_run(_run("How can I pay?", [("get_user", {"user_id": "ines_m_20"}, _WALLET)], answer))
    )
    assert (any(t == number for t, _ in flagged)) == bad


_SAILING = [{"sailing": "FX101", "departs": "13:00:00", "arrives": "15:30:00"}]


@pytest.mark.parametrize(
    "told,bad",
    [("1:00 PM", False), ("13:00", False), ("13:00 PM", False), ("13:00 AM", True), ("15:30 a.m.", True)],
)
def test_it_flags_an_hour_past_noon_told_as_a_morning_time(told, bad):
    answer = f"FX101 departs at {told}."
    calls = [("search_sailings", {"date": "2025-07-04"}, _SAILING)]
    flagged = _flagged(verify_run(_run("When?", calls, answer)))
    assert any(t.startswith(told[:5]) for t, _ in flagged) == bad
