"""Issue 14 (h14a): field labels and closing formulas of a service agent's answer are not names.

Runs written for these tests: a made-up rail operator. A label before a colon at the start of a line
("- Operating Carrier: NRL"), a sign-off ("Best Regards,", "Safe Travels!") and the signature after it are
no claims; a person's name before a colon, an unknown name in prose and a name that only looks like a
closing are still checked.
"""

import pytest

from tests.engine_runs.runs_helpers import flagged as _flagged
from tests.engine_runs.runs_helpers import run_with_calls as _run
from verification.engine.runs import verify_run

_TRAINS = [
    {
        "train": "RX101",
        "operator": "NRL",
        "from": "BRN",
        "to": "GVA",
        "departs": "07:00:00",
        "fare": 41,
        "conductor": "Olga Brandt",
    }
]
_CALLS = [("search_trains", {"date": "2025-06-02"}, _TRAINS)]


@pytest.mark.parametrize(
    "answer",
    [
        "- Operating Carrier: NRL\n- Train: RX101",
        "- **Operating Carrier:** NRL\n- **Train:** RX101",
        "- Seat Assignment: not yet assigned\n- Train: RX101",
        "- Meal Preference: none\n- Departure: 07:00",
    ],
)
def test_it_reads_a_field_label_of_a_service_record_as_a_label(answer):
    assert _flagged(verify_run(_run("Which train?", _CALLS, answer))) == []


@pytest.mark.parametrize(
    "closing",
    [
        "Best Regards,\nRail Desk",
        "Kind regards,",
        "Warm Regards!",
        "Sincerely,\nYour Assistant",
        "Safe Travels!",
        "Have a Great Trip!",
    ],
)
def test_it_reads_a_closing_formula_and_its_signature_as_no_claim(closing):
    answer = f"Your train RX101 leaves at 07:00.\n\n{closing}"
    assert _flagged(verify_run(_run("Which train?", _CALLS, answer))) == []


def test_it_still_checks_a_person_before_a_colon():
    answer = "- Anna Keller: RX101\n- Departure: 07:00"
    assert ("Anna Keller", "UNSUPPORTED") in _flagged(verify_run(_run("Who?", _CALLS, answer))) or (
        "Anna Keller",
        "CONTRADICTED",
    ) in _flagged(verify_run(_run("Who?", _CALLS, answer)))


@pytest.mark.parametrize("name", ["Great Falls", "Warm Springs"])
def test_it_still_checks_a_name_that_opens_with_a_closing_word(name):
    answer = f"RX101 stops at {name} at 07:00."
    assert any(name.split()[0] in t for t, _ in _flagged(verify_run(_run("Stops?", _CALLS, answer))))


def test_it_still_checks_a_one_word_name_of_a_closing_noun():
    answer = "I added RX101 to your 'Weekend' list."
    assert any(t == "Weekend" for t, _ in _flagged(verify_run(_run("Saved?", _CALLS, answer))))


@pytest.mark.parametrize("value", ["None", "N/A", "TBD", "Unknown", "Free", "Pending"])
def test_it_reads_a_value_that_says_a_field_is_empty_or_open_as_no_name(value):
    answer = f"- **Luggage:** {value}\n- **Train:** RX101"
    assert _flagged(verify_run(_run("Which train?", _CALLS, answer))) == []


def test_it_still_checks_a_name_that_opens_with_a_placeholder_word():
    answer = "- **Operator:** Free Spirit Rail\n- **Train:** RX101"
    assert any("Free" in t for t, _ in _flagged(verify_run(_run("Which train?", _CALLS, answer))))


def test_it_reads_the_plural_of_a_label_acronym_as_a_label():
    answer = "I found your bookings. Here are the booking IDs: RX101."
    assert _flagged(verify_run(_run("Bookings?", _CALLS, answer))) == []


_LEGS = [
    {"train": "RX101", "departure_time": "07:00:00", "arrival_time": "08:45:00", "standard_fare": 41},
    {"train": "RX205", "departure_time": "18:00:00", "arrival_time": "19:45:00", "standard_fare": 38},
]
_LEG_CALLS = [("search_trains", {"date": "2025-06-02"}, _LEGS)]


@pytest.mark.parametrize(
    "departure,arrival,bad",
    [
        ("07:00", "08:45", None),
        ("08:45", "08:45", "08:45"),  # the departure slot holds the arrival time
        ("7:00 AM", "8:45 AM", None),
    ],
)
def test_it_contradicts_a_value_of_another_field_of_the_same_item(departure, arrival, bad):
    answer = f"- **Train:** RX101\n- **Departure:** {departure}\n- **Arrival:** {arrival}"
    flagged = _flagged(verify_run(_run("Times?", _LEG_CALLS, answer)))
    assert flagged == ([] if bad is None else [(bad, "CONTRADICTED")])


def test_it_lets_a_label_that_names_no_field_decide_nothing():
    answer = "- **Train:** RX101\n- **Outbound:** 07:00\n- **Back by:** 08:45"
    assert _flagged(verify_run(_run("Times?", _LEG_CALLS, answer))) == []


_BOOKED = {"booking_id": "QK7P2M", "total_bags": 3, "paid_bags": 1, "coach": 4, "seats_left": 4}


@pytest.mark.parametrize("told,bad", [("3", False), ("4", True), ("2", True)])
def test_it_reads_a_bare_number_under_a_label_as_the_field_the_label_names(told, bad):
    answer = f"- **Booking:** QK7P2M\n- **Total Bags:** {told}\n- **Paid Bags:** 1"
    flagged = _flagged(
        verify_run(_run("Bags?", [("get_booking", {"booking_id": "QK7P2M"}, _BOOKED)], answer))
    )
    assert ((told, "CONTRADICTED") in flagged) == bad


def test_it_leaves_a_label_that_names_no_numeric_key_to_the_other_rules():
    answer = "- **Booking:** QK7P2M\n- **Bags Total:** 3\n- **Carriage:** 4"
    assert (
        _flagged(verify_run(_run("Bags?", [("get_booking", {"booking_id": "QK7P2M"}, _BOOKED)], answer)))
        == []
    )


@pytest.mark.parametrize("code", ["QK7P2M", "ZT4W9K"])
def test_it_reads_a_capital_code_ending_in_digit_and_letter_as_one_identifier(code):
    # "2M" and "9K" at the end of a booking code are no quantity (2 metres) or number (9,000).
    booking = {"booking_id": code, "total_bags": 3}
    answer = f"Your booking {code} has 3 bags."
    assert _flagged(verify_run(_run("Bags?", [("get_booking", {"booking_id": code}, booking)], answer))) == []
