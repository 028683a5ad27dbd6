"""An amount labelled a total that only a difference of the run's values gives.

"- **Total Price:** $348" after two flights of $123 and $167: 348 is no sum of the run's amounts, but it is
the difference of two others (a fare and a balance), so the arithmetic rules support it. A total adds; an
amount called a total with no word of subtraction near it (after, minus, less, discount, refund, credit,
certificate, difference, remaining, balance, saving) that only a difference gives is unsupported (issue 14:
edited totals of long booking summaries). A sum, a product (a rate times nights) or a value the results
state are untouched: only the reason ``difference`` is read, and a total of the amounts the answer lists
just before it ("Economy ($109)", "Economy ($130)", "Total Cost: $239") is a sum the arithmetic rules may
not have been given.
"""

from __future__ import annotations

import re

from ..text import lower
from .findings import Finding

__all__ = ["check_labelled_totals"]

_TOTAL = re.compile(r"\btotal\b")
_SUBTRACTION = re.compile(
    r"\b(?:after|minus|less|discount\w*|refund\w*|credit\w*|certificate\w*|difference|remain\w*|balance|"
    r"sav(?:e|es|ed|ing|ings)|deduct\w*|subtract\w*|off|back|change\w*|upgrade\w*|downgrade\w*|new)\b"
)


def _adds_up(findings: list[Finding], f: Finding) -> bool:
    """Whether the last two or more amounts the answer states before ``f`` add up to it."""
    assert f.mention.value is not None
    before = [
        g.mention.value for g in findings if g.mention.kind == "money" and g.mention.end <= f.mention.start
    ]
    total = 0.0
    for k, v in enumerate(reversed(before)):
        total += v or 0.0
        if k >= 1 and abs(total - f.mention.value) < 0.005:
            return True
    return False


def _repeats_supported(findings: list[Finding], f: Finding) -> bool:
    """Whether the answer stated ``f``'s amount before, outside a total, and that amount stands supported.

    A table of costs ("| Economy fare | $136 per passenger × 3 passengers | **$408** |" ... "| **Total** | |
    **$408** |") closes with the amount its one non-zero row gave: the total is that row's value again, as
    supported as the row (issue 14, gpt-oss-120b airline runs). An edited total is another value and repeats
    nothing.
    """
    v = f.mention.value
    assert v is not None
    for g in findings:
        m = g.mention
        if m.end > f.mention.start or m.kind != "money" or g.label != "SUPPORTED" or not m.value:
            continue
        if abs(m.value - v) < 0.005:
            return True
    return False


def check_labelled_totals(answer: str, findings: list[Finding]) -> None:
    """Relabel, in place, a total that only a difference supports (see the module).

    >>> from .mentions import Mention
    >>> def check(line, reason="difference"):
    ...     m = Mention("money", line.index("$"), len(line), line[line.index("$"):], value=348.0)
    ...     f = Finding(m, "SUPPORTED", (0, len(line)), [], reason, True)
    ...     check_labelled_totals(line, [f])
    ...     return f.label
    >>> check("- Total Price: $348"), check("- Total after the certificate: $348")
    ('UNSUPPORTED', 'SUPPORTED')
    >>> check("- Total: $348", "sum")
    'SUPPORTED'
    """
    for f in findings:
        m = f.mention
        if m.kind != "money" or f.label != "SUPPORTED" or not f.derived or f.reason != "difference":
            continue
        start = answer.rfind("\n", 0, m.start) + 1
        end = answer.find("\n", m.end)
        line = lower(answer[start : len(answer) if end < 0 else end])
        head = lower(answer[max(start, m.start - 40) : m.start])
        if (
            _TOTAL.search(head)
            and not _SUBTRACTION.search(line)
            and not _adds_up(findings, f)
            and not _repeats_supported(findings, f)
        ):
            f.label, f.derived = "UNSUPPORTED", False
            f.reason = "called a total, but only a difference of the run's values gives it"
