"""Literal strings a regex cannot match without: a cheap, exact test that a rule cannot fire on a text.

``required_literals`` reads a compiled pattern's parse tree and returns its *clauses*: sets of strings
such that every match of the pattern contains, for each clause, at least one of its strings.  For
``\\b(?:ignore|forget)\\s+(?:previous|prior)\\s+rules`` that is ``{ignore, forget}``, ``{previous, prior}``
and ``{rules}``.  A text that lacks every string of some clause cannot hold a match, so the regex need
not run.  The hand-written gate of a rule is one such clause; the parse tree yields all of them, and a
text must satisfy the conjunction, which rejects most rules that pass the gate (on the injection corpus
lines, 8 candidate rules per line become 3).  ``Occurrences`` finds which of a set of strings occur in
a text with one regex pass (the PII engine's marker pre-checks).

The analysis is conservative: it only reads required literal runs, mandatory groups and alternations
whose every branch has a clause, and gives up (returns fewer clauses) on anything else, so a clause is
never wrong, only sometimes missing.  It is meant for case-sensitive patterns run over the exact text
the clauses are tested on (the lower-cased fast path of ``fastpath``): a case-insensitive group gives no
clause, since its literals may match other characters (``ſ`` for ``s``).
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Sequence
from typing import Any

__all__ = ["MIN_LITERAL", "Occurrences", "required_literals", "trie_pattern"]

# ``re._parser`` is the parser ``re.compile`` itself uses (``sre_parse`` is its deprecated alias).
_parser: Any = importlib.import_module("re._parser")

# Texts from this length on are scanned for ``Occurrences`` with substring searches (the cross-over).
_LONG_TEXT = 2_048

#: Shortest string worth a clause: one- and two-letter strings occur in almost every text.
MIN_LITERAL = 3

_REPEATS = frozenset({"MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"})


def _best(clauses: list[frozenset[str]]) -> frozenset[str] | None:
    """The most selective clause: the one whose shortest string is longest, then with fewest strings."""
    usable = [c for c in clauses if min(map(len, c)) >= MIN_LITERAL]
    if not usable:
        return None
    return max(usable, key=lambda c: (min(map(len, c)), -len(c)))


def _leading(items: Any) -> str:
    """The literal characters a parsed sequence starts with ("" if it starts with anything else)."""
    out = []
    for op, arg in items:
        if str(op) != "LITERAL":
            break
        out.append(chr(arg))
    return "".join(out)


def _sequence(items: Any) -> list[frozenset[str]]:
    """Clauses of a parsed sequence (a ``SubPattern`` or a list of ``(opcode, argument)`` items)."""
    clauses: list[frozenset[str]] = []
    run: list[str] = []

    def flush() -> None:
        if run:
            clauses.append(frozenset({"".join(run)}))
            run.clear()

    for op, arg in items:
        name = str(op)
        if name == "LITERAL":
            run.append(chr(arg))
            continue
        if name == "BRANCH" and run:
            # The parser moves the common prefix of the branches before them ("pr(?:evious|ior)" for
            # "previous|prior"): put it back in front of each branch's leading literals.
            head = "".join(run)
            clauses.append(frozenset(head + _leading(branch) for branch in arg[1]))
        flush()  # anything else ends a run of consecutive literal characters
        if name == "SUBPATTERN":
            _group, add_flags, _del_flags, sub = arg
            if not add_flags & re.IGNORECASE:  # (?i:...) literals may match other characters
                clauses += _sequence(sub)
        elif name in _REPEATS:
            least, _most, sub = arg
            if least >= 1:  # a mandatory repeat holds at least one copy of its body
                clauses += _sequence(sub)
        elif name == "ATOMIC_GROUP":
            clauses += _sequence(arg)
        elif name == "BRANCH":
            # A match goes through one branch: the union of one clause per branch is a clause, if every
            # branch has one.
            per_branch = [_best(_sequence(branch)) for branch in arg[1]]
            if all(c is not None for c in per_branch):
                clauses.append(frozenset().union(*(c for c in per_branch if c is not None)))
        # Classes, categories, anchors, look-arounds and back-references require no literal.
    flush()
    return clauses


def required_literals(pattern: re.Pattern[str]) -> tuple[frozenset[str], ...]:
    """Clauses of ``pattern``: each match holds one string of every clause (strings of 3+ characters).

    Returns no clause for a case-insensitive pattern (see the module docstring).

    >>> [sorted(c) for c in required_literals(re.compile(r"\\b(?:ignore|forget)\\s+(?:all\\s+)?rules?"))]
    [['forget', 'ignore'], ['rule']]
    >>> required_literals(re.compile("ignore", re.IGNORECASE))
    ()
    """
    if pattern.flags & re.IGNORECASE:
        return ()
    found = _sequence(_parser.parse(pattern.pattern, pattern.flags))
    unique: list[frozenset[str]] = []
    for clause in found:
        if min(map(len, clause)) >= MIN_LITERAL and clause not in unique:
            unique.append(clause)
    # A clause is implied by another whose every string contains one of its strings ({ior, evious} by
    # {prior, previous}): checking it would cost time and reject nothing more.
    kept: list[frozenset[str]] = []
    for clause in unique:
        if not any(_implies(k, clause) for k in kept):
            kept = [k for k in kept if not _implies(clause, k)] + [clause]
    return tuple(kept)


def _implies(stronger: frozenset[str], weaker: frozenset[str]) -> bool:
    """Whether a text holding a string of ``stronger`` always holds one of ``weaker``."""
    return all(any(w in s for w in weaker) for s in stronger)


def trie_pattern(words: Sequence[str]) -> str:
    """A regex matching any of ``words``, shaped as a trie so each position costs one character test.

    Where several words match at one position, it matches the longest.

    >>> re.fullmatch(trie_pattern(["ab", "abc", "b"]), "abc") is not None
    True
    """
    trie: dict[str, Any] = {}
    for word in words:
        node = trie
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = {}

    def emit(node: dict[str, Any]) -> str:
        branches = [re.escape(ch) + emit(child) for ch, child in sorted(node.items()) if ch]
        if not branches:
            return ""
        body = "|".join(branches)
        # Longer continuations first; an empty branch when a word may also end here.
        return f"(?:{body}|)" if "" in node else (body if len(branches) == 1 else f"(?:{body})")

    return emit(trie)


class Occurrences:
    """Which of a fixed set of strings occur in a text, as a bit set, from one regex pass.

    ``bits`` gives each string its bit.  ``scan`` runs a trie-shaped regex of all the strings once
    over the text (non-overlapping, so ``re`` can skip ahead to the characters that start a string; a
    zero-width look-ahead at every position costs twice as much on short texts).  A string that
    occurs is then either found, or lies inside a found one (covered by the bits of every string
    contained in it), or starts inside a found one and runs past its end: for that last case each
    string lists the strings it can overlap that way, and those are checked with ``in``.  Texts of
    ``_LONG_TEXT`` characters or more get one substring search per string instead.

    >>> occ = Occurrences({"st": 1, "token": 2, "ok": 4})
    >>> occ.scan("Stoken".lower()), occ.scan("a stop"), occ.scan("none")
    (7, 1, 0)
    """

    def __init__(self, bits: dict[str, int]) -> None:
        strings = sorted(bits)
        self.items = tuple((s, bits[s]) for s in strings)
        self.finder = re.compile(trie_pattern(strings))
        # A found string brings the bits of every string it contains.
        self.within = {s: _union_bits(bits[t] for t in strings if t in s) for s in strings}
        # Strings that may start inside a found one and end after it: a proper suffix of the found
        # string is a proper prefix of theirs.
        self.overlapping = {
            s: tuple(
                (t, bits[t])
                for t in strings
                if any(t.startswith(s[i:]) and len(t) > len(s) - i for i in range(1, len(s)))
            )
            for s in strings
        }

    def scan(self, text: str) -> int:
        """The bits of the strings that occur in ``text``."""
        found = 0
        if len(text) >= _LONG_TEXT:
            # On long texts the regex finds tens of thousands of hits ("." and ":" abound): one C-level
            # substring search per string is then cheaper (3 ms against 5 ms on 200 000 characters).
            for s, bit in self.items:
                if s in text:
                    found |= bit
            return found
        for s in set(self.finder.findall(text)):
            found |= self.within[s]
            for t, bit in self.overlapping[s]:
                if not found & bit and t in text:
                    found |= bit
        return found


def _union_bits(bits: Any) -> int:
    out = 0
    for b in bits:
        out |= b
    return out
