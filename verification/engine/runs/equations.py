"""Sums an answer writes out that do not add up (issue 14, h22c).

"- **Price:** $126 + $190 = $295": every amount of the line may be one the results give, or one the
results' values add up to, and still the line is false: 126 + 190 is 316. An answer that writes out its
arithmetic ("$833 - $500 (certificate) = $333", "$105 + $102 = $207") states that the operands make the
result; when they do not, one of them is wrong. The amount blamed is an operand that the results do not
state as such (an edited fare), else the result (an edited total).

Only sums and differences of amounts on one line are read, each operand optionally followed by a short label
in brackets; products ("3 x $20 = $60"), percentages and hedged results ("≈ $60") are left alone.
"""

from __future__ import annotations

import re

from .findings import Finding

__all__ = ["WRONG_SUM", "check_written_equations"]

WRONG_SUM = "the sum the answer writes out does not add up"

# Between two operands: an optional short label in brackets, then a plus or a minus sign, on one line.
_OP_GAP = re.compile(r"[ \t]*(?:\([^()\n]{0,30}\)[ \t]*)?(?P<op>[+\-−–])[ \t]*")
# Between the last operand and the result: an optional label in brackets, then "=" (the result may carry a
# plus sign: "= +$1.38").
_EQ_GAP = re.compile(r"[ \t]*(?:\([^()\n]{0,30}\)[ \t]*)?=[ \t]*\+?[ \t]*")


def _stated(f: Finding) -> bool:
    """Whether the results give the amount itself (not a sum or difference of their values)."""
    return f.label == "SUPPORTED" and not f.derived and bool(f.facts)


def check_written_equations(answer: str, findings: list[Finding]) -> None:
    """Relabel, in place, an amount of a written sum that does not add up as CONTRADICTED.

    >>> from .mentions import Mention
    >>> def found(text, stated):
    ...     at = answer.index(text)
    ...     m = Mention("money", at, at + len(text), text, value=float(text[1:]), decimals=0)
    ...     if stated:  # a fare the results give (a stand-in for its fact)
    ...         return Finding(m, "SUPPORTED", (0, len(answer)), ["a fare"], "stated in the evidence")
    ...     return Finding(m, "SUPPORTED", (0, len(answer)), [], "sum", True)
    >>> answer = "- Price: $126 + $190 = $295"
    >>> fs = [found("$126", False), found("$190", True), found("$295", False)]
    >>> check_written_equations(answer, fs)
    >>> [(f.mention.text, f.label) for f in fs]
    [('$126', 'CONTRADICTED'), ('$190', 'SUPPORTED'), ('$295', 'SUPPORTED')]
    """
    terms = sorted(
        (f for f in findings if f.mention.kind == "money" and f.mention.value is not None),
        key=lambda f: f.mention.start,
    )
    i, n = 0, len(terms)
    while i < n:
        chain, signs = [terms[i]], [1.0]
        j = i
        while j + 1 < n:
            gap = _OP_GAP.fullmatch(answer, terms[j].mention.end, terms[j + 1].mention.start)
            if gap is None:
                break
            signs.append(-1.0 if gap.group("op") != "+" else 1.0)
            chain.append(terms[j + 1])
            j += 1
        if (
            len(chain) < 2
            or j + 1 >= n
            or _EQ_GAP.fullmatch(answer, terms[j].mention.end, terms[j + 1].mention.start) is None
        ):
            i = j + 1
            continue
        result = terms[j + 1]
        i = j + 2
        if result.mention.hedge or any(t.mention.hedge for t in chain):
            continue
        total = sum(s * abs(t.mention.value or 0.0) for s, t in zip(signs, chain, strict=True))
        places = max(t.mention.decimals for t in (*chain, result))
        if abs(total - abs(result.mention.value or 0.0)) <= 0.5 * 10.0**-places + 1e-9:
            continue
        if any(t.label == "CONTRADICTED" for t in (*chain, result)):
            continue  # already blamed: the checks before said which amount is wrong
        blamed = [t for t in chain if not _stated(t)] or [result]
        evidence = [x for t in (*chain, result) if t not in blamed for x in t.facts][:3]
        for t in blamed:
            t.label, t.facts, t.derived, t.reason = "CONTRADICTED", evidence, False, WRONG_SUM
