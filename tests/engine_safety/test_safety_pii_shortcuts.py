"""The exact shortcuts of ``detect_pii`` on short texts give exactly what running every type would.

The PII engine skips a type on a text when the text's longest run of digits or of word characters is
shorter than every match of the type holds (``prefilter.required_run``), or when an ASCII text's shape
lacks every shape string the type's matches hold (``prefilter.shape_needles``), and it memoises
validator verdicts (and ``_dob`` skips the formats whose separator a value lacks).  Each shortcut is
checked against the slow truth: on every corpus line and on corpus lines with random edits (digits,
separators, case changes, non-ASCII digits and letters).
"""

from __future__ import annotations

import datetime as dt
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.engine_safety.safety_support import corpus_texts, mutated_lines
from verification.engine.safety import detect_pii, pii
from verification.engine.safety.pii import (
    _REQUIREMENTS,
    _features,
    _met,
    _narrowed,
    _plan_for,
    _validate,
    may_hold,
)
from verification.engine.safety.pii_types import PII_TYPES, _dob
from verification.engine.safety.prefilter import required_run, shape_char, shape_needles

TEXTS = corpus_texts()
_DIGIT_RUN = re.compile(r"\d+")
_WORD_RUN = re.compile(r"\w+")
# Digits, separators and letters the digit-based types are made of, and their look-alikes in other
# scripts (Arabic-Indic and full-width digits, which ``\d`` matches; the Kelvin sign and the long s,
# which case-insensitive patterns match as "k" and "s").
_PIECES = [
    "1234", "4111 1111 1111 1111", "123-45-6789", "987 65 4321", "DE89 3704 0044 0532 0130 00", "AB123456C",
    "12345678Z", "111.444.777-35", "192.168.0.1", "00:1a:2b:3c:4d:5e", "+44 20 7946 0958", "(415) 555-0132",
    "٣٤٥", "１２３", "\u212a", "ſ", "é", "-", ".", " ", "/", ":", "A", "z", "_", "0x", "bc1q", "1BoatSLRHt",
    "00-1A-2B-3C-4D-5E", "0a1b.2c3d.4e5f", "2001:db8::1", "::1", "fe80::", "10.0.0.1", "api_key=", "token: ",
    "1 (415) 555-0132", "415.555.0132", "\t", "\x1c", "2345 6789 0123", "AB 12 34 56 C",
    "GB82WEST12345698765432", "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq", "=", "(", ")",
    "1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2",
]  # fmt: skip


def _longest(pattern: re.Pattern[str], text: str) -> int:
    return max(map(len, pattern.findall(text)), default=0)


def _check_matches_hold_their_runs_and_shapes(text: str) -> None:
    for kind in PII_TYPES:
        digit_run, word_run = required_run(kind.pattern), required_run(kind.pattern, word=True)
        needles = shape_needles(kind.pattern)
        for match in kind.pattern.finditer(text):
            value = match.group(0)
            assert _longest(_DIGIT_RUN, value) >= digit_run, (kind.name, value)
            assert _longest(_WORD_RUN, value) >= word_run, (kind.name, value)
            if needles and value.isascii():
                shape = "".join(map(shape_char, value))
                assert any(n in shape for n in needles), (kind.name, value, sorted(needles))


def _check_skipped_types_cannot_match(text: str) -> None:
    lowered = text.lower()
    digits, digit_run, word_run, shape = _features(text)
    assert digits == len(re.findall(r"[0-9]", text))
    plan = _plan_for(text, lowered, digits, digit_run, word_run)
    met = _met(text, shape)
    kinds = _narrowed(plan, shape, text)
    for kind in PII_TYPES:
        # Each requirement the text fails rules out every match of the type, whether or not it runs.
        if _REQUIREMENTS.get(id(kind), 0) & ~met:
            assert kind.pattern.search(text) is None, (kind.name, text)
    allowed = [k for k in PII_TYPES if may_hold(k, text, lowered, digits)]
    assert [k for k in allowed if k in kinds] == list(kinds)  # a subset, in table order
    for kind in allowed:
        if kind not in kinds:
            assert kind.pattern.search(text) is None, (kind.name, text)


def test_it_finds_every_pii_match_of_a_corpus_line_holding_its_runs_and_shapes() -> None:
    for text in TEXTS:
        _check_matches_hold_their_runs_and_shapes(text)


def test_it_skips_only_pii_types_that_cannot_match_a_corpus_line() -> None:
    for text in TEXTS:
        _check_skipped_types_cannot_match(text)


@settings(max_examples=500, deadline=None)
@given(mutated_lines(_PIECES, max_edits=5))
def test_it_skips_only_pii_types_that_cannot_match_mutated_lines(text: str) -> None:
    _check_matches_hold_their_runs_and_shapes(text)
    _check_skipped_types_cannot_match(text)


def _check_requirements(text: str) -> None:
    """Every match of a type meets the type's requirements, and a text failing one holds no match."""
    met = _met(text, _features(text)[3])
    for kind in PII_TYPES:
        needs = _REQUIREMENTS.get(id(kind), 0)
        if not needs:
            continue
        for match in kind.pattern.finditer(text):
            value = match.group(0)
            assert not needs & ~_met(value, _features(value)[3]), (kind.name, value)
            assert not needs & ~met, (kind.name, text)


def test_it_meets_the_requirements_of_every_pii_match_of_a_corpus_line() -> None:
    for text in TEXTS:
        _check_requirements(text)
    # Each requirement holds on a value of its type and fails without it.
    for value in ["00:1a:2b:3c:4d:5e", "0a1b.2c3d.4e5f", "10.0.0.1", "2001:db8::1", "api_key=", "123-45-6789",
                  "2345 6789 0123", "4111 1111 1111 1111", "(415) 555-0132", "AB 12 34 56 C",
                  "GB82 WEST 1234 5698 7654 32", "bc1q", "1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2"]:  # fmt: skip
        assert _met(value, _features(value)[3]) != _met("x", _features("x")[3]), value


@settings(max_examples=1_500, deadline=None)
@given(mutated_lines(_PIECES, max_edits=8))
def test_it_meets_the_requirements_of_every_pii_match_of_mutated_lines(text: str) -> None:
    _check_requirements(text)


@settings(max_examples=300, deadline=None)
@given(mutated_lines(_PIECES, max_edits=5))
def test_it_gives_memoised_validator_verdicts_equal_to_fresh_ones(text: str) -> None:
    for kind in PII_TYPES:
        if kind.validator is None:
            continue
        for match in kind.pattern.finditer(text):
            value = match.group(0)
            fresh = kind.validator(value)
            assert _validate(kind, value) == fresh  # filled or found
            assert _validate(kind, value) == fresh  # found
    pii._VERDICTS.clear()


def test_it_finds_the_same_pii_with_cold_and_warm_memos() -> None:
    warm = [detect_pii(t) for t in TEXTS]
    pii._VERDICTS.clear()
    pii._PLANS.clear()
    assert [detect_pii(t) for t in TEXTS] == warm


def test_it_reads_shapes_and_runs_from_patterns() -> None:
    assert required_run(re.compile(r"\d{3}-\d{2}-\d{4}")) == 4
    assert required_run(re.compile(r"[13][a-z0-9]{25}"), word=True) == 26
    assert shape_needles(re.compile(r"[A-Z]{2}\d{2}")) == {"AA00"}
    assert shape_needles(re.compile(r"(?i:ab)\d")) == {"aa0", "aA0", "Aa0", "AA0"}
    # A case-insensitive class with "ſ" may match "s" or "S": no shape is claimed for it.
    assert shape_needles(re.compile(r"[ſx]\d\d", re.IGNORECASE)) == {"00"}


def _dob_reference(value: str) -> tuple[float, str] | None:
    """``pii_types._dob`` before it skipped formats: every format tried in order."""
    today = dt.date.today()
    text = value.replace(",", " ")
    formats = ["%Y-%m-%d", "%m/%d/%Y", "%d/%m/%Y", "%d.%m.%Y", "%m-%d-%Y", "%d-%m-%Y"]
    for fmt in [*formats, "%B %d %Y", "%b %d %Y", "%d %B %Y", "%d %b %Y"]:
        try:
            date = dt.datetime.strptime(" ".join(text.split()), fmt).date()
        except ValueError:
            continue
        if date.year >= 1900 and date <= today:
            return 0.9, "date_parse"
    return None


_DATE_PIECES = st.sampled_from(
    ["1990", "2024", "2999", "1899", "03", "3", "12", "13", "31", "0", "-", "/", ".", " ", ",", "March",
     "mar", "Sept", "sep.", "May", "x", "\t"]
)  # fmt: skip


@settings(max_examples=500, deadline=None)
@given(st.lists(_DATE_PIECES, min_size=1, max_size=7).map("".join))
def test_it_parses_dates_of_birth_as_trying_every_format_does(value: str) -> None:
    assert _dob(value) == _dob_reference(value)
    assert _dob(value) == _dob_reference(value)  # and from the memo
