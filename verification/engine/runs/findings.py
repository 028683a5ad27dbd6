"""Findings (a labelled mention of the answer) and the sentence and clause structure of an answer."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from ..text import lower
from .evidence import Fact
from .mentions import Mention

__all__ = ["SWAPPED_IDENTIFIER", "Finding", "clauses", "contradict", "joined_identifiers", "split_sentences"]

_ABBREV = re.compile(
    r"(?:\b[A-Z]|\bSt|\bInc|\bMr|\bMrs|\bDr|\bCo|\bLtd|\bvs|\bNo|\bJr|\bSr|\be\.g|\bi\.e)\.$"
)
# The longest text ``_ABBREV`` matches ("Mrs.", "Inc.", "e.g."). It is asked of a sentence that ends with the
# full stop just found, so a match ends there and starts at most this many characters before: the search
# starts there (``\b`` still reads the character before it) instead of trying fourteen forms everywhere.
_ABBREV_SPAN = 4

# ``[.!?](?=\s+[A-Z0-9"“(])|\n\s*\n|\n(?=\s*[-*\d|])|<br>`` opening with a choice of characters (the form
# picked by a look-behind at it), so the engine skips in C to the marks and line breaks instead of trying the
# forms at every position. Same matches, same order of preference. A line that opens a markdown table row
# ("| Mechanical Keyboard | 9570044148 | $231.37 |") and a cell's "<br>" end one too: each row, and each
# item a cell stacks, is read against its own record (issue 14, h25d: gpt-oss-120b's tables).
_SENTENCE_END = re.compile(
    r"[.!?\n<](?:(?<=[.!?])(?=\s+[A-Z0-9\"“(])|(?<=\n)\s*\n|(?<=\n)(?=\s*[-*\d|])|(?<=<)[bB][rR][ \t]*/?>)"
)


# The reason of an identifier whose block of details is another item's (a swapped identifier): its details
# are that item's and right, so no later check blames them.
SWAPPED_IDENTIFIER = "the details stated with this identifier are another item's"


@dataclass(slots=True, init=False)
class Finding:
    """The label of one mention and why.

    The constructor is written out rather than generated (``init=False``): compiled with mypyc, a generated
    ``__init__`` stays interpreted Python, and every value of an answer gets a finding. It takes the same
    parameters, in the same order, with the same defaults, as the generated one would (``facts`` defaults to a
    new list).
    """

    mention: Mention
    label: str  # SUPPORTED CONTRADICTED UNSUPPORTED
    sentence: tuple[int, int]
    facts: list[Fact] = field(default_factory=list)
    reason: str = ""
    derived: bool = False
    # (facts list, its length, records): the records are asked for once per pair of findings, so they are
    # kept until ``facts`` is replaced or grows.
    _records: tuple[list[Fact], int, frozenset[tuple[Any, Any]]] | None = field(
        default=None, repr=False, compare=False
    )

    def __init__(
        self,
        mention: Mention,
        label: str,
        sentence: tuple[int, int],
        facts: list[Fact] | None = None,
        reason: str = "",
        derived: bool = False,
        _records: tuple[list[Fact], int, frozenset[tuple[Any, Any]]] | None = None,
    ) -> None:
        self.mention = mention
        self.label = label
        self.sentence = sentence
        self.facts = [] if facts is None else facts
        self.reason = reason
        self.derived = derived
        self._records = _records

    @property
    def records(self) -> frozenset[tuple[Any, Any]]:
        """(list, record) pairs of the tool-result facts behind this finding."""
        cached = self._records
        if cached is not None and cached[0] is self.facts and cached[1] == len(self.facts):
            return cached[2]
        recs = frozenset(
            (f.list_path, f.record) for f in self.facts if f.list_path is not None and f.record is not None
        )
        self._records = (self.facts, len(self.facts), recs)
        return recs


def contradict(
    findings: list[Finding],
    added: list[Finding],
    mention: Mention,
    sentence: tuple[int, int],
    reason: str,
    cites: list[Fact] | None = None,
) -> None:
    """Contradict ``mention``'s value: relabel the finding that starts where it does, or add one to ``added``.

    The checks that run after grounding use it: a value grounding found supported (in another slot) keeps
    its finding and changes its label; a value grounding did not read as a claim gets a new finding.

    >>> m = Mention("number", 4, 5, "3", value=3.0)
    >>> found, added = [Finding(m, "SUPPORTED", (0, 9))], []
    >>> contradict(found, added, m, (0, 9), "the row says 4")
    >>> found[0].label, found[0].reason, added
    ('CONTRADICTED', 'the row says 4', [])
    >>> contradict([], added, m, (0, 9), "the row says 4")
    >>> [f.label for f in added]
    ['CONTRADICTED']
    """
    for f in findings:
        if f.mention.start == mention.start:
            if f.label != "CONTRADICTED":
                f.label, f.reason, f.facts, f.derived = "CONTRADICTED", reason, list(cites or ()), False
            return
    added.append(Finding(mention, "CONTRADICTED", sentence, list(cites or ()), reason))


def split_sentences(text: str) -> list[tuple[int, int]]:
    """Character spans of the sentences of ``text``.

    >>> t = "It is 5 p.m. in St. Louis. Rain is likely."
    >>> [t[a:b] for a, b in split_sentences(t)]
    ['It is 5 p.m. in St. Louis.', 'Rain is likely.']
    """
    spans: list[tuple[int, int]] = []
    start = 0
    for m in _SENTENCE_END.finditer(text):
        end = m.end()
        head = text[start:end]
        if m.group(0) == "." and (
            _ABBREV.search(head, max(0, len(head) - _ABBREV_SPAN)) or head.endswith(("a.m.", "p.m."))
        ):
            continue
        if head.strip():
            spans.append((start, end))
        start = end
        while start < len(text) and text[start].isspace():
            start += 1
    if text[start:].strip():
        spans.append((start, len(text)))
    return spans


_JOINERS = re.compile(r" (?:and|but|then|while|whereas) ")


@lru_cache(maxsize=64)
def _clause_marks(sep: str) -> re.Pattern[str]:
    # The only characters the clause splitter acts on: parentheses, separators, and a space before a joiner.
    return re.compile("[()" + re.escape(sep) + "]| (?=(?:and|but|then|while|whereas) )")


@lru_cache(maxsize=1024)
def clauses(text: str, a: int, b: int, sep: str, words: bool = False) -> list[tuple[int, int]]:
    """Split ``text[a:b]`` at the separator characters (and joining words) outside parentheses.

    >>> t = "A is $5 (in stock, new) and B is $7; C"
    >>> [t[x:y] for x, y in clauses(t, 0, len(t), ",;", words=True)]
    ['A is $5 (in stock, new)', 'B is $7', ' C']
    """
    cuts: list[tuple[int, int]] = []
    depth = 0
    # Visit only the characters that matter instead of every character of the sentence.
    for mark in _clause_marks(sep).finditer(text, a, b):
        i = mark.start()
        ch = text[i]
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(0, depth - 1)
        elif (
            depth == 0
            and ch in sep
            and (ch != "," or not (text[i - 1 : i].isdigit() and text[i + 1 : i + 2].isdigit()))
        ):
            cuts.append((i, i + 1))
        elif depth == 0 and words and ch == " " and (m := _JOINERS.match(text, i, b)):
            cuts.append((i, m.end()))
    out, start = [], a
    for c0, c1 in cuts:
        if c0 >= start:
            out.append((start, c0))
            start = c1
    out.append((start, b))
    return out


# ---- numbers -----------------------------------------------------------------------------------------


# What may stand between two identifiers named together: "HAT136 & HAT039", "HAT136/HAT039", "HAT136, HAT039
# and HAT040", "HAT136 and flight HAT039".
# A leg's route in brackets may stand between the two ("HAT069 (JFK to SEA) & HAT258 (SEA to SFO)").
_JOINED = re.compile(r"(?:\s*\([^()\n]{0,40}\))?\s*(?:&|\+|/|,|and|,\s*and)\s*(?:(?:the\s+)?flights?\s+)?")


def joined_identifiers(answer: str, ids: list[Finding]) -> list[list[Finding]]:
    """The identifier findings ``ids`` (in answer order) in groups of those named together, joined by only
    a connector: "1. **Flight HAT136 & HAT039**" heads the details of both legs, so a time or a route on
    the lines under it may be either flight's (issue 14: a one-stop itinerary told under one heading).
    Every identifier is in exactly one group; most groups have one.

    >>> from .mentions import Mention
    >>> def ids(text, *names):
    ...     return [Finding(Mention("id", text.index(n), text.index(n) + len(n), n), "SUPPORTED", (0, 0))
    ...             for n in names]
    >>> text = "Flight HAT136 & HAT039, then HAT218"
    >>> groups = joined_identifiers(text, ids(text, "HAT136", "HAT039", "HAT218"))
    >>> [[f.mention.text for f in g] for g in groups]
    [['HAT136', 'HAT039'], ['HAT218']]
    """
    groups: list[list[Finding]] = []
    for f in ids:
        if groups:
            prev = groups[-1][-1]
            gap = answer[prev.mention.end : f.mention.start]
            if "\n" not in gap and _JOINED.fullmatch(lower(gap)):
                groups[-1].append(f)
                continue
        groups.append([f])
    return groups
