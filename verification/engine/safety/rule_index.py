"""The index machinery behind ``injection``: which rules can match a text, and where meta phrases are.

``injection`` states the algorithm (scan, weigh, score); this module makes it cheap without changing a
result:

- ``RuleIndex`` opens only the rules whose literal strings occur in the text (a per-token bit-set
  cache for short texts, one hyperscan pass through ``multiscan`` for long ones);
- ``MetaIndex`` finds the phrases that mark a sentence as talking *about* attacks, lazily and only as
  far as the matches asked about need;
- ``search_leads`` picks the strings a long text is searched from (``fastpath.LeadSearch``).

Every shortcut is a necessary condition for a match, so skipping what it rules out changes nothing;
the tests run each one against its slow reference (``check_clauses``, ``use_prefilter``, empty
``leads``).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Iterator, Sequence
from functools import reduce
from operator import or_

from .deobfuscate import LEETSPEAK, LEETSPEAK_BYTES
from .fastpath import AT_START, LeadScan, LeadSearch, lead_scan_pattern, lowered_matches
from .injection_rules import RULES, TOOL_RESULT_RULES, Rule
from .multiscan import PatternSet, lead_finder, widened
from .prefilter import (
    leading_literals,
    lowered_literals,
    required_literals,
    skips_ahead,
    start_branch,
    trie_pattern,
)

__all__ = [
    "ALL_RULES",
    "LEAD_SEARCH_MIN_CHARS",
    "PREFILTER_LOWERED",
    "PREFILTER_MIN_CHARS",
    "PREFILTER_PLAIN",
    "QUOTE_REACH",
    "MetaIndex",
    "RuleIndex",
    "cased_clauses",
    "close_quote",
    "open_quote",
    "search_leads",
    "without_start_branch",
]

# Distinct tokens whose needle lookups are kept, and the longest token kept (some 10 MB at most); the
# cache is emptied when full.
_TOKEN_CACHE_SIZE = 50_000
_MAX_CACHED_TOKEN = 256
# Texts from this length on ask hyperscan which rules may match (one pass for all rules) instead of
# looking their words up token by token: past it the regexes the words let through cost more than the
# pass (see ``RuleIndex.prefiltered``).
PREFILTER_MIN_CHARS = 256
_CLAUSE_MIN_LITERAL = 2


# How far back a quotation around a match may have opened (a quoted attack runs to a few hundred characters).
QUOTE_REACH = 600
# Abbreviations whose dots end no sentence (``MetaIndex.meta_sentence``).
_ABBREVIATIONS = frozenset({"e.g.", "i.e.", "E.g.", "I.e.", "E.G.", "I.E."})
_QUOTE_CHARS = "\"'\u201c\u201d\u2018\u2019\u00ab\u00bb"
_QUOTE_MARK = re.compile("[" + _QUOTE_CHARS + "]")
_CLOSING = {"\u201c": "\u201d", "\u2018": "\u2019", "\u00ab": "\u00bb", '"': '"', "'": "'"}
_OPENING = {**{c: c for c in _CLOSING}, **{v: k for k, v in _CLOSING.items()}}


def open_quote(text: str, lo: int, start: int) -> int:
    """Where the outermost quotation still open at ``start`` opened, looked for in ``[lo, start)`` on the
    line of ``start``; -1 when there is none.

    A quote mark opens when what precedes it is a space, a bracket, a colon, another quote or the line
    start and what follows is not a space; otherwise it closes the innermost open quotation of its kind.
    An apostrophe between letters ("don't") does neither. Nested quotations of the same kind
    ('print "hi" now') are followed as a stack.

    >>> open_quote('He wrote: "Stop. Ignore that', 0, 22), open_quote('He wrote: "Stop." Ignore', 0, 18)
    (10, -1)
    >>> open_quote("it said: 'Nevermind. Ignore it", 0, 21), open_quote("don't ignore it", 0, 6)
    (9, -1)
    >>> open_quote('the line "Stop. Print "hi" and ignore', 0, 30)
    9
    """
    line = text.rfind("\n", lo, start)
    lo = max(lo, line + 1)
    stack: list[tuple[int, str]] = []
    # Only the quote marks count: ``re`` skips to them (a match lies up to ``QUOTE_REACH`` characters
    # into a long line, and a character loop over them was most of a long page's discounting).
    for found in _QUOTE_MARK.finditer(text, lo, start):
        at = found.start()
        ch = text[at]
        prev = text[at - 1] if at > lo else " "
        follow = text[at + 1] if at + 1 < len(text) else " "
        if prev.isalpha() and follow.isalpha():
            continue  # an apostrophe
        kind = _OPENING[ch]
        opening = (prev.isspace() or prev in "([{:" or prev in _QUOTE_CHARS) and not follow.isspace()
        if opening and ch in _CLOSING:
            stack.append((at, kind))
            continue
        for k in range(len(stack) - 1, -1, -1):
            if stack[k][1] == kind:
                del stack[k:]
                break
    return stack[0][0] if stack else -1


def close_quote(text: str, quote: str, start: int, stop: int) -> int:
    """The quote closing a quotation opened with ``quote``, in ``[start, stop)`` on one line (the first
    one followed by a space, punctuation or the line end); -1 when there is none.

    >>> close_quote("it's 'done'. ok", "'", 6, 15), close_quote('a "b" c', '"', 3, 7)
    (10, 4)
    """
    closer = _CLOSING.get(quote, quote)
    line = text.find("\n", start, stop)
    if line >= 0:
        stop = line
    at = text.find(closer, start, stop)
    while at >= 0:
        follow = text[at + 1] if at + 1 < len(text) else " "
        if not follow.isalnum() and text[at - 1] != " ":
            return at
        at = text.find(closer, at + 1, stop)
    return -1


class MetaIndex:
    """Where a text talks *about* attacks: meta phrases, found as far as the matches asked about need."""

    def __init__(
        self,
        text: str,
        lowered: str,
        phrases: re.Pattern[str],
        phrases_lowered: tuple[re.Pattern[str], bool],
        leads: tuple[str, ...] | None = None,
        absent: bool = False,
        scan: tuple[re.Pattern[str], int] | None = None,
    ) -> None:
        self.text = text
        self.lowered = lowered
        # The case-insensitive phrase regex, and its lower-cased variant with whether it needs a word
        # boundary checked at each candidate (``fastpath.required_lowered_variant``).
        self.phrases = phrases
        self.phrases_lowered = phrases_lowered
        # Leads of the phrases (``RuleIndex.meta_leads``), given for a long text: searched from their
        # occurrences (``LeadSearch``).
        self.leads = leads
        # The finder of their leads (``RuleIndex.meta_scan``), given for a shorter text (``LeadScan``).
        self.scan = scan
        self.meta: list[tuple[int, int]] = []
        self.meta_starts: list[int] = []
        self._found: Iterator[re.Match[str]] | None = None
        # ``absent``: the caller knows the text holds no phrase (``RuleIndex.candidates_and_meta``).
        self._exhausted = absent

    def _reach(self, pos: int) -> None:
        """Find meta phrases, in text order, until one starts at or after ``pos`` (or there are no more).

        The phrases are those one pass over the whole text finds, taken lazily: on a long page only the
        stretch up to the last match asked about is searched.
        """
        if self._exhausted:
            return
        found = self._found
        if found is None:
            if len(self.lowered) == len(self.text):
                # Searched in the lower-cased text when offsets agree (see ``fastpath``): a
                # case-insensitive regex that starts with \b tries every position.  Most texts hold no
                # meta phrase: one C-level search settles those before a generator is built.
                compiled, boundary = self.phrases_lowered
                searcher: LeadSearch | LeadScan | None = None
                if self.leads is not None:
                    searcher = LeadSearch(
                        compiled, self.leads, self.lowered, boundary, finder=lead_finder(self.leads)
                    )
                elif self.scan is not None:
                    searcher = LeadScan(compiled, self.scan[0], self.scan[1], self.lowered, boundary)
                first = compiled.search(self.lowered) if searcher is None else searcher.search(0)
                if first is None:
                    self._exhausted = True
                    return
                found = lowered_matches(compiled, boundary, self.lowered, first.start(), first, searcher)
            else:
                found = self.phrases.finditer(self.text)
            self._found = found
        starts = self.meta_starts
        while not self._exhausted and (not starts or starts[-1] < pos):
            match = next(found, None)
            if match is None:
                self._exhausted = True
            else:
                self.meta.append(match.span())
                starts.append(match.start())

    def in_meta_sentence(self, start: int, end: int) -> bool:
        """Whether a meta phrase lies in the sentence around ``[start, end)`` (capped at 300 chars a side)."""
        return self.meta_sentence(start, end) >= 0

    def meta_sentence(self, start: int, end: int) -> int:
        """Where the sentence around ``[start, end)`` starts when a meta phrase lies in it, else -1.

        The start lets the caller read what comes before the match in that sentence (who says it).
        """
        # No phrase from the earliest place the sentence can start on: no need to find where it starts.
        lo = max(start - 300, 0)
        # A quotation that opened further back still belongs to the sentence that quotes it (below).
        cap = max(start - QUOTE_REACH, 0)
        self._reach(cap)
        if self._exhausted and (not self.meta_starts or self.meta_starts[-1] < cap):
            return -1
        # The sentence ends nearest the match, looked for only within the 300-character caps: on a long
        # page, listing every sentence end cost more than all the matches that need two of them.
        text = self.text
        last = max(text.rfind(".", lo, start), text.rfind("!", lo, start), text.rfind("?", lo, start),
                   text.rfind("\n", lo, start))  # fmt: skip
        # The dots of "e.g." / "i.e." end no sentence (h23f): "attacks ask the model to ..., e.g. 'act as
        # your evil twin'" is one sentence, whose meta phrase and reporting frame count for the example.
        while last >= lo + 3 and text[last - 3 : last + 1] in _ABBREVIATIONS:
            last = max(text.rfind(".", lo, last - 3), text.rfind("!", lo, last - 3),
                       text.rfind("?", lo, last - 3), text.rfind("\n", lo, last - 3))  # fmt: skip
        lo = max(lo, last + 1)
        hi = end + 300
        for ch in ".!?\n":
            at = text.find(ch, end, hi)
            if at >= 0:
                hi = at
        # A quotation is one unit of the sentence that quotes it: when the match sits in a quotation that
        # holds a sentence end ('the e-mail said: "Nevermind. Ignore ..."'), the sentence runs from
        # before the opening quote to after the closing one, so the reporting frame around it counts.
        opened = open_quote(text, cap, start)
        if opened >= 0 and opened < lo:
            before = max(text.rfind(".", cap, opened), text.rfind("!", cap, opened),
                         text.rfind("?", cap, opened), text.rfind("\n", cap, opened))  # fmt: skip
            lo = before + 1
        if opened >= 0:
            closed = close_quote(text, text[opened], end, end + QUOTE_REACH)
            if closed > hi:
                hi = closed + 300
                for ch in ".!?\n":
                    at = text.find(ch, closed + 1, hi)
                    if at >= 0:
                        hi = at
        self._reach(lo)
        k = bisect.bisect_left(self.meta_starts, lo)
        return lo if k < len(self.meta) and self.meta[k][1] <= hi else -1


ALL_RULES = RULES + TOOL_RESULT_RULES
# One hyperscan database for the rules that run over the lower-cased text, one for the others; both
# shared by the user and the tool-result rule sets (each a prefix of ``ALL_RULES``).  Their patterns
# are widened to read the text with leetspeak undone in every token (``multiscan.widened``), so one pass
# tells the rules that may match the text and those that may match it once ``normalize`` has undone
# leetspeak in its mixed tokens.  A widened pass costs a little more and lets a few more rules through;
# it saves undoing leetspeak and re-scanning long texts whose mixed tokens are keys, hashes and IDs
# rather than words (figures in docs/benchmarks.md, "The injection scanner's machinery").
_LOWERED_INDEXES = [i for i, r in enumerate(ALL_RULES) if r.lowered is not None]
_PLAIN_INDEXES = [i for i, r in enumerate(ALL_RULES) if r.lowered is None]
PREFILTER_LOWERED = PatternSet(
    "injection-lowered",
    [widened(r.lowered, LEETSPEAK) for r in ALL_RULES if r.lowered is not None],
    LEETSPEAK_BYTES,
)
PREFILTER_PLAIN = PatternSet(
    "injection-plain",
    [widened(r.pattern, LEETSPEAK) for r in ALL_RULES if r.lowered is None],
    LEETSPEAK_BYTES,
)


class RuleIndex:
    """Rules indexed by the literal strings their matches need, so a text only visits the rules it can fire.

    Every rule has a hand-written *gate* (lower-case substrings, one of which each match holds) and,
    when it runs case-sensitively over the lower-cased text (``Rule.lowered``), the *clauses* that
    ``prefilter.required_literals`` reads off its regex (the verb, the object, the noun ...).  A rule
    runs when its gate occurs and, on that lower-cased path, every clause has a string in the text: a
    necessary condition for a match, so skipping the others changes no result.  On the injection
    corpus lines the gates alone let 8 rules per line run their regex; gates and clauses, 3 (of which
    1 matches).

    Needles (gate and clause strings) hold no whitespace, so each occurs inside one whitespace-separated
    token of the lower-cased text: the text is split into its tokens (``str.split``, in C) and each
    distinct token is looked up in a cache of "what this token satisfies", filled by a trie-shaped
    regex that finds, at every position of the token, the longest needle starting there (the needles
    that are prefixes of it start there too and come from a precomputed table).  Tokens repeat across
    texts, so most lookups hit the cache.  What a token satisfies is one int: bit ``i`` for rule ``i``
    whose gate it holds, bit ``n + i`` for rule ``i`` whose key clause it meets, and above those one bit
    per clause that it meets.  Tests check that every rule that matches is opened.
    """

    def __init__(
        self, rules: Sequence[Rule], meta_phrases: re.Pattern[str], meta_boundary: bool = False
    ) -> None:
        self.rules = tuple(rules)
        self.always = sum(1 << i for i, r in enumerate(self.rules) if not r.gate)
        # Each needle maps to (rules whose gate holds it, rules whose key clause holds it, clause groups
        # that hold it), as bit sets.  A rule's key clause is its most selective one (longest shortest
        # string): requiring the gate and the key with two bit-wise ANDs leaves few rules to check one by
        # one against all their clauses.
        by_needle: dict[str, list[int]] = {}
        self.clause_need: list[int] = []
        keyless = 0
        groups = 0
        for i, rule in enumerate(self.rules):
            for g in rule.gate:
                by_needle.setdefault(g, [0, 0, 0])[0] |= 1 << i
            need = 0
            clauses = rule_clauses(rule.lowered) if rule.lowered is not None else cased_clauses(rule.pattern)
            for clause in clauses:
                bit = 1 << groups
                groups += 1
                need |= bit
                for needle in clause:
                    by_needle.setdefault(needle, [0, 0, 0])[2] |= bit
            if clauses:
                key = max(clauses, key=lambda c: (min(map(len, c)), -len(c)))
                for needle in key:
                    by_needle[needle][1] |= 1 << i
            else:
                keyless |= 1 << i
            self.clause_need.append(need)
        # The clauses of the "talks about attacks" phrases, as more groups: a short text none of whose
        # tokens meets them holds no such phrase, and its scan skips searching for one (most texts that
        # open a rule: the phrase regex tries every position of the text).
        self.meta_need = 0
        for clause in rule_clauses(meta_phrases):
            bit = 1 << groups
            groups += 1
            self.meta_need |= bit
            for needle in clause:
                by_needle.setdefault(needle, [0, 0, 0])[2] |= bit
        # The three bit sets travel as one int per needle (gate rules, key rules, clause groups, from the
        # low bits up), so that a text's bits are one C-level reduction with ``|`` over its tokens.
        self.shift = len(self.rules)
        self.groups_shift = 2 * self.shift
        self.rule_mask = (1 << self.shift) - 1
        # ``1 << i`` for each rule ``i``, made once (``candidates_and_meta`` clears the bits it takes).
        self.bits: list[int] = [1 << i for i in range(self.shift)]
        self.keyless = keyless
        packed = {
            n: gates | (keys << self.shift) | (groups_ << 2 * self.shift)
            for n, (gates, keys, groups_) in by_needle.items()
        }
        # A needle with whitespace could span two tokens: such needles (none so far) are substring checks.
        self.spaced = tuple((n, bits) for n, bits in packed.items() if any(ch.isspace() for ch in n))
        plain = sorted(n for n in packed if not any(ch.isspace() for ch in n))
        # What a found needle brings: its own bits and those of the needles that are its prefixes.
        self.reach = {n: _union(packed[p] for p in plain if n.startswith(p)) for n in plain}
        self.finder = re.compile(f"(?=({trie_pattern(plain)}))")
        self._by_token: dict[str, int] = {}
        # Whether ``candidates`` may drop rules by their clauses; false opens every rule by its gate alone
        # (the slow reference the tests compare against: an instance attribute, which compiled callers
        # read, where patching the method of a compiled class would not reach them).
        self.check_clauses = True
        # Whether long texts may ask hyperscan (``prefiltered``); the tests turn it off for reference runs.
        self.use_prefilter = True
        # The strings every match of a rule's lower-cased form starts with, by rule id, and those of the
        # "talks about attacks" phrases (``meta_phrases``): long texts search for the next match from
        # their occurrences (``fastpath.LeadSearch``).  The tests empty them for reference runs.
        self.leads: dict[str, tuple[str, ...]] = {
            rule.rule_id: leads
            for rule in self.rules
            if rule.lowered is not None and (leads := search_leads(rule.lowered)) is not None
        }
        self.meta_leads = search_leads(meta_phrases)
        # For shorter texts, the rules (and phrases) that ``re`` cannot skip ahead in, with the finder of
        # their leads (``fastpath.LeadScan``); the tests empty them for reference runs.
        self.scans: dict[str, tuple[re.Pattern[str], int]] = {
            rule.rule_id: scan
            for rule in self.rules
            if rule.lowered is not None and (scan := scan_of(rule.lowered, rule.lowered_boundary)) is not None
        }
        self.meta_scan = scan_of(meta_phrases, meta_boundary)
        if self.rules != ALL_RULES[: len(self.rules)]:
            raise ValueError("a rule set must be a prefix of the full rule table (its prefilter indexes)")

    def prefiltered(self, text: str, lowered: str, skip: frozenset[str] | set[str]) -> list[Rule] | None:
        """The rules that may match ``text``, or ``text`` with leetspeak undone in any of its tokens, by one
        hyperscan pass, in table order; ``None`` if unavailable.

        Only for texts whose lower-cased form has their length (the rules with a lower-cased form run
        over ``lowered``, the others over ``text``, as in ``_scan``).  Hyperscan reports every rule that
        matches and maybe a few more; ``_scan`` runs the real regexes of those it reports.
        """
        if not self.use_prefilter:
            return None
        lowered_bits = PREFILTER_LOWERED.may_match(lowered)
        if lowered_bits is None:
            return None
        plain_bits = PREFILTER_PLAIN.may_match(text)
        if plain_bits is None:
            return None
        indexes = [_LOWERED_INDEXES[k] for k in _bit_indexes(lowered_bits)]
        indexes += [_PLAIN_INDEXES[k] for k in _bit_indexes(plain_bits)]
        indexes.sort()
        count = len(self.rules)
        return [self.rules[i] for i in indexes if i < count and self.rules[i].rule_id not in skip]

    def _token_bits(self, token: str) -> int:
        found = self._by_token.get(token)
        if found is None:
            found = _union(self.reach[n] for n in set(self.finder.findall(token)))
            if len(token) > _MAX_CACHED_TOKEN:
                return found  # long tokens (blobs, URLs) rarely recur: caching them would only cost memory
            if len(self._by_token) >= _TOKEN_CACHE_SIZE:
                self._by_token.clear()  # bounded memory; it refills with the tokens that recur
            self._by_token[token] = found
        return found

    def candidates(
        self, lowered: str, skip: frozenset[str] | set[str] = frozenset(), *, clauses: bool = False
    ) -> list[Rule]:
        """The rules that may match, in table order: gate open and, with ``clauses``, every clause met.

        Pass ``clauses=True`` only when the rules will run over ``lowered`` itself (it has the length of
        the text): the clauses hold for the lower-cased patterns, not for the case-insensitive originals.
        """
        return self.candidates_and_meta(lowered, skip, clauses=clauses)[0]

    def candidates_and_meta(
        self, lowered: str, skip: frozenset[str] | set[str] = frozenset(), *, clauses: bool = False
    ) -> tuple[list[Rule], bool]:
        """``candidates``, and whether the lower-cased phrase regex (``meta_phrases``) may match
        ``lowered``: false only when its clauses are checked (``clauses``) and one has no string in it."""
        tokens = set(lowered.split())
        try:  # the common case, every token cached: one C-level pass
            found = reduce(or_, map(self._by_token.__getitem__, tokens), self.always)
        except KeyError:
            found = reduce(or_, map(self._token_bits, tokens), self.always)
        for needle, needle_bits in self.spaced:
            if needle in lowered:
                found |= needle_bits
        opened = found & self.rule_mask
        clauses = clauses and self.check_clauses
        if clauses:
            opened &= (found >> self.shift) | self.keyless
        # The clause groups met. A rule runs when all its groups are among them: tested on non-negative
        # ints (``&`` with a negative one, such as a mask of the unmet groups, copies it in two's
        # complement first).  The rules are taken from the highest bit down, each bit cleared with its
        # precomputed power of two (one new int a rule, where taking the lowest bit made three), and
        # the list is put back in table order at the end.
        met = found >> self.groups_shift
        picked: list[Rule] = []
        need = self.clause_need
        bits = self.bits
        rules = self.rules
        while opened:
            i = opened.bit_length() - 1
            opened ^= bits[i]
            if clauses:
                wanted = need[i]
                if wanted & met != wanted:
                    continue  # some clause has no string in the text: the regex cannot match
            rule = rules[i]
            if rule.rule_id not in skip:
                picked.append(rule)
        picked.reverse()
        return picked, not clauses or self.meta_need & met == self.meta_need


# Texts from this length on search by the leads (``LeadSearch``); shorter ones let ``re`` run once.
LEAD_SEARCH_MIN_CHARS = 2_048
# More leads, or shorter ones, cost more ``str.find`` passes and tries than ``re``'s own scan saves.
_MAX_LEADS = 32
_MIN_LEAD = 2


def search_leads(pattern: re.Pattern[str]) -> tuple[str, ...] | None:
    """The leads of ``pattern`` worth a ``LeadSearch`` (``prefilter.leading_literals``), sorted; or None."""
    leads = leading_literals(pattern)
    if leads is None or min(map(len, leads)) < _MIN_LEAD:
        return None
    # A lead that starts with another is found where that one is: keep the shorter only (and count
    # those: they are what is searched).
    kept = tuple(sorted(lead for lead in leads if not any(o != lead and lead.startswith(o) for o in leads)))
    return None if len(kept) > _MAX_LEADS else kept


def rule_clauses(pattern: re.Pattern[str]) -> tuple[frozenset[str], ...]:
    """The clauses of ``pattern`` (``prefilter.required_literals``) worth checking: of strings of at least
    ``_CLAUSE_MIN_LITERAL`` characters, or of one character that is not a letter or digit (an "@", a
    ":", an "="): rare enough in a token to skip a rule that needs one, where a lone letter is in
    almost every text.

    >>> [sorted(c) for c in rule_clauses(re.compile(r"send\\b[^.]{0,80}\\bto\\s+(?:\\S+@|https?://)"))]
    [['send'], ['to'], ['@', 'http']]
    """
    return tuple(
        clause
        for clause in required_literals(pattern, 1)
        if all(len(s) >= _CLAUSE_MIN_LITERAL or not s.isalnum() for s in clause)
    )


def cased_clauses(pattern: re.Pattern[str]) -> tuple[frozenset[str], ...]:
    r"""The clauses of a rule that runs case-sensitively over the text itself (``Rule.lowered`` is None),
    as they hold in the lower-cased text (``prefilter.lowered_literals``), kept as ``rule_clauses``
    keeps them; none for a case-insensitive pattern.

    >>> [sorted(c) for c in cased_clauses(re.compile(r"[yY](?i:ou\s+are)\s+(?:[A-Z]\w+GPT|[A-Z]\w+,)"))]
    [['ou'], ['are'], [',', 'gpt']]
    """
    return tuple(
        clause
        for clause in lowered_literals(pattern, 1)
        if all(len(s) >= _CLAUSE_MIN_LITERAL or not s.isalnum() for s in clause)
    )


def scan_of(pattern: re.Pattern[str], boundary: bool) -> tuple[re.Pattern[str], int] | None:
    """The finder of ``pattern``'s leads for a ``LeadScan`` (``fastpath.lead_scan_pattern``), or None when
    ``re`` skips ahead in the pattern on its own (``prefilter.skips_ahead``: a scan would only add its
    own search) or its parse tree gives no leads.

    A pattern that opens with "the text's start or a punctuation mark" (``(?:^|[.!?:\\n|]\\s{0,4})``, the
    sentence-initial imperatives) has no literal leads, and its ``^`` branch keeps ``re`` from skipping
    to the marks: it is scanned as itself without that branch (``fastpath.AT_START``).
    """
    if skips_ahead(pattern):
        return None
    leads = leading_literals(pattern)
    if leads is None:
        rest = without_start_branch(pattern)
        if rest is not None and not boundary and skips_ahead(rest):
            return rest, AT_START
        return None
    return lead_scan_pattern(leads, boundary)


def without_start_branch(pattern: re.Pattern[str]) -> re.Pattern[str] | None:
    r"""``pattern`` without the ``^`` branch of the group it opens with (``(?:^|x)y`` gives ``(?:x)y``), or
    None when it opens otherwise.  Past the text's start the two match alike.

    >>> without_start_branch(re.compile(r"(?:^|[.!?]\s*)please")).pattern
    '(?:[.!?]\\s*)please'
    >>> without_start_branch(re.compile(r"(?:^|x)|y")) is None
    True
    """
    source = pattern.pattern
    if not source.startswith("(?:^|") or not start_branch(pattern):
        return None
    return re.compile("(?:" + source[len("(?:^|") :], pattern.flags)


def _union(bits: Iterable[int]) -> int:
    out = 0
    for b in bits:
        out |= b
    return out


def _bit_indexes(bits: int) -> list[int]:
    out = []
    while bits:
        lowest = bits & -bits
        out.append(lowest.bit_length() - 1)
        bits ^= lowest
    return out
