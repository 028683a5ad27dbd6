"""Issue 14, twelfth round, second pass: false-alarm classes of real retail answers (tau2-bench retail, dev5,
h21b).

Each test is a made-up run of a tea shop's tools with an answer written for it; each class was found on
``bench/corpora/runs/tau_retail_clean_dev5.jsonl`` and fixed as a class, with a test that the error the
class could hide is still flagged:

- a new total under a list of new prices whose lines also tell each saving ("1. Teapot - $59.80 -
  *saves $4.40*") (``own_lists._priced_list_above``);
- an amount told as the gap to a limit the customer named ("$16.25 over your $100 budget")
  (``own_lists.told_gap``);
- an approximation without cents of a difference of two amounts the answer states ("would bring it to
  around $86") (``own_lists.rounded_difference``);
- a state word in a rule the answer retells with an indefinite subject ("When a pending order is cancelled,
  the refund goes back ...") (``polarity._CONDITION``).
"""

from typing import Any

from tests.engine_runs.runs_helpers import flagged as _flagged
from tests.engine_runs.runs_helpers import run_with_calls as _run
from verification.engine.runs import verify_run


def _order(status: str, items: list[tuple[str, str, float, dict[str, str]]], paid: float) -> dict[str, Any]:
    return {
        "order_id": "#W7310042",
        "user_id": "ines_brook_5521",
        "address": {"address1": "4 Quay Lane", "city": "Tidewell", "state": "ME", "zip": "04011"},
        "items": [
            {"name": n, "product_id": "8" + i, "item_id": i, "price": p, "options": o} for n, i, p, o in items
        ],
        "status": status,
        "payment_history": [
            {"transaction_type": "payment", "amount": paid, "payment_method_id": "credit_card_3307"}
        ],
    }


_TEAPOT = ("Teapot", "7101", 64.2, {"colour": "blue", "capacity": "1.5L"})
_KETTLE = ("Kettle", "7102", 38.9, {"material": "glass"})
_TRAY = ("Serving Tray", "7103", 21.35, {"material": "bamboo"})
_ORDER = _order("pending", [_TEAPOT, _KETTLE, _TRAY], 124.45)


def _product(name: str, pid: str, rows: list[tuple[str, dict[str, str], float]]) -> dict[str, Any]:
    return {
        "name": name,
        "product_id": pid,
        "variants": {i: {"item_id": i, "options": o, "available": True, "price": p} for i, o, p in rows},
    }


_CALLS = [
    ("get_order_details", {"order_id": "#W7310042"}, _ORDER),
    (
        "get_product_details",
        {"product_id": "87101"},
        _product("Teapot", "87101", [("7101", _TEAPOT[3], 64.2), ("7201", {"colour": "white"}, 59.8)]),
    ),
    (
        "get_product_details",
        {"product_id": "87102"},
        _product("Kettle", "87102", [("7102", _KETTLE[3], 38.9), ("7202", {"material": "steel"}, 35.1)]),
    ),
]

_CHEAPEST = (
    "**Current items:**\n1. Teapot - $64.20\n2. Kettle - $38.90\n3. Serving Tray - $21.35\n"
    "**Current Total: $124.45**\n\n"
    "**Cheapest available options:**\n"
    "1. Teapot - $59.80 (white) - *saves $4.40*\n"
    "2. Kettle - $35.10 (steel) - *saves $3.80*\n"
    "3. Serving Tray - $21.35 (already the cheapest)\n\n"
    "**New total with these options: $116.25**\n\n"
    "Even with these options, the total would still be **$116.25**, which is "
    "**$16.25 over your $100 budget**.\n\n"
    "You could also place a new order without the Kettle (which would bring it to around $86)."
)


def _cheapest(answer: str) -> list[tuple[str, str]]:
    user = "My card only has $100 left. Can I switch everything to the cheapest options?"
    return _flagged(verify_run(_run(user, _CALLS, answer)))


def test_it_supports_a_new_total_that_adds_the_prices_of_the_list_above_it() -> None:
    assert _cheapest(_CHEAPEST) == []


def test_it_still_flags_a_new_total_the_listed_prices_do_not_add_up_to() -> None:
    found = _cheapest(_CHEAPEST.replace("options: $116.25", "options: $118.25"))
    assert ("$118.25", "UNSUPPORTED") in found


def test_it_supports_the_gap_between_a_total_and_the_customers_limit() -> None:
    answer = _CHEAPEST.split("\n\nYou could")[0]
    assert _cheapest(answer) == []


def test_it_still_flags_a_gap_that_is_not_the_difference() -> None:
    found = _cheapest(_CHEAPEST.replace("$16.25 over", "$26.25 over"))
    assert ("$26.25", "UNSUPPORTED") in found


def test_it_supports_a_rounded_difference_of_two_amounts_the_answer_states() -> None:
    assert _cheapest(_CHEAPEST) == []


def test_it_still_flags_a_rounded_amount_no_two_told_amounts_give() -> None:
    found = _cheapest(_CHEAPEST.replace("around $86", "around $75"))
    assert ("$75", "UNSUPPORTED") in found


def test_it_reads_a_state_in_a_rule_with_an_indefinite_subject_as_no_claim() -> None:
    answer = (
        "Unfortunately, no. When a pending order is cancelled, the refund goes back to the original "
        "payment method. Your order #W7310042 is still pending."
    )
    report = verify_run(_run("Can a refund go to a gift card?", _CALLS[:1], answer))
    assert _flagged(report) == []


def test_it_still_flags_a_cancelled_state_said_of_the_users_own_order() -> None:
    answer = "When your order #W7310042 was cancelled, the refund went back to your card."
    report = verify_run(_run("Where did my refund go?", _CALLS[:1], answer))
    assert ("cancelled", "CONTRADICTED") in _flagged(report)
