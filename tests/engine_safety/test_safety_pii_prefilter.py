"""The hyperscan prefilter of the PII types never skips a type that finds a value, and changes no result.

The projection itself (every one-character test of the PII patterns means the same to both engines on
ASCII; every code point projects to a stand-in that passes its tests) is checked for all pattern sets in
test_safety_multiscan.py.  Here: on corpus lines, cuts of the joined corpora and random mutations, every
type whose regexes find a value is among the types the prefilter lets run, and ``detect_pii`` gives the
same matches with and without it.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.engine_safety.pii_reference import candidates
from tests.engine_safety.safety_support import corpus_texts_cached
from tests.engine_safety.test_safety_multiscan import _mutated_documents
from verification.engine.safety import detect_pii, prepare_pii_prefilter
from verification.engine.safety.pii import _PREFILTER, PiiMatch, _prefiltered
from verification.engine.safety.pii_types import PII_TYPES


@pytest.fixture(scope="module", autouse=True)
def _prefilter_ready() -> None:
    assert prepare_pii_prefilter(timeout=600), _PREFILTER.error


def _assert_runs_every_type_that_finds_a_value(text: str) -> None:
    kinds = _prefiltered(text)
    assert kinds is not None
    allowed = {id(kind) for kind in kinds}
    missed = [
        kind.name
        for kind in PII_TYPES
        if id(kind) not in allowed and any(True for _ in candidates(kind, text))
    ]
    assert not missed, (missed, text[:300])


def _without_prefilter(text: str) -> list[PiiMatch]:
    try:
        _PREFILTER.enabled = False
        assert _prefiltered(text) is None
        return list(detect_pii(text))
    finally:
        _PREFILTER.enabled = True


def test_it_runs_every_type_that_finds_a_value_in_a_corpus_text() -> None:
    texts = corpus_texts_cached()
    for text in texts:
        _assert_runs_every_type_that_finds_a_value(text)
    joined = "\n".join(texts)
    for size in (300, 3_000):
        for start in range(0, len(joined), size):
            _assert_runs_every_type_that_finds_a_value(joined[start : start + size])


@settings(max_examples=400, deadline=None)
@given(_mutated_documents())
def test_it_runs_every_type_that_finds_a_value_in_a_mutated_text(text: str) -> None:
    _assert_runs_every_type_that_finds_a_value(text)


@settings(max_examples=300, deadline=None)
@given(_mutated_documents(), st.booleans())
def test_it_finds_the_same_pii_with_and_without_the_prefilter(text: str, long: bool) -> None:
    if long:
        text = text * (1 + 2_100 // max(1, len(text)))  # past the long-text thresholds of the old path
    assert list(detect_pii(text)) == _without_prefilter(text)


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("bırthdate 7.6.1992", "date_of_birth"),  # dotless i
        ("bİrthdate 7.6.1992", "date_of_birth"),  # dotted capital I: "i" and a combining dot once lowered
        ("ſſn 219099998", "us_ssn"),  # long s
        ("Paſſport: X1234567", "passport"),
        ("cLIENT_sECRET=q8Zr2LmX9vKp4TnW7yHs", "generic_secret"),  # any mix of cases
        ("pAsSwOrD: Tr0ub4dor&3", "password"),
    ],
)
def test_it_reads_key_words_as_the_case_insensitive_regex_does(text: str, kind: str) -> None:
    # The context regexes are case-insensitive, and for ``re`` "ı" and "İ" are an "i", "ſ" an "s"; the
    # pre-checks of the path without the prefilter once looked for the words in ``str.lower()`` and
    # skipped these, and the key words of secrets and passwords only in three spellings ("key", "KEY",
    # "Key").  Found by comparing the two paths on mutated lines.
    for page in (text, "Filler line without values.\n" * 80 + text):
        for found in (list(detect_pii(page)), _without_prefilter(page)):
            assert [m.type for m in found] == [kind], (page[-40:], found)
