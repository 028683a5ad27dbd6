"""A count of things the user asked to add, restated by the answer as another count.

"Please add one checked bag" answered with "**Additional Checked Bag:** 2 checked bag" restates the request
with an edited count. Counts of bags, seats, passengers are everywhere in a booking run (a record's
``total_baggages``, a search's seats), so the value rules support the 2 (issue 14: bag counts against the
request). The request is the user's own message of the answer's turn: when it asks to add a count of one
noun ("add one checked bag", "add 2 bags") exactly once, a count of that noun on an answer line that speaks
of adding ("add", "additional", "extra") must be that count. A line that speaks of a total ("3 bags in
total") or of the record's count is left alone: the record's bags plus the added ones are another count.
"""

from __future__ import annotations

import re
from typing import Any

from ..text import lower
from .findings import Finding, contradict
from .lexicon import NUMBER_WORDS
from .mentions import Mention

__all__ = ["check_added_counts"]

_COUNT = r"(\d+|zero|one|two|three|four|five|six|seven|eight|nine|ten)"
# "add one checked bag", "add 2 more bags", "adding two extra suitcases"
_ASKED = re.compile(
    r"\badd(?:ing)?[ \t]+" + _COUNT + r"[ \t]+(?:(?:more|extra|checked|additional)[ \t]+)*([a-z]+)"
)
# "2 checked bag(s)", "two extra bags", "1 additional passenger"
_TOLD = re.compile(r"\b" + _COUNT + r"[ \t]+(?:(?:more|extra|checked|additional|new)[ \t]+)*([a-z]+)")
_ADDING = re.compile(r"\b(?:add|adds|adding|added|additional|extra)\b")
_TOTAL = re.compile(r"\b(?:total|totals|in all|altogether|now have|now has|will have|currently)\b")


def _value(word: str) -> int | None:
    if word.isdigit():
        return int(word)
    return NUMBER_WORDS.get(word)


def _noun(word: str) -> str:
    return word[:-1] if word.endswith("s") and not word.endswith("ss") else word


def check_added_counts(
    answer: str, findings: list[Finding], question: str, sentence_of: Any
) -> list[Finding]:
    """Relabel, in place, a count of an added thing that the request gives otherwise; return a finding for
    one that had none (see the module).

    >>> from .messages import parse_run
    >>> from .evidence import build_evidence
    >>> from .grounding import ground_answer
    >>> ask = "Please add one extra suitcase to my booking."
    >>> run = parse_run([{"role": "user", "content": ask},
    ...     {"role": "tool", "tool_call_id": "c", "content": '{"suitcases": 2, "seats": 1}'},
    ...     {"role": "assistant", "content": "x"}])
    >>> ev = build_evidence(run)
    >>> def bad(answer):
    ...     return [f.mention.text for f in ground_answer(answer, ev, question=ask) if f.label != "SUPPORTED"]
    >>> bad("Extra suitcase: 1 suitcase."), bad("Extra suitcase: 2 suitcases.")
    ([], ['2'])
    >>> bad("Extra suitcase added: you now have 2 suitcases.")
    []
    """
    low_question = lower(question)
    if "add" not in low_question:
        return []
    asked: dict[str, list[int]] = {}
    for m in _ASKED.finditer(low_question):
        n = _value(m.group(1))
        if n is not None:
            asked.setdefault(_noun(m.group(2)), []).append(n)
    wanted = {noun: counts[0] for noun, counts in asked.items() if len(counts) == 1}
    if not wanted:
        return []
    low = lower(answer)
    added: list[Finding] = []
    for m in _TOLD.finditer(low):
        noun = _noun(m.group(2))
        want = wanted.get(noun)
        told = _value(m.group(1))
        if want is None or told is None or told == want:
            continue
        line_start = low.rfind("\n", 0, m.start()) + 1
        line_end = low.find("\n", m.end())
        line = low[line_start : line_end if line_end >= 0 else len(low)]
        if not _ADDING.search(line) or _TOTAL.search(line):
            continue
        start = m.start(1)
        reason = f"the request adds {want} {noun}"
        mention = Mention("count", start, m.end(1), answer[start : m.end(1)], value=float(told), noun=noun)
        contradict(findings, added, mention, sentence_of(start), reason)
    return added
