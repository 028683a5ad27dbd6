"""A name in a bare value list is checked against its own item (issue 14, seventh round): "Harbour Inn,
4.6, 90-140" ties the values after the name to that item, and results printed as Python literals
(``{'Harbour Inn': 'Rating: 3.9'}``) or keyed by item names give each item a record of its own."""

from __future__ import annotations

import json

from tests.engine_runs.runs_helpers import make_run
from verification.engine.runs import verify_run
from verification.engine.runs.messages import parse_run

_RATINGS = {
    "Harbour Inn": "Rating: 3.9\nReviews: Small rooms, friendly desk",
    "Alder Court Hotel": "Rating: 4.6\nReviews: Quiet, great breakfast",
}
_PRICES = {"Harbour Inn": "Price range: 60.0 - 95.0", "Alder Court Hotel": "Price range: 90.0 - 140.0"}


def _python_run(answer: str) -> list[dict]:
    """A run whose tools print their results with ``str()`` (single quotes), as many agent frameworks do."""
    run = make_run("Find me the best-rated hotel in Lisbon with its price range.", None, answer)
    calls = [
        {"id": f"c{i}", "type": "function", "function": {"name": f"tool_{i}", "arguments": "{}"}}
        for i in (0, 1)
    ]
    return [
        run[0],
        {"role": "assistant", "content": None, "tool_calls": calls},
        {"role": "tool", "tool_call_id": "c0", "content": str(_RATINGS)},
        {"role": "tool", "tool_call_id": "c1", "content": str(_PRICES)},
        run[-1],
    ]


def _labels(messages: list[dict]) -> dict[str, str]:
    return {c.text: c.label for c in verify_run(messages).claims}


def test_it_reads_a_result_printed_as_a_python_literal():
    run = parse_run(_python_run("Alder Court Hotel, 4.6"))
    assert run.results[0].data == _RATINGS


def test_it_keeps_a_result_that_is_not_a_literal_as_text():
    msgs = _python_run("Alder Court Hotel, 4.6")
    msgs[2]["content"] = "{'a': __import__('os')}"
    assert parse_run(msgs).results[0].data is None


def test_it_keeps_a_value_list_of_one_item():
    labels = _labels(_python_run("Alder Court Hotel, 4.6, 90-140"))
    assert set(labels.values()) == {"SUPPORTED"}, labels


def test_it_flags_a_name_told_with_another_items_values():
    report = verify_run(_python_run("Harbour Inn, 4.6, 90-140"))
    flagged = {c.text: c for c in report.flagged_claims}
    assert list(flagged) == ["Harbour Inn"], {c.text: c.label for c in report.claims}
    assert flagged["Harbour Inn"].label == "CONTRADICTED"
    assert flagged["Harbour Inn"].evidence_spans  # the item's own values are cited


def test_it_flags_one_value_of_another_item_among_the_items_own():
    labels = _labels(_python_run("Alder Court Hotel, 3.9, 90-140"))
    assert labels.get("3.9") == "CONTRADICTED", labels
    assert labels.get("Alder Court Hotel") == "SUPPORTED", labels


def test_it_reads_each_item_of_a_list_of_several():
    labels = _labels(_python_run("Alder Court Hotel, 4.6, Harbour Inn, 3.9"))
    assert set(labels.values()) == {"SUPPORTED"}, labels


def test_it_leaves_prose_to_the_sentence_rules():
    # Not a bare value list: the words between name and value are the sentence rules' to read.
    labels = _labels(
        _python_run("Harbour Inn is cheaper, while the best rating, 4.6, is Alder Court Hotel's.")
    )
    assert labels.get("Harbour Inn") != "CONTRADICTED", labels


def test_it_does_not_take_field_names_for_item_names():
    rows = {"Check In": "2024-05-01", "Check Out": "2024-05-05"}
    msgs = make_run("When do I check in?", [rows], "Check In, 2024-05-01")
    assert set(_labels(msgs).values()) == {"SUPPORTED"}
    assert json.loads(msgs[-2]["content"]) == rows


def test_it_keeps_a_computed_total_beside_an_address():
    # A total of two steps (price x people x days) is not bounded by the postcode in the item's address: a
    # number that opens a name ("75011 Lisboa") is a label, not an amount.
    addresses = {"Tasca Azul": "9 Rua Nova, 1100 Lisboa", "Casa Lima": "4 Rua Velha, 1200 Lisboa"}
    prices = {"Tasca Azul": "Price per person: 35.0", "Casa Lima": "Price per person: 22.0"}
    run = make_run("Pick a restaurant and give me the total cost for 2 people for 3 days.", None, "")
    calls = [
        {"id": f"c{i}", "type": "function", "function": {"name": f"t{i}", "arguments": "{}"}} for i in (0, 1)
    ]
    msgs = [
        run[0],
        {"role": "assistant", "content": None, "tool_calls": calls},
        {"role": "tool", "tool_call_id": "c0", "content": str(addresses)},
        {"role": "tool", "tool_call_id": "c1", "content": str(prices)},
        {"role": "assistant", "content": "Tasca Azul, 9 Rua Nova, 1100 Lisboa, 210"},
    ]
    assert not verify_run(msgs).hallucination_detected, _labels(msgs)
