"""Issue 14 (h14f): a count under a label or beside its noun is the count the record holds.

Runs written for these tests: a made-up ferry line. "- Baggage: 2 checked bags" or "3 passengers" when the
ticket the answer names has ``total_bags`` 1 or two passengers is contradicted, even where a 2 or a 3 is
found elsewhere in the run; a count of a change or an allowance ("2 more bags", "2 free bags"), a count of a
record the answer does not single out, and a count that the record holds are left alone.
"""

import pytest

from tests.engine_runs.runs_helpers import flagged as _flagged
from tests.engine_runs.runs_helpers import run_with_calls as _run
from verification.engine.runs import verify_run


def _ticket(code: str, bags: int, paid: int, people: list[str], deck: int = 2) -> dict:
    return {
        "ticket_id": code,
        "route": "Kiel - Oslo",
        "deck": deck,
        "cabin_berths": 3,
        "passengers": [{"name": p} for p in people],
        "total_bags": bags,
        "paid_bags": paid,
    }


_ONE = [("get_ticket", {"ticket_id": "FK20931"}, _ticket("FK20931", 1, 0, ["Lena Voss", "Aron Voss"]))]


def _verify(answer: str, calls=_ONE):
    return _flagged(verify_run(_run("What does my ferry ticket include?", calls, answer)))


@pytest.mark.parametrize(
    "answer",
    [
        "- **Ticket:** FK20931\n- **Baggage:** 2 checked bags",
        "- **Ticket:** FK20931\n- **Checked Bags:** 2",
        "Your ticket FK20931 includes 2 checked bags.",
    ],
)
def test_it_contradicts_a_bag_count_the_ticket_does_not_hold(answer):
    # A 2 is in the run (the deck), so only the label or the noun tells which value this is.
    assert ("2", "CONTRADICTED") in _verify(answer)


@pytest.mark.parametrize(
    "answer",
    [
        "- **Ticket:** FK20931\n- **Baggage:** 1 checked bag",
        "- **Ticket:** FK20931\n- **Checked Bags:** 1",
        "Your ticket FK20931 includes 1 checked bag.",
    ],
)
def test_it_keeps_the_bag_count_the_ticket_holds(answer):
    assert _verify(answer) == []


def test_it_contradicts_a_passenger_count_against_the_length_of_the_list():
    # A 3 is in the run (the cabin's berths); the ticket lists two passengers.
    assert ("3", "CONTRADICTED") in _verify("Ticket FK20931 is booked for 3 passengers.")
    assert _verify("Ticket FK20931 is booked for 2 passengers.") == []


def test_it_reads_only_the_keys_whose_other_words_the_count_names():
    # "0 paid" is ``paid_bags`` (0), "1 total" is ``total_bags`` (1): both hold.
    assert _verify("- **Ticket:** FK20931\n- **Baggage:** 1 total, 0 paid") == []
    # "1 paid" is not ``paid_bags``, although ``total_bags`` holds 1.
    assert ("1", "CONTRADICTED") in _verify("- **Ticket:** FK20931\n- **Baggage:** 1 total, 1 paid")


@pytest.mark.parametrize(
    "answer",
    [
        "For ticket FK20931 I can add 2 more checked bags.",
        "- **Ticket:** FK20931\n- **Additional Bags:** 2 checked bags",
        "Ticket FK20931 comes with 2 free checked bags.",
    ],
)
def test_it_leaves_a_count_of_a_change_or_an_allowance_alone(answer):
    assert _verify(answer) == []


_TWO = [
    ("get_ticket", {"ticket_id": "FK20931"}, _ticket("FK20931", 1, 0, ["Lena Voss", "Aron Voss"])),
    ("get_ticket", {"ticket_id": "FK77310"}, _ticket("FK77310", 2, 1, ["Mira Holt"], deck=4)),
]


def test_it_reads_the_record_whose_identifier_the_answer_states_before_the_count():
    answer = (
        "- **Ticket:** FK77310\n- **Baggage:** 2 checked bags\n\n- **Ticket:** FK20931\n- **Baggage:** 2 bags"
    )
    got = _verify(answer, _TWO)
    assert [label for text, label in got if text == "2"] == ["CONTRADICTED"]


def test_it_leaves_a_count_alone_when_the_answer_names_no_record_of_several():
    assert _verify("- **Baggage:** 2 checked bags", _TWO) == []


def test_it_reads_the_only_record_when_the_answer_names_none():
    assert ("2", "CONTRADICTED") in _verify("- **Baggage:** 2 checked bags")


def test_it_reads_fewer_items_than_a_list_has_as_some_of_them():
    assert _verify("Ticket FK20931: 1 passenger is under twelve.") == []


def test_it_ends_the_counted_noun_at_a_function_word():
    # "a high of 21 and a low of 14": the 21 is no count of lows.
    calls = [("get_forecast", {"port": "Kiel"}, {"port": "Kiel", "high": 21, "low": 14})]
    answer = "At Kiel expect a high of 21 and a low of 14 degrees."
    assert _flagged(verify_run(_run("Weather?", calls, answer))) == []


def test_it_leaves_a_count_alone_when_the_record_was_read_before_the_request():
    # The ticket was read in an earlier turn; the user then asked for a change: the record may be stale.
    msgs = _run("Show ticket FK20931.", _ONE, "Ticket FK20931 has 1 checked bag.")
    msgs += [
        {"role": "user", "content": "Please put a second bag on it."},
        {"role": "assistant", "content": "- **Ticket:** FK20931\n- **Baggage:** 2 checked bags"},
    ]
    assert _flagged(verify_run(msgs)) == []
    # The same answer right after the read is checked.
    assert ("2", "CONTRADICTED") in _verify("- **Ticket:** FK20931\n- **Baggage:** 2 checked bags")


def test_it_reads_a_unit_of_time_after_a_number_as_no_counted_noun():
    # "5 business days" counts days: the fare of the business cabin is no count of them.
    ticket = dict(_ticket("FK20931", 1, 0, ["Lena Voss"]), fares={"business": 7, "economy": 3}, refund_days=5)
    calls = [("get_ticket", {"ticket_id": "FK20931"}, ticket)]
    assert _verify("For ticket FK20931 the refund arrives within 5 business days.", calls) == []


def test_it_leaves_a_count_of_items_with_quantities_alone():
    order = {"order_id": "KX44119", "items": [{"sku": "A1", "quantity": 2}, {"sku": "B7", "quantity": 1}]}
    calls = [("get_order", {"order_id": "KX44119"}, order)]
    assert _verify("Order KX44119 has 3 items.", calls) == []
    plain = {"order_id": "KX44119", "items": [{"sku": "A1"}, {"sku": "B7"}]}
    assert ("3", "CONTRADICTED") in _verify("Order KX44119 has 3 items.", [("get_order", {}, plain)])


def test_it_leaves_a_count_alone_that_the_same_key_holds_elsewhere_in_the_run():
    # A recap: ticket FK55002 of an earlier result has 2 bags; the answer's count may be that one's.
    msgs = _run("Show ticket FK55002.", [("get_ticket", {}, _ticket("FK55002", 2, 0, ["Ida Berg"]))], "Done.")
    msgs = msgs[:-1] + _run("And FK20931?", _ONE, "- **Ticket:** FK20931\n- **Baggage:** 2 checked bags")
    for i, m in enumerate(msgs):
        for call in m.get("tool_calls") or []:
            call["id"] = f"t{i}"
        if m["role"] == "tool":
            m["tool_call_id"] = f"t{i - 1}"
    assert ("2", "CONTRADICTED") not in _flagged(verify_run(msgs))
