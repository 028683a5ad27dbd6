"""The lower-case names' shortcuts (h20e, docs/safety.md "PII and injection speed, fourth pass (h20e)").

``pii_names._lower_names`` runs ``_LOWER_NAME`` only on texts that hold a cue or a verb as a whole word
after a non-word character, or that start with a cue (``_LOWER_NAME_GATE``), and the surnames of
``_LOWER_NAME`` are atomic groups.  Both must leave every match as it was: checked here against the
pattern as it was before (plain groups, no gate) on the corpus lines and on generated texts built from
cues, verbs, listed names and the characters the look-arounds read.  ``bench/pii_dump.py --check`` was
identical on all texts before and after.
"""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.engine_safety.safety_support import corpus_texts_cached
from verification.engine.safety.pii_names import (
    _LOWER,
    _LOWER_CUE,
    _LOWER_CUE_WORDS,
    _LOWER_NAME,
    _LOWER_NAME_GATE,
    _LOWER_VERB,
    _LOWER_VERB_WORDS,
    _lower_names,
    find_names,
    may_find,
)

# ``_LOWER_NAME`` as h19d wrote it: surnames as plain groups, tried on every text.
_PLAIN_SURNAME = rf"[{_LOWER}]+(?:['’\-][{_LOWER}]+)?"
_PLAIN_LOWER_NAME = re.compile(
    rf"(?<![\w@./\-'’])(?:{_LOWER_CUE}[ \t]+({_PLAIN_SURNAME})[ \t]+({_PLAIN_SURNAME})(?![\w@./\-'’])"
    rf"|({_PLAIN_SURNAME})[ \t]+({_PLAIN_SURNAME})(?=[ \t]+{_LOWER_VERB}\b))"
)

_FRAGMENTS = [
    *_LOWER_CUE_WORDS,
    *_LOWER_VERB_WORDS,
    "leslie", "carroll", "mary", "smith", "o'sullivan", "smith-jones", "björn", "heather", "grant",
    "access", "will", "power", "david", "jones", "the", "code", "x", "Anna",
    " ", " ", " ", "  ", "\t", "\n", ",", ".", "@", "/", "-", "'", "’", "(", ":", "3",
]  # fmt: skip


def _matches(pattern: re.Pattern[str], text: str) -> list[tuple[tuple[int, int], ...]]:
    return [tuple(m.span(g) for g in range(5)) for m in pattern.finditer(text)]


def _gate_passes(text: str) -> bool:
    return _LOWER_NAME_GATE.search(text) is not None or text.startswith(_LOWER_CUE_WORDS)


def test_it_reads_the_gate_words_from_the_cue_and_verb_patterns() -> None:
    assert "(?:" + "|".join(_LOWER_CUE_WORDS) + ")" == _LOWER_CUE
    assert "(?:" + "|".join(_LOWER_VERB_WORDS) + ")" == _LOWER_VERB
    assert all(word[-1].isalpha() for word in _LOWER_CUE_WORDS + _LOWER_VERB_WORDS)  # "\\b" after each


def test_it_matches_as_the_plain_pattern_on_corpus_lines() -> None:
    for text in corpus_texts_cached():
        expected = _matches(_PLAIN_LOWER_NAME, text)
        assert _matches(_LOWER_NAME, text) == expected, text
        if expected:
            assert _gate_passes(text), text


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from(_FRAGMENTS), max_size=24))
def test_it_matches_as_the_plain_pattern_on_generated_texts(parts: list[str]) -> None:
    text = "".join(parts)
    expected = _matches(_PLAIN_LOWER_NAME, text)
    assert _matches(_LOWER_NAME, text) == expected
    if expected:
        assert _gate_passes(text)


def test_it_finds_lower_case_names_after_a_cue_or_before_a_verb() -> None:
    for text, value in [
        ("i talked to leslie carroll yesterday", "leslie carroll"),
        ("talked to leslie carroll", "leslie carroll"),  # the cue at the start of the text
        ("(asked mary smith)", "mary smith"),  # the cue after punctuation
        ("ok so leslie carroll said no", "leslie carroll"),  # before a verb
        ("leslie carroll\twas late", "leslie carroll"),  # a tab before the verb
    ]:
        assert [m.value for m in find_names(text)] == [value], text
        assert may_find(text, text)


def test_it_leaves_texts_without_a_cue_or_verb_unflagged() -> None:
    # Two listed names in a row but no cue and no verb: the gate skips the pattern, nothing is found.
    for text in ["leslie carroll", "notes: leslie carroll, mary smith", "grant access to the will power"]:
        assert not _gate_passes(text) or not _lower_names(text, [])
        assert _lower_names(text, []) == []
    assert not _gate_passes("leslie carroll")
    # A verb glued to a path or a name after "@" is no whole word after a blank: still nothing.
    assert _lower_names("see /leslie carroll/is", []) == []
    assert _lower_names("mail @leslie carroll is", []) == []
