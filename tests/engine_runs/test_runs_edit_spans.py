"""Issue 14 (h20g): the span a single-fact edit of a shop answer is blamed on.

Runs written for these tests: a made-up stationery shop, one customer with two orders. A product name
swapped for another product of the customer must be the flagged claim, not the price or option told with
it (which are right for the item the line describes); the correct answer stays unflagged.
"""

from tests.engine_runs.runs_helpers import flagged as _flagged
from tests.engine_runs.runs_helpers import run_with_calls as _run
from verification.engine.runs import verify_run

_FIRST = {
    "order_id": "#K4410",
    "items": [
        {
            "name": "Fountain Pen",
            "item_id": "7310001001",
            "price": 84.25,
            "options": {"nib": "fine", "barrel": "walnut", "filler": "piston"},
        },
        {
            "name": "Ink Bottle",
            "item_id": "7310001002",
            "price": 17.6,
            "options": {"colour": "sepia", "volume": "50ml"},
        },
        {
            "name": "Leather Journal",
            "item_id": "7310001003",
            "price": 46.9,
            "options": {"ruling": "dotted", "cover": "tan", "pages": "240"},
        },
        {
            "name": "Brass Ruler",
            "item_id": "7310001004",
            "price": 22.15,
            "options": {"length": "30cm", "finish": "polished"},
        },
    ],
    "status": "pending",
}
_SECOND = {
    "order_id": "#K5521",
    "items": [
        {
            "name": "Desk Organizer",
            "item_id": "7320002001",
            "price": 61.4,
            "options": {"material": "oak", "compartments": "five"},
        },
        {
            "name": "Sketch Pad",
            "item_id": "7320002002",
            "price": 13.75,
            "options": {"paper": "cartridge", "size": "A3", "grain": "fine", "sheets": "300"},
        },
    ],
    "status": "delivered",
}
_CALLS = [
    ("get_order_details", {"order_id": "#K4410"}, _FIRST),
    ("get_order_details", {"order_id": "#K5521"}, _SECOND),
]


def _flags(answer: str) -> list[str]:
    return [t for t, _ in _flagged(verify_run(_run("What is in my orders?", _CALLS, answer)))]


def test_it_blames_a_swapped_name_not_the_price_on_its_line() -> None:
    swapped = "Item to return: Sketch Pad (fine nib, walnut, piston) - $84.25\n\nShall I go ahead?"
    assert _flags(swapped) == ["Sketch Pad"]


def test_it_leaves_the_right_name_with_its_options_and_price_unflagged() -> None:
    right = "Item to return: Fountain Pen (fine nib, walnut, piston) - $84.25\n\nShall I go ahead?"
    assert _flags(right) == []


def test_it_reads_the_options_after_a_name_and_a_colon() -> None:
    assert _flags("- Desk Organizer: dotted, tan, 240 pages - $46.90\n\nAnything else?") == ["Desk Organizer"]
    assert _flags("- Leather Journal: dotted, tan, 240 pages - $46.90\n\nAnything else?") == []


def test_it_blames_the_name_told_with_an_unnamed_items_price() -> None:
    # Leather Journal is never named: the Sketch Pad line stands in for it.
    answer = (
        "**Order #K4410 breakdown:**\n- Fountain Pen: $84.25\n- Ink Bottle: $17.60\n"
        "- Sketch Pad: $46.90\n- Brass Ruler: $22.15\n\nAnything else?"
    )
    assert _flags(answer) == ["Sketch Pad"]


def test_it_keeps_blaming_a_price_copied_from_a_listed_sibling() -> None:
    # The Ink Bottle's price told for the Fountain Pen, the Ink Bottle being listed: the price is the error.
    answer = "**Order #K4410 breakdown:**\n- Fountain Pen: $17.60\n- Ink Bottle: $17.60\n\nAnything else?"
    assert _flags(answer) == ["$17.60"]


def test_it_flags_the_one_enumerated_product_that_is_no_item_of_the_order() -> None:
    answer = (
        "I can cancel order #K4410 for you.\n\n"
        "Items being cancelled: Fountain Pen, Ink Bottle, Sketch Pad, and Brass Ruler\n\nShall I proceed?"
    )
    assert _flags(answer) == ["Sketch Pad"]


def test_it_leaves_an_enumeration_of_the_orders_own_items_unflagged() -> None:
    answer = (
        "I can cancel order #K4410 for you.\n\n"
        "Items being cancelled: Fountain Pen, Ink Bottle, Leather Journal, and Brass Ruler\n\n"
        "Shall I proceed?"
    )
    assert _flags(answer) == []


def test_it_leaves_an_enumeration_across_two_orders_unflagged() -> None:
    # No order is named whose items are all but one of the list: the list spans the customer's orders.
    answer = "Your orders hold a Fountain Pen, Ink Bottle, Sketch Pad, and Desk Organizer."
    assert _flags(answer) == []


def test_it_blames_a_name_sharing_one_value_with_the_options_of_another_item() -> None:
    # "fine" is also the Sketch Pad's grain: one shared value does not make the options the Sketch Pad's.
    assert _flags("- Sketch Pad (fine nib, walnut, piston) - $84.25\n\nAnything else?") == ["Sketch Pad"]
    assert _flags("- Sketch Pad (fine grain, cartridge paper, A3) - $13.75\n\nAnything else?") == []


def test_it_reads_the_options_in_the_lines_under_a_heading_naming_a_product() -> None:
    swapped = "**Current Ink Bottle:**\n- Options: dotted, tan, 240 pages\n- Price: $46.90\n\nShall I go on?"
    assert _flags(swapped) == ["Ink Bottle"]
    right = swapped.replace("Ink Bottle", "Leather Journal")
    assert _flags(right) == []


def test_it_leaves_a_heading_whose_lines_name_another_product_unflagged() -> None:
    # The lines under the heading name the Leather Journal: its options are told for it, not the heading's.
    answer = (
        "**Exchange for the Ink Bottle:**\n- Leather Journal: dotted, tan, 240 pages\n- Price: $46.90\n\n"
        "Shall I go on?"
    )
    assert _flags(answer) == []


def test_it_blames_a_name_told_with_another_products_item_id_alone() -> None:
    swapped = "Your order #K4410 contains Ink Bottle (item ID: 7310001003). Shall I go on?"
    assert _flags(swapped) == ["Ink Bottle"]
    assert _flags(swapped.replace("Ink Bottle", "Leather Journal")) == []


def test_it_leaves_an_item_id_with_a_price_to_the_price() -> None:
    # The price agrees with the name: the id is the odd one, and the name stays unflagged.
    answer = "- Ink Bottle (item ID: 7310001003) - $17.60\n- Brass Ruler (item ID: 7310001004) - $22.15"
    assert "Ink Bottle" not in _flags(answer)


_FLIGHTS = [
    {
        "flight_number": "PX210",
        "origin": "OAK",
        "destination": "BOI",
        "scheduled_departure_time_est": "09:00:00",
        "scheduled_arrival_time_est": "11:00:00",
        "prices": {"economy": 140},
    },
    {
        "flight_number": "PX318",
        "origin": "BOI",
        "destination": "MSP",
        "scheduled_departure_time_est": "11:00:00",
        "scheduled_arrival_time_est": "15:00:00",
        "prices": {"economy": 175},
    },
]


def _flight_flags(answer: str) -> list[str]:
    calls = [("search_onestop_flight", {"origin": "OAK", "destination": "MSP"}, [_FLIGHTS])]
    return [t for t, _ in _flagged(verify_run(_run("Which flights connect?", calls, answer)))]


def test_it_flags_a_labelled_time_that_is_another_slot_of_the_named_flight() -> None:
    # 11:00 is the next flight's departure, but under PX210 the label asks for PX210's departure (09:00).
    answer = (
        "- **Outbound:** OAK to BOI\n  - Flight Number: PX210\n  - Departure: 11:00 EST\n"
        "  - Arrival: 11:00 EST\n- **Onward:** BOI to MSP\n  - Flight Number: PX318\n"
        "  - Departure: 11:00 EST\n  - Arrival: 15:00 EST"
    )
    # (the claim is the time with its zone, as runs/clock.py reads it)
    assert _flight_flags(answer) == ["11:00 EST"]


def test_it_leaves_the_named_flights_own_labelled_times_unflagged() -> None:
    answer = (
        "- **Outbound:** OAK to BOI\n  - Flight Number: PX210\n  - Departure: 09:00 EST\n"
        "  - Arrival: 11:00 EST\n- **Onward:** BOI to MSP\n  - Flight Number: PX318\n"
        "  - Departure: 11:00 EST\n  - Arrival: 15:00 EST"
    )
    assert _flight_flags(answer) == []


def test_it_checks_an_option_number_told_without_any_other_option_of_the_product() -> None:
    # Only the number is told: 300 pages is no item of the Leather Journal, whatever else the group says.
    assert _flags("- Leather Journal (300 pages, hard cover) - $46.90\n\nAnything else?") == ["300"]
    assert _flags("- Leather Journal (240 pages, hard cover) - $46.90\n\nAnything else?") == []


def test_it_checks_an_option_number_in_the_lines_under_a_products_heading() -> None:
    answer = "**Leather Journal:**\n- From: dotted, tan, 300 pages\n- To: lined, tan\n\nShall I go on?"
    assert _flags(answer) == ["300"]
    assert _flags(answer.replace("300", "240")) == []


def test_it_flags_a_product_an_order_is_said_to_contain_that_is_no_item_of_it() -> None:
    swapped = "I see that order #K5521 contains a Brass Ruler and was delivered. What would you like to do?"
    assert _flags(swapped) == ["Brass Ruler"]
    assert _flags(swapped.replace("Brass Ruler", "Sketch Pad")) == []


def test_it_clears_the_other_items_values_on_the_lines_after_a_swapped_name() -> None:
    # The refund line is the Fountain Pen's price: the swapped name is the one claim.
    answer = "**Item to return:** Sketch Pad (fine nib, walnut, piston)\n**Refund amount:** $84.25\n\nOK?"
    assert _flags(answer) == ["Sketch Pad"]
    assert _flags(answer.replace("Sketch Pad", "Fountain Pen")) == []


def test_it_reads_the_lines_under_a_heading_whose_name_has_an_order_in_parentheses() -> None:
    answer = "**Return - Sketch Pad (Order #K4410):**\n- Current item: fine nib, walnut, piston - $84.25\n\n"
    assert _flags(answer) == ["Sketch Pad"]
    assert _flags(answer.replace("Sketch Pad", "Fountain Pen")) == []
