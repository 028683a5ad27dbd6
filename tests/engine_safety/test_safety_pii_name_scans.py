"""The names pass's scans read by the PII pass's one hyperscan pass (h23h, docs/safety.md "Fourteenth
round: the names pass's scans in the PII types' hyperscan pass (h23h)").

``pii_names.NAME_SCANS`` go into ``pii._PREFILTER`` with the types' patterns; ``find_names`` and
``may_find`` skip a step whose scan's bit is clear.  That is exact only if each scan matches wherever
its step could find something, and only fast if every text still has a projection.  Checked here:

- each scan's ``re`` form matches wherever the pattern it stands for matches (so hyperscan, which
  reports a superset of the ``re`` matches of the patterns it holds, sets the bit there), on corpus
  lines, the generated dev lines, cuts, mutated texts and texts built from the steps' cue words;
- the bit hyperscan reports is set wherever that pattern matches;
- ``find_names`` and ``detect_pii`` give the same results with the bits and without them (every bit,
  the path without hyperscan), and ``detect_pii`` with the prefilter switched off;
- no corpus or generated dev text lost its projection (accented letters);
- ``pii._top_level_splits``, which now walks ``prefilter.regex_pieces`` as ``_hyperscan_form`` does,
  splits as it did.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.engine_safety.safety_support import corpus_texts_cached
from tests.engine_safety.test_safety_multiscan import _mutated_documents
from verification.engine.safety import detect_pii, prepare_pii_prefilter
from verification.engine.safety.pii import _PREFILTER, _QUANTIFIER, _name_scans, _top_level_splits
from verification.engine.safety.pii_names import (
    _ADDRESS_CUE,
    _CAPS_TOWN,
    _CUE_STREET,
    _LOWER_CUE_WORDS,
    _LOWER_NAME,
    _LOWER_VERB_WORDS,
    _PREFIXED_TOWN,
    _STREET_PARTICLE,
    ALL_SCANS,
    NAME_SCANS,
    SCAN_CAPS_TOWN,
    SCAN_LOWER_NAME,
    SCAN_PREFIXED_TOWN,
    SCAN_STREET,
    _hyperscan_form,
    find_names,
    may_find,
)
from verification.engine.safety.pii_types import PII_TYPES
from verification.engine.text import lower

GENERATED = Path(__file__).resolve().parents[2] / "bench" / "corpora" / "generated"
# What each scan stands for: the pattern whose match its step needs, by the scan's bit.
STANDS_FOR = {
    SCAN_LOWER_NAME: _LOWER_NAME,
    SCAN_STREET: _ADDRESS_CUE,
    SCAN_CAPS_TOWN: _CAPS_TOWN,
    SCAN_PREFIXED_TOWN: _PREFIXED_TOWN,
}


def _generated_dev_texts() -> list[str]:
    texts = []
    for name in ("pii_dev.jsonl", "pii_intl_dev.jsonl", "pii_presidio_dev.jsonl"):
        for line in (GENERATED / name).read_text(encoding="utf-8").splitlines():
            if line.strip():
                texts.append(str(json.loads(line)["text"]))
    return texts


_TEXTS: list[str] = []


def _texts() -> list[str]:
    """Corpus lines, generated dev lines and cuts of 300 characters of them all joined."""
    if not _TEXTS:
        texts = corpus_texts_cached() + _generated_dev_texts()
        joined = "\n".join(texts)
        _TEXTS.extend(texts + [joined[at : at + 300] for at in range(0, len(joined), 300)])
    return _TEXTS


@pytest.fixture(scope="module", autouse=True)
def _prefilter_ready() -> None:
    assert prepare_pii_prefilter(timeout=600), _PREFILTER.error


def _scans(text: str) -> int:
    hits = _PREFILTER.may_match(text)
    assert hits is not None, text[:200]  # a text without a projection would take the slow path
    return _name_scans(hits)


def _assert_scans_cover(text: str) -> None:
    scans = _scans(text)
    for k, scan in enumerate(NAME_SCANS):
        bit = 1 << k
        if STANDS_FOR[bit].search(text) is not None:
            assert scan.search(text) is not None, (bit, text[:300])
            assert scans & bit, (bit, text[:300])


def _without_bits(text: str) -> list[tuple[str, int, int, str, float, str]]:
    return [(m.type, m.start, m.end, m.value, m.confidence, m.evidence) for m in find_names(text)]


def _with_bits(text: str) -> list[tuple[str, int, int, str, float, str]]:
    found = find_names(text, _scans(text))
    return [(m.type, m.start, m.end, m.value, m.confidence, m.evidence) for m in found]


def test_each_scan_stands_for_one_step() -> None:
    assert len(NAME_SCANS) == len(STANDS_FOR)
    assert sorted(STANDS_FOR) == [1 << k for k in range(len(NAME_SCANS))]
    assert NAME_SCANS[0].pattern == _hyperscan_form(NAME_SCANS[0].pattern).pattern  # already widened


def test_the_scans_cover_their_steps_on_corpus_and_generated_texts() -> None:
    for text in _texts():
        _assert_scans_cover(text)


def test_the_names_pass_finds_the_same_with_and_without_the_bits() -> None:
    for text in _texts():
        assert _with_bits(text) == _without_bits(text), text[:300]
        scans = _scans(text)
        assert may_find(text, lower(text), scans) == may_find(text, lower(text)), text[:300]


def test_a_street_cue_without_an_address_is_found_where_the_scan_says() -> None:
    # ``_street_addresses`` reads only cues that an address follows; the scan asks for the cue.
    for text in _texts():
        if any(m.group("address") is not None for m in _CUE_STREET.finditer(text)):
            assert _scans(text) & SCAN_STREET, text[:300]


_FRAGMENTS = [
    *_LOWER_CUE_WORDS,
    *_LOWER_VERB_WORDS,
    *re.findall(r"[a-z]+", _STREET_PARTICLE),
    "at", "to", "in", "on", "from", "address", "Address is", "rue", "allée", "praça", "nám.", "ul.",
    "P.O.", "North", "New", "Lake", "NEW YORK", "ÅLESUND", "SÃO", "leslie", "carroll", "björn",
    "o'sullivan", "smith-jones", "Ørsted", "Łódź", "Müller", "Straße", "Baker", "Street", "12", "4821",
    "3b", " ", " ", " ", "  ", "\t", "\n", "\n\n", ",", ".", ":", "a:", "@", "/", "-", "'", "’",
]  # fmt: skip


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from(_FRAGMENTS), min_size=1, max_size=14).map("".join))
def test_the_scans_cover_their_steps_on_texts_made_of_cues(text: str) -> None:
    _assert_scans_cover(text)
    assert _with_bits(text) == _without_bits(text)


@settings(max_examples=300, deadline=None)
@given(_mutated_documents())
def test_the_scans_cover_their_steps_on_mutated_texts(text: str) -> None:
    hits = _PREFILTER.may_match(text)
    if hits is None:
        return  # no projection (a random character): the names pass takes every step itself
    _assert_scans_cover(text)
    assert _with_bits(text) == _without_bits(text)


def test_detect_pii_is_the_same_without_hyperscan() -> None:
    # Without the prefilter every bit is set: the path of a process without hyperscan.
    texts = _generated_dev_texts()[::7]
    with_scans = [[m.to_dict(include_value=True) for m in detect_pii(t)] for t in texts]
    try:
        _PREFILTER.enabled = False
        assert _name_scans(_PREFILTER.may_match(texts[0])) == ALL_SCANS
        without = [[m.to_dict(include_value=True) for m in detect_pii(t)] for t in texts]
    finally:
        _PREFILTER.enabled = True
    assert with_scans == without


def test_a_line_without_cues_skips_the_steps() -> None:
    text = "Please review the quarterly figures before 2024 closes."
    scans = _scans(text)
    assert not scans & (SCAN_LOWER_NAME | SCAN_STREET | SCAN_CAPS_TOWN | SCAN_PREFIXED_TOWN)
    assert find_names(text, scans) == find_names(text) == []


def test_the_steps_still_find_what_their_scans_let_through() -> None:
    text = "Ship it to 12 Baker Street, London. We flew to NEW YORK, then i talked to leslie carroll"
    scans = _scans(text)
    assert scans & SCAN_LOWER_NAME and scans & SCAN_STREET and scans & SCAN_CAPS_TOWN
    assert _with_bits(text) == _without_bits(text)
    assert "leslie carroll" in [m.value for m in find_names(text, scans)]


def test_the_widened_form_keeps_classes_and_widens_literals() -> None:
    # A non-ASCII literal outside a class becomes "." (a superset); inside a class, escaped, or after
    # "[^]" it stays as it is; a class of lower-case letters takes the ASCII capitals and "_" too.
    widened = _hyperscan_form(r"allée[é\]][^]é]\é")
    assert widened.pattern == r"all.e[é\]][^]é]\é"
    assert widened.fullmatch("alléeéxé") is not None and widened.fullmatch("allXe]xé") is not None
    assert widened.fullmatch("allXeXxé") is None
    lowers = NAME_SCANS[0]
    assert lowers.search("i talked to leslie carroll") is not None
    assert lowers.search("i talked to LESLIE_CARROLL X") is not None  # the stand-ins of "ö", "é", ...


def _old_top_level_splits(source: str) -> list[int]:
    """``pii._top_level_splits`` as h18d wrote it, before it walked ``prefilter.regex_pieces``."""
    splits: list[int] = []
    depth = 0
    in_class = False
    i = 0
    size = len(source)
    while i < size:
        char = source[i]
        if char == "\\":
            i += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
            if source.startswith("^", i + 1):
                i += 1
            if source.startswith("]", i + 1):
                i += 1
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth < 0:
                return []
            if depth == 0:
                quantifier = _QUANTIFIER.match(source, i + 1)
                splits.append(i + 1 if quantifier is None else quantifier.end())
        elif char == "|" and depth == 0:
            return []
        i += 1
    return splits if depth == 0 and not in_class else []


def test_the_splits_read_from_the_pieces_are_those_of_the_old_walk_on_every_pattern() -> None:
    sources = [kind.pattern.pattern for kind in PII_TYPES] + [p.pattern for p in NAME_SCANS]
    for source in sources:
        assert _top_level_splits(source) == _old_top_level_splits(source), source


@settings(max_examples=800, deadline=None)
@given(st.text(alphabet="ab()[]^|\\?*+{}1,é", max_size=24))
def test_the_splits_read_from_the_pieces_are_those_of_the_old_walk(source: str) -> None:
    assert _top_level_splits(source) == _old_top_level_splits(source)
