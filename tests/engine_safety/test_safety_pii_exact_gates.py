"""Exact gates in the names pass (issue 16, h22e; docs/safety.md "Thirteenth round").

Each gate is a cheap test that a pattern cannot match, asked before the pattern: the last character of a
line before ``_COUNTRY_LINE`` (``_address_lines``), two colons before ``_SPEAKER`` (``_line_people``),
a first digit before ``_HOUSE_NUMBER`` (``_emit_person``), the first letter before ``str.startswith``
with the thirty cues (``_lower_names``), and a slice instead of ``match.group()`` in ``_tokens``.
Every gate must let through wherever the pattern matches: checked on the corpus lines and on generated
lines; a counting test says each pattern is skipped where it cannot match.  ``bench/pii_dump.py --check``
was identical on all texts before and after.

Every example below is invented for these tests.
"""

from __future__ import annotations

import re
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.engine_safety.safety_support import corpus_texts_cached
from verification.engine.safety import pii_names
from verification.engine.safety.pii_names import (
    _COUNTRY_LINE,
    _HOUSE_NUMBER,
    _LOWER_CUE_FIRST,
    _LOWER_CUE_WORDS,
    _may_end_country_line,
    _tokens,
)

_LINE_PIECES = [
    "Finland", "United Kingdom", "Czech Republic", "Hungary", "Mühle", "Ελλάδα", " ", "  ", "\t", "-", "'",
    "91900", "294 31", "BN7 4QG", "K1A 0B1", "V6M 7E3", "12", "٣٤٥", "१२३", "x", "ß", "Z", "z", ".", ",",
    "\u00a0", "\r", ">", "?", "A", "7",
]  # fmt: skip
_TEXT_PIECES = [*_LINE_PIECES, "\n", "\n", "Wainui 5375", "Hope, NT R3N 6M9", "Lake Orrimouth", "2680-043"]


class _Counting:
    """A pattern whose calls are counted."""

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern = pattern
        self.calls = 0

    def __getattr__(self, name: str) -> Any:
        method = getattr(self.pattern, name)

        def counted(*args: Any, **kwargs: Any) -> Any:
            self.calls += 1
            return method(*args, **kwargs)

        return counted


def _lines(text: str) -> list[tuple[int, int]]:
    """The (start, end) of each line's content as ``_address_lines`` reads them."""
    out = []
    position = 0
    for line in text.split("\n"):
        prefix = pii_names._LINE_PREFIX.match(line)
        skip = prefix.end() if prefix is not None else 0
        out.append((position + skip, position + len(line.rstrip())))
        position += len(line) + 1
    return out


def _country_gate_holds(text: str) -> None:
    for start, end in _lines(text):
        if _COUNTRY_LINE.fullmatch(text, start, end) is not None:
            assert _may_end_country_line(text, start, end), text[start:end]


def test_it_lets_every_country_line_of_the_corpus_through() -> None:
    for text in corpus_texts_cached():
        _country_gate_holds(text)


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(_TEXT_PIECES), max_size=16))
def test_it_lets_every_country_line_through_on_generated_texts(pieces: list[str]) -> None:
    text = "".join(pieces)
    _country_gate_holds(text)


def test_it_reads_a_postcode_in_any_scripts_digits_as_the_pattern_does() -> None:
    # ``\d`` is any decimal digit: the gate asks ``str.isdecimal``, not ASCII digits only.
    text = "Ελλάδα ١٢٣٤٥"
    assert _COUNTRY_LINE.fullmatch(text) is not None
    assert _may_end_country_line(text, 0, len(text))
    assert not _may_end_country_line("Finland is nice", 0, len("Finland is nice"))
    assert not _may_end_country_line("x", 1, 1)


def test_it_skips_the_country_pattern_on_lines_that_end_in_no_postcode() -> None:
    # Checked through the gate, not by counting calls: compiled, the module's patterns cannot be patched.
    letter = "Dear Anna Weber\nThanks for the lovely Saturday afternoon\nSee you soon"
    assert not any(_may_end_country_line(line, 0, len(line)) for line in letter.split("\n"))
    assert pii_names._address_lines(letter) == []
    found = pii_names._address_lines("Erkki Virtanen\n12 Koulukatu\nOulu\nFinland 91900")
    assert _may_end_country_line("Finland 91900", 0, len("Finland 91900"))
    assert [m.value for m in found] == ["12 Koulukatu", "Oulu", "Finland 91900"]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="0123456789٣१abcz/-A ", max_size=9))
def test_it_asks_the_house_number_pattern_only_after_a_first_digit(word: str) -> None:
    if _HOUSE_NUMBER.fullmatch(word) is not None:
        assert word[:1].isdecimal()


def test_it_still_reads_a_house_number_before_a_name() -> None:
    assert not [m for m in pii_names.find_names("Deliver to 12 Susan Shores today") if m.type == "person"]
    assert not [m for m in pii_names.find_names("Deliver to ١٢ Susan Shores today") if m.type == "person"]


def test_it_asks_startswith_only_after_a_cues_first_letter() -> None:
    assert {word[0] for word in _LOWER_CUE_WORDS} == _LOWER_CUE_FIRST
    assert pii_names._lower_names("talked to leslie carroll yesterday", [])
    assert not pii_names._lower_names("Talked to leslie carroll yesterday", [])


def _tokens_reference(text: str) -> list[tuple[str, int, int]]:
    """``_tokens`` as it was: the word read with ``match.group()``, every word asked for a possessive."""
    out: list[tuple[str, int, int]] = []
    ascii_text = text.isascii()
    for match in (pii_names._CAPITALISED_ASCII if ascii_text else pii_names._CAPITALISED).finditer(text):
        start, end = match.span()
        word = match.group()
        if word[-1] == "." and word not in pii_names._DOTTED and len(word) > 2:
            word = word[:-1]
            end -= 1
        if word.endswith(("'s", "’s")) and len(word) > 3:
            word = word[:-2]
            end -= 2
        if not word.isascii() and word not in pii_names._FLAGS and len(word) > 3:
            word = pii_names.fold(word)
        out.append((word, start, end))
    return out


def test_it_reads_the_same_tokens_as_before_on_the_corpus() -> None:
    for text in corpus_texts_cached():
        assert _tokens(text) == _tokens_reference(text)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(["Anna's", "Ross", "Dr.", "Smith.", "O’Neil’s", "Jürgen's", " ", "s", "'s"]),
        max_size=10,
    )
)
def test_it_reads_the_same_tokens_as_before_on_generated_texts(pieces: list[str]) -> None:
    text = "".join(pieces)
    assert _tokens(text) == _tokens_reference(text)


def test_it_reads_speakers_only_where_two_colons_stand() -> None:
    # One label line is no dialogue; the gate (two colons) leaves it to the other passes.
    assert pii_names._line_people("Hi Maria\nNote: the room is booked\nBye", []) == []
    found = pii_names._line_people("Apollinaris: What a wife.\nBenedikta: Indeed.\nApollinaris: Yes.", [])
    assert [m.value for m in found] == ["Apollinaris", "Benedikta", "Apollinaris"]
