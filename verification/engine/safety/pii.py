"""PII detection and redaction over the type table of ``pii_types``.

``detect_pii`` finds candidates of every type, keeps those whose checksum or format check passes and
whose required context is present, gives each a confidence, and resolves overlaps in favour of the more
specific type.  ``redact_pii`` replaces the matches by placeholders that are stable: the same value gets
the same placeholder everywhere in a text (``[EMAIL_1]`` twice), and with a ``key`` the placeholder is
a keyed hash of the value, stable across texts (``[EMAIL_3f9a0c12]``) without revealing it.
"""

from __future__ import annotations

import bisect
import hashlib
import hmac
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import chain
from typing import Any

from .fastpath import lowered_matches, lowered_variant
from .pii_types import BLOCK_LIMIT, PII_TYPES, PiiType
from .prefilter import Occurrences

__all__ = ["PII_TYPE_NAMES", "PiiMatch", "Redaction", "detect_pii", "may_hold", "redact_pii"]

#: Every type name ``detect_pii`` can report, sorted.
PII_TYPE_NAMES: tuple[str, ...] = tuple(sorted({t.name for t in PII_TYPES}))

_DEFAULT_MIN_CONFIDENCE = 0.5
# How far past a context word an ambiguous value may start, plus room for the value itself.
_VALUE_ROOM = 256
_DIGIT = re.compile(r"\d")
_SEPARATORS = re.compile(r"[\s.\-]")


@dataclass(frozen=True, slots=True)
class PiiMatch:
    """One PII value found in a text: its type, character span, confidence and the check it passed.

    ``check`` names the checksum or format validation that passed ("luhn", "iban_mod97", ...), or is
    empty when the type has none; ``context`` tells whether a context word was found before it.
    """

    type: str
    category: str
    start: int
    end: int
    value: str
    confidence: float
    check: str = ""
    context: bool = False

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


def _accept(kind: PiiType, match: re.Match[str], text: str, has_context: bool) -> PiiMatch | None:
    start, end = match.span(kind.group)
    if start < 0:
        return None
    if kind.negative_context is not None and kind.negative_context.search(text, max(0, start - 20), start):
        return None
    if kind.block_end is not None:
        tail = kind.block_end.search(text, end, min(len(text), end + BLOCK_LIMIT))
        if tail is not None:
            end = tail.end()
    value = text[start:end]
    confidence, check = kind.confidence, ""
    if kind.validator is not None:
        verdict = kind.validator(value)
        while verdict is None and kind.shrink and " " in value:
            value = value[: value.rindex(" ")]
            verdict = kind.validator(value)
        if verdict is None:
            return None
        end = start + len(value)
        confidence, check = verdict
    if has_context:
        confidence = min(0.99, confidence + kind.context_boost)
    return PiiMatch(kind.name, kind.category, start, end, value, confidence, check, has_context)


# Case-sensitive forms of the context regexes for lower-cased long texts (see ``fastpath``).
_LOWERED_CONTEXT: dict[int, tuple[re.Pattern[str], bool]] = {
    id(kind): variant
    for kind in PII_TYPES
    if kind.context is not None
    and kind.context.flags & re.IGNORECASE
    and (variant := lowered_variant(kind.context.pattern)) is not None
}
#: Texts at least this long look for context words in the lower-cased text (same as the injection rules).
_FAST_CONTEXT_MIN_CHARS = 2_048


def _context_words(kind: PiiType, text: str, lowered: str | None) -> Iterable[re.Match[str]]:
    """Matches of ``kind.context`` in ``text``: over a long text, of its lowered form (same offsets)."""
    assert kind.context is not None
    variant = _LOWERED_CONTEXT.get(id(kind))
    if variant is None or lowered is None or len(text) < _FAST_CONTEXT_MIN_CHARS or len(lowered) != len(text):
        return kind.context.finditer(text)
    return lowered_matches(*variant, lowered)


def _candidates(kind: PiiType, text: str, lowered: str | None = None, start: int = 0) -> Iterable[PiiMatch]:
    if kind.context_required:
        assert kind.context is not None  # a required context is always given
        # Search for the value only just after each context word: fast, and it is the meaning anyway.
        for ctx in _context_words(kind, text, lowered):
            stop = min(len(text), ctx.end() + kind.context_window + _VALUE_ROOM)
            for match in kind.pattern.finditer(text, ctx.end(), stop):
                if match.start(kind.group) > ctx.end() + kind.context_window:
                    break
                if match.end() == stop and stop < len(text):
                    continue  # cut by the window: the real token may be longer
                found = _accept(kind, match, text, True)
                if found is not None:
                    yield found
        return
    # ``start`` is where the caller's first search found a match; look-behinds still see before it.
    for match in kind.pattern.finditer(text, start):
        found = _accept(kind, match, text, _context_near(kind, text, match.start()))
        if found is not None:
            yield found


def _accepted(
    kind: PiiType,
    text: str,
    first: re.Match[str],
    pattern: re.Pattern[str] | None = None,
    subject: str | None = None,
) -> Iterator[PiiMatch]:
    """The accepted values of a type without required context, from its ``first`` match on.

    Equivalent to ``_candidates(kind, text, start=first.start())`` without matching ``first`` again:
    no type's pattern matches the empty string (a test checks), so ``finditer`` would resume at its end.
    ``pattern`` and ``subject`` (default: the type's pattern and ``text``) are what ``first`` came from:
    ``kind.lowered_form`` over the lower-cased text gives the same spans (see ``PiiType``).
    """
    pattern = kind.pattern if pattern is None else pattern
    subject = text if subject is None else subject
    for match in chain((first,), pattern.finditer(subject, first.end())):
        found = _accept(kind, match, text, _context_near(kind, text, match.start()))
        if found is not None:
            yield found


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
    if kind.context_gate and not any(g in lowered for g in kind.context_gate):
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
_PLAN: tuple[tuple[PiiType, int, int, int], ...] = tuple(
    (
        kind,
        _min_digits(kind),
        sum(bit for bit, g in _MARKER_BITS if g in kind.gate),
        sum(bit for bit, g in _CONTEXT_BITS if g in kind.context_gate),
    )
    for kind in PII_TYPES
)
_DIGIT_CHARS = "0123456789"


# Which markers (and context words) a text holds, from one regex pass each (see ``prefilter``).
_MARKER_SCAN = Occurrences({g: bit for bit, g in _MARKER_BITS})
_CONTEXT_SCAN = Occurrences({g: bit for bit, g in _CONTEXT_BITS})
# The distinct digit minimums: the plan depends on the digit count only through how many it reaches.
_DIGIT_STEPS = tuple(sorted({least for _, least, _, _ in _PLAN}))
# Plans by (marker bits, digit step): a few hundred combinations cover almost all texts.
_PLANS: dict[tuple[int, int], tuple[PiiType, ...]] = {}
_PLAN_CACHE_SIZE = 4_096


def _runnable(text: str, lowered: str, digits: int) -> tuple[PiiType, ...]:
    """The types ``may_hold`` lets run on ``text``, in table order (a test checks they agree).

    Two regex passes find the markers the text holds (instead of one substring search per marker, 60
    calls from Python), and the list of types for that set of markers and digit count is memoised.
    """
    hits = _MARKER_SCAN.scan(text) | _CONTEXT_SCAN.scan(lowered)
    key = (hits, bisect.bisect_right(_DIGIT_STEPS, digits))
    plan = _PLANS.get(key)
    if plan is None:
        plan = tuple(
            kind
            for kind, least, markers, contexts in _PLAN
            if digits >= least and (not markers or hits & markers) and (not contexts or hits & contexts)
        )
        if len(_PLANS) >= _PLAN_CACHE_SIZE:
            _PLANS.clear()  # bounded memory; it refills with the combinations that recur
        _PLANS[key] = plan
    return plan


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
    digits = sum(map(text.count, _DIGIT_CHARS))  # ten C-level counts: cheaper than a regex findall
    lowered = text.lower()
    # Where the lower-cased forms of case-insensitive types may run over ``lowered`` (see ``PiiType``).
    folds = text.isascii() or (len(lowered) == len(text) and "ſ" not in text and "ı" not in text)
    for kind in _runnable(text, lowered, digits):
        if wanted is not None and kind.name not in wanted:
            continue
        if kind.context_required:
            candidates = _candidates(kind, text, lowered)
        else:
            # Most types that pass the pre-checks still hold no value: one C-level search settles
            # those before a Python generator is built.  A case-insensitive type with a lower-cased
            # form runs that form over ``lowered`` where it finds the same spans (see ``PiiType``).
            if kind.lowered_form is not None and folds:
                pattern, subject = kind.lowered_form, lowered
            else:
                pattern, subject = kind.pattern, text
            first = pattern.search(subject)
            if first is None:
                continue
            candidates = _accepted(kind, text, first, pattern, subject)
        for match in candidates:
            if match.confidence < min_confidence:
                continue
            key = (match.type, match.start, match.end)
            if key not in found or found[key][1].confidence < match.confidence:
                found[key] = (kind.priority, match)
    if len(found) <= 1:
        return [match for _, match in found.values()]  # nothing to resolve
    return _resolve(list(found.values()))


def _identity(match: PiiMatch) -> str:
    # "4111 1111 ..." and "4111-1111-..." are the same card: compare values without separators.
    return _SEPARATORS.sub("", match.value).lower()


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
