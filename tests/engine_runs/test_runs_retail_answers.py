"""Issue 14, tenth round: false-alarm classes of real retail customer-service answers (tau2-bench retail).

Each test is a made-up run of a shop's tools (a catalogue's variants, a customer's orders) with an answer
written for it; each class was found on ``bench/corpora/runs/tau_retail_clean_dev.jsonl``, fixed as a class:

- catalogue option values that write a number together with its unit or counted word ("500ml", "25ft",
  "4-piece") are values, not codes (``evidence._holds_values``);
- a state word whose subject is an action, or whose clause speaks of the future, a possibility or a
  condition, states no status of the order ("the exchange is completed", "will be shipped", "cannot be
  modified or cancelled") (``polarity._not_a_current_status``);
- a count of the items the answer names with it ("your other two orders (#W1 and #W2)", "these two
  items" after an enumeration) counts those items (``grounding._counts_named_items``);
- an amount an equation writes out ("$46.51 - $45.13 = +$1.38") is computed
  (``aggregates.states_arithmetic``);
- "ones" is no "one s" (``mentions``: a spelled-out number stands apart from its unit).
"""

import pytest

from tests.engine_runs.runs_helpers import flagged as _flagged
from tests.engine_runs.runs_helpers import run_with_calls as _run
from verification.engine.runs import verify_run
from verification.engine.runs.mentions import extract_mentions

_BOTTLE = {
    "name": "Flask",
    "product_id": "90001",
    "variants": {
        "11": {
            "item_id": "11",
            "options": {"capacity": "500ml", "colour": "teal"},
            "available": True,
            "price": 31.4,
        },
        "12": {
            "item_id": "12",
            "options": {"capacity": "750ml", "colour": "plum"},
            "available": True,
            "price": 33.9,
        },
    },
}
_TENT = {
    "name": "Tent",
    "product_id": "90002",
    "variants": {
        "21": {
            "item_id": "21",
            "options": {"sleeps": "3-person", "pole": "12ft"},
            "available": True,
            "price": 210.5,
        },
        "22": {
            "item_id": "22",
            "options": {"sleeps": "4-person", "pole": "14ft"},
            "available": True,
            "price": 245.0,
        },
    },
}


def _catalogue(answer):
    calls = [
        ("get_product_details", {"product_id": "90001"}, _BOTTLE),
        ("get_product_details", {"product_id": "90002"}, _TENT),
    ]
    return _flagged(verify_run(_run("What can I swap to?", calls, answer)))


@pytest.mark.parametrize(
    "answer,bad",
    [
        ("- 750ml, plum - $33.90\n- 500ml, teal - $31.40", []),
        ("- 4-person tent with a 14ft pole - $245.00", []),
        ("- 650ml, plum - $33.90", ["650ml"]),
        ("- 4-person tent with a 16ft pole - $245.00", ["16ft"]),
    ],
)
def test_it_reads_a_number_written_with_its_unit_in_an_option_value(answer, bad):
    assert [text for text, _ in _catalogue(answer)] == bad


def _order(oid, status, items):
    return {
        "order_id": oid,
        "address": {"address1": "41 Wren Row", "address2": "Flat 208", "zip": "60614"},
        "items": [{"name": n, "item_id": i, "price": p} for n, i, p in items],
        "status": status,
        "payment_history": [{"transaction_type": "payment", "amount": sum(p for _, _, p in items)}],
    }


_USER = {
    "user_id": "rowan_5",
    "address": {"address1": "41 Wren Row", "address2": "Flat 208", "zip": "60614"},
    "orders": ["#W501", "#W502", "#W503", "#W504"],
}
_ORDERS = [
    _order("#W501", "pending", [("Kettle", "7001", 40.25), ("Toaster", "7002", 35.5), ("Rug", "7003", 90.0)]),
    _order("#W502", "processed", [("Lamp", "7004", 22.0)]),
    _order("#W503", "processed", [("Chair", "7005", 61.0)]),
    _order("#W504", "delivered", [("Desk", "7006", 180.0)]),
]


def _account(answer):
    calls = [("get_user_details", {"user_id": "rowan_5"}, _USER)]
    calls += [("get_order_details", {"order_id": o["order_id"]}, o) for o in _ORDERS]
    return [text for text, _ in _flagged(verify_run(_run("Help with my orders", calls, answer)))]


@pytest.mark.parametrize(
    "answer",
    [
        "Order #W501 is pending, so I can update it. After this exchange is completed, nothing can change.",
        "Both updates have been completed successfully for order #W501.",
        "**Exchange Confirmed for Order #W504**\n- The Desk will be returned once we receive it.",
        "Order #W501 cannot be modified or cancelled again once I process this change.",
        "Your new Desk for order #W504 will be shipped to you after the return.",
    ],
)
def test_it_reads_no_order_status_in_an_action_or_a_future(answer):
    assert _account(answer) == []


def test_it_still_checks_a_status_the_answer_gives_the_order():
    assert _account("Order #W501 has been cancelled.") == ["cancelled"]


@pytest.mark.parametrize(
    "answer,bad",
    [
        ("Order #W504 is delivered. Your other two orders (#W502 and #W503) have been processed.", []),
        # Not "three": the user has four orders, so three others is what the results say (h18f's rule
        # for "N other orders"), even with two of them named.
        (
            "Order #W504 is delivered. Your other five orders (#W502 and #W503) have been processed.",
            ["five"],
        ),
        ("You keep the Rug and return the Kettle and Toaster. The refund for these two items is $75.75.", []),
    ],
)
def test_it_counts_the_items_the_answer_names_with_a_count(answer, bad):
    assert _account(answer) == bad


@pytest.mark.parametrize(
    "answer,bad",
    [
        ("- **Flask**: $33.90 (new) - $31.40 (current) = +$2.50", []),
        ("- **Flask**: $33.90 (new) - $31.40 (current) = +$2.80", ["$2.80"]),
    ],
)
def test_it_reads_an_equation_the_answer_writes_out(answer, bad):
    assert [text for text, _ in _catalogue(answer)] == bad


def test_it_reads_no_quantity_in_ones():
    text = "I can change the flask to the plum ones you want. It takes two days."
    assert [m.text for m in extract_mentions(text) if m.kind == "quantity"] == ["two days"]


# Second pass (runs 31 and 34 added): conditions, totals under a list, labels, numbered sections.


def _two_orders(answer):
    orders = [
        _order("#W601", "pending", [("Kettle", "7101", 40.25)]),
        _order("#W602", "cancelled", [("Lamp", "7102", 22.0)]),
    ]
    calls = [("get_order_details", {"order_id": o["order_id"]}, o) for o in orders]
    return [text for text, _ in _flagged(verify_run(_run("My orders?", calls, answer)))]


@pytest.mark.parametrize(
    "answer",
    [
        "Order #W601 is pending. Once confirmed, the order status will be changed.",
        "Order #W601 will now be delivered to 41 Wren Row. Once the order is delivered, you can return it.",
    ],
)
def test_it_reads_no_order_status_in_a_condition(answer):
    assert _two_orders(answer) == []


def test_it_still_reads_a_status_outside_a_condition():
    assert _two_orders("Order #W601 has been delivered.") == ["delivered"]


def test_it_closes_a_list_item_at_a_total_label():
    # 165.75 is the order's payment, not the last line's (the Rug's) value.
    answer = (
        "Order #W501 contains:\n\n1. Kettle - $40.25\n2. Toaster - $35.50\n3. Rug - $90.00\n\n"
        "**Total order: $165.75**"
    )
    assert _account(answer) == []
    assert _account(answer.replace("$165.75", "$175.75")) == ["$175.75"]


@pytest.mark.parametrize(
    "answer",
    [
        "✅ **Exchanging:** Desk for order #W504 - $180.00",
        "✅ **KETTLE MODIFICATION - Order #W501**\n- Status: pending",
    ],
)
def test_it_reads_service_labels_as_no_names(answer):
    assert _account(answer) == []


def test_it_reads_a_non_attribute_as_no_name():
    options = {"size": "12", "material": "leather", "waterproof": "no"}
    boots = {"name": "Boots", "items": [{"name": "Boots", "price": 120.0, "options": options}]}
    answer = "- Boots - Size 12, Leather, Non-waterproof - $120.00"
    run = _run("My boots?", [("get_order_details", {"order_id": "#W9"}, boots)], answer)
    assert _flagged(verify_run(run)) == []


def test_it_reads_numbered_sections_as_no_values():
    answer = "**Exchange #1 - Flask**\n- $33.90\n\n**Exchange #2 - Tent**\n- $245.00"
    assert [text for text, _ in _catalogue(answer)] == []


def test_it_adds_up_the_amounts_the_answer_names_in_a_total():
    answer = (
        "- Flask: a refund of $2.50\n- Tent: a refund of $34.50\n- Other flask: a refund of $33.90\n\n"
        "**Total refunds: $70.90**"
    )
    assert [text for text, _ in _catalogue(answer)] == []
    assert [text for text, _ in _catalogue(answer.replace("$70.90", "$72.90"))] == ["$72.90"]
