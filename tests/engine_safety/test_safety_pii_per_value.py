"""The per-value shortcuts of ``detect_pii`` (issue 16, speed on values never seen before) change no result.

- Matches are entered into the result table by plain loops (``_collect_from``,
  ``_collect_after_context``) instead of the generators ``candidates`` and ``accepted`` (kept in
  pii_reference.py): the same matches, in the same order, on corpus lines (the generated ones too)
  and mutated documents.
- The names pass is skipped on a one-line text without a capital letter (``may_name``): it finds
  nothing there.
- A national phone layout with four digits is turned down before ``phonenumbers`` is asked: every
  such layout the pattern admits is valid in none of the regions.
- A Bech32 Bitcoin address has its checksum computed once (Bech32 or Bech32m): the same verdicts
  as stdnum's check followed by the Bech32m one.
- A national phone layout is parsed only in the regions that may accept or refuse it: a region
  whose international prefix does not start the digits, and whose country's numbers have none of
  the lengths the digits (with or without the national prefix) have, is left out.
- Context words are looked for in the lower-cased text on short texts too (case-sensitively):
  the same matches as the case-insensitive regex over the text, wherever ``detect_pii`` passes
  the lowered text (lower-casing keeps every offset, no "ſ" or "ı").
- An IBAN whose mod 97-10 sum fails is turned down before python-stdnum looks its country up.
- Hyperscan's match handler is a compiled function that sets the pattern's bit.
- A national layout that a region's international prefix strips to digits already parsed (and
  found valid nowhere) is not parsed again (h17c): the same verdicts as the loop over every region.
- The Bech32 checksum is computed by ``_bech32_polymod`` (compiled), not stdnum's interpreted loop:
  the same number for every list of five-bit groups.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from stdnum import bitcoin, iban

from tests.engine_safety.pii_reference import (
    accepted,
    btc_reference,
    candidates,
    iban_reference,
    phone_national_in_regions,
)
from tests.engine_safety.safety_support import CORPORA, corpus_texts_cached
from tests.engine_safety.test_safety_multiscan import _mutated_documents
from verification.engine.safety.fastpath import record_match
from verification.engine.safety.pii import (
    _LOWERED_CONTEXT,
    _collect_after_context,
    _collect_from,
    _context_words,
    may_name,
)
from verification.engine.safety.pii_names import find_names
from verification.engine.safety.pii_types import (
    _NATIONAL_REGIONS,
    PII_TYPES,
    TYPES_BY_NAME,
    _bech32_polymod,
    _btc,
    _iban,
    _national_skips,
    _phone_national,
)
from verification.engine.text import lower


def _generated_texts() -> list[str]:
    return [
        json.loads(line)["text"]
        for path in sorted((CORPORA / "generated").glob("*.jsonl"))
        for line in Path(path).read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]


def _collected(text: str) -> list[tuple[str, int, int, float, str]]:
    """What the loops enter for every type, as the generators would (no confidence floor)."""
    found: dict[tuple[str, int, int], tuple[int, object]] = {}
    for kind in PII_TYPES:
        if kind.context_required:
            _collect_after_context(kind, text, None, 0.0, found)  # type: ignore[arg-type]
        else:
            first = kind.pattern.search(text)
            if first is not None:
                _collect_from(kind, text, first, kind.pattern, text, 0.0, found)  # type: ignore[arg-type]
    return sorted((m.type, m.start, m.end, m.confidence, m.check) for _, m in found.values())  # type: ignore[attr-defined]


def _generated(text: str) -> list[tuple[str, int, int, float, str]]:
    """The same table filled from the reference generators, as ``detect_pii`` used to."""
    found: dict[tuple[str, int, int], tuple[int, object]] = {}
    for kind in PII_TYPES:
        if kind.context_required:
            values = list(candidates(kind, text))
        else:
            first = kind.pattern.search(text)
            values = [] if first is None else list(accepted(kind, text, first))
        for match in values:
            key = (match.type, match.start, match.end)
            if key not in found or found[key][1].confidence < match.confidence:  # type: ignore[attr-defined]
                found[key] = (kind.priority, match)
    return sorted((m.type, m.start, m.end, m.confidence, m.check) for _, m in found.values())  # type: ignore[attr-defined]


def test_it_collects_what_the_generators_yield_on_corpus_lines() -> None:
    for text in [*corpus_texts_cached(), *_generated_texts()[::3]]:
        assert _collected(text) == _generated(text), text[:200]


@settings(max_examples=150, deadline=None)
@given(_mutated_documents())
def test_it_collects_what_the_generators_yield_on_mutated_documents(text: str) -> None:
    assert _collected(text) == _generated(text)


def test_it_skips_the_names_pass_only_where_it_finds_nothing() -> None:
    texts = [*corpus_texts_cached(), *_generated_texts()]
    # Lower-cased lines (and lines joined into one) are the texts the shortcut applies to.
    variants = [*texts, *(lower(t) for t in texts), *(lower(t).replace("\n", " ") for t in texts)]
    skipped = 0
    for text in variants:
        if not may_name(text, lower(text)):
            skipped += 1
            assert find_names(text) == [], text[:200]
    assert skipped > 1_000
    assert may_name("dear ms okafor", "dear ms okafor") is False
    assert may_name("Dear Ms Okafor", "dear ms okafor") is True
    assert may_name("street 12\nlyon", "street 12\nlyon") is True  # an address's lines: no capital needed


def _four_digit_layouts() -> list[str]:
    """Every value with four digits that the national layout's pattern admits: "0d" or "(0d)", an
    optional separator, two digits."""
    return [
        f"{head}{separator}{tail:02d}"
        for first in range(10)
        for head in (f"0{first}", f"(0{first})")
        for separator in ("", " ", ".", "-", "/")
        for tail in range(100)
    ]


def test_it_admits_the_four_digit_layouts_listed() -> None:
    (kind,) = TYPES_BY_NAME["phone_national"]
    layouts = _four_digit_layouts()
    assert all(kind.pattern.fullmatch(value) for value in layouts)
    assert not kind.pattern.fullmatch("012")  # three digits: not a candidate at all


def test_it_turns_down_four_digit_national_layouts_as_every_region_does() -> None:
    layouts = _four_digit_layouts()
    # Every plain layout, and a seeded sample of the others (each costs up to 19 parses).
    sample = [v for v in layouts if v[0] == "0" and len(v) == 4]
    sample += random.Random(16).sample([v for v in layouts if v not in sample], 600)
    for value in sample:
        assert _phone_national(value) is None
        assert phone_national_in_regions(value) is None, value


def test_it_still_asks_the_regions_from_five_digits_on() -> None:
    assert _phone_national("020 7946 0958") == (0.85, "phonenumbers")
    assert _phone_national("030 1234567") == (0.85, "phonenumbers")
    assert _phone_national("0927 5") == phone_national_in_regions("0927 5")


def test_it_sets_the_bit_of_each_reported_pattern() -> None:
    found = [0]
    record_match(3, 0, 5, 0, found)
    record_match(0, 1, 2, 0, found)
    record_match(3, 4, 9, 0, found)
    assert found == [0b1001]


_BECH32 = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"


def _address(data: list[int], constant: int) -> str:
    """A "bc1" address over the 5-bit ``data`` with a valid checksum for ``constant`` (1: Bech32,
    0x2BC830A3: Bech32m), as BIP-173 and BIP-350 write it."""
    values = [3, 3, 0, 2, 3, *data]  # the expanded human-readable part "bc", then the data
    polymod = bitcoin.bech32_checksum([*values, 0, 0, 0, 0, 0, 0]) ^ constant
    checksum = [(polymod >> 5 * (5 - i)) & 31 for i in range(6)]
    return "bc1" + "".join(_BECH32[v] for v in [*data, *checksum])


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.integers(0, 31), min_size=0, max_size=80),
    st.sampled_from([1, 0x2BC830A3, 7]),
    st.sampled_from(["", "upper", "typo", "tail"]),
)
def test_it_reads_bech32_addresses_as_stdnum_then_bech32m_did(
    data: list[int], constant: int, edit: str
) -> None:
    value = _address(data, constant)
    if edit == "upper":
        value = value.upper()
    elif edit == "typo" and len(value) > 8:
        value = value[:6] + ("q" if value[6] != "q" else "p") + value[7:]
    elif edit == "tail":
        value += "b"  # not in the alphabet
    assert _btc(value) == btc_reference(value), value


def test_it_reads_the_corpus_addresses_as_before() -> None:
    (kind,) = TYPES_BY_NAME["btc_address"]
    values = [
        m.group()
        for text in [*corpus_texts_cached(), *_generated_texts()]
        for m in kind.pattern.finditer(text)
    ]
    assert len(values) > 50
    assert any(_btc(v) == (0.95, "bech32m") for v in values)
    for value in values:
        assert _btc(value) == btc_reference(value), value


def _layout(digits: str, separators: list[str], bracket: int) -> str:
    """``digits`` written with a separator after each digit (``separators``, "" for none) and the
    first ``bracket`` digits in brackets ("(0161) 496 0000"), as national layouts are written."""
    out = []
    for i, digit in enumerate(digits):
        if bracket and i == 0:
            out.append("(")
        out.append(digit)
        if bracket and i == bracket - 1:
            out.append(") ")
        elif i + 1 < len(digits):
            out.append(separators[i % len(separators)])
    return "".join(out)


@settings(max_examples=600, deadline=None)
@given(
    st.text(alphabet="0123456789", min_size=3, max_size=18),
    st.lists(st.sampled_from(["", "", " ", ".", "-", "/"]), min_size=1, max_size=6),
    st.integers(0, 5),
)
def test_it_reads_national_layouts_as_the_loop_over_every_region_did(
    tail: str, separators: list[str], bracket: int
) -> None:
    value = _layout("0" + tail, separators, min(bracket, len(tail)))
    assert _phone_national(value) == phone_national_in_regions(value), value


def test_it_reads_the_corpus_national_layouts_as_the_loop_did() -> None:
    (kind,) = TYPES_BY_NAME["phone_national"]
    texts = [*corpus_texts_cached(), *_generated_texts()]
    values = sorted({m.group() for text in texts for m in kind.pattern.finditer(text)})
    assert len(values) > 100
    assert sum(_phone_national(v) is not None for v in values) > 50
    for value in values:
        if sum(c.isdigit() for c in value) >= 5:
            assert _phone_national(value) == phone_national_in_regions(value), value


@settings(max_examples=600, deadline=None)
@given(
    st.sampled_from(["00", "000", "001", "0011", "0012", "0014", "010", "011", "0044", "0049", "0090"]),
    st.text(alphabet="0123456789", min_size=0, max_size=14),
    st.lists(st.sampled_from(["", "", " ", ".", "-", "/"]), min_size=1, max_size=6),
    st.integers(0, 5),
)
def test_it_reads_layouts_after_an_international_prefix_as_the_loop_over_every_region_did(
    prefix: str, tail: str, separators: list[str], bracket: int
) -> None:
    # Regions dialling the same prefix ("00" in most of Europe) read such a value alike: only the
    # first of them is asked; the verdict must stay that of asking each in turn.
    digits = prefix + tail
    value = _layout(digits, separators, min(bracket, len(digits) - 1))
    assert _phone_national(value) == phone_national_in_regions(value), value


def test_it_still_asks_a_region_whose_international_prefix_leaves_other_digits() -> None:
    # Britain and the regions after it dialling "00" read "0011 44 ..." as a call to +1 (valid
    # nowhere); Australia dials "0011" and reads the London number +44 20 7946 0958.
    value = "0011 44 20 7946 0958"
    assert _phone_national(value) == phone_national_in_regions(value) == (0.85, "phonenumbers")


@settings(max_examples=400, deadline=None)
@given(st.lists(st.integers(0, 31), min_size=0, max_size=100))
def test_it_computes_the_bech32_checksum_as_stdnum_does(values: list[int]) -> None:
    assert _bech32_polymod([3, 3, 0, 2, 3, *values]) == bitcoin.bech32_checksum([3, 3, 0, 2, 3, *values])


def test_it_leaves_out_only_regions_whose_numbers_cannot_read_the_digits() -> None:
    regions = dict(zip(_NATIONAL_REGIONS, _national_skips("01179"), strict=True))
    # Five digits: no French number (nine digits) and no British one (seven, nine or ten) has them,
    # with or without the trunk "0".  German and Austrian numbers may be that short, but none of their
    # number types reads "1179" (h24g: the types' descriptions count too).
    assert regions["FR"] and regions["GB"]
    assert regions["DE"] and regions["AT"]
    # A Vienna mobile's length and digits: read in Austria (and Germany), not in France or Britain.
    vienna = dict(zip(_NATIONAL_REGIONS, _national_skips("066412345678"), strict=True))
    assert not vienna["AT"] and not vienna["DE"] and vienna["FR"] and vienna["GB"]
    # A London number is read in Britain; not in France (nine digits, none starting with "2").
    london = dict(zip(_NATIONAL_REGIONS, _national_skips("02079460958"), strict=True))
    assert not london["GB"] and london["FR"]
    # An international prefix ("00" in most of them) reads a country code: those regions are asked.
    international = dict(zip(_NATIONAL_REGIONS, _national_skips("0044207946"), strict=True))
    assert not international["GB"] and not international["DE"] and not international["MX"]
    # Brazil and Japan rewrite their national prefix: always asked.
    assert not regions["BR"] and not regions["JP"]
    # Outside what the skip reads (no trunk "0", too few or too many digits): every region is asked.
    assert not any(_national_skips("4155550132")) and not any(_national_skips("01"))
    assert not any(_national_skips("0" * 18))


_IBAN_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"


@settings(max_examples=500, deadline=None)
@given(
    st.sampled_from(["DE", "GB", "FR", "NL", "ES", "BE", "IT", "XX", "QA", "SE"]),
    st.text(alphabet=_IBAN_CHARS, min_size=11, max_size=30),
    st.sampled_from(["valid", "as_is", "spaced", "lower", "typo"]),
)
def test_it_reads_ibans_as_stdnum_alone_did(country: str, bban: str, edit: str) -> None:
    check = iban.calc_check_digits(country + "00" + bban)
    value = country + (check if edit != "as_is" else "00") + bban
    if edit == "spaced":
        value = " ".join(value[i : i + 4] for i in range(0, len(value), 4))
    elif edit == "lower":
        value = value.lower()
    elif edit == "typo":
        value = value[:6] + ("1" if value[6] != "1" else "2") + value[7:]
    assert _iban(value) == iban_reference(value), value


def test_it_reads_the_corpus_ibans_as_before() -> None:
    (kind,) = TYPES_BY_NAME["iban"]
    values = {
        m.group()
        for text in [*corpus_texts_cached(), *_generated_texts()]
        for m in kind.pattern.finditer(text)
    }
    # With the shorter forms the engine retries (``shrink``), and a valid IBAN of every layout.
    values |= {v[: v.rindex(" ")] for v in list(values) if " " in v}
    values |= {"DE89 3704 0044 0532 0130 00", "GB82WEST12345698765432", "NL91ABNA0417164300"}
    assert len(values) > 50
    assert sum(_iban(v) is not None for v in values) > 10
    for value in values:
        assert _iban(value) == iban_reference(value), value


def _assert_same_context_words(text: str) -> None:
    lowered = lower(text)
    if len(lowered) != len(text) or "ſ" in text or "ı" in text:
        return  # ``detect_pii`` does not pass the lowered text then
    for kind in PII_TYPES:
        if kind.context is None or id(kind) not in _LOWERED_CONTEXT:
            continue
        plain = [m.span() for m in kind.context.finditer(text)]
        assert [m.span() for m in _context_words(kind, text, lowered)] == plain, (kind.name, text[:200])


def test_it_finds_the_context_words_of_short_texts_in_their_lowered_form() -> None:
    texts = [*corpus_texts_cached(), *_generated_texts()]
    assert sum(len(t) < 2_048 for t in texts) > 1_000
    for text in texts:
        _assert_same_context_words(text)
    # Capitals, word boundaries and non-ASCII letters next to a context word.
    for text in (
        "CALL 020 7946 0958",
        "recall 0207",
        "Tél/Phone: 030 1234567",
        "ÉPHONE 1",
        "Ḉall_me",
        "Kall",
    ):
        _assert_same_context_words(text)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="CcAaLlPpHhOoNnEeSsİıſÉé\u212a _-:.\n0123456789", max_size=80))
def test_it_finds_the_context_words_of_generated_short_texts_in_their_lowered_form(text: str) -> None:
    _assert_same_context_words(text)


@settings(max_examples=150, deadline=None)
@given(_mutated_documents())
def test_it_finds_the_context_words_of_mutated_documents_in_their_lowered_form(text: str) -> None:
    _assert_same_context_words(text)
