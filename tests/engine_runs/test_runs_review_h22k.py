"""Review findings of h22k on the issue 14/16 diff (runs)."""

from __future__ import annotations

from verification.engine.runs import own_lists
from verification.engine.runs.findings import Finding
from verification.engine.runs.mentions import Mention


def test_it_sorts_no_amounts_for_a_total_without_a_list_above() -> None:
    # ``_top_level_list_above`` runs for every unsupported amount: sorting all the answer's amounts
    # before looking for a list line above made an answer of n amounts pay n sorts of n. The amounts are
    # now in the answer's index (h23c), in answer order without a sort, and a total without a list line
    # above reads none of them.
    text = "Total " + " ".join(f"${k}.50" for k in range(1, 200)) + "."
    found = []
    for k in range(1, 200):
        at = text.index(f"${k}.50 ") if k < 199 else text.index(f"${k}.50.")
        found.append(
            Finding(
                Mention("money", at, at + len(f"${k}.50"), f"${k}.50", value=k + 0.5, decimals=2),
                "SUPPORTED",
                (0, len(text)),
            )
        )
    index = own_lists.AnswerAmounts(text, found)
    assert index.sorted_money()[0] is index.money()
    total = found[-1]
    assert own_lists._top_level_list_above(total, text, index) is False
    assert index.reads == 0
