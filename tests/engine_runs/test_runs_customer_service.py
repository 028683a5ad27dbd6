"""Issue 14: false alarms on long customer-service runs (a booking agent's answers), one class at a time.

The runs are written for these tests (a made-up rail operator, stations and bookings), in the shape of the
tau-bench airline runs the classes were found on: records of JSON results, answers in Markdown lists.
"""

import pytest

from tests.engine_runs.runs_helpers import flagged as _flagged
from tests.engine_runs.runs_helpers import run_with_calls as _run
from verification.engine.runs import verify_run

_TRAINS = [
    {"train": "RX101", "from": "BRN", "to": "GVA", "departs": "07:00:00", "arrives": "08:45:00", "fare": 41},
    {"train": "RX205", "from": "BRN", "to": "GVA", "departs": "18:00:00", "arrives": "19:45:00", "fare": 38},
]


def test_it_reads_numbered_bold_labels_as_headings():
    answer = (
        "Here are your options:\n\n"
        "1. **Travel Option 1:**\n   - Train: RX101\n   - Fare: $41\n\n"
        "2. **Keep the Current Booking**: nothing changes.\n"
        "3. **Speak to a Human Agent**: I can transfer you."
    )
    run = _run("What can I do?", [("search_trains", {"date": "2025-06-02"}, _TRAINS)], answer)
    assert _flagged(verify_run(run)) == []


def test_it_reads_a_markdown_heading_with_codes_after_it_as_a_heading():
    answer = "### Outbound Journey (BRN to GVA)\n- Train: RX205\n- Departure: 18:00\n- Fare: $38"
    run = _run("Evening train?", [("search_trains", {"date": "2025-06-02"}, _TRAINS)], answer)
    assert _flagged(verify_run(run)) == []


def test_it_opens_a_sentence_after_a_list_line_without_a_full_stop():
    answer = "Your bookings:\n\n- 7KQZ2P\n- H4LM9R\n\nLet me know which one to change."
    run = _run("My bookings?", [("get_user", {"user": "ana_5"}, {"bookings": ["7KQZ2P", "H4LM9R"]})], answer)
    assert _flagged(verify_run(run)) == []


@pytest.mark.parametrize("code,bad", [("8WMF4C", None), ("8WMF4D", "8WMF4D")])
def test_it_reads_a_booking_code_that_starts_with_digits_as_one_identifier(code, bad):
    run = _run(
        "My bookings?",
        [("get_user", {"user": "ana_5"}, {"bookings": ["8WMF4C", "2FBBAH"]})],
        f"Your bookings are {code} and 2FBBAH.",
    )
    assert _flagged(verify_run(run)) == ([] if bad is None else [(bad, "CONTRADICTED")])


@pytest.mark.parametrize("day,bad", [("June 3", None), ("June 4", "June 4")])
def test_it_dates_a_next_day_arrival_marked_plus_one(day, bad):
    night = [{"train": "NX9", "from": "BRN", "to": "VIE", "departs": "22:00:00", "arrives": "06:30:00+1"}]
    run = _run(
        "Night train on June 2?",
        [("search_trains", {"date": "2025-06-02"}, night)],
        f"NX9 leaves on June 2 at 22:00 and arrives on {day} at 06:30.",
    )
    assert _flagged(verify_run(run)) == ([] if bad is None else [(f"{day}", "CONTRADICTED")])


def test_it_takes_a_city_that_spells_a_station_code_of_the_results_as_its_expansion():
    run = _run(
        "Which train?",
        [("search_trains", {"date": "2025-06-02"}, _TRAINS)],
        "RX205 takes you from Bern to Geneva at 18:00.",
    )
    assert _flagged(verify_run(run)) == []


def test_it_still_flags_a_city_that_spells_no_code_of_the_results():
    run = _run(
        "Which train?",
        [("search_trains", {"date": "2025-06-02"}, _TRAINS)],
        "RX205 takes you from Bern to Zurich at 18:00.",
    )
    assert ("Zurich", "CONTRADICTED") in _flagged(verify_run(run))


def test_it_reads_no_claim_into_examples_offered_in_a_question():
    run = _run(
        "Any train west?",
        [("list_stations", {}, {"BRN": "Bern", "GVA": "Geneva"})],
        "Which city do you want to reach (e.g., Lausanne, Fribourg, Neuchatel)?",
    )
    assert _flagged(verify_run(run)) == []


@pytest.mark.parametrize("hours,bad", [("5 hours", None), ("7 hours", "7 hours")])
def test_it_takes_a_duration_from_the_result_of_a_calculation(hours, bad):
    calls = [
        ("search_trains", {"date": "2025-06-02"}, _TRAINS),
        ("calculate", {"expression": "(8 - 7) + (12 - 8)"}, 5.0),
    ]
    run = _run("How long is the trip?", calls, f"The whole trip takes {hours} with the change.")
    assert [t for t, _ in _flagged(verify_run(run))] == ([] if bad is None else [bad])


@pytest.mark.parametrize("total,bad", [("$465", None), ("$2,210", "$2,210")])
def test_it_takes_a_total_of_a_list_of_prices_as_computed(total, bad):
    booking = {
        "booking": "2FBBAH",
        "legs": [{"train": f"RX{n}", "price": p} for n, p in ((1, 107), (2, 141), (3, 108), (4, 109))],
    }
    run = _run(
        "What do I pay now?",
        [("get_booking", {"booking": "2FBBAH"}, booking)],
        f"Booking 2FBBAH:\n- Total price: {total}",
    )
    assert [t for t, _ in _flagged(verify_run(run))] == ([] if bad is None else [bad])


def test_it_reads_a_listed_item_s_identifier_as_opening_its_item():
    answer = (
        "### BRN to GVA on 2025-06-02\n"
        "1. **Train RX101**\n   - Departure: 07:00 AM\n   - Fare: $41\n\n"
        "2. **Train RX205**\n   - Departure: 06:00 PM\n   - Fare: $38"
    )
    run = _run("Trains?", [("search_trains", {"date": "2025-06-02"}, _TRAINS)], answer)
    assert _flagged(verify_run(run)) == []


@pytest.mark.parametrize("count,bad", [("two", None), ("three", "three")])
def test_it_counts_the_results_with_the_value_a_count_names(count, bad):
    calls = [
        ("get_booking", {"booking": b}, {"booking": b, "cabin": c, "legs": 2})
        for b, c in (("7KQZ2P", "first"), ("H4LM9R", "second"), ("2FBBAH", "first"))
    ]
    run = _run("Which bookings can I downgrade?", calls, f"You have {count} bookings in first class.")
    assert [t for t, _ in _flagged(verify_run(run))] == ([] if bad is None else [bad])


@pytest.mark.parametrize("fare,bad", [("$41", None), ("$38", "$38")])
def test_it_reads_a_class_named_by_a_price_key_as_no_item_of_a_value_list(fare, bad):
    trains = [
        {"train": "RX101", "departs": "07:00:00", "prices": {"standard": 41, "premium": 70}},
        {"train": "RX205", "departs": "18:00:00", "prices": {"standard": 38, "premium": 66}},
    ]
    calls = [
        ("get_booking", {"booking": "7KQZ2P"}, {"booking": "7KQZ2P", "class": "standard", "legs": 1}),
        ("get_booking", {"booking": "H4LM9R"}, {"booking": "H4LM9R", "class": "premium", "legs": 2}),
        ("search_trains", {"date": "2025-06-02"}, trains),
    ]
    answer = f"1. **Train RX101**\n   - Departure: 07:00\n   - Class: Standard ({fare}), Premium ($70)"
    run = _run("Which trains can I take instead?", calls, answer)
    assert [t for t, _ in _flagged(verify_run(run))] == ([] if bad is None else [bad])


@pytest.mark.parametrize(
    "answer",
    [
        "### Fare Change\n- Current Fare: $41\n- New Total Price: $38",
        "- Original Class: standard\n- Requested Class: premium\n- Refund Amount: $3",
        "Please note that the Total Cost is $41, with no Layover.",
        "Ana Diaz's Date of Birth: 1990-04-02",
        "**Modification Confirmed**\nYour booking 7KQZ2P now has class standard.",
    ],
)
def test_it_reads_an_agent_s_label_words_as_no_name(answer):
    booking = {
        "booking": "7KQZ2P",
        "class": "standard",
        "fare": 41,
        "passenger": "Ana Diaz",
        "dob": "1990-04-02",
    }
    calls = [
        ("get_booking", {"booking": "7KQZ2P"}, booking),
        ("search_trains", {"date": "2025-06-02"}, _TRAINS),
    ]
    run = _run("Can I change class to premium? Is my birth date right?", calls, answer)
    assert _flagged(verify_run(run)) == []


def test_it_still_checks_a_name_before_a_colon_that_names_no_field():
    booking = {"booking": "7KQZ2P", "seats": {"Ana Diaz": 4}}
    run = _run("Seats?", [("get_booking", {"booking": "7KQZ2P"}, booking)], "Seats:\n- Olga Brandt: 4")
    assert [t for t, _ in _flagged(verify_run(run))] == ["Olga Brandt"]


@pytest.mark.parametrize(
    "answer,bad",
    [
        ("HAT263 flies from Detroit to New York on May 28.", None),
        ("HAT263 leaves Detroit Metropolitan Wayne County Airport on May 28.", None),
        ("HAT263 flies from Houston to New York on May 28.", "Houston"),
    ],
)
def test_it_takes_a_city_or_airport_name_of_a_code_of_the_results_as_its_expansion(answer, bad):
    flights = [{"flight_number": "HAT263", "origin": "DTW", "destination": "JFK", "date": "2024-05-28"}]
    run = _run(
        "Return flight?", [("search_direct_flight", {"origin": "DTW", "destination": "JFK"}, flights)], answer
    )
    assert [t for t, _ in _flagged(verify_run(run))] == ([] if bad is None else [bad])


def _bookings() -> list[tuple[str, dict[str, str], dict[str, object]]]:
    """Three bookings fetched one by one (sibling records), each with a payment list of its own."""
    rows = (
        ("7KQZ2P", "BRN", "GVA", "standard", 41),
        ("H4LM9R", "ZRH", "BSL", "premium", 70),
        ("2FBBAH", "LUG", "BRN", "standard", 55),
    )
    return [
        (
            "get_booking",
            {"booking": b},
            {"booking": b, "from": o, "to": d, "class": c, "payments": [{"card": "card_1", "amount": p}]},
        )
        for b, o, d, c, p in rows
    ]


def test_it_reads_a_lower_case_category_of_the_results_as_no_item_name():
    # "Standard" is the class of two bookings, not the name of the one whose payment ($41) follows it.
    answer = "1. **Booking 7KQZ2P**\n   - Route: BRN to GVA\n   - Class: Standard\n   - Paid: $41"
    run = _run("My bookings?", _bookings(), answer)
    assert _flagged(verify_run(run)) == []


def test_it_opens_an_item_at_an_identifier_in_a_value_list():
    answer = (
        "- **7KQZ2P**: BRN → GVA, Standard, $41\n"
        "- **H4LM9R**: ZRH → BSL, Premium, $70\n"
        "- **2FBBAH**: LUG → BRN, Standard, $55"
    )
    run = _run("My bookings?", _bookings(), answer)
    assert _flagged(verify_run(run)) == []


@pytest.mark.parametrize("day,bad", [("June 2", None), ("June 5", "June 5")])
def test_it_reads_a_line_that_is_one_bold_span_as_a_heading(day, bad):
    answer = f"Here is your trip.\n\n**Westbound Voyage - {day}**\n- Train: RX101\n- Fare: $41"
    run = _run("My trip?", [("search_trains", {"date": "2025-06-02"}, _TRAINS)], answer)
    assert [t for t, _ in _flagged(verify_run(run))] == ([] if bad is None else [bad])


@pytest.mark.parametrize("train,bad", [("RX205", None), ("RX101", "not available")])
def test_it_reads_a_class_told_unavailable_against_its_count_of_seats(train, bad):
    trains = [
        {"train": "RX101", "status": "available", "available_seats": {"standard": 40, "premium": 5}},
        {"train": "RX205", "status": "available", "available_seats": {"standard": 12, "premium": 0}},
    ]
    answer = f"- **{train}**: Standard has seats left; Premium is not available."
    run = _run("Premium seats?", [("search_trains", {"date": "2025-06-02"}, trains)], answer)
    assert [t for t, _ in _flagged(verify_run(run))] == ([] if bad is None else [bad])
