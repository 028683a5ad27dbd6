"""Which item of the results a clause talks about, and the values that belong to another item or period.

A *record* is one element of a list in a tool result (a product, an event, a day of a forecast), or one of
several results of the same tool. A value the evidence gives only for a sibling record ("item B's price
for item A") contradicts the sentence.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable, Sequence
from itertools import pairwise
from typing import Any

from ..budget import UNLIMITED, Budget
from ..text import lower
from .evidence import Evidence, Fact, normalize_text
from .findings import Finding, clauses, joined_identifiers
from .mentions import Mention
from .numeric import may_add, may_multiply, operand
from .own_lists import AnswerAmounts, listed_total

__all__ = [
    "ANOTHER_ITEM",
    "RecordLookup",
    "best_record",
    "check_periods",
    "check_records",
    "check_value_lists",
    "finding_starts",
    "identifier_told_after",
]

MAX_OPERANDS = 48
# The reason of a value read from a sibling of the item its sentence or list item names.
ANOTHER_ITEM = "this value belongs to another item of the results"
# The reason of a name supported word by word, its words found apart in the results.
_APART = "its words all appear in the evidence"
Deriver = Callable[[Mention, list[float], list[Fact], list[float] | None], str]


def finding_starts(findings: Sequence[Finding]) -> list[int] | None:
    """The start of each finding's mention when ``findings`` is in answer order (as the grounder makes it),
    else None: :func:`best_record` then bisects these instead of scanning every finding of a long answer."""
    starts = [g.mention.start for g in findings]
    return starts if all(a <= b for a, b in pairwise(starts)) else None


class RecordLookup:
    """What :func:`best_record` works out about an answer once for all of its findings.

    ``starts`` are the findings' starts (None when they are out of order), ``sentence_at`` the position of
    each sentence, ``named`` the record a neighbour names in a set of lists and ``split`` the clauses of a
    sentence (by separators, with or without joining words), kept across calls: the targets of a sentence
    share them.
    """

    __slots__ = ("named", "sentence_at", "split", "starts")

    def __init__(self, findings: Sequence[Finding], sentences: Sequence[tuple[int, int]]) -> None:
        self.starts = finding_starts(findings)
        self.sentence_at: dict[tuple[int, int], int] = {}
        for i, s in enumerate(sentences):
            self.sentence_at.setdefault(s, i)  # the first, as list.index finds it
        self.named: dict[tuple[frozenset[Any], frozenset[Any]], Any] = {}
        self.split: dict[tuple[int, int, str, bool], list[tuple[int, int]]] = {}


def _clauses(
    answer: str, sent: tuple[int, int], sep: str, words: bool, lookup: RecordLookup | None
) -> list[tuple[int, int]]:
    """``clauses(answer, *sent, sep, words)``, split once per sentence when there is a ``lookup`` (the list is
    shared: read it only)."""
    if lookup is None:
        return clauses(answer, sent[0], sent[1], sep, words)
    key = (sent[0], sent[1], sep, words)
    found = lookup.split.get(key)
    if found is None:
        found = lookup.split[key] = clauses(answer, sent[0], sent[1], sep, words)
    return found


def best_record(
    answer: str,
    findings: list[Finding],
    target: Finding,
    sentences: list[tuple[int, int]],
    lists: set[Any],
    lookup: RecordLookup | None = None,
) -> Any:
    """The record the target's clause talks about.

    In the target's own clause, the nearest anchor before it (a supported value of exactly one record of the
    same list) decides; in wider windows (the sentence, the sentence before) all anchors must agree, and only
    values of no other record at all anchor there.
    ``lookup`` (made once for ``findings`` and ``sentences``) spares the calls for one answer from scanning
    every finding and sentence again.
    """
    sent = target.sentence
    pos = target.mention.start
    if lookup is not None:
        idx = lookup.sentence_at.get(sent, -1)
        starts, memo = lookup.starts, lookup.named
    else:
        idx = sentences.index(sent) if sent in sentences else -1
        starts, memo = None, None
    # The widest window is the sentence before and this one (every clause below lies in this sentence).
    lo = sentences[idx - 1][0] if idx > 0 else sent[0]
    hi = sent[1]
    # The position test first: it rejects most findings of a long answer (a bisection when they are sorted).
    window = findings[bisect_left(starts, lo) : bisect_left(starts, hi)] if starts is not None else findings
    nearby = [g for g in window if lo <= g.mention.start < hi and g is not target and g.label == "SUPPORTED"]
    # A name is itself what names an item: it is checked only against a value just before it in its clause
    # ("at 8:30 AM in Room 2A"), never against other names or the wider sentence.
    is_name = target.mention.kind == "entity"
    is_link = target.mention.kind == "url"
    # The findings that name exactly one record of these lists, found once: every window below tries them.
    named: list[tuple[int, int, Any, bool]] = []  # (start, end, record, names no item outside these lists)
    lists_key = frozenset(lists)
    for g in nearby:
        m = g.mention
        if is_name and m.kind == "entity":
            continue
        if is_link and m.kind == "entity" and g.reason == _APART:
            # A link's text whose words the results give only apart ("[USPS Tracking Status Help](https://
            # ...)") names no page as surely as the address beside it, which the results give verbatim
            # (issue 14, h20j: the words' first facts were another page's address).
            continue
        if m.kind == target.mention.kind:
            # Values of one kind side by side are an enumeration of items ("alarms at 5:10 and 17:20", "on
            # 9/15 and on 9/17"), each the value of its own item: one never says which item the other is of.
            continue
        if m.kind in ("number", "count") and m.value is not None and abs(m.value) < 32:
            continue  # small bare numbers name no item
        # Neighbours are shared by the targets of a sentence: what each names is worked out once per list.
        key = (g.records, lists_key)
        if memo is not None and key in memo:
            one = memo[key]
        else:
            recs = {r for lst, r in key[0] if lst in lists}
            one = next(iter(recs)) if len(recs) == 1 else None
            if memo is not None:
                memo[key] = one
        if one is not None:
            # A value that is also a value of another result or another list ("about $541", a flight's fare
            # and an order's item price) names its item only up close: from a wider window it is as likely
            # a recap of that other result's value.
            # A relative date ("tomorrow") names its item in its own clause only: "rainy tomorrow, cloudy
            # the day after" enumerates days.
            named.append((m.start, m.end, one, len(g.records) == 1 and "relative" not in m.extra))
    if not named:
        return None
    # Near: in the target's own clause, the nearest anchor before it decides (in English the item comes
    # before its value: "X costs $5").
    # Brackets that enumerate items ("the same flights (HAT003 on 2024-05-19, and HAT290 on 2024-05-20)")
    # hold a clause per item: the anchors of the bracket's clauses before the target's are another item's
    # (issue 14, h24j: the return flight was read as a value of the outbound one before it).
    skip_lo, skip_hi = _bracket_siblings(answer, sent, pos)
    for w in [c for c in _clauses(answer, sent, ",;", True, lookup) if c[0] <= pos < c[1] + 1]:
        near = [
            (pos - e, r)
            for s, e, r, _ in named
            if w[0] <= s < w[1] and e <= pos and not skip_lo <= s < skip_hi
        ]
        if near:
            return min(near, key=lambda x: x[0])[1]
        # A value of the target's own item elsewhere in its clause ("followed by 1:1 with Grace Haddad from
        # 11:15", the name being in several items) is the clause's subject: the wider sentence, which may
        # enumerate other items, is then no evidence that the target belongs to another one.
        own = target.records
        if own and any(w[0] <= g.mention.start < w[1] and not own.isdisjoint(g.records) for g in nearby):
            return None
    if is_name or is_link:
        # A link is the address of its own page, told beside the text that names it ("[USPS Redelivery](https:
        # //...)"): only that clause says which item it is; a list of sources enumerates pages, and a page
        # named elsewhere in the sentence says nothing of this link's (issue 14, h20j).
        return None
    # Wide: the target's part of the sentence, the sentence, the sentence before; all anchors must agree.
    wide = [c for c in _clauses(answer, sent, ";", False, lookup) if c[0] <= pos < c[1] + 1] + [sent]
    # A sentence that turns to another item, or names one by an identifier of its own ("Order W123 is
    # cancelled" after a sentence about a flight), does not take its item from the sentence before.
    # An identifier is itself such a name: "2. **Flight HAT263**" opens the item it names, whatever the
    # line before it was about (issue 14: a listed flight was read as a value of the flight above it).
    own_id = target.mention.kind == "id" or any(
        g.mention.kind == "id" and sent[0] <= g.mention.start < sent[1] for g in nearby
    )
    # A heading that introduces the lines after it ("2. **Return Flight on 2024-05-24:**") is about them,
    # not about the line before it (issue 14: a return date read as the outbound leg's above it).
    heading = answer[sent[0] : sent[1]].rstrip().rstrip("*").rstrip().endswith(":")
    if idx > 0 and not own_id and not heading and not _NEW_ITEM.search(answer, sent[0], sent[1]):
        wide.append(sentences[idx - 1])
    for w in wide:
        anchors = {r for s, e, r, only in named if only and w[0] <= s < w[1]}
        if anchors:
            return anchors.pop() if len(anchors) == 1 else None
    return None


def _bracket_siblings(answer: str, sent: tuple[int, int], pos: int) -> tuple[int, int]:
    """The span of the clauses before ``pos``'s own inside the innermost brackets around it in ``sent``
    (split as the sentence is, at separators and joining words), or an empty span when ``pos`` is in no
    brackets or in their first clause.

    >>> a = "Same flights (A1 on May 19, and B2 on May 20), same seats."
    >>> lo, hi = _bracket_siblings(a, (0, len(a)), a.index("B2"))
    >>> a[lo:hi]
    'A1 on May 19, and '
    >>> _bracket_siblings(a, (0, len(a)), a.index("A1")), _bracket_siblings(a, (0, len(a)), a.index("same"))
    ((0, 0), (0, 0))
    """
    if answer.rfind("(", sent[0], pos) < 0:
        return 0, 0  # most values are in no brackets: no scan
    opens: list[int] = []
    for i in range(sent[0], pos):
        ch = answer[i]
        if ch == "(":
            opens.append(i)
        elif ch == ")" and opens:
            opens.pop()
    if not opens:
        return 0, 0
    start = opens[-1] + 1
    depth, end = 0, sent[1]
    for i in range(pos, sent[1]):
        ch = answer[i]
        if ch == "(":
            depth += 1
        elif ch == ")":
            if depth == 0:
                end = i
                break
            depth -= 1
    own = next((c for c in clauses(answer, start, end, ",;", True) if c[0] <= pos < c[1] + 1), None)
    if own is None or own[0] <= start:
        return 0, 0
    return start, own[0]


# Words with which a sentence turns to another item ("The second reminder is ...", "The next one ...",
# "Another ..."): the sentence before, about the item before, says nothing about which item this one is.
# (``\b(?:second|third|...|latter)\b`` under IGNORECASE, written to open with the characters that
# IGNORECASE lets the first letters match, "ſ" for "s" included, and the ``\b`` read behind that character:
# a case-insensitive pattern that opens with a letter is tried at every position, this one is skipped to
# its first letters in C. One word at most matches at a position, so the order of the branches does not
# matter; the same matches, h22d.)
_NEW_ITEM = re.compile(
    r"[AaEeFfLlNnOoSsTt\u017f](?<!\w.)(?i:(?<=a)nother|(?<=e)ighth|(?<=f)(?:ifth|ourth)|(?<=l)(?:ast|atter)"
    r"|(?<=n)(?:ext|inth)|(?<=o)ther|(?<=s)(?:econd|eventh|ixth)|(?<=t)(?:enth|hird))\b"
)

_PRIOR_KEYS = frozenset({"prior", "previous", "prev", "yesterday"})
_PRIOR_WORDS = re.compile(
    r"\b(?:earlier|previous(?:ly)?|prior|before|ago|yesterday|from|last year|a year earlier)\b", re.I
)


def check_periods(answer: str, findings: list[Finding]) -> None:
    """Relabel, in place, values that only a previous period gives as CONTRADICTED.

    A value found only under a key such as ``prior_year.net_income``, stated with no word that puts it in
    the past ("a year earlier", "previous close", "up from"), is last period's figure told as this one's.
    """
    for f in findings:
        m = f.mention
        if f.label != "SUPPORTED" or f.derived or not f.facts or m.kind not in ("money", "number", "percent"):
            continue
        if not all(x.source == "tool" and x.key_tokens & _PRIOR_KEYS for x in f.facts):
            continue
        clause = next(
            (c for c in clauses(answer, *f.sentence, ",;", words=True) if c[0] <= m.start <= c[1]),
            f.sentence,
        )
        if not _PRIOR_WORDS.search(answer[clause[0] : clause[1]]):
            f.label, f.reason = "CONTRADICTED", "this is the previous period's value"


_URL_START = re.compile(r"https?://")


def _cites_several(answer: str, sentence: tuple[int, int]) -> bool:
    """Whether the sentence holds more than one URL: a list of sources, one item per link.

    >>> a = "Sources: [A](https://a.example/x), [B](https://b.example/y)."
    >>> _cites_several(a, (0, len(a))), _cites_several("See https://a.example/x.", (0, 24))
    (True, False)
    """
    found = _URL_START.search(answer, sentence[0], sentence[1])
    return found is not None and _URL_START.search(answer, found.end(), sentence[1]) is not None


def _call_argument(fact: Fact) -> bool:
    """Whether ``fact`` is an argument of a tool call (its path starts at the call message's ``tool_calls``).

    >>> path = ("tool_calls", 0, "function", "arguments", "url")
    >>> _call_argument(Fact("string", "https://a.example/x", 4, path, None, None))
    True
    >>> _call_argument(Fact("string", "https://a.example/x", 5, ("results", 0, "url"), None, None))
    False
    """
    return isinstance(fact.path, tuple) and fact.path[:1] == ("tool_calls",)


# What stands between a value and the identifier, in brackets, of the item it is told of: "$1859 for the first
# flight (HAT028)", "$140 on the second leg (flight HAT277)". No number, no clause break, a short phrase.
_VALUE_THEN_ID = re.compile(
    r"[ \t]+(?:for|on|of)\b[^\d$,;:.\n()]{0,40}\([ \t]*(?:flight[ \t]+)?$", re.IGNORECASE
)


def identifier_told_after(answer: str, value: Finding, findings: list[Finding]) -> Finding | None:
    """The identifier in brackets that closes the phrase of ``value`` ("$1859 for the first flight (HAT028)"):
    the item the value is told of, named after it (issue 14, tau2-bench airline runs of gemini-2.5-flash,
    h24d).

    >>> a = "It was $1859 for the first flight (HAT028)."
    >>> v = Finding(Mention("money", 7, 12, "$1859", value=1859.0), "SUPPORTED", (0, len(a)))
    >>> i = Finding(Mention("id", 35, 41, "HAT028"), "SUPPORTED", (0, len(a)))
    >>> identifier_told_after(a, v, [v, i]) is i
    True
    >>> a = "It was $1859, and then the first flight (HAT028)."
    >>> i = Finding(Mention("id", 41, 47, "HAT028"), "SUPPORTED", (0, len(a)))
    >>> identifier_told_after(a, v, [v, i]) is None
    True
    """
    end = value.mention.end
    after = [g for g in findings if g.mention.kind == "id" and g.mention.start >= end]
    if not after:
        return None
    first = min(after, key=lambda g: g.mention.start)
    if first.mention.start - end > 60 or not _VALUE_THEN_ID.match(answer[end : first.mention.start]):
        return None
    return first


def _told_of_bracketed(answer: str, f: Finding, findings: list[Finding]) -> bool:
    """Whether the identifier in brackets after ``f``'s phrase names one of the records that give ``f``."""
    named = identifier_told_after(answer, f, findings)
    if named is None:
        return False
    own = {x.record for x in named.facts if x.record is not None}
    return any(r in own for _, r in f.records)


def _inside_record(best: Any, recs: Any) -> bool:
    """Whether one of ``recs`` (pairs of list and record) is an item nested in the record ``best``.

    "Reservation I6M8JQ had flights on 2024-05-09": the date is a value of one of the reservation's flights,
    its own, though another reservation of the same calls holds it at its top (a booking date) (issue 14,
    tau2-bench airline runs of gemini-2.5-flash, h24d).

    >>> _inside_record((20, ()), {((20, ("flights",)), (20, ("flights", 0))), ((-1, ()), (12, ()))})
    True
    >>> _inside_record((20, ()), {((-1, ()), (12, ()))})
    False
    """
    if not isinstance(best, tuple) or len(best) != 2:
        return False
    msg, path = best
    for _, rec in recs:
        if (
            isinstance(rec, tuple)
            and len(rec) == 2
            and rec[0] == msg
            and len(rec[1]) > len(path)
            and tuple(rec[1][: len(path)]) == tuple(path)
        ):
            return True
    return False


# A bracketed list of identifiers that a plural label opens: "(item IDs 7602931732 and 9570044148)".
_PLURAL_IDS = re.compile(r"\((?:item|order|product|tracking)?[ \t]*(?:ids|numbers|nos?\.?)[ \t:]")


def _listed_for_a_named_item(answer: str, f: Finding, findings: list[Finding]) -> bool:
    """Whether ``f`` stands in a bracketed list of identifiers after the names of several items ("return
    the Electric Kettle and the Mechanical Keyboard (item IDs 7602931732 and 9570044148)") and its sentence
    names its own item: the list gives each named item its identifier, in turn, so the item the clause's
    names point to last is not the one it must be (issue 14, h25d). An identifier of an item the sentence
    does not name is still read as usual.
    """
    start = answer.rfind("(", max(f.sentence[0], f.mention.start - 60), f.mention.start)
    if start < 0 or ")" in answer[start : f.mention.start]:
        return False
    if not _PLURAL_IDS.match(lower(answer[start : start + 24])):
        return False
    own = {r for _, r in f.records}
    for g in findings:
        if (
            g is not f
            and g.mention.kind == "entity"
            and g.label == "SUPPORTED"
            and f.sentence[0] <= g.mention.start < start
            and any(r in own for _, r in g.records)
        ):
            return True
    return False


def check_records(
    answer: str,
    findings: list[Finding],
    sentences: list[tuple[int, int]],
    ev: Evidence,
    derived: Deriver,
    *,
    budget: Budget = UNLIMITED,
) -> None:
    """Relabel, in place, values found only in a sibling of the record their clause talks about.

    ``derived`` gets a last word: a value the item's own values give by arithmetic is not a wrong item.
    """
    lookup = RecordLookup(findings, sentences)  # relabelling below changes labels, never positions
    # Identifiers named together ("IC401 (BRU to LYS) & IC733 (LYS to MRS)", the legs of one itinerary)
    # enumerate items: what is said of the first leg (its route in brackets) does not say which item the
    # next one is (issue 14, h22c). Every identifier but the first of such a group is left as it is.
    ids = [g for g in findings if g.mention.kind == "id"]
    joined = (
        {id(g) for group in joined_identifiers(answer, ids) for g in group[1:]} if len(ids) > 1 else set()
    )
    # The answer's amounts indexed once for ``listed_total`` (a fresh index per value was quadratic, h24b);
    # each value relabelled below is noted before the next look-up.
    amounts = AnswerAmounts(answer, findings)
    for at, f in enumerate(findings):
        budget.check("checking which item each value belongs to")
        if f.label != "SUPPORTED" or f.derived or not f.facts or id(f) in joined:
            continue
        recs = f.records
        if not recs or any(x.list_path is None or x.source != "tool" for x in f.facts):
            continue
        if f.mention.kind == "url" and _cites_several(answer, f.sentence):
            continue  # "Sources: [A](url1), [B](url2)": each link cites an item of its own
        if f.mention.kind == "url" and all(_call_argument(x) for x in f.facts):
            # A URL the agent passed to a call (the page it opened) names the result of that call: which
            # item the sentence's names point to does not make it another page's (issue 14, h22a).
            continue
        if _listed_for_a_named_item(answer, f, findings):
            continue
        lists = {lst for lst, _ in recs}
        best = best_record(answer, findings, f, sentences, lists, lookup)
        if (
            best is not None
            and best not in {r for _, r in recs}
            and not _inside_record(best, recs)
            and not _told_of_bracketed(answer, f, findings)
        ):
            # Still fine when the item's own values (and run-level ones such as a number of nights) give it.
            own = ev.numbers_of(best, MAX_OPERANDS)
            m = f.mention
            how = ""
            if m.value is not None:
                operands = [operand(m, x.value, x.unit) for x in own if may_multiply(m, x.unit)]
                addends = [operand(m, x.value, x.unit) for x in own if may_add(m, x.unit)]
                how = derived(m, operands, own, addends)
            if not how and listed_total(f, findings, answer, amounts):
                # "**Total order: $1,527.24**" under the items it adds up: the order's total, whatever
                # item the clause's names point to (issue 14, h18f).
                how = "the total of the amounts the answer lists"
            if how:
                f.facts, f.derived, f.reason = [], True, how
                amounts.relabelled(at)
                continue
            f.label = "CONTRADICTED"
            f.reason = ANOTHER_ITEM
            amounts.relabelled(at)


# What may stand between the values of a bare value list ("Le Marais, 4.7, 110-200", "Olivia Smith: 5"):
# separators and markup, and at most a short field label ending with a colon ("price: 1080").
_LIST_GAP = re.compile(r"[\s,;:()|/*•–-]*(?:[A-Za-z][A-Za-z ]{0,20}:[\s(]*)?")
# The kinds of value an item of a value list is checked for: specific values, not names or words, which
# recur across items ("Paris", "France").
_ITEM_VALUE_KINDS = frozenset(
    {"money", "number", "percent", "quantity", "date", "time", "email", "id", "url"}
)


def _item_names(f: Finding) -> dict[Any, set[Any]]:
    """The records ``f`` is the very name of, by list: a tool string equal to its text (a ``name`` field of a
    list element, the key of a mapping from item names to their values). A string all in lower case is a
    category or a code ("business", "basic_economy") that many items share, not an item's name."""
    if f.mention.kind != "entity" or f.label != "SUPPORTED":
        return {}
    norm = normalize_text(f.mention.text)
    out: dict[Any, set[Any]] = {}
    for x in f.facts:
        if x.kind == "string" and x.source == "tool" and x.list_path is not None and x.value == norm:
            if x.text.islower():
                continue  # a category in lower case ("cabin": "business"), capitalised by the agent
            out.setdefault(x.list_path, set()).add(x.record)
    return out


def _names_a_field(f: Finding, ev: Evidence) -> bool:
    """Whether every word of ``f``'s name is a key of the results' numbers: a category such as a cabin class
    ("Economy ($112), Business ($438)" beside ``prices: {"economy": 112, "business": 438}``), not the name
    of one item. A record that holds the word as a value ("cabin": "economy") is not that item's record."""
    words = normalize_text(f.mention.text).split()
    return bool(words) and all(ev.numbers_keyed(w) for w in words)


# A gap after which a value is no longer the item's: a blank line (a new paragraph), or a field label that
# names a total of the list ("**Total order: $1,527.24**" under the last item of an order's lines).
_PARAGRAPH = re.compile(r"\n[^\S\n]*\n")
_TOTAL_LABEL = re.compile(r"\b(?:sub)?total\b", re.I)


def _ends_item(answer: str, start: int, end: int) -> bool:
    """Whether the gap ``answer[start:end]`` between an item's values and the next value closes the item."""
    return bool(_PARAGRAPH.search(answer, start, end) or _TOTAL_LABEL.search(answer, start, end))


def _value_list_items(
    answer: str, findings: Sequence[Finding], ev: Evidence
) -> list[tuple[Finding, list[Finding]]]:
    """The items of the answer's bare value lists: a name of a record, and the values that follow it up to
    the next such name with nothing but separators or a field label between them. A name of a field of the
    results (a category) opens no item."""
    items: list[tuple[Finding, list[Finding]]] = []
    name: Finding | None = None
    values: list[Finding] = []
    last_end = -1
    for f in findings:
        m = f.mention
        if name is not None and (
            m.kind == "id"
            or not _LIST_GAP.fullmatch(answer, last_end, m.start)
            or _ends_item(answer, last_end, m.start)
        ):
            # An identifier names an item of its own ("- **FQ8APE**: ORD → MIA" on the line after another
            # booking's values): it ends the item before it rather than being one of its values.
            items.append((name, values))
            name, values = None, []
        if _item_names(f) and not _names_a_field(f, ev):
            if name is not None:
                items.append((name, values))
            name, values, last_end = f, [], m.end
            continue
        if name is not None:
            values.append(f)
            last_end = max(last_end, m.end)
    if name is not None:
        items.append((name, values))
    return [(n, vs) for n, vs in items if vs]


def _of_the_container(v: Finding, own_by_list: dict[Any, set[Any]]) -> bool:
    """Whether every record of ``v`` lies in a result that holds the name's own list, outside that list: a
    value of the container (an order's payment or total after the last of its items, "Mechanical
    Keyboard, Smartphone - Refund: $1,429.81"), not of another item (issue 14, h19b). A value in an
    element of the name's own list, or nested in one, stays another item's."""
    lists = [lst for lst in own_by_list if isinstance(lst, tuple) and len(lst) == 2]
    if not lists or not v.records:
        return False
    for _, rec in v.records:
        if not isinstance(rec, tuple) or len(rec) != 2:
            return False
        msg, path = rec
        inside = [lst for lst in lists if lst[0] == msg]
        if not inside or any(tuple(path[: len(lst[1])]) == tuple(lst[1]) for lst in inside):
            return False
    return True


def _nested_in_own(v: Finding, own_by_list: dict[Any, set[Any]]) -> bool:
    """Whether a record of ``v`` lies inside one of the name's own records: a list nested in the very record
    the name names ("Chicago" names the order fetched, "- **Tracking Number:** 8408..." is in that order's
    ``fulfillments``, "8-inch" in its ``items``; issue 14, h20a). Such a value is the item's own, not another
    item's; a value of a sibling record is not inside it.

    >>> v = Finding(Mention("number", 0, 4, "8408", value=8408.0), "SUPPORTED", (0, 4))
    >>> v.facts = [Fact("number", 8408.0, 12, ("fulfillments", 0), (12, ("fulfillments", 0)),
    ...                 (12, ("fulfillments",)))]
    >>> _nested_in_own(v, {(-1, ("tool", "get_order_details")): {(12, ())}})
    True
    >>> _nested_in_own(v, {(-1, ("tool", "get_order_details")): {(10, ())}})
    False
    """
    mine = [r for rs in own_by_list.values() for r in rs if isinstance(r, tuple) and len(r) == 2]
    if not mine:
        return False
    for _, rec in v.records:
        if not isinstance(rec, tuple) or len(rec) != 2:
            continue
        msg, path = rec
        for own_msg, own_path in mine:
            if (
                own_msg == msg
                and len(path) > len(own_path)
                and tuple(path[: len(own_path)]) == tuple(own_path)
            ):
                return True
    return False


def check_value_lists(answer: str, findings: list[Finding], ev: Evidence, derived: Deriver) -> None:
    """Relabel, in place, the pairings of a bare value list that tie an item's name to another item's values.

    Terse answers list an item's name and then its values ("Le Marais Boutique, 4.7, 110-200"), with no
    sentence that ties them (issue 14): the values after a name are that item's. A value found only in
    other records of a list the name has a record of (or, for a number, of a list of items the name is not
    in) belongs to another item. When none of the item's values agree with its name, the name is the odd
    one (a name of another item told with this item's values) and is contradicted, citing its own record's
    values; otherwise each value of another item is. A value the item's own numbers give by arithmetic is
    not another item's.
    """
    # One index of the answer's amounts for ``listed_total``, told of every value relabelled below (a fresh
    # index per value read every finding; h24b).
    amounts = AnswerAmounts(answer, findings)
    at = {id(g): i for i, g in enumerate(findings)}

    def relabelled(g: Finding) -> None:
        i = at.get(id(g))
        if i is not None:
            amounts.relabelled(i)

    for name, values in _value_list_items(answer, findings, ev):
        own_by_list = _item_names(name)
        wrong: list[Finding] = []
        agree = 0
        for v in values:
            # A value check_records already read as another item's is the same evidence as one read so here.
            seen = v.label == "SUPPORTED" or (v.label == "CONTRADICTED" and v.reason == ANOTHER_ITEM)
            if not seen or v.derived or not v.facts or v.mention.kind not in _ITEM_VALUE_KINDS:
                continue
            if any(x.list_path is None or x.source != "tool" for x in v.facts):
                continue
            recs = v.records
            own = set().union(*(own_by_list.get(lst, set()) for lst, _ in recs))
            if (own and any(r in own for _, r in recs)) or _nested_in_own(v, own_by_list):
                agree += 1
                continue
            if not own and v.mention.kind not in ("money", "number", "percent", "quantity"):
                continue
            if not own and _of_the_container(v, own_by_list):
                continue  # "Mechanical Keyboard, Smartphone - Refund: $1,429.81": the order's amount
            if own and _derived_from(v, own, ev, derived):
                continue
            if listed_total(v, findings, answer, amounts):
                continue  # "5. Hiking Boots - $236.57 / **Total order: $1,527.24**": the list's total
            wrong.append(v)
        if not wrong:
            continue
        # One value read as another item's, alone, may be that value's error as well as the name's: it stays
        # the one flagged (check_records); two or more such values make the name the odd one. So does one
        # value whose own item the answer never names: the name told with it stands in for that item's
        # ("- Jigsaw Puzzle: $248.85" for the order's Makeup Kit at that price, issue 14, h20g), where a
        # value copied from a sibling the answer lists is that value's error.
        if len(wrong) == 1 and wrong[0].label == "CONTRADICTED" and _owner_named(answer, wrong[0], ev):
            continue
        if agree == 0:
            name.label = "CONTRADICTED"
            name.reason = "the values listed with this name are another item's"
            # Its own values in the lists the wrong ones come from (its rating for a rating), else any of its.
            lists = {lst for v in wrong for lst, _ in v.records}
            mine = {r for lst in lists for r in own_by_list.get(lst, ())}
            mine = mine or {r for rs in own_by_list.values() for r in rs}
            name.facts = [x for x in ev.numbers if x.record in mine][:3] or name.facts[:3]
            relabelled(name)
            # The name is the one wrong value: the values are right for the item they come from, and so is a
            # number that item's own numbers give by arithmetic (a price for the stay), left unsupported.
            theirs = {r for v in wrong for _, r in v.records}
            for v in values:
                if v.label == "CONTRADICTED" and any(v is w for w in wrong):
                    v.label, v.reason = "SUPPORTED", "a value of the item the list gives (its name is not)"
                    relabelled(v)
                elif (
                    v.label == "UNSUPPORTED"
                    and v.mention.kind in ("money", "number")
                    and _derived_from(v, theirs, ev, derived)
                ):
                    v.label, v.derived = "SUPPORTED", True
                    v.reason = "computed from the values of the item the list gives (its name is not)"
                    relabelled(v)
        else:
            for v in wrong:
                v.label = "CONTRADICTED"
                v.reason = ANOTHER_ITEM
                relabelled(v)


def _owner_named(answer: str, v: Finding, ev: Evidence) -> bool:
    """Whether the answer names an item ``v`` is a value of (the ``name`` of one of its records), or ``v``'s
    items have no name to look for (then the value stays the one blamed)."""
    records = {r for _, r in v.records}
    names = {
        normalize_text(str(x.value))
        for x in ev.strings
        if x.record in records
        and x.source == "tool"
        and isinstance(x.path, tuple)
        and x.path[-1:] == ("name",)
    }
    names.discard("")
    if not names:
        return True
    told = normalize_text(answer)
    return any(re.search(r"(?<!\w)" + re.escape(n) + r"(?!\w)", told) for n in names)


def _derived_from(v: Finding, records: set[Any], ev: Evidence, derived: Deriver) -> bool:
    """Whether the numbers of ``records`` give ``v`` by one step of arithmetic."""
    m = v.mention
    if m.value is None:
        return False
    own = [x for r in records for x in ev.numbers_of(r, MAX_OPERANDS)]
    operands = [operand(m, x.value, x.unit) for x in own if may_multiply(m, x.unit)]
    addends = [operand(m, x.value, x.unit) for x in own if may_add(m, x.unit)]
    return bool(derived(m, operands, own, addends))
