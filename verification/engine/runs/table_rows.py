"""A value told for a named row of a table that a tool returned as text ("name,email,rating" lines).

Files and exports come back as one string of comma-separated lines ("Olivia Smith,olivia@...,4,Very
happy"): the evidence reads the numbers of that text, but not which row each is of. "Olivia Smith: 5"
is then supported by any 5 of the file (another customer's rating), though Olivia Smith's row says 4
(issue 14: edited values of terse AgentDojo answers read from a spreadsheet). A "Name: number" line of the
answer is compared with the row whose first cell is that name, when exactly one table of the results has
such a row with numbers: the number must be one of that row's numbers.
"""

from __future__ import annotations

import re
from typing import Any

from ..text import lower
from .evidence import Evidence
from .findings import Finding, contradict
from .mentions import Mention

__all__ = ["check_table_rows"]

# "Olivia Smith: 5", "- Mia Anderson: 2", "-Mason Thompson: 3.5" on a line of its own.
_NAMED_VALUE = re.compile(
    r"^[ \t]*(?:[-*•][ \t]*)?([A-Z][\w'.-]*(?:[ \t]+[A-Z][\w'.-]*){0,3})"
    r"[ \t]*:[ \t]*(-?\d+(?:\.\d+)?)[ \t]*$",
    re.M,
)
# The end every match of ``_NAMED_VALUE`` holds: a colon, a number, the end of the line. ``_NAMED_VALUE``
# opens with ``^`` under MULTILINE, which the engine tries at every position of the answer; this tail opens
# with the colon, which it skips to (h24c). An answer without it has no named value.
_NAMED_VALUE_TAIL = re.compile(r":[ \t]*-?\d+(?:\.\d+)?[ \t]*$", re.M)
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def _rows(ev: Evidence) -> dict[str, list[list[str]]]:
    """The rows of the comma-separated texts of the results, by their first cell (lower case)."""
    rows: dict[str, list[list[str]]] = {}
    for x in ev.strings:
        text = x.text
        if x.source != "tool" or "\n" not in text or text.count(",") < 2:
            continue
        for line in text.split("\n"):
            cells = [c.strip() for c in line.split(",")]
            if len(cells) >= 3 and cells[0]:
                rows.setdefault(lower(cells[0]), []).append(cells)
    return rows


def check_table_rows(answer: str, findings: list[Finding], ev: Evidence, sentence_of: Any) -> list[Finding]:
    """Relabel, in place, a number told for a named row that the row gives otherwise; return a finding for
    a number that had none (see the module).

    >>> import json
    >>> from .messages import parse_run
    >>> from .evidence import build_evidence
    >>> from .grounding import ground_answer
    >>> sheet = "name,email,rating\\nAna Ruiz,ana@example.org,4\\nLi Wei,li@example.org,5"
    >>> result = json.dumps({"content": sheet})
    >>> run = parse_run([{"role": "user", "content": "Ratings?"},
    ...     {"role": "tool", "tool_call_id": "c", "content": result},
    ...     {"role": "assistant", "content": "x"}])
    >>> ev = build_evidence(run)
    >>> def bad(answer):
    ...     return [f.mention.text for f in ground_answer(answer, ev) if f.label != "SUPPORTED"]
    >>> bad("Ana Ruiz: 4\\nLi Wei: 5"), bad("Ana Ruiz: 5\\nLi Wei: 5")
    ([], ['5'])
    """
    pairs = list(_NAMED_VALUE.finditer(answer)) if _NAMED_VALUE_TAIL.search(answer) else []
    if not pairs:
        return []
    rows = _rows(ev)
    if not rows:
        return []
    added: list[Finding] = []
    for p in pairs:
        found = rows.get(lower(p.group(1)))
        if not found or len(found) != 1:
            continue
        numbers = [float(c) for c in found[0][1:] if _NUMBER.fullmatch(c)]
        value = float(p.group(2))
        if not numbers or any(abs(n - value) < 1e-9 for n in numbers):
            continue
        start = p.start(2)
        reason = "the row of " + p.group(1) + " gives " + ", ".join(f"{n:g}" for n in numbers)
        mention = Mention("number", start, p.end(2), p.group(2), value=value)
        contradict(findings, added, mention, sentence_of(start), reason)
    return added
