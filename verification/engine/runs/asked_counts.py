"""A bare number that answers "how many ...?" must be a count of the turn's results.

"How many appointments do I have today?" answered "4" after a call that returned three events: the digit
4 is in the results anyway (an id, a time, a participant count), so the value rules support it, but the
answer is a count and the turn's results count otherwise (issue 14: edited counts in terse AgentDojo
answers). Only a number that stands alone (the whole answer, or an item of a numbered list of answers:
"1. 3 2. ...") is read, only when the request asks how many and a result of the turn is a list, and it is
contradicted only when no count of the turn's results (a list's length, a tally of a value, a filtered
count the evidence keeps) is that number.
"""

from __future__ import annotations

import re
from typing import Any

from .evidence import Evidence
from .findings import Finding

__all__ = ["check_asked_counts"]

_HOW_MANY = re.compile(r"\bhow many\b", re.I)
# Alone: at the start of the answer or after a list marker, and before its end or the next marker.
_BEFORE = re.compile(r"(?:^|\d{1,2}[.)])\s*$")
_AFTER = re.compile(r"\s*(?:$|\d{1,2}[.)])")


def check_asked_counts(
    answer: str, findings: list[Finding], ev: Evidence, question: str, turn_start: int
) -> None:
    """Relabel, in place, a bare count no count of the turn's results gives (see the module).

    >>> from .messages import parse_run
    >>> from .evidence import build_evidence
    >>> from .grounding import ground_answer
    >>> events = '[{"id": "4", "at": "09:00"}, {"id": "7", "at": "14:00"}]'
    >>> run = parse_run([{"role": "user", "content": "How many meetings today?"},
    ...     {"role": "tool", "tool_call_id": "c", "content": events},
    ...     {"role": "assistant", "content": "x"}])
    >>> ev = build_evidence(run)
    >>> def labels(answer):
    ...     found = ground_answer(answer, ev, question=run.last_user, turn_start=0)
    ...     return [(f.mention.text, f.label) for f in found]
    >>> labels("2"), labels("4")
    ([('2', 'SUPPORTED')], [('4', 'CONTRADICTED')])
    """
    if turn_start < 0 or not _HOW_MANY.search(question):
        return
    counts: list[Any] | None = None
    for f in findings:
        m = f.mention
        if m.kind not in ("number", "count") or m.value is None or f.label == "CONTRADICTED" or m.noun:
            continue
        if not _BEFORE.search(answer, 0, m.start) or not _AFTER.match(answer, m.end):
            continue
        if counts is None:
            counts = [x for x in ev.counts if x.message_index > turn_start]
            # Only a turn whose results are lists of items is counted: a passage of text ("the town has
            # 294,000 inhabitants") answers how many by stating the number.
            if not any(x.text == "length" and x.path == () for x in counts):
                return
        if any(x.value == m.value for x in counts):
            continue
        f.label, f.derived = "CONTRADICTED", False
        f.facts = [x for x in counts if x.text == "length"][:3] or counts[:3]
        f.reason = "the question asks how many, and the turn's results count otherwise"
