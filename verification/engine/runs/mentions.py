"""Finding the checkable values of a text: money, quantities, dates, times, ids, URLs, names and states.

A mention is the unit a claim is checked on: the span a user would have to fix when it is wrong.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ..text import lower
from .clock import ISO_TIMESTAMP, parse_timestamp, zone_span_after
from .lexicon import (
    COUNT_WORDS,
    CURRENCY_NAMES,
    CURRENCY_SYMBOLS,
    FUNCTION_WORDS,
    ISO_CURRENCIES,
    MAGNITUDES,
    MONTHS,
    NUMBER_WORDS,
    ORDINALS,
    SENTENCE_OPENERS,
    STATE_PHRASES,
    STATUS_WORDS,
    UNIT_WORDS,
    WEEKDAYS,
)

__all__ = ["Mention", "extract_mentions", "forget_function_words", "parse_number"]


@dataclass(slots=True, init=False)
class Mention:
    """One value found in a text, with what is needed to compare it with evidence.

    The constructor is written out rather than generated (``init=False``): compiled with mypyc, a generated
    ``__init__`` stays interpreted Python, and every text read builds mentions. It takes the same parameters,
    in the same order, with the same defaults, as the generated one would (``extra`` defaults to a new dict).
    """

    kind: str  # money percent quantity count number year date time url email id entity state direction score
    # likelihood currency
    start: int
    end: int
    text: str
    value: float | None = None
    unit: str | None = None  # a pint unit name
    noun: str | None = None  # the counted noun after a number ("1,931 reviews")
    currency: str | None = None
    decimals: int = 0
    hedge: str | None = None  # about | more | less | under
    date: tuple[int | None, int | None, int | None, int | None] | None = None  # year, month, day, weekday
    time: tuple[int, int] | None = None
    values: tuple[float, ...] = ()
    strong: bool = True
    sentence_start: bool = False
    extra: dict[str, str] = field(default_factory=dict)

    def __init__(
        self,
        kind: str,
        start: int,
        end: int,
        text: str,
        value: float | None = None,
        unit: str | None = None,
        noun: str | None = None,
        currency: str | None = None,
        decimals: int = 0,
        hedge: str | None = None,
        date: tuple[int | None, int | None, int | None, int | None] | None = None,
        time: tuple[int, int] | None = None,
        values: tuple[float, ...] = (),
        strong: bool = True,
        sentence_start: bool = False,
        extra: dict[str, str] | None = None,
    ) -> None:
        self.kind = kind
        self.start = start
        self.end = end
        self.text = text
        self.value = value
        self.unit = unit
        self.noun = noun
        self.currency = currency
        self.decimals = decimals
        self.hedge = hedge
        self.date = date
        self.time = time
        self.values = values
        self.strong = strong
        self.sentence_start = sentence_start
        self.extra = {} if extra is None else extra


def _trie(words: list[str], not_after: str = "") -> str:
    """A regular expression alternation of ``words`` as a prefix tree, longest match preferred.

    It matches exactly what ``"|".join(sorted(words, key=len, reverse=True))`` matches, but the regex engine
    rejects a position after one character instead of trying every word: these alternations run at every
    position of every text, and the flat form made them the main cost of reading a text.

    ``not_after`` (a character class) matches what ``(?<!not_after)`` before the alternation matches, with the
    test written after each first character (``(?<!not_after.)``): a pattern that opens with a look-behind
    (or ``\\b``) makes the engine try every position of the text, one that opens with a choice of characters
    lets it skip, in C, to the positions where a word can start.

    >>> pat = re.compile(_trie(["kg", "km", "k", "mile", "miles"]))
    >>> [pat.match(w).group(0) for w in ("kgs", "km/h", "kx", "miles")]
    ['kg', 'km', 'k', 'miles']
    >>> [m.group(0) for m in re.finditer(_trie(["on", "one"], not_after=r"\\w"), "one bone, on")]
    ['one', 'on']
    """
    tree: dict[str, Any] = {}
    for w in words:
        node = tree
        for ch in w:
            node = node.setdefault(ch, {})
        node[""] = {}

    def emit(node: dict[str, Any], guard: str) -> str:
        end = "" in node
        branches = [re.escape(ch) + guard + emit(child, "") for ch, child in sorted(node.items()) if ch]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        # Longer words first, the word ending here last: the same preference as a longest-first list.
        return f"(?:{body})?" if end else body

    return "(?:" + emit(tree, f"(?<!{not_after}.)" if not_after else "") + ")"


_WORD_START = re.compile(r"\w")


def _words(words: list[str]) -> str:
    """``\\b(?:word|...)`` as a tree that opens with a choice of characters (see ``_trie``): every word starts
    with a word character, so the ``\\b`` before it is ``(?<!\\w)``."""
    assert all(_WORD_START.match(w) for w in words), words
    return _trie(words, not_after=r"\w")


# A number that must be followed by something (a currency code, "hours", a unit) never starts inside a run of
# digits (``(?<!\d\d)`` after its first character: no digit right after a digit; a sign may follow one, as
# in "1-2 hours"): from every digit of a long run the engine would otherwise
# read to the run's end and fail again, quadratic in the run (48,000 digits took 6 s). A number that starts
# at the run's start reads the same digits, so only a comma-grouped tail of a longer run ("12345,678 USD")
# is no longer taken for "45,678 USD".
# A number: ``-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?``, written to open with a character class. The
# regex engine then skips the positions that cannot start a number in C, where an optional sign first made it
# try every position: the first character ("-" or a digit) is taken, and a look-behind at what was taken picks
# the rest (the sign's number, or the digits after the first). Same matches, same backtracking order.
# A thousands comma may be written as LaTeX's "{,}" ("\\$5{,}700": gpt-oss-120b's arithmetic, h25e).
_NUM_TAIL = (
    r"(?:(?<=-)(?:\d{1,3}(?:(?:,|\{,\})\d{3})+|\d+)|(?<=\d)(?:\d{0,2}(?:(?:,|\{,\})\d{3})+|\d*))(?:\.\d+)?"
)
_NUM = r"[-\d]" + _NUM_TAIL
_MAG = r"(?:\s?(?:thousand|million|billion|trillion|bn|mn|tn)\b|(?<=\d)[kKmMbB]\b)"
_SYMS = sorted(CURRENCY_SYMBOLS, key=len, reverse=True)
_SYM_RE = "(?<![A-Za-z])" + _trie(_SYMS)
_SYM_AT = _trie(_SYMS, not_after="[A-Za-z]")  # _SYM_RE opening with a choice of characters
_CODES = _trie([lower(c) for c in ISO_CURRENCIES])
_HEDGE_WORDS = (
    r"(?:about|around|approximately|roughly|nearly|almost|some|~|just under|just over|"
    r"under|over|more than|less than|fewer than|at least|at most|up to|close to|upwards of|exactly|precisely)"
)


# ``\b(?P<hedge>{_HEDGE_WORDS})\s+$`` as a prefix tree that opens with a choice of characters (``_words``,
# and "~" after a word character, which is what ``\b~`` asks): the flat form tried every word at every
# position of the window, a third of reading a number. Same matches: with the white space to the end after
# it, one hedge at most can match at a position (none is a prefix of another that also ends at a word end).
_HEDGE_TREE = _words(_HEDGE_WORDS[3:-1].replace("~|", "").split("|"))
assert _HEDGE_TREE.startswith("(?:(?:") and _HEDGE_TREE.endswith("))")
_HEDGE_BEFORE = re.compile(rf"(?P<hedge>{_HEDGE_TREE[:-2]}|~(?<=\w.))))\s+$")
# Every match of ``_HEDGE_BEFORE`` is one of these words followed by white space to the end of the window:
# the text before that white space must end with one of them (``str.endswith`` with a tuple, in C), else the
# search would try the prefix tree at every letter of the window in vain.
_HEDGE_SUFFIXES = tuple(_HEDGE_WORDS[3:-1].split("|"))
_UNIT_KEYS = sorted(
    (u for u in UNIT_WORDS if u not in ("c", "f", "in", "m", "s", "h", "l", "g", "mi")), key=len
)
_UNIT_RE = _trie(_UNIT_KEYS)
_SHORT_UNITS = r"m|g|h|s|l|mi|km|kg|mg|ml|f|c"
# What follows a number in a quantity ("million km", " - feet"), without its groups, for a look-ahead.
_UNIT_AFTER = rf"(?:{_MAG})?\s?-?\s?(?:{_UNIT_RE}|(?:{_SHORT_UNITS})\b)(?![\w²])"
# The rest of a number after its first character, read possessively: a number that takes a unit ends where
# its run of digits, commas and points does (nothing a unit or magnitude starts with is one of them), so it
# must read as one number to that end. The look-ahead of the quantity pattern reads this shape instead of
# the whole run: "1.2.1.2..." or "1,1,1,..." fail at their second point or comma, where reading every run
# to its end from each digit was quadratic. A long chain of thousands ("1,111,111,...") still reads to its
# end from each group: where no unit follows the chain, no quantity starts in it, and ``skip`` (see
# ``_SKIP_RUN``) takes it from its head in one step.
_NUMBER_SHAPE = r"(?:\d{0,3}(?:,\d{3})++|\d*+)(?:\.\d++)?+"
assert not any(u[0] in "0123456789.," for u in _UNIT_KEYS)
_MONTH_RE = _trie(list(MONTHS))
_WEEKDAY_RE = _trie(list(WEEKDAYS))
_NUMWORDS = [w for w in NUMBER_WORDS if w not in ("once", "twice")]
_NUMWORD_RE = _trie(_NUMWORDS)
_NUMWORD_AT = _words(_NUMWORDS)  # ``\b(?:{_NUMWORD_RE})``
# ``\b(?:{_NUMWORD_RE}|first|second|...)`` as one tree: the same matches, as the pattern goes on with ``\b``
# and a number word that is a prefix of an ordinal ("six", "sixth") is followed by a letter there.
_COUNT_WORD_AT = _words(_NUMWORDS + list(ORDINALS))

# ``_SKIP_RUN``: the group of the email and id patterns that matches no mention. Each of the two fails at the
# start of a run of its characters for a reason that holds for every later start in the run (an email needs
# the "@" and domain after the run; an id needs a digit and a letter in the rest of the run), but the engine
# tried every word boundary of the run, each try reading to its end: "a.a.a..." 24,000 characters long was
# seconds. Where the pattern failed at a start, ``skip`` takes the rest of a long run in one step, so no match
# changes; the caller drops it.
_SKIP_RUN = "skip"

_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("url", re.compile(r"\bhttps?://[^\s<>()\"']+[^\s<>()\"'.,;:!?]")),
    # ``skip`` (never a mention, see ``_SKIP_RUN``): a long run of address characters where no address starts.
    ("email", re.compile(r"\b(?:[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b|(?P<skip>[\w.+-]{64,}+))")),
    (
        "date",
        re.compile(
            rf"\b(?:(?P<wd>{_WEEKDAY_RE}),?\s+)?(?:(?P<iso>\d{{4}}-\d{{2}}-\d{{2}})"
            rf"|(?P<mon>{_MONTH_RE})\.?\s+(?P<day>\d{{1,2}})(?:st|nd|rd|th)?(?!\d|:\d)(?:,?\s+(?P<yr>\d{{4}}))?"
            rf"|(?P<day2>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<mon2>{_MONTH_RE})(?:,?\s+(?P<yr2>\d{{4}}))?"
            rf"|(?P<mon3>{_MONTH_RE})\s+(?P<yr3>\d{{4}})"
            # US numeric dates, 9/15 and 12/1/2023: month first, as the assistants of US services write them.
            rf"|(?<![\d/.])(?P<mon4>1[0-2]|0?[1-9])/(?P<day4>3[01]|[12]\d|0?[1-9])(?:/(?P<yr4>\d{{4}}))?(?![\d/]))\b",
        ),
    ),
    # ``\b(?P<h>[01]?\d|2[0-3])(?::(?P<m>[0-5]\d))?\s?(?P<ap>...)|\b(?P<h2>[01]?\d|2[0-3]):(?P<m2>...)...``
    # with the hour written once (``m2`` tells the 24-hour form) and opening with its first digit, the ``\b``
    # after it (``(?<!\w.)``) and the rest picked by a look-behind: the engine skips to the digits. The same
    # matches: an hour that ends one form cannot end the other (``:`` or a space or ``a``/``p`` against a
    # digit after it).
    # The start of a range whose end alone carries am/pm ("from 2 to 3pm", "9-11 a.m."): it takes the end's.
    (
        "time",
        re.compile(
            # ``(?<![\w.:/])(?P<h>1[0-2]|0?[1-9])`` opening with the hour's first digit (the look-behind reads
            # the character before it, the rest picked by a look-behind at it, in the same order): the engine
            # skips to the digits instead of trying every position (h20c). Same matches, same groups.
            r"(?P<h>[0-9](?<![\w.:/].)(?:(?<=1)[0-2]|(?<=0)[1-9]|(?<=[1-9])))(?::(?P<m>[0-5]\d))?"
            r"(?=\s?(?:to|until|till|-|–)\s?(?P<eh>1[0-2]|0?[1-9])(?::[0-5]\d)?\s?(?P<ap>[ap]m\b|[ap]\.m\.))",
        ),
    ),
    (
        "time",
        re.compile(
            r"(?P<h>\d(?<!\w.)(?:(?<=[01])\d||(?<=2)[0-3]))"
            r"(?:(?::(?P<m>[0-5]\d))?\s?(?P<ap>[ap]m\b|[ap]\.m\.)|:(?P<m2>[0-5]\d)(?::[0-5]\d)?\b(?!:\d))",
        ),
    ),
    (
        "money",
        re.compile(
            rf"(?:(?P<sym>{_SYM_RE}|\b(?:{_CODES})\s?)(?P<num>{_NUM})(?P<mag>{_MAG})?"
            rf"|(?P<num2>[-\d](?<!\d\d){_NUM_TAIL})(?P<mag2>{_MAG})?\s?(?P<code>\b(?:{_CODES})\b))",
        ),
    ),
    # An hour count opens no number's last group: "1,568 hours" is read whole by ``quantity``, not as "568
    # hours" of minutes (issue 14, h25f).
    (
        "duration",
        re.compile(
            rf"(?P<c>\d(?<![\d.]\d)(?<!\d,\d)\d*)\s+hours?\s+(?:and\s+)?(?P<d>\d+)\s+minutes?"
            rf"|(?P<a>an?|one|{_NUMWORD_RE}|\d(?<![\d.]\d)(?<!\d,\d)\d*(?:\.\d+)?)\s+hours?"
            rf"(?:\s+and\s+(?:a\s+half|(?P<b>\d+|{_NUMWORD_RE})\s+"
            rf"minutes?))?|(?P<half>half an hour)",
        ),
    ),
    # "330 meters": after its first character, a look-ahead checks once that a unit follows the run of digits,
    # commas and points (``_UNIT_AFTER``); without it the engine tried every shorter number, from every digit
    # of a long one, against the unit words. Same matches: a number that can take a unit ends where that run
    # does (no magnitude or unit starts with a digit, comma or point), so the look-ahead holds wherever the
    # pattern matches.
    (
        "quantity",
        re.compile(
            rf"(?P<num>[-\d](?<!\d\d)(?={_NUMBER_SHAPE}{_UNIT_AFTER}){_NUM_TAIL})(?P<mag>{_MAG})?(?:\s?-?\s?)"
            rf"(?P<unit>{_UNIT_RE}|(?:{_SHORT_UNITS})\b)(?![\w²])"
            rf"|(?P<skip>(?<![\d,])[-\d]\d{{0,3}}(?:,\d{{3}}){{8,}}+(?:\.\d++)?+(?!{_UNIT_AFTER}))",
        ),
    ),
    (
        "quantity_words",
        # A spelled-out number is apart from its unit ("five km", "one-hour"): "ones" is no "one s".
        re.compile(
            rf"(?P<num>{_NUMWORD_AT})(?:\s-?\s?|-\s?)(?P<unit>{_UNIT_RE}|(?:{_SHORT_UNITS})\b)(?![\w²])"
        ),
    ),
    # ``(?<![\w.,-])(?P<a>\d{1,2})-...`` opening with the digit, so the engine can skip ahead.
    ("score", re.compile(r"(?P<a>\d(?<![\w.,-].)\d?)-(?P<b>\d{1,2})(?![\w.-])")),
    (
        "id",
        re.compile(
            r"\b(?:(?=[A-Za-z0-9.-]*\d)(?=[A-Za-z0-9.-]*[A-Za-z])[A-Za-z0-9]+(?:[.-][A-Za-z0-9]+)*\b"
            r"|(?P<skip>[A-Za-z.-]{64,}+(?![0-9])|[0-9.-]{64,}+(?![A-Za-z])))"
        ),
    ),
    (
        "number",
        re.compile(
            rf"(?P<num>{_NUM})(?P<mag>{_MAG})?(?P<ord>st|nd|rd|th)?(?:\s?-?\s?(?P<noun>[a-z][a-z]+))?"
        ),
    ),
    (
        "number_words",
        re.compile(rf"(?P<word>{_COUNT_WORD_AT})\b(?:[\s-]+(?P<noun2>[a-z][a-z]+))?"),
    ),
]

_NUMBER_PATTERN = next(pattern for kind, pattern in _PATTERNS if kind == "number")
_DATE_PATTERN = next(pattern for kind, pattern in _PATTERNS if kind == "date")


# Where a date can start: a word that opens with a weekday's or a month's first three letters, or a digit
# followed by what each numeric form needs next (``2024-``, ``9/``, ``15 march``, ``3rd of may``). The date
# pattern opens with ``\b`` and an optional weekday, so the engine tried all of it at every position of a
# text; this pattern opens with a choice of characters (skipped to in C) and finds a superset of the starts,
# where ``_date_matches`` then runs the date pattern itself. Every name is at least three letters long.
def _date_start_pattern() -> re.Pattern[str]:
    assert all(len(name) >= 3 for name in (*MONTHS, *WEEKDAYS))
    tails: dict[str, set[str]] = {}
    for name in sorted({*MONTHS, *WEEKDAYS}):
        tails.setdefault(name[0], set()).add(name[1:3])
    names = "".join(f"|(?<={first})(?:{'|'.join(sorted(rest))})" for first, rest in sorted(tails.items()))
    return re.compile(rf"[\d{''.join(sorted(tails))}](?<!\w.)(?:(?<=\d){_digit_date_tail()}{names})")


def _digit_date_tail() -> str:
    # What follows the first digit of a date: ``2024-``, ``9/``, ``15 march``, ``3rd of may``.
    month_heads = "|".join(sorted({name[:3] for name in MONTHS}))
    return rf"(?:\d{{0,3}}-|\d?/|\d?(?:st|nd|rd|th)?\s+(?:of\s+)?(?:{month_heads}))"


_DATE_START = _date_start_pattern()
# ``_DATE_START``'s digit branch alone: the starts that open with a digit. The letters of the full pattern's
# first class (a weekday's or a month's first letter) are most letters of a text, and the engine entered the
# pattern at each; the starts that open with a name are found from the text's words instead (``_name_starts``,
# h24c).
_DIGIT_DATE_START = re.compile(rf"\d(?<!\w.){_digit_date_tail()}")
# The first three letters of every month and weekday: a name-led date start opens with one.
_NAME_HEADS = frozenset(name[:3] for name in (*MONTHS, *WEEKDAYS))


def _name_starts(low: str, words: set[str]) -> list[int]:
    """Where a word of ``low`` that opens with a month's or a weekday's first three letters stands whole (no
    letter a-z before or after it), in order: every start of ``_DATE_START``'s name branch is one (it opens
    where no word character stands before, with three letters a-z that are a run's first). ``words`` are the
    text's words ``[a-z]+``."""
    starts: list[int] = []
    # Per head, not per word: the words sharing a head ("mon", "monmon", ...) would each be searched
    # through the same text (superlinear on many such words). A run of letters that opens with a head
    # is one of ``words``, so a head where no letter stands before it is such a word's start.
    for head in {word[:3] for word in words} & _NAME_HEADS:
        at = low.find(head)
        while at >= 0:
            if at == 0 or not ("a" <= low[at - 1] <= "z"):
                starts.append(at)
            at = low.find(head, at + 1)
    starts.sort()
    return starts


def _date_matches(low: str, words: set[str] | None = None) -> list[re.Match[str]]:
    """``list(_DATE_PATTERN.finditer(low))``: the date pattern is tried only where ``_DATE_START`` says a
    date can start, in order, and the scan goes on after each match as ``finditer``'s does (a date is never
    empty). ``match`` at a position reads the text before it (``\b``, look-behinds) as the scan does.

    The starts are those of the digit branch (``_DIGIT_DATE_START``) and those of the names
    (``_name_starts``), a superset of the name branch's: a position where the date pattern matches is a
    start of ``_DATE_START``, so trying a few more positions finds the same dates. ``words`` are the text's
    words ``[a-z]+`` (read from ``low`` when not given)."""
    names = _name_starts(low, set(_LETTERS.findall(low)) if words is None else words)
    out: list[re.Match[str]] = []
    pos = 0
    i = 0
    digit = _DIGIT_DATE_START.search(low)
    while True:
        while i < len(names) and names[i] < pos:
            i += 1
        if digit is not None and digit.start() < pos:
            digit = _DIGIT_DATE_START.search(low, pos)
        if digit is None:
            if i == len(names):
                return out
            at = names[i]
        else:
            at = digit.start() if i == len(names) else min(names[i], digit.start())
        m = _DATE_PATTERN.match(low, at)
        if m is None:
            pos = at + 1
        else:
            out.append(m)
            pos = m.end()


# The money pattern without its currency-code forms ("USD 5", "5 usd"), for texts with no code among their
# words: a code matched there is a whole word of letters (a word boundary or a digit, space or sign on each
# side), so it is in the text's words, and without one only the symbol form can match. The code forms are
# most of the pattern's cost: the number-then-code form tries every digit, the code form every word.
_MONEY_SYMBOL = re.compile(rf"(?P<sym>{_SYM_AT})(?P<num>{_NUM})(?P<mag>{_MAG})?")

# Cheap tests that tell which patterns can match at all: most texts need only a few of them.
_LETTERS = re.compile(r"[a-z][a-z]*")  # ``[a-z]+`` opening with its class, so the engine skips to letters
_WORDS_THEN_DIGITS = re.compile(r"[a-z]+(?: [a-z]+)* [0-9]+")
_MONTH_WORDS = frozenset(MONTHS) | frozenset(WEEKDAYS)
_CODE_WORDS = frozenset(lower(c) for c in ISO_CURRENCIES)
_COUNT_WORDS = frozenset(w for w in NUMBER_WORDS if " " not in w) | frozenset(ORDINALS) | {"a", "an", "half"}
_STATE_WORDS = frozenset(re.split(r"[\s-]", p)[0] for p in STATE_PHRASES)
_CURRENCY_WORDS = frozenset(n.split()[0] for n in CURRENCY_NAMES)
# A search for the currency signs (in C) instead of a set of every character of the text.
_SYMBOL_SIGN = re.compile("[$€£¥₹₩₽]")


def _needed(low: str, words: set[str], digits: bool) -> set[str]:
    need = set()
    if "://" in low:
        need.add("url")
    if "@" in low:
        need.add("email")
    if not words.isdisjoint(_MONTH_WORDS) or (digits and ("-" in low or "/" in low)):
        need.add("date")
    if digits and (":" in low or "am" in words or "pm" in words or "m." in low):
        need.add("time")
    if digits and (_SYMBOL_SIGN.search(low) or not words.isdisjoint(_CODE_WORDS) or "fr." in low):
        need.add("money")
    if "hour" in low:
        need.add("duration")  # every form of the pattern has "hour" in it
    if digits:
        need.update(("quantity", "id", "number"))
        if "-" in low:
            need.add("score")
    if not words.isdisjoint(_COUNT_WORDS):
        need.update(("quantity_words", "number_words"))
    return need


# Whole words or phrases, ``\b(?:phrase|...)\b``, as trees (the same matches: see ``_trie``; a longest-first
# list and a tree prefer the same phrase, and the order of ``_DIRECTION_WORDS`` does not matter, as one word
# at most ends where the letters do).
_STATE_RE = re.compile(_words(list(STATE_PHRASES)) + r"\b")
# "There are no nonstop flights available", "no seats left available": a quantifier of none earlier in the
# clause makes "available" say what "not available" says (issue 14: an empty search told as such was read as
# a claim that flights are available, against an "Error: ... not available" of the run).
_NO_BEFORE = re.compile(r"\b(?:no|not any|none of (?:the|them|these|those))\b[^.,;:!?()\n]*$")
_NEGATED_STATE = {"in_stock": "out_of_stock"}
# A state word before a noun of time or cost qualifies that noun ("processing time", "pending charges",
# "delivery window"): it states no status of a record (issue 14, h19b: "- Processing time: 5-7 business
# days" under a cancelled order was read as the order's status "processing").
_OF_A_PROCESS = re.compile(
    r"[ \t]+(?:time|times|fee|fees|period|periods|window|windows|cost|costs|charge|charges|delay|delays"
    r"|deadline|deadlines|speed)\b"
)
# A status word right after a copula or a status marker ("is on hold", "has been shipped", "marked as
# completed", "status: returned"); elsewhere these words mean other things ("the search returned 3 items").
_STATUS_FIRST = frozenset(re.split(r"[\s-]", p)[0] for p in STATUS_WORDS)
# The copulas and markers as a tree that opens with a choice of characters (``_words``), where
# ``\b(?:is|was|...|status(?: is)?:?)`` made the engine try every position of every answer. The same matches:
# the tree prefers longer words ("been" before "be"), and of two markers one a prefix of the other only the
# longer can be followed by the white space ("be" in "been"), or the longer is preferred by both forms
# ("marked as", "status is:").
_COPULAS = ["is", "was", "are", "were", "be", "been", "being", "now", "currently", "still", "already",
            "marked as", "marked", "shows as", "status is:", "status is", "status:", "status"]  # fmt: skip
_STATUS_RE = re.compile(
    _words(_COPULAS) + r"\s+(?:now\s+|currently\s+|still\s+|already\s+|been\s+|being\s+|not\s+)?"
    r"(?P<w>" + _words(list(STATUS_WORDS)) + r")\b"
)
# The first words of the copulas: every match of ``_STATUS_RE`` opens with one (see ``_word_led_matches``).
_COPULA_FIRST = frozenset(c.split()[0].rstrip(":") for c in _COPULAS)


def _word_led_matches(pattern: re.Pattern[str], low: str, firsts: set[str]) -> list[re.Match[str]]:
    """``list(pattern.finditer(low))`` for ``_STATE_RE`` and ``_STATUS_RE``, whose every match opens, where no
    word character stands before it, with a whole word of ``firsts`` (letters a-z, then no letter a-z).

    ``firsts`` holds the words of the text that can open a match (the text's words ``[a-z]+`` among the
    patterns' first words). The patterns open with a choice of letters that most letters of a text pass, so
    ``finditer`` entered the matcher at nearly every letter; here ``str.find`` finds where those words stand
    as whole words, the pattern is matched there (``match`` reads the text before a position as the scan
    does), and the scan goes on after each match as ``finditer``'s does (no match is empty). Same matches.
    """
    starts: list[int] = []
    size = len(low)
    for word in firsts:
        at = low.find(word)
        while at >= 0:
            end = at + len(word)
            if (at == 0 or not ("a" <= low[at - 1] <= "z")) and (end == size or not ("a" <= low[end] <= "z")):
                starts.append(at)
            at = low.find(word, at + 1)
    if not starts:
        return []
    starts.sort()
    out: list[re.Match[str]] = []
    resume = 0
    for at in starts:
        if at < resume:
            continue
        m = pattern.match(low, at)
        if m is not None:
            out.append(m)
            resume = m.end()
    return out


_DIRECTION_WORDS = frozenset({
    "rose", "rise", "rises", "risen", "up", "gained", "gains", "increased", "climbed", "jumped", "higher",
    "grew", "fell", "falls", "fallen", "down", "dropped", "declined", "decreased", "slipped", "lower", "beat",
    "beats", "won", "wins", "defeated", "lost", "loses", "drew",
})  # fmt: skip
_DIRECTION_RE = re.compile(_words(list(_DIRECTION_WORDS)) + r"\b")
# A name never runs over a line break: a heading line and the line under it are two things.
# A hyphen inside a word may be written U+2010 or the non-breaking U+2011 ("Wi‑Fi"): part of the word, as
# "-" is, not a break between two names "Wi" and "Fi" (issue 14, h20j). The narrow no-break space U+202F
# between words ("Option\u202fB", "Basic\u202fEconomy": gpt-oss-120b's text) is a space, as a blank is (h25e).
# (The first word as ``[A-Z&]`` and the rest of a capitalised word picked by a look-behind: the same matches
# as ``(?:[A-Z][\w'’.&\u2010\u2011-]*|&)``, opening with a choice of characters the engine skips to; h20c.)
_ENTITY_RE = re.compile(
    r"[A-Z&](?:(?<=[A-Z])[\w'’.&\u2010\u2011-]*|(?<=&))"
    r"(?:(?:[ \t\u202f]+|[ \t\u202f]*&[ \t\u202f]*)"
    r"(?:(?:of|de|la|del|du|von|van|&)\b|[A-Z][\w'’.&\u2010\u2011-]*))*"
)
# A full stop and white space, not after an initial or a title: ``(?<!\b[A-Z])(?<!\bSt)...\.\s+`` with the
# look-behinds read after the full stop (each one with it), so that the engine skips to the full stops in C
# instead of trying five look-behinds at every position of a name (h22d; the same matches).
_ENTITY_BREAK = re.compile(r"\.(?<!\b[A-Z]\.)(?<!\bSt\.)(?<!\bMr\.)(?<!\bDr\.)(?<!\bMrs\.)\s+")
_LIKELIHOOD_WORDS = frozenset({"likely", "unlikely", "probable", "improbable"})
_LIKELIHOOD_RE = re.compile(_words(list(_LIKELIHOOD_WORDS)) + r"\b")
_CURRENCY_NAME_RE = re.compile(_words(list(CURRENCY_NAMES)) + r"\b")
_HEDGE_MAP = {
    "about": "about", "around": "about", "approximately": "about", "roughly": "about", "nearly": "under",
    "almost": "under", "some": "about", "~": "about", "just under": "under", "just over": "more",
    "under": "less", "over": "more", "more than": "more", "less than": "less", "fewer than": "less",
    "at least": "bound", "at most": "bound", "up to": "bound",
    "exactly": "exact", "precisely": "exact", "close to": "about", "upwards of": "more",
}  # fmt: skip
_NOT_NOUNS = FUNCTION_WORDS | {"and", "or", "to", "per", "on", "in", "at", "a", "from", "with", "of"}

_NON_SPACE = re.compile(r"[^\s]+")
# Words between a count and what it counts ("the 3 most recent emails", "2 unread messages"): the noun
# after them is the counted one.
_MODIFIERS = frozenset({
    "most", "recent", "latest", "new", "newest", "unread", "upcoming", "past", "previous", "last", "next",
    "more", "pending", "active", "other", "additional", "remaining", "top", "oldest", "earliest",
})  # fmt: skip
_NEXT_WORD = re.compile(r"[\s-]+([A-Za-z][a-z]+)")
_TIME_NOUNS = frozenset({
    "second", "seconds", "minute", "minutes", "hour", "hours", "day", "days", "night", "nights", "week",
    "weeks", "month", "months", "year", "years",
})  # fmt: skip


def _counted_noun(text: str, start: int, noun: str | None) -> str | None:
    """The noun a count counts, past up to three modifiers from ``noun`` (which starts at ``start``).

    >>> t = "the 3 most recent emails"
    >>> _counted_noun(t, 6, "most"), _counted_noun(t, 6, None), _counted_noun("2 new", 2, "new")
    ('emails', None, None)
    >>> _counted_noun("in 8 business days", 5, "business"), _counted_noun("3 seats left", 2, "seats")
    ('days', 'seats')
    """
    if noun is None:
        return None
    word, pos = noun, start
    for _ in range(3):
        if lower(word) not in _MODIFIERS:
            # A noun before a unit of time modifies it: "8 business days" counts days, not business.
            nxt = _NEXT_WORD.match(text, pos + len(word))
            if nxt is not None and lower(nxt.group(1)) in _TIME_NOUNS:
                return nxt.group(1)
            return word
        nxt = _NEXT_WORD.match(text, pos + len(word))
        if nxt is None:
            return None
        word, pos = nxt.group(1), nxt.start(1)
    return None if lower(word) in _MODIFIERS else word


# Digits, capitals and digits again ("8WMF4C", "1N99U6"), or digits and four capitals or more ("2FBBAH"):
# codes, not a number and its unit ("100MB", "4C" stay quantities).
# Also a code in capitals whose digits are followed by a letter, twice ("QK7P2M"): "2M" is no quantity.
# ``\b\d+[A-Z]+\d[A-Z0-9]*\b|\b\d+[A-Z]{4,}\b|\b[A-Z]{1,4}\d[A-Z0-9]*\d[A-Z]+\b`` written to open with
# its first character (the ``\b`` before it as ``(?<!\w.)``, the form picked by a look-behind at it), so the
# engine skips in C to the digits and capitals. Same matches, same backtracking order.
_DIGIT_LED_CODE = re.compile(
    r"[\dA-Z](?<!\w.)(?:(?<=\d)\d*[A-Z]+\d[A-Z0-9]*\b|(?<=\d)\d*[A-Z]{4,}\b"
    r"|(?<=[A-Z])[A-Z]{0,3}\d[A-Z0-9]*\d[A-Z]+\b)"
)
# What every match of ``_DIGIT_LED_CODE`` holds: a capital right after a digit (``\d[A-Z]``), written to open
# with the capital, so that the engine skips to the capitals instead of testing the digit category at every
# character (h22d).
_DIGIT_CAPITAL = re.compile(r"[A-Z](?<=\d.)")
_NOT_AN_ID = re.compile(r"\d+(?:st|nd|rd|th)|[\d.,]+[kKmMbB]|\d+-[A-Za-z]+", re.I)
# A source marker a browsing model leaves in its text ("\ue200cite\ue202turn0search0\ue201", its citation
# of its first search result; issue 14, luna dev5): private-use characters around words and numbers of the
# tool's turns. It points at a source; it states no value.
_CITATION_MARKER = re.compile(r"(?:cite|filecite|navlist)?(?:turn\d+[a-z]+\d+)+")
# A code made an adjective by a word that only says "of that kind" ("A4-style", "A4-sized", "USB4-compatible",
# issue 14, luna dev5): the code is the value, the tail no part of it. Lower case only: "X7-Style" may be a
# model's name. The code left must still hold a letter and a digit, as any identifier.
_DESCRIPTOR_TAIL = re.compile(
    r"(?P<code>(?=[A-Za-z0-9.-]*\d)(?=[A-Za-z0-9.-]*[A-Za-z])[A-Za-z0-9.-]*[A-Za-z0-9])"
    r"-(?:style|styled|size|sized|type|like|based|compatible|capable|enabled|equivalent|format|shaped)"
)
_YEAR = re.compile(r"(1[5-9]|20)\d\d")


def parse_number(text: str) -> tuple[float, int]:
    """Parse ``1,234.50`` or a number word into ``(value, decimals)``.

    >>> parse_number("1,234.50"), parse_number("ninety"), parse_number("-2.3")
    ((1234.5, 2), (90.0, 0), (-2.3, 1))
    """
    low = lower(text).strip()
    if low in NUMBER_WORDS:
        return float(NUMBER_WORDS[low]), 0
    if low in ORDINALS:
        return float(ORDINALS[low]), 0
    clean = low.replace("{,}", "").replace(",", "")
    decimals = len(clean.split(".", 1)[1]) if "." in clean else 0
    return float(clean), decimals


def _magnitude(mag: str | None) -> float:
    if not mag:
        return 1.0
    return MAGNITUDES.get(lower(mag.strip()), 1.0)


def _hedge(m: re.Match[str]) -> str | None:
    # Hedges are read backwards from the value: cheaper than an optional prefix on every pattern.
    text = m.string
    a = m.start()
    lo = max(0, a - 24)
    j = a
    while j > lo and text[j - 1].isspace():
        j -= 1
    if j == a or not text.endswith(_HEDGE_SUFFIXES, lo, j):
        return None  # no white space before the value, or no hedge word before the white space
    found = _HEDGE_BEFORE.search(text, lo, a)
    hedge = _HEDGE_MAP.get(lower(found.group("hedge"))) if found else None
    return None if hedge == "bound" else hedge


def _pictograph(c: str) -> bool:
    """Whether ``c`` is an emoji or another pictographic symbol (or the joiner and selector that build them).

    >>> _pictograph("\U0001f389"), _pictograph("\u2713"), _pictograph("\u2192"), _pictograph("A")
    (True, True, False, False)
    """
    return c in "\u200d\ufe0f" or (c > "\u2000" and unicodedata.category(c) == "So")


def _emoji_exclamation(text: str, a: int, b: int) -> bool:
    """Whether the word ``text[a:b]`` is a one-word exclamation or label after an emoji that opens its line
    or sentence ("\U0001f389 **Success!** Your address ...", "\u2705 Done."): the emoji decorates an ordinary
    word, not a name (issue 14, h22b). A name after an emoji inside a sentence, or one a sentence goes on
    from ("\u2708\ufe0f Lufthansa operates ..."), stays a name.

    >>> t = "\U0001f389 **Success!** Your address is saved."
    >>> _emoji_exclamation(t, 4, 11), _emoji_exclamation("We \u2705 Done!", 5, 9)
    (True, False)
    >>> _emoji_exclamation("\u2708\ufe0f Lufthansa operates it.", 3, 12)
    False
    """
    k = b
    while k < len(text) and text[k] in "*_":
        k += 1
    if k >= len(text) or text[k] not in "!.:":
        return False
    i = a - 1
    while i >= 0 and text[i] in "*_ \t":
        i -= 1
    if i < 0 or not _pictograph(text[i]):
        return False
    while i >= 0 and (_pictograph(text[i]) or text[i] in " \t"):
        i -= 1
    return _sentence_start(text, i + 1)


def _sentence_start(text: str, pos: int) -> bool:
    """Whether ``pos`` opens a sentence: only white space, or a sentence mark, before it.

    >>> _sentence_start("Done. Paris", 6), _sentence_start("in Paris", 3), _sentence_start("a - B", 4)
    (True, False, True)
    >>> _sentence_start("- L2H5FP\\n\\nLet me know", 10)
    True
    >>> _sentence_start("2. **Partial Upgrade:** Consider", 24), _sentence_start("**Paris** Lyon", 10)
    (True, False)
    >>> _sentence_start("1. **Wait for it**", 5), _sentence_start("we **Wait**", 5)
    (True, False)
    >>> _sentence_start("3. **Start the transfer.** Gather it", 27), _sentence_start("**Paris.** Lyon", 11)
    (True, True)
    """
    # Walks back over the white space instead of copying and stripping the text before ``pos``. A line
    # break in it opens a sentence too: the line before may be a list item or a heading without a full stop
    # ("- L2H5FP\n\nLet me know"), and the word after it is the first of a new sentence (issue 14).
    i = pos - 1
    while i >= 0 and text[i].isspace():
        if text[i] == "\n":
            return True
        i -= 1
    if i < 0:
        return True
    # A label in bold or italics ends with its colon inside the marks: "2. **Partial Upgrade:** Consider
    # upgrading ..." opens a sentence as "Partial Upgrade: Consider" would (issue 14: the imperative after a
    # bold label was read as a name).
    j = i
    while j >= 0 and text[j] in "*_":
        j -= 1
    if j < i and j >= 0 and text[j] in ":.!?":
        # The same for a sentence that ends inside the marks: "3. **Start the transfer.** Gather the signed
        # title" opens a sentence at "Gather" (issue 14, luna dev5: the imperative was read as a name).
        return True
    if j < i and (j < 0 or text[j].isspace()):
        # Opening marks: the word opens what the marks open. "1. **Wait for delivery** - ..." and "- **Keep
        # the order as is**" start their items with an imperative, as "1. Wait" would (issue 14, h19b: the
        # first word of a bold option was read as a name).
        return _sentence_start(text, j + 1)
    # A dash or bullet after a space or at the very start opens an item: "a - B", "- Departure: 18:00".
    return text[i] in '.!?:;"“(' or (text[i] in "-•" and (i == 0 or text[i - 1].isspace()))


def extract_mentions(text: str, names: bool = True) -> list[Mention]:
    """Find the checkable values of ``text``, longest and most specific first, without overlaps.

    ``names=False`` skips what is read last (likelihood and direction words, names): the evidence builder
    needs only values and states, and the other mentions are the same either way.

    >>> [(m.kind, m.text) for m in extract_mentions("It was built in 1889 and is 330 meters tall in Paris.")]
    [('year', '1889'), ('quantity', '330 meters'), ('entity', 'Paris')]
    >>> extract_mentions("It costs $1.2 billion.")[0].value
    1200000000.0
    >>> [(m.kind, m.text) for m in extract_mentions("Reservations 8WMF4C and 2FBBAH.")]
    [('entity', 'Reservations'), ('id', '8WMF4C'), ('id', '2FBBAH')]
    """
    # Patterns run on lower-cased text (much faster than IGNORECASE); surfaces come from the original.
    low = lower(text)
    if len(low) != len(text):
        low = text
    # A byte per character, set once a mention covers it: ``taken.find(1, a, b) < 0`` tells that [a, b) is
    # free (a search in C, no slice). Plain code and a module function rather than closures: compiled, a
    # closure becomes an environment object and every call goes through it.
    taken = bytearray(len(text))
    out: list[Mention] = []
    words = set(_LETTERS.findall(low))
    need = _needed(low, words, any(map(str.isdigit, low)))
    if "id" in need and len(low) <= 64 and _WORDS_THEN_DIGITS.fullmatch(low):
        # Words then a number ("Kestrel Garnet 3", a product name in a tool result): nothing follows the
        # digits, so no unit can (no quantity), and no token mixes letters and digits (no id): the two scans
        # would find nothing.
        need.discard("quantity")
        need.discard("id")
        if (
            not names
            and len(need) == 1
            and words.isdisjoint(_CURRENCY_WORDS)
            and words.isdisjoint(_STATE_WORDS)
        ):
            # Then only the number pattern runs (``need`` holds "number"): its matches neither overlap nor
            # come out of order, so the bookkeeping of overlaps and the final sort would change nothing.
            return _numbers_only(low, text)
    if "date" in need and "time" in need:
        _timestamps(text, taken, out)
    if "date" in need and not words.isdisjoint(_MONTH_WORDS):
        _day_ranges(low, text, taken, out)
    if "id" in need:
        # A code in capitals that starts with digits ("8WMF4C", "2FBBAH", a booking reference) is one
        # identifier: read first, so that no number ("8") or quantity ("4C", 4 degrees) is cut out of it.
        # Every such code holds a digit right before a capital (a test that skips to the capitals in C).
        for m in _DIGIT_LED_CODE.finditer(text) if _DIGIT_CAPITAL.search(text) else ():
            _take(taken, out, Mention("id", m.start(), m.end(), m.group(0)))
        if names and "_" in text:
            # The answer's codes only: the results' codes are matched as text ("literal"), and their keys
            # ("payment_status") would make every tool text pay for the scan.
            _snake_codes(text, taken, out)
    if "number" in need and "." in low:
        _dotted_phones(text, taken, out)
    for kind, pattern in _PATTERNS:
        if kind not in need:
            continue
        if kind == "money" and words.isdisjoint(_CODE_WORDS):
            pattern = _MONEY_SYMBOL  # the same matches when no currency code can match
        found: Iterable[re.Match[str]]
        found = _date_matches(low, words) if kind == "date" else pattern.finditer(low)
        for m in found:
            a, b = m.span()
            if a == b or taken.find(1, a, b) >= 0 or m.lastgroup == _SKIP_RUN:
                continue
            mention = _build(kind.removesuffix("_words"), m, text)
            if mention is not None:
                if kind == "time":
                    _with_zone(text, taken, mention)
                _take(taken, out, mention)
    for m in _CURRENCY_NAME_RE.finditer(low) if not words.isdisjoint(_CURRENCY_WORDS) else ():
        if taken.find(1, m.start(), m.end()) < 0:
            _take(
                taken,
                out,
                Mention(
                    "currency",
                    m.start(),
                    m.end(),
                    text[m.start() : m.end()],
                    currency=CURRENCY_NAMES[m.group(0)],
                ),
            )
    for m in _word_led_matches(_STATE_RE, low, words & _STATE_WORDS):
        if taken.find(1, m.start(), m.end()) < 0:
            if _OF_A_PROCESS.match(low, m.end()):
                continue  # "Processing time: 5-7 business days" names a duration, not a status
            state = STATE_PHRASES[m.group(0)]
            if state == "open" and _verb_open(text, m.end()):
                continue
            if state in _NEGATED_STATE and _NO_BEFORE.search(low, max(0, m.start() - 60), m.start()):
                state = _NEGATED_STATE[state]
            _take(
                taken,
                out,
                Mention("state", m.start(), m.end(), text[m.start() : m.end()], extra={"state": state}),
            )
    if not names:
        out.sort(key=_start_of)
        return out
    statuses = not words.isdisjoint(_STATUS_FIRST)
    for m in _word_led_matches(_STATUS_RE, low, words & _COPULA_FIRST) if statuses else ():
        a, b = m.span("w")
        if taken.find(1, a, b) < 0 and "not" not in low[m.start() : a].split():
            word = m.group("w")
            _take(taken, out, Mention("state", a, b, text[a:b], extra={"state": STATUS_WORDS[word]}))
    for m in _LIKELIHOOD_RE.finditer(low) if not words.isdisjoint(_LIKELIHOOD_WORDS) else ():
        if taken.find(1, m.start(), m.end()) < 0:
            likely = m.group(0) in ("likely", "probable")
            _take(
                taken,
                out,
                Mention(
                    "likelihood", m.start(), m.end(), text[m.start() : m.end()], extra={"likely": str(likely)}
                ),
            )
    for m in _DIRECTION_RE.finditer(low) if not words.isdisjoint(_DIRECTION_WORDS) else ():
        if taken.find(1, m.start(), m.end()) < 0:
            _take(
                taken,
                out,
                Mention(
                    "direction", m.start(), m.end(), text[m.start() : m.end()], extra={"word": m.group(0)}
                ),
            )
    for m in _ENTITY_RE.finditer(text):
        if m.start() >= 6 and text.startswith("\\text{", m.start() - 6):
            continue  # a LaTeX formula's word ("\\text{New amount due}"): a label of the working, no name
        pos = m.start()
        for part in _ENTITY_BREAK.split(m.group(0)):
            at = text.index(part, pos)
            pos = at + len(part)
            for ent in _entities(text, at, part):
                if taken.find(1, ent.start, ent.end) >= 0:
                    # Keep the free head of a name whose tail is a code already read ("Odyssey G7").
                    cut = next(i for i in range(ent.start, ent.end) if taken[i])
                    head = text[ent.start : cut].rstrip()
                    shrunk = _entities(text, ent.start, head) if head else []
                    if not shrunk or taken.find(1, shrunk[0].start, shrunk[0].end) >= 0:
                        continue
                    ent = shrunk[0]
                _take(taken, out, ent)
    out.sort(key=_start_of)
    return out


# What follows "open" the verb: an object ("Open the app", "open your account") or, capitalised, the name
# of what is opened ("Open Xfinity Assistant"). Opening hours name days and times after it instead.
_OPENED_OBJECT = re.compile(
    r"[ \t]+(?:(?:the|a|an|your|my|our|their|his|her|its|this|that|these|those|any|each|it|them|up)\b"
    r"|(?!(?i:daily|now|today|tonight|late|until|till|every|all|from|on|at|and|or|for|hours)\b)[A-Z][a-z])",
)
_NEXT_NAME = re.compile(r"[ \t]+([A-Z][a-z]+)")
_OPEN_FIRST: dict[str, None] = {
    w.capitalize(): None
    for w in (*MONTHS, *WEEKDAYS, "mon", "tue", "tues", "wed", "thu", "thur", "thurs", "fri", "sat", "sun")
}


def _verb_open(text: str, end: int) -> bool:
    """Whether the "open" that ends at ``end`` is the verb (an action of a how-to) rather than a state.

    >>> [_verb_open(t, 4) for t in ("Open the Tesla app.", "Open Xfinity Assistant.", "Open Monday to Friday",
    ...  "open until 5 pm", "Open Daily", "Open Mon-Fri")]
    [True, True, False, False, False, False]
    """
    m = _OPENED_OBJECT.match(text, end)
    if m is None:
        return False
    name = _NEXT_NAME.match(text, end)
    return name is None or name.group(1) not in _OPEN_FIRST


# What every ISO timestamp holds: "-" month "-" day, "T" or a space, the hour and ":". ``ISO_TIMESTAMP``
# opens with a look-behind, which the engine tries at every position of the text; this one opens with a
# hyphen, which it finds in C (h22d). A text without it has no timestamp.
_ISO_DAY_TIME = re.compile(r"-\d{2}-\d{2}[T ]\d{2}:")


def _timestamps(text: str, taken: bytearray, out: list[Mention]) -> None:
    """Read the ISO timestamps of ``text`` ("2026-07-12T09:10:00+01:00") as a date and a time of day.

    The general patterns read them wrong: the date pattern stops at the ``T`` (no word boundary there) and
    the offset "01:00" looks like a clock time, so a written "12 July 2026 at 09:10" found neither. The time
    mention covers the seconds and the offset and keeps the whole stamp (``extra["iso"]``): the evidence
    builder takes the instant from it, for times an answer converts to another zone.
    """
    if _ISO_DAY_TIME.search(text) is None:
        return
    for m in ISO_TIMESTAMP.finditer(text):
        a, b = m.span()
        parsed = parse_timestamp(m)
        if parsed is None or taken.find(1, a, b) >= 0:
            continue
        (y, mo, d), hm, _ = parsed
        _take(taken, out, Mention("date", a, a + 10, text[a : a + 10], date=(y, mo, d, None)))
        _take(taken, out, Mention("time", a + 11, b, text[a + 11 : b], time=hm, extra={"iso": m.group(0)}))


# A range of days in one month, written once: "June 26–27, 2026", "Jun 16-30", "26–27 June 2026",
# "3 to 5 March". Read by the date pattern alone, "June 26" takes no year and "27" and "2026" are left as a
# bare number and a year that nothing gives. Two days of one month joined by "and" or "or" ("for May 28 and
# 29, 2024", gemini-2.5-flash on tau2-bench airline runs, issue 14, h24d) share the month the same way.
_DASH = r"\s?(?:[-–—]|to|through|until|till|and|or|&)\s?"
_DAY = r"3[01]|[12]\d|0?[1-9]"
_ORD = r"(?:st|nd|rd|th)?"
_DAY_RANGE = re.compile(
    rf"\b(?:(?P<mon>{_MONTH_RE})\.?\s+(?P<a>{_DAY}){_ORD}{_DASH}(?P<b>{_DAY}){_ORD}(?![\d:])"
    rf"(?:,?\s+(?P<yr>\d{{4}}))?"
    rf"|(?P<a2>{_DAY}){_ORD}{_DASH}(?P<b2>{_DAY}){_ORD}\s+(?:of\s+)?(?P<mon2>{_MONTH_RE})(?:,?\s+(?P<yr2>\d{{4}}))?)\b"
)

# What every range of days holds, in both of its forms: a day's last digit, its ordinal suffix, the dash or
# word between the days, and the next day's first digit. ``_DAY_RANGE`` opens with ``\b``: the engine tries
# it at every position of the text; this one opens with a digit and is skipped to the digits in C.
_DAY_DASH_DAY = re.compile(rf"\d{_ORD}{_DASH}\d")


# The joining word of two days that is also the joining word of two phrases ("and", "or"), and a word after
# the second number that makes it a count of things rather than a day: only a year, punctuation, the end, or
# a preposition may follow a day joined that way.
_JOINED_DAYS = re.compile(r"\s?(?:and|or|&)\s")
_COUNTED_AFTER = re.compile(
    r"(?:st|nd|rd|th)?\s+(?!(?:in|at|on|for|from|to|with|and|or|respectively)\b)[a-z]"
)


def _day_ranges(low: str, text: str, taken: bytearray, out: list[Mention]) -> None:
    """Read a range of days in one month ("June 26–27, 2026") as two dates that share the month and year.

    Each day keeps its own span (the first day with the month, the last with the year), so a wrong end of
    the range is the span flagged. A range must run forward ("June 27–26" is left to the other patterns).
    """
    if _DAY_DASH_DAY.search(low) is None:
        return
    for m in _DAY_RANGE.finditer(low):
        if taken.find(1, m.start(), m.end()) >= 0:
            continue
        first_mon = m.group("mon") is not None
        mon_group = "mon" if first_mon else "mon2"
        mon_word = m.group(mon_group)
        if mon_word in ("may", "mar") and not text[m.start(mon_group)].isupper():
            continue  # "may 5-7" is a verb before a range more often than a date
        a, b = (m.group("a"), m.group("b")) if first_mon else (m.group("a2"), m.group("b2"))
        yr = m.group("yr") if first_mon else m.group("yr2")
        if int(a) >= int(b):
            continue
        if first_mon and _JOINED_DAYS.match(low, m.end("a")) and _COUNTED_AFTER.match(low, m.end("b")):
            continue  # "on May 2 and 3 passengers": a count after "and", not a second day
        mo = MONTHS[mon_word]
        year = int(yr) if yr else None
        if first_mon:
            cut_a, cut_b = m.end("a"), m.start("b")
        else:
            cut_a, cut_b = m.end("a2"), m.start("b2")
        while cut_a < cut_b and text[cut_a].isalpha():
            cut_a += 1  # keep an ordinal suffix with its day: "26th"
        start, end = m.start(), m.end()
        _take(taken, out, Mention("date", start, cut_a, text[start:cut_a], date=(year, mo, int(a), None)))
        _take(taken, out, Mention("date", cut_b, end, text[cut_b:end], date=(year, mo, int(b), None)))


# A phone number written with dots ("866.346.5800", "800.288.2020"): its three groups of digits, as the same
# number written with hyphens or spaces reads, not a decimal ("866.346") and a number (issue 14, h22a).
# Opening with its first digit (the look-behind then reads the character before it), so the engine skips to
# the digits in C instead of trying every position of a text.
_DOTTED_PHONE = re.compile(r"\d(?<![\w.]\d)\d\d\.\d{3}\.\d{4}(?!\w|\.\d)")
# What every match of ``_DOTTED_PHONE`` holds after its first three digits: it opens with the full stop, which
# the engine skips to, where the phone pattern tests every digit of the text (h24c).
_DOTTED_TAIL = re.compile(r"\.\d{3}\.\d{4}")


def _dotted_phones(text: str, taken: bytearray, out: list[Mention]) -> None:
    """Read each phone number written with dots as its three groups of digits.

    >>> out: list[Mention] = []
    >>> _dotted_phones("Phone: 866.346.5800.", bytearray(20), out)
    >>> [(m.kind, m.text, m.value) for m in out]
    [('number', '866', 866.0), ('number', '346', 346.0), ('number', '5800', 5800.0)]
    """
    for m in _DOTTED_PHONE.finditer(text) if _DOTTED_TAIL.search(text) else ():
        a = m.start()
        if taken.find(1, a, m.end()) >= 0:
            continue
        for b in (a + 3, a + 7, a + 12):
            start = b - (4 if b == a + 12 else 3)
            _take(taken, out, Mention("number", start, b, text[start:b], value=float(text[start:b])))


# An identifier written in snake case with a digit ("pay_20260708_E1042", "pr_20260708_01"): one code, not
# numbers and a one-letter name (issue 14, h22a). It opens with a letter, the look-behind then reading the
# character before it: inside a word it fails at once, so a long run of letters costs one step per character.
_SNAKE_CODE = re.compile(r"[A-Za-z](?<![\w-][A-Za-z])[A-Za-z0-9]*(?:_[A-Za-z0-9]+)+(?![\w-])")


def _snake_codes(text: str, taken: bytearray, out: list[Mention]) -> None:
    """Read each snake-case code with a digit as one identifier.

    >>> out: list[Mention] = []
    >>> _snake_codes("reverse `pay_20260708_E1042` and lost_property", bytearray(46), out)
    >>> [(m.kind, m.text) for m in out]
    [('id', 'pay_20260708_E1042')]
    """
    for m in _SNAKE_CODE.finditer(text):
        a, b = m.span()
        if taken.find(1, a, b) < 0 and any(ch.isdigit() for ch in m.group(0)):
            _take(taken, out, Mention("id", a, b, m.group(0)))


def _with_zone(text: str, taken: bytearray, m: Mention) -> None:
    """Widen the clock time ``m`` over the zone name written after it ("3:42 PM PDT", "9:30 AM (Pacific
    Time)") and note the zone.

    The zone belongs to the time: it is what an answer converting a time of the results writes, and read
    alone it is a name that no result spells out.
    """
    found = zone_span_after(text, m.end)
    if found is None:
        return
    zone, end = found
    if taken.find(1, m.end, end) >= 0:
        return
    m.end = end
    m.text = text[m.start : end]
    m.extra = {**m.extra, "zone": zone}


def _start_of(m: Mention) -> int:
    # A module function rather than a lambda: compiled, a lambda is an object built on every call.
    return m.start


def _numbers_only(low: str, text: str) -> list[Mention]:
    """What :func:`extract_mentions` finds in ``text`` when only the number pattern can match."""
    out: list[Mention] = []
    for m in _NUMBER_PATTERN.finditer(low):
        a, b = m.span()
        if a == b:
            continue
        mention = _build("number", m, text)
        if mention is not None:
            out.append(mention)
    return out


def _take(taken: bytearray, out: list[Mention], m: Mention) -> None:
    """Keep ``m`` and mark its characters taken."""
    taken[m.start : m.end] = b"\x01" * (m.end - m.start)
    out.append(m)


def _function_word(word: str) -> bool:
    """Whether ``word`` is a function word, a pronoun's contraction or a reply opener ("I’ve", "Okay,").

    >>> _function_word("I’ve"), _function_word("Okay,"), _function_word("Paris")
    (True, True, False)
    """
    known = _FUNCTION_WORD_MEMO.get(word)
    if known is None:
        if len(_FUNCTION_WORD_MEMO) >= _FUNCTION_WORD_MEMO_MAX:
            _FUNCTION_WORD_MEMO.clear()  # bounded: a long-lived process meets unbounded vocabularies
        known = _FUNCTION_WORD_MEMO[word] = lower(word).replace("’", "'").strip(".,'&!;") in FUNCTION_WORDS
    return known


# The answer's words recur across its names and headings (and across answers): one look-up per word.
_FUNCTION_WORD_MEMO: dict[str, bool] = {}
_FUNCTION_WORD_MEMO_MAX = 8192


def forget_function_words() -> None:
    """Empty the memo of :func:`_function_word` (cold-cache measurements; results do not change)."""
    _FUNCTION_WORD_MEMO.clear()


def _entities(text: str, start: int, phrase: str) -> list[Mention]:
    # Trim function words and punctuation at both ends; a phrase of function words only is not a name.
    words = list(_NON_SPACE.finditer(phrase))
    while words and (_function_word(words[0].group(0)) or words[0].group(0) == "&"):
        words.pop(0)
    if (
        len(words) >= 2
        and lower(words[0].group(0)) in SENTENCE_OPENERS
        and _sentence_start(text, start + words[0].start())
    ):
        # "Ask Air New Zealand whether ...", "Contact EE and ...", "Once EE confirms ...": an imperative or a
        # conjunction opening the sentence is capitalised as the first word, not as part of the name after
        # it (issue 14, h20j).
        words.pop(0)
    while words and (_function_word(words[-1].group(0)) or words[-1].group(0) == "&"):
        words.pop()
    if not words:
        return []
    a = start + words[0].start()
    b = start + words[-1].end()
    # A name whose first capital follows lower-case letters of the same word ("eTags", "iPhone", "eBay") is
    # the whole word: read from the capital it was "Tags", a name no text of the run has (issue 14, luna
    # dev5: "through eTags as a document-processing service" after an eTags page).
    while a > 0 and a == start + words[0].start() and text[a - 1].islower():
        k = a - 1
        while k > 0 and text[k - 1].isalpha() and text[k - 1].islower():
            k -= 1
        if k > 0 and (text[k - 1].isalnum() or text[k - 1] in "_'’"):
            break
        a = k
    while b > a and text[b - 1] in ".,;:'’&-":
        b -= 1
    if text[b - 2 : b] in ("'s", "’s"):
        b -= 2
    surface = text[a:b]
    if not surface or lower(surface) in MONTHS or lower(surface) in WEEKDAYS:
        return []
    if not any(c.isupper() for c in surface):
        return []
    n_words = len(surface.split())
    at_start = _sentence_start(text, a)
    # A capitalised single word that opens a sentence is usually an ordinary word ("Latest", "Sprint").
    strong = (
        not (at_start and n_words == 1 and not surface.isupper())
        and not _heading(text, a, b)
        and not (n_words == 1 and _emoji_exclamation(text, a, b))
    )
    return [Mention("entity", a, b, surface, strong=strong, sentence_start=at_start)]


_MARKUP = "#*_>-+• \t"
# A bold label opening a line or a list item and ending with a colon, inside the bold or right after it.
_BOLD_LABEL = re.compile(
    r"[ \t]*(?:[-+•>][ \t]*)?(?:\d{1,2}[.)][ \t]*)?(\*\*|__)([^*_\n]+?:|[^*_\n]+?(?=\1[ \t]*:))\1"
)
# The number of a list item or of an option: "1.", "2)", or a bare "3" before a colon.
# A digit run glued to a word by an underscore, before it ("garcia_1905") or after it ("1905_b").
_SNAKE_GLUED = re.compile(r"[A-Za-z0-9]_\d")
_SNAKE_GLUED_AFTER = re.compile(r"_[A-Za-z0-9]")
_ITEM_NUMBER = re.compile(r"^\d{1,2}(?:[.)](?=\s|$)|(?=\s*[*_]*\s*:))")


def _only_function_words(words: str) -> bool:
    """``all(_function_word(w) for w in words.split())``, read from the end.

    The word right before a name is the one most likely to be no function word: read backwards, a name in
    the middle of a long line is settled at that word instead of after splitting the whole line before it.
    """
    rest = words
    while True:
        parts = rest.rsplit(None, 1)
        if not parts:
            return True
        if not _function_word(parts[-1]):
            return False
        if len(parts) == 1:
            return True
        rest = parts[0]


def _heading(text: str, a: int, b: int) -> bool:
    r"""Whether ``text[a:b]`` is a heading or a field label rather than a name the text asserts.

    A heading is a line of its own in a longer text, set off by markup (``## Summary``, ``**Total Cost**``)
    or ending with a colon (``Flight details:``); a field label opens its line, is set off by markup and
    followed by a colon (``**Flight Duration:** 5 hours``). Such words title what follows; the values
    after them are the claims. A name in one is still checked when the evidence has it (``strong`` off).

    >>> t = "**Summary**\n\nYour order shipped."
    >>> _heading(t, 2, 9), _heading("## Next Steps\nCall us.", 3, 13), _heading("**Total Cost:** $45", 2, 12)
    (True, True, True)
    >>> _heading("**Summary**", 2, 9), _heading("We fly to Paris: it is lovely.", 10, 15)
    (False, False)
    >>> _heading("Olivia Smith: 4", 0, 12)
    False
    >>> t = "Options:\n\n1. **Flight Option 1:**\n   - HAT229\n2. **Keep the Current Setup**: keep it."
    >>> _heading(t, 15, 28), _heading(t, 51, 73)
    (True, True)
    >>> _heading("Go:\n### Outbound Flight (JFK to SEA)\n- HAT1", 8, 23)
    True
    >>> _heading("Go:\n**Outbound Journey - May 20**\n- HAT1", 6, 22), _heading("**Paris - 22 C**", 2, 7)
    (True, False)
    """
    line_start = text.rfind("\n", 0, a) + 1
    line_end = text.find("\n", b)
    if line_end < 0:
        line_end = len(text)
    label = _BOLD_LABEL.match(text, line_start, line_end)
    if label is not None and label.start(2) <= a and b <= label.end(2):
        # Inside a bold label that ends with a colon, opening its line or its item: "**Keep the Current
        # Setup**: you can ...", "2. **Flight Option 2:**". The words after the colon are the claims.
        return True
    # A numbered item's marker ("1. **Flight Option 1:**") is markup like a bullet.
    opening = _ITEM_NUMBER.sub("", text[line_start:a].strip(_MARKUP), count=1).strip(_MARKUP)
    if not _only_function_words(opening):
        return False  # the name does not open its line (function words before it are part of the title)
    if text[line_start:a].lstrip(" \t").startswith("#"):
        # A Markdown heading titles what follows, whatever comes after the name on its line
        # ("### Outbound Flight (JFK to SEA)"); the codes in it are read as values of their own.
        return True
    line = text[line_start:line_end].strip()
    inner = line[2:-2]
    if (
        len(line) > 4
        and line[:2] in ("**", "__")
        and line[-2:] == line[:2]
        and line[:2] not in inner
        and (text[:line_start].strip() or text[line_end:].strip())
    ):
        # A line that is one bold span, in a longer text, titles what follows like a Markdown heading
        # ("**Outbound Journey - May 20**"): the values in it are read on their own (issue 14).
        return True
    # The number of an item between the label and its colon ("**Option 2:**", "Flight 3:").
    after = _ITEM_NUMBER.sub("", text[b:line_end].lstrip("*_ \t"), count=1).lstrip("*_ \t")
    if after.startswith(":"):
        # A heading line ending with a colon, or a label set off by markup ("**Total Cost:** $45"). A plain
        # "Olivia Smith: 4" may be an item and its value: the name stays a claim.
        return not after[1:].strip() or "**" in text[line_start:a] or "__" in text[line_start:a]
    if after.strip():
        return False
    if not text[:line_start].strip() and not text[line_end:].strip():
        return False  # the whole text: a bare answer ("**Paris**") is the claim itself
    # A line of its own: a heading when markup sets it off (a list item "- Paris" is a value, not a title).
    line = text[line_start:line_end].strip()
    return line.startswith("#") or (line.startswith(("**", "__")) and line.endswith(("**", "__")))


# An ordinal joined to a word into an adjective ("third-party site", "first-class seat", "second-hand").
_ORDINAL_COMPOUND = re.compile(r"-(?:party|class|hand|rate|person)\b", re.I)
# A number followed by a letter in brackets: a section of a law that names a plan ("401(k)", "403(b)").
_SECTION_LETTER = re.compile(r"\([a-z]\)")


def _private_use_at(text: str, a: int, b: int) -> bool:
    """Whether a character of Unicode's private-use area touches ``text[a:b]``: such characters delimit a
    model's source markers, which no reader sees as text.

    >>> _private_use_at("end. \ue200cite\ue202turn0search0\ue201", 11, 25)
    True
    >>> _private_use_at("code A4 here", 5, 7)
    False
    """
    before = text[a - 1] if a > 0 else ""
    after = text[b] if b < len(text) else ""
    return any("\ue000" <= ch <= "\uf8ff" for ch in (before, after))


def _build(kind: str, m: re.Match[str], text: str) -> Mention | None:
    """The mention the pattern ``kind`` matched at ``m``, or None when it holds no value to check.

    A numeral too long for a float ("1" written 400 times is infinity) checks nothing and would break
    every comparison and ``int()`` after it: it is no mention (hostile input, found by fuzzing).
    """
    mention = _build_mention(kind, m, text)
    if mention is not None and not all(math.isfinite(v) for v in (mention.value or 0.0, *mention.values)):
        return None
    return mention


def _build_mention(kind: str, m: re.Match[str], text: str) -> Mention | None:
    g = m.groupdict()
    a, b = m.span()
    if g.get("num") and g["num"].startswith("-") and a > 0 and text[a - 1].isalnum():
        # "1887-1889": the dash joins a range, it is not a minus sign.
        a += 1
        g["num"] = g["num"][1:]
    if kind in ("url", "email"):
        return Mention(kind, a, b, text[a:b])
    if kind == "date":
        if g.get("iso"):
            y, mo, d = (int(x) for x in g["iso"].split("-"))
            if not (1 <= mo <= 12 and 1 <= d <= 31):
                return None
            date: tuple[int | None, int | None, int | None, int | None] = (y, mo, d, None)
        elif g.get("mon"):
            date = (int(g["yr"]) if g.get("yr") else None, MONTHS[lower(g["mon"])], int(g["day"]), None)
        elif g.get("mon2"):
            date = (int(g["yr2"]) if g.get("yr2") else None, MONTHS[lower(g["mon2"])], int(g["day2"]), None)
        elif g.get("mon4"):
            date = (int(g["yr4"]) if g.get("yr4") else None, int(g["mon4"]), int(g["day4"]), None)
        else:
            if g["mon3"] in ("may", "mar") and not text[m.start("mon3")].isupper():
                return None
            date = (int(g["yr3"]), MONTHS[lower(g["mon3"])], None, None)
        if date[2] is not None and not 1 <= date[2] <= 31:
            return None
        if g.get("mon") == "may" and not text[m.start("mon")].isupper():
            return None  # "may 5" is a verb more often than a date when lower-case
        wd = WEEKDAYS[lower(g["wd"])] if g.get("wd") else None
        return Mention("date", a, b, text[a:b], date=(date[0], date[1], date[2], wd))
    if kind == "time":
        if g.get("m2") is None:
            h, mi = int(g["h"]), int(g["m"] or 0)
            ap = lower(g["ap"]).replace(".", "")
            if 13 <= h <= 23 and g["m"]:
                # "13:00 PM" is 13:00 told twice; "13:00 AM" no time at all, still a claimed time (the
                # matcher flags it): read as the 24-hour clock it is written in.
                return Mention("time", a, b, text[a:b], time=(h, mi))
            if not 1 <= h <= 12:
                return None
            h = (h % 12) + (12 if ap == "pm" else 0)
            if g.get("eh") and h > int(g["eh"]) % 12 + (12 if ap == "pm" else 0):
                h -= 12  # "9 to 5 pm", "10 to 12 pm": a range runs forward, so its start is in the morning
        else:
            h, mi = int(g["h"]), int(g["m2"])
        return Mention("time", a, b, text[a:b], time=(h, mi))
    if kind == "money":
        num = g.get("num") or g.get("num2")
        if num is None:
            return None
        value, dec = parse_number(num)
        value *= _magnitude(g.get("mag") or g.get("mag2"))
        sym = (g.get("sym") or g.get("code") or "").strip()
        cur = CURRENCY_SYMBOLS.get(lower(sym), sym.upper() if sym.upper() in ISO_CURRENCIES else None)
        return Mention("money", a, b, text[a:b], value=value, currency=cur, decimals=dec, hedge=_hedge(m))
    if kind == "duration":
        if g.get("half"):
            minutes = 30.0
        elif g.get("c"):
            minutes = int(g["c"]) * 60.0 + int(g["d"])
        else:
            hours = 1.0 if lower(g["a"]) in ("a", "an") else parse_number(g["a"])[0]
            minutes = hours * 60
            if "half" in m.group(0):
                minutes += 30
            elif g.get("b"):
                minutes += parse_number(g["b"])[0]
        hedge = _hedge(m)
        return Mention("quantity", a, b, text[a:b], value=minutes, unit="min", hedge=hedge)
    if kind == "quantity":
        unit_word = lower(g["unit"])
        unit = UNIT_WORDS.get(unit_word)
        if unit is None:
            return None
        if unit_word in ("f", "c") and not text[m.start("unit")].isupper():
            return None  # "89 F" is a temperature; a lower-case letter after a number seldom is
        value, dec = parse_number(g["num"])
        value *= _magnitude(g.get("mag"))
        k = "percent" if unit == "percent" else "quantity"
        return Mention(k, a, b, text[a:b], value=value, unit=unit, decimals=dec, hedge=_hedge(m))
    if kind == "score":
        return Mention("score", a, b, text[a:b], values=(float(g["a"]), float(g["b"])))
    if kind == "id":
        tok = text[a:b]
        if _NOT_AN_ID.fullmatch(tok) or _CITATION_MARKER.fullmatch(tok) or _private_use_at(text, a, b):
            return None
        adjective = _DESCRIPTOR_TAIL.fullmatch(tok) if "-" in tok else None
        if adjective is not None:
            b = a + adjective.end("code")
            tok = text[a:b]
        return Mention("id", a, b, tok)
    if kind == "number":
        if g.get("word"):
            word = g["word"]
            if text[m.start("word")].isupper() and lower(word) in ORDINALS and not _sentence_start(text, a):
                return None
            if lower(word) in ORDINALS and _ORDINAL_COMPOUND.match(text, m.end("word")):
                return None  # "third-party", "first-class": an adjective, no rank of anything
            value, dec = parse_number(word)
            noun = _counted_noun(text, m.start("noun2"), g.get("noun2"))
            end = m.end("word")
            if noun and lower(noun) in _NOT_NOUNS:
                noun = None
            if lower(word) == "one" and noun is None:
                return None  # "one" alone is mostly a pronoun
            k = "count"
            start = m.start("word")
            mention = Mention(
                k, start, end, text[start:end], value=value, noun=noun and lower(noun), hedge=_hedge(m)
            )
            mention.extra["word"] = lower(word)
            return mention
        num = g["num"]
        if _SECTION_LETTER.match(text, m.end("num")):
            return None  # "401(k)", "403(b)": a plan named after a section of a law, no value
        value, dec = parse_number(num)
        value *= _magnitude(g.get("mag"))
        noun = _counted_noun(text, m.start("noun"), g.get("noun"))
        if noun and "\n" in text[m.end("num") : m.start("noun")]:
            # "- Visa ending in 3422\n- Gift card ...": the next line's first word counts nothing here.
            noun = None
        end = m.end("ord") if g.get("ord") else (m.end("mag") if g.get("mag") else m.end("num"))
        if noun and (lower(noun) in _NOT_NOUNS or lower(noun) in COUNT_WORDS):
            noun = None
        start = max(m.start("num"), a)
        if _SNAKE_GLUED.match(text, max(0, start - 2)) or _SNAKE_GLUED_AFTER.match(text, end):
            # "yara_garcia_1905", "credit_card_4579924": the digits end (or start) a snake_case identifier
            # (a user or payment id), no year or count of anything.
            return None
        is_year = _YEAR.fullmatch(num) is not None and not g.get("mag")
        k = "year" if is_year else "number"
        return Mention(
            k,
            start,
            end,
            text[start:end],
            value=value,
            decimals=dec,
            noun=noun and lower(noun),
            hedge=_hedge(m),
        )
    return None
