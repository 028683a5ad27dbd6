"""Run case-insensitive regexes faster over long texts, with the same matches.

``re`` can skip ahead to the characters that may start a match (a literal prefix or a first-character
set) only when the pattern starts with a literal, a character set, or an alternation of literals, and
only when those characters are not case-folded.  A case-insensitive pattern that starts with ``\\b``
gets neither, so it tries a match at every position of the text.  ``lowered_variant`` compiles such a
pattern case-sensitively, without the leading ``\\b``, for use over ``text.lower()``; ``lowered_matches``
checks the ``\\b`` in Python at each candidate, so the engine skips to plausible starts; the
callers fall back to the plain pattern when lower-casing changes the text's length (offsets would drift).

Two more helpers for long texts: ``lowered_text`` lower-cases a mostly-Latin-1 text in pieces (the
same result as ``str.lower``, a fraction of the cost), and ``LeadSearch`` finds a pattern's next match
by trying it only where one of the strings its matches start with occurs.  ``lower`` (from
``verification.engine.text``) is ``str.lower`` as Python computes it, which mypyc's compiled ``.lower()``
is not for a word-final capital sigma.
"""

from __future__ import annotations

import bisect
import codecs
import heapq
import re
from collections.abc import Callable, Collection, Iterator

from ..text import lower
from .prefilter import trie_pattern

__all__ = [
    "AT_START",
    "LeadScan",
    "LeadSearch",
    "at_word_boundary",
    "has_upper_literal",
    "is_word",
    "lead_scan_pattern",
    "lowered_matches",
    "lowered_text",
    "lowered_variant",
    "record_match",
    "required_lowered_variant",
    "top_level",
]


# ``str.lower`` of each Latin-1 character, as a byte table: each is one Latin-1 character (a test checks).
_LATIN1_LOWER = bytes(ord(lower(chr(code))) for code in range(256))
_NULS = re.compile(rb"\x00+")
#: Texts shorter than this are lower-cased by ``str.lower`` alone (the pieces would cost more).
LOWER_PIECES_MIN_CHARS = 1_024


def _as_nul(error: UnicodeError) -> tuple[str, int]:
    assert isinstance(error, UnicodeEncodeError)
    return "\x00" * (error.end - error.start), error.end


codecs.register_error("trust_registry.as_nul", _as_nul)


def lowered_text(text: str) -> str:
    """``text.lower()``, cheaper on long texts that are not ASCII but mostly Latin-1.

    ``str.lower`` walks a text that is not ASCII character by character through the Unicode tables
    (paid for every long text and each of its re-scanned regions): one curly quote is enough.
    Latin-1 characters lower-case to Latin-1 characters one for one, so their bytes go through one
    translation table; the other characters (written as NUL bytes by the encoder)
    are lower-cased in their runs by ``str.lower``.  That is exact because ``str.lower`` maps each
    character on its own, except a capital sigma, whose form depends on the letters around it: texts
    with one (or with a real NUL) take ``str.lower`` whole.

    >>> lowered_text("Ünïcode ’QUOTES’ İ ok" * 60) == ("Ünïcode ’QUOTES’ İ ok" * 60).lower()
    True
    """
    if len(text) < LOWER_PIECES_MIN_CHARS or text.isascii():
        return lower(text)
    try:
        return text.encode("latin-1").translate(_LATIN1_LOWER).decode("latin-1")
    except UnicodeEncodeError:
        pass
    if "\u03a3" in text or "\x00" in text:
        return lower(text)
    data = text.encode("latin-1", "trust_registry.as_nul").translate(_LATIN1_LOWER)
    pieces: list[str] = []
    pos = 0
    for run in _NULS.finditer(data):
        start, end = run.span()
        pieces.append(data[pos:start].decode("latin-1"))
        pieces.append(lower(text[start:end]))
        pos = end
    pieces.append(data[pos:].decode("latin-1"))
    return "".join(pieces)


def is_word(ch: str) -> bool:
    """Whether ``ch`` is a regex word character (``\\w``); false for the empty string."""
    return ch.isalnum() or ch == "_"


def at_word_boundary(text: str, pos: int) -> bool:
    """Whether ``\\b`` holds at ``pos`` of ``text`` (a word character on exactly one side).

    >>> at_word_boundary("a cat", 2), at_word_boundary("scat", 1)
    (True, False)
    """
    return (pos > 0 and is_word(text[pos - 1])) != is_word(text[pos : pos + 1])


def has_upper_literal(pattern: str) -> bool:
    """Whether ``pattern`` holds an upper-case literal (escapes such as ``\\W`` are classes, not literals).

    >>> has_upper_literal(r"\\bDAN\\b"), has_upper_literal(r"\\W+\\bdo\\S")
    (True, False)
    """
    i = 0
    while i < len(pattern):
        if pattern[i] == "\\":
            i += 2
            continue
        if pattern[i].isupper():
            return True
        i += 1
    return False


def top_level(pattern: str) -> str:
    """The characters of ``pattern`` outside any group or character class (to find top-level ``|``).

    >>> top_level(r"a(?:b|c)[|]|d")
    'a|d'
    """
    depth, in_class, out, i = 0, False, [], 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            i += 2
            continue
        if in_class:
            in_class = ch != "]"
        elif ch == "[":
            in_class = True
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif depth == 0:
            out.append(ch)
        i += 1
    return "".join(out)


def lowered_variant(pattern: str) -> tuple[re.Pattern[str], bool] | None:
    """The case-sensitive form of the case-insensitive ``pattern`` for lower-cased text, and whether its
    leading ``\\b`` must be checked by the caller; ``None`` when the pattern holds upper-case literals.

    >>> lowered_variant(r"\\b(?:ssn|social)\\b")[1], lowered_variant(r"\\bA") is None
    (True, True)
    """
    if has_upper_literal(pattern):
        return None
    boundary = pattern.startswith("\\b")
    body = pattern[2:] if boundary else pattern
    if boundary and "|" in top_level(body):
        boundary, body = False, pattern  # "\\bA|B": the boundary binds only to A; keep it in the regex
    return re.compile(body), boundary


def required_lowered_variant(pattern: str) -> tuple[re.Pattern[str], bool]:
    """``lowered_variant`` of a pattern known to have one (raises ``ValueError`` otherwise)."""
    variant = lowered_variant(pattern)
    if variant is None:
        raise ValueError(f"pattern has upper-case literals: {pattern!r}")
    return variant


# How far a ``LeadSearch`` first looks for a lead (it doubles each time the lead is not there).
_FIRST_STRETCH = 4096


class LeadSearch:
    """The first match of ``compiled`` at or after a position of a long ``text``, by trying it only where
    a match can start: where one of ``leads`` occurs (``prefilter.leading_literals``: every match starts
    with one of them), and with ``boundary`` only where ``\\b`` holds too.

    ``re`` tries a pattern at every position whose character may start it, which on a long page with
    rare matches is most of the cost of each next match.  ``str.find`` runs to each
    lead's next occurrence at memory speed, and ``compiled.match`` there is the try ``search`` would
    make at that position (look-behinds and ``^`` see the text before it alike), so the first success
    is ``search``'s answer.  Each lead's next occurrence is kept between calls (they move forward).

    A lead is looked for a stretch at a time, the stretch doubling each time it is not found: a lead
    that does not occur again would otherwise be looked for to the end of the text, where the search
    may stop long before (a rule's first few matches), and most of a rule's leads are rare.
    """

    def __init__(
        self,
        compiled: re.Pattern[str],
        leads: tuple[str, ...],
        text: str,
        boundary: bool,
        first_stretch: int = _FIRST_STRETCH,
        finder: Callable[[str, int, int], list[int]] | None = None,
    ) -> None:
        if first_stretch < 1:
            raise ValueError(f"first_stretch must be at least 1, got {first_stretch}")
        self.compiled = compiled
        self.leads = leads
        self.text = text
        self.boundary = boundary
        # For each lead, from ``since`` on: where it next occurs (``len(text)``: nowhere; -1: not looked
        # for), or, where ``found`` is false, a place it does not occur before.
        self.next_at = [-1] * len(leads)
        self.found = [True] * len(leads)
        self.stretch = [first_stretch] * len(leads)
        self.since = 0
        # The same places as a min-heap of ``next_at[k] * len(leads) + k`` (one int per lead): each try
        # reads the nearest place and moves only the leads it passed, where a scan of every lead per try
        # cost most of a search through a page whose leads are common ("an", "do").
        self._heap = [k - len(leads) for k in range(len(leads))]
        # ``finder(text, start, end)``, when given, lists where any lead starts in ``[start, end)``, in
        # one pass for all of them (``multiscan.LeadFinder``); the places found so far lie in
        # ``[_lo, _hi)``, and the next stretch is ``_span`` long (doubling, as above).
        self.finder = finder
        self._places: list[int] = []
        self._lo = 0
        self._hi = 0
        self._first = first_stretch
        self._span = first_stretch

    def _look(self, k: int, start: int) -> int:
        """Look for lead ``k`` from ``start`` over its next stretch; update and return ``next_at[k]``."""
        text = self.text
        lead = self.leads[k]
        stretch = self.stretch[k]
        end = start + stretch
        at = text.find(lead, start, end + len(lead) - 1)  # an occurrence that starts before ``end``
        if at >= 0 or end >= len(text):
            self.found[k] = True
            at = at if at >= 0 else len(text)
        else:
            self.found[k] = False
            self.stretch[k] = 2 * stretch
            at = end
        self.next_at[k] = at
        return at

    def search(self, pos: int) -> re.Match[str] | None:
        """``compiled.search(text, pos)`` (with ``boundary``: the first match from ``pos`` that starts
        where ``\\b`` holds, which ``lowered_matches`` would keep)."""
        if self.finder is not None:
            return self._search_places(pos)
        text = self.text
        size = len(text)
        count = len(self.leads)
        found = self.found
        heap = self._heap
        if not heap:
            return None
        if pos < self.since:
            # the kept places hold for searches from ``since`` on only
            self.next_at[:] = [-1] * count
            heap[:] = [k - count for k in range(count)]
        self.since = pos
        while True:
            # Settle the top: a lead's next occurrence at or after ``pos``. Every other entry is one
            # too, or a place its lead does not occur before; so the top is the nearest occurrence.
            while True:
                top = heap[0]
                at, k = divmod(top, count)
                if at < pos:
                    at = self._look(k, pos)
                elif not found[k]:
                    at = self._look(k, at)  # not before ``at``: look on
                else:
                    break
                heapq.heapreplace(heap, at * count + k)
            if at >= size:
                return None
            self.since = pos
            if not self.boundary or at_word_boundary(text, at):
                match = self.compiled.match(text, at)
                if match is not None:
                    return match
            pos = at + 1

    def _search_places(self, pos: int) -> re.Match[str] | None:
        """``search`` from the places ``finder`` lists, a stretch at a time."""
        finder = self.finder
        assert finder is not None
        text = self.text
        size = len(text)
        places = self._places
        if pos < self._lo or pos > self._hi:
            # the places kept cover ``[_lo, _hi)`` only: start afresh from ``pos``
            places.clear()
            self._lo = self._hi = pos
            self._span = self._first
        i = bisect.bisect_left(places, pos)
        while True:
            if i == len(places):
                if self._hi >= size:
                    return None
                end = min(size, self._hi + self._span)
                places.extend(finder(text, self._hi, end))
                self._hi = end
                self._span *= 2
                continue
            at = places[i]
            if not self.boundary or at_word_boundary(text, at):
                match = self.compiled.match(text, at)
                if match is not None:
                    return match
            i += 1


#: The ``LeadScan`` offset of a finder that is its pattern without a leading start-of-text branch
#: (``rule_index.without_start_branch``): the text's start is tried first, then where the finder matches.
AT_START = -1


class LeadScan:
    """``LeadSearch`` for short texts: the first match of ``compiled`` at or after a position, tried only
    where ``finder`` (``lead_scan_pattern``: one regex of the leads, which ``re`` skips to) matches.

    A pattern that starts with a look-behind, a ``\\b`` kept in the regex or an alternation whose
    branches do not all start with a literal gives ``re`` no first characters to skip to: its search
    tries every branch at every position of the text (the "talks about attacks" phrases cost about as
    much on a short line as all the rules together).  The regex of the leads is a trie that ``re`` skips
    through in C; ``compiled.match`` runs only where a lead starts, the try ``search`` would make there.
    With ``offset`` 1 the finder matches the non-word character before a lead (``\\W`` first: only
    leads at a word start, and ``re`` skips to blanks and punctuation), and a lead at the text's start
    is tried directly.  With offset ``AT_START`` the finder is the pattern itself without its leading
    ``^`` branch (``(?:^|[.!?:\\n|]\\s{0,4})please`` searched as ``(?:[.!?:\\n|]\\s{0,4})please``, which
    ``re`` skips through to the punctuation): past the text's start ``^`` fails, so the pattern matches
    where that form does, with the same span.
    """

    def __init__(
        self, compiled: re.Pattern[str], finder: re.Pattern[str], offset: int, text: str, boundary: bool
    ) -> None:
        self.compiled = compiled
        self.finder = finder
        self.offset = offset
        self.text = text
        self.boundary = boundary

    def search(self, pos: int) -> re.Match[str] | None:
        """``compiled.search(text, pos)`` (with ``boundary``: the first match from ``pos`` that starts
        where ``\\b`` holds), as ``LeadSearch.search`` gives it."""
        text = self.text
        compiled = self.compiled
        finder = self.finder
        if self.offset == AT_START:
            if pos <= 0:
                match = compiled.match(text, 0)
                if match is not None:
                    return match
                pos = 1  # what the finder matches at 0, ``compiled`` matched there (its other branches)
            found = finder.search(text, pos)
            while found is not None:
                # Past the start the two agree: ``compiled`` matches here, as the finder did.
                match = compiled.match(text, found.start())
                if match is not None:
                    return match
                found = finder.search(text, found.start() + 1)
            return None
        if self.offset:
            # Only leads at a word start (every lead starts with a word character): the one at the
            # text's start, then those after a non-word character.
            if pos <= 0:
                pos = 0
                if is_word(text[:1]):
                    match = compiled.match(text, 0)
                    if match is not None:
                        return match
                pos = 1
            found = finder.search(text, pos - 1)
            while found is not None:
                match = compiled.match(text, found.start() + 1)
                if match is not None:
                    return match
                found = finder.search(text, found.start() + 1)
            return None
        found = finder.search(text, pos)
        boundary = self.boundary
        while found is not None:
            at = found.start()
            if not boundary or at_word_boundary(text, at):
                match = compiled.match(text, at)
                if match is not None:
                    return match
            found = finder.search(text, at + 1)
        return None


def lead_scan_pattern(leads: Collection[str], boundary: bool) -> tuple[re.Pattern[str], int]:
    """The finder of a ``LeadScan`` over ``leads`` and its offset: with ``boundary`` and leads that all
    start with a word character, ``\\W`` and the leads (offset 1), else the leads alone (offset 0).

    >>> finder, offset = lead_scan_pattern(["ask", "an"], True)
    >>> offset, [m.start() + offset for m in finder.finditer("an ask, task (an")]
    (1, [3, 14])
    """
    kept = sorted(lead for lead in leads if not any(o != lead and lead.startswith(o) for o in leads))
    if not kept or "" in kept:
        raise ValueError("a lead scan needs non-empty leads")
    body = trie_pattern(kept)
    if boundary and all(is_word(lead[0]) for lead in kept):
        return re.compile(r"\W" + body), 1
    return re.compile(body), 0


def lowered_matches(
    compiled: re.Pattern[str],
    boundary: bool,
    lowered: str,
    pos: int = 0,
    first: re.Match[str] | None = None,
    searcher: LeadSearch | LeadScan | None = None,
) -> Iterator[re.Match[str]]:
    """Non-overlapping matches of a ``lowered_variant`` in ``lowered``, as ``finditer`` would give them.

    ``first``, when given, is ``compiled.search(lowered, pos)`` already done by the caller (its first
    candidate); it is used instead of being searched for again.  ``searcher``, when given, is a
    ``LeadSearch`` of ``compiled`` over ``lowered`` with ``boundary``, used for the searches.

    >>> compiled, boundary = lowered_variant(r"\\bcat")
    >>> [m.start() for m in lowered_matches(compiled, boundary, "cat scat cat")]
    [0, 9]
    """
    if first is not None and first.end() == first.start():
        first = None  # an empty match: let the general loop below deal with advancing past it
    if not boundary and searcher is None:
        if first is not None:
            yield first
            pos = first.end()
        yield from compiled.finditer(lowered, pos)  # nothing to check: let re iterate in C
        return
    match = first if first is not None else _next_match(compiled, lowered, pos, searcher)
    while match is not None:
        start, end = match.span()
        if boundary and not at_word_boundary(lowered, start):
            pos = start + 1  # no word boundary here: retry from the next character, as \\b would
        else:
            yield match
            pos = end if end > start else end + 1
        match = _next_match(compiled, lowered, pos, searcher)


def _next_match(
    compiled: re.Pattern[str], lowered: str, pos: int, searcher: LeadSearch | LeadScan | None
) -> re.Match[str] | None:
    return compiled.search(lowered, pos) if searcher is None else searcher.search(pos)


def record_match(pattern_id: int, start: int, end: int, flags: int, found: list[int]) -> None:
    """Hyperscan's match handler for ``multiscan.PatternSet``: sets bit ``pattern_id`` in ``found[0]``.

    Here, in a compiled module, because hyperscan calls it once for every pattern that matches (six
    or so per short PII line): a compiled function costs less per call than an interpreted one.
    """
    found[0] |= 1 << pattern_id


def record_start(pattern_id: int, start: int, end: int, flags: int, found: list[int]) -> None:
    """Hyperscan's match handler for ``multiscan.LeadFinder``: appends where the match starts (compiled,
    like ``record_match``: it runs once per occurrence of a lead)."""
    found.append(start)
