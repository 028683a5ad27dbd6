"""Numbers an answer grounds in its own lists (issue 14, h18f: real retail answers).

A customer-service agent counts and adds up what it has just listed:

- a **count its own enumeration spells out**: "all three items (hose, backpack, and hiking boots)", "two
  orders (#W4967593 and #W5733668)", "I can offer you two options:" followed by "**Option 1:** ..." and
  "**Option 2:** ...". The count is of the answer's own selection, not of a list of the results (an order
  of five items, a user of three orders), so the results' lengths neither support nor contradict it; the
  enumeration does, either way.
- a **total of the amounts it lists**: "- Cancel #W4836353: $1,429.81 / - Cancel #W7342738: $1,030.40 /
  - Return #W4597054: $1,186.47 / **Total refund: $3,646.68**". The one-step arithmetic of
  ``numeric.derive`` adds two values; a total of three or more listed amounts is the sum of a run of
  consecutive amounts the answer states (and the results support), before or after it.

Both are read only where the answer says so: a count directly followed by its parenthesised list or by a
colon that opens a list of marked items; an amount of a sentence that calls it a total.
"""

from __future__ import annotations

import re

from ..text import lower
from .findings import Finding
from .numeric import accepts

__all__ = ["check_own_enumerations", "listed_total"]

# A run of at most this many amounts is summed; a total never adds more items than a list shows.
_MAX_TERMS = 12
_MAX_AMOUNTS = 40

_TOTAL_WORDS = re.compile(r"\btotals?\b|\bin all\b|\baltogether\b")
# What a total adds up ("total refunds", "total of the charges"): the stem its terms' sentences name.
_TOTAL_OF = re.compile(r"\btotal\s+(?:of\s+(?:the\s+)?|\w+\s+)?(refund|payment|charge|saving|fee|credit)s?\b")
_ITEM_SEP = re.compile(r",\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+")
# A parenthesised list that is no plain enumeration: an example, an amount, a part of something.
_NOT_A_LIST = re.compile(
    r"\b(?:e\.g|i\.e|including|such as|like|each|per|total|about|approximately)\b|[$€£:%=]"
)
# The words a count may stand before its noun with ("two other orders", "three delivered items").
_GAP = re.compile(r"(?:\s+[a-z][a-z-]*){0,3}?\s+")
# A line that opens an item of a list: a bullet, "1.", or a bold label holding a number ("**Option 1:**").
_MARKED = re.compile(r"([ \t]*)(?:[-*•][ \t]|\d{1,2}[.)][ \t]|\*\*[^*\n]{0,30}?\d{1,2}[.):]?\*\*)")


def _noun_end(answer: str, start: int, noun: str) -> int:
    """Where the counted ``noun`` ends after the count that ends at ``start``, or -1."""
    gap = _GAP.match(answer, start)
    if gap is None:
        return -1
    low = lower(answer[gap.end() : gap.end() + len(noun) + 2])
    if not low.startswith(lower(noun)):
        # The gap is lazy: try the noun right after the count, then after each further word.
        pos = start
        for _ in range(4):
            nxt = re.match(r"\s+([a-z][a-z-]*)", answer[pos : pos + 40])
            if nxt is None:
                return -1
            if lower(nxt.group(1)) == lower(noun):
                return pos + nxt.end()
            pos += nxt.end()
        return -1
    return gap.end() + len(noun)


def _plural(noun: str) -> bool:
    low = lower(noun)
    return (low.endswith("s") and not low.endswith("ss")) or low in ("people", "children", "men", "women")


# Compiled once, not per call: both are tried at every count the answer gives.
_PARENS_AT = re.compile(r"[ \t]*\(([^()\n]{3,200})\)")
_COLON_AT = re.compile(r"[ \t]*:\**[ \t]*\n")


def _parenthesised(answer: str, at: int) -> int:
    """The number of items of a plain list in parentheses right at ``at``, or 0."""
    m = _PARENS_AT.match(answer, at)
    if m is None or _NOT_A_LIST.search(lower(m.group(1))):
        return 0
    items = [x for x in _ITEM_SEP.split(m.group(1)) if x.strip()]
    return len(items) if len(items) >= 2 else 0


def _colon_list(answer: str, at: int) -> int:
    """The number of marked items of the list a colon at ``at`` opens (the colon ends its line), or 0.

    Blank lines may separate the items; a line indented deeper than the first item belongs to the item
    above; any other unmarked line ends the list."""
    m = _COLON_AT.match(answer, at)
    if m is None:
        return 0
    pos, count, indent = m.end(), 0, -1
    while pos < len(answer):
        stop = answer.find("\n", pos)
        line_end = len(answer) if stop < 0 else stop
        line = answer[pos:line_end]
        nxt = line_end + 1
        if not line.strip():
            pos = nxt
            continue
        lead = len(line) - len(line.lstrip(" \t"))
        marked = _MARKED.match(line)
        if marked is not None and (indent < 0 or lead == indent):
            indent = lead
            count += 1
        elif not (indent >= 0 and lead > indent):
            break
        pos = nxt
    return count if count >= 2 else 0


def check_own_enumerations(answer: str, findings: list[Finding]) -> None:
    """Relabel, in place, a count of a noun that the answer's own list right after it counts (see the
    module): supported when the list has as many items (two or more); contradicted when a plain list in
    parentheses has another number of them.

    >>> from .mentions import Mention
    >>> text = "You can return all three items (kettle, lantern, and tent)."
    >>> f = Finding(Mention("count", 19, 24, "three", value=3.0, noun="items"), "CONTRADICTED", (0, 59))
    >>> check_own_enumerations(text, [f]); f.label, f.reason
    ('SUPPORTED', 'the answer lists 3 of them')
    """
    for f in findings:
        m = f.mention
        if m.kind not in ("number", "count") or not m.noun or m.value is None:
            continue
        if not 2 <= m.value <= 12 or m.value != int(m.value) or not _plural(m.noun):
            continue  # "15 bar → 9 bar (keeping 1.5L ...)": a measure, not a count of listed things
        end = _noun_end(answer, m.end, m.noun)
        if end < 0:
            continue
        in_parentheses = _parenthesised(answer, end)
        listed = in_parentheses or _colon_list(answer, end)
        if not listed:
            continue
        if listed == int(m.value):
            if f.label != "SUPPORTED":
                f.label, f.facts, f.derived = "SUPPORTED", [], True
                f.reason = f"the answer lists {listed} of them"
        elif in_parentheses:
            # A list of marked lines may hold more than the things counted ("Two things:" and a third line
            # "Nothing else."); a plain list in parentheses is the things themselves.
            f.label, f.facts, f.derived = "CONTRADICTED", [], False
            f.reason = f"the answer lists {listed} of them"


def listed_total(f: Finding, findings: list[Finding], answer: str) -> bool:
    """Whether the amount of ``f``, in a sentence that calls it a total, adds up amounts the answer states
    (and the results support): a run of two or more consecutive ones right before it or right after it, or
    the amounts of the earlier sentences that name the total's noun ("**Total refunds: $138.74**" after a
    "Refund: $0.60", a "Refund: $43.59" and a "Refund: $94.55"), one per sentence (see the module).

    >>> from .mentions import Mention
    >>> def money(at, text, value, label="SUPPORTED"):
    ...     mention = Mention("money", at, at + len(text), text, value=value, decimals=2)
    ...     return Finding(mention, label, (at, at + 9))
    >>> items = [money(10, "$152.40", 152.4), money(30, "$88.10", 88.1), money(50, "$41.00", 41.0)]
    >>> text = " " * 70 + "**Total refund: $281.50**"
    >>> total = money(86, "$281.50", 281.5, "UNSUPPORTED")
    >>> total.sentence = (70, len(text))
    >>> listed_total(total, [*items, total], text)
    True
    >>> total.mention.value = 291.5
    >>> listed_total(total, [*items, total], text)
    False
    """
    m = f.mention
    sentence = lower(answer[f.sentence[0] : f.sentence[1]])
    if m.kind != "money" or m.value is None or not _TOTAL_WORDS.search(sentence):
        return False
    amounts = [
        g
        for g in findings
        if g is not f and g.mention.kind == "money" and g.label == "SUPPORTED" and g.mention.value is not None
    ][:_MAX_AMOUNTS]
    before = [g for g in amounts if g.mention.end <= m.start]
    after = [g for g in amounts if g.mention.start >= m.end]
    # The run closest to the total: the amounts right before it (read backwards), or right after it.
    for run in (before[::-1], after):
        total = 0.0
        for n, g in enumerate(run[:_MAX_TERMS]):
            total += abs(g.mention.value or 0.0)
            if n >= 1 and accepts(m, total):
                return True
    noun = _TOTAL_OF.search(sentence)
    if noun is None:
        return False
    stem = noun.group(1)
    last_of: dict[tuple[int, int], float] = {}
    for g in before:
        if g.sentence != f.sentence and stem in lower(answer[g.sentence[0] : g.sentence[1]]):
            last_of[g.sentence] = abs(g.mention.value or 0.0)
    return 2 <= len(last_of) <= _MAX_TERMS and accepts(m, sum(last_of.values()))
