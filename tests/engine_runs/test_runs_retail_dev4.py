"""Issue 14, twelfth round: false-alarm classes of real retail answers (tau2-bench retail, dev4, h20a).

Each test is a made-up run of a garden shop's tools with an answer written for it; each class was found on
``bench/corpora/runs/tau_retail_clean_dev4.jsonl`` and fixed as a class, with a test that the error the
class could hide is still flagged:

- the number of the answer's own sections without "#" ("**Item 1 - ...:**", "**Item 2 - ...:**")
  (``grounding._numbered_labels``);
- a count whose list follows a few words and a colon ("a couple of options for you:") (``own_lists``);
- a count that points back to a list the answer gave earlier ("switching these 3 items") (``own_lists``);
- a value nested in the very record a value list's name names (an order's tracking number and its item's
  options after the order's address) (``records._nested_in_own``);
- a word that only a status value supports ("1. Cancel the entire pending order") names no record
  (``polarity._names_a_category``);
- "refunded" of a cancelled order whose payment history holds the refund (``polarity._refunds_of``);
- the sum of the changes of amount the answer lists ("$48.10 → $41.25"), and the new total it gives
  (``own_lists.listed_changes``).
"""

from typing import Any

from tests.engine_runs.runs_helpers import flagged as _flagged
from tests.engine_runs.runs_helpers import run_with_calls as _run
from verification.engine.runs import verify_run

_ADDRESS = {
    "address1": "27 Fern Row",
    "address2": "Unit 8",
    "city": "Harrowgate",
    "state": "VT",
    "zip": "05091",
}


def _order(
    oid: str,
    status: str,
    items: list[tuple[str, str, float, dict[str, str]]],
    history: list[tuple[str, float]],
    **extra: Any,
) -> dict[str, Any]:
    return {
        "order_id": oid,
        "user_id": "rowan_piel_2207",
        "address": dict(_ADDRESS),
        "items": [
            {"name": n, "product_id": "5" + i, "item_id": i, "price": p, "options": o} for n, i, p, o in items
        ],
        "status": status,
        "payment_history": [
            {"transaction_type": t, "amount": a, "payment_method_id": "paypal_4410"} for t, a in history
        ],
        **extra,
    }


_HOSE = ("Garden Hose", "6101", 48.1, {"length": "50ft", "color": "green"})
_SHEARS = ("Pruning Shears", "6102", 31.75, {"blade": "bypass", "grip": "soft"})
_LANTERN = ("Solar Lantern", "6103", 22.4, {"colour": "amber", "size": "small"})


def _variants(name: str, pid: str, rows: list[tuple[str, dict[str, str], float]]) -> dict[str, Any]:
    return {
        "name": name,
        "product_id": pid,
        "variants": {i: {"item_id": i, "options": o, "available": True, "price": p} for i, o, p in rows},
    }


def test_it_reads_the_numbers_of_the_answers_own_item_sections_as_no_values() -> None:
    order = _order("#W8200001", "delivered", [_HOSE, _SHEARS], [("payment", 79.85)])
    answer = (
        "Here is the exchange for order #W8200001:\n\n"
        "**Item 1 - Garden Hose:**\n- Current: 50ft, green - $48.10\n\n"
        "**Item 2 - Pruning Shears:**\n- Current: bypass, soft grip - $31.75\n\nShall I go ahead?"
    )
    report = verify_run(_run("Swap both.", [("get_order_details", {}, order)], answer))
    assert _flagged(report) == []


def test_it_still_checks_the_values_under_the_answers_own_item_sections() -> None:
    # The sections' numbers are no values; what the sections say still is: the shears cost $31.75.
    order = _order("#W8200001", "delivered", [_HOSE, _SHEARS], [("payment", 79.85)])
    answer = (
        "Here is the exchange for order #W8200001:\n\n"
        "**Item 1 - Garden Hose:**\n- Current: 50ft, green - $48.10\n\n"
        "**Item 2 - Pruning Shears:**\n- Current: bypass, soft grip - $38.15\n\nShall I go ahead?"
    )
    report = verify_run(_run("Swap both.", [("get_order_details", {}, order)], answer))
    assert ("$38.15", "UNSUPPORTED") in _flagged(report) or ("$38.15", "CONTRADICTED") in _flagged(report)


def test_it_counts_the_options_a_colon_after_a_few_words_opens() -> None:
    order = _order("#W8200002", "pending", [_HOSE, _SHEARS, _LANTERN], [("payment", 102.25)])
    answer = (
        "I cannot remove one item from pending order #W8200002. I have a couple of options for you:\n\n"
        "**Option 1:** Cancel the whole order ($102.25).\n\n**Option 2:** Keep the order as it is.\n\n"
        "Which would you like?"
    )
    report = verify_run(_run("Drop the lantern.", [("get_order_details", {}, order)], answer))
    assert _flagged(report) == []


def test_it_still_contradicts_a_count_of_the_orders_items() -> None:
    # The count says how many items the order holds, with no list of its own after it: the order has three.
    order = _order("#W8200002", "pending", [_HOSE, _SHEARS, _LANTERN], [("payment", 102.25)])
    answer = "Pending order #W8200002 holds 4 items for $102.25 in total."
    report = verify_run(_run("What is in it?", [("get_order_details", {}, order)], answer))
    assert ("4", "CONTRADICTED") in _flagged(report)


_SHORTER = {"length": "25ft", "color": "green"}
_ANVIL = {"blade": "anvil", "grip": "soft"}
_WHITE = {"colour": "white", "size": "small"}
_CATALOGUE: list[tuple[str, dict[str, Any], Any]] = [
    ("get_product_details", {}, _variants(name, "5" + old, [(old, opts, price), (new, cheaper, new_price)]))
    for name, old, opts, price, new, cheaper, new_price in (
        ("Garden Hose", "6101", _HOSE[3], 48.1, "6111", _SHORTER, 41.25),
        ("Pruning Shears", "6102", _SHEARS[3], 31.75, "6112", _ANVIL, 29.5),
        ("Solar Lantern", "6103", _LANTERN[3], 22.4, "6113", _WHITE, 21.95),
    )
]


def _cheaper(answer: str) -> list[tuple[str, str]]:
    order = _order("#W8200003", "pending", [_HOSE, _SHEARS, _LANTERN], [("payment", 102.25)])
    return _flagged(
        verify_run(_run("Cheapest options?", [("get_order_details", {}, order), *_CATALOGUE], answer))
    )


_CHEAPER = (
    "Order #W8200003 can be switched to cheaper options:\n\n**Current Order Total: $102.25**\n\n"
    "**Items that can be switched:**\n"
    "1. **Garden Hose**: $48.10 → $41.25 (25ft, green) - Save $6.85\n"
    "2. **Pruning Shears**: $31.75 → $29.50 (anvil, soft grip) - Save $2.25\n"
    "3. **Solar Lantern**: $22.40 → $21.95 (white, small) - Save $0.45\n\n"
    "**Items kept as they are:**\n- none\n- nothing else\n\n"
    "**New Order Total: $92.70**\n\n"
    "The $9.55 difference would be refunded to your PayPal account.\n\n"
    "Would you like me to proceed with switching these 3 items?"
)


def test_it_supports_a_count_that_points_back_to_a_list_the_answer_gave() -> None:
    assert [t for t, _ in _cheaper(_CHEAPER) if t == "3"] == []


def test_it_still_contradicts_a_count_that_no_earlier_list_has() -> None:
    assert ("4", "CONTRADICTED") in _cheaper(_CHEAPER.replace("these 3 items", "these 4 items"))


def test_it_supports_the_sum_and_the_new_total_of_the_changes_the_answer_lists() -> None:
    # 6.85 + 2.25 + 0.45 = 9.55 and 102.25 - 9.55 = 92.70: two steps over amounts each checked on its own.
    assert [t for t, _ in _cheaper(_CHEAPER) if t in ("$92.70", "$9.55")] == []
    assert _cheaper(_CHEAPER) == []


def test_it_still_flags_a_new_total_or_a_difference_the_changes_do_not_give() -> None:
    assert ("$93.70", "UNSUPPORTED") in _cheaper(_CHEAPER.replace("$92.70", "$93.70"))
    assert ("$9.95", "UNSUPPORTED") in _cheaper(_CHEAPER.replace("$9.55", "$9.95"))


def _delivered_with_tracking() -> tuple[dict[str, Any], dict[str, Any]]:
    home = _order("#W8200004", "cancelled", [_HOSE], [("payment", 48.1), ("refund", 48.1)])
    away = _order(
        "#W8200005",
        "delivered",
        [("Bird Feeder", "6104", 36.2, {"size": "8-inch", "material": "cedar"}), _SHEARS],
        [("payment", 67.95)],
        fulfillments=[{"tracking_id": ["553190274418"], "item_ids": ["6104", "6102"]}],
    )
    away["address"] = {
        "address1": "9 Quarry Lane",
        "address2": "Flat 3",
        "city": "Millbrook",
        "state": "NH",
        "zip": "03768",
    }
    return home, away


# The customer's words name the fields the answer then labels ("Tracking Number", "Feeder Details").
_ASKED = (
    "It has not arrived. Which address did it go to, what is the tracking number, and the feeder details?"
)


def test_it_reads_a_value_nested_in_the_record_a_value_list_names_as_its_own() -> None:
    home, away = _delivered_with_tracking()
    answer = (
        "I found the feeder order!\n\n**Order #W8200005:**\n- **Status:** Delivered\n"
        "- **Shipping Address:** 9 Quarry Lane, Flat 3, Millbrook, NH 03768\n"
        "- **Tracking Number:** 553190274418\n- **Feeder Details:** 8-inch, cedar"
    )
    calls: list[tuple[str, dict[str, Any], Any]] = [
        ("get_order_details", {}, home),
        ("get_order_details", {}, away),
    ]
    assert _flagged(verify_run(_run(_ASKED, calls, answer))) == []


def test_it_still_flags_a_tracking_number_of_another_order() -> None:
    home, away = _delivered_with_tracking()
    home["fulfillments"] = [{"tracking_id": ["771200458836"], "item_ids": ["6101"]}]
    answer = (
        "**Order #W8200005:**\n- **Status:** Delivered\n"
        "- **Shipping Address:** 9 Quarry Lane, Flat 3, Millbrook, NH 03768\n"
        "- **Tracking Number:** 771200458836\n- **Feeder Details:** 8-inch, cedar"
    )
    calls: list[tuple[str, dict[str, Any], Any]] = [
        ("get_order_details", {}, home),
        ("get_order_details", {}, away),
    ]
    assert ("771200458836", "CONTRADICTED") in _flagged(verify_run(_run(_ASKED, calls, answer)))


# A shop's instructions name the actions ("Cancel ...") that the answer's list items open with.
_SYSTEM = {
    "role": "system",
    "content": "You are the shop's agent. Cancel or modify pending orders on request.",
}


def _three_orders() -> list[tuple[str, dict[str, Any], Any]]:
    open_ = _order("#W8200006", "pending", [_HOSE, _SHEARS], [("payment", 79.85)])
    gone1 = _order("#W8200007", "cancelled", [_LANTERN], [("payment", 22.4), ("refund", 22.4)])
    gone2 = _order("#W8200008", "cancelled", [_SHEARS], [("payment", 31.75), ("refund", 31.75)])
    return [("get_order_details", {}, o) for o in (open_, gone1, gone2)]


def test_it_does_not_take_the_record_of_a_state_from_a_word_a_status_supports() -> None:
    answer = (
        "Your order **#W8200006** is pending.\n\n**Your best option is to:**\n"
        "1. Cancel the entire pending order, and you'll receive a full refund of $79.85\n"
        "2. Then place a new order with the shears only"
    )
    assert _flagged(verify_run([_SYSTEM, *_run("Remove the hose.", _three_orders(), answer)])) == []


def test_it_still_contradicts_the_state_of_a_named_order() -> None:
    answer = "Order #W8200007 is pending, so I can cancel it for you."
    flagged = _flagged(verify_run([_SYSTEM, *_run("Cancel it.", _three_orders(), answer)]))
    assert ("pending", "CONTRADICTED") in flagged


def test_it_supports_refunded_for_a_cancelled_order_whose_payment_was_refunded() -> None:
    answer = "Order #W8200007 is cancelled and has been refunded $22.40 to your PayPal account."
    assert _flagged(verify_run(_run("What happened?", _three_orders(), answer))) == []


def test_it_still_contradicts_refunded_for_an_order_with_no_refund() -> None:
    answer = "Order #W8200006 has been refunded $79.85 to your PayPal account."
    assert ("refunded", "CONTRADICTED") in _flagged(
        verify_run(_run("What happened?", _three_orders(), answer))
    )
