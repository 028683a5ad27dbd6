"""National phone layouts read from phonenumbers' metadata, without ``parse`` (issue 16, h25c).

``pii_types._national_read`` gives the verdict of ``phonenumbers.parse(value, region)`` and
``is_valid_number`` for a value of ``_NATIONAL_LAYOUT`` whose digits the region's international prefix
does not start.  Compared here with the library, region by region, on numbers of every type of every
region of the country codes asked (the metadata's example numbers in their national layout, with their
last digits redrawn, cut or lengthened) and on digits drawn at random; and ``_phone_national`` as a whole
with asking every region in turn.  And ``pii_names._Before``'s phrases, built a word at a time.
"""

from __future__ import annotations

import random

import phonenumbers
from hypothesis import given, settings
from hypothesis import strategies as st
from phonenumbers import COUNTRY_CODE_TO_REGION_CODE, PhoneMetadata

from tests.engine_safety.pii_reference import phone_national_in_regions
from verification.engine.safety.pii_names import _Before
from verification.engine.safety.pii_types import (
    _NATIONAL_LAYOUT,
    _NATIONAL_REGIONS,
    _NUMBER_TYPES,
    _READ_ASK,
    _READ_INVALID,
    _READ_VALID,
    _national_read,
    _national_readers,
    _national_rules,
    _phone_national,
)


def _library(value: str, region: str) -> int | None:
    """The library's reading: valid, invalid, or ``None`` where the parser refuses the value."""
    try:
        number = phonenumbers.parse(value, region)
    except phonenumbers.NumberParseException:
        return None
    return _READ_VALID if phonenumbers.is_valid_number(number) else _READ_INVALID


def _digits(value: str) -> str:
    return "".join(c for c in value if c in "0123456789")


def _read(value: str, index: int) -> int:
    """``_national_read`` where ``_phone_national`` asks it, else ``_READ_ASK``."""
    digits = _digits(value)
    rule = _national_rules()[index]
    if (
        _NATIONAL_LAYOUT.fullmatch(value) is None
        or not 3 <= len(digits) <= 17
        or rule is None
        or rule[0].match(digits) is not None
    ):
        return _READ_ASK
    return _national_read(digits, _national_readers()[index])


def _compare(value: str) -> int:
    """Every region's reading of ``value`` against the library's; how many the reader decided."""
    decided = 0
    for index, region in enumerate(_NATIONAL_REGIONS):
        mine = _read(value, index)
        if mine != _READ_ASK:
            assert mine == _library(value, region), (value, region)
            decided += 1
    return decided


def _examples() -> list[str]:
    """The example number of every type of every region of the country codes asked, in the national
    layout of each region of ``_NATIONAL_REGIONS`` with that country code."""
    out: list[str] = []
    for region in _NATIONAL_REGIONS:
        metadata = PhoneMetadata.metadata_for_region(region)
        assert metadata is not None and metadata.country_code is not None
        code = metadata.country_code
        for other in COUNTRY_CODE_TO_REGION_CODE[code]:
            other_metadata = PhoneMetadata.metadata_for_region(other)
            for name in (*_NUMBER_TYPES, "general_desc"):
                desc = getattr(other_metadata, name, None)
                if desc is None or not desc.example_number:
                    continue
                number = phonenumbers.parse(f"+{code}{desc.example_number}")
                out.append(phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.NATIONAL))
                out.append("0" + desc.example_number)
                out.append(desc.example_number)
    return sorted({v for v in out if v[:1] in "0("})


EXAMPLES = _examples()


def test_it_reads_the_example_numbers_of_every_region_as_the_library() -> None:
    decided = sum(_compare(value) for value in EXAMPLES)
    # The reader decides most readings (the rest are regions that rewrite their prefix, or values
    # starting with an international prefix).
    assert decided > len(EXAMPLES) * 10
    valid = [v for v in EXAMPLES if any(_read(v, i) == _READ_VALID for i in range(len(_NATIONAL_REGIONS)))]
    assert len(valid) > 100


def test_it_reads_changed_example_numbers_as_the_library() -> None:
    rng = random.Random(25)
    for value in EXAMPLES:
        digits = _digits(value)
        for _ in range(12):
            keep = rng.randrange(1, len(digits) + 1)
            tail = "".join(rng.choice("0123456789") for _ in range(rng.randrange(0, 6)))
            changed = digits[:keep] + tail
            if changed[:1] == "0":
                _compare(changed)
                _compare(changed[:3] + " " + changed[3:])


@settings(max_examples=500, deadline=None)
@given(st.sampled_from(EXAMPLES), st.text(alphabet="0123456789", max_size=6), st.integers(0, 14))
def test_it_reads_drawn_numbers_as_the_library(example: str, tail: str, cut: int) -> None:
    digits = _digits(example)
    value = digits[: max(1, len(digits) - cut)] + tail
    if value[:1] == "0":
        _compare(value)
        _compare("(" + value[:3] + ") " + value[3:])
        assert _phone_national(value) == phone_national_in_regions(value), value


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet="0123456789", min_size=2, max_size=16), st.sampled_from(["", " ", "-", ".", "/"]))
def test_it_reads_random_digits_as_the_library(body: str, separator: str) -> None:
    value = "0" + body[:2] + separator + body[2:]
    _compare(value)
    assert _phone_national(value) == phone_national_in_regions(value), value


def test_it_still_finds_the_usual_national_numbers() -> None:
    for value in ("020 7946 0958", "030 1234567", "06 12 34 56 78", "0412 345 678", "(01) 23456"):
        assert _phone_national(value) == (0.85, "phonenumbers") == phone_national_in_regions(value)
    # Negatives: numbers valid nowhere stay refused, a value through an international prefix too.
    for value in ("0000 000000", "01234", "0999 999 999 999", "00 00 00 00"):
        assert _phone_national(value) is None
        assert phone_national_in_regions(value) is None


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.sampled_from(["Dear", "Ms", "lives in", "(", ")", "“x”", "", " ", "\n", ":", ",", "of the"]))
)
def test_it_joins_the_cue_phrases_as_the_joins_of_the_last_words(parts: list[str]) -> None:
    # ``_Before.phrases`` (built one word at a time since h25c): the last n words joined by one space,
    # longest first, for every n (words the strip left empty included).
    text = " ".join(parts) + " Okafor"
    before = _Before(text, len(text) - len("Okafor"))
    words = before.words
    assert before.phrases == [" ".join(words[-n:]) for n in range(len(words), 0, -1)]
