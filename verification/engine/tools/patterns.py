"""Response patterns that cost linear time: refused when they could backtrack, matched with hyperscan.

A tool profile's ``response_patterns`` come from operators and run on every result of the tool. Python's
``re`` backtracks: ``(a+)+b`` against a long run of ``a`` takes exponential time. Two rules keep a
pattern's cost linear in the result's length:

- :func:`pattern_problem` refuses, when a profile is saved, what can backtrack catastrophically: a
  variable repeat inside another repeat (``(a+)+``, ``(x*)*``), alternatives of a repeat that can start
  with the same character (``(a|a)*``, ``(a|ab)*``), back-references, look-arounds and conditionals, and
  (where hyperscan is installed) anything hyperscan cannot compile. The check is syntactic and
  conservative: it refuses some harmless patterns rather than let a harmful one through.
- :class:`ResponsePatterns` matches with hyperscan where it is installed (x86_64 Linux, macOS): a
  linear-time automaton, one pass for all the patterns of a profile. ``.`` matches newlines and
  ``\\w \\d \\s \\b`` are ASCII classes, as with ``re.DOTALL | re.ASCII``. Elsewhere it uses ``re`` on
  patterns that passed the check: that excludes exponential backtracking, not a polynomial cost such as
  ``.*.*x`` on a long line (the results' length cap bounds it there).
  A pattern stored before these rules that fails them is not run where it cannot run safely: it is
  listed in :attr:`ResponsePatterns.skipped`.

>>> pattern_problem(r'"price"\\s*:\\s*\\d+') is None
True
>>> pattern_problem("(a+)+b")
'a repeat inside a repeat can backtrack exponentially'
>>> ResponsePatterns(('"price"', "^\\\\{")).failing('{"cost": 1}')
('"price"',)
"""

from __future__ import annotations

import importlib
import re
import threading
import time
from functools import lru_cache
from typing import Any, Final

try:
    _re_parser: Any = importlib.import_module("re._parser")  # Python 3.11+
except ImportError:  # pragma: no cover - older Pythons keep it under its old name
    _re_parser = importlib.import_module("sre_parse")
_consts: Any = importlib.import_module("re._constants") if hasattr(re, "_constants") else _re_parser

try:
    _hs: Any = importlib.import_module("hyperscan")
except ImportError:  # pragma: no cover - hyperscan ships wheels for the platforms we deploy on
    _hs = None

__all__ = [
    "HYPERSCAN",
    "MAX_PATTERN_CHARS",
    "ResponsePatterns",
    "linear_search",
    "pattern_problem",
    "pattern_problem_syntax",
]

#: Whether matching runs on hyperscan in this process.
HYPERSCAN: Final = _hs is not None
#: A pattern is an expectation about a response's shape, not a program: longer ones are refused.
MAX_PATTERN_CHARS: Final = 1000
#: CPU seconds hyperscan may take to compile one pattern when a profile is saved.
MAX_COMPILE_SECONDS: Final = 0.25

_REPEATS = frozenset({_consts.MAX_REPEAT, _consts.MIN_REPEAT, getattr(_consts, "POSSESSIVE_REPEAT", None)})
_MAXREPEAT = _consts.MAXREPEAT
_REFUSED_OPS = {
    _consts.GROUPREF: "a back-reference needs backtracking",
    _consts.GROUPREF_EXISTS: "a conditional group needs backtracking",
    _consts.ASSERT: "a look-ahead or look-behind is not supported",
    _consts.ASSERT_NOT: "a look-ahead or look-behind is not supported",
}
_ANY_FIRST: Final = None
# How patterns match: "." takes newlines too; \w, \d, \s and \b are ASCII classes (as hyperscan has them).
_RE_FLAGS: Final = re.DOTALL | re.ASCII  # "could start with any character" in a first-character set


def pattern_problem(pattern: str) -> str | None:
    """Why ``pattern`` cannot be a response pattern, or ``None`` when it is safe to run.

    >>> [pattern_problem(p) is None for p in ["(x*)*y", "(a|a)*b", r"(\\w+)\\1", "(?=a)b", r"\\d{3}-\\d{4}"]]
    [False, False, False, False, True]
    """
    problem = pattern_problem_syntax(pattern)
    if problem is None and _hs is not None:
        problem = _hyperscan_problem(pattern)
    return problem


def pattern_problem_syntax(pattern: str) -> str | None:
    """:func:`pattern_problem` without asking hyperscan: the syntactic check alone."""
    if len(pattern) > MAX_PATTERN_CHARS:
        return f"a pattern has at most {MAX_PATTERN_CHARS} characters"
    try:
        tree = _re_parser.parse(pattern, _RE_FLAGS)
    except (re.error, RecursionError, OverflowError) as exc:
        return f"not a regular expression: {exc}"
    return _walk(tree, inside_repeat=False)


def _walk(tree: Any, *, inside_repeat: bool) -> str | None:
    for op, arg in tree:
        if op in _REFUSED_OPS:
            return _REFUSED_OPS[op]
        if op in _REPEATS:
            low, high, body = arg
            if inside_repeat and low != high:
                # An exact count ("\d{3}") is unrolled, not a choice: it may sit inside a repeat.
                return "a repeat inside a repeat can backtrack exponentially"
            repeated = high > 1
            if repeated and _ambiguous(body):
                return "alternatives inside a repeat that can start alike can backtrack exponentially"
            problem = _walk(body, inside_repeat=inside_repeat or repeated)
            if problem:
                return problem
        elif op == _consts.IN and inside_repeat and _duplicates(arg):
            return "alternatives inside a repeat that can start alike can backtrack exponentially"
        elif op == _consts.SUBPATTERN:
            problem = _walk(arg[-1], inside_repeat=inside_repeat)
            if problem:
                return problem
        elif op == _consts.BRANCH:
            for branch in arg[1]:
                problem = _walk(branch, inside_repeat=inside_repeat)
                if problem:
                    return problem
            if inside_repeat and _overlapping([_first(b) for b in arg[1]]):
                return "alternatives inside a repeat that can start alike can backtrack exponentially"
        elif op == _consts.ATOMIC_GROUP if hasattr(_consts, "ATOMIC_GROUP") else False:
            problem = _walk(arg, inside_repeat=inside_repeat)
            if problem:
                return problem
    return None


def _ambiguous(body: Any) -> bool:
    """Whether a repeated body has alternatives that can start with the same character."""
    for op, arg in body:
        if op == _consts.BRANCH and _overlapping([_first(b) for b in arg[1]]):
            return True
        if op == _consts.SUBPATTERN and _ambiguous(arg[-1]):
            return True
        if op == _consts.IN and _duplicates(arg):
            return True
    return False


def _duplicates(items: Any) -> bool:
    """A character set naming one character twice: what ``re`` makes of identical one-character
    alternatives (``(a|a)`` parses as ``[aa]``), never written on purpose."""
    literals = [arg for op, arg in items if op == _consts.LITERAL]
    return len(literals) != len(set(literals))


def _first(seq: Any) -> frozenset[int] | None:
    """The characters ``seq`` can start with: a set of code points, or ``None`` for "any character"
    (classes, categories and anything that can match empty count as any: the check must not miss)."""
    for op, arg in seq:
        if op == _consts.LITERAL:
            return frozenset({arg})
        if op == _consts.SUBPATTERN:
            return _first(arg[-1])
        if op in (_consts.AT,):  # an anchor consumes nothing: look further
            continue
        return _ANY_FIRST
    return _ANY_FIRST  # an empty alternative matches anywhere


def _overlapping(firsts: list[frozenset[int] | None]) -> bool:
    seen: set[int] = set()
    for first in firsts:
        if first is None:
            return len(firsts) > 1
        if seen & first:
            return True
        seen |= first
    return False


def _flags() -> int:
    # UTF-8, so "." is one character as in re; no UCP, in which hyperscan refuses \b: \w, \d, \s and \b
    # are ASCII classes, as with re.ASCII (what the fallback uses too).
    return int(_hs.HS_FLAG_DOTALL | _hs.HS_FLAG_SINGLEMATCH | _hs.HS_FLAG_ALLOWEMPTY | _hs.HS_FLAG_UTF8)


def _hyperscan_problem(pattern: str) -> str | None:
    started = time.thread_time()
    try:
        database = _hs.Database(mode=_hs.HS_MODE_BLOCK)
        database.compile(expressions=[pattern.encode()], ids=[0], elements=1, flags=[_flags()])
    except _hs.error as exc:
        return f"not supported by the linear-time matcher: {exc}"
    # Matching is linear, compiling is not: some bounded repeats take seconds to compile, and every
    # process compiles a profile's patterns again when profiles change.
    if time.thread_time() - started > MAX_COMPILE_SECONDS:
        return f"too complex for the linear-time matcher (compiling it takes over {MAX_COMPILE_SECONDS:g} s)"
    return None


def _on_match(pattern_id: int, start: int, end: int, flags: int, found: set[int]) -> None:
    found.add(pattern_id)


class ResponsePatterns:
    """The response patterns of one profile, matched in time linear in the text.

    >>> rp = ResponsePatterns(("(a+)+b", "a"))
    >>> rp.skipped == (() if HYPERSCAN else ("(a+)+b",))
    True
    >>> rp.failing("a" * 10_000) == (("(a+)+b",) if HYPERSCAN else ())
    True
    """

    def __init__(self, patterns: tuple[str, ...]) -> None:
        self.patterns = patterns
        self._database: Any = None
        self._scratch: Any = None
        self._local = threading.local()
        self._fallback: list[tuple[str, re.Pattern[str]]] = []
        skipped: list[str] = []
        if _hs is not None and patterns:
            # One database for all the patterns: every pattern compiles alone (checked above), so a
            # failure here is a pattern stored before the check; those are dropped one by one.
            usable = [p for p in patterns if _hyperscan_problem(p) is None]
            skipped = [p for p in patterns if p not in usable]
            if usable:
                self._hs_patterns = usable
                database = _hs.Database(mode=_hs.HS_MODE_BLOCK)
                database.compile(
                    expressions=[p.encode() for p in usable],
                    ids=list(range(len(usable))),
                    elements=len(usable),
                    flags=[_flags()] * len(usable),
                )
                self._database = database
                self._scratch = _hs.Scratch(database)
        else:
            for p in patterns:
                if pattern_problem(p) is None:
                    self._fallback.append((p, re.compile(p, _RE_FLAGS)))
                else:
                    skipped.append(p)
        self.skipped: tuple[str, ...] = tuple(skipped)

    @staticmethod
    def of(patterns: tuple[str, ...]) -> ResponsePatterns:
        """The (shared) matcher of ``patterns``: profiles are rebuilt in every process whenever any profile
        changes, and compiling is the expensive part, so equal pattern lists share one compiled matcher."""
        return _response_patterns(patterns)

    def failing(self, text: str) -> tuple[str, ...]:
        """The patterns (of those run) with no match in ``text``, in profile order."""
        if self._database is not None:
            scratch = getattr(self._local, "scratch", None)
            if scratch is None:
                scratch = self._local.scratch = self._scratch.clone()
            found: set[int] = set()
            # Lone surrogates (valid in JSON text) are not UTF-8: replaced, never passed on as bytes
            # hyperscan's UTF-8 mode would misread.
            data = text.encode("utf-8", "replace")
            self._database.scan(data, match_event_handler=_on_match, context=found, scratch=scratch)
            return tuple(p for i, p in enumerate(self._hs_patterns) if i not in found)
        return tuple(p for p, compiled in self._fallback if compiled.search(text) is None)


class _Single:
    """One pattern compiled for :func:`linear_search`: a hyperscan database (a scratch per thread) or,
    where hyperscan is missing or refuses it, ``re`` on a pattern that passed the check."""

    def __init__(self, pattern: str, dotall: bool) -> None:
        self.database: Any = None
        self.compiled: re.Pattern[str] | None = None
        self._local = threading.local()
        flags = _flags() if _hs is not None else 0
        if not dotall and _hs is not None:
            flags &= ~int(_hs.HS_FLAG_DOTALL)
        if _hs is not None and len(pattern) <= MAX_PATTERN_CHARS:
            try:
                database = _hs.Database(mode=_hs.HS_MODE_BLOCK)
                database.compile(expressions=[pattern.encode()], ids=[0], elements=1, flags=[flags])
                self.database, self._prototype = database, _hs.Scratch(database)
                return
            except _hs.error:
                pass
        if pattern_problem_syntax(pattern) is None:
            self.compiled = re.compile(pattern, (re.DOTALL if dotall else 0) | re.ASCII)

    def search(self, text: str) -> bool | None:
        if self.database is not None:
            scratch = getattr(self._local, "scratch", None)
            if scratch is None:
                scratch = self._local.scratch = self._prototype.clone()
            found: set[int] = set()
            data = text.encode("utf-8", "replace")
            self.database.scan(data, match_event_handler=_on_match, context=found, scratch=scratch)
            return bool(found)
        if self.compiled is not None:
            return self.compiled.search(text) is not None
        return None


@lru_cache(maxsize=1024)
def _single(pattern: str, dotall: bool) -> _Single:
    return _Single(pattern, dotall)


def linear_search(pattern: str, text: str, *, dotall: bool = False) -> bool | None:
    """Whether ``pattern`` matches somewhere in ``text``, in time linear in ``text``; ``None`` when the
    pattern cannot be run safely here (hyperscan refuses it and it could backtrack). For regexes that come
    with a request, such as the ``pattern`` keywords of a run's tool schemas.

    >>> linear_search("^[A-Z]{3}-[0-9]+$", "ORD-42"), linear_search("x", "abc")
    (True, False)
    >>> linear_search(r"(\\w+)\\1", "abab") is None  # a back-reference: neither engine runs it safely
    True
    """
    return _single(pattern, dotall).search(text)


@lru_cache(maxsize=256)
def _response_patterns(patterns: tuple[str, ...]) -> ResponsePatterns:
    return ResponsePatterns(patterns)
