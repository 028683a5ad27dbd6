"""Literal strings a regex cannot match without: a cheap, exact test that a rule cannot fire on a text.

``required_literals`` reads a compiled pattern's parse tree and returns its *clauses*: sets of strings
such that every match of the pattern contains, for each clause, at least one of its strings.  For
``\\b(?:ignore|forget)\\s+(?:previous|prior)\\s+rules`` that is ``{ignore, forget}``, ``{previous, prior}``
and ``{rules}``.  A text that lacks every string of some clause cannot hold a match, so the regex need
not run.  The hand-written gate of a rule is one such clause; the parse tree yields all of them, and a
text must satisfy the conjunction, which rejects most rules that pass the gate (on the injection corpus
lines, 8 candidate rules per line become 3).  ``leading_literals`` reads the strings every match
*starts* with, from which a search over a long text can jump (``fastpath.LeadSearch``).
``Occurrences`` finds which of a set of strings occur in a text with one regex pass (the PII engine's
marker pre-checks).

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

from ..text import lower

__all__ = [
    "FOLD_SAFE",
    "MIN_LITERAL",
    "Occurrences",
    "leading_literals",
    "lowered_literals",
    "regex_pieces",
    "required_literals",
    "required_run",
    "shape_char",
    "shape_needles",
    "skips_ahead",
    "start_branch",
    "trie_pattern",
]

# ``re._parser`` is the parser ``re.compile`` itself uses (``sre_parse`` is its deprecated alias).
_parser: Any = importlib.import_module("re._parser")

# Texts from this length on are scanned for ``Occurrences`` with substring searches (the cross-over).
_LONG_TEXT = 2_048

#: Shortest string worth a clause: one- and two-letter strings occur in almost every text.
MIN_LITERAL = 3

_REPEATS = frozenset({"MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"})


def _best(clauses: list[frozenset[str]], min_literal: int = MIN_LITERAL) -> frozenset[str] | None:
    """The most selective clause: the one whose shortest string is longest, then with fewest strings."""
    usable = [c for c in clauses if min(map(len, c)) >= min_literal]
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


def _sequence(items: Any, min_literal: int = MIN_LITERAL, fold: bool = False) -> list[frozenset[str]]:
    """Clauses of a parsed sequence (a ``SubPattern`` or a list of ``(opcode, argument)`` items); a
    branch's clause is made of its branches' best clauses of ``min_literal``+ characters.

    With ``fold``, a case-insensitive group gives the clauses of its own whose strings are made of
    ``FOLD_SAFE`` characters only (``lowered_literals``); without it, none."""
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
                clauses += _sequence(sub, min_literal, fold)
            elif fold:
                clauses += [c for c in _sequence(sub, min_literal, fold) if all(_folds_safely(s) for s in c)]
        elif name in _REPEATS:
            least, _most, sub = arg
            if least >= 1:  # a mandatory repeat holds at least one copy of its body
                clauses += _sequence(sub, min_literal, fold)
        elif name == "ATOMIC_GROUP":
            clauses += _sequence(arg, min_literal, fold)
        elif name == "BRANCH":
            # A match goes through one branch: the union of one clause per branch is a clause, if every
            # branch has one.
            branches = [_sequence(branch, min_literal, fold) for branch in arg[1]]
            per_branch = [_best(found, min_literal) for found in branches]
            if all(c is not None for c in per_branch):
                clauses.append(frozenset().union(*(c for c in per_branch if c is not None)))
            # A clause of the first branch that every other branch implies holds for every match too
            # ("if you are an AI" | "as an AI reading this": the AI words).
            first, *others = branches
            clauses += [c for c in first if all(any(_implies(k, c) for k in found) for found in others)]
        # Classes, categories, anchors, look-arounds and back-references require no literal.
    flush()
    return clauses


def required_literals(pattern: re.Pattern[str], min_literal: int = MIN_LITERAL) -> tuple[frozenset[str], ...]:
    """Clauses of ``pattern``: each match holds one string of every clause (strings of ``min_literal``+
    characters).

    Returns no clause for a case-insensitive pattern (see the module docstring).

    >>> [sorted(c) for c in required_literals(re.compile(r"\\b(?:ignore|forget)\\s+(?:all\\s+)?rules?"))]
    [['forget', 'ignore'], ['rule']]
    >>> required_literals(re.compile("ignore", re.IGNORECASE))
    ()
    """
    if pattern.flags & re.IGNORECASE:
        return ()
    found = _sequence(_parser.parse(pattern.pattern, pattern.flags), min_literal)
    unique: list[frozenset[str]] = []
    for clause in found:
        if min(map(len, clause)) >= min_literal and clause not in unique:
            unique.append(clause)
    # A clause is implied by another whose every string contains one of its strings ({ior, evious} by
    # {prior, previous}): checking it would cost time and reject nothing more.
    kept: list[frozenset[str]] = []
    for clause in unique:
        if not any(_implies(k, clause) for k in kept):
            kept = [k for k in kept if not _implies(clause, k)] + [clause]
    return tuple(kept)


#: Characters that a case-insensitive ``re`` match pairs only with characters lower-casing to one
#: character, their own lower case: ASCII without "i" ("ı" lower-cases to itself), "s" ("ſ" does), "k"
#: (the Kelvin sign; it lower-cases to "k", but kept out to stay on the side of caution) and their
#: capitals.  A test checks it over every code point.
FOLD_SAFE = frozenset(
    "abcdefghjlmnopqrtuvwxyzABCDEFGHJLMNOPQRTUVWXYZ0123456789 !\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"
)


def _folds_safely(literal: str) -> bool:
    """Whether ``literal``, matched case-insensitively, can only match strings lower-casing to its lower case.

    Lone letters are left out: a case-insensitive "a" in ``an?`` would make a clause of no worth.
    """
    return all(ch in FOLD_SAFE for ch in literal) and (len(literal) >= 2 or not literal.isalnum())


def lowered_literals(pattern: re.Pattern[str], min_literal: int = MIN_LITERAL) -> tuple[frozenset[str], ...]:
    r"""Clauses of a case-sensitive ``pattern`` that hold in ``text.lower()`` wherever a match is in ``text``
    (when the lower-cased text keeps the length: each character lower-cases to one).

    The literals of ``required_literals`` are lower-cased, and a case-insensitive group adds those of
    its clauses made of ``FOLD_SAFE`` characters.  A literal character lower-cases in the text as it
    does alone, except the capital sigma (to "ς" or "σ" by its neighbours): a clause holding one is
    dropped, as one holding a character that lower-cases to more than one.  Patterns compiled with
    ``re.IGNORECASE`` give none (their lower-cased form, ``fastpath.lowered_variant``, takes
    ``required_literals``).

    >>> [sorted(c) for c in lowered_literals(re.compile(r"[yY](?i:ou\s+are)\s+(?:GPT|Bot)"), 2)]
    [['ou'], ['are'], ['bot', 'gpt']]
    >>> [sorted(c) for c in lowered_literals(re.compile(r"(?i:this|sure)\s+ΣIGMA"), 2)]
    []
    """
    if pattern.flags & re.IGNORECASE:
        return ()
    found = _sequence(_parser.parse(pattern.pattern, pattern.flags), min_literal, True)
    out: list[frozenset[str]] = []
    for clause in found:
        if any("\u03a3" in s or any(len(lower(ch)) != 1 for ch in s) for s in clause):
            continue
        lowered = frozenset("".join([lower(ch) for ch in s]) for s in clause)
        if min(map(len, lowered)) >= min_literal and lowered not in out:
            out.append(lowered)
    kept: list[frozenset[str]] = []
    for clause in out:
        if not any(_implies(k, clause) for k in kept):
            kept = [k for k in kept if not _implies(clause, k)] + [clause]
    return tuple(kept)


def _leads(items: Any) -> frozenset[str] | None:
    """Strings one of which every match of a parsed sequence starts with; None if the tree does not say."""
    seq = list(items)
    at = 0
    while at < len(seq) and str(seq[at][0]) in ("AT", "ASSERT", "ASSERT_NOT"):
        at += 1  # zero-width (\b, ^, a look-around): the match starts with what follows
    # The literal run the sequence starts with, then what the next item starts with (the parser moves
    # the common prefix of branches before them: "pr(?:evious|ior)" for "previous|prior").
    head = _leading(seq[at:])
    at += len(head)
    tail = None
    if at < len(seq):
        op, arg = seq[at]
        name = str(op)
        if name == "BRANCH":
            tail = _branch_leads(arg[1])
        elif name == "SUBPATTERN" and not arg[1] & re.IGNORECASE:
            tail = _leads(arg[3])
        elif name in _REPEATS and arg[0] >= 1:  # a mandatory repeat starts with its body
            tail = _leads(arg[2])
        # A class, a category, ``.``, an optional part, a back-reference: no literal to go on with.
    if tail is not None:
        return frozenset(head + lead for lead in tail)
    return frozenset({head}) if head else None


def _branch_leads(branches: Any) -> frozenset[str] | None:
    leads = [_leads(branch) for branch in branches]
    if any(lead is None for lead in leads):
        return None
    return frozenset().union(*(lead for lead in leads if lead is not None))


def leading_literals(pattern: re.Pattern[str]) -> frozenset[str] | None:
    """Non-empty strings one of which every match of ``pattern`` starts with, or None when its parse tree
    does not say (a class, an optional part or a case-insensitive group first).

    A search can then try the pattern only where one of them occurs (``fastpath.LeadSearch``).

    >>> sorted(leading_literals(re.compile(r"\\b(?:ignore|forget)\\s+rules|pr(?:ior|evious)")))
    ['forget', 'ignore', 'previous', 'prior']
    >>> leading_literals(re.compile(r"\\w+ignore")) is None
    True
    """
    if pattern.flags & re.IGNORECASE:
        return None
    leads = _leads(_parser.parse(pattern.pattern, pattern.flags))
    return None if leads is None or "" in leads else leads


def skips_ahead(pattern: re.Pattern[str]) -> bool:
    """Whether ``re``'s search can skip to the characters a match of ``pattern`` starts with: it starts
    (inside groups) with a literal, a character class, or an alternation whose every branch starts
    with a literal (what CPython's compiler turns into a literal or first-character prefix).  A search
    for a pattern that does not, such as one led by ``\\b``, a look-around or a branch that starts with
    a group, tries the pattern at every position.  Case-insensitive patterns count as not skipping.

    >>> skips_ahead(re.compile("ignore|forget")), skips_ahead(re.compile(r"(?:\\bx|y)z"))
    (True, False)
    >>> skips_ahead(re.compile(r"\\bignore")), skips_ahead(re.compile(r"(?<!not\\s)send"))
    (False, False)
    """
    if pattern.flags & re.IGNORECASE:
        return False
    items = list(_parser.parse(pattern.pattern, pattern.flags))
    while items and str(items[0][0]) == "SUBPATTERN":
        if items[0][1][1] & re.IGNORECASE:
            return False
        items = list(items[0][1][3])
    if not items:
        return False
    op, arg = items[0]
    name = str(op)
    if name in ("LITERAL", "IN"):
        return True
    if name == "BRANCH":
        return all(len(branch) > 0 and str(branch[0][0]) == "LITERAL" for branch in arg[1])
    return False


def start_branch(pattern: re.Pattern[str]) -> bool:
    r"""Whether ``pattern`` is one sequence that opens with a non-capturing group without flags whose first
    branch is ``^`` alone, as ``(?:^|[.!?]\s*)please`` does (not ``(?:^|x)|y``, not ``(?:^x|y)``).

    >>> start_branch(re.compile(r"(?:^|[.!?]\s*)please")), start_branch(re.compile(r"(?:^|x)|y"))
    (True, False)
    """
    if not pattern.pattern.startswith("(?:^|"):
        return False
    # The parser inlines a group without flags: its branches are the sequence's first item.
    items = list(_parser.parse(pattern.pattern, pattern.flags))
    if not items or str(items[0][0]) != "BRANCH":
        return False
    first = list(items[0][1][1][0])
    return len(first) == 1 and str(first[0][0]) == "AT" and str(first[0][1]) == "AT_BEGINNING"


def _implies(stronger: frozenset[str], weaker: frozenset[str]) -> bool:
    """Whether a text holding a string of ``stronger`` always holds one of ``weaker``."""
    return all(any(w in s for w in weaker) for s in stronger)


def regex_pieces(source: str) -> list[tuple[int, int, bool]]:
    r"""A regex source cut into pieces, each ``(start, end, in_class)``: an escape (two characters), the
    ``[`` that opens a class with a leading ``^`` or ``]`` (literals there, not the class's end), or
    one character; ``in_class`` when the piece lies inside a class (its closing ``]`` included).  What
    ``pii._top_level_splits`` and ``pii_names._hyperscan_form`` walk.

    >>> [source[a:b] for source in [r"a\[[^]x]é"] for a, b, inside in regex_pieces(source) if not inside]
    ['a', '\\[', '[^]', 'é']
    """
    pieces: list[tuple[int, int, bool]] = []
    in_class = False
    i = 0
    size = len(source)
    while i < size:
        char = source[i]
        end = i + 1
        inside = in_class
        if char == "\\":
            end = i + 2
        elif in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
            if source.startswith("^", end):
                end += 1
            if source.startswith("]", end):
                end += 1
        pieces.append((i, end, inside))
        i = end
    return pieces


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
            # substring search per string is then cheaper (figures: docs/benchmarks.md, "The PII
            # detector's machinery").
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


# Character classes ``required_run`` measures runs of: which parsed items stand for one character of it.
_DIGIT_RANGE = (ord("0"), ord("9"))
_WORD_RANGES = ((ord("0"), ord("9")), (ord("A"), ord("Z")), (ord("a"), ord("z")), (ord("_"), ord("_")))


def _in_ranges(low: int, high: int, ranges: tuple[tuple[int, int], ...]) -> bool:
    return any(a <= low and high <= b for a, b in ranges)


def _one_of(op: str, arg: Any, word: bool) -> bool:
    """Whether a parsed item matches exactly one character, always of the class (``\\d`` or ``\\w``)."""
    ranges = _WORD_RANGES if word else (_DIGIT_RANGE,)
    categories = {"CATEGORY_DIGIT", "CATEGORY_WORD"} if word else {"CATEGORY_DIGIT"}
    if op == "LITERAL":
        return _in_ranges(arg, arg, ranges)
    if op != "IN":
        return False
    for item_op, item_arg in arg:
        name = str(item_op)
        if name == "LITERAL" and _in_ranges(item_arg, item_arg, ranges):
            continue
        if name == "RANGE" and _in_ranges(item_arg[0], item_arg[1], ranges):
            continue
        if name == "CATEGORY" and str(item_arg) in categories:
            continue
        return False  # NEGATE, other categories, other characters
    return True


def _run_info(items: Any, word: bool) -> tuple[int, bool, int]:
    """For a parsed sequence: (longest run of class characters every match holds, whether every match
    consists of class characters only, fewest characters a match has when it does)."""
    best = 0
    run = 0  # class characters just consumed, with nothing else in between
    whole = True
    width = 0
    for op, arg in items:
        name = str(op)
        inner: tuple[int, bool, int]
        if name in ("AT", "ASSERT", "ASSERT_NOT"):
            continue  # zero-width: the characters on either side are adjacent in the text
        if _one_of(name, arg, word):
            inner = (1, True, 1)
        elif name == "SUBPATTERN":
            inner = _run_info(arg[3], word)
        elif name == "ATOMIC_GROUP":
            inner = _run_info(arg, word)
        elif name in _REPEATS:
            least, _most, sub = arg
            body = _run_info(sub, word)
            if body[1]:
                inner = (body[2] * least, True, body[2] * least)
            else:
                inner = (body[0] if least >= 1 else 0, False, 0)
        elif name == "BRANCH":
            branches = [_run_info(branch, word) for branch in arg[1]]
            if all(b[1] for b in branches):
                shortest = min(b[2] for b in branches)
                inner = (shortest, True, shortest)
            else:
                inner = (min(b[0] for b in branches), False, 0)
        else:
            inner = (0, False, 0)  # any other character, a back-reference: the run ends
        if inner[1]:
            run += inner[2]
            width += inner[2]
            best = max(best, run)
        else:
            best = max(best, run, inner[0])
            run = 0
            whole = False
    return best, whole, width


def required_run(pattern: re.Pattern[str], *, word: bool = False) -> int:
    """The longest run of consecutive ``\\d`` (or, with ``word``, ``\\w``) characters every match of
    ``pattern`` holds: a text whose longest such run is shorter cannot hold a match.

    Conservative like ``required_literals``: an optional part or anything not surely of the class ends
    a run, so the bound is never too high, only sometimes lower than it could be.  Zero-width items
    (look-arounds, ``\\b``) are skipped, since the characters around them are adjacent in the text.

    >>> required_run(re.compile(r"\\d(?<![\\d\\-].)\\d{8}(?![\\d\\-])"))
    9
    >>> required_run(re.compile(r"\\d{3}-?\\d{2}"))
    3
    >>> required_run(re.compile(r"[13](?:[1-9A-Za-z]{25,34}|c1[02-9a-z]{11,71})\\b"), word=True)
    14
    """
    return _run_info(_parser.parse(pattern.pattern, pattern.flags), word)[0]


#: At most this many alternative strings in one ``shape_needles`` clause (a small class, ``[\- ]?``).
_MAX_NEEDLES = 16


def shape_char(ch: str) -> str:
    """The class of an ASCII character in a text's *shape*: "0" for a digit, "A" and "a" for an upper-
    and lower-case letter, the character itself otherwise (see ``shape_needles``)."""
    if "0" <= ch <= "9":
        return "0"
    if "A" <= ch <= "Z":
        return "A"
    if "a" <= ch <= "z":
        return "a"
    return ch


def _item_shapes(name: str, arg: Any, fold: bool) -> frozenset[str] | None:
    """The shapes of the characters one LITERAL or IN item matches in an ASCII text (None: too many)."""
    if name == "LITERAL":
        codes: list[int] = [arg]
    elif name == "IN":
        codes = []
        for item_op, item_arg in arg:
            op = str(item_op)
            if op == "LITERAL":
                codes.append(item_arg)
            elif op == "RANGE" and item_arg[1] - item_arg[0] < 128:
                codes += range(item_arg[0], item_arg[1] + 1)
            elif op == "CATEGORY" and str(item_arg) == "CATEGORY_DIGIT":
                codes.append(ord("0"))
            else:
                return None  # NEGATE, \w, \s, ...: many shapes
    else:
        return None
    shapes: set[str] = set()
    for code in codes:
        if code >= 128:
            if fold:
                return None  # "ſ" and "K" (Kelvin) match "s" and "k" when case is ignored
            continue  # never in an ASCII text
        ch = chr(code)
        shapes |= {"A", "a"} if fold and ch.isalpha() else {shape_char(ch)}
    return frozenset(shapes) if len(shapes) <= _MAX_NEEDLES else None


def _product(left: frozenset[str], right: frozenset[str]) -> frozenset[str] | None:
    out = frozenset(a + b for a in left for b in right)
    return out if len(out) <= _MAX_NEEDLES else None


# Shape strings longer than this are hardly more selective, and more strings cost more look-ups.
_USEFUL_SHAPE = 4


def _better(a: frozenset[str] | None, b: frozenset[str] | None) -> frozenset[str] | None:
    """The more selective of two clauses: longer shortest string (up to ``_USEFUL_SHAPE``), then one
    whose strings are not all digits (runs of digits are bounded by ``required_run`` already), then fewer
    strings, then longer."""
    if a is None or not a or min(map(len, a)) == 0:
        return b
    if b is None or not b or min(map(len, b)) == 0:
        return a
    return max(
        a,
        b,
        key=lambda c: (
            min(_USEFUL_SHAPE, *map(len, c)),
            all(s.strip("0") for s in c),
            -len(c),
            min(map(len, c)),
        ),
    )


def _exact_shapes(items: Any, fold: bool) -> frozenset[str] | None:
    """Every shape a match of a parsed sequence can have, if they are few (else None)."""
    out: frozenset[str] | None = frozenset({""})
    for op, arg in items:
        name = str(op)
        if name in ("AT", "ASSERT", "ASSERT_NOT"):
            continue  # zero-width
        part: frozenset[str] | None
        if name in ("LITERAL", "IN"):
            part = _item_shapes(name, arg, fold)
        elif name == "SUBPATTERN":
            part = _exact_shapes(arg[3], fold or bool(arg[1] & re.IGNORECASE))
        elif name in _REPEATS and arg[1] <= 8:
            body = _exact_shapes(arg[2], fold)
            part = None
            if body is not None:
                copies: frozenset[str] | None = frozenset({""})
                options: set[str] = set()
                for count in range(arg[1] + 1):  # the shapes of 0, 1, ... copies, up to the maximum
                    if copies is None:
                        break  # too many
                    if count >= arg[0]:
                        options |= copies
                    if count < arg[1]:
                        copies = _product(copies, body)
                part = frozenset(options) if copies is not None and len(options) <= _MAX_NEEDLES else None
        elif name == "BRANCH":
            branches = [_exact_shapes(b, fold) for b in arg[1]]
            part = None
            if all(b is not None for b in branches):
                part = frozenset().union(*(b for b in branches if b is not None))
                part = part if len(part) <= _MAX_NEEDLES else None
        else:
            part = None
        if part is None or out is None:
            return None
        out = _product(out, part)
    return out


def _shape_clause(items: Any, fold: bool) -> frozenset[str] | None:
    """The best clause of shape strings of a parsed sequence: every match holds one of them."""
    best: frozenset[str] | None = None
    window: frozenset[str] | None = frozenset({""})
    for op, arg in items:
        name = str(op)
        exact = _exact_shapes([(op, arg)], fold)
        if exact is not None and window is not None:
            joined = _product(window, exact)
            if joined is not None:
                best = _better(best, window)  # a prefix of the window may be the better clause
                window = joined
                continue
        # The window of consecutive few-shaped items ends here: keep it, and look inside this item.
        best = _better(best, window)
        window = exact if exact is not None else frozenset({""})
        if name == "SUBPATTERN":
            best = _better(best, _shape_clause(arg[3], fold or bool(arg[1] & re.IGNORECASE)))
        elif name in _REPEATS and arg[0] >= 1:
            best = _better(best, _shape_clause(arg[2], fold))
        elif name == "BRANCH":
            per_branch = [_shape_clause(b, fold) for b in arg[1]]
            if all(c is not None and min(map(len, c)) > 0 for c in per_branch):
                union = frozenset().union(*(c for c in per_branch if c is not None))
                best = _better(best, union if len(union) <= _MAX_NEEDLES else None)
    return _better(best, window)


def shape_needles(pattern: re.Pattern[str]) -> frozenset[str]:
    """Strings of which the *shape* of every match of ``pattern`` in an ASCII text holds one.

    The shape of a text maps each ASCII character by ``shape_char`` ("AB12-x" has shape "AA00-a"), so an
    IBAN ("[A-Z][A-Z]\\d{2}...") holds "A00" and an SSN ("\\d{3}([\\- ])\\d{2}...") "000-00" or
    "000 00".  Returns the most selective such set of at most ``_MAX_NEEDLES`` strings (empty when
    there is none).  Only for ASCII texts: other scripts' digits and letters (and "ſ" for an "s" of a
    case-insensitive pattern) have no shape here.  Conservative like ``required_literals``.

    >>> sorted(shape_needles(re.compile(r"\\d{3}([\\- ])\\d{2}\\1\\d{4}")))
    ['000 00', '000-00']
    >>> sorted(shape_needles(re.compile(r"[A-Z]{2} ?\\d{2}")))
    ['AA 00', 'AA00']
    """
    clause = _shape_clause(_parser.parse(pattern.pattern, pattern.flags), bool(pattern.flags & re.IGNORECASE))
    return clause if clause is not None and min(map(len, clause), default=0) > 0 else frozenset()
