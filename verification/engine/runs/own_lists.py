"""Numbers an answer grounds in its own lists (issue 14, h18f: real retail answers).

A customer-service agent counts and adds up what it has just listed:

- a **count its own enumeration spells out**: "all three items (hose, backpack, and hiking boots)", "two
  orders (#W4967593 and #W5733668)", "I can offer you two options:" followed by "**Option 1:** ..." and
  "**Option 2:** ...". The count is of the answer's own selection, not of a list of the results (an order
  of five items, a user of three orders), so the results' lengths neither support nor contradict it; the
  enumeration does, either way.
- the **sum of the changes it lists**: "Action Camera: $481.50 → $466.75", "Desk Lamp: $150.01 → $135.24",
  "T-Shirt: $53.27 → $46.66", then "The $36.13 difference would be refunded" and "**New Order Total:
  $1,130.85**" under a "Current Order Total: $1,166.98" (issue 14, h20a). Each pair is checked on its own;
  the difference of the whole change is their sum, and the new total the told total plus that sum: two
  steps the one-step arithmetic does not take.
- a **total of the amounts it lists**: "- Cancel #W4836353: $1,429.81 / - Cancel #W7342738: $1,030.40 /
  - Return #W4597054: $1,186.47 / **Total refund: $3,646.68**". The one-step arithmetic of
  ``numeric.derive`` adds two values; a total of three or more listed amounts is the sum of a run of
  consecutive amounts the answer states (and the results support), before or after it.

Both are read only where the answer says so: a count directly followed by its parenthesised list or by a
colon that opens a list of marked items (a few words may stand between the noun and the colon: "a couple
of options for you:"); a count that points back ("these 3 items", "all two orders") to a list of marked
items the answer gave earlier with as many; an amount of a sentence that calls it a total.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_left, bisect_right
from itertools import combinations, pairwise
from typing import Any

from ..text import lower
from .aggregates import states_arithmetic
from .findings import Finding
from .numeric import accepts, interval

__all__ = [
    "AnswerAmounts",
    "check_own_enumerations",
    "listed_changes",
    "listed_total",
    "rounded_difference",
    "told_gap",
    "told_sum",
]

# A run of at most this many amounts is summed; a total never adds more items than a list shows.
_MAX_TERMS = 12
_MAX_AMOUNTS = 40

_TOTAL_WORDS = re.compile(r"\btotals?\b|\bin all\b|\baltogether\b")
# What a total adds up ("total refunds", "total of the charges"): the stem its terms' sentences name.
_TOTAL_OF = re.compile(r"\btotal\s+(?:of\s+(?:the\s+)?|\w+\s+)?(refund|payment|charge|saving|fee|credit)s?\b")
_ITEM_SEP = re.compile(r",\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+")
# A parenthesised list that is no plain enumeration: an example, an amount, a part of something, what an
# amount leaves out ("$304 for 2 passengers (excluding any baggage or insurance add-ons, which ...)").
_NOT_A_LIST = re.compile(
    r"\b(?:e\.g|i\.e|including|excluding|except|such as|like|each|per|total|about|approximately|which)\b"
    r"|[$€£:%=]"
)
# The words a count may stand before its noun with ("two other orders", "three delivered items").
_GAP = re.compile(r"(?:\s+[a-z][a-z-]*){0,3}?\s+")
# A line that opens an item of a list: a bullet, "1.", or a bold label holding a number ("**Option 1:**").
_MARKED = re.compile(r"([ \t]*)(?:[-*•][ \t]|\d{1,2}[.)][ \t]|\*\*[^*\n]{0,30}?\d{1,2}[.):]?\*\*)")


class AnswerAmounts:
    """The answer's findings indexed once for the arithmetic look-ups of its amounts (issue 14, h23c).

    Each unsupported amount used to list the answer's amounts (or its sentence's) anew, so an answer of
    4,000 amounts took ~20 s. Kept here, in the order of ``findings``, each list made on its first use: the
    amounts of money with a value (any label), the supported ones (all, and per sentence), the supported
    values (for ``grounding._earlier_supported``) and the supported findings that hold a fact of a record
    (for ``grounding._context_facts``). Labels only turn to "SUPPORTED" while the amounts are checked: the
    caller reports each such finding with :meth:`supported` before the next look-up. ``reads`` counts the
    findings the look-ups read (the work of an answer, for tests). The lower-case text of each sentence and
    what depends on it alone are kept too: a long sentence was lowered for each of its amounts.

    >>> from .mentions import Mention
    >>> found = [Finding(Mention("money", i, i + 3, "$5", value=5.0), "SUPPORTED", (0, 9)) for i in (0, 4)]
    >>> index = AnswerAmounts("$5, $5.", found)
    >>> [g.mention.start for g in index.sentence_amounts(found[1])], index.reads
    ([0], 1)
    """

    def __init__(self, answer: str, findings: list[Finding], starts: list[int] | None = None) -> None:
        """``starts``, when given, are the findings' starts and in order (the caller checked it)."""
        self.answer = answer
        self.findings = findings
        self.reads = 0
        self._starts: list[int] | None = starts
        self._in_order = starts is not None
        self._arrows = -1
        self._money: list[Finding] | None = None  # amounts of money with a value, any label
        self._money_sorted: list[Finding] | None = None
        self._money_starts: list[int] = []
        self._supported_money: list[int] | None = None  # positions in ``findings``, ascending
        self._by_sentence: dict[tuple[int, int], list[int]] | None = None
        # The same per sentence, as (size, position) pairs in ascending order (see :meth:`sized_between`).
        self._sized: dict[tuple[int, int], list[tuple[float, int]]] | None = None
        self._valued: list[int] | None = None  # supported, with a non-zero value
        self._recorded: list[int] | None = None  # supported, holding a fact of a record of a list
        # The records of those findings in the order first read, per range start and kind of finding (see
        # :meth:`first_records`): [ends, records, the set of them, how far the range is read].
        self._first: dict[tuple[int, int], tuple[list[int], list[Any], set[Any], list[int]]] = {}
        self._recorded_by_sentence: dict[tuple[int, int], list[int]] | None = None
        self._spans_hold = -1  # whether each finding's sentence holds its start, the sentences apart
        self._lowered: dict[tuple[int, int], str] = {}
        self._memo: dict[tuple[tuple[int, int], str], Any] = {}
        # For :func:`.aggregates.computed_amount`: what it reads from a sentence and the results alone.
        self.computed: dict[str, Any] = {}
        # For the checks of totals in ``grounding`` (``_named_total``, ``_kind_total``, ``_refunds_total``):
        # what they read from the answer or the results alone, kept per answer (h24b).
        self.totals: dict[Any, Any] = {}
        self._newlines: list[int] | None = None
        self._low_answer: str | None = None

    # The lists, made on first use from the labels of the time (later changes come through ``supported``).
    def _order(self) -> list[int]:
        if self._starts is None:
            self._starts = [g.mention.start for g in self.findings]
            self._in_order = all(a <= b for a, b in pairwise(self._starts))
        return self._starts

    def starts(self) -> list[int]:
        """The findings' starts, in the findings' order."""
        return self._order()

    @property
    def in_order(self) -> bool:
        """Whether the findings are in answer order (by start)."""
        self._order()
        return self._in_order

    @property
    def arrows(self) -> bool:
        """Whether the answer writes an arrow ("→", "->") anywhere: a change of amount may be listed."""
        if self._arrows < 0:
            self._arrows = int("→" in self.answer or ">" in self.answer)
        return self._arrows > 0

    def money(self) -> list[Finding]:
        """The amounts of money with a value (any label), in the order of the findings."""
        if self._money is None:
            self._money = [
                g for g in self.findings if g.mention.kind == "money" and g.mention.value is not None
            ]
        return self._money

    def sorted_money(self) -> tuple[list[Finding], list[int]]:
        """The amounts of money with a value by start, and their starts."""
        if self._money_sorted is None:
            money = self.money()
            # In answer order already when the findings are (a stable sort), for _top_level_list_above.
            self._money_sorted = money if self.in_order else sorted(money, key=_start_of)
            self._money_starts = [g.mention.start for g in self._money_sorted]
        return self._money_sorted, self._money_starts

    def _supported_amounts(self) -> list[int]:
        if self._supported_money is None:
            self._supported_money = [
                i
                for i, g in enumerate(self.findings)
                if g.label == "SUPPORTED" and g.mention.kind == "money" and g.mention.value is not None
            ]
        return self._supported_money

    def _sentence_lists(self) -> dict[tuple[int, int], list[int]]:
        if self._by_sentence is None:
            by: dict[tuple[int, int], list[int]] = {}
            for i in self._supported_amounts():
                by.setdefault(self.findings[i].sentence, []).append(i)
            self._by_sentence = by
        return self._by_sentence

    def _supported_values(self) -> list[int]:
        if self._valued is None:
            self._valued = [
                i for i, g in enumerate(self.findings) if g.label == "SUPPORTED" and g.mention.value
            ]
        return self._valued

    def _supported_records(self) -> list[int]:
        if self._recorded is None:
            self._recorded = [
                i for i, g in enumerate(self.findings) if g.label == "SUPPORTED" and _holds_record(g)
            ]
        return self._recorded

    def supported(self, i: int) -> None:
        """Note that ``findings[i]`` may have turned supported (the lists made so far take it in, once)."""
        g = self.findings[i]
        if g.label != "SUPPORTED":
            return
        m = g.mention
        if m.kind == "money" and m.value is not None:
            if self._supported_money is not None:
                _insert(self._supported_money, i)
            if self._by_sentence is not None:
                _insert(self._by_sentence.setdefault(g.sentence, []), i)
            if self._sized is not None:
                _put_sized(self._sized.setdefault(g.sentence, []), (_size(g), i), True)
        if self._valued is not None and m.value:
            _insert(self._valued, i)
        if self._recorded is not None and _holds_record(g):
            j = bisect_left(self._recorded, i)
            if _insert(self._recorded, i):
                self._recorded_moved(j)
            if self._recorded_by_sentence is not None:
                _insert(self._recorded_by_sentence.setdefault(g.sentence, []), i)

    def relabelled(self, i: int) -> None:
        """Note that the label or the facts of ``findings[i]`` changed either way (``records.check_records``
        turns supported values contradicted): each list made so far takes it in or leaves it out (h24b)."""
        g = self.findings[i]
        m = g.mention
        supported = g.label == "SUPPORTED"
        money = supported and m.kind == "money" and m.value is not None
        if self._supported_money is not None:
            _put(self._supported_money, i, money)
        if self._by_sentence is not None:
            _put(self._by_sentence.setdefault(g.sentence, []), i, money)
        if self._sized is not None and m.kind == "money" and m.value is not None:
            _put_sized(self._sized.setdefault(g.sentence, []), (_size(g), i), money)
        if self._valued is not None:
            _put(self._valued, i, supported and bool(m.value))
        if self._recorded is not None and _put(self._recorded, i, supported and _holds_record(g)):
            self._first.clear()  # read again from the start: rare (the arithmetic above reads these)
            self._recorded_by_sentence = None

    def _recorded_moved(self, j: int) -> None:
        """A finding was put at ``j`` of the recorded list: what was read from ``j`` on is read again."""
        for key in list(self._first):
            if key[0] >= j:
                del self._first[key]  # its range now starts at another finding
                continue
            ks, recs, seen, upto = self._first[key]
            if upto[0] > j:
                cut = bisect_left(ks, j)
                del ks[cut:]
                del recs[cut:]
                seen.clear()
                seen.update(recs)
                upto[0] = j

    def line_span(self, pos: int) -> tuple[int, int]:
        """Where the line holding ``pos`` starts and ends (its line break or the answer's end), by bisection
        of the answer's line breaks (h25r: a table row of many amounts was read whole for each)."""
        if self._newlines is None:
            self._newlines = [i for i, c in enumerate(self.answer) if c == "\n"]
        i = bisect_left(self._newlines, pos)
        start = self._newlines[i - 1] + 1 if i else 0
        return start, self._newlines[i] if i < len(self._newlines) else len(self.answer)

    def line_start(self, pos: int) -> int:
        """Where the line holding ``pos`` starts: ``answer.rfind("\\n", 0, pos) + 1``, by bisection of the
        answer's line breaks (read once) rather than a scan back over a long line for each amount."""
        if self._newlines is None:
            self._newlines = [i for i, c in enumerate(self.answer) if c == "\n"]
        i = bisect_left(self._newlines, pos)
        return self._newlines[i - 1] + 1 if i else 0

    def lowered_answer(self) -> str:
        """The whole answer in lower case (computed once)."""
        if self._low_answer is None:
            self._low_answer = lower(self.answer)
        return self._low_answer

    def lowered(self, sentence: tuple[int, int]) -> str:
        """The sentence's text in lower case (computed once)."""
        low = self._lowered.get(sentence)
        if low is None:
            low = lower(self.answer[sentence[0] : sentence[1]])
            self._lowered[sentence] = low
        return low

    def search(self, sentence: tuple[int, int], pattern: re.Pattern[str]) -> re.Match[str] | None:
        """``pattern.search`` of the sentence's lower-case text (computed once per sentence and pattern)."""
        key = (sentence, pattern.pattern)
        if key in self._memo:
            found: re.Match[str] | None = self._memo[key]
            return found
        found = pattern.search(self.lowered(sentence))
        self._memo[key] = found
        return found

    def states_arithmetic(self, sentence: tuple[int, int]) -> bool:
        """:func:`.aggregates.states_arithmetic` of the sentence (computed once per sentence)."""
        key = (sentence, "")
        if key not in self._memo:
            self._memo[key] = states_arithmetic(self.lowered(sentence))
        said: bool = self._memo[key]
        return said

    def first_supported_money(self, f: Finding, count: int) -> list[Finding]:
        """The first ``count`` supported amounts of money of the answer other than ``f``, in order."""
        out = [self.findings[i] for i in self._supported_amounts()[: count + 1]]
        out = [g for g in out if g is not f][:count]
        self.reads += len(out)
        return out

    def first_money(self, f: Finding, count: int) -> list[Finding]:
        """The first ``count`` amounts of money (any label) other than ``f``, in order."""
        out = [g for g in self.money()[: count + 1] if g is not f][:count]
        self.reads += len(out)
        return out

    def sentence_amounts(self, f: Finding, count: int | None = None) -> list[Finding]:
        """The other supported amounts of money of ``f``'s sentence, in the answer's order (the first
        ``count`` of them when given)."""
        at = self._sentence_lists().get(f.sentence, [])
        if count is not None:
            at = at[: count + 1]
        out = [self.findings[i] for i in at]
        out = [g for g in out if g is not f]
        if count is not None:
            out = out[:count]
        self.reads += len(out)
        return out

    def sized_between(self, f: Finding, lo: float, hi: float) -> list[Finding]:
        """The other supported amounts of money of ``f``'s sentence whose size (``abs(value)``; a NaN value's
        is taken as infinite) lies in ``[lo, hi]``, smallest first (``lo`` and ``hi`` not NaN). A look-up
        by value reads these, not the whole sentence (h25h: ``told_gap``, quadratic in one long sentence)."""
        if self._sized is None:
            sized: dict[tuple[int, int], list[tuple[float, int]]] = {}
            for sentence, at in self._sentence_lists().items():
                sized[sentence] = sorted([(_size(self.findings[i]), i) for i in at])
            self._sized = sized
        pairs = self._sized.get(f.sentence, [])
        j = bisect_left(pairs, (lo, -1))
        k = bisect_right(pairs, (hi, len(self.findings)))
        out = [self.findings[i] for _, i in pairs[j:k]]
        out = [g for g in out if g is not f]
        self.reads += len(out)
        return out

    def next_sentence_amount(self, f: Finding, pos: int) -> Finding | None:
        """The first supported amount of money of ``f``'s sentence other than ``f`` that starts at ``pos`` or
        after it, in the answer's order."""
        at = self._sentence_lists().get(f.sentence, [])
        k = bisect_left(at, bisect_left(self._order(), pos)) if self.in_order else 0
        for i in at[k:]:
            g = self.findings[i]
            self.reads += 1
            if g is not f and g.mention.start >= pos:
                return g
        return None

    def supported_money_before(self, pos: int, count: int) -> list[Finding]:
        """The first ``count`` supported amounts of money that end at ``pos`` or before it, in order."""
        out: list[Finding] = []
        in_order = self.in_order
        for i in self._supported_amounts():
            g = self.findings[i]
            self.reads += 1
            if in_order and g.mention.start > pos:
                break  # it and all after it end after ``pos``
            if g.mention.end <= pos:
                out.append(g)
                if len(out) >= count:
                    break
        return out

    def valued_before(self, pos: int, count: int) -> list[Finding]:
        """The last ``count`` supported findings with a non-zero value that start before ``pos``, in order
        (findings in answer order only)."""
        out: list[Finding] = []
        valued = self._supported_values()
        k = bisect_left(valued, bisect_left(self._order(), pos))
        for j in range(k - 1, -1, -1):
            if len(out) >= count:
                break
            g = self.findings[valued[j]]
            self.reads += 1
            if g.mention.start < pos:
                out.append(g)
        out.reverse()
        return out

    def recorded_count(self, pos: int) -> int:
        """How many supported findings holding a fact of a record start before ``pos`` (findings in answer
        order only): the recorded list's prefix that :meth:`recorded_before` gives."""
        return bisect_left(self._supported_records(), bisect_left(self._order(), pos))

    def recorded_of_sentence(self, sentence: tuple[int, int], count: int) -> list[Finding]:
        """The findings of ``sentence`` among the first ``count`` supported findings holding a fact of a
        record, in order."""
        recorded = self._supported_records()
        if self._recorded_by_sentence is None:
            by: dict[tuple[int, int], list[int]] = {}
            for i in recorded:
                by.setdefault(self.findings[i].sentence, []).append(i)
            self._recorded_by_sentence = by
        at = self._recorded_by_sentence.get(sentence, [])
        bound = recorded[count] if count < len(recorded) else len(self.findings)
        out = [self.findings[i] for i in at[: bisect_left(at, bound)]]
        self.reads += len(out)
        return out

    def first_records(self, lo: int, hi: int, ids: int) -> list[Any]:
        """The records of the lists the supported findings ``lo`` to ``hi`` of the recorded list hold (facts
        with a record and a list), each once, in the order first read (findings in order, each one's facts
        in order); of the identifiers only (``ids`` 1), of the other findings only (2), or of all (0). Kept
        per ``lo`` and kind and read on as ``hi`` grows, so a look-up reads the records, not the findings
        (h24b: ``grounding._context_facts`` read every finding before each amount)."""
        recorded = self._supported_records()
        key = (lo, ids)
        entry = self._first.get(key)
        if entry is None:
            entry = ([], [], set(), [lo])
            self._first[key] = entry
        ks, recs, seen, upto = entry
        while upto[0] < hi:
            k = upto[0]
            g = self.findings[recorded[k]]
            self.reads += 1
            upto[0] = k + 1
            if ids and (g.mention.kind == "id") != (ids == 1):
                continue
            for x in g.facts:
                r = x.record
                if r is None or x.list_path is None or r in seen:
                    continue
                seen.add(r)
                ks.append(k)
                recs.append(r)
        out = recs[: bisect_left(ks, hi)]
        self.reads += len(out)
        return out

    def sentence_records(self, sentence: tuple[int, int], count: int) -> list[Any] | None:
        """The records of the lists the findings of ``sentence`` among the first ``count`` supported findings
        holding a fact of a record hold, each once, in the order first read: :meth:`first_records` of the
        sentence's range of the recorded list (findings in answer order only). ``None`` when a finding's
        sentence does not hold its start or two sentences overlap: the range is then no sentence's. A
        look-up read each finding of the sentence before it (h25h: quadratic in one long sentence)."""
        if self._spans_hold < 0:
            spans = sorted({g.sentence for g in self.findings})
            inside = all(g.sentence[0] <= g.mention.start < g.sentence[1] for g in self.findings)
            self._spans_hold = int(inside and all(a[1] <= b[0] for a, b in pairwise(spans)))
        if not self._spans_hold:
            return None
        lo = self.recorded_count(sentence[0])
        return self.first_records(lo, count, 0) if lo < count else []

    def recorded_before(self, pos: int) -> list[Finding]:
        """The supported findings holding a fact of a record that start before ``pos`` (findings in answer
        order only)."""
        recorded = self._supported_records()
        k = bisect_left(recorded, bisect_left(self._order(), pos))
        self.reads += k
        return [self.findings[i] for i in recorded[:k]]


def _holds_record(g: Finding) -> bool:
    return any(x.record is not None and x.list_path is not None for x in g.facts)


def _insert(positions: list[int], i: int) -> bool:
    """Put ``i`` in the ascending ``positions`` unless it is there; whether it was put."""
    j = bisect_left(positions, i)
    if j < len(positions) and positions[j] == i:
        return False
    positions.insert(j, i)
    return True


def _put(positions: list[int], i: int, keep: bool) -> bool:
    """Put ``i`` in the ascending ``positions`` or take it out, as ``keep`` says; whether they changed."""
    j = bisect_left(positions, i)
    there = j < len(positions) and positions[j] == i
    if keep and not there:
        positions.insert(j, i)
        return True
    if there and not keep:
        del positions[j]
        return True
    return False


def _size(g: Finding) -> float:
    """``abs(value or 0.0)`` of an amount, a NaN taken as infinite (the pairs sorted so stay in order)."""
    size = abs(g.mention.value or 0.0)
    return size if size == size else math.inf


def _put_sized(pairs: list[tuple[float, int]], pair: tuple[float, int], keep: bool) -> None:
    """Put ``pair`` in the ascending ``pairs`` or take it out, as ``keep`` says."""
    j = bisect_left(pairs, pair)
    there = j < len(pairs) and pairs[j] == pair
    if keep and not there:
        pairs.insert(j, pair)
    elif there and not keep:
        del pairs[j]


def _start_of(g: Finding) -> int:
    return g.mention.start


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
# The colon may follow a few words after the noun: "a couple of options for you:", "two ways to do it:",
# "the two items you’ve selected:" (a word may hold an apostrophe, straight or curly: issue 14, h25d).
_COLON_AT = re.compile(r"(?:[ \t]+[a-z]+(?:['’][a-z]+)?){0,4}?[ \t]*:\**[ \t]*\n")
# Words with which a count points back to things the answer has already listed ("these 3 items").
_BACK = frozenset({"these", "those", "both", "all"})
# A line that is an item of a list, for lists told before a count: a bullet, "1.", or a bold label ending
# with its number ("**Option 2:**", "**Exchange #1**"), not any bold text with digits ("**Total: $9.55**").
_ITEM_LINE = re.compile(r"([ \t]*)(?:[-*•][ \t]|\d{1,2}[.)][ \t]|\*\*[A-Za-z][^*\n]{0,30}?[ #]\d{1,2}:?\*\*)")


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


def _earlier_lists(answer: str, upto: int) -> set[int]:
    r"""The numbers of items (two or more) of the lists of marked lines the answer gives before ``upto``: a
    run of marked lines at one indent, blank lines and deeper lines (an item's details) between them; any
    other line ends the run.

    >>> text = "Changes:\n1. Lamp\n   - $5\n2. Hose\n3. Bag\n\nKept:\n- Tent\n- Mat\nSwitch these 3 items?"
    >>> sorted(_earlier_lists(text, text.index("Switch")))
    [2, 3]
    """
    sizes: set[int] = set()
    indent, count = -1, 0
    for line in answer[:upto].split("\n"):
        if not line.strip():
            continue
        lead = len(line) - len(line.lstrip(" \t"))
        marked = _ITEM_LINE.match(line) is not None
        if count and marked and lead == indent:
            count += 1
            continue
        if count and lead > indent:
            continue  # the details of the item above
        if count >= 2:
            sizes.add(count)
        indent, count = (lead, 1) if marked else (-1, 0)
    if count >= 2:
        sizes.add(count)
    return sizes


def _points_back(answer: str, m_start: int) -> bool:
    """Whether the count at ``m_start`` is said with a word that points back ("these 3 items")."""
    words = lower(answer[max(0, m_start - 12) : m_start]).split()
    return bool(words) and words[-1] in _BACK


def check_own_enumerations(answer: str, findings: list[Finding]) -> None:
    """Relabel, in place, a count of a noun that the answer's own list right after it counts (see the
    module): supported when the list has as many items (two or more); contradicted when a plain list in
    parentheses has another number of them.

    >>> from .mentions import Mention
    >>> text = "You can return all three items (kettle, lantern, and tent)."
    >>> f = Finding(Mention("count", 19, 24, "three", value=3.0, noun="items"), "CONTRADICTED", (0, 59))
    >>> check_own_enumerations(text, [f]); f.label, f.reason
    ('SUPPORTED', 'the answer lists 3 of them')
    >>> text = "That is $304 for 2 passengers (excluding any baggage or insurance, which we add later)."
    >>> f = Finding(Mention("number", 17, 18, "2", value=2.0, noun="passengers"), "SUPPORTED", (0, 87))
    >>> check_own_enumerations(text, [f]); f.label
    'SUPPORTED'
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
            # "switching these 3 items": the items of a list the answer gave before (support only: the
            # answer may hold other lists, of other lengths; issue 14, h20a).
            back = f.label != "SUPPORTED" and _points_back(answer, m.start)
            if back and int(m.value) in _earlier_lists(answer, m.start):
                f.label, f.facts, f.derived = "SUPPORTED", [], True
                f.reason = f"the answer listed {int(m.value)} of them before"
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


def listed_total(
    f: Finding, findings: list[Finding], answer: str, index: AnswerAmounts | None = None
) -> bool:
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
    if index is None:
        index = AnswerAmounts(answer, findings)
    if m.kind != "money" or m.value is None or not index.search(f.sentence, _TOTAL_WORDS):
        return False
    amounts = index.first_supported_money(f, _MAX_AMOUNTS)
    before = [g for g in amounts if g.mention.end <= m.start]
    after = [g for g in amounts if g.mention.start >= m.end]
    # The run closest to the total: the amounts right before it (read backwards), or right after it.
    for run in (before[::-1], after):
        total = 0.0
        for n, g in enumerate(run[:_MAX_TERMS]):
            total += abs(g.mention.value or 0.0)
            if n >= 1 and accepts(m, total):
                return True
    if _priced_list_above(f, index.first_money(f, _MAX_AMOUNTS), answer) or _top_level_list_above(
        f, answer, index
    ):
        return True
    noun = index.search(f.sentence, _TOTAL_OF)
    if noun is None:
        return False
    stem = noun.group(1)
    last_of: dict[tuple[int, int], float] = {}
    for g in before:
        if g.sentence != f.sentence and stem in index.lowered(g.sentence):
            last_of[g.sentence] = abs(g.mention.value or 0.0)
    return 2 <= len(last_of) <= _MAX_TERMS and accepts(m, sum(last_of.values()))


def _priced_list_above(f: Finding, amounts: list[Finding], answer: str) -> bool:
    r"""Whether the total of ``f`` adds the item prices of the list right above its line: the first amount of
    each marked line of that list (blank lines between list and total allowed), each price supported. A line
    that also tells a saving ("1. Camera - $466.75 (black) - *saves $14.75*") adds its price only, which the
    runs of consecutive amounts of :func:`listed_total` cannot do (issue 14, h21b: "**New Total with
    cheapest options: $1,130.85**" under the five new prices, each with its saving).

    >>> from .mentions import Mention
    >>> text = "Options:\n1. Lamp - $10.00 - saves $2\n2. Mug - $5.50 - saves $1\n\n**New total: $15.50**"
    >>> found = []
    >>> for t in ("$10.00", "$2", "$5.50", "$1"):
    ...     at = text.index(t)
    ...     money = Mention("money", at, at + len(t), t, value=float(t[1:]), decimals=2)
    ...     found.append(Finding(money, "SUPPORTED", (0, 9)))
    >>> at = text.index("$15.50")
    >>> total = Finding(Mention("money", at, at + 6, "$15.50", value=15.5, decimals=2), "UNSUPPORTED", (0, 9))
    >>> _priced_list_above(total, found, text)
    True
    >>> total.mention.value = 18.5
    >>> _priced_list_above(total, found, text)
    False
    """
    m = f.mention
    end = answer.rfind("\n", 0, m.start)
    total, lines = 0.0, 0
    while end > 0:
        start = answer.rfind("\n", 0, end) + 1
        line = answer[start:end]
        end = start - 1
        if not line.strip():
            if lines:
                break
            continue
        if not _MARKED.match(line):
            break
        first = next((g for g in amounts if start <= g.mention.start < start + len(line)), None)
        if first is None or first.label != "SUPPORTED":
            return False  # an item without a (supported) price: no sum to check
        total += abs(first.mention.value or 0.0)
        lines += 1
        if lines > _MAX_TERMS:
            return False
    return lines >= 2 and accepts(m, total)


# An amount changed to another on one line: "$481.50 → $466.75", "$150.01 -> $135.24".
# A line that titles a group of list items: a markdown heading, a line wholly in bold or italics, or one
# ending with a colon ("**PENDING ORDERS (can be cancelled immediately):**").
_GROUP_HEADING = re.compile(
    r"[ \t]*+(?:#{1,6}[ \t][^\n]*|([*_]{1,3})[^*_\n]{1,80}\1:?|[^\n]{1,80}:[*_]*)[ \t]*"
)


def _top_level_list_above(f: Finding, answer: str, index: AnswerAmounts) -> bool:
    r"""Whether the total of ``f`` adds the first amounts of the top-level items of the nested list right
    above its line: the items at the least indentation, of one kind of marker (numbers or bullets), read
    upwards from the total through the headings that group them, their indented sub-items (the parts that
    make up each item's amount) left out, each amount supported (issue 14, h22b: "**Total possible refund:
    $3,883.25**" under four numbered orders, each with its items indented beneath, in two groups).

    >>> from .mentions import Mention
    >>> text = ("Done:\n- #W1 - $9.00\n\n**To cancel:**\n1. #W2 - $10.00\n   - Lamp ($4.00)\n"
    ...         "   - Mug ($6.00)\n**To return:**\n2. #W3 - $5.50\n   - Cup ($5.50)\n\n**Total: $15.50**")
    >>> found = []
    >>> for t in ("$9.00", "$10.00", "$4.00", "$6.00", "$5.50", "$5.50)"):
    ...     at = text.index(t, found[-1].mention.end if found else 0)
    ...     money = Mention("money", at, at + 5, t[:5], value=float(t[1:5]), decimals=2)
    ...     found.append(Finding(money, "SUPPORTED", (0, 9)))
    >>> at = text.index("$15.50")
    >>> total = Finding(Mention("money", at, at + 6, "$15.50", value=15.5, decimals=2), "UNSUPPORTED", (0, 9))
    >>> _top_level_list_above(total, text, AnswerAmounts(text, [*found, total]))
    True
    >>> total.mention.value = 24.5
    >>> _top_level_list_above(total, text, AnswerAmounts(text, [*found, total]))
    False
    """
    m = f.mention
    # The answer's amounts of money in answer order, sorted once per answer (h22k, h23c); ``f`` left out.
    ordered, starts = index.sorted_money()

    def first_on(start: int, stop: int) -> Finding | None:
        i = bisect_left(starts, start)
        while i < len(starts) and ordered[i] is f:
            i += 1
        index.reads += 1
        return ordered[i] if i < len(starts) and starts[i] < stop else None

    end = answer.rfind("\n", 0, m.start)
    items: list[tuple[int, int, bool, int]] = []  # (indentation, start, numbered, end) upwards
    while end > 0 and len(items) <= 4 * _MAX_TERMS:
        start = answer.rfind("\n", 0, end) + 1
        line = answer[start:end]
        stop, end = end, start - 1
        if not line.strip():
            continue
        mark = _MARKED.match(line)
        if mark is None:
            if items and _GROUP_HEADING.fullmatch(line) and first_on(start, stop) is None:
                continue  # a heading that groups the items below it ("**To return:**")
            break
        body = line[mark.end(1) :].lstrip("*")
        items.append((len(mark.group(1).expandtabs(4)), start, body[:1].isdigit(), stop))
    if len(items) < 3:
        return False
    top = min(width for width, _, _, _ in items)
    tops = [(start, numbered, stop) for width, start, numbered, stop in items if width == top]
    if len(tops) == len(items):
        return False  # no nesting: :func:`_priced_list_above` reads a flat list
    total, lines = 0.0, 0
    for start, numbered, stop in tops:
        if numbered != tops[0][1]:
            break  # another list above this one ("Already cancelled: - #W1 ...")
        first = first_on(start, stop)
        if first is None or first.label != "SUPPORTED":
            return False
        total += abs(first.mention.value or 0.0)
        lines += 1
        if lines > _MAX_TERMS:
            return False
    return lines >= 2 and accepts(m, total)


_ARROW = re.compile(r"[ \t*]*(?:→|->|⟶|=>)[ \t*]*")
# What a sum of changes is told as: a difference, a saving, a refund, a charge, an amount to pay.
_CHANGE_WORDS = re.compile(
    r"\b(?:difference|sav(?:e|es|ed|ing|ings)|refund\w*|charge\w*|pay\w*|credit\w*|owe\w*|less|"
    r"lower|reduc\w*|extra|additional|more)\b"
)
_NEW_TOTAL = re.compile(
    r"\b(?:new|updated|now|revised|adjusted)\b[^\n]{0,30}\btotal\b|\btotal\b[^\n]{0,20}\b(?:now|after)\b"
)


# The header of a table of changes names the amounts before and after: "| Current item | Current price |
# Upgrade (available) | New price |" (issue 14, h25d).
_OLD_HEAD = re.compile(r"\b(?:current|old|original|before|previous)\b")
_NEW_HEAD = re.compile(r"\b(?:new|upgraded?|after|updated)\b")


def _table_header(answer: str, pos: int) -> str:
    """The first line of the markdown table that holds ``pos`` (lowered), or "" outside a table row."""
    start = answer.rfind("\n", 0, pos) + 1
    if not answer.startswith("|", start):
        return ""
    while start > 0:
        above = answer.rfind("\n", 0, start - 1) + 1
        if not answer.startswith("|", above):
            break
        start = above
    return _line_of(answer, start)


def _table_changes(answer: str, amounts: list[Finding]) -> tuple[float, float, int]:
    r"""The changes of amount the rows of a table of changes list: (their sum, the sum of the new amounts,
    the number of rows). A row whose header names a current and a new column, with two supported amounts or
    more, changes from its first amount to its last.

    >>> from .mentions import Mention
    >>> text = "| Item | Current price | New price |\n|--|--|--|\n| A | $10.00 | $8.00 |\n"
    >>> text += "| B | $5.00 | $6.50 |"
    >>> found = []
    >>> for t in ("$10.00", "$8.00", "$5.00", "$6.50"):
    ...     at = text.index(t)
    ...     money = Mention("money", at, at + len(t), t, value=float(t[1:]), decimals=2)
    ...     found.append(Finding(money, "SUPPORTED", (0, len(text))))
    >>> _table_changes(text, found)
    (-0.5, 14.5, 2)
    """
    rows: dict[int, list[Finding]] = {}
    heads: dict[int, bool] = {}
    for g in amounts:
        if g.label != "SUPPORTED" or g.mention.value is None:
            continue
        start = answer.rfind("\n", 0, g.mention.start) + 1
        if start not in heads:
            head = _table_header(answer, g.mention.start)
            heads[start] = bool(head) and bool(_OLD_HEAD.search(head)) and bool(_NEW_HEAD.search(head))
        if heads[start]:
            rows.setdefault(start, []).append(g)
    change, new_sum, pairs = 0.0, 0.0, 0
    for row in rows.values():
        if len(row) >= 2:
            change += (row[-1].mention.value or 0.0) - (row[0].mention.value or 0.0)
            new_sum += row[-1].mention.value or 0.0
            pairs += 1
    return change, new_sum, pairs


def _line_of(answer: str, pos: int) -> str:
    start = answer.rfind("\n", 0, pos) + 1
    end = answer.find("\n", pos)
    return lower(answer[start : len(answer) if end < 0 else end])


def listed_changes(
    f: Finding, findings: list[Finding], answer: str, index: AnswerAmounts | None = None
) -> str:
    r"""How the amount of ``f`` follows from the changes of amount the answer lists ("$481.50 → $466.75",
    each pair supported): their sum, told as a difference, saving, refund or charge (two pairs or more), or
    a new total that is a total the answer told before plus that sum; "" when it does not (see the module).

    >>> from .mentions import Mention
    >>> text = "- A: $10.00 → $8.00\n- B: $5.00 → $4.50\nTotal: $40.00\nNew total: $37.50, you save $2.50."
    >>> found = []
    >>> for t in ("$10.00", "$8.00", "$5.00", "$4.50", "$40.00", "$37.50", "$2.50"):
    ...     at = text.index(t)
    ...     money = Mention("money", at, at + len(t), t, value=float(t[1:]), decimals=2)
    ...     found.append(Finding(money, "SUPPORTED", (0, len(text))))
    >>> listed_changes(found[5], found, text), listed_changes(found[6], found, text)
    ('the told total plus the changes the answer lists', 'the sum of the changes the answer lists')
    >>> found[5].mention.value = 38.5
    >>> listed_changes(found[5], found, text)
    ''
    """
    m = f.mention
    if index is None:
        index = AnswerAmounts(answer, findings)
    if m.kind != "money" or m.value is None or not (index.arrows or "|" in answer):
        return ""
    amounts = index.first_money(f, _MAX_AMOUNTS)
    change, pairs = 0.0, 0
    if index.arrows:
        for a, b in pairwise(amounts):
            if a.label != "SUPPORTED" or b.label != "SUPPORTED":
                continue
            if _ARROW.fullmatch(answer, a.mention.end, b.mention.start):
                change += (b.mention.value or 0.0) - (a.mention.value or 0.0)
                pairs += 1
    line = index.line_span(m.start)  # lowered and searched once per line, not once per amount (h25r)
    if not pairs and "|" in answer:
        change, new_sum, pairs = _table_changes(answer, amounts)
        if pairs >= 2 and index.search(line, _NEW_TOTAL) and accepts(m, new_sum):
            # "**New order total:** $746.96" under a table of "Current price" and "New price" columns: the
            # new column added up (issue 14, h25d: gpt-oss-120b's upgrade tables).
            return "the total of the new amounts the answer's table lists"
    if not pairs:
        return ""
    if pairs >= 2 and index.search(f.sentence, _CHANGE_WORDS) and accepts(m, abs(change)):
        return "the sum of the changes the answer lists"
    if not index.search(line, _NEW_TOTAL):
        return ""
    for g in amounts:
        if g.mention.end > m.start:
            break
        told = g.label == "SUPPORTED" and _TOTAL_WORDS.search(_line_of(answer, g.mention.start))
        if told and accepts(m, abs(g.mention.value or 0.0) + change):
            return "the told total plus the changes the answer lists"
    return ""


# An amount told as the gap to a limit: "$180.85 over your $950 budget", "$12.40 short of the $50 minimum".
_GAP_TO = re.compile(r"[*_]*[ \t]+(?:over|under|above|below|beyond|short[ \t]+of)\b[^$€£\n.;]{0,30}$")


def told_gap(f: Finding, findings: list[Finding], answer: str, index: AnswerAmounts | None = None) -> bool:
    r"""Whether the amount of ``f`` is told as the gap between another amount of its sentence and a limit
    named right after it ("the total would be **$1,130.85**, which is **$180.85 over your $950 budget**"),
    both supported: |other - limit| (issue 14, h21b).

    >>> from .mentions import Mention
    >>> text = "The new total is $120.00, which is $20.00 over your $100.00 limit."
    >>> found = []
    >>> for t in ("$120.00", "$20.00", "$100.00"):
    ...     at = text.index(t)
    ...     money = Mention("money", at, at + len(t), t, value=float(t[1:]), decimals=2)
    ...     found.append(Finding(money, "SUPPORTED", (0, len(text))))
    >>> found[1].label = "UNSUPPORTED"
    >>> told_gap(found[1], found, text)
    True
    >>> found[1].mention.value = 30.0
    >>> told_gap(found[1], found, text)
    False
    """
    m = f.mention
    if m.kind != "money" or m.value is None:
        return False
    if index is None:
        index = AnswerAmounts(answer, findings)
    limit = index.next_sentence_amount(f, m.end)
    if limit is None or not _GAP_TO.fullmatch(lower(answer[m.end : limit.mention.start])):
        return False
    bound = abs(limit.mention.value or 0.0)
    # |size - bound| in [lo, hi] (what ``accepts`` reads): the sizes within [lo, hi] of the bound either way,
    # the windows widened far past the rounding of the subtraction; ``accepts`` decides (h25h). The whole
    # sentence was read for each amount: quadratic in one long sentence of gaps.
    lo, hi = interval(m)
    slack = 1e-9 * (bound + abs(lo) + abs(hi) + 1.0)
    ends = (bound + lo - slack, bound + hi + slack, bound - hi - slack, bound - lo + slack)
    if all(math.isfinite(x) for x in ends):
        same = index.sized_between(f, ends[0], ends[1]) + index.sized_between(f, ends[2], ends[3])
    else:
        same = index.sentence_amounts(f)
    return any(accepts(m, abs(abs(g.mention.value or 0.0) - bound)) for g in same if g is not limit)


# The words that join the terms an answer writes out for an amount: "your original $73.00 plus the
# $2,460.21 from the cancellations", "$120.00 + $15.50", "$80.00 minus the $12.00 credit".
_PLUS = re.compile(
    r"[^$€£\d\n.;]{0,30}?(?:\bplus\b|(?<!\S)\+(?!\S)|\band\s+an?\s+(?:additional|extra)\b)[^$€£\d\n.;]{0,30}"
)
_MINUS = re.compile(r"[^$€£\d\n.;]{0,30}?(?:\bminus\b|\bless\b)[^$€£\d\n.;]{0,30}")


def told_sum(f: Finding, findings: list[Finding], answer: str, index: AnswerAmounts | None = None) -> bool:
    r"""Whether the amount of ``f`` is the sum (or difference) of supported amounts its sentence writes out
    as terms joined by "plus", "+" or "minus": "Your balance should now be $2,533.21 (your original $73.00
    plus the $2,460.21 from the cancellations)" (issue 14, h22b). Only terms the sentence joins so count:
    two other amounts of a sentence may add up to anything.

    >>> from .mentions import Mention
    >>> text = "Your balance is now $95.00 (your $80.00 plus the $15.00 refund)."
    >>> found = []
    >>> for t in ("$95.00", "$80.00", "$15.00"):
    ...     at = text.index(t)
    ...     money = Mention("money", at, at + len(t), t, value=float(t[1:]), decimals=2)
    ...     found.append(Finding(money, "SUPPORTED", (0, len(text))))
    >>> found[0].label = "UNSUPPORTED"
    >>> told_sum(found[0], found, text)
    True
    >>> found[0].mention.value = 96.0
    >>> told_sum(found[0], found, text)
    False
    """
    m = f.mention
    if m.kind != "money" or m.value is None:
        return False
    if index is None:
        index = AnswerAmounts(answer, findings)
    terms = index.sentence_amounts(f, _MAX_AMOUNTS)
    for i, first in enumerate(terms):
        total = abs(first.mention.value or 0.0)
        for prev, g in pairwise(terms[i : i + _MAX_TERMS]):
            if prev.mention.end <= m.start < g.mention.start:
                break  # the amount itself stands between them: no term of its own sum
            gap = lower(answer[prev.mention.end : g.mention.start])
            if _PLUS.fullmatch(gap):
                total += abs(g.mention.value or 0.0)
            elif _MINUS.fullmatch(gap):
                total -= abs(g.mention.value or 0.0)
            else:
                break
            if accepts(m, abs(total)):
                return True
    return False


def rounded_difference(f: Finding, findings: list[Finding], index: AnswerAmounts | None = None) -> bool:
    r"""Whether the amount of ``f``, said as an approximation without cents ("would bring it to around
    $685"), is the difference of two supported amounts the answer states before it, rounded to the stated
    places (issue 14, h21b: the $1,166.98 total less the $481.50 camera). Rounding only: the wider margin
    an "about" allows would let too many pairs of amounts explain an invented one.

    >>> from .mentions import Mention
    >>> def money(at, value, decimals=2, hedge=None, label="SUPPORTED"):
    ...     m = Mention("money", at, at + 5, f"${value}", value=value, decimals=decimals, hedge=hedge)
    ...     return Finding(m, label, (0, 99))
    >>> told = [money(0, 1166.98), money(20, 481.5)]
    >>> rounded_difference(money(60, 685.0, 0, "about", "UNSUPPORTED"), told)
    True
    >>> rounded_difference(money(60, 700.0, 0, "about", "UNSUPPORTED"), told)
    False
    >>> rounded_difference(money(60, 685.0, 0, None, "UNSUPPORTED"), told)
    False
    """
    m = f.mention
    if m.kind != "money" or m.value is None or m.hedge != "about" or m.decimals:
        return False
    if index is None:
        index = AnswerAmounts("", findings)
    told = [abs(g.mention.value or 0.0) for g in index.supported_money_before(m.start, _MAX_AMOUNTS)]
    target = abs(m.value)
    return any(abs(abs(a - b) - target) <= 0.5 for a, b in combinations(told, 2))
