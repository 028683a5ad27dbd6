"""The evidence of a run: every value of its tool results (nested JSON walked to the leaves), and the
user's and system's own words, indexed for fast matching of claims.

A *record* is the nearest list element that holds a value (one product of a result list, one event of a
calendar); values outside lists belong to their message's root record. Records let the matcher tell "the
price of another item" from "the price of this item".
"""

from __future__ import annotations

import operator
import re
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date as _date
from datetime import datetime
from functools import lru_cache
from itertools import chain
from typing import Any

from ..budget import UNLIMITED, Budget
from ..text import lower
from .clock import ISO_TIMESTAMP, parse_timestamp
from .lexicon import (
    BOOLEAN_STATES,
    ISO_CURRENCIES,
    KEY_UNITS,
    STATE_PHRASES,
    STATUS_WORDS,
    UNIT_WORDS,
    WEATHER_VALUES,
)
from .mentions import Mention, extract_mentions, forget_function_words
from .messages import ParsedRun, ToolResult
from .quoted_text import decode_quoted

__all__ = ["Evidence", "Fact", "build_evidence", "clear_caches", "has_words", "normalize_text"]

Record = tuple[int, tuple[Any, ...]]

_ISO_DT = re.compile(
    r"^(?P<y>\d{4})-(?P<mo>\d{2})-(?P<d>\d{2})(?:[T ](?P<h>\d{2}):(?P<mi>\d{2})(?::\d{2}(?:\.\d+)?)?"
    r"(?P<tz>Z|[+-]\d{2}:?\d{2})?)?$"
)
_DIGIT = re.compile(r"\d")
_ASCII_DIGIT = re.compile(r"[0-9]")
_ALPHA = re.compile(r"[^\W\d_]")
_PLAIN_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
# A number written together with its unit or counted word in a catalogue's option value: "500ml", "25ft",
# "2L", "1.5L", "6.1-inch", "4-piece", "4K". One word, but a value, not a code such as "SKU-123", "W5838674"
# or "A1B2" (those start with a letter or mix digits into letters).
_COMPACT_QUANTITY = re.compile(r"\d+(?:\.\d+)?-?[^\W\d_]{1,8}")
_WORD = re.compile(r"[a-z0-9]+(?:[.'’-][a-z0-9]+)*")
_KEY_SPLIT = re.compile(r"[_\W]+")
_NO_CURRENCY: frozenset[str] = frozenset()
# The counted nouns that are units of time: a number that counts them is a length of time.
_DURATION_NOUNS: dict[str, str] = {
    w: UNIT_WORDS[w] for w in ("minute", "minutes", "hour", "hours", "day", "days", "week", "weeks")
}


def normalize_text(text: str) -> str:
    """Lower-case ``text`` and reduce punctuation to single spaces, for substring matching.

    >>> normalize_text("Paris,  France!")
    'paris france'
    """
    return _normal_form(text.casefold().replace("_", " "))


def _normal_form(low: str) -> str:
    """:func:`normalize_text` of a text already case-folded and with its underscores made spaces."""
    # Statuses, cities and plain prose are mostly normal already: ``[a-z0-9]+(?: [a-z0-9]+)*`` (no upper case
    # is left after ``casefold``), tested with string methods, cheaper than that regular expression and than
    # splitting and joining.
    if low.isascii() and low[:1] != " " != low[-1:] and "  " not in low:
        bare = low.replace(" ", "")
        if bare.isalnum():
            return low
        # Codes and dates join their words with single hyphens ("sku-341736", "2024-05-13", "wi-fi"): a
        # hyphen between two letters or digits is kept inside its word, so such a text is normal too.
        if (
            "-" in bare
            and bare.replace("-", "").isalnum()
            and low[0] != "-" != low[-1]
            and "--" not in low
            and " -" not in low
            and "- " not in low
        ):
            return low
    if "\u2010" in low or "\u2011" in low:
        # "Wi‑Fi" with a (non-breaking) hyphen is "wi-fi" (issue 14, h20j).
        low = low.replace("\u2010", "-").replace("\u2011", "-")
    return " ".join(_WORD.findall(low))


def has_words(haystack: str, needle: str) -> bool:
    """Whether ``needle`` occurs in ``haystack`` as whole words (both normalised).

    >>> has_words("new york city | paris", "york city"), has_words("new york city", "ork")
    (True, False)
    """
    if not needle:
        return False
    start = haystack.find(needle)
    while start >= 0:
        end = start + len(needle)
        if (start == 0 or not haystack[start - 1].isalnum()) and (
            end == len(haystack) or not haystack[end].isalnum()
        ):
            return True
        start = haystack.find(needle, start + 1)
    return False


@dataclass(slots=True, init=False)
class Fact:
    """One value of the evidence with where it came from.

    The constructor is written out rather than generated (``init=False``): compiled with mypyc, a generated
    ``__init__`` stays interpreted Python, and a run builds tens of thousands of facts. It takes the same
    parameters, in the same order, with the same defaults, as the generated one would.
    """

    kind: str  # number date time state string
    value: Any
    message_index: int
    path: Any  # the JSON path as a tuple of keys and indices ("$" for free text)
    record: Record | None
    list_path: tuple[int, tuple[Any, ...]] | None
    key_tokens: frozenset[str] = frozenset()
    unit: str | None = None
    currencies: frozenset[str] = frozenset()
    text: str = ""
    start: int = -1
    end: int = -1
    source: str = "tool"  # tool | user | system | derived

    def __init__(
        self,
        kind: str,
        value: Any,
        message_index: int,
        path: Any,
        record: Record | None,
        list_path: tuple[int, tuple[Any, ...]] | None,
        key_tokens: frozenset[str] = frozenset(),
        unit: str | None = None,
        currencies: frozenset[str] = frozenset(),
        text: str = "",
        start: int = -1,
        end: int = -1,
        source: str = "tool",
    ) -> None:
        self.kind = kind
        self.value = value
        self.message_index = message_index
        self.path = path
        self.record = record
        self.list_path = list_path
        self.key_tokens = key_tokens
        self.unit = unit
        self.currencies = currencies
        self.text = text
        self.start = start
        self.end = end
        self.source = source

    @property
    def json_path(self) -> str:
        """The path in JSONPath-like notation, ``$.results[1].price``."""
        return self.path if isinstance(self.path, str) else _path_str(self.path)


def _year_fact(
    year: int,
    msg: int,
    path: Any,
    record: Record | None,
    list_path: tuple[int, tuple[Any, ...]] | None,
    key_tokens: frozenset[str],
    text: str,
    source: str,
) -> Fact:
    """The year of a date in the evidence as a number of its own ("in 2024" against "2024-05-13"), kept
    apart from the other numbers by its unit ``year_of_date``."""
    return Fact(
        "number", float(year), msg, path, record, list_path, key_tokens, "year_of_date", _NO_CURRENCY, text,
        source=source,
    )  # fmt: skip


@dataclass(slots=True, init=False)
class Evidence:
    """All facts of a run plus lookup tables.

    The facts are read up front: any value of the run may match a claim. The tables only some answers
    consult (numbers by key token, the vocabulary, acronyms, record positions, key anchors) are built on
    first use.

    The constructor is written out rather than generated (``init=False``): compiled with mypyc, a generated
    ``__init__`` stays interpreted Python, and every run makes one. It takes the same parameters, in the same
    order, with the same defaults, as the generated one would (containers default to new ones).
    """

    numbers: list[Fact] = field(default_factory=list)
    dates: list[Fact] = field(default_factory=list)
    times: list[Fact] = field(default_factory=list)
    datetimes: list[Fact] = field(default_factory=list)
    states: list[Fact] = field(default_factory=list)
    strings: list[Fact] = field(default_factory=list)
    counts: list[Fact] = field(default_factory=list)
    haystack: str = ""
    raw_haystack: str = ""
    # The normalised texts the haystack joins with " | " (keys, string values, user and system messages).
    pieces: list[str] = field(default_factory=list)
    currencies: set[str] = field(default_factory=set)
    has_tool_results: bool = False
    contents: dict[int, str] = field(default_factory=dict)
    # Positions in ``numbers`` per record and of the run-level numbers (outside lists), built on first use.
    _by_record: tuple[dict[Any, list[int]], list[int]] | None = None
    # Tables that only some answers need (a counted noun, a name not found as written), built on first use.
    _key_index: dict[str, list[Fact]] | None = None
    _key_groups: dict[frozenset[str], list[int]] = field(default_factory=dict)
    _vocabulary: set[str] | None = None
    _padded: str | None = None
    _acronyms: set[str] | None = None
    _anchors: dict[tuple[int, str], int] = field(default_factory=dict)
    # The answers of ``has_acronym`` while the set of acronyms is not built.
    _acronym_answers: dict[str, bool] = field(default_factory=dict)
    # How many elements of a list have a one-word value ("meeting" of ``event_type``), by that word: "3
    # meetings" counts those elements, not every event.
    value_counts: dict[str, list[Fact]] = field(default_factory=dict)
    # The haystack's words, split once for ``vocabulary_near``, its answers by length range, and the
    # vocabulary's entries by length for the lengths asked so far.
    _words: list[str] | None = None
    _near: dict[tuple[int, int], list[str]] = field(default_factory=dict)
    _by_length: dict[int, dict[str, None]] = field(default_factory=dict)
    # The pieces ``has_acronym`` reads (two to eight words), by their first character, in order.
    _acronym_pool: dict[str, list[str]] | None = None
    # The identifiers of each record at its own level (``identity.identities``), read from ``strings`` on
    # first use: an answer that names many things asks for them once per thing (h23r).
    record_ids: dict[Any, set[tuple[str, str]]] | None = None

    def __init__(
        self,
        numbers: list[Fact] | None = None,
        dates: list[Fact] | None = None,
        times: list[Fact] | None = None,
        datetimes: list[Fact] | None = None,
        states: list[Fact] | None = None,
        strings: list[Fact] | None = None,
        counts: list[Fact] | None = None,
        haystack: str = "",
        raw_haystack: str = "",
        pieces: list[str] | None = None,
        currencies: set[str] | None = None,
        has_tool_results: bool = False,
        contents: dict[int, str] | None = None,
        _by_record: tuple[dict[Any, list[int]], list[int]] | None = None,
        _key_index: dict[str, list[Fact]] | None = None,
        _key_groups: dict[frozenset[str], list[int]] | None = None,
        _vocabulary: set[str] | None = None,
        _padded: str | None = None,
        _acronyms: set[str] | None = None,
        _anchors: dict[tuple[int, str], int] | None = None,
        _acronym_answers: dict[str, bool] | None = None,
        value_counts: dict[str, list[Fact]] | None = None,
        _words: list[str] | None = None,
        _near: dict[tuple[int, int], list[str]] | None = None,
        _by_length: dict[int, dict[str, None]] | None = None,
        _acronym_pool: dict[str, list[str]] | None = None,
        record_ids: dict[Any, set[tuple[str, str]]] | None = None,
    ) -> None:
        self.numbers = [] if numbers is None else numbers
        self.dates = [] if dates is None else dates
        self.times = [] if times is None else times
        self.datetimes = [] if datetimes is None else datetimes
        self.states = [] if states is None else states
        self.strings = [] if strings is None else strings
        self.counts = [] if counts is None else counts
        self.haystack = haystack
        self.raw_haystack = raw_haystack
        self.pieces = [] if pieces is None else pieces
        self.currencies = set() if currencies is None else currencies
        self.has_tool_results = has_tool_results
        self.contents = {} if contents is None else contents
        self._by_record = _by_record
        self._key_index = _key_index
        self._key_groups = {} if _key_groups is None else _key_groups
        self._vocabulary = _vocabulary
        self._padded = _padded
        self._acronyms = _acronyms
        self._anchors = {} if _anchors is None else _anchors
        self._acronym_answers = {} if _acronym_answers is None else _acronym_answers
        self.value_counts = {} if value_counts is None else value_counts
        self._words = _words
        self._near = {} if _near is None else _near
        self._by_length = {} if _by_length is None else _by_length
        self._acronym_pool = _acronym_pool
        self.record_ids = record_ids

    def numbers_keyed(self, token: str) -> list[Fact]:
        """The numbers with ``token`` among their keys' tokens (``price`` for ``price.amount``), in order."""
        if self._key_index is None:
            # Numbers under one key path share one token set: group their positions by set, in one pass.
            groups: dict[frozenset[str], list[int]] = {}
            for i, f in enumerate(self.numbers):
                found = groups.get(f.key_tokens)  # no new empty list per number, as setdefault makes
                if found is None:
                    groups[f.key_tokens] = [i]
                else:
                    found.append(i)
            self._key_groups = groups
            self._key_index = {}
        hit = self._key_index.get(token)
        if hit is None:
            lists = [pos for tokens, pos in self._key_groups.items() if token in tokens]
            positions = lists[0] if len(lists) == 1 else sorted(chain.from_iterable(lists))
            hit = self._key_index[token] = [self.numbers[i] for i in positions]
        return hit

    @property
    def vocabulary(self) -> set[str]:
        """The words of the haystack and every pair of neighbouring words run together (``newyork``)."""
        if self._vocabulary is None:
            words = self.haystack.split()
            vocabulary = set(words)
            vocabulary.update(map(operator.add, words, words[1:]))
            self._vocabulary = vocabulary
        return self._vocabulary

    def vocabulary_near(self, shortest: int, longest: int) -> list[str]:
        """The entries of :attr:`vocabulary` of ``shortest`` to ``longest`` characters, each once (by length,
        then in the order they first occur), without building the set (memoised per range and per length).

        A fuzzy match against the vocabulary needs only the entries of about the word's length (a similarity
        ratio is bounded by the lengths): building and hashing the whole set of words and neighbouring pairs
        was most of the cost of the first fuzzy match of a run, and every long run made one. Pairs are joined
        only when their length fits; the entries are made unique (the haystack repeats keys and values), as
        the matcher scores each entry it is given.
        """
        key = (shortest, longest)
        found = self._near.get(key)
        if found is not None:
            return found
        by_length = self._by_length
        missing = [size for size in range(shortest, longest + 1) if size not in by_length]
        if missing:
            # One pass over the words fills every length not read yet (the words of an answer share lengths).
            words = self._words
            if words is None:
                words = self._words = self.haystack.split()
            fresh: dict[int, dict[str, None]] = {size: {} for size in missing}
            lo, hi = missing[0], missing[-1]
            n = len(words)
            prev = words[0] if n else ""
            prev_len = len(prev)
            if n and lo <= prev_len <= hi and prev_len in fresh:
                fresh[prev_len][prev] = None
            for i in range(1, n):
                w = words[i]
                size = len(w)
                if lo <= size <= hi:
                    bucket = fresh.get(size)
                    if bucket is not None:
                        bucket[w] = None
                joined = prev_len + size
                if lo <= joined <= hi:
                    bucket = fresh.get(joined)
                    if bucket is not None:
                        bucket[prev + w] = None
                prev, prev_len = w, size
            by_length.update(fresh)
        found = []
        for size in range(shortest, longest + 1):
            found.extend(by_length[size])
        self._near[key] = found
        return found

    def in_vocabulary(self, word: str) -> bool:
        """Whether ``word in self.vocabulary``, answered by searching the haystack until the set is built.

        Most answers ask about a word or two: a search of the haystack costs less than building the set. A
        vocabulary entry is a haystack word, or two neighbouring words of one piece run together; words are
        separated by single spaces and pieces by " | ", so ``" w "`` or ``" a b "`` (``a + b == w``) in the
        haystack padded with spaces finds exactly the entries. A word with "|" is looked up in the set.
        """
        if self._vocabulary is not None or "|" in word:
            return word in self.vocabulary
        bucket = self._by_length.get(len(word))
        if bucket is not None:
            return word in bucket  # every entry of this length, read for a fuzzy match already
        if word.split() != [word]:
            return False  # entries are non-empty and hold no white space
        padded = self._padded
        if padded is None:
            padded = self._padded = f" {self.haystack} "
        return f" {word} " in padded or any(f" {word[:k]} {word[k:]} " in padded for k in range(1, len(word)))

    @property
    def acronyms(self) -> set[str]:
        """The initials of every short phrase of the haystack, with and without its function words."""
        if self._acronyms is None:
            acronyms: set[str] = set()
            if self.pieces:
                # The pieces are normalised (words joined by single spaces): a piece of n words has n - 1
                # spaces, so those outside two to eight words, most of them, are skipped without a call.
                for chunk in self.pieces:
                    if 0 < chunk.count(" ") < 8:
                        acronyms.update(_initials(chunk))
            else:
                for chunk in self.haystack.split(" | "):
                    acronyms.update(_initials(chunk))
            self._acronyms = acronyms
        return self._acronyms

    def has_acronym(self, acronym: str) -> bool:
        """Whether ``acronym in self.acronyms``, answered from the pieces that can give it until the set is
        built.

        An answer asks about a name or two: reading the initials of only the pieces that can give
        ``acronym`` costs less than reading those of every piece. Both acronyms of a piece (see
        :func:`_initials`) start with its first letter unless its first word is a function word ("of",
        "the", "and", "for"), so a piece that starts with neither ``acronym``'s first letter nor one of
        theirs gives neither.
        """
        if self._acronyms is not None or not acronym or not self.pieces:
            return acronym in self.acronyms
        known = self._acronym_answers.get(acronym)
        if known is None:
            pool = self._acronym_pool
            if pool is None:
                pool = self._acronym_pool = _acronym_pool(self.pieces)
            first = acronym[0]
            known = False
            # The pieces that open with the acronym's first letter or with a letter a function word starts
            # with ("of", "the", "and", "for"); one that opens with white space (none does in a built
            # haystack) is read whatever. Which piece gives the acronym does not matter, only if any does.
            for head, chunks in pool.items():
                if head == first or head in "otaf" or head.isspace():
                    for chunk in chunks:
                        if acronym in _initials(chunk):
                            known = True
                            break
                    if known:
                        break
            self._acronym_answers[acronym] = known
        return known

    def record_index(self) -> tuple[dict[Any, list[int]], list[int]]:
        """Positions in ``numbers`` of each record's facts, and of the facts outside any list, in order."""
        if self._by_record is None:
            by_record: dict[Any, list[int]] = defaultdict(list)
            root: list[int] = []
            for i, f in enumerate(self.numbers):
                by_record[f.record].append(i)
                if f.list_path is None:
                    root.append(i)
            self._by_record = (dict(by_record), root)
        return self._by_record

    def numbers_of(self, record: Any, limit: int) -> list[Fact]:
        """The first ``limit`` numbers of ``record`` or outside lists, in evidence order."""
        by_record, root = self.record_index()
        positions = sorted(set(by_record.get(record, ())).union(root))[:limit]
        return [self.numbers[i] for i in positions]

    def locate(self, fact: Fact) -> tuple[int, int]:
        """The character span of ``fact`` in its message, found lazily (only reported facts need it)."""
        if fact.start >= 0:
            return fact.start, fact.end
        content = self.contents.get(fact.message_index, "")
        needle = fact.text
        key = (
            next((p for p in reversed(fact.path) if isinstance(p, str)), "")
            if isinstance(fact.path, tuple)
            else ""
        )
        anchor = -1
        if key and key != "$":
            # The first occurrence of the key, shared by every fact under that key in the message.
            found = self._anchors.get((fact.message_index, key))
            if found is None:
                found = self._anchors[(fact.message_index, key)] = content.find(f'"{key}"')
            anchor = found
        pos = content.find(needle, max(anchor, 0))
        if pos < 0:
            pos = content.find(needle)
        fact.start, fact.end = (pos, pos + len(needle)) if pos >= 0 else (0, 0)
        return fact.start, fact.end


@lru_cache(maxsize=4096)
def _key_tokens_of(keys: tuple[str, ...]) -> frozenset[str]:
    """The lower-case tokens of the keys on a JSON path, singular forms included."""
    toks: set[str] = set()
    for p in keys:
        for t in _KEY_SPLIT.split(lower(p)):
            if t:
                toks.add(t)
                if t.endswith("s") and len(t) > 3:
                    toks.add(t[:-1])
    return frozenset(toks)


def _acronym_pool(pieces: list[str]) -> dict[str, list[str]]:
    """The pieces ``Evidence.acronyms`` reads (two to eight words: one to seven spaces, ``chunk[0]`` exists),
    grouped by their first character, each group in the order of ``pieces``.

    An answer asks ``has_acronym`` of a name or two, each of which read every piece: the pieces are sorted
    out once, and a question reads only the groups of the first characters that can give its acronym.
    """
    pool: dict[str, list[str]] = {}
    for chunk in pieces:
        if 0 < chunk.count(" ") < 8:
            head = chunk[0]
            found = pool.get(head)
            if found is None:
                pool[head] = [chunk]
            else:
                found.append(chunk)
    return pool


@lru_cache(maxsize=8192)
def _initials(chunk: str) -> tuple[str, ...]:
    """The acronyms a phrase of two to eight words gives: all initials, and those of its content words."""
    toks = chunk.split()
    if 2 <= len(toks) <= 8:
        return "".join([t[0] for t in toks]), "".join(
            [t[0] for t in toks if t not in ("of", "the", "and", "for")]
        )
    return ()


@lru_cache(maxsize=1024)
def _boolean_state(low_key: str) -> tuple[str, str] | None:
    """The (true, false) state words of a boolean key (``is_refundable``), or None."""
    for k, states in BOOLEAN_STATES.items():
        if low_key == k or low_key.endswith("_" + k):
            return states
    return None


class _StringInfo:
    """What a string leaf of a tool result is, computed once per distinct string (and shared: read only).

    A plain class rather than a NamedTuple: compiled with mypyc it is a native class with a compiled
    constructor, where a NamedTuple's constructor stays interpreted (and most strings of a result are new).
    """

    __slots__ = ("date", "datetime", "folded", "mentions", "norm", "number", "state", "time", "unhyphenated")

    def __init__(
        self,
        folded: str,
        norm: str,
        state: str | None,
        date: tuple[int, int, int] | None,
        time: tuple[int, int] | None,
        datetime: datetime | None,
        number: float | None,
        mentions: tuple[Mention, ...],
    ) -> None:
        self.folded = folded
        self.norm = norm
        self.state = state
        self.date = date
        self.time = time
        self.datetime = datetime
        self.number = number
        # The values inside the string read as free text ("330 meters", "Suite 12"); empty for a date, a
        # number, or a string with no digit or that is a single code ("SKU-123", "BSD-3-Clause").
        self.mentions = mentions
        # Handles and addresses join a name's words with hyphens (hotel-dealz@resorts.com is "Hotel Dealz",
        # x-ray is "X ray"): the form with spaces, also searched, read once with the rest (dates have dashes).
        self.unhyphenated = norm.replace("-", " ") if "-" in norm else None


# Strings longer than this are read every time rather than memoised, so the caches stay small.
_MEMO_MAX_CHARS = 512


def _holds_values(text: str) -> bool:
    """Whether a tool string may hold values as free text: a digit, and a space, no letter at all, or one
    number written together with its unit ("500ml", "25ft", "4-piece": catalogue option values).

    Strings without a digit hold no value worth the cost of reading (their states are looked up directly).
    """
    # In ASCII text ``\d`` is ``[0-9]``: a range the engine tests per character far more cheaply than the
    # Unicode digit category (``str.isascii`` is a flag read, not a scan; h22d).
    if not (_ASCII_DIGIT if text.isascii() else _DIGIT).search(text):
        return False
    stripped = text.strip()
    return " " in stripped or not _ALPHA.search(text) or bool(_COMPACT_QUANTITY.fullmatch(stripped))


def _read_string(text: str) -> _StringInfo:
    """Read a string leaf (memoised below for short strings: statuses, cities, dates repeat)."""
    folded = text.casefold()
    low = folded.replace("_", " ")
    norm = _normal_form(low)
    # The second key is the text lower-cased with its underscores as spaces: for ASCII text that is ``low``
    # (lower-casing and case-folding agree there), and a key equal to ``norm`` was looked up already.
    key = low if text.isascii() else lower(text).replace("_", " ")
    state = (
        STATE_PHRASES.get(norm)
        or (STATE_PHRASES.get(key) if key != norm else None)
        or WEATHER_VALUES.get(norm)
        or _chance_of_weather(folded)
    )
    # An ISO date starts with four digits and a dash: anything else skips the regular expression.
    d, hm, dt = _parse_dt(text) if text[:4].isdigit() and text[4:5] == "-" else (None, None, None)
    if d is not None:
        whole = dt or datetime(d.year, d.month, d.day)
        return _StringInfo(folded, norm, state, (d.year, d.month, d.day), hm, whole, None, ())
    # str.strip() also drops separators float() refuses (e.g. U+001F), so convert what was matched.
    stripped = text.strip()
    # A plain number opens with a sign or a digit (``\d`` is what ``str.isdecimal`` tells): most strings are
    # words, and skip the regular expression.
    head = stripped[:1]
    if (head == "-" or head.isdecimal()) and _PLAIN_NUMBER.fullmatch(stripped):
        return _StringInfo(folded, norm, state, None, None, None, float(stripped), ())
    mentions = tuple(extract_mentions(text, names=False)) if _holds_values(text) else ()
    if mentions and " " not in stripped:
        # A measure in one token gives its quantity ("1.5L") or number ("4K"); "3-piece" counts pieces, no
        # amount to add or subtract (the answer's "3-piece" is found with its noun in the text).
        mentions = tuple(m for m in mentions if m.unit or not m.noun)
    return _StringInfo(folded, norm, state, None, None, None, None, mentions)


# A condition with its chance ("30% Snow", "60 % rainy"): weather forecasts give the likeliest condition so.
_CHANCE_OF = re.compile(r"\s*\d{1,3}(?:\.\d+)?\s?%\s+([a-z][a-z ]{1,20}?)\s*")
_WEATHER_STATES = frozenset(WEATHER_VALUES.values()) | {"partly_cloudy"}


def _chance_of_weather(folded: str) -> str | None:
    """The weather state of a forecast condition that carries its chance ("30% snow" is snow), else None.

    >>> _chance_of_weather("60% rainy"), _chance_of_weather("30% snow"), _chance_of_weather("30% off")
    ('rain', 'snow', None)
    """
    if "%" not in folded:
        return None
    m = _CHANCE_OF.fullmatch(folded)
    if m is None:
        return None
    word = m.group(1)
    state = STATE_PHRASES.get(word) or WEATHER_VALUES.get(word)
    return state if state in _WEATHER_STATES else None


_read_string_cached = lru_cache(maxsize=8192)(_read_string)


def _text_mentions(text: str) -> tuple[Mention, ...]:
    """The values inside a text of the evidence, memoised for short texts. The mentions are shared between
    calls: the builder only reads them. Names are not needed here (evidence names are matched as words)."""
    if len(text) <= _MEMO_MAX_CHARS:
        return _text_mentions_cached(text)
    return tuple(extract_mentions(text, names=False))


@lru_cache(maxsize=4096)
def _text_mentions_cached(text: str) -> tuple[Mention, ...]:
    return tuple(extract_mentions(text, names=False))


@lru_cache(maxsize=4096)
def _key_unit(key: str) -> str | None:
    parts = [p for p in _KEY_SPLIT.split(lower(key)) if p]
    if parts and parts[-1] in ("percent", "pct", "percentage"):
        return "percent"
    # "strength_mg_per_tablet": the unit is the last unit token that is not the denominator of a "per".
    for i in range(len(parts) - 1, 0, -1):
        tok = parts[i]
        if tok in KEY_UNITS and parts[i - 1] != "per" and (len(tok) > 1 or i == len(parts) - 1):
            return KEY_UNITS[tok]
    if len(parts) >= 2 and parts[0] in _LEADING_UNITS and parts[1] != "per":
        # "days_since_mailing: 20", "hours_in_measurement_period: 1568": a plural unit opening the key
        # names what its number counts (issue 14, h25f); "miles_per_gallon" is no distance.
        return _LEADING_UNITS[parts[0]]
    return None


# The plural units a key may open with (``days_remaining``, ``months_of_service``).
_LEADING_UNITS = {
    "seconds": "s", "minutes": "min", "hours": "hour", "days": "day", "weeks": "week", "months": "month",
    "years": "year", "miles": "mi",
}  # fmt: skip


def _path_str(path: tuple[Any, ...]) -> str:
    out = "$"
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else f".{p}"
    return out


def _parse_dt(text: str) -> tuple[_date | None, tuple[int, int] | None, datetime | None]:
    s = text.strip()
    if not _ISO_DT.match(s):
        return None, None, None
    # The match is anchored at both ends with fixed widths up to the minutes, and ``s`` cannot end in the
    # newline ``$`` would allow: the fields sit at fixed offsets (slices are cheaper than named groups), and
    # the optional time part took part exactly when ``s`` is longer than the date.
    try:
        d = _date(int(s[0:4]), int(s[5:7]), int(s[8:10]))
    except ValueError:
        return None, None, None
    if len(s) == 10:
        return d, None, None
    hm = (int(s[11:13]), int(s[14:16]))
    try:
        dt = datetime.fromisoformat(s.replace("Z", "+00:00"))
    except ValueError:
        dt = None
    return d, hm, dt


# A status slot of a YAML-like result: ``  status: not_open``, ``- transfer_status: pending_recipient``.
_STATUS_LINE = re.compile(r"^[ \t-]*[a-z0-9_]*(?:status|state)[ \t]*:[ \t]*([a-z][a-z_]*)[ \t]*$", re.M)
_STATUS_KEY = frozenset({"status"})


def _slot_state(value: str) -> str | None:
    """The state a status slot's enumerated value names: the value itself ("resolved"), a negated state
    ("not_open" is ``not_open``, "not_canceled" ``not_cancelled``) or the state its first word names
    ("pending_recipient_acceptance" is pending). None when it names none.

    >>> [_slot_state(v) for v in ("resolved", "not_canceled", "pending_recipient_acceptance", "reusable")]
    ['resolved', 'not_cancelled', 'pending', None]
    """
    words = value.split("_")
    norm = " ".join(words)
    state = STATE_PHRASES.get(norm) or STATUS_WORDS.get(norm)
    if state is not None:
        return state
    if words[0] in ("not", "non") and len(words) > 1:
        rest = STATE_PHRASES.get(words[1]) or STATUS_WORDS.get(words[1])
        return f"not_{rest}" if rest is not None else None
    return STATE_PHRASES.get(words[0]) or STATUS_WORDS.get(words[0])


def _slot_states(text: str) -> list[str]:
    """The states of the status slots of a YAML-like result (written in text, not JSON): the enumerated
    values ("pending_recipient_acceptance", "not_open") that prose reading misses, their words being
    joined by underscores."""
    if "status" not in text and "state" not in text:
        return []
    out: list[str] = []
    for m in _STATUS_LINE.finditer(text):
        value = m.group(1)
        if "_" in value:  # a single word is read from the text already
            state = _slot_state(value)
            if state is not None:
                out.append(state)
    return out


# A modal before a state word of a tool's text: "can be confirmed", "must not be cancelled", "to be returned".
_MODAL_BEFORE = re.compile(
    r"\b(?:can(?:not)?|can't|could|may|might|must|should|would|to)\s+(?:not\s+)?(?:be|have\s+been)\s+$"
)


# A key line of a YAML-like result: its indentation, key and (for a leaf) plain-number value.
_KEY_LINE = re.compile(
    r"^([ \t]*)(?:-[ \t]+)?([A-Za-z][A-Za-z0-9_]*)[ \t]*:[ \t]*(?:'?(-?[0-9]+(?:\.[0-9]+)?)'?)?[ \t]*$", re.M
)


_NO_KEYS: frozenset[str] = frozenset()


def _key_unit_numbers(text: str) -> list[tuple[float, str, str]]:
    """The numbers of a YAML-like result whose unit only its keys name: ``odometer_miles: 49820`` and the
    children of ``bag_dimensions_mm:`` (``depth: 180``) are miles and millimetres, as the same keys are in a
    JSON result (issue 14, h24k: "49,820 miles" read against the page's "50,000 miles" only, the record's
    number having no unit). Each is (value, unit, the number's text).

    >>> _key_unit_numbers("odometer_miles: 49820\\nbag_mm:\\n  depth: 180\\n  width: 200\\nbag_count: 1")
    [(49820.0, 'mi', '49820'), (180.0, 'mm', '180'), (200.0, 'mm', '200')]
    """
    out: list[tuple[float, str, str]] = []
    parent: tuple[int, str] | None = None  # the indentation and unit of an open unit-named mapping
    for m in _KEY_LINE.finditer(text):
        indent = len(m.group(1))
        if parent is not None and indent <= parent[0]:
            parent = None
        unit = _key_unit(m.group(2))
        number = m.group(3)
        if number is None:
            if unit is not None and m.end() < len(text):
                parent = (indent, unit)
            continue
        if unit is None and parent is not None:
            unit = parent[1]
        if unit is not None:
            out.append((float(number), unit, number))
    return out


# A boolean slot of a YAML-like result: ``  user_reports_verification_complete: true``.
_BOOLEAN_LINE = re.compile(r"^[ \t-]*([a-z][a-z0-9_]*)[ \t]*:[ \t]*(true|false)[ \t]*$", re.M)


# The processes whose "..._complete" flag tells the state of a step of the user's request.
_PROCESS_WORDS = frozenset({
    "verification", "authentication", "payment", "checkout", "transfer", "registration", "enrollment",
    "enrolment", "application", "setup", "onboarding", "activation", "signup", "submission", "upload",
    "review", "inspection", "installation", "migration", "porting", "kyc", "identity", "check",
})  # fmt: skip


def _boolean_slot_states(text: str) -> list[str]:
    """The states the boolean slots of a YAML-like result name, as the same keys do in a JSON result
    (issue 14, h24k: "the verification checkpoint is complete" against an earlier "pending" read, the
    later result's ``..._complete: true`` being unread).

    >>> _boolean_slot_states("status: pending\\nuser_reports_verification_complete: true\\nopen: false")
    ['completed', 'closed']
    >>> _boolean_slot_states("contact_preferences_complete: true\\npayment_complete: false")
    ['pending']
    """
    if "true" not in text and "false" not in text:
        return []
    out: list[str] = []
    for m in _BOOLEAN_LINE.finditer(text):
        key = m.group(1)
        state = _boolean_state(key)
        if state is None:
            words = key.split("_")
            if len(words) > 1 and words[-1] in ("complete", "completed") and words[-2] in _PROCESS_WORDS:
                # A process's completion flag: "verification_complete: true" is a completed step, and an
                # incomplete one pending ("incomplete" is). Other "..._complete" flags tell of data
                # ("contact_preferences_complete"), no record's state.
                state = ("completed", "pending")
        if state is not None:
            out.append(state[0] if m.group(2) == "true" else state[1])
    return out


# A write tool's report in YAML-like text: the action it took and a flag that it took effect
# ("action: cancel" ... "modified: true", "modification_status: modified"), at the top level.
_ACTION_LINE = re.compile(r"^action:[ \t]*'?([a-z][a-z_]*)'?[ \t]*$", re.M)
_DONE_LINE = re.compile(
    r"^(?:(?:modified|changed|success|succeeded|accepted|applied|completed):[ \t]*true"
    r"|[a-z_]*status:[ \t]*(?:modified|changed|succeeded|applied|completed))[ \t]*$",
    re.M,
)


def _action_states(text: str) -> list[str]:
    """The state a write action's report in text puts its record in: "action: cancel" with "modified: true"
    is a cancelled record, as a JSON result that returns the record "cancelled" is (issue 14, h22a: "was
    canceled successfully" read against the reservation's "confirmed" before the action). Nothing when the
    report says no effect or names no action with a state.

    >>> _action_states("action: cancel\\nmodification_status: modified\\nmodified: true\\nreference_id: P-1")
    ['cancelled']
    >>> _action_states("action: cancel\\nmodified: false")
    []
    >>> _action_states("action: reschedule\\nmodified: true")
    []
    """
    if "action" not in text:
        return []
    act = _ACTION_LINE.search(text)
    if act is None or _DONE_LINE.search(text) is None:
        return []
    verb = act.group(1)
    for form in (verb + "led", verb + "ed", verb + "d", verb):
        state = _slot_state(form)
        if state is not None:
            return [state]
    return []


class _Builder:
    def __init__(self, ev: Evidence, budget: Budget = UNLIMITED) -> None:
        self.budget = budget
        self.ev = ev
        self.hay: list[str] = []
        self.raw: list[str] = []
        self.keys: set[Any] = set()
        # Per key path, the tokens and unit of each child key: the records of a list repeat their keys, so a
        # leaf costs a dictionary look-up instead of building its key path.
        self.key_meta: dict[tuple[str, ...], dict[str, tuple[frozenset[str], str | None]]] = {}

    def add_text(
        self,
        text: str,
        msg: int,
        source: str,
        record: Record | None,
        list_path: Any,
        path: Any,
        key_tokens: frozenset[str],
        currencies: frozenset[str],
    ) -> None:
        """Values inside free text ("330 meters", "every 8 to 12 hours", "built 1887-1889")."""
        if source == "tool" and not _holds_values(text):
            return  # no number, or a single code such as "SKU-123" or "BSD-3-Clause"
        found = _text_mentions(text)
        self._mentions(found, msg, source, record, list_path, path, key_tokens, currencies, text)

    def _stamp(
        self,
        stamp: str,
        msg: int,
        source: str,
        record: Record | None,
        list_path: Any,
        path: Any,
        key_tokens: frozenset[str],
    ) -> None:
        """What a timestamp written in text gives besides its date and time, as a JSON timestamp does: its
        instant (for durations and for times converted to another zone) and its year."""
        found = ISO_TIMESTAMP.fullmatch(stamp)
        parsed = parse_timestamp(found) if found is not None else None
        if parsed is None:
            return
        self.ev.datetimes.append(
            Fact("datetime", parsed[2], msg, path, record, list_path, key_tokens, text=stamp, source=source)
        )
        self.ev.numbers.append(
            _year_fact(parsed[0][0], msg, path, record, list_path, key_tokens, stamp, source)
        )

    def _mentions(
        self,
        mentions: tuple[Mention, ...],
        msg: int,
        source: str,
        record: Record | None,
        list_path: Any,
        path: Any,
        key_tokens: frozenset[str],
        currencies: frozenset[str],
        text: str,
    ) -> None:
        """Index the values ``mentions`` found in ``text``."""
        for m in mentions:
            if m.kind in ("money", "number", "year", "quantity", "percent", "count") and m.value is not None:
                unit = m.unit
                if m.kind == "quantity" and "\n" in m.text:
                    # "case_id: LEAVE-2026-0417\nhours_in_period: 1568": the value ending one line and the
                    # first word of the next line's key are no quantity ("417 hours"; issue 14, h25f).
                    unit = None
                if unit is None and m.kind == "number" and m.noun is not None:
                    # "more than 24 consecutive hours": a length of time whose unit is past a modifier.
                    unit = _DURATION_NOUNS.get(m.noun)
                cur = frozenset({m.currency}) if m.currency and m.currency != "$" else currencies
                self._num(m.value, msg, path, record, list_path, key_tokens, unit, cur, m.text, source)
            elif m.kind == "score":
                for v in m.values:
                    self._num(v, msg, path, record, list_path, key_tokens, None, currencies, m.text, source)
            elif m.kind == "date" and m.date is not None:
                y, mo, d, _ = m.date
                self.ev.dates.append(
                    Fact(
                        "date",
                        (y, mo, d),
                        msg,
                        path,
                        record,
                        list_path,
                        key_tokens,
                        text=m.text,
                        source=source,
                    )
                )
            elif m.kind == "time" and m.time is not None:
                self.ev.times.append(
                    Fact("time", m.time, msg, path, record, list_path, key_tokens, text=m.text, source=source)
                )
                stamp = m.extra.get("iso") if m.extra else None
                if stamp is not None:
                    self._stamp(stamp, msg, source, record, list_path, path, key_tokens)
            elif m.kind == "state" and source == "tool":
                if _MODAL_BEFORE.search(lower(text[max(0, m.start - 40) : m.start])):
                    # "before coverage can be confirmed", "must be returned within 30 days": a page's
                    # possibility or rule, no record's state (issue 14, h24k: a claim "pending" read
                    # against a help page's "can be confirmed").
                    continue
                # A user asking "is it on time?" states nothing: only tool results give states.
                self.ev.states.append(
                    Fact(
                        "state",
                        m.extra["state"],
                        msg,
                        path,
                        record,
                        list_path,
                        key_tokens,
                        text=m.text,
                        source=source,
                    )
                )

    def _num(
        self,
        value: float,
        msg: int,
        path: Any,
        record: Record | None,
        list_path: Any,
        key_tokens: frozenset[str],
        unit: str | None,
        currencies: frozenset[str],
        text: str,
        source: str,
    ) -> None:
        self.ev.numbers.append(
            Fact(
                "number",
                float(value),
                msg,
                path,
                record,
                list_path,
                key_tokens,
                unit,
                currencies,
                text,
                source=source,
            )
        )

    def walk(
        self,
        value: Any,
        msg: int,
        path: tuple[Any, ...],
        record: Record,
        list_path: Any,
        currencies: frozenset[str],
        keys: tuple[str, ...] = (),
    ) -> None:
        """Add the facts of ``value`` (at ``path``, whose string keys are ``keys``) and of its children."""
        if isinstance(value, dict) and _keyed_by_names(value):
            self._named_items(value, msg, path, currencies, keys)
            return
        if isinstance(value, dict):
            self.budget.step("reading the tool results", 1 + len(value))
            # A currency code among the values scopes the record's amounts. Most records hold none: no list or
            # set is made for them.
            found: list[str] | None = None
            for v in value.values():
                if isinstance(v, str) and len(v) == 3:
                    code = v.upper()
                    if code in ISO_CURRENCIES:
                        if found is None:
                            found = []
                        found.append(code)
            if found is None:
                scope = currencies
            else:
                local = frozenset(found)
                scope = local
                self.ev.currencies.update(local)
            meta = self.key_meta.get(keys)
            if meta is None:
                meta = self.key_meta[keys] = {}
            numbers = self.ev.numbers
            for k, v in value.items():
                if k not in self.keys:
                    self.keys.add(k)
                    self.hay.append(normalize_text(str(k)))
                # Strings and numbers, most leaves, are read here rather than through another call.
                if isinstance(v, str):
                    km = meta.get(k)
                    if km is None:
                        km = meta[k] = (_key_tokens_of((*keys, k)), _key_unit(k))
                    self._string(v, msg, (*path, k), record, list_path, km[0], km[1], scope)
                elif isinstance(v, (int, float)) and not isinstance(
                    v, bool
                ):  # a tuple: faster than int | float
                    km = meta.get(k)
                    if km is None:
                        km = meta[k] = (_key_tokens_of((*keys, k)), _key_unit(k))
                    numbers.append(
                        Fact(
                            "number",
                            float(v),
                            msg,
                            (*path, k),
                            record,
                            list_path,
                            km[0],
                            km[1],
                            scope,
                            str(v),
                        )
                    )
                else:
                    self.walk(v, msg, (*path, k), record, list_path, scope, (*keys, k))
            return
        # The tokens of the keys on the path, memoised per key path: every record of a list repeats them.
        key_tokens = _key_tokens_of(keys)
        if isinstance(value, list):
            self.budget.step("reading the tool results", 1 + len(value))
            lp = (msg, path)
            self._count(len(value), msg, path, record, list_path, key_tokens, "length")
            self._tallies(value, msg, path, record, key_tokens)
            for i, v in enumerate(value):
                if isinstance(v, (dict, list)):
                    self.walk(v, msg, (*path, i), (msg, (*path, i)), lp, currencies, keys)
                else:
                    self.walk(v, msg, (*path, i), record, list_path, currencies, keys)
            return
        key = keys[-1] if keys else ""
        if isinstance(value, bool):
            state = _boolean_state(lower(key))
            if state is not None:
                yes, no = state
                self.ev.states.append(
                    Fact(
                        "state",
                        yes if value else no,
                        msg,
                        path,
                        record,
                        list_path,
                        key_tokens,
                        text=lower(str(value)),
                    )
                )
            return
        if isinstance(value, (int, float)):
            unit = _key_unit(key)
            self._num(value, msg, path, record, list_path, key_tokens, unit, currencies, str(value), "tool")
            return
        if isinstance(value, str):
            self._string(value, msg, path, record, list_path, key_tokens, _key_unit(key), currencies)

    def _named_items(
        self,
        value: dict[Any, Any],
        msg: int,
        path: tuple[Any, ...],
        currencies: frozenset[str],
        keys: tuple[str, ...],
    ) -> None:
        """A mapping from item names to their values (``{"Le Marais": "Rating: 4.2", ...}``): each entry is
        one record, as the elements of a list are, and its name is a string of that record.

        The name does not join the key tokens of its values: it names an item, not a field ("2 suites" must
        not count the numbers under "Montmartre Suites")."""
        self.budget.step("reading the tool results", 1 + len(value))
        lp = (msg, path)
        key_tokens = _key_tokens_of(keys)
        for k, v in value.items():
            where = (*path, k)
            rec: Record = (msg, where)
            if k not in self.keys:
                self.keys.add(k)
            self._string(k, msg, where, rec, lp, key_tokens, None, currencies)
            self.walk(v, msg, where, rec, lp, currencies, keys)

    def _string(
        self,
        text: str,
        msg: int,
        path: tuple[Any, ...],
        record: Record,
        list_path: Any,
        key_tokens: frozenset[str],
        key_unit: str | None,
        currencies: frozenset[str],
    ) -> None:
        """A string leaf: its words, its state, the date, time or number it is, or the values inside it.

        ``key_unit`` is the unit its key names (``height_m``), for a string that is a plain number."""
        info = _read_string_cached(text) if len(text) <= _MEMO_MAX_CHARS else _read_string(text)
        ev = self.ev
        self.raw.append(info.folded)
        self.hay.append(info.norm)
        if info.unhyphenated is not None:
            self.hay.append(info.unhyphenated)  # the name matches the words either way
        ev.strings.append(Fact("string", info.norm, msg, path, record, list_path, key_tokens, text=text))
        state = info.state
        if state is None and ("status" in key_tokens or "state" in key_tokens):
            # A status slot's value is a state even when the word means other things in prose ("returned").
            state = STATUS_WORDS.get(info.norm) or STATUS_WORDS.get(info.norm.replace("_", " "))
        if state:
            ev.states.append(Fact("state", state, msg, path, record, list_path, key_tokens, text=text))
        if info.date is not None:
            assert info.datetime is not None
            ev.dates.append(Fact("date", info.date, msg, path, record, list_path, key_tokens, text=text))
            ev.numbers.append(
                _year_fact(info.date[0], msg, path, record, list_path, key_tokens, text, "tool")
            )
            if info.time is not None:
                ev.times.append(Fact("time", info.time, msg, path, record, list_path, key_tokens, text=text))
            ev.datetimes.append(
                Fact("datetime", info.datetime, msg, path, record, list_path, key_tokens, text=text)
            )
            return
        if info.number is not None:
            self._num(
                info.number, msg, path, record, list_path, key_tokens, key_unit, currencies, text, "tool"
            )
            return
        if info.mentions:
            self._mentions(info.mentions, msg, "tool", record, list_path, path, key_tokens, currencies, text)

    def _count(
        self,
        n: int,
        msg: int,
        path: tuple[Any, ...],
        record: Record,
        list_path: Any,
        key_tokens: frozenset[str],
        how: str,
    ) -> None:
        self.ev.counts.append(Fact("count", float(n), msg, path, record, list_path, key_tokens, text=how))

    def _tallies(
        self, items: list[Any], msg: int, path: tuple[Any, ...], record: Record, key_tokens: frozenset[str]
    ) -> None:
        # "two of the five transactions are pending": how many elements share a value, and integer totals.
        # Plain dictionaries and ``get``: compiled, their operations are native, a defaultdict's are generic.
        by_value: dict[tuple[str, Any], int] = {}
        totals: dict[str, float] = {}
        for item in items:
            if not isinstance(item, dict):
                continue
            for k, v in item.items():
                if isinstance(v, str):
                    if len(v) < 40:
                        pair: tuple[str, Any] = (k, v)  # one tuple for the look-up and the store
                        by_value[pair] = by_value.get(pair, 0) + 1
                elif isinstance(v, bool):  # str(True) is short: every boolean is tallied
                    pair = (k, v)
                    by_value[pair] = by_value.get(pair, 0) + 1
                elif isinstance(v, (int, float)):
                    totals[k] = totals.get(k, 0.0) + v
        # The path's key tokens with each key, made once per key: the values of one key share them.
        with_key: dict[str, frozenset[str]] = {}
        n_items = len(items)
        for (k, v), n in by_value.items():
            tokens = with_key.get(k)
            if tokens is None:
                tokens = with_key[k] = key_tokens | {k}
            if 1 < n < n_items or n_items <= 3:
                self._count(n, msg, path, record, None, tokens, "tally")
            # Lower-casing makes no letter of what is not one (checked over every code point): a value
            # that is not all letters needs no lower-cased copy.
            if isinstance(v, str) and n_items > 1 and v.isalpha():
                word = lower(v)
                if word.isalpha() and len(word) > 2:
                    fact = Fact("count", float(n), msg, path, record, None, tokens, text=v)
                    self.ev.value_counts.setdefault(word, []).append(fact)
        for k, total in totals.items():
            if float(total).is_integer() and 0 <= total <= 1000:
                tokens = with_key.get(k)
                if tokens is None:
                    tokens = with_key[k] = key_tokens | {k}
                self._count(int(total), msg, path, record, None, tokens, "total")


def clear_caches() -> None:
    """Empty the memo caches of evidence reading (for cold-cache measurements; results do not change)."""
    for cached in (
        _read_string_cached,
        _text_mentions_cached,
        _key_tokens_of,
        _key_unit,
        _boolean_state,
        _initials,
    ):
        cached.cache_clear()
    forget_function_words()


def _item_name_key(key: Any) -> bool:
    """Whether a dict key reads as an item's name (words with a capital: "Le Marais Boutique") rather than a
    field's ("price", "user_id", "Content-Type")."""
    return isinstance(key, str) and " " in key.strip() and lower(key) != key and key.upper() != key


def _keyed_by_names(value: dict[Any, Any]) -> bool:
    """Whether a dict maps the names of items to their values rather than fields to theirs: at least two
    keys, each with a space between words and a capital letter ("Le Marais Boutique", "SunSet Rent-A-Car"),
    as field names ("price", "user_id", "Content-Type") have not, and all values of one type.

    >>> _keyed_by_names({"Le Marais": "Rating: 4.2", "Good Night": "Rating: 5.0"})
    True
    >>> _keyed_by_names({"price": 4.2, "name": "Good Night"}), _keyed_by_names({"Good Night": 1})
    (False, False)
    """
    if len(value) < 2:
        return False
    kinds = set()
    for k, v in value.items():
        if not _item_name_key(k):
            return False
        kinds.add(type(v))
        if len(kinds) > 1:
            return False
    return True


def _same_kind(a: frozenset[str], b: frozenset[str]) -> bool:
    """Whether two records with these fields are items of one kind: they share at least half of all their
    fields (an order with a ``cancel_reason`` is still an order; a plan shares one field with a line).

    >>> line = frozenset(["line_id", "phone_number", "plan_id", "data_used_gb", "status"])
    >>> _same_kind(line, line | {"suspension_start_date"})
    True
    >>> _same_kind(line, frozenset(["plan_id", "name", "data_limit_gb", "price_per_month"]))
    False
    """
    return 2 * len(a & b) >= len(a | b)


def _sibling_lists(results: list[ToolResult]) -> dict[int, Any]:
    """The list each tool result is a record of, by message index (none for a tool called once).

    The results of one tool are siblings, like the elements of one list, and a value found in one of them
    but told of another is that other item's error. A generic getter (``get_details_by_id`` of a line, of
    its plan, of the customer) returns records of several kinds: a plan is no sibling of a line, and a
    line's usage told next to the plan's name is the line's (issue 14, h23a, tau2-bench telecom). Records
    (JSON objects) are grouped by their fields (``_same_kind``, against each group's first record); every
    other result of the tool (a list, a string, items keyed by their names) stays in the tool's group.
    A tool whose records are all of one kind keeps the one list it always had.

    >>> from .messages import ToolResult
    >>> def res(i, data):
    ...     return ToolResult("c", "get_details_by_id", "", data, i)
    >>> line = {"line_id": "L1", "plan_id": "P1", "data_used_gb": 8.7, "status": "Active"}
    >>> plan = {"plan_id": "P1", "name": "Premium", "data_limit_gb": 15.0, "price_per_month": 65.0}
    >>> lists = _sibling_lists([res(2, line), res(4, dict(line, line_id="L2")), res(6, plan)])
    >>> lists[2] == lists[4], 6 in lists
    (True, False)
    >>> _sibling_lists([res(2, line), res(4, dict(line, line_id="L2"))])[2]
    (-1, ('tool', 'get_details_by_id'))
    """
    by_tool: dict[str, list[ToolResult]] = {}
    for res in results:
        by_tool.setdefault(res.name, []).append(res)
    out: dict[int, Any] = {}
    for name, group in by_tool.items():
        if len(group) < 2:
            continue
        kinds: list[frozenset[str]] = []  # the fields of each kind's first record
        kind_of: list[int] = []  # per result of ``group``: its kind (-1: not a record of fields)
        for res in group:
            data = res.data
            if not isinstance(data, dict) or not data or all(_item_name_key(k) for k in data):
                # Not a record of fields: a list, a text, items keyed by their names ({"Speedy Rentals":
                # 48.0} beside {"SunSet Rent-A-Car": 45.0}, one price each, are still siblings).
                kind_of.append(-1)
                continue
            fields = frozenset(str(k) for k in data)
            k = next((i for i, seen in enumerate(kinds) if _same_kind(seen, fields)), -1)
            if k < 0:
                kinds.append(fields)
                k = len(kinds) - 1
            kind_of.append(k)
        split = len(kinds) > 1
        sizes: dict[int, int] = {}
        for k in kind_of:
            sizes[k] = sizes.get(k, 0) + 1
        for res, k in zip(group, kind_of, strict=True):
            if not split:
                out[res.message_index] = (-1, ("tool", name))
            elif sizes[k] > 1:
                out[res.message_index] = (-1, ("tool", name, k))
    return out


def build_evidence(run: ParsedRun, budget: Budget = UNLIMITED) -> Evidence:
    """Index the tool results, user messages and system prompts of ``run`` (``budget`` is checked as the
    results are read).

    >>> from .messages import parse_run
    >>> run = parse_run([{"role": "user", "content": "Height?"},
    ...                  {"role": "tool", "tool_call_id": "c", "content": '{"height_m": 330}'},
    ...                  {"role": "assistant", "content": "330 m"}])
    >>> ev = build_evidence(run)
    >>> [(f.value, f.unit) for f in ev.numbers]
    [(330.0, 'm')]
    """
    ev = Evidence()
    b = _Builder(ev, budget)
    # Results of the same tool are sibling records, like the elements of one list (of one kind of record).
    sibling_lists = _sibling_lists(run.results)
    for res in run.results:
        budget.check("reading the tool results")
        ev.contents[res.message_index] = res.content
        ev.has_tool_results = True
        root: Record = (res.message_index, ())
        siblings = sibling_lists.get(res.message_index)
        if res.data is not None:
            b.walk(res.data, res.message_index, (), root, siblings, frozenset())
        else:
            # A YAML result's page is one double-quoted string: read with its escapes decoded.
            text = decode_quoted(res.content)
            b.raw.append(text.casefold())
            b.hay.append(normalize_text(text))
            b.add_text(text, res.message_index, "tool", root, None, "$", frozenset(), frozenset())
            if ":" in text:
                for value, unit, shown in _key_unit_numbers(text):
                    b._num(value, res.message_index, "$", root, None, _NO_KEYS, unit, _NO_KEYS, shown, "tool")
            for state in (*_slot_states(text), *_action_states(text), *_boolean_slot_states(text)):
                ev.states.append(
                    Fact("state", state, res.message_index, "$", root, None, _STATUS_KEY, text=state)
                )
    # The arguments of a call that succeeded are what the tool acted on: "I've set an alarm for 6:30 PM"
    # rests on set_alarm(time="18:30:00") as much as on its result. They join the record of the call's
    # result (one item: the call and what it returned). A failed call (an ``error`` result) did nothing.
    results_by_call = {r.call_id: r for r in run.results}
    for call in run.calls:
        res_of = results_by_call.get(call.call_id)
        if res_of is None or not isinstance(call.arguments, dict) or not call.arguments:
            continue
        if isinstance(res_of.data, dict) and "error" in res_of.data and res_of.data["error"]:
            continue
        budget.check("reading the tool results")
        if call.message_index not in ev.contents:
            ev.contents[call.message_index] = call.raw_arguments
        b.walk(
            call.arguments,
            call.message_index,
            ("tool_calls", call.index, "function", "arguments"),
            (res_of.message_index, ()),
            sibling_lists.get(res_of.message_index),
            frozenset(),
        )
    for source, items in (("user", run.user), ("system", run.system)):
        for idx, text in items:
            ev.contents[idx] = text
            b.raw.append(text.casefold())
            b.hay.append(normalize_text(text))
            b.add_text(text, idx, source, None, None, "$", frozenset(), frozenset())
    ev.pieces = b.hay
    ev.haystack = " | ".join(b.hay)
    ev.raw_haystack = " | ".join(b.raw)
    return ev
