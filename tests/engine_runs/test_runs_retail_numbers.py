"""Issue 14 (h18f): correct numbers of real retail answers flagged as contradicted or unsupported.

Runs written for these tests: a made-up outdoor shop with orders, items, product variants and a gift card.
Each class is a correct number a customer-service agent states (a variant's option written as one token, a
price on an item line of a list, a difference it writes out, a total of the amounts it just listed, a
count of "other" orders, a count its own list spells out) and the same statement with the number changed,
which stays flagged.
"""

import pytest

from tests.engine_runs.runs_helpers import flagged as _flagged
from tests.engine_runs.runs_helpers import run_with_calls as _run
from verification.engine.runs import verify_run

_USER = {
    "user_id": "lena_park_1182",
    "name": {"first_name": "Lena", "last_name": "Park"},
    "payment_methods": {"gift_card_5521": {"source": "gift_card", "id": "gift_card_5521", "balance": 40.0}},
    "orders": ["#K4417", "#K5520", "#K6631"],
}
_ORDER = {
    "order_id": "#K4417",
    "items": [
        {
            "name": "Camp Kettle",
            "item_id": "7710023",
            "price": 64.2,
            "options": {"capacity": "1.5L", "material": "steel"},
        },
        {
            "name": "Trail Laptop",
            "item_id": "7710187",
            "price": 899.0,
            "options": {"screen size": "14-inch", "ram": "16GB", "storage": "512GB SSD"},
        },
        {"name": "Lantern", "item_id": "7710355", "price": 23.1, "options": {"color": "green"}},
        {"name": "Tent", "item_id": "7710410", "price": 152.4, "options": {"piece count": "3-piece"}},
    ],
    "status": "delivered",
    "payment_history": [
        {"transaction_type": "payment", "amount": 1138.7, "payment_method_id": "gift_card_5521"}
    ],
}
_SECOND = {
    "order_id": "#K5520",
    "items": [{"name": "Sleeping Bag", "item_id": "7720001", "price": 88.1, "options": {"fill": "down"}}],
    "status": "pending",
    "payment_history": [
        {"transaction_type": "payment", "amount": 88.1, "payment_method_id": "gift_card_5521"}
    ],
}
_THIRD = {
    "order_id": "#K6631",
    "items": [{"name": "Headlamp", "item_id": "7730002", "price": 41.0, "options": {"lumens": "300"}}],
    "status": "pending",
    "payment_history": [
        {"transaction_type": "payment", "amount": 41.0, "payment_method_id": "gift_card_5521"}
    ],
}
_KETTLES = {
    "name": "Camp Kettle",
    "variants": {
        "7710023": {"item_id": "7710023", "options": {"capacity": "1.5L"}, "available": True, "price": 64.2},
        "7710031": {"item_id": "7710031", "options": {"capacity": "1L"}, "available": True, "price": 71.5},
    },
}
_CALLS = [
    ("get_user_details", {"user_id": "lena_park_1182"}, _USER),
    ("get_order_details", {"order_id": "#K4417"}, _ORDER),
    ("get_order_details", {"order_id": "#K5520"}, _SECOND),
    ("get_order_details", {"order_id": "#K6631"}, _THIRD),
    ("get_product_details", {"product_id": "kettle"}, _KETTLES),
]


def _flags(answer: str, question: str = "What do I have?") -> list[str]:
    return [t for t, _ in _flagged(verify_run(_run(question, _CALLS, answer)))]


@pytest.mark.parametrize("value,bad", [("1.5L", False), ("2.5L", True)])
def test_it_reads_a_measure_the_results_write_as_one_token(value, bad):
    answer = f"Your order #K4417 has the Camp Kettle ({value} capacity, steel) for $64.20."
    assert (value in _flags(answer)) == bad


@pytest.mark.parametrize("value,bad", [("14-inch", False), ("17-inch", True)])
def test_it_reads_a_screen_size_the_results_write_as_one_token(value, bad):
    answer = f"The Trail Laptop in order #K4417 is the {value} model with 16GB RAM, at $899.00."
    assert (value in _flags(answer)) == bad


@pytest.mark.parametrize("price,bad", [("$23.10", False), ("$27.72", True)])
def test_it_keeps_the_details_of_an_item_line_to_that_line(price, bad):
    # The laptop's line names its options ("16GB", "512GB"); the lines after it are other items, not fields
    # of the laptop, so their prices are no other value of the laptop's.
    answer = (
        "Order #K4417 contains:\n"
        "- **Trail Laptop** (14-inch, 16GB RAM, 512GB SSD) - $899.00\n"
        "- Camp Kettle - $64.20\n"
        f"- Lantern - {price}\n"
        "- Tent - $152.40"
    )
    assert (price in _flags(answer)) == bad


@pytest.mark.parametrize("diff,bad", [("$7.30", False), ("$8.76", True)])
def test_it_supports_a_difference_the_answer_writes_out_with_an_arrow(diff, bad):
    answer = f"- Camp Kettle: $64.20 → 1L version: $71.50 (+{diff})"
    assert (diff in _flags(answer, "How much more is the 1L kettle?")) == bad


@pytest.mark.parametrize("diff,bad", [("$7.30", False), ("$8.76", True)])
def test_it_supports_a_difference_the_answer_writes_as_an_equation(diff, bad):
    answer = f"- **Camp Kettle**: $71.50 (new) - $64.20 (current) = +{diff}"
    assert (diff in _flags(answer, "How much more is the 1L kettle?")) == bad


@pytest.mark.parametrize("total,bad", [("$281.50", False), ("$337.80", True)])
def test_it_supports_a_total_of_the_amounts_the_answer_just_listed(total, bad):
    answer = (
        "Here is what you would get back:\n"
        "- Return the Tent: $152.40\n"
        "- Cancel order #K5520: $88.10\n"
        "- Cancel order #K6631: $41.00\n\n"
        f"**Total refund: {total}**"
    )
    assert (total in _flags(answer, "How much will I get back?")) == bad


@pytest.mark.parametrize("saving,bad", [("about $7", False), ("about $20", True)])
def test_it_supports_a_rounded_saving_the_sentence_calls_so(saving, bad):
    answer = f"The 1.5L Camp Kettle costs $64.20, which saves you {saving} over the 1L one at $71.50."
    flags = _flags(answer, "Which kettle is cheaper?")
    assert any(saving.endswith(t) for t in flags) == bad


@pytest.mark.parametrize("count,bad", [("two", False), ("four", True)])
def test_it_counts_the_other_orders_without_the_one_in_question(count, bad):
    answer = (
        f"Order #K4417 is delivered. You also have {count} other orders, #K5520 and #K6631, both pending."
    )
    assert (count in _flags(answer)) == bad


def test_it_supports_a_count_of_options_that_the_answer_lists():
    # Only support: a list of marked lines may hold more than the things counted, so a count that differs
    # from it is left to the other rules.
    answer = (
        "I can offer you two options:\n\n"
        "**Option 1:** Exchange the Camp Kettle for the 1L version\n\n"
        "**Option 2:** Return the Camp Kettle for a refund of $64.20\n\n"
        "Which option would you prefer?"
    )
    assert "two" not in _flags(answer)


@pytest.mark.parametrize("count,bad", [("three", False), ("four", True)])
def test_it_supports_a_count_of_items_that_the_answer_names_in_parentheses(count, bad):
    answer = f"You can return all {count} items (Camp Kettle, Lantern, and Tent) from order #K4417."
    assert (count in _flags(answer, "Can I return them?")) == bad


@pytest.mark.parametrize("total,bad", [("$182.80", False), ("$219.36", True)])
def test_it_supports_a_total_of_the_refunds_the_answer_states_one_per_change(total, bad):
    # Each change states its refund beside an item's price: the refunds are not consecutive amounts, but
    # the total of the refunds adds the one amount of each sentence that speaks of a refund.
    answer = (
        "**1. Kettle exchange**\n"
        "- New item: Camp Kettle 1.5L ($64.20), was the 1L at $71.50\n"
        "- Refund: $7.30 to your gift card\n\n"
        "**2. Lantern return**\n"
        "- Item: Lantern ($23.10)\n"
        "- Refund: $23.10 to your gift card\n\n"
        "**3. Tent return**\n"
        "- Item: Tent ($152.40)\n"
        "- Refund: $152.40 to your gift card\n\n"
        f"**Total refunds: {total}**"
    )
    assert (total in _flags(answer, "How much comes back?")) == bad
