"""Which of many regexes may match a long text, found for all of them in one pass (hyperscan).

Python's ``re`` tries a pattern at every position of a text, once per pattern: over a 200 000-character
page, ~70 injection rules whose words all occur somewhere each read the whole page.  Hyperscan compiles
all the patterns into one automaton that reads the text once.  It serves here only as a *prefilter*: compiled
with ``HS_FLAG_PREFILTER``, it reports a superset of the patterns that can match (look-arounds and
back-references, which it cannot run, are widened), and the caller then runs the ``re`` patterns it
reported.  Results are therefore those of ``re`` itself; hyperscan only decides which patterns need not
run.

Hyperscan reads bytes with PCRE's ASCII classes; Python reads code points with Unicode classes.  The
text is therefore *projected* onto ASCII first, one byte per character, so that positions and repeat
counts stay as they are.  Each character becomes an ASCII character that every character class of the
patterns accepting the original also accepts (a literal, a set, ``\\w``, ``.``, case-insensitive letters
included) and that is a word character exactly when the original is one (for ``\\b``).  A match in the
text is then a match, at the same place, in the projection: hyperscan may report more patterns, never
fewer.  ASCII characters stand for themselves, except the four that Python's ``\\s`` accepts and PCRE's
does not (``\\x1c``-``\\x1f``).  The tests check every class of every pattern on every ASCII character in
both engines, the projection of every code point, and, on corpus texts with random mutations, that
every pattern that matches is reported.

A pattern set may also read the text with characters substituted (``widened`` patterns and a
``translate`` table): one pass then also names the patterns that may match once some of those
substitutions are made, for instance once leetspeak is undone in a mixed token, without building that
rewriting.

Building the automaton takes seconds, so it happens once, in a
background thread (the compiler releases the GIL), and the result is kept in a cache directory
(``TRUST_REGISTRY_CACHE_DIR``, else ``$XDG_CACHE_HOME/trust-registry``, else ``~/.cache/trust-registry``)
where the next process loads it at once.  Until it is ready, or where hyperscan is not
installed, ``may_match`` answers ``None`` and callers take their own path.
"""

from __future__ import annotations

import codecs
import functools
import hashlib
import importlib
import json
import logging
import os
import re
import tempfile
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from .fastpath import is_word, record_match, record_start

__all__ = ["LeadFinder", "PatternSet", "cache_dir", "character_tests", "lead_finder", "widened"]

log = logging.getLogger(__name__)

try:
    _hs: Any = importlib.import_module("hyperscan")
except ImportError:  # pragma: no cover - hyperscan ships wheels for the platforms we deploy on
    _hs = None

_parser: Any = importlib.import_module("re._parser")
try:
    _fcntl: Any = importlib.import_module("fcntl")
except ImportError:  # pragma: no cover - not on Windows: processes there may compile the same set twice
    _fcntl = None

# Python's ``\s`` accepts these four ASCII separators, PCRE's does not: they are projected like any
# non-ASCII character.  Every other ASCII character means the same to both engines (tests check it).
_PCRE_DIFFERS = "\x1c\x1d\x1e\x1f"
_SUPPORTED_FLAGS = re.IGNORECASE | re.DOTALL | re.MULTILINE | re.UNICODE
# Distinct characters whose projection is remembered per set; the memo is emptied when full.
_MAX_REMEMBERED = 65_536
# Runs of non-Latin-1 characters fewer than this many ASCII characters apart are projected together,
# in one ``str.translate``: a text in another script costs one call of the error handler, not one a word.
_NEAR = 8
_NEAR_RUNS = re.compile(rf"(?:[\x00-\x7f]{{0,{_NEAR - 1}}}[^\x00-\x7f]+)*")


def cache_dir() -> Path:
    """Where compiled pattern databases are kept between processes.

    >>> cache_dir().name
    'trust-registry'
    """
    explicit = os.environ.get("TRUST_REGISTRY_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "trust-registry"


class _Unprojectable(Exception):
    """A character no ASCII character can stand for (none has been met; the tests look for one)."""


def _class_source(items: Any) -> str:
    parts = []
    for op, av in items:
        name = str(op)
        if name == "NEGATE":
            parts.append("^")
        elif name == "LITERAL":
            parts.append(re.escape(chr(av)))
        elif name == "RANGE":
            parts.append(f"{re.escape(chr(av[0]))}-{re.escape(chr(av[1]))}")
        elif name == "CATEGORY":
            parts.append(_CATEGORIES[str(av)])
        else:  # pragma: no cover - the parser produces nothing else inside a set
            raise ValueError(f"unexpected item {name} in a character set")
    return "[" + "".join(parts) + "]"


_CATEGORIES = {
    "CATEGORY_DIGIT": r"\d",
    "CATEGORY_NOT_DIGIT": r"\D",
    "CATEGORY_SPACE": r"\s",
    "CATEGORY_NOT_SPACE": r"\S",
    "CATEGORY_WORD": r"\w",
    "CATEGORY_NOT_WORD": r"\W",
}
_ANY_FLAGS = re.IGNORECASE | re.DOTALL | re.ASCII


def _test_source(name: str, av: Any) -> str | None:
    """The regex source of a parsed one-character test (a literal, a set, ``.``); None for other items."""
    if name == "LITERAL":
        return re.escape(chr(av))
    if name == "NOT_LITERAL":
        return f"[^{re.escape(chr(av))}]"
    if name == "ANY":
        return "."
    if name == "IN":
        return _class_source(av)
    return None


def _atoms(items: Any, flags: int, out: set[tuple[str, int]]) -> None:
    """Collect, as (regex source, flags), every one-character test in a parsed pattern."""
    for op, av in items:
        name = str(op)
        source = _test_source(name, av)
        if source is not None:
            out.add((source, flags))
        elif name == "SUBPATTERN":
            _group, add, remove, sub = av
            _atoms(sub, (flags | add) & ~remove, out)
        elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            _atoms(av[2], flags, out)
        elif name == "BRANCH":
            for branch in av[1]:
                _atoms(branch, flags, out)
        elif name in ("ASSERT", "ASSERT_NOT"):
            _atoms(av[1], flags, out)
        elif name == "ATOMIC_GROUP":
            _atoms(av, flags, out)
        elif name == "GROUPREF_EXISTS":
            _atoms(av[1], flags, out)
            if av[2] is not None:
                _atoms(av[2], flags, out)
        # AT (anchors, \b) and GROUPREF test no character of their own: \b depends on \w, which the
        # projection keeps; back-references are widened by the prefilter.


def character_tests(patterns: Sequence[re.Pattern[str]]) -> list[re.Pattern[str]]:
    """Every one-character test (literal, set, class, ``.``) in ``patterns``, each compiled alone.

    >>> [t.pattern for t in character_tests([re.compile(r"a[^b]")])]
    ['[^b]', 'a']
    """
    found: set[tuple[str, int]] = set()
    for pattern in patterns:
        _atoms(_parser.parse(pattern.pattern, pattern.flags), pattern.flags & _ANY_FLAGS, found)
    return [re.compile(src, flags) for src, flags in sorted(found)]


def widened(pattern: re.Pattern[str], substitutions: dict[str, str]) -> re.Pattern[str]:
    """A pattern for hyperscan that matches ``t.translate(table)`` (``table`` made of ``substitutions``)
    at least wherever ``pattern`` matches ``t`` with *some* of those substitutions made.

    One pass over the translated text then says both whether ``pattern`` may match a text and whether
    it may match any rewriting of it that makes some of the substitutions (undoing leetspeak in a
    mixed token: "1gn0r3" read as "ignore"), without building the rewriting.  Each one-character test
    also accepts the substitute of every character it accepts; ``\\b`` and ``\\B`` go (a substitution
    may turn "@" into a word character) and so do look-arounds, which only ever narrow a match; a
    back-reference becomes its group again.  Substitutes must not be substituted in turn.

    >>> w = widened(re.compile(r"\\bpass\\d"), {"4": "a", "0": "o"})
    >>> w.pattern
    'pass(?:[\\d]|[ao])'
    >>> bool(w.search("p4ss0".translate(str.maketrans({"4": "a", "0": "o"}))))
    True
    """
    if set(substitutions) & set(substitutions.values()):
        raise ValueError(f"substitutes must not be substituted themselves: {substitutions!r}")
    tree = _parser.parse(pattern.pattern, pattern.flags)
    pairs = tuple(sorted(substitutions.items()))
    return re.compile(_widened(tree, pattern.flags, pairs, {}), pattern.flags)


@functools.lru_cache(maxsize=4096)
def _widened_test(source: str, flags: int, substitutions: tuple[tuple[str, str], ...]) -> str:
    """The one-character test ``source`` that also accepts the substitute of each character it accepts.

    Cached: the rules repeat the same letters and classes thousands of times, and each is widened once.
    """
    test = re.compile(source, flags & _ANY_FLAGS)
    extra = sorted({new for old, new in substitutions if test.fullmatch(old) and not test.fullmatch(new)})
    return f"(?:{source}|[{re.escape(''.join(extra))}])" if extra else source


def _widened(
    items: Any, flags: int, substitutions: tuple[tuple[str, str], ...], groups: dict[int, str]
) -> str:
    out: list[str] = []
    for op, av in items:
        name = str(op)
        source = _test_source(name, av)
        if source is not None:
            out.append(_widened_test(source, flags, substitutions))
        elif name == "BRANCH":
            out.append("(?:" + "|".join(_widened(b, flags, substitutions, groups) for b in av[1]) + ")")
        elif name == "SUBPATTERN":
            group, add, remove, sub = av
            body = _widened(sub, (flags | add) & ~remove, substitutions, groups)
            if group is not None:
                groups[group] = body
            modifiers = ("i" if add & re.IGNORECASE else "") + ("-i" if remove & re.IGNORECASE else "")
            out.append(f"(?{modifiers}:{body})")
        elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            # Lazy and possessive repeats match no string a greedy one does not.
            low, high, sub = av
            bound = "" if high == _parser.MAXREPEAT else str(high)
            out.append(f"(?:{_widened(sub, flags, substitutions, groups)}){{{low},{bound}}}")
        elif name == "AT":
            anchor = _ANCHORS.get(str(av))
            if anchor is not None:
                out.append(anchor)
            # \b and \B go: a substitution can change which characters are word characters.
        elif name == "GROUPREF":
            out.append(f"(?:{groups[av]})")
        elif name == "ATOMIC_GROUP":
            out.append(f"(?:{_widened(av, flags, substitutions, groups)})")
        elif name in ("ASSERT", "ASSERT_NOT"):
            pass  # a look-around only narrows where the rest matches
        else:
            raise ValueError(f"cannot widen {name} in {items!r}")
    return "".join(out)


_ANCHORS = {"AT_BEGINNING": "^", "AT_END": "$", "AT_BEGINNING_STRING": r"\A", "AT_END_STRING": r"\Z"}


class _StandIns(dict[int, str]):
    """The characters met so far, by code point, each with what it is replaced by in ``str.translate``.

    A non-ASCII character gets its stand-in (found by ``find``, then remembered); an ASCII character
    stays as it is (``_Projection.fix`` maps the few that must not).  The first character that has no
    stand-in makes ``str.translate`` raise ``_Unprojectable``.
    """

    def __init__(self, find: Callable[[str], str]) -> None:
        super().__init__((code, chr(code)) for code in range(128))
        self.find = find

    def __missing__(self, code: int) -> str:
        if code < 128:  # after a ``clear``
            return chr(code)
        found = self.find(chr(code))
        if len(self) >= _MAX_REMEMBERED:
            self.clear()
        self[code] = found
        return found


class _Projection:
    """Maps a text to bytes of the same length that every pattern of a set matches at least as well."""

    def __init__(self, tests: list[re.Pattern[str]], name: str) -> None:
        self.tests = tests
        # The ASCII characters that may stand in, with the tests each one passes, word characters apart
        # from the others (``\b`` must see the same).  Letters and digits come last: a stand-in that is
        # a rare character keeps hyperscan's reports close to the real matches.
        order = sorted(
            (chr(i) for i in range(128) if chr(i) not in _PCRE_DIFFERS),
            key=lambda c: (c.isalnum(), c.isspace(), c),
        )
        self.stand_ins = [(c, self._passes(c), is_word(c)) for c in order]
        self.memo = _StandIns(self._find)
        self.error_name = f"trust_registry.project.{name}.{id(self)}"
        codecs.register_error(self.error_name, self._on_non_latin1)
        self.fix = bytes.maketrans(
            _PCRE_DIFFERS.encode(), "".join(self.stand_in(c) for c in _PCRE_DIFFERS).encode()
        )
        # Latin-1 texts (most pages) are projected by one ``bytes.translate`` of their Latin-1 encoding:
        # byte ``b`` goes to the projection of ``chr(b)``.  Built here, before any thread can use it.
        # ``unprojectable`` holds the Latin-1 characters that have no stand-in (none has been met);
        # texts holding one take the path by runs, which raises.
        table = bytearray(self.fix)
        unprojectable = []
        for code in range(128, 256):
            try:
                table[code] = self.fix[ord(self.stand_in(chr(code)))]
            except _Unprojectable:
                unprojectable.append(chr(code))
        self.latin1 = bytes(table)
        self.unprojectable = "".join(unprojectable)

    def _passes(self, ch: str) -> int:
        bits = 0
        for i, test in enumerate(self.tests):
            if test.fullmatch(ch) is not None:
                bits |= 1 << i
        return bits

    def _find(self, ch: str) -> str:
        needed = self._passes(ch)
        word = is_word(ch)
        for candidate, passes, candidate_word in self.stand_ins:
            if candidate_word == word and passes & needed == needed:
                return candidate
        raise _Unprojectable(ch)

    def stand_in(self, ch: str) -> str:
        """The ASCII character that ``ch`` is projected to (raises ``_Unprojectable`` if none fits)."""
        return self._find(ch) if ch.isascii() else self.memo[ord(ch)]

    def _on_non_latin1(self, error: UnicodeError) -> tuple[str, int]:
        # The encoder calls this once per run of characters it cannot encode; a run followed closely by
        # others (a text in another script, a mix of Latin-1 and other characters) is replaced together
        # with them, ASCII and Latin-1 characters between included, as ``memo`` maps each of them.
        assert isinstance(error, UnicodeEncodeError)
        text, end = error.object, error.end
        if not text[end : end + _NEAR].isascii():
            match = _NEAR_RUNS.match(text, end)
            assert match is not None  # it matches the empty string
            end = match.end()
        return text[error.start : end].translate(self.memo), end

    def project(self, text: str) -> bytes:
        """``text`` as ASCII bytes, one per character (raises ``_Unprojectable``).

        An ASCII text is its own projection unless it holds one of ``_PCRE_DIFFERS``.  Otherwise the
        Latin-1 characters go through the ``latin1`` table in one ``bytes.translate``, after the encoder
        has handed the others, run by run, to ``_on_non_latin1``: the ASCII it puts in their place the
        table maps as ``fix`` does.  The bytes are those of ``_project_by_runs``, the path of the texts
        that hold a Latin-1 character without a stand-in.
        """
        if text.isascii() and not any(ch in text for ch in _PCRE_DIFFERS):
            return text.encode("ascii")  # the common case: the text is its own projection
        if self.unprojectable and any(ch in text for ch in self.unprojectable):
            return self._project_by_runs(text)
        return text.encode("latin-1", self.error_name).translate(self.latin1)

    def _project_by_runs(self, text: str) -> bytes:
        # Every run of non-ASCII characters through ``_on_non_latin1``: it raises at the first character
        # of the text that has no stand-in.
        return text.encode("ascii", self.error_name).translate(self.fix)


class PatternSet:
    """A set of ``re`` patterns whose possible matches in a text hyperscan finds in one pass.

    ``may_match(text)`` gives a bit set: bit ``i`` when ``patterns[i]`` may match somewhere in ``text``
    (always set when it does match), or ``None`` while the database is not ready, hyperscan is missing
    or ``enabled`` is false (tests compare the callers' paths with and without the set).  Thread-safe;
    each thread gets its own scratch space.

    ``translate``, a ``bytes.translate`` table, is applied to the projection of each text before the
    scan: with ``widened`` patterns, the bits then also tell which patterns may match the text with
    some of the substitutions made.  (A character's stand-in passes every test it passes, and a widened
    test accepts the substitute of each character it accepts, so the translated stand-in passes too.)
    """

    def __init__(
        self, name: str, patterns: Sequence[re.Pattern[str]], translate: bytes | None = None
    ) -> None:
        for pattern in patterns:
            if pattern.flags & ~_SUPPORTED_FLAGS:
                raise ValueError(f"unsupported flags on {pattern.pattern!r}: {pattern.flags}")
        self.name = name
        self.patterns = tuple(patterns)
        # A ``bytes.translate`` table applied to a text's projection before the scan (``widened``
        # patterns read the text with their substitutions made this way).
        self.translate = translate
        self._projection: _Projection | None = None
        self._database: Any = None
        self._prototype: Any = None
        self._ascii_table = b""
        self._local = threading.local()
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._thread: threading.Thread | None = None
        self.error: str | None = None
        self.enabled = True
        # A child process does not inherit the building thread: let it start its own if it needs one.
        os.register_at_fork(after_in_child=self._after_fork)

    def _after_fork(self) -> None:
        if not self._done.is_set():
            # The building thread stayed in the parent, and a lock it (or a waiter) held would stay
            # held here: start from fresh ones; the build is started again when the child needs it.
            self._thread = None
            self._lock = threading.Lock()
            self._done = threading.Event()

    # --- building ------------------------------------------------------------------------------------

    def _flags(self, pattern: re.Pattern[str]) -> int:
        flags = _hs.HS_FLAG_PREFILTER | _hs.HS_FLAG_SINGLEMATCH | _hs.HS_FLAG_ALLOWEMPTY
        if pattern.flags & re.IGNORECASE:
            flags |= _hs.HS_FLAG_CASELESS
        if pattern.flags & re.DOTALL:
            flags |= _hs.HS_FLAG_DOTALL
        if pattern.flags & re.MULTILINE:
            flags |= _hs.HS_FLAG_MULTILINE
        return flags

    def cache_path(self) -> Path:
        """The file the compiled database is kept in (named by the patterns and the hyperscan version)."""
        version = getattr(_hs, "__version__", "") if _hs is not None else ""
        key = json.dumps([version, [[p.pattern, p.flags] for p in self.patterns]])
        digest = hashlib.sha256(key.encode()).hexdigest()[:24]
        return cache_dir() / f"hyperscan-{self.name}-{digest}.db"

    def _compile(self) -> Any:
        database = _hs.Database(mode=_hs.HS_MODE_BLOCK)
        database.compile(
            expressions=[p.pattern.encode() for p in self.patterns],
            ids=list(range(len(self.patterns))),
            elements=len(self.patterns),
            flags=[self._flags(p) for p in self.patterns],
        )
        return database

    @staticmethod
    def _load(path: Path) -> Any:
        try:
            return _hs.loadb(path.read_bytes(), _hs.HS_MODE_BLOCK)
        except FileNotFoundError:
            return None
        except (OSError, _hs.error) as exc:  # built on another CPU or by another hyperscan: compile afresh
            log.info("hyperscan cache %s unusable (%s); compiling", path, exc)
            return None

    def _load_or_compile(self) -> Any:
        path = self.cache_path()
        database = self._load(path)
        if database is not None:
            return database
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            lock = open(path.with_suffix(".lock"), "a+b")  # noqa: SIM115 - held across the compile below
        except OSError as exc:  # a read-only home is no reason to fail: compile, keep nothing
            log.warning("no hyperscan cache in %s (%s): compiling in this process only", path.parent, exc)
            return self._compile()
        with lock:
            # Processes starting together (web workers) compile once: the others wait here, then load.
            # A POSIX record lock, not ``flock``: a child forked meanwhile does not inherit it, so it
            # cannot keep the lock held after this thread lets go (a test forks during a build).
            if _fcntl is not None:
                _fcntl.lockf(lock.fileno(), _fcntl.LOCK_EX)
            database = self._load(path)
            if database is None:
                database = self._compile()
                try:
                    with tempfile.NamedTemporaryFile(dir=path.parent, prefix=path.name, delete=False) as tmp:
                        tmp.write(_hs.dumpb(database))
                    os.replace(tmp.name, path)  # atomic: readers see no file or the whole file
                except OSError as exc:
                    log.warning("could not keep the hyperscan database in %s: %s", path.parent, exc)
        return database

    def _build(self) -> None:
        try:
            projection = _Projection(character_tests(self.patterns), self.name)
            database = self._load_or_compile()
            self._prototype = _hs.Scratch(database)
            # An ASCII text's projection, translated, in one ``bytes.translate`` (see ``may_match``).
            fix = projection.fix
            self._ascii_table = fix if self.translate is None else fix.translate(self.translate)
            self._projection = projection
            self._database = database
        except Exception as exc:  # any failure leaves the callers on their own path
            self.error = repr(exc)
            log.exception("hyperscan prefilter %s unavailable", self.name)
        finally:
            self._done.set()

    def start(self) -> None:
        """Start loading or compiling the database in a background thread (once; later calls return)."""
        if _hs is None or self._done.is_set() or self._thread is not None:
            return
        with self._lock:
            if self._thread is None and not self._done.is_set():
                self._thread = threading.Thread(
                    target=self._build, name=f"hyperscan-{self.name}", daemon=True
                )
                self._thread.start()

    def wait(self, timeout: float | None = None) -> bool:
        """Start the build if needed and wait for it; whether the set is ready to use.

        >>> PatternSet("doc", [re.compile("a+b")]).wait(timeout=60)
        True
        """
        if _hs is None:
            return False
        self.start()
        self._done.wait(timeout)
        return self._database is not None

    # --- scanning ------------------------------------------------------------------------------------

    def may_match(self, text: str) -> int | None:
        """Bit ``i`` set when ``patterns[i]`` may match in ``text``; ``None`` when not ready.

        >>> s = PatternSet("doc", [re.compile(r"\\bcat\\b"), re.compile("dog", re.I)])
        >>> s.wait(timeout=60) and s.may_match("A DOG and a caterpillar")
        2
        """
        database = self._database
        projection = self._projection
        if not self.enabled:
            return None
        if database is None or projection is None:
            self.start()
            return None
        if text.isascii():
            # ``projection.project`` of an ASCII text is its bytes with ``_PCRE_DIFFERS`` replaced by
            # the ``fix`` table (whether or not one occurs), then ``translate``: one table does both.
            # This module runs interpreted, and the search for ``_PCRE_DIFFERS`` (a generator) cost
            # more than the translation (h18d).
            data = text.encode("ascii").translate(self._ascii_table)
        else:
            try:
                data = projection.project(text)
            except _Unprojectable:
                return None
            if self.translate is not None:
                data = data.translate(self.translate)
        scratch = getattr(self._local, "scratch", None)
        if scratch is None:
            scratch = self._local.scratch = self._prototype.clone()
        found = [0]
        # Positional arguments: the binding's keyword parsing cost a tenth of a short line's scan.
        database.scan(data, record_match, 0, found, scratch)
        return found[0]


class LeadFinder:
    """Where any of a few literal strings (a rule's leads, ``fastpath.LeadSearch``) starts in a stretch of a
    text, found in one hyperscan pass over the stretch.

    ``str.find`` reads the stretch once per lead: with the 31 leads of the meta phrases ("an", "how",
    "what", ...) that was most of a search through a long page. The text is read as Latin-1 with every
    other character replaced by ``?`` (one byte per character, so offsets hold): where a lead occurs in
    the text it occurs in those bytes, so no occurrence is missed; one the replacement makes up is only
    an extra place to try (the caller runs the regex there). A literal database compiles in about a
    millisecond, so it is built on first use and kept per lead tuple (``lead_finder``).
    """

    def __init__(self, leads: Sequence[str]) -> None:
        encoded = [lead.encode("latin-1") for lead in leads]
        self.leads = tuple(leads)
        self.longest = max(len(lead) for lead in encoded)
        database = _hs.Database(mode=_hs.HS_MODE_BLOCK)
        database.compile(
            expressions=[b"".join(b"\\x%02x" % byte for byte in lead) for lead in encoded],
            ids=list(range(len(encoded))),
            elements=len(encoded),
            flags=[_hs.HS_FLAG_SOM_LEFTMOST] * len(encoded),
        )
        self._database = database
        self._prototype = _hs.Scratch(database)
        self._local = threading.local()

    def __call__(self, text: str, start: int, end: int) -> list[int]:
        """The places in ``[start, end)`` where a lead starts in ``text``, ascending (each once)."""
        data = text[start : end + self.longest - 1].encode("latin-1", "replace")
        scratch = getattr(self._local, "scratch", None)
        if scratch is None:
            scratch = self._local.scratch = self._prototype.clone()
        found: list[int] = []
        self._database.scan(data, match_event_handler=record_start, context=found, scratch=scratch)
        limit = end - start
        return sorted({start + at for at in found if at < limit})


_LEAD_FINDERS: dict[tuple[str, ...], LeadFinder | None] = {}
_LEAD_FINDERS_LOCK = threading.Lock()


def lead_finder(leads: tuple[str, ...]) -> LeadFinder | None:
    """The ``LeadFinder`` of ``leads`` (built once), or ``None`` when hyperscan is missing, finders are
    switched off (``LEAD_FINDERS_ENABLED``, for tests) or a lead is not Latin-1; callers then use
    ``str.find``.

    >>> finder = lead_finder(("an", "how"))
    >>> finder is None or finder("how can an owl", 0, 14) == [0, 5, 8]
    True
    """
    if _hs is None or not LEAD_FINDERS_ENABLED[0] or not leads:
        return None
    finder = _LEAD_FINDERS.get(leads, _MISSING)
    if finder is not _MISSING:
        return finder if isinstance(finder, LeadFinder) else None
    with _LEAD_FINDERS_LOCK:
        if leads not in _LEAD_FINDERS:
            try:
                _LEAD_FINDERS[leads] = LeadFinder(leads)
            except (UnicodeEncodeError, _hs.error) as exc:
                log.info("no lead finder for %r (%s): str.find instead", leads, exc)
                _LEAD_FINDERS[leads] = None
        return _LEAD_FINDERS[leads]


_MISSING: Any = object()
# Element 0 false: ``lead_finder`` gives ``None`` (the tests compare both ways of finding leads).
LEAD_FINDERS_ENABLED = [True]
