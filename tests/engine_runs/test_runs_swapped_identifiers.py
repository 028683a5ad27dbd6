"""Issue 14, span F1: a swapped identifier or name is the one wrong value, not the details told with it.

When an agent (or an edit) puts another item's identifier over an item's details, every detail is read
against the wrong item. The report used to flag the details ("this value belongs to another item", "the item
this identifier names gives another value here") beside, or instead of, the identifier: the answer was
flagged, but at the wrong spans (``grounding._blame_swapped_identifier``, ``_check_identifier_blocks``,
``records.check_value_lists``, ``trips._check_identified``). The runs are made up for these tests: a rail
search whose trains have their own times and fares, and a list of hotels with ratings and addresses.
"""

import pytest

from tests.engine_runs.runs_helpers import flagged as _flagged
from tests.engine_runs.runs_helpers import run_with_calls as _run
from verification.engine.runs import verify_run


def _train(number, origin, destination, departs, arrives, fare):
    return {
        "train_number": number,
        "origin": origin,
        "destination": destination,
        "scheduled_departure_time_est": departs,
        "scheduled_arrival_time_est": arrives,
        "status": "available",
        "available_seats": {"second": 9, "first": 3},
        "prices": {"second": fare, "first": fare * 3},
    }


_FIRST = [_train("IC512", "BRU", "LYS", "19:00:00", "21:30:00", 152)]
_SECOND = [
    _train("IC519", "LYS", "MRS", "22:00:00", "03:00:00+1", 103),
    _train("IC530", "LYS", "MRS", "08:00:00", "12:30:00", 96),
]
_USER = {"user_id": "ana_9", "payment_methods": {"gift_card_1": {"source": "gift_card", "amount": 262}}}
# A booking whose legs are dated: a date told in a block is then read from these items too.
_BOOKING = {
    "reservation_id": "QX7R2D",
    "flights": [
        {"origin": "BRU", "destination": "LYS", "train_number": "IC401", "date": "2024-06-20", "price": 60},
        {"origin": "LYS", "destination": "MRS", "train_number": "IC402", "date": "2024-06-20", "price": 55},
    ],
}

_JOINED = (
    "Here is a connection for June 20, 2024:\n\n"
    "1. **Trains IC512 & {second}**\n"
    "   - **First Leg:** BRU to LYS\n"
    "     - Departure: 07:00 PM\n"
    "     - Arrival: 09:30 PM\n"
    "   - **Second Leg:** LYS to MRS\n"
    "     - Departure: 10:00 PM\n"
    "     - Arrival: 03:00 AM (next day)\n\n"
    "Shall I book it?"
)

_FIELDS = (
    "Here are the details of your new booking:\n\n"
    "- **Train:** {train} from LYS to MRS\n"
    "- **Date:** June 20, 2024\n"
    "- **Departure Time:** {departs}\n"
    "- **Arrival Time:** 03:00 AM\n"
    "- **Payment Method:** Gift card with $262 balance\n\n"
    "Please confirm and I will book it."
)


def _verify(answer):
    calls = [
        ("get_user_details", {"user_id": "ana_9"}, _USER),
        ("get_reservation_details", {"reservation_id": "QX7R2D"}, _BOOKING),
        ("search_trains", {"origin": "BRU", "destination": "LYS", "date": "2024-06-20"}, _FIRST),
        ("search_trains", {"origin": "LYS", "destination": "MRS", "date": "2024-06-20"}, _SECOND),
    ]
    return verify_run(_run("A train from BRU to MRS on June 20, please.", calls, answer))


def test_it_blames_the_swapped_identifier_of_a_joined_heading_not_its_legs_times():
    # IC519's times told under IC530's number: the number is the wrong value.
    flagged = _flagged(_verify(_JOINED.format(second="IC530")))
    assert [text for text, _ in flagged] == ["IC530"]


def test_it_blames_the_swapped_identifier_of_bullet_fields_not_their_times():
    flagged = _flagged(_verify(_FIELDS.format(train="IC530", departs="10:00 PM")))
    assert [text for text, _ in flagged] == ["IC530"]


@pytest.mark.parametrize(
    "answer", [_JOINED.format(second="IC519"), _FIELDS.format(train="IC519", departs="10:00 PM")]
)
def test_it_keeps_a_right_identifier_with_its_details_clean(answer):
    assert _flagged(_verify(answer)) == []


def test_it_still_flags_one_wrong_time_under_a_right_identifier():
    # One detail another train gives (IC530 leaves at 08:00) is a wrong time, not a swapped number.
    flagged = _flagged(_verify(_FIELDS.format(train="IC519", departs="08:00 AM")))
    assert [text for text, _ in flagged] == ["08:00 AM"]


def _search_only(answer):
    calls = [("search_trains", {"origin": "LYS", "destination": "MRS", "date": "2024-06-20"}, _SECOND)]
    return verify_run(_run("Trains from LYS to MRS on June 20?", calls, answer))


@pytest.mark.parametrize(
    "answer",
    [
        # A detail check_records read as another item's (the sentence names IC530) beside the other details.
        "Your train:\n- **Train Number:** IC530\n- **Departure:** June 20, 2024, at 10:00 PM\n"
        "- **Arrival:** 03:00 AM\n- **Fare:** $103\n\nShall I book it?",
        # Prose: every detail read as another item's.
        "Train IC530 leaves LYS at 10:00 PM and reaches MRS at 03:00 AM; the fare is $103.",
    ],
)
def test_it_flags_only_the_swapped_identifier_when_its_details_are_another_items(answer):
    assert [text for text, _ in _flagged(_search_only(answer))] == ["IC530"]


def test_it_still_flags_one_detail_of_another_item_in_prose():
    # IC519's own times with IC530's fare: the fare is the wrong value, not the number.
    answer = "Train IC519 leaves LYS at 10:00 PM and reaches MRS at 03:00 AM; the fare is $96."
    assert [text for text, _ in _flagged(_search_only(answer))] == ["$96"]


_RESTAURANTS = {
    "Cosy Nook": "Rating: 4.6\nReviews: quiet tables",
    "Harbour Inn": "Rating: 3.9\nReviews: close to the port",
    "Old Mill": "Rating: 4.2\nReviews: friendly staff",
}
_HOTELS = {"Sea Breeze": "Rating: 4.9\nReviews: big rooms", "Bay Lodge": "Rating: 4.1\nReviews: fine"}
_TAIL = ", Sea Breeze, 4.9, 9 Shore Road, Galway, Ireland"


def _picks(answer):
    # The agent asks for the address of each place it picked only.
    calls = [
        ("get_rating_reviews_for_restaurants", {"names": list(_RESTAURANTS)}, _RESTAURANTS),
        (
            "get_restaurants_address",
            {"names": ["Cosy Nook"]},
            {"Cosy Nook": "4 Quay Street, Galway, Ireland"},
        ),
        ("get_rating_reviews_for_hotels", {"names": list(_HOTELS)}, _HOTELS),
        ("get_hotels_address", {"hotel_name": "Sea Breeze"}, {"Sea Breeze": "9 Shore Road, Galway, Ireland"}),
    ]
    question = "The best restaurant and hotel in Galway? Names, ratings and addresses."
    return verify_run(_run(question, calls, answer + _TAIL))


def test_it_blames_the_swapped_name_of_a_value_list_not_its_values():
    # Cosy Nook's rating and address told under Old Mill's name.
    flagged = _flagged(_picks("Old Mill, 4.6, 4 Quay Street, Galway, Ireland"))
    assert [text for text, _ in flagged] == ["Old Mill"]


def test_it_still_flags_one_value_of_another_item_after_a_name():
    # Harbour Inn's rating beside Cosy Nook's name and address: the rating is the wrong value.
    flagged = _flagged(_picks("Cosy Nook, 3.9, 4 Quay Street, Galway, Ireland"))
    assert [text for text, _ in flagged] == ["3.9"]


def test_it_keeps_a_right_value_list_clean():
    assert _flagged(_picks("Cosy Nook, 4.6, 4 Quay Street, Galway, Ireland")) == []
