"""Issue 14, fifteenth round (h24j): classes of the tau2-bench airline runs of grok-4 still flagged.

- Brackets that enumerate items ("the same trains (IC401 on 2025-04-02 from BRU to LYS, and IC519 on
  2025-04-03 from LYS to BRU)") hold a clause per item, as a sentence does: the second item's identifier
  is not a value of the first item named before it in the brackets (``records._bracket_siblings``). A
  swapped identifier or date inside such brackets is still flagged (before, the second identifier was
  blamed and the date went unchecked).
- "that would total $304 for 2 passengers" on the same two legs: the sum of two values of one key (the
  legs' fares) times a count the sentence states (``aggregates.computed_amount``). A total that no two
  fares give is still flagged.

The runs are written for these tests (a made-up rail operator), not copied from the set.
"""

from __future__ import annotations

from typing import Any

from tests.engine_runs.runs_helpers import flagged, run_with_calls
from verification.engine.runs import verify_run

_BOOKING = {
    "booking_id": "RZ7Q2M",
    "origin": "BRU",
    "destination": "LYS",
    "trip_type": "round_trip",
    "legs": [
        {"train": "IC401", "origin": "BRU", "destination": "LYS", "date": "2025-04-02", "price": 377},
        {"train": "IC519", "origin": "LYS", "destination": "BRU", "date": "2025-04-03", "price": 283},
    ],
    "total_bags": 2,
}


def _search(*trains: tuple[str, int]) -> list[dict[str, Any]]:
    return [{"train": t, "status": "available", "prices": {"second": p, "first": p * 3}} for t, p in trains]


_CALLS = [
    ("get_booking", {"booking_id": "RZ7Q2M"}, _BOOKING),
    ("search_trains", {"origin": "BRU", "destination": "LYS", "date": "2025-04-02"},
     _search(("IC401", 41), ("IC618", 57))),
    ("search_trains", {"origin": "LYS", "destination": "BRU", "date": "2025-04-03"},
     _search(("IC733", 35), ("IC519", 52))),
]  # fmt: skip


def _flags(answer: str) -> list[tuple[str, str]]:
    return flagged(verify_run(run_with_calls("Downgrade RZ7Q2M to second class.", _CALLS, answer)))


def test_brackets_that_enumerate_items_hold_a_clause_per_item() -> None:
    for joined in (", and ", " and ", "; "):
        answer = (
            "This keeps the same trains (IC401 on 2025-04-02 from BRU to LYS"
            + joined
            + "IC519 on 2025-04-03 from LYS to BRU), and 2 bags."
        )
        assert _flags(answer) == [], joined


def test_a_swapped_date_inside_enumerating_brackets_is_still_flagged() -> None:
    answer = (
        "This keeps the same trains (IC401 on 2025-04-02 from BRU to LYS, and IC519 on 2025-04-02 from "
        "LYS to BRU), and 2 bags."
    )
    assert ("2025-04-02", "CONTRADICTED") in _flags(answer)


def test_a_value_in_the_first_clause_of_brackets_keeps_the_item_named_before_them() -> None:
    # The item before the brackets still decides for the brackets' first clause: IC519's fare is not IC401's.
    answer = "The first leg is IC401 (2025-04-03, in second class), and 2 bags."
    assert ("2025-04-03", "CONTRADICTED") in _flags(answer)


def test_a_total_for_k_travellers_of_two_legs_fares_is_computed() -> None:
    # Second-class fares of the two legs (IC401 41, IC519 52) for 2 travellers: 2 x (41 + 52) = 186.
    answer = "On the same trains in second class, that would total $186 for 2 passengers."
    assert _flags(answer) == []


def test_a_total_for_k_travellers_that_no_two_fares_give_is_still_flagged() -> None:
    # 2 x 95 = 190: no two second-class fares of the results add up to 95.
    answer = "On the same trains in second class, that would total $190 for 2 passengers."
    assert ("$190", "UNSUPPORTED") in _flags(answer)
    # Without a word that calls it a total, an amount is a value read, not a sum.
    assert _flags("On the same trains in second class, it is $186 for 2 passengers.") != []
