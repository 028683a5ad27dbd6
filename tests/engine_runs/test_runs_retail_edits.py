"""Issue 14 (h19a): single-fact edits of real retail answers that no claim caught.

Runs written for these tests: a made-up garden shop with two orders of one customer. Each class is an edit
a customer-service answer can carry while every word of it is still somewhere in the results (a product
named with another product's options), next to the correct answer, which stays unflagged.
"""

import pytest

from tests.engine_runs.runs_helpers import flagged as _flagged
from tests.engine_runs.runs_helpers import run_with_calls as _run
from verification.engine.runs import verify_run

_ORDER = {
    "order_id": "#G1201",
    "items": [
        {
            "name": "Patio Heater",
            "item_id": "5501001",
            "price": 212.4,
            "options": {"fuel": "propane", "finish": "bronze", "height": "tall"},
        },
        {
            "name": "Rain Boots",
            "item_id": "5501002",
            "price": 48.9,
            "options": {"size": "8", "color": "olive", "lining": "fleece"},
        },
    ],
    "status": "delivered",
    "reward_points": 11,
}
_SECOND = {
    "order_id": "#G1302",
    "items": [
        {
            "name": "Seed Tray",
            "item_id": "5502001",
            "price": 19.5,
            "options": {"cells": "72", "color": "black"},
        },
        {
            "name": "Garden Gloves",
            "item_id": "5502002",
            "price": 12.0,
            "options": {"size": "11", "grip": "latex"},
        },
        {
            "name": "Leaf Blower",
            "item_id": "5502004",
            "price": 88.0,
            "options": {"run time": "2 hours", "color": "red"},
        },
    ],
    "status": "pending",
    "reward_points": 96,
}
_HEATERS = {
    "name": "Patio Heater",
    "variants": {
        "5501001": {
            "item_id": "5501001",
            "options": {"fuel": "propane", "finish": "bronze", "height": "tall"},
        },
        "5501009": {
            "item_id": "5501009",
            "options": {"fuel": "electric", "finish": "steel", "height": "short"},
        },
    },
}
_CALLS = [
    ("get_order_details", {"order_id": "#G1201"}, _ORDER),
    ("get_order_details", {"order_id": "#G1302"}, _SECOND),
    ("get_product_details", {"product_id": "heater"}, _HEATERS),
]


def _flags(answer: str, question: str = "What can I exchange?") -> list[str]:
    return [t for t, _ in _flagged(verify_run(_run(question, _CALLS, answer)))]


@pytest.mark.parametrize("name,bad", [("Patio Heater", False), ("Rain Boots", True), ("Seed Tray", True)])
def test_it_contradicts_a_product_named_with_another_products_options(name, bad):
    answer = f"Your order #G1201 has a **{name}** (propane, bronze finish, tall) that can be exchanged."
    assert (name in _flags(answer)) == bad


@pytest.mark.parametrize("name,bad", [("Rain Boots", False), ("Patio Heater", True)])
def test_it_contradicts_a_product_named_before_a_dash_and_another_products_options(name, bad):
    answer = f"**Item to return:**\n- Current: {name} - size 8, olive, fleece lining ($48.90)"
    assert (name in _flags(answer)) == bad


def test_it_keeps_a_product_told_with_options_of_its_other_variant():
    # The electric variant is the heater's too: a product's variants are its items.
    answer = "I can exchange your Patio Heater for the Patio Heater (electric, steel finish, short)."
    assert _flags(answer) == []


@pytest.mark.parametrize("size,bad", [("8", False), ("11", True)])
def test_it_contradicts_an_option_number_no_item_of_the_product_has(size, bad):
    # 11 is the gloves' size and an order's points: the number is in the results, not as this product's.
    answer = f"Item 5501002 is a pair of Rain Boots (size {size}, olive, fleece lining)."
    assert (size in _flags(answer)) == bad


@pytest.mark.parametrize("name,bad", [("Seed Tray", False), ("Rain Boots", True)])
def test_it_contradicts_a_product_named_in_an_orders_list_that_is_no_item_of_it(name, bad):
    answer = f"Your order #G1302 contains two items ({name}, Garden Gloves). Which one do you want to return?"
    assert (name in _flags(answer)) == bad


@pytest.mark.parametrize("name,bad", [("Patio Heater", False), ("Seed Tray", True)])
def test_it_contradicts_a_product_named_as_an_orders_exchange(name, bad):
    answer = f"**Order #G1201 ({name} Exchange):** status is now exchange requested."
    assert any(name in t for t in _flags(answer)) == bad


_PAID = dict(_SECOND, payment_history=[{"transaction_type": "payment", "amount": 19.5}])


@pytest.mark.parametrize(
    "answer,bad",
    [
        ("Once cancelled, you'd receive a full refund of $19.50 to your gift card.", False),
        ("Once cancelled, you'd receive a full payment of $19.50 to your gift card.", True),
        ("The refund has been immediately added back to your gift card.", False),
        ("The payment has been immediately added back to your gift card.", True),
        ("Your payment of $19.50 was made with your gift card.", False),
    ],
)
def test_it_contradicts_a_payment_the_customer_receives(answer, bad):
    calls = [("get_order_details", {"order_id": "#G1302"}, _PAID)]
    flags = [t for t, _ in _flagged(verify_run(_run("Cancel #G1302 please.", calls, answer)))]
    assert ("payment" in flags) == bad
