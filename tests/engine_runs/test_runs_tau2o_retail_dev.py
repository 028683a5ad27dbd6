"""Issue 14, sixteenth round (h25d): the false alarms of tau2-bench retail runs of gpt-oss-120b, as rules.

gpt-oss-120b writes its retail answers otherwise than the models of the earlier sets: no-break spaces
inside names and after cues ("Mechanical\\u202fKeyboard", "item\\u202fID\\u202f9570044148"), markdown tables
(one item a row, two items stacked in a cell with "<br>", a "Current price" and a "New price" column and
the new total under them), "the order can no longer be modified or cancelled", "Your email address ... is
confirmed", "the two items you’ve selected:" (a curly apostrophe) and "(item IDs 7602931732 and
9570044148)" after the two names. The runs here are written for these tests (made-up orders in the shape of
tau2-bench's retail results). Each positive has a negative: a single-fact edit of the same text stays
caught. The corpus files are checked to be what the committed transcription builds.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.engine_runs.runs_helpers import RUNS_DIR as _RUNS
from tests.engine_runs.runs_helpers import flagged, load_bench_module, run_with_calls
from verification.engine.runs import verify_run

_ORDER = {
    "order_id": "#W5565470",
    "user_id": "ada_lovelace_1234",
    "address": {"address1": "812 Cedar Avenue", "city": "Houston", "country": "USA", "state": "TX"},
    "items": [
        {"name": "Electric Kettle", "product_id": "1075968781", "item_id": "7602931732", "price": 153.25,
         "options": {"capacity": "1L", "material": "stainless steel", "color": "black"}},
        {"name": "Mechanical Keyboard", "product_id": "1656367028", "item_id": "9570044148", "price": 231.37,
         "options": {"switch type": "linear", "backlight": "none", "size": "full size"}},
        {"name": "Pet Bed", "product_id": "2747247837", "item_id": "6857426243", "price": 196.53,
         "options": {"size": "medium", "material": "fleece", "color": "grey"}},
    ],
    "status": "delivered",
    "payment_history": [{"transaction_type": "payment", "amount": 581.15, "payment_method_id": "paypal_1"}],
}  # fmt: skip
_CALLS: list[tuple[str, Any, Any]] = [("get_order_details", {"order_id": "#W5565470"}, _ORDER)]
_USER = "Which items are in my order #W5565470? I want to return the kettle and the keyboard."


def _flags(
    answer: str, calls: list[tuple[str, Any, Any]] = _CALLS, user: str = _USER
) -> list[tuple[str, str]]:
    return flagged(verify_run(run_with_calls(user, calls, answer)))


def test_it_reads_each_row_of_a_markdown_table_against_its_own_item() -> None:
    table = (
        "**Items in the order**\n\n| Item | Item ID | Price |\n|------|---------|-------|\n"
        "| Electric Kettle | 7602931732 | $153.25 |\n| Mechanical Keyboard | 9570044148 | $231.37 |\n"
        "| Pet Bed (you want to keep this) | 6857426243 | $196.53 |"
    )
    assert _flags(table) == []
    # The keyboard's row with the pet bed's price: still another item's value.
    assert ("$196.53", "CONTRADICTED") in _flags(table.replace("| $231.37 |", "| $196.53 |"))


def test_it_reads_no_break_spaces_as_the_blanks_they_stand_for() -> None:
    answer = (
        "| Item | Item\u202fID | Price |\n|------|---------|-------|\n"
        "| Electric Kettle | 7602931732 | $153.25 |\n| Mechanical\u202fKeyboard | 9570044148 | $231.37 |\n"
        "| Pet\u202fBed | 6857426243 | $196.53 |\n\n"
        "The order\u202f#W5565470 is addressed to Houston,\u00a0TX."
    )
    assert _flags(answer) == []
    assert ("$153.25", "CONTRADICTED") in _flags(answer.replace("$231.37", "$153.25"))


def test_it_reads_each_item_a_table_cell_stacks_with_br_against_its_own_item() -> None:
    answer = (
        "| Order ID | Status | Items found |\n|---|---|---|\n"
        "| **#W5565470** | Delivered | \u2022 Electric Kettle \u2013 black (item ID 7602931732) <br> "
        "\u2022 Pet Bed \u2013 grey, fleece (item ID 6857426243) |"
    )
    assert _flags(answer) == []
    # The keyboard's identifier given to the pet bed: the stacked item's values are still read.
    wrong = answer.replace("(item ID 6857426243)", "(item ID 9570044148)")
    assert ("Pet Bed", "CONTRADICTED") in _flags(wrong)


def test_it_reads_can_no_longer_be_cancelled_as_no_status() -> None:
    pending = dict(_ORDER, status="pending")
    calls: list[tuple[str, Any, Any]] = [("get_order_details", {"order_id": "#W5565470"}, pending)]
    told = "Order #W5565470 is pending. After this change the order can no longer be modified or cancelled."
    assert _flags(told, calls) == []
    assert ("cancelled", "CONTRADICTED") in _flags("Order #W5565470 has been cancelled.", calls)
    assert ("cancelled", "CONTRADICTED") in _flags(
        "Order #W5565470 is no longer pending; it is cancelled.", calls
    )


def test_it_reads_a_confirmed_email_address_as_no_orders_status() -> None:
    pending = dict(_ORDER, status="pending")
    user = {"user_id": "ada_lovelace_1234", "email": "ada.lovelace1234@example.com", "orders": ["#W5565470"]}
    calls: list[tuple[str, Any, Any]] = [
        ("get_user_details", {"user_id": "ada_lovelace_1234"}, user),
        ("get_order_details", {"order_id": "#W5565470"}, pending),
    ]
    told = "Your email address **ada.lovelace1234@example.com** is confirmed and will remain on file."
    assert _flags(told, calls) == []
    assert ("confirmed", "CONTRADICTED") in _flags("Your order #W5565470 is confirmed.", calls)


def _product(name: str, product_id: str, variants: list[tuple[str, str, float]]) -> tuple[str, Any, Any]:
    """A ``get_product_details`` call: each variant (item id, option, price) available."""
    found = {
        item: {"item_id": item, "options": {"option": option}, "available": True, "price": price}
        for item, option, price in variants
    }
    result = {"name": name, "product_id": product_id, "variants": found}
    return ("get_product_details", {"product_id": product_id}, result)


_PRODUCTS = [
    _product("Electric Kettle", "1075968781", [("7602931732", "1L", 153.25), ("9472539378", "2L", 160.10)]),
    _product(
        "Mechanical Keyboard", "1656367028", [("9570044148", "none", 231.37), ("1151293680", "RGB", 272.33)]
    ),
    _product("Pet Bed", "2747247837", [("6857426243", "medium", 196.53), ("7381052709", "large", 193.22)]),
]


def test_it_adds_up_the_new_column_of_a_table_of_changes() -> None:
    calls = [*_CALLS, *_PRODUCTS]
    # New: 160.10 + 272.33 + 193.22 = 625.65; changes: 6.85 + 40.96 - 3.31 = 44.50.
    answer = (
        "| Current item | Current price | Upgrade (available) | New price |\n|---|---|---|---|\n"
        "| Electric Kettle (1L) | $153.25 | 2L (item 9472539378) | **$160.10** |\n"
        "| Mechanical Keyboard (no backlight) | $231.37 | RGB backlight (item 1151293680) | **$272.33** |\n"
        "| Pet Bed (medium) | $196.53 | large (item 7381052709) | **$193.22** |\n\n"
        "**New order total:** **$625.65**  \n**Price difference:** **+$44.50**\n\n"
        "I will charge the $44.50 price difference to your PayPal account."
    )
    assert _flags(answer, calls) == []
    assert ("$750.78", "UNSUPPORTED") in _flags(answer.replace("$625.65", "$750.78"), calls)
    assert ("$53.40", "UNSUPPORTED") in _flags(answer.replace("+$44.50", "+$53.40"), calls)
    # Without a current and a new column the rows are no changes: the sum is no new total.
    plain = answer.replace(
        "| Current item | Current price | Upgrade (available) | New price |", "| A | B | C | D |"
    )
    assert ("$625.65", "UNSUPPORTED") in _flags(plain, calls)


def test_it_counts_the_list_a_colon_opens_after_words_with_a_curly_apostrophe() -> None:
    answer = (
        "I\u2019m ready to submit the return request for the two items you\u2019ve selected:\n\n"
        "- **Electric Kettle** \u2013 item ID 7602931732  \n"
        "- **Mechanical Keyboard** \u2013 item ID 9570044148"
    )
    assert _flags(answer) == []
    assert ("four", "CONTRADICTED") in _flags(answer.replace("the two items", "the four items"))


def test_it_reads_item_ids_a_bracket_lists_for_the_items_named_before_it() -> None:
    answer = (
        "You\u2019d like to **return the Electric Kettle and the Mechanical Keyboard** (item IDs 7602931732 "
        "and 9570044148) and have the refund sent to your PayPal account."
    )
    assert _flags(answer) == []
    # The pet bed's identifier for the keyboard's: an item the sentence does not name.
    assert ("6857426243", "CONTRADICTED") in _flags(answer.replace("9570044148", "6857426243"))


def test_it_builds_the_committed_retail_files_from_the_transcription(tmp_path: Path) -> None:
    condense, make = load_bench_module("tau2_telecom_condense"), load_bench_module("make_tau_airline")
    source = _RUNS / "tau2o_retail_dev"
    for raw in sorted((source / "raw").glob("s*.jsonl")):
        run = condense.condense(raw)
        committed = json.loads((source / f"traj_{run['task_id']:03d}.json").read_text(encoding="utf-8"))
        assert committed == run, raw.name
    policy = json.loads((source / "raw" / "policy.json").read_text(encoding="utf-8"))
    assert (source / "policy.md").read_text(encoding="utf-8") == policy
    argv = [str(source), "--condensed", "--perturbed", "--all-dev", "dev", "--name", "tau2o_retail"]
    assert make.main([*argv, "--id-prefix", "tau2-retail-gptoss120b", "--out", str(tmp_path)]) == 0
    for kind in ("clean", "perturbed"):
        for suffix in (".jsonl", ".meta.jsonl"):
            name = f"tau2o_retail_{kind}_dev{suffix}"
            assert (tmp_path / name).read_bytes() == (_RUNS / name).read_bytes(), name
