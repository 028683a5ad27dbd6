"""Issue 14, thirteenth round: false-alarm classes of real retail answers (tau2-bench retail, dev6, h22b).

Each test is a made-up run of an outdoor shop's tools with an answer written for it; each class was found on
``bench/corpora/runs/tau_retail_clean_dev6.jsonl`` and fixed as a class, with a test that the error the
class could hide is still flagged:

- a one-word exclamation after an emoji that opens a sentence ("\U0001f6b2 **Hooray!** Your address ...") is
  an ordinary word, not a name (``mentions._emoji_exclamation``);
- the items of a list a request opens ("Please share your new address:\\n- Flat/Unit number (or "none")\\n-
  Region (QC)") name fields the customer is asked for, not values of the results
  (``grounding._drop_requested_fields``);
- a total under a nested list adds the amounts of the list's top-level items, their indented parts left out,
  across the headings that group them (``own_lists._top_level_list_above``);
- an amount whose sentence writes out its terms ("$212.40 (your original $40.00 plus the $172.40 from the
  cancellations)") is their sum (``own_lists.told_sum``);
- a state word that qualifies a noun ("your refund for the cancelled order") tells which record the sentence
  means, not a new status of the record it names (``polarity._attributive``);
- and, for recall on dev6's edits, "the payment of $82.75 will be processed to your store credit": money
  sent to the customer is a refund (``refund_words``).
"""

from typing import Any

from tests.engine_runs.runs_helpers import flagged as _flagged
from tests.engine_runs.runs_helpers import run_with_calls as _run
from verification.engine.runs import verify_run

_ADDRESS = {
    "address1": "12 Birch Road",
    "address2": "Suite 310",
    "city": "Lakemont",
    "country": "USA",
    "state": "VT",
    "zip": "05640",
}


def _order(
    oid: str, status: str, items: list[tuple[str, str, float]], paid: float, refund: float | None = None
) -> dict[str, Any]:
    history = [{"transaction_type": "payment", "amount": paid, "payment_method_id": "store_credit_5521"}]
    if refund is not None:
        history.append(
            {"transaction_type": "refund", "amount": refund, "payment_method_id": "store_credit_5521"}
        )
    return {
        "order_id": oid,
        "user_id": "rowan_pike_3310",
        "address": dict(_ADDRESS),
        "items": [
            {"name": n, "product_id": "5" + i, "item_id": i, "price": p, "options": {}} for n, i, p in items
        ],
        "status": status,
        "payment_history": history,
    }


_USER = {
    "user_id": "rowan_pike_3310",
    "name": {"first_name": "Rowan", "last_name": "Pike"},
    "address": dict(_ADDRESS),
    "email": "rowan.pike@example.com",
    "payment_methods": {
        "store_credit_5521": {"source": "store_credit", "id": "store_credit_5521", "balance": 40.0}
    },
    "orders": ["#T1101", "#T1102", "#T1103", "#T1104"],
}
_DONE = _order("#T1101", "cancelled", [("Camp Stove", "6101", 88.0)], 88.0, 88.0)
_TENT = _order("#T1102", "pending", [("Tent", "6102", 71.1), ("Tent Pegs", "6107", 24.0)], 95.1)
_LAMP = _order(
    "#T1103",
    "pending",
    [
        ("Lantern", "6103", 21.3),
        ("Head Torch", "6104", 36.0),
        ("Fuel Canister", "6108", 8.5),
        ("Mug", "6109", 11.5),
    ],
    77.3,
)
_BOOTS = _order(
    "#T1104",
    "delivered",
    [
        ("Trail Boots", "6105", 44.25),
        ("Gaiters", "6106", 18.5),
        ("Insoles", "6110", 12.0),
        ("Laces", "6111", 8.0),
    ],
    82.75,
)
_CALLS = [
    ("get_user_details", {"user_id": "rowan_pike_3310"}, _USER),
    ("get_order_details", {"order_id": "#T1101"}, _DONE),
    ("get_order_details", {"order_id": "#T1102"}, _TENT),
    ("get_order_details", {"order_id": "#T1103"}, _LAMP),
    ("get_order_details", {"order_id": "#T1104"}, _BOOTS),
]


def _check(answer: str, calls: list[tuple[str, Any, Any]] = _CALLS) -> list[tuple[str, str]]:
    return _flagged(verify_run(_run("Please cancel or return whatever you can.", calls, answer)))


def test_it_reads_a_one_word_exclamation_after_an_emoji_as_no_name() -> None:
    answer = "\U0001f6b2 **Hooray!** Your order #T1102 (Tent, $71.10) is still pending."
    assert _check(answer) == []


def test_it_still_flags_an_unknown_name_a_sentence_goes_on_from_after_an_emoji() -> None:
    answer = "Your order #T1102 (Tent, $71.10) is packed.\n\U0001f69a Brightline carries it to you tomorrow."
    assert "Brightline" in [text for text, _ in _check(answer)]


def test_it_still_flags_an_unknown_name_after_an_emoji_inside_a_sentence() -> None:
    answer = "Your order #T1102 (Tent, $71.10) ships with \U0001f69a Brightline."
    assert "Brightline" in [text for text, _ in _check(answer)]


_ASK = (
    "Got it! Please share your complete new address so I can update your account:\n"
    "- Street address (line 1)\n"
    '- Flat/Unit number (if any, or just say "none")\n'
    "- City\n"
    "- Region (QC)"
)


def test_it_reads_the_items_of_a_requested_list_as_fields_not_claims() -> None:
    assert _check(_ASK) == []


def test_it_still_flags_a_name_in_a_list_the_answer_asks_to_confirm() -> None:
    answer = "Please confirm the new address before I update it:\n- Street: 12 Birch Road\n- Region (QC)"
    assert ("QC", "UNSUPPORTED") in _check(answer)


_NESTED = (
    "Here is everything on your account:\n\n"
    "**Already cancelled:**\n"
    "- Order #T1101 - $88.00 (refunded to your store credit)\n\n"
    "**Can be cancelled now:**\n"
    "1. **Order #T1102** - $95.10\n"
    "   - Tent ($71.10)\n"
    "   - Tent Pegs ($24.00)\n\n"
    "2. **Order #T1103** - $77.30\n"
    "   - Lantern ($21.30)\n"
    "   - Head Torch ($36.00)\n"
    "   - Fuel Canister ($8.50)\n"
    "   - Mug ($11.50)\n\n"
    "**Can be returned:**\n"
    "3. **Order #T1104** - $82.75\n"
    "   - Trail Boots ($44.25)\n"
    "   - Gaiters ($18.50)\n"
    "   - Insoles ($12.00)\n"
    "   - Laces ($8.00)\n\n"
    "**Total you could get back: $255.15**"
)


def test_it_supports_a_total_of_the_top_level_items_of_a_nested_list() -> None:
    assert _check(_NESTED) == []


def test_it_still_flags_a_total_the_top_level_items_do_not_add_up_to() -> None:
    found = _check(_NESTED.replace("back: $255.15", "back: $265.15"))
    assert ("$265.15", "UNSUPPORTED") in found


_EARLIER = [
    _order(f"#T120{k}", "cancelled", [(f"Stake Set {k}", f"710{k}", p)], p, p)
    for k, p in enumerate((37.25, 44.5, 51.75), 1)
]
_CANCELLED = [
    *_CALLS,
    *[("get_order_details", {"order_id": o["order_id"]}, o) for o in _EARLIER],
    ("cancel_pending_order", {"order_id": "#T1102"}, {**_TENT, "status": "cancelled"}),
    ("cancel_pending_order", {"order_id": "#T1103"}, {**_LAMP, "status": "cancelled"}),
    ("return_delivered_order_items", {"order_id": "#T1104"}, {**_BOOTS, "status": "return requested"}),
]
# The orders' records hold so many numbers that the balance of the user's record falls out of the values
# one-step arithmetic tries: only the terms the sentence writes out say what the new balance adds.
_BALANCE = (
    "**Cancelled before:**\n- Order #T1201 ($37.25)\n- Order #T1202 ($44.50)\n- Order #T1203 ($51.75)\n\n"
    "**Cancelled:**\n- Order #T1102 ($95.10) - refunded now\n- Order #T1103 ($77.30) - refunded now\n\n"
    "**Return requested:**\n- Order #T1104 ($82.75)\n\n"
    "**Total refunded now: $172.40**\n**Refund after the return: $82.75**\n\n"
    "You will get an email with the return instructions. Your store credit should now be $212.40 (your "
    "original $40.00 plus the $172.40 from the cancellations)."
)


def test_it_supports_an_amount_whose_sentence_writes_out_its_terms() -> None:
    assert _check(_BALANCE, _CANCELLED) == []


def test_it_still_flags_an_amount_its_written_terms_do_not_add_up_to() -> None:
    found = _check(_BALANCE.replace("be $212.40", "be $222.40"), _CANCELLED)
    assert ("$222.40", "UNSUPPORTED") in found


_MOVED = {**_TENT, "address": {**_ADDRESS, "address1": "7 Fern Street"}}
_STATES = [
    ("get_order_details", {"order_id": "#T1103"}, _LAMP),
    ("get_order_details", {"order_id": "#T1102"}, _TENT),
    ("cancel_pending_order", {"order_id": "#T1103"}, {**_LAMP, "status": "cancelled"}),
    ("modify_pending_order_address", {"order_id": "#T1102"}, _MOVED),
]
_BOTH = (
    "Your order #T1102 will ship to 7 Fern Street once it is processed, and your refund for the cancelled "
    "order will reach your store credit right away."
)


def test_it_reads_a_state_that_qualifies_a_noun_as_which_record_is_meant() -> None:
    assert _check(_BOTH, _STATES) == []


def test_it_still_flags_a_qualifying_state_no_record_of_the_run_has() -> None:
    pending = [*_STATES[:2], _STATES[3]]
    assert ("cancelled", "CONTRADICTED") in _check(_BOTH, pending)


def test_it_still_flags_a_state_said_of_the_order_the_sentence_names() -> None:
    answer = "Your order #T1102 is cancelled and will not ship."
    assert ("cancelled", "CONTRADICTED") in _check(answer, _STATES)


_RETURNED = [
    ("get_order_details", {"order_id": "#T1104"}, _BOOTS),
    ("return_delivered_order_items", {"order_id": "#T1104"}, {**_BOOTS, "status": "return requested"}),
]
_SENT_BACK = (
    "The return for order #T1104 is requested. Once the boots arrive back, the refund of $82.75 will be "
    "processed to your store credit."
)


def test_it_flags_a_payment_said_to_be_processed_to_the_customers_account() -> None:
    found = _check(_SENT_BACK.replace("the refund of", "the payment of"), _RETURNED)
    assert ("payment", "CONTRADICTED") in found


def test_it_reads_a_refund_processed_to_the_customers_account_as_no_claim() -> None:
    assert _check(_SENT_BACK, _RETURNED) == []
