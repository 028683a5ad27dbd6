"""Issue 14, eleventh round: false-alarm classes of real retail answers (tau2-bench retail, dev3, h19b).

Each test is a made-up run of a shop's tools with an answer written for it; each class was found on
``bench/corpora/runs/tau_retail_clean_dev3.jsonl`` or ``tau_retail_clean_dev2.jsonl`` and fixed as a class:

- the first word of a bold list item ("1. **Wait for delivery** - ...") opens a sentence
  (``mentions._sentence_start``);
- a state word before a noun of time or cost ("Processing time: 5-7 business days") is no status
  (``mentions``);
- the status an order "will change to" after an action is no status now (``polarity._not_a_current_status``);
- a state told after an action is the one of the latest read of the same record (``identity.latest_of_same``);
- a heading's state that names no record ("**To Cancel (Pending Orders):**") is not judged (``polarity``);
- an order's amount after the last of its items is the order's, not another item's (``records``);
- a count of items across several orders ("two tablets in separate orders") (``grounding``);
- an amount the answer computed, restated under another label ("Amount to pay: $22.55") (``grounding``).
"""

from typing import Any

from tests.engine_runs.runs_helpers import flagged as _flagged
from tests.engine_runs.runs_helpers import run_with_calls as _run
from verification.engine.runs import verify_run


def _order(oid: str, status: str, items: list[tuple[str, str, float]], paid: float) -> dict[str, object]:
    return {
        "order_id": oid,
        "user_id": "mira_vale_4410",
        "items": [
            {"name": n, "product_id": "7" + i, "item_id": i, "price": p, "options": {"colour": "teal"}}
            for n, i, p in items
        ],
        "status": status,
        "payment_history": [
            {"transaction_type": "payment", "amount": paid, "payment_method_id": "gift_card_1"}
        ],
    }


_SHELF = _order("#W7100001", "processed", [("Bookshelf", "4001", 537.01), ("Pet Bed", "4002", 204.09)], 741.1)


def test_it_reads_the_first_word_of_a_bold_option_as_no_name() -> None:
    answer = (
        "Your order #W7100001 is processed.\n\nYour options would be:\n"
        "1. **Wait for delivery and return the bookshelf** - then order a camera.\n"
        "2. **Keep the order as is** - nothing changes."
    )
    report = verify_run(_run("Can I swap it?", [("get_order_details", {}, _SHELF)], answer))
    assert _flagged(report) == []


def test_it_reads_a_processing_time_as_no_status() -> None:
    cancelled = _order("#W7100002", "cancelled", [("Grill", "4003", 99.5)], 99.5)
    answer = (
        "Your order #W7100002 has been cancelled.\n\n- Refund amount: $99.50\n"
        "- Processing time: a few business days"
    )
    report = verify_run(_run("Cancel it.", [("cancel_pending_order", {}, cancelled)], answer))
    assert _flagged(report) == []


def test_it_reads_the_status_an_order_will_change_to_as_no_status_now() -> None:
    pending = _order("#W7100003", "pending", [("Kettle", "4004", 155.99)], 155.99)
    answer = (
        "Order #W7100003 (Kettle, $155.99) can be cancelled.\n\n"
        '- Order status will change to "cancelled"\n\nDo you confirm?'
    )
    report = verify_run(_run("I want it cancelled.", [("get_order_details", {}, pending)], answer))
    assert _flagged(report) == []


def test_it_reads_a_state_after_an_action_from_the_latest_read_of_the_record() -> None:
    items = [("Kettle", "4004", 155.99), ("Speaker", "4005", 285.94)]
    before = _order("#W7100003", "pending", items, 441.93)
    after = _order("#W7100003", "cancelled", items, 441.93)
    other = _order("#W7100004", "pending", [("Laptop", "4006", 2530.72)], 2530.72)
    calls: list[tuple[str, dict[str, Any], Any]] = [
        ("get_order_details", {}, before),
        ("get_order_details", {}, other),
        ("cancel_pending_order", {}, after),
    ]
    answer = (
        "Both actions are done.\n\n**Order #W7100003 - Cancelled:**\n"
        "- All 2 items (Kettle, Speaker) have been cancelled\n- Refund: $441.93"
    )
    report = verify_run(_run("Cancel the kettle order.", calls, answer))
    assert _flagged(report) == []
    # Without the read after the cancellation, the order is still pending: the claim is contradicted.
    report = verify_run(_run("Cancel the kettle order.", calls[:2], answer))
    assert ("cancelled", "CONTRADICTED") in _flagged(report)


def test_it_does_not_judge_a_heading_state_that_names_no_record() -> None:
    done = _order("#W7100005", "cancelled", [("Helmet", "4007", 180.02)], 180.02)
    open_ = _order("#W7100006", "pending", [("Keyboard", "4008", 268.77)], 268.77)
    calls: list[tuple[str, dict[str, Any], Any]] = [
        ("get_order_details", {}, done),
        ("get_order_details", {}, open_),
    ]
    answer = "Here is what I can do:\n\n**To Cancel (Pending Orders):**\n- Order #W7100006: Keyboard"
    report = verify_run(_run("What can I cancel?", calls, answer))
    assert _flagged(report) == []


def test_it_reads_an_orders_amount_after_its_last_item_as_the_orders() -> None:
    phone = _order(
        "#W7100007", "pending", [("Keyboard", "4008", 268.77), ("Smartphone", "4009", 1161.04)], 1429.81
    )
    answer = "You can cancel:\n- **Order #W7100007**: Keyboard, Smartphone - Refund: $1,429.81"
    report = verify_run(_run("Refunds?", [("get_order_details", {}, phone)], answer))
    assert _flagged(report) == []


def test_it_counts_items_of_a_kind_across_orders() -> None:
    one = _order(
        "#W7100008", "delivered", [("Tablet", "4010", 938.92), ("Skateboard", "4011", 186.06)], 1124.98
    )
    two = _order("#W7100009", "delivered", [("Tablet", "4012", 989.7), ("Pet Bed", "4013", 193.22)], 1182.92)
    calls: list[tuple[str, dict[str, Any], Any]] = [
        ("get_order_details", {}, one),
        ("get_order_details", {}, two),
    ]
    answer = "I can see you have two tablets in separate orders: #W7100008 and #W7100009."
    report = verify_run(_run("Return a tablet.", calls, answer))
    assert _flagged(report) == []
    report = verify_run(_run("Return a tablet.", calls, answer.replace("two tablets", "three tablets")))
    assert ("three", "CONTRADICTED") in _flagged(report)


def test_it_supports_a_computed_amount_restated_under_another_label() -> None:
    helmet = {
        "name": "Cycling Helmet",
        "product_id": "7765",
        "variants": {
            "3358": {"item_id": "3358", "options": {"size": "S"}, "available": True, "price": 197.33},
            "9013": {"item_id": "9013", "options": {"size": "M"}, "available": True, "price": 219.88},
        },
    }
    answer = (
        "- **Cycling Helmet** - Size M - $219.88\n\n**Price difference: $22.55** (you'll pay this amount)\n\n"
        "**Exchange Summary:**\n- New item: 9013 (Size M)\n- Amount to pay: $22.55"
    )
    report = verify_run(_run("Exchange my helmet.", [("get_product_details", {}, helmet)], answer))
    assert _flagged(report) == []
    report = verify_run(
        _run(
            "Exchange my helmet.",
            [("get_product_details", {}, helmet)],
            answer.replace("Amount to pay: $22.55", "Amount to pay: $27.06"),
        )
    )
    assert ("$27.06", "UNSUPPORTED") in _flagged(report)
