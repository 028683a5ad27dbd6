"""h25r's review of h25d: a markdown table row of many amounts is read once per line, not once per amount."""

from __future__ import annotations

from verification.engine.runs.findings import Finding
from verification.engine.runs.mentions import Mention
from verification.engine.runs.own_lists import AnswerAmounts, listed_changes


def _row_of_amounts(n: int) -> tuple[str, list[Finding]]:
    text = "| Item | Current price | New price |\n|---|---|---|\n| "
    found = []
    for i in range(n):
        t = f"${5 + i * 0.01:.2f}"
        at = len(text)
        text += t + " | "
        money = Mention("money", at, at + len(t), t, value=float(t[1:]), decimals=2)
        found.append(Finding(money, "SUPPORTED", (0, 0)))
    text += "\nNew total: $10.00\n"
    for g in found:
        g.sentence = (0, len(text))
    return text, found


def test_it_gives_each_position_the_span_of_its_line() -> None:
    text = "a\n\nbc | $1 | $2\nlast"
    index = AnswerAmounts(text, [])
    for pos in range(len(text) + 1):
        end = text.find("\n", pos)
        assert index.line_span(pos) == (text.rfind("\n", 0, pos) + 1, len(text) if end < 0 else end), pos


def test_it_reads_a_table_row_of_many_amounts_once_for_its_new_total() -> None:
    # 6,000 amounts on one row of a table of changes: each searched the whole row for "new total" (about 7 s
    # interpreted before, 0.06 s after).
    text, found = _row_of_amounts(6000)
    index = AnswerAmounts(text, found)
    told = [listed_changes(f, found, text, index) for f in found]
    assert told == [""] * len(found)


def test_it_still_adds_up_a_table_of_changes_under_its_new_total() -> None:
    text = "| Item | Current price | New price |\n|--|--|--|\n| A | $10.00 | $8.00 |\n| B | $5.00 | $6.50 |\n"
    text += "New total: $14.50"
    found = []
    for t in ("$10.00", "$8.00", "$5.00", "$6.50", "$14.50"):
        at = text.index(t)
        money = Mention("money", at, at + len(t), t, value=float(t[1:]), decimals=2)
        found.append(Finding(money, "SUPPORTED", (0, len(text))))
    assert listed_changes(found[4], found, text) == "the total of the new amounts the answer's table lists"
