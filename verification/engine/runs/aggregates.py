"""Amounts an agent computed from the results without stating the operands (issue 14, h14a).

A customer-service agent tells "you will pay the difference of $229", "the total for both passengers is
$458" or "you have paid $555 across your two bookings" without listing the fares it subtracted, multiplied
or added. The one-step arithmetic of ``numeric.derive`` sees only the values of the items the answer talks
about; these amounts come from values the answer never names.

The search is typed by what the sentence calls the amount, so that it does not support every number:

- a **difference** ("difference", "more", "less", "saved", "refund", "extra", "additional", "upgrade"):
  ``a - b`` over two amounts of the results, or ``k x (a - b)`` for a multiplier ``k`` of the sentence;
- a **total** ("total", "altogether", "in all", "combined", "across", "both", "all", "each", "per"):
  the sum of the values of one key over the run's results (all of them, or two of them), ``k x a``, or
  ``k x`` such a sum, or ``k x (a - b)``.

A multiplier ``k`` (2 to 9) is a count the sentence states ("3 passengers", "two nights", "both" is 2) or
the length of a list of the results whose key the sentence names ("for all passengers" with three
``passengers``). The operands are the run's tool amounts without a physical unit, at most ``MAX_POOL``
distinct values, latest first; a key's values are summed only when it has at most ``MAX_GROUP`` of them.
Every look-up is a binary search over sorted values: the work is ``O(K x P log P)``.

Not searched: sums of two items' fare changes (``(a1 - b1) + (a2 - b2)``). Tried, linked by the item
identifier the results give both records ("FX101" in a booking and in a search result), it supported 2 of
46 edited amounts of the tau perturbed held-out set and no clean answer of any set: too wide.
"""

from __future__ import annotations

import re
from typing import Any

from ..text import lower
from .evidence import Evidence, Fact
from .lexicon import NUMBER_WORDS
from .mentions import Mention
from .numeric import SortedValues, interval

__all__ = ["EQUATION", "MAX_GROUP", "MAX_POOL", "computed_amount", "sentence_cues", "states_arithmetic"]

MAX_POOL = 48
MAX_GROUP = 12
_MAX_MULTIPLIERS = 4

_DIFFERENCE = re.compile(
    r"\b(?:difference|differences|more|less|cheaper|saved|save|saves|saving|savings|refund|refunded|refunds|"
    r"extra|additional|upgrade|upgrading|downgrade|downgrading|reduction|reduced|remaining|balance)\b"
)
_TOTAL = re.compile(
    r"\b(?:total|totals|totalling|totaling|altogether|combined|in all|across|sum|both|all|each|per|"
    r"overall|together)\b"
)
# Other words by which a sentence says an amount is computed: a change, a comparison, a range, a sum.
_COMPUTED = re.compile(
    r"\b(?:range|adds? up|added up|add|added|adding|plus|minus|net|than|below|above|higher|lower|"
    r"up|down|rose|fell|gain|gained|lost|loss|increase|increased|decrease|decreased|change|changed|"
    r"comes? to|came to|whole|entire|subtotal|after|deduct|deducted|charge|charged|fees?)\b"
)
# An equation the sentence writes out: "$46.51 (new) - $45.13 (current) = +$1.38", "3 x $20 = $60".
EQUATION = re.compile(r"\d[^=\n]{0,60}[-+x×*/][^=\n]{0,60}=\s*[-+]?\s*[$€£]?\s*\d")
# An amount the answer writes out as arithmetic: "$71.50 (new) - $64.20 (current) = +$7.30", "$64.20 →
# $71.50 (+$7.30)" (issue 14, h18f: a sign, an arrow or an equals sign, not a word, says it is computed).
_OPERATOR = re.compile(r"[=→]|\(\s*[+−-]\s*[$€£]|\s[+−]\s?[$€£]")
_SMALL_NUMBER = re.compile(r"\b([2-9])\b")
_WORD = re.compile(r"[a-z]+")
# Key words of numbers that name rather than measure: no operand of an amount.
_ID_KEYS = frozenset({"id", "number", "code", "zip", "phone", "card", "account", "last4", "pin"})


def sentence_cues(sentence: str) -> tuple[bool, bool]:
    """(difference, total): what the sentence (lower case) calls the amounts it states.

    >>> sentence_cues("you will pay the difference of $65"), sentence_cues("it costs $65")
    ((True, False), (False, False))
    """
    return _DIFFERENCE.search(sentence) is not None, _TOTAL.search(sentence) is not None


def states_arithmetic(sentence: str) -> bool:
    """Whether the sentence (lower case) says that an amount it states is computed: a total, a difference,
    a change, a comparison, a range. An amount of a sentence without such a word is a value the agent
    read, not one it added or subtracted ("Economy: $134" is no sum of two other fares).

    >>> states_arithmetic("the upgrade comes to $65"), states_arithmetic("- economy price: $205")
    (True, False)
    >>> states_arithmetic("- **water bottle**: $46.51 (new) - $45.13 (current) = +$1.38")
    True
    >>> states_arithmetic("- kettle: $64.20 → $71.50 (+$7.30)"), states_arithmetic("$71.50 - $64.20 = $7.30")
    (True, True)
    """
    return (
        any(sentence_cues(sentence))
        or _COMPUTED.search(sentence) is not None
        or EQUATION.search(sentence) is not None
        or _OPERATOR.search(sentence) is not None
    )


def _singular(word: str) -> str:
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return word[:-1]
    return word


def _multipliers(sentence: str, ev: Evidence) -> list[float]:
    """Counts 2-9 the sentence gives: stated ("3 passengers", "two", "both"), or the length of a list of the
    results whose key the sentence names ("all passengers" and a ``passengers`` list of three)."""
    found: list[float] = []
    for d in _SMALL_NUMBER.findall(sentence):
        found.append(float(d))
    words = _WORD.findall(sentence)
    nouns = set()
    for w in words:
        n = NUMBER_WORDS.get(w)
        if n is not None and 2 <= n <= 9:
            found.append(float(n))
        elif w == "both":
            found.append(2.0)
        if len(w) > 3:
            nouns.add(_singular(w))
    if nouns:
        for c in ev.counts:
            if c.text == "length" and c.source == "tool" and 2 <= c.value <= 9 and isinstance(c.path, tuple):
                key = c.path[-1] if c.path else ""
                if isinstance(key, str) and _singular(lower(key)) in nouns:
                    found.append(c.value)
    out: list[float] = []
    for k in found:
        if k not in out:
            out.append(k)
    return out[:_MAX_MULTIPLIERS]


def _pool(ev: Evidence) -> tuple[list[float], dict[Any, list[Fact]]]:
    """The run's tool amounts (no physical unit, not a year), latest first, at most MAX_POOL distinct
    values; and the amounts of each key (the last step of their path), for sums."""
    values: list[float] = []
    seen: set[float] = set()
    by_key: dict[Any, list[Fact]] = {}
    for f in reversed(ev.numbers):
        if f.source != "tool" or f.unit is not None or not isinstance(f.path, tuple) or not f.path:
            continue
        v = abs(f.value)
        if v <= 1 or not f.key_tokens.isdisjoint(_ID_KEYS):
            continue
        key = f.path[-1]
        if not isinstance(key, str):
            key = f.path[-2] if len(f.path) > 1 else ""
        group = by_key.get(key)
        if group is None:
            by_key[key] = [f]
        elif len(group) <= MAX_GROUP:
            group.append(f)
        if v not in seen and len(values) < MAX_POOL:
            seen.add(v)
            values.append(v)
    return values, by_key


def _difference(lo: float, hi: float, sv: SortedValues, values: list[float]) -> tuple[float, float] | None:
    """Two values ``a > b`` of ``values`` with ``a - b`` in ``[lo, hi]``."""
    for b in values:
        for a in sv.between(b + lo, b + hi):
            if a != b:
                return a, b
    return None


def _read_sentence(
    sentence: str, ev: Evidence
) -> tuple[bool, bool, list[float], dict[Any, list[Fact]], list[float], SortedValues, list[float]]:
    """What :func:`computed_amount` reads from a sentence and the results, whatever the amount."""
    difference, total = sentence_cues(sentence)
    if not (difference or total):
        return difference, total, [], {}, [], SortedValues(()), []
    values, by_key = _pool(ev)
    ordered = sorted(values)
    return (
        difference,
        total,
        values,
        by_key,
        ordered,
        SortedValues((x, x) for x in ordered),
        _multipliers(sentence, ev),
    )


def computed_amount(
    m: Mention, sentence: str, ev: Evidence, cache: dict[str, Any] | None = None
) -> tuple[str, list[float]]:
    """How the stated amount ``m`` is computed from the run's amounts, and the operands; ("", []) if not.

    ``sentence`` is ``m``'s sentence in lower case; only amounts of money are read, only when the
    sentence calls them a difference or a total (:func:`sentence_cues`). ``cache``, one per answer and
    ``ev``, keeps what is read from a sentence and the results alone for the sentence's other amounts
    (h23c: a long sentence was read again for each of them).

    >>> from .evidence import Fact, Evidence
    >>> ev = Evidence(numbers=[Fact("number", v, 2, ("fares", k), None, None) for k, v in
    ...     (("standard", 120.0), ("premium", 185.0))])
    >>> fee = Mention("money", 0, 3, "$65", value=65.0, currency="$")
    >>> computed_amount(fee, "you will pay the difference of $65", ev)
    ('a difference of two amounts of the run', [185.0, 120.0])
    >>> computed_amount(fee, "it costs $65", ev)
    ('', [])
    """
    if m.value is None or m.unit or m.hedge in ("more", "less"):
        return "", []
    if m.kind != "money":
        return "", []  # a bare number is as often an identifier ("the card ending in 4421")
    read = cache.get(sentence) if cache is not None else None
    if read is None:
        read = _read_sentence(sentence, ev)
        if cache is not None:
            cache[sentence] = read
    difference, total, values, by_key, ordered, sv, ks = read
    if not (difference or total):
        return "", []
    if len(values) < 1:
        return "", []
    lo, hi = interval(m)
    if difference:
        pair = _difference(lo, hi, sv, ordered)
        if pair is not None:
            return "a difference of two amounts of the run", list(pair)
    for k in ks:
        if difference or total:
            pair = _difference(lo / k, hi / k, sv, ordered)
            if pair is not None:
                return f"{k:g} times a difference of two amounts of the run", [k, *pair]
        if total:
            hits = sv.between(lo / k, hi / k)
            if hits:
                return f"{k:g} times an amount of the run", [k, hits[0]]
    if total:
        for facts in by_key.values():
            if not 2 <= len(facts) <= MAX_GROUP:
                continue
            amounts = [f.value for f in facts]
            s = sum(amounts)
            for k in (1.0, *ks):
                if lo <= k * s <= hi:
                    how = "the sum of one key's values" + (f", {k:g} times" if k != 1.0 else "")
                    return how, amounts
            for i, a in enumerate(amounts):
                for b in amounts[i + 1 :]:
                    if lo <= a + b <= hi:
                        return "the sum of two values of one key", [a, b]
                    # "that would total $304 for 2 passengers" on the same two legs: the legs' fares
                    # (one key, two values) for each of the sentence's travellers (issue 14, h24j).
                    for k in ks:
                        if lo <= k * (a + b) <= hi:
                            return f"the sum of two values of one key, {k:g} times", [k, a, b]
    return "", []
