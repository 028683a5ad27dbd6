"""What the PII types' hyperscan pass reads (h18d, docs/safety.md "PII speed, third pass (h18d)").

Two shortcuts make the pass cheaper, both by reading less than a type's whole pattern, so both only
widen the superset the pass reports:

- the types of ``pii._CONTEXT_GATED`` are gated by their context word alone;
- a long pattern hyperscan's prefilter mode would reduce to its first character is read by the part
  that ends it (``pii._scan_form``).

Checked here: the scan form matches wherever the whole pattern does (corpus lines, cuts of them and
generated address-like lines), the splitting reads only sequences, and the pass no longer lets the
street-then-postcode pattern run on every capitalised line.  ``test_safety_pii_prefilter.py`` checks that
every type that finds a value runs, and equal findings with and without the pass; ``bench/pii_dump.py
--check`` was identical on all texts before and after.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.engine_safety.safety_support import corpus_texts_cached
from verification.engine.safety import detect_pii, prepare_pii_prefilter
from verification.engine.safety.pii import (
    _CONTEXT_GATED,
    _PREFILTER,
    _PREFILTER_PATTERNS,
    _prefiltered,
    _scan_form,
    _top_level_splits,
)
from verification.engine.safety.pii_types import PII_TYPES, PiiType

_SCANNED_BY_PART = [kind for kind in PII_TYPES if _scan_form(kind) is not kind.pattern]


@pytest.fixture(scope="module")
def _prefilter_ready() -> None:
    assert prepare_pii_prefilter(timeout=600), _PREFILTER.error


def _assert_part_matches_where_the_pattern_does(text: str) -> None:
    for kind in _SCANNED_BY_PART:
        if kind.pattern.search(text) is not None:
            assert _scan_form(kind).search(text) is not None, (kind.pattern.pattern[:60], text[:300])


def test_it_reads_the_street_then_postcode_pattern_by_its_end() -> None:
    # A later change to the patterns that makes no part fit leaves them scanned whole: exact, but the
    # saving is gone, and this says so.
    assert any(kind.name == "postal_address" for kind in _SCANNED_BY_PART)
    for kind in _SCANNED_BY_PART:
        tail = _scan_form(kind).pattern
        assert kind.pattern.pattern.endswith(tail) and len(tail) < len(kind.pattern.pattern)


def test_it_matches_the_part_wherever_the_pattern_matches_in_a_corpus_text() -> None:
    texts = corpus_texts_cached()
    for text in texts:
        _assert_part_matches_where_the_pattern_does(text)
    joined = "\n".join(texts)
    for start in range(0, len(joined), 3_000):
        _assert_part_matches_where_the_pattern_does(joined[start : start + 3_000])


_WORDS = st.sampled_from(
    [
        "Calle", "Mayor", "Viale", "Almagià", "Camino", "Adora", "Parra", "ul.", "Cicha", "de", "la",
        "Piso", "Apt", "Flat", "8", "5", "58", "798", "12b", "1/56", "28013", "46-760", "6165 DZ",
        "1012AB", "M5J 2R8", "BN3 2AB", "Madrid", "Lugo", "Skawina", "Elkenrade", "(VA)", "Kędzierzyn-Koźle",
        "Toronto", "rue", "Hamon", "Tom", "Red", "Car",
    ]
)  # fmt: skip
_GLUE = st.sampled_from([" ", ", ", ",", " , ", "\t", "\n", "  ", "-"])


@st.composite
def _address_like(draw: st.DrawFn) -> str:
    words = draw(st.lists(st.tuples(_WORDS, _GLUE), min_size=1, max_size=14))
    return "".join(word + glue for word, glue in words)


@settings(max_examples=600, deadline=None)
@given(_address_like())
def test_it_matches_the_part_wherever_the_pattern_matches_in_an_address_like_line(text: str) -> None:
    _assert_part_matches_where_the_pattern_does(text)


@pytest.mark.parametrize(
    ("source", "splits"),
    [
        (r"[A-Z]\w+(?:, \d{5}|;)", [21]),
        (r"(a)+b(c){1,2}?d(?:e)*+", [4, 14, 22]),
        (r"a(b)|(c)", []),  # an alternation at the top: no part is needed by every match
        (r"(a|b)|c", []),
        (r"[(]x(y)", [7]),  # a parenthesis in a class opens nothing
        (r"[]()]x", []),  # nor one after a leading "]"
        (r"\(x(y)", [6]),  # nor an escaped one
        (r"(a))", []),  # unbalanced
    ],
)
def test_it_splits_only_a_sequence_after_its_top_level_groups(source: str, splits: list[int]) -> None:
    assert _top_level_splits(source) == splits


def test_it_keeps_a_part_with_a_back_reference_whole() -> None:
    kind = PiiType("postal_address", "location", re.compile(r"(\d)(?:(?:,[ \t]*|[ \t]+)\d{1,5}\1)"), 0.75)
    assert _scan_form(kind) is kind.pattern
    plain = PiiType("postal_address", "location", re.compile(r"(\d)(?:(?:,[ \t]*|[ \t]+)\d{1,5}x)"), 0.75)
    assert _scan_form(plain).pattern == r"(?:(?:,[ \t]*|[ \t]+)\d{1,5}x)"


@pytest.mark.usefixtures("_prefilter_ready")
def test_it_does_not_run_the_street_then_postcode_pattern_on_a_capitalised_line() -> None:
    # Before: hyperscan's prefilter reduced the whole pattern to little more than its first capital
    # letter, and every capitalised line ran it.
    text = "Please Ask Tom About The Red Car Today, Thanks"
    kinds = _prefiltered(text)
    assert kinds is not None
    assert not [kind for kind in kinds if kind.name == "postal_address"]
    assert detect_pii("Calle Mayor 5, 28013 Madrid")[0].type == "postal_address"


@pytest.mark.usefixtures("_prefilter_ready")
def test_it_gates_the_rare_context_types_by_their_context_word_alone() -> None:
    gated = [kind for kind in PII_TYPES if kind.context_required and kind.name in _CONTEXT_GATED]
    assert {kind.name for kind in gated} == set(_CONTEXT_GATED)  # every name is a type that needs context
    scanned = {(p.pattern, p.flags) for p in _PREFILTER_PATTERNS}
    for kind in gated:
        assert (kind.pattern.pattern, kind.pattern.flags) not in scanned or any(
            other.pattern is kind.pattern and not (other.context_required and other.name in _CONTEXT_GATED)
            for other in PII_TYPES
        )
    kinds = _prefiltered("My passport number is not ready yet.")
    assert kinds is not None and "passport" in {kind.name for kind in kinds}
    assert [m.type for m in detect_pii("Passport: X1234567")] == ["passport"]


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.characters(max_codepoint=127), max_size=120), st.booleans())
@pytest.mark.usefixtures("_prefilter_ready")
def test_it_projects_an_ascii_text_by_one_table_as_the_projection_does(text: str, widened: bool) -> None:
    # ``PatternSet.may_match`` reads an ASCII text through ``_ascii_table`` (the projection's ``fix``,
    # then the set's ``translate``); the bytes must be those of ``project`` then ``translate``, with
    # the four separators only Python calls ``\s`` (``_PCRE_DIFFERS``) or without them.
    text += "".join(ch for ch in "\x1c\x1d\x1e\x1f" if widened and ch not in text)
    pattern_set = _PREFILTER
    projection = pattern_set._projection
    assert projection is not None
    expected = projection.project(text)
    if pattern_set.translate is not None:
        expected = expected.translate(pattern_set.translate)
    assert text.encode("ascii").translate(pattern_set._ascii_table) == expected


def test_it_composes_the_ascii_table_with_a_set_translation() -> None:
    from verification.engine.safety.multiscan import PatternSet

    swap = bytes.maketrans(b"ab", b"ba")
    pattern_set = PatternSet("h18d-test", [re.compile(r"b\s+c")], translate=swap)
    if not pattern_set.wait(timeout=600):
        pytest.skip("hyperscan unavailable")
    projection = pattern_set._projection
    assert projection is not None
    for text in ("a\x1cc", "b c", "ab\x1f\x1ecd", ""):
        assert text.encode("ascii").translate(pattern_set._ascii_table) == projection.project(text).translate(
            swap
        )
    assert pattern_set.may_match("a\x1cc") == 1  # "a" reads "b", "\x1c" a separator hyperscan takes as \s
    assert pattern_set.may_match("b c") == 0
