"""PII detection and redaction over the type table of ``pii_types``.

``detect_pii`` finds candidates of every type, keeps those whose checksum or format check passes and
whose required context is present, gives each a confidence, and resolves overlaps in favour of the more
specific type.  Person names and places come from ``pii_names`` (gazetteers and cues) and lose every
overlap to a typed value.
``redact_pii`` replaces the matches by placeholders that are stable: the same value gets
the same placeholder everywhere in a text (``[EMAIL_1]`` twice), and with a ``key`` the placeholder is
a keyed hash of the value, stable across texts (``[EMAIL_3f9a0c12]``) without revealing it.
"""

from __future__ import annotations

import bisect
import hashlib
import hmac
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final, cast

from ..text import lower
from .fastpath import lowered_matches, lowered_text, lowered_variant
from .multiscan import PatternSet
from .pii_names import ADDRESS_EVIDENCE, ALL_SCANS, NAME_SCANS, NAME_TYPES, find_names, may_find, whole_place
from .pii_types import BLOCK_LIMIT, PII_TYPES, PiiType
from .prefilter import MIN_LITERAL, Occurrences, regex_pieces, required_run, shape_char, shape_needles

__all__ = [
    "PII_TYPE_NAMES",
    "PiiMatch",
    "Redaction",
    "detect_pii",
    "may_hold",
    "may_name",
    "prepare_pii_prefilter",
    "redact_pii",
]

#: Every type name ``detect_pii`` can report, sorted.
PII_TYPE_NAMES: tuple[str, ...] = tuple(sorted({t.name for t in PII_TYPES} | set(NAME_TYPES)))
# Names and places lose every overlap: a street in a postal address, a name inside an e-mail address.
_NAME_PRIORITY = -1
_POSTAL_PRIORITY = 1  # that of the typed ``postal_address`` patterns

_DEFAULT_MIN_CONFIDENCE = 0.5
# How far past a context word an ambiguous value may start, plus room for the value itself.
_VALUE_ROOM = 256
# How far before a candidate its ``negative_context`` is looked for ("upgraded the agent to 1.2.3.4").
_NEGATIVE_WINDOW = 40
# How far before a label written after it (``PiiType.label_after``) a value may start: the longest
# phone layouts with their separators and extension (h24f).
_LABEL_REACH = 40
# What may stand between a value and its label: blanks, an opening bracket, a dash ("(mobile)",
# "-Office", " - cell"), at most ``_LABEL_GAP`` characters of them.
_LABEL_SEPARATORS = " \t(-\u2013"
_LABEL_GAP = 3
_LINE_END = re.compile(r"[ \t]*(?:[\r\n]|\Z)")
_DIGIT = re.compile(r"\d")
_SEPARATORS = re.compile(r"[\s.\-]")


@dataclass(frozen=True, slots=True, init=False)
class PiiMatch:
    """One PII value found in a text: its type, character span, confidence and the check it passed.

    ``check`` names the checksum or format validation that passed ("luhn", "iban_mod97", ...), or is
    empty when the type has none; for a ``person`` or ``location`` it names the evidence ("title",
    "cue+gazetteer", "first_name+surname", see ``pii_names``).  ``context`` tells whether a context
    word was found before it.

    The constructor is written out rather than generated (``init=False``): compiled with mypyc, a
    generated ``__init__`` stays interpreted Python.  It takes the same parameters as the generated one
    and, the class being frozen, sets the fields as the generated one does.
    """

    type: str
    category: str
    start: int
    end: int
    value: str
    confidence: float
    check: str
    context: bool

    def __init__(
        self,
        type: str,
        category: str,
        start: int,
        end: int,
        value: str,
        confidence: float,
        check: str = "",
        context: bool = False,
    ) -> None:
        object.__setattr__(self, "type", type)
        object.__setattr__(self, "category", category)
        object.__setattr__(self, "start", start)
        object.__setattr__(self, "end", end)
        object.__setattr__(self, "value", value)
        object.__setattr__(self, "confidence", confidence)
        object.__setattr__(self, "check", check)
        object.__setattr__(self, "context", context)

    def to_dict(self, *, include_value: bool = False) -> dict[str, Any]:
        """Return a JSON-ready dict; the value is masked unless ``include_value`` is true.

        >>> detect_pii("mail bob@example.org")[0].to_dict()["preview"]
        'bo***rg'
        """
        out: dict[str, Any] = {
            "type": self.type,
            "category": self.category,
            "start": self.start,
            "end": self.end,
            "confidence": round(self.confidence, 4),
            "check": self.check,
            "context": self.context,
            "preview": _mask(self.value),
        }
        if include_value:
            out["value"] = self.value
        return out


@dataclass(frozen=True, slots=True)
class Redaction:
    """A redacted text and what was replaced (spans refer to the *original* text)."""

    text: str
    replacements: tuple[tuple[str, str, int, int], ...]

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-ready dict.

        >>> redact_pii("call 415-555-0132").to_dict()["text"]
        'call [PHONE_NANP_1]'
        """
        return {
            "text": self.text,
            "replacements": [
                {"placeholder": p, "type": t, "start": s, "end": e} for p, t, s, e in self.replacements
            ],
        }


def _mask(value: str) -> str:
    if len(value) <= 6:
        return "*" * len(value)
    keep = 2 if len(value) < 16 else 4
    return f"{value[:keep]}***{value[-keep:]}"


def _context_near(kind: PiiType, text: str, start: int) -> bool:
    if kind.context is None:
        return False
    return kind.context.search(text, max(0, start - kind.context_window), start) is not None


# Verdicts of the validators by (type, value).  Values recur (the same address or number in message
# after message, and every pass of a batch over the same lines), and a checksum (stdnum's IBAN and EIN
# tables, EIP-55's Keccak, date and address parsing) costs far more than a dict look-up.
# Exact because validators are pure functions of the value; the one that is not (a date of birth must
# not lie in the future: it reads today's date) is left out by ``PiiType.memo``.  Bounded: short values
# only, and the table is emptied when full (it refills with the values that recur).
_VERDICTS: dict[tuple[int, str], tuple[float, str] | None] = {}
_VERDICT_CACHE_SIZE = 8_192
_MEMO_MAX_VALUE = 256
# "Not in the table": a plain object, compared by identity (a tuple would be unboxed by mypyc, and
# a re-boxed copy is never the same object).
_UNSEEN = object()


def _validate(kind: PiiType, value: str) -> tuple[float, str] | None:
    """``kind.validator(value)``, memoised where that is exact (see ``_VERDICTS``)."""
    validator = kind.validator
    assert validator is not None
    if not kind.memo or len(value) > _MEMO_MAX_VALUE:
        return validator(value)
    key = (id(kind), value)  # the types live as long as the module: their ids are never reused
    # One ``get`` (not ``in`` then ``[]``): another thread may empty the table in between.
    known: object = _VERDICTS.get(key, _UNSEEN)
    if known is not _UNSEEN:
        return cast("tuple[float, str] | None", known)
    verdict = validator(value)
    if len(_VERDICTS) >= _VERDICT_CACHE_SIZE:
        _VERDICTS.clear()
    _VERDICTS[key] = verdict
    return verdict


def _accept(kind: PiiType, match: re.Match[str], text: str, has_context: bool) -> PiiMatch | None:
    start, end = match.span(kind.group)
    if start < 0:
        return None
    if kind.negative_context is not None and kind.negative_context.search(
        text, max(0, start - _NEGATIVE_WINDOW), start
    ):
        return None
    if kind.block_end is not None:
        tail = kind.block_end.search(text, end, min(len(text), end + BLOCK_LIMIT))
        if tail is not None:
            end = tail.end()
    value = text[start:end]
    confidence, check = kind.confidence, ""
    if kind.validator is not None:
        verdict = _validate(kind, value)
        while verdict is None and kind.shrink and " " in value:
            value = value[: value.rindex(" ")]
            verdict = _validate(kind, value)
        if verdict is None:
            return None
        end = start + len(value)
        confidence, check = verdict
    if has_context:
        confidence = min(0.99, confidence + kind.context_boost)
    return PiiMatch(kind.name, kind.category, start, end, value, confidence, check, has_context)


# Case-sensitive forms of the context regexes for lower-cased texts (see ``fastpath``).
_LOWERED_CONTEXT: dict[int, tuple[re.Pattern[str], bool]] = {
    id(kind): variant
    for kind in PII_TYPES
    if kind.context is not None
    and kind.context.flags & re.IGNORECASE
    and (variant := lowered_variant(kind.context.pattern)) is not None
}
#: Texts at least this long read their shape from character counts (``_features``), as the injection
#: rules do.
_FAST_CONTEXT_MIN_CHARS = 2_048


def _context_words(kind: PiiType, text: str, lowered: str | None) -> Iterable[re.Match[str]]:
    """Matches of ``kind.context`` in ``text``, found in its lowered form (same offsets) when given.

    On short texts too: a case-insensitive alternation of words (``\\b(?:call|phone|...)\\b``) makes
    ``re`` try every position, where its case-sensitive form skips to the words' first letters (the
    context words of the generated dev lines: 2.4x faster; h16p, docs/safety.md "PII speed (h16p)").
    """
    assert kind.context is not None
    variant = _LOWERED_CONTEXT.get(id(kind))
    if variant is None or lowered is None or len(lowered) != len(text):
        return kind.context.finditer(text)
    return lowered_matches(*variant, lowered)


# What ``detect_pii`` keeps of each type, written into its table directly: generators (the first form,
# kept as the reference the tests compare with in tests/engine_safety/pii_reference.py) cost a
# generator object and a resumption per value, which on short lines weighed as much as the values' checks.
_Found = dict[tuple[str, int, int], tuple[int, PiiMatch]]


def _keep(kind: PiiType, match: PiiMatch, min_confidence: float, found: _Found) -> None:
    """Enter an accepted ``match`` of ``kind`` in ``found``: the surest of each (type, span)."""
    if match.confidence < min_confidence:
        return
    key = (match.type, match.start, match.end)
    known = found.get(key)
    if known is None or known[1].confidence < match.confidence:
        found[key] = (kind.priority, match)


def _collect_after_context(
    kind: PiiType, text: str, lowered: str | None, min_confidence: float, found: _Found
) -> None:
    """The accepted values of a type that requires a context word, entered in ``found``: each match of
    the type's pattern that starts within ``context_window`` of the end of a context word."""
    assert kind.context is not None  # a required context is always given
    size = len(text)
    for ctx in _context_words(kind, text, lowered):
        after = ctx.end()
        stop = min(size, after + kind.context_window + _VALUE_ROOM)
        for match in kind.pattern.finditer(text, after, stop):
            if match.start(kind.group) > after + kind.context_window:
                break
            if match.end() == stop and stop < size:
                continue  # cut by the window: the real token may be longer
            accepted = _accept(kind, match, text, True)
            if accepted is not None:
                _keep(kind, accepted, min_confidence, found)
    if kind.label_after is not None:
        variant = _LOWERED_LABELS.get(id(kind.label_after))
        if variant is None or lowered is None or len(lowered) != len(text):
            for label in kind.label_after.finditer(text):
                accepted = _before_label(kind, text, label)
                if accepted is not None:
                    _keep(kind, accepted, min_confidence, found)
        else:
            compiled, boundary, weak = variant
            for word in lowered_matches(compiled, boundary, lowered):
                accepted = _value_before(kind, text, word.start(), word.end(), word.group() in weak)
                if accepted is not None:
                    _keep(kind, accepted, min_confidence, found)


def _lowered_labels(pattern: str) -> tuple[re.Pattern[str], bool, frozenset[str]] | None:
    """The case-sensitive form of a ``label_after`` pattern for lower-cased texts, whether its leading
    ``\\b`` is the caller's to check (``fastpath.lowered_matches``), and the words of its ``weak`` group;
    ``None`` unless the pattern is ``\\b(?:(?P<strong>w|...)|(?P<weak>w|...))\\b`` of lower-case words.

    The case-insensitive form with its named groups makes ``re`` try every position of the text; one
    flat alternation of the same words in the same order starts with literals, so ``re`` skips to their
    first letters (the phone label words over ``count_safety.py``'s texts: 3.4x faster; h24l).  A word's
    group is read from the word itself: the strong and the weak words are distinct.
    """
    shape = _LABEL_SHAPE.fullmatch(pattern)
    if shape is None:
        return None
    strong, weak = shape.group(1).split("|"), shape.group(2).split("|")
    if set(strong) & set(weak):
        return None
    variant = lowered_variant(r"\b(?:" + "|".join(strong + weak) + r")\b")
    if variant is None:
        return None
    return variant[0], variant[1], frozenset(weak)


_LABEL_WORDS: Final = r"([a-z]+(?:\|[a-z]+)*)"
_LABEL_SHAPE: Final = re.compile(rf"\\b\(\?:\(\?P<strong>{_LABEL_WORDS}\)\|\(\?P<weak>{_LABEL_WORDS}\)\)\\b")
# Per ``label_after`` pattern (by id, as ``_LOWERED_CONTEXT``): its ``_lowered_labels`` form.
_LOWERED_LABELS: Final[dict[int, tuple[re.Pattern[str], bool, frozenset[str]]]] = {
    id(kind.label_after): words
    for kind in PII_TYPES
    if kind.label_after is not None
    and kind.label_after.flags & re.IGNORECASE
    and (words := _lowered_labels(kind.label_after.pattern)) is not None
}


def _before_label(kind: PiiType, text: str, label: re.Match[str]) -> PiiMatch | None:
    """The value of ``kind`` that ends right before ``label`` (a match of ``kind.label_after``): see
    ``_value_before``."""
    return _value_before(kind, text, label.start(), label.end(), label.group("weak") is not None)


def _value_before(kind: PiiType, text: str, at: int, end: int, weak: bool) -> PiiMatch | None:
    """The value of ``kind`` that ends right before a label word at ``at``..``end`` (``weak``: of the
    pattern's ``weak`` group), across at most ``_LABEL_GAP`` separators, accepted as if after a context
    word: "0467029574 fax", "5835929779-Office", "555 234 5678 (mobile)" (h24f: the context was read
    only before a value).  A ``weak`` label word ("home", "office") counts only in brackets, after a
    dash or ending its line."""
    sep = at
    while sep > 0 and at - sep < _LABEL_GAP and text[sep - 1] in _LABEL_SEPARATORS:
        sep -= 1
    if sep == at or sep == 0:
        return None
    if (
        weak
        and "(" not in text[sep:at]
        and "-" not in text[sep:at]
        and "\u2013" not in text[sep:at]
        and _LINE_END.match(text, end) is None
    ):
        return None
    # The search stops at the separators, so the pattern's look-ahead reads the end of the value there
    # ("-Office" would otherwise refuse it); the look-behinds still read the text before the window.
    for match in kind.pattern.finditer(text, max(0, sep - _LABEL_REACH), sep):
        if match.end() == sep:
            return _accept(kind, match, text, True)
    return None


def _collect_from(
    kind: PiiType,
    text: str,
    first: re.Match[str],
    pattern: re.Pattern[str],
    subject: str,
    min_confidence: float,
    found: _Found,
) -> None:
    """The accepted values of a type without required context, from its ``first`` match on, entered in
    ``found``.  ``finditer`` resumes at the end of ``first``: no type's pattern matches the empty string
    (a test checks).  ``pattern`` and ``subject`` are what ``first`` came from: ``kind.lowered_form``
    over the lower-cased text gives the same spans (see ``PiiType``)."""
    accepted = _accept(kind, first, text, _context_near(kind, text, first.start()))
    if accepted is not None:
        _keep(kind, accepted, min_confidence, found)
    for match in pattern.finditer(subject, first.end()):
        accepted = _accept(kind, match, text, _context_near(kind, text, match.start()))
        if accepted is not None:
            _keep(kind, accepted, min_confidence, found)


def may_name(text: str, lowered: str, scans: int = ALL_SCANS) -> bool:
    """Whether ``pii_names.find_names`` may find anything in ``text`` (``lowered`` is its lower-cased
    form): ``pii_names.may_find``, which reads the postcode labels from the list the pass is built from
    (``scans``: the bits of ``pii_names.NAME_SCANS`` the hyperscan pass reported, see ``_name_scans``).

    >>> may_name("call me at 415-555-0132", "call me at 415-555-0132")
    False
    >>> may_name("zip: 2680-043", "zip: 2680-043")
    True
    """
    return may_find(text, lowered, scans)


def _resolve(candidates: Sequence[tuple[int, PiiMatch]]) -> list[PiiMatch]:
    """Keep non-overlapping matches, preferring priority, then confidence, then length."""
    ordered = sorted(
        candidates, key=lambda pm: (-pm[0], -pm[1].confidence, pm[1].start - pm[1].end, pm[1].start)
    )
    kept: list[PiiMatch] = []
    # Accepted spans never overlap, so sorted starts and ends stay aligned; bisect finds the neighbours.
    starts: list[int] = []
    ends: list[int] = []
    for _, match in ordered:
        i = bisect.bisect_right(starts, match.start)
        if i > 0 and ends[i - 1] > match.start:
            continue
        if i < len(starts) and starts[i] < match.end:
            continue
        starts.insert(i, match.start)
        ends.insert(i, match.end)
        kept.append(match)
    kept.sort(key=lambda m: (m.start, m.end))
    return kept


def _gate_text(lowered: str) -> str:
    """``lowered`` as the context gates must read it: ``re.IGNORECASE`` matches "ı" to "i", "ſ" to "s"
    and "İ" to "i", where ``str.lower`` keeps the first two and turns "İ" into "i" and a combining dot.
    So "bırthdate" holds the context word "birth" for the regex but not for ``in``.

    >>> _gate_text("bırth ſſn".lower())
    'birth ssn'
    """
    if lowered.isascii() or not ("ı" in lowered or "ſ" in lowered or "\u0307" in lowered):
        return lowered
    return lowered.replace("ı", "i").replace("ſ", "s").replace("\u0307", "")


def may_hold(kind: PiiType, text: str, lowered: str, digits: int) -> bool:
    """Cheap rejections before any regex runs: most texts hold few of a type's telltales.

    >>> from .pii_types import TYPES_BY_NAME
    >>> may_hold(TYPES_BY_NAME["payment_card"][0], "no card here", "no card here", 0)
    False
    """
    if kind.needs_digit and digits == 0:
        return False
    if digits < kind.min_digits:
        return False
    if kind.context_gate:
        gates = _gate_text(lowered)
        if not any(g in gates for g in kind.context_gate):
            return False
    return not kind.gate or any(g in text for g in kind.gate)


def _min_digits(kind: PiiType) -> int:
    return max(kind.min_digits, 1 if kind.needs_digit else 0)


# The pre-checks of ``may_hold`` for all types at once.  Calling ``may_hold`` 46 times per text cost
# more than the regexes on short texts; here every distinct marker and context substring is looked up
# once per text (a C-level substring search each), the hits are OR-ed into a bit set, and a type runs
# when its digit minimum is met and its markers (and context words) intersect the hits.
_MARKERS: tuple[str, ...] = tuple(sorted({g for t in PII_TYPES for g in t.gate}))
_CONTEXT_MARKERS: tuple[str, ...] = tuple(sorted({g for t in PII_TYPES for g in t.context_gate}))
_MARKER_BITS = tuple((1 << i, g) for i, g in enumerate(_MARKERS))
_CONTEXT_BITS = tuple((1 << (len(_MARKERS) + i), g) for i, g in enumerate(_CONTEXT_MARKERS))
# The longest runs of consecutive digits and of word characters every match of a type holds (read
# from its pattern, see ``prefilter.required_run``): an SSN holds "dddd", a Bitcoin address 14 word
# characters in a row.  Most lines have only short runs ("v2", "2024", "at 10:30"), and comparing the
# text's longest runs with these rejects some of the types the markers let through, exactly.
_PLAN: tuple[tuple[PiiType, int, int, int, int, int], ...] = tuple(
    (
        kind,
        _min_digits(kind),
        sum(bit for bit, g in _MARKER_BITS if g in kind.gate),
        sum(bit for bit, g in _CONTEXT_BITS if g in kind.context_gate),
        required_run(kind.pattern),
        required_run(kind.pattern, word=True),
    )
    for kind in PII_TYPES
)
_DIGIT_CHARS = "0123456789"


# Which markers (and context words) a text holds, from one regex pass each (see ``prefilter``).
# The one-character markers (".", ":", "-", "+", "@") occur in most texts: the regex pass would find
# each of their occurrences, so they are looked up with ``in`` instead and left out of it.
_MARKER_SCAN = Occurrences({g: bit for bit, g in _MARKER_BITS if len(g) > 1})
_SINGLE_MARKERS = tuple((g, bit) for bit, g in _MARKER_BITS if len(g) == 1)
_CONTEXT_SCAN = Occurrences({g: bit for bit, g in _CONTEXT_BITS})
# The distinct digit minimums: the plan depends on the digit count only through how many it reaches.
_DIGIT_STEPS = tuple(sorted({least for _, least, _, _, _, _ in _PLAN}))
# Likewise the distinct run lengths.
_DIGIT_RUN_STEPS = tuple(sorted({run for _, _, _, _, run, _ in _PLAN}))
_WORD_RUN_STEPS = tuple(sorted({run for _, _, _, _, _, run in _PLAN}))
# The shapes (see ``prefilter.shape_needles``) one of which every match of a type holds in an ASCII
# text: an IBAN holds "AA00", an SSN "000-00" or "000 00", a UK NINO "AA00" or "AA 00".  Kept for the
# types that run on most lines (those without markers or context words) and only where a shape says
# more than the digit runs.
_SHAPE_MAP = bytes(ord(shape_char(chr(i))) if i < 128 else i for i in range(256))
_SHAPE_CLAUSES: dict[int, frozenset[str]] = {
    id(kind): clause
    for kind in PII_TYPES
    if not kind.gate
    and not kind.context_gate
    and (clause := shape_needles(kind.pattern))
    and min(map(len, clause)) >= MIN_LITERAL
    and all(s.strip("0") for s in clause)
}
_SHAPE_BITS: dict[str, int] = {
    s: 1 << i for i, s in enumerate(sorted({s for c in _SHAPE_CLAUSES.values() for s in c}))
}
# A type's shape bits (0: the type has no shape clause and is never narrowed away).
_SHAPE_MASKS: dict[int, int] = {
    id(kind): sum(_SHAPE_BITS[s] for s in _SHAPE_CLAUSES.get(id(kind), ())) for kind in PII_TYPES
}


@dataclass(slots=True)
class _Plan:
    """The types that may run for one combination of markers, digit count and runs, with the shapes
    those types need (checked per text, in ``_narrowed``), the requirements of ``_REQUIREMENTS`` they
    have (checked per text, in ``_met``) and the narrowed lists found so far (by shapes: the types
    left, their requirements and the lists by requirements met)."""

    kinds: tuple[PiiType, ...]
    needles: tuple[tuple[bytes, int], ...]
    needs: int
    narrowed: dict[int, tuple[tuple[PiiType, ...], int, dict[int, tuple[PiiType, ...]]]]


def _new_plan(kinds: tuple[PiiType, ...]) -> _Plan:
    shapes = sorted({s for kind in kinds for s in _SHAPE_CLAUSES.get(id(kind), ())})
    needs = 0
    for kind in kinds:
        needs |= _REQUIREMENTS.get(id(kind), 0)
    return _Plan(kinds, tuple((s.encode("ascii"), _SHAPE_BITS[s]) for s in shapes), needs, {})


def _narrowed(plan: _Plan, shape: bytes | None, text: str) -> tuple[PiiType, ...]:
    """``plan.kinds`` less the types whose shapes the ASCII text of ``shape`` lacks (none when ``shape``
    is None), then less those with a requirement of ``_REQUIREMENTS`` that ``text`` fails (``_met``
    looks only for the requirements of the types left)."""
    hits = 0
    if shape is not None:
        for needle, bit in plan.needles:
            if needle in shape:
                hits |= bit
    else:
        hits = -1  # no shape: no type is narrowed away by its shapes
    entry = plan.narrowed.get(hits)
    if entry is None:
        kinds = tuple(k for k in plan.kinds if not (mask := _SHAPE_MASKS[id(k)]) or hits & mask)
        needs = 0
        for kind in kinds:
            needs |= _REQUIREMENTS.get(id(kind), 0)
        entry = (kinds, needs, {})
        plan.narrowed[hits] = entry  # at most one entry per subset of the plan's few shapes
    kinds, needs, by_met = entry
    if not needs:
        return kinds
    met = _met(text, shape, needs)
    narrowed = by_met.get(met)
    if narrowed is None:
        narrowed = tuple(k for k in kinds if not _REQUIREMENTS.get(id(k), 0) & ~met)
        by_met[met] = narrowed  # at most one entry per subset of the few requirements
    return narrowed


# Exact necessary conditions read from the patterns of some types that run on most lines and rarely
# match (a test checks each over corpus lines with random edits): a text failing one holds no match
# of the type.  A count of a character in a text is at least its count in any match; a text with some
# separators deleted still holds, in one piece, what is left of a match by deleting them; and a text
# mapped character by character holds the image of each of its matches.
_NEED_IPV4 = 1  # four numbers joined by 3 "."
_NEED_IPV6 = 2  # at least 2 ":"
_NEED_ASSIGN = 4  # a key word, then ":" or "="
# The others are read from an ASCII text (its shape, see ``_features``); a text without is taken to
# meet them.  ``_met`` looks for them only where a cheaper count or test allows them.
_NEED_MAC = 8  # "hh:hh:hh:hh:hh:hh", "hh-hh-hh-hh-hh-hh" or "hhhh.hhhh.hhhh" (h: a hex digit)
_NEED_SSN = 16  # "000-00-0000" or "000 00 0000" in the shape (SSN and ITIN written with separators)
_NEED_RUN9 = 32  # "000000000" in the shape (SSN, ITIN written without)
_NEED_AADHAAR = 64  # "000000000000", "0000 0000 0000" or "0000-0000-0000" in the shape
_NEED_CARD = 128  # 13 digits in a row once " " and "-" are deleted
_NEED_PHONE = 256  # "000 000 0000", "(000)000 0000" or "(000) 000 0000" once ``\s``, "." and "-" are " "
_NEED_NINO = 512  # "AA000000A" once " " and "-" are deleted
_NEED_IBAN = (
    1024  # 15 upper-case letters or digits in a row ("AA00" and 11 more) once " " and "-" are deleted
)
_NEED_BTC = 2048  # 26 Base58 characters in a row, or "bc1"
_NEED_BITS = 12
_ALL_NEEDS = (1 << _NEED_BITS) - 1
_ASCII_NEEDS = (
    _NEED_MAC
    | _NEED_SSN
    | _NEED_RUN9
    | _NEED_AADHAAR
    | _NEED_CARD
    | _NEED_PHONE
    | _NEED_NINO
    | _NEED_IBAN
    | _NEED_BTC
)
# The requirements by type name, and for the entries of a name whose required context changes them.
_NEEDS_BY_NAME: dict[tuple[str, bool], int] = {
    ("mac_address", False): _NEED_MAC,
    ("ipv4", False): _NEED_IPV4,
    ("ipv6", False): _NEED_IPV6,
    ("generic_secret", False): _NEED_ASSIGN,
    ("us_ssn", False): _NEED_SSN,
    ("us_ssn", True): _NEED_RUN9,
    ("us_itin", False): _NEED_SSN,
    ("us_itin", True): _NEED_RUN9,
    ("in_aadhaar", False): _NEED_AADHAAR,
    ("payment_card", False): _NEED_CARD,
    ("phone_nanp", False): _NEED_PHONE,
    ("uk_nino", False): _NEED_NINO,
    ("iban", False): _NEED_IBAN,
    ("btc_address", False): _NEED_BTC,
}
#: The requirements of each type (by ``id``) that has some.
_REQUIREMENTS: dict[int, int] = {
    id(kind): needs
    for kind in PII_TYPES
    if (needs := _NEEDS_BY_NAME.get((kind.name, kind.context_required), 0))
}
_PHONE_GAPS = bytes(ord(" ") if re.fullmatch(r"[\s.\-]", chr(i)) else i for i in range(256))
_HEX = bytes(ord("h") if chr(i) in "0123456789abcdefABCDEF" else i for i in range(256))
_BASE58 = bytes(
    ord("b") if chr(i) in "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz" else ord(".")
    for i in range(256)
)
# Shape bytes: upper-case letters and digits to "x" (IBAN).
_UPPER_OR_DIGIT = bytes(ord("x") if i in b"A0" else i for i in range(256))


def _met(text: str, shape: bytes | None, wanted: int = _ALL_NEEDS) -> int:
    """The requirements of ``_REQUIREMENTS`` that ``text`` (with ``shape``, see ``_features``) meets,
    among those of ``wanted`` (the others are left out: only the types a plan may run are looked at)."""
    met = 0
    colons = 0
    dots = 0
    if wanted & (_NEED_IPV6 | _NEED_ASSIGN | _NEED_MAC):
        colons = text.count(":")
        if colons >= 2:
            met = _NEED_IPV6 | _NEED_ASSIGN
        elif colons or "=" in text:
            met = _NEED_ASSIGN
    if wanted & (_NEED_IPV4 | _NEED_MAC):
        dots = text.count(".")
        if dots >= 3:
            met |= _NEED_IPV4
    if shape is None:
        return (met | _ASCII_NEEDS) & wanted
    if wanted & _NEED_MAC and (colons >= 5 or dots >= 2 or text.count("-") >= 5):
        hexes = text.encode("ascii").translate(_HEX)
        if b"hh:hh:hh:hh:hh:hh" in hexes or b"hh-hh-hh-hh-hh-hh" in hexes or b"hhhh.hhhh.hhhh" in hexes:
            met |= _NEED_MAC
    if wanted & _NEED_SSN and (b"000-00-0000" in shape or b"000 00 0000" in shape):
        met |= _NEED_SSN
    if wanted & _NEED_RUN9 and b"000000000" in shape:
        met |= _NEED_RUN9
    if wanted & _NEED_AADHAAR and (
        b"000000000000" in shape or b"0000 0000 0000" in shape or b"0000-0000-0000" in shape
    ):
        met |= _NEED_AADHAAR
    if wanted & (_NEED_CARD | _NEED_NINO | _NEED_IBAN):
        compact = shape.translate(None, b" -")
        if b"0000000000000" in compact:
            met |= _NEED_CARD
        if b"AA000000A" in compact:
            met |= _NEED_NINO
        if wanted & _NEED_IBAN and b"xxxxxxxxxxxxxxx" in compact.translate(_UPPER_OR_DIGIT):
            met |= _NEED_IBAN
    if wanted & _NEED_PHONE:
        gaps = shape.translate(_PHONE_GAPS)
        if b"000 000 0000" in gaps or b"(000)000 0000" in gaps or b"(000) 000 0000" in gaps:
            met |= _NEED_PHONE
    if wanted & _NEED_BTC and ("bc1" in text or b"b" * 26 in text.encode("ascii").translate(_BASE58)):
        met |= _NEED_BTC
    return met & wanted


# Plans by (marker bits, digit step, run steps): a few hundred combinations cover almost all texts.
_PLANS: dict[tuple[int, int, int, int], _Plan] = {}
_PLAN_CACHE_SIZE = 4_096
#: "No limit" for the run lengths of ``_runnable``: every type may run.
_ANY_RUN = 1 << 30
_DIGIT_RUN = re.compile(r"\d+")  # ``\d`` and ``\w`` as the patterns read them (Unicode)
_WORD_RUN = re.compile(r"\w+")


# Over an ASCII text the digit count, the runs and the shape come from C-level byte operations: the
# text translated to its shape (every digit becomes "0"; counted, and searched for "0" * n for each
# length of run a type needs) and translated so that every word character becomes "w" (searched for
# "w" * n): a few substring searches of a short string, where the regexes or ten ``str.count`` calls
# cost more (figures in docs/benchmarks.md, "The PII detector's machinery").
_WORD_MAP = bytes(ord("w") if re.fullmatch(r"\w", chr(i)) else ord(".") for i in range(256))
_DIGIT_NEEDLES = tuple((run, b"0" * run) for run in _DIGIT_RUN_STEPS if run > 0)
_WORD_NEEDLES = tuple((run, b"w" * run) for run in _WORD_RUN_STEPS if run > 0)


def _longest_step(needles: tuple[tuple[int, bytes], ...], haystack: bytes) -> int:
    """The largest run of ``needles`` (ascending) whose needle occurs in ``haystack``, 0 if none does.

    A binary search: a run of ``n`` characters holds every shorter one.
    """
    low, high = 0, len(needles)  # needles[:low] occur, needles[high:] do not
    while low < high:
        middle = (low + high) // 2
        if needles[middle][1] in haystack:
            low = middle + 1
        else:
            high = middle
    return needles[low - 1][0] if low else 0


def _features(text: str) -> tuple[int, int, int, bytes | None]:
    """The number of ASCII digits in ``text``, (up to the nearest step of the plan table) the longest
    runs of ``\\d`` and of ``\\w`` characters in it, and its shape if it is a short ASCII text.

    Long texts (where the runs would reject nothing: they occur anyway) get ``_ANY_RUN`` for both.
    """
    if len(text) >= _FAST_CONTEXT_MIN_CHARS:
        return sum(map(text.count, _DIGIT_CHARS)), _ANY_RUN, _ANY_RUN, None
    if not text.isascii():
        # ``\d`` and ``\w`` then also match other scripts' digits and letters: ask the regexes.
        digit_run = max(map(len, _DIGIT_RUN.findall(text)), default=0)
        word_run = max(map(len, _WORD_RUN.findall(text)), default=0)
        return sum(map(text.count, _DIGIT_CHARS)), digit_run, word_run, None
    raw = text.encode("ascii")
    shape = raw.translate(_SHAPE_MAP)
    digit_run = _longest_step(_DIGIT_NEEDLES, shape)
    word_run = _longest_step(_WORD_NEEDLES, raw.translate(_WORD_MAP))
    return shape.count(b"0"), digit_run, word_run, shape


def _plan_for(text: str, lowered: str, digits: int, digit_run: int, word_run: int) -> _Plan:
    """The plan for ``text``: see ``_runnable``."""
    hits = _MARKER_SCAN.scan(text) | _CONTEXT_SCAN.scan(_gate_text(lowered))
    for marker, bit in _SINGLE_MARKERS:
        if marker in text:
            hits |= bit
    key = (
        hits,
        bisect.bisect_right(_DIGIT_STEPS, digits),
        bisect.bisect_right(_DIGIT_RUN_STEPS, digit_run),
        bisect.bisect_right(_WORD_RUN_STEPS, word_run),
    )
    plan = _PLANS.get(key)
    if plan is None:
        plan = _new_plan(
            tuple(
                kind
                for kind, least, markers, contexts, least_digit_run, least_word_run in _PLAN
                if digits >= least
                and (not markers or hits & markers)
                and (not contexts or hits & contexts)
                and digit_run >= least_digit_run
                and word_run >= least_word_run
            )
        )
        if len(_PLANS) >= _PLAN_CACHE_SIZE:
            _PLANS.clear()  # bounded memory; it refills with the combinations that recur
        _PLANS[key] = plan
    return plan


def _runnable(
    text: str, lowered: str, digits: int, digit_run: int = _ANY_RUN, word_run: int = _ANY_RUN
) -> tuple[PiiType, ...]:
    """The types ``may_hold`` lets run on ``text``, in table order (a test checks they agree), less
    those needing a longer run of digits or word characters than ``digit_run`` and ``word_run``.

    Two regex passes find the markers the text holds (instead of one substring search per marker, 60
    calls from Python), and the list of types for that set of markers, digit count and runs is memoised.
    """
    return _plan_for(text, lowered, digits, digit_run, word_run).kinds


# Which types may hold a value, for all types in one hyperscan pass (see ``multiscan``): each type's
# pattern and, for a type that requires a context word, its context regex too; a type runs when every
# one of its patterns may match.  Once the database is ready this replaces the pre-checks above
# (``_features``, ``_plan_for``, ``_narrowed``: ten small steps that together cost more than the
# searches they save on short texts) and is stricter than they are: it reads each pattern whole, where
# they read only digit counts, markers and shapes.  Still a superset: findings are those of ``re``.
#
# The types of ``_CONTEXT_GATED`` require a context word that ordinary text seldom holds ("passport",
# "routing", "bsn", "date of birth", ...): the scan reads their context regex only, not their value
# pattern.  Dropping a pattern only widens the superset, so findings cannot change; it saves the scan a
# quarter of its work (h18d: callgrind, 28.8 -> 21.7 million instructions a pass over the generated dev
# lines), mostly the digit-run automata (``\d{9}``, ``\d{6,17}``, ...) that ran over every byte, while
# the context words let such a type run on about one line in a hundred of the generated sets that holds
# no value.  The types whose context words are common ("number", "call", "account", "card", "ssn") keep
# their value pattern in the scan: without it they would run on a third of the lines.
_CONTEXT_GATED: Final = frozenset(
    (
        "aws_secret_key",
        "aba_routing",
        "swift_bic",
        "us_itin",
        "us_ein",
        "passport",
        "ca_sin",
        "br_cpf",
        "nl_bsn",
        "medical_record",
        "drivers_license",
        "date_of_birth",
    )
)


#
# A long pattern can be reduced by hyperscan's prefilter mode to little more than its first character:
# the street-then-postcode pattern of ``postal_address`` (a capitalised word, up to five more, then a
# house number, a postcode and a town) was reported for 540 of the 600 generated dev lines and 993 of
# presidio-evaluator's 1,000, where it matches 31 and none, and ``re`` then tried it at every capital
# letter (about 6 µs a line).  Such a pattern is scanned by the part that ends it (``_scan_form``): a
# pattern that is a sequence of items matches only where each stretch of its items matches, so reading
# the last few alone stays a superset.  The parts used start as in ``_SCAN_TAIL_HEADS`` (a house number
# after a comma or blank; a comma and a town before a postcode); any other pattern, or one changed so
# that no part fits, is scanned whole.
_SCAN_TAIL_HEADS: Final = (r"(?:(?:,[ \t]*|[ \t]+)\d{1,5}", r",[ \t]*[^\W\d_][\w'\-]{0,30}")
_QUANTIFIER: Final = re.compile(r"(?:[?*+]|\{\d*(?:,\d*)?\})[?+]?")


def _top_level_splits(source: str) -> list[int]:
    r"""The positions of ``source`` right after each group at its top level (and after the group's
    quantifier), when ``source`` is a sequence (no ``|`` outside a group); otherwise none.

    >>> _top_level_splits(r"[A-Z]\w+(?:, \d{5}|;)")
    [21]
    >>> _top_level_splits(r"(a)+b(c){1,2}?d"), _top_level_splits(r"a(b)|(c)"), _top_level_splits(r"[(]x")
    ([4, 14], [], [])
    """
    splits: list[int] = []
    depth = 0
    in_class = False
    for start, end, inside in regex_pieces(source):
        char = source[start]
        if inside:
            in_class = not (char == "]" and end == start + 1)  # a class's content, or its end
            continue
        if char == "[":
            in_class = True  # a class's opening
        elif end > start + 1:
            continue  # an escape
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth < 0:
                return []
            if depth == 0:
                quantifier = _QUANTIFIER.match(source, end)
                splits.append(end if quantifier is None else quantifier.end())
        elif char == "|" and depth == 0:
            return []
    return splits if depth == 0 and not in_class else []


def _scan_form(kind: PiiType) -> re.Pattern[str]:
    """The pattern the hyperscan pass reads for ``kind``: its own, or the part that ends it from the
    first top-level split where one of ``_SCAN_TAIL_HEADS`` starts, when that part holds no
    back-reference (its groups are numbered anew)."""
    source = kind.pattern.pattern
    if kind.pattern.flags & re.VERBOSE:
        return kind.pattern  # blanks and comments would have to be read as such
    for at in _top_level_splits(source):
        tail = source[at:]
        if tail.startswith(_SCAN_TAIL_HEADS):
            if "(?P=" in tail or re.search(r"\\[1-9]", tail):
                break
            return re.compile(tail, kind.pattern.flags)
    return kind.pattern


_GROUP_NAME: Final = re.compile(r"\(\?P<\w+>")


def _prefilter_table() -> tuple[list[re.Pattern[str]], tuple[tuple[PiiType, int], ...]]:
    patterns: list[re.Pattern[str]] = []
    plan: list[tuple[PiiType, int]] = []
    for kind in PII_TYPES:
        mask = 0
        if not (kind.context_required and kind.name in _CONTEXT_GATED):
            mask = 1 << len(patterns)
            patterns.append(_scan_form(kind))
        if kind.context_required:
            assert kind.context is not None  # a required context is always given
            mask |= 1 << len(patterns)
            context = kind.context
            if kind.label_after is not None:
                # A label after the value stands for the context (``_before_label``): either may match.
                label = _GROUP_NAME.sub("(?:", kind.label_after.pattern)
                context = re.compile(f"(?:{context.pattern})|(?:{label})", context.flags)
            patterns.append(context)
        plan.append((kind, mask))
    # The names pass's scans last, in the same database (h23h): one scan serves both passes.
    patterns.extend(NAME_SCANS)
    return patterns, tuple(plan)


_PREFILTER_PATTERNS, _PREFILTER_PLAN = _prefilter_table()
_PREFILTER = PatternSet("pii", _PREFILTER_PATTERNS)
# Where the names pass's bits start in a scan's hits, and the types' bits below them.
_NAME_SCANS_SHIFT: Final = len(_PREFILTER_PATTERNS) - len(NAME_SCANS)
_TYPE_HITS: Final = (1 << _NAME_SCANS_SHIFT) - 1
# The types to run by the set of patterns reported: few distinct sets recur.
_KINDS_BY_HITS: dict[int, tuple[PiiType, ...]] = {}


def _prefiltered(text: str) -> tuple[PiiType, ...] | None:
    """The types whose patterns may all match ``text``, in table order; ``None`` while unavailable."""
    hits = _PREFILTER.may_match(text)
    return None if hits is None else _kinds_of(hits)


def _name_scans(hits: int | None) -> int:
    """The bits of ``pii_names.NAME_SCANS`` in a scan's ``hits``; every bit when there was no scan."""
    return ALL_SCANS if hits is None else hits >> _NAME_SCANS_SHIFT


def _kinds_of(hits: int) -> tuple[PiiType, ...]:
    """The types whose patterns are all among a scan's ``hits``, in table order."""
    hits &= _TYPE_HITS
    kinds = _KINDS_BY_HITS.get(hits)
    if kinds is None:
        kinds = tuple(kind for kind, mask in _PREFILTER_PLAN if hits & mask == mask)
        if len(_KINDS_BY_HITS) >= _PLAN_CACHE_SIZE:
            _KINDS_BY_HITS.clear()
        _KINDS_BY_HITS[hits] = kinds
    return kinds


def prepare_pii_prefilter(timeout: float | None = 0.0) -> bool:
    """Start loading (or building) the hyperscan prefilter of the PII types; wait up to ``timeout``
    seconds (``None``: until done) and say whether it is ready.

    Texts are scanned correctly either way; until it is ready they take the per-type pre-checks.

    >>> prepare_pii_prefilter(timeout=None)
    True
    """
    return _PREFILTER.wait(timeout)


def detect_pii(
    text: str,
    *,
    types: Iterable[str] | None = None,
    min_confidence: float = _DEFAULT_MIN_CONFIDENCE,
) -> list[PiiMatch]:
    """Return the PII found in ``text``, ordered by position (optionally only some ``types``).

    >>> [(m.type, m.check) for m in detect_pii("Card 4111 1111 1111 1111, IBAN DE89 3704 0044 0532 0130 00")]
    [('payment_card', 'luhn'), ('iban', 'iban_mod97')]
    >>> detect_pii("Card 4111 1111 1111 1112")  # fails the Luhn check
    []
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, not {type(text).__name__}")
    if not 0.0 <= min_confidence <= 1.0:
        raise ValueError(f"min_confidence must be in [0, 1], got {min_confidence!r}")
    wanted = None if types is None else set(types)
    if wanted is not None and (unknown := wanted - set(PII_TYPE_NAMES)):
        raise ValueError(f"unknown PII types: {sorted(unknown)}; known: {list(PII_TYPE_NAMES)}")
    found: dict[tuple[str, int, int], tuple[int, PiiMatch]] = {}
    lowered = lowered_text(text)
    # Where the lower-cased forms of case-insensitive types may run over ``lowered`` (see ``PiiType``).
    folds = text.isascii() or (len(lowered) == len(text) and "ſ" not in text and "ı" not in text)
    # One hyperscan pass: the types that may hold a value, and which scans of the names pass may match.
    hits = _PREFILTER.may_match(text)
    scans = _name_scans(hits)
    if hits is not None:
        kinds = _kinds_of(hits)
    else:
        digits, digit_run, word_run, shape = _features(text)
        plan = _plan_for(text, lowered, digits, digit_run, word_run)
        if not plan.needs and (shape is None or not plan.needles):
            kinds = plan.kinds
        else:
            kinds = _narrowed(plan, shape, text)
    for kind in kinds:
        if wanted is not None and kind.name not in wanted:
            continue
        if kind.context_required:
            # Context words are looked for in ``lowered`` only where that finds them all (``folds``).
            _collect_after_context(kind, text, lowered if folds else None, min_confidence, found)
        else:
            # Most types that pass the pre-checks still hold no value: one C-level search settles
            # those.  A case-insensitive type with a lower-cased form runs that form over
            # ``lowered`` where it finds the same spans (see ``PiiType``).
            if kind.lowered_form is not None and folds:
                pattern, subject = kind.lowered_form, lowered
            else:
                pattern, subject = kind.pattern, text
            first = pattern.search(subject)
            if first is not None:
                _collect_from(kind, text, first, pattern, subject, min_confidence, found)
    if (wanted is None or "person" in wanted or "location" in wanted) and may_name(text, lowered, scans):
        for name in find_names(text, scans):
            if name.confidence >= min_confidence and (wanted is None or name.type in wanted):
                address = name.evidence in ADDRESS_EVIDENCE
                if address and ("postal_address", name.start, name.end) in found:
                    continue  # the same span typed: the typed match stays
                found[(name.type, name.start, name.end)] = (
                    # An address read whole by the names pass ties with a typed postal address, so the
                    # longer one wins: a street the typed patterns found must not leave its town and
                    # postcode readable ("Mühleweg 95/83, Torgau 72331"; h18e).
                    _POSTAL_PRIORITY if address else _NAME_PRIORITY,
                    PiiMatch(
                        name.type,
                        NAME_TYPES[name.type],
                        name.start,
                        name.end,
                        name.value,
                        name.confidence,
                        name.evidence,
                        name.evidence != "first_name+surname" and name.evidence != "first_name",
                    ),
                )
    if len(found) <= 1:
        matches = [match for _, match in found.values()]  # nothing to resolve
    else:
        matches = _resolve(list(found.values()))
    return _whole_places(text, matches)


def _whole_places(text: str, matches: list[PiiMatch]) -> list[PiiMatch]:
    """``matches`` with each place and address grown to the whole of its value (``whole_place``: "do
    Sal" after a town, "boulevard" before a street), as far as the matches beside it allow (h22f)."""
    for k, match in enumerate(matches):
        if match.type != "location" and match.type != "postal_address":
            continue
        start, end = whole_place(text, match.start, match.end)
        if start == match.start and end == match.end:
            continue
        if k > 0 and matches[k - 1].end > start:
            start = match.start
        if k + 1 < len(matches) and matches[k + 1].start < end:
            end = match.end
        matches[k] = PiiMatch(
            match.type,
            match.category,
            start,
            end,
            text[start:end],
            match.confidence,
            match.check,
            match.context,
        )
    return matches


def _identity(match: PiiMatch) -> str:
    # "4111 1111 ..." and "4111-1111-..." are the same card: compare values without separators.
    return lower(_SEPARATORS.sub("", match.value))


def redact_pii(
    text: str,
    *,
    matches: Sequence[PiiMatch] | None = None,
    key: bytes | None = None,
    min_confidence: float = _DEFAULT_MIN_CONFIDENCE,
) -> Redaction:
    """Replace PII in ``text`` by placeholders; the same value always gets the same placeholder.

    Without ``key`` placeholders are numbered per type in order of first appearance; with ``key`` they
    are the first 8 hex digits of HMAC-SHA256(key, type + value), stable across texts.

    >>> redact_pii("bob@x.org wrote to amy@y.org and bob@x.org").text
    '[EMAIL_1] wrote to [EMAIL_2] and [EMAIL_1]'
    """
    if key is not None and not isinstance(key, bytes | bytearray):
        raise TypeError(f"key must be bytes, not {type(key).__name__}")
    found = (
        detect_pii(text, min_confidence=min_confidence)
        if matches is None
        else sorted(matches, key=lambda m: m.start)
    )
    placeholders: dict[tuple[str, str], str] = {}
    counters: dict[str, int] = {}
    parts: list[str] = []
    replacements: list[tuple[str, str, int, int]] = []
    cursor = 0
    for match in found:
        if match.start < cursor:
            continue  # overlapping matches supplied by the caller: keep the first
        ident = (match.type, _identity(match))
        if ident not in placeholders:
            if key is None:
                counters[match.type] = counters.get(match.type, 0) + 1
                suffix = str(counters[match.type])
            else:
                digest = hmac.new(bytes(key), f"{match.type}\x00{ident[1]}".encode(), hashlib.sha256)
                suffix = digest.hexdigest()[:8]
            placeholders[ident] = f"[{match.type.upper()}_{suffix}]"
        placeholder = placeholders[ident]
        parts.append(text[cursor : match.start])
        parts.append(placeholder)
        replacements.append((placeholder, match.type, match.start, match.end))
        cursor = match.end
    parts.append(text[cursor:])
    return Redaction("".join(parts), tuple(replacements))
