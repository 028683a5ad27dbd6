"""Cheaper look-ups of the run verifier that must answer exactly as the code they replace (issue 14, h20c:
short-run latency). Each test compares the new look-up with the old one's definition on made-up inputs
(hypothesis properties and seeded random texts), and states what must stay as it was."""

from __future__ import annotations

import random
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from verification.engine.runs import grounding, mentions, routes, trips, turns
from verification.engine.runs.evidence import _PLAIN_NUMBER, Evidence, Fact, _acronym_pool, _initials
from verification.engine.runs.findings import _ABBREV, _ABBREV_SPAN, _SENTENCE_END, split_sentences
from verification.engine.runs.grounding import _accepted_by, _Matcher
from verification.engine.runs.mentions import _DATE_PATTERN, Mention, _date_matches
from verification.engine.runs.numeric import accepts

# The definitions the new code replaced, as they stood.
_OLD_SENTENCE_END = re.compile(r"[.!?](?=\s+[A-Z0-9\"“(])|\n\s*\n|\n(?=\s*[-*\d])")
_TOKENS = ["item", "items", "order", "orders", "seat", "seats", "length", "status", "bag", "x"]


def _count(value: float, tokens: frozenset[str]) -> Fact:
    return Fact("count", value, 1, ("results",), (1, ()), None, tokens, text="length")


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.frozensets(st.sampled_from(_TOKENS), max_size=3), max_size=30),
    st.sets(st.sampled_from(_TOKENS), max_size=4),
)
def test_it_finds_the_counts_of_a_noun_as_the_scan_of_every_count(
    token_sets: list[frozenset[str]], nouns: set[str]
) -> None:
    ev = Evidence(counts=[_count(float(i), tokens) for i, tokens in enumerate(token_sets)])
    matcher = _Matcher(ev, "")
    assert matcher._counts_keyed(nouns) == [f for f in ev.counts if f.key_tokens & nouns]
    # Asked again (the groups are kept), and for another noun, the answers stay the scan's.
    assert matcher._counts_keyed(nouns) == [f for f in ev.counts if f.key_tokens & nouns]
    assert matcher._counts_keyed({"seats"}) == [f for f in ev.counts if f.key_tokens & {"seats"}]


def test_it_finds_no_count_for_a_noun_no_key_has() -> None:
    ev = Evidence(counts=[_count(3.0, frozenset({"orders", "order"})), _count(2.0, frozenset({"items"}))])
    assert _Matcher(ev, "")._counts_keyed({"flights", "flight"}) == []


_PIECE_WORDS = ["of", "the", "and", "for", "new", "york", "city", "bank", "america", "a", "nyc", "boa", "x"]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.lists(st.sampled_from(_PIECE_WORDS), min_size=1, max_size=10).map(" ".join),
        max_size=25,
    ),
    st.lists(st.text(alphabet="abfnoctyx", min_size=1, max_size=5), min_size=1, max_size=6),
)
def test_it_answers_acronyms_as_the_table_of_every_piece(pieces: list[str], acronyms: list[str]) -> None:
    pieces = [*pieces, " leading space piece"]  # a piece that opens with white space is read whatever
    fresh = Evidence(pieces=pieces, haystack=" | ".join(pieces))
    table = Evidence(pieces=pieces, haystack=" | ".join(pieces)).acronyms
    for acronym in acronyms:
        assert fresh.has_acronym(acronym) == (acronym in table), (pieces, acronym)


def test_it_sorts_the_acronym_pieces_by_first_character_keeping_only_two_to_eight_words() -> None:
    nine = "one two three four five six seven eight nine"
    pieces = ["bank of america", "new york city", "paris", nine, "nyc"]
    pool = _acronym_pool(pieces)
    assert pool == {"b": ["bank of america"], "n": ["new york city"]}
    assert "boa" in _initials("bank of america")
    ev = Evidence(pieces=pieces, haystack=" | ".join(pieces))
    assert ev.has_acronym("boa") and ev.has_acronym("nyc")
    # A one-word piece and a nine-word one give no acronym, as in the full table.
    assert not ev.has_acronym("p") and not ev.has_acronym("otttffsse")


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet="abcSMrsDIncLtdeg.i vNoJ \n", max_size=30))
def test_it_finds_an_abbreviation_before_the_full_stop_from_the_last_characters(text: str) -> None:
    head = text + "."
    tail = _ABBREV.search(head, max(0, len(head) - _ABBREV_SPAN))
    assert bool(tail) == bool(_ABBREV.search(head)), head


def test_it_keeps_abbreviations_in_their_sentence_and_splits_after_a_word() -> None:
    text = "Ask Dr. Smith at Acme Inc. today. Then call Mrs. Jones, e.g. at noon. The end is near."
    assert [text[a:b] for a, b in split_sentences(text)] == [
        "Ask Dr. Smith at Acme Inc. today.",
        "Then call Mrs. Jones, e.g. at noon.",
        "The end is near.",
    ]


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet='.!?\n \t-*1aA"“(', max_size=40))
def test_it_ends_sentences_where_the_three_forms_did(text: str) -> None:
    old = [(m.span(), m.group(0)) for m in _OLD_SENTENCE_END.finditer(text)]
    new = [(m.span(), m.group(0)) for m in _SENTENCE_END.finditer(text)]
    assert new == old, text


def test_it_ends_no_sentence_inside_a_number_or_before_a_lower_case_word() -> None:
    assert [m.group(0) for m in _SENTENCE_END.finditer("It costs 4.50 today. and more")] == []


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(["4", "4.5", "about 4", "1.2k", "3 million", "12", "-3"]),
    st.sampled_from([None, "about", "more", "less", "under", "exact"]),
    st.sampled_from([None, "degC", "km"]),
    st.lists(st.floats(min_value=-5e6, max_value=5e6, allow_nan=False), max_size=20),
)
def test_it_accepts_the_values_accepts_accepts(
    text: str, hedge: str | None, unit: str | None, values: list[float]
) -> None:
    number = float(text.split()[-1].rstrip("kK").replace("million", "")) if text[-1].isdigit() else 1.0
    decimals = len(text.split(".")[1]) if "." in text else 0
    m = Mention("number", 0, len(text), text, value=number, unit=unit, decimals=decimals, hedge=hedge)
    facts = [_count(v, frozenset()) for v in values]
    assert _accepted_by(m, facts) == [f for f in facts if accepts(m, f.value)]


def test_it_accepts_nothing_far_from_the_stated_value() -> None:
    m = Mention("number", 0, 2, "12", value=12.0, decimals=0)
    facts = [_count(13.0, frozenset()), _count(-12.0, frozenset()), _count(12.4, frozenset())]
    assert [f.value for f in _accepted_by(m, facts)] == [-12.0, 12.4]  # absolute values, rounding to 12


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet="-0123456789.٣ aZ\t", max_size=8))
def test_it_reads_a_plain_number_only_from_a_sign_or_a_digit(text: str) -> None:
    # ``_read_string`` asks ``_PLAIN_NUMBER`` only of strings whose first character is a sign or a digit.
    if _PLAIN_NUMBER.fullmatch(text):
        assert text[:1] == "-" or text[:1].isdecimal(), text


def test_it_reads_plain_numbers_and_leaves_words_and_codes() -> None:
    rng = random.Random(20)
    for _ in range(200):
        digits = "".join(rng.choice("0123456789") for _ in range(rng.randrange(1, 6)))
        assert _PLAIN_NUMBER.fullmatch(digits) and _PLAIN_NUMBER.fullmatch("-" + digits + ".5")
    assert not _PLAIN_NUMBER.fullmatch("SKU-123") and not _PLAIN_NUMBER.fullmatch("in stock")


_DATE_TOKENS = [
    "march", "may", "mon", "monday", "sept", "sep", "september", "tuesday", "dec", "sun", "sunny", "mayor",
    "2024", "2024-05-01", "5", "15", "03", "12", "1", "٣", "٢٠٢٤", "st", "th", "of", "the", "on", "-", "/",
    ".", ",", " ", "  ", "\n", "9/15", "12/1/2023", "x", "a1", "_", "May", "March",
]  # fmt: skip


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(_DATE_TOKENS), max_size=14).map("".join))
def test_it_finds_the_dates_the_date_pattern_finds_scanning_every_position(text: str) -> None:
    old = [(m.span(), m.groupdict()) for m in _DATE_PATTERN.finditer(text)]
    assert [(m.span(), m.groupdict()) for m in _date_matches(text)] == old, text


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet="0123456789٣-/ .,stndrhofmaybcejulgpv\n", max_size=30))
def test_it_finds_the_dates_of_any_text_the_date_pattern_finds(text: str) -> None:
    old = [(m.span(), m.groupdict()) for m in _DATE_PATTERN.finditer(text)]
    assert [(m.span(), m.groupdict()) for m in _date_matches(text)] == old, text


def test_it_reads_dates_and_leaves_numbers_and_words_that_are_no_dates() -> None:
    text = "on monday, march 5th, 2024 and 9/15; 2024-05-01 or 3rd of may. the mayor paid 12.50 on sunny 1/2."
    found = [m.group(0) for m in _date_matches(text)]
    assert found == [m.group(0) for m in _DATE_PATTERN.finditer(text)]
    assert "monday, march 5th, 2024" in found and "2024-05-01" in found and "3rd of may" in found
    assert not any("mayor" in f or "12.50" in f or "sunny" in f for f in found)


# The answer-wide patterns rewritten to open with a choice of characters, as they stood before.
_OLD_PATTERNS = {
    "marker": re.compile(r"(?<![\w.,:/$€£-])(\d{1,2})[.)](?=\s|$)"),
    "route": re.compile(r"\b([A-Z]{3})(?:\s+to\s+|\s*(?:→|->|–|—)\s*|\s-\s|-)([A-Z]{3})\b"),
    "routes_labelled": re.compile(
        r"\b[Oo]rigin\b[*_]*\s*:[*_]*[ \t]*(?:[^\n(]{0,40}\()?([A-Z]{3})\b[^\n]*\n"
        r"[ \t]*(?:[-+*•][ \t]*)?[*_]*[Dd]estination\b[*_]*\s*:[*_]*[ \t]*(?:[^\n(]{0,40}\()?([A-Z]{3})\b"
    ),
    "trips_labelled": re.compile(
        r"\b[Oo]rigin\b[*_]*\s*:[*_]*[ \t]*([A-Z]{3})\b[^\n]*\n"
        r"[ \t]*(?:[-+*•][ \t]*)?[*_]*[Dd]estination\b[*_]*\s*:[*_]*[ \t]*([A-Z]{3})\b"
    ),
    "worked": re.compile(
        r"\b(?:still works?|works fine|now works|is still (?:valid|working)|succeeded|worked|"
        r"(?:was|were|has been|have been) successful)\b"
    ),
}
_NEW_PATTERNS = {
    "marker": grounding._MARKER,
    "route": routes._ROUTE,
    "routes_labelled": routes._LABELLED,
    "trips_labelled": trips._LABELLED,
    "worked": turns._WORKED,
}
_PATTERN_TOKENS = [
    "1.", "12)", "3", "a", "x1.", "$4.", " ", "\n", "\t", "- ", "**", "JFK", "SFO", "jfk", " to ", "->", "–",
    "-",
    "Origin", "origin", "Xorigin", ":", "**Origin:** ", "Destination", "destination:", " (", "Miami (MIA)",
    "still works", "still work", "works fine", "now works", "is still valid", "is still working", "succeeded",
    "worked", "was successful", "were successful", "has been successful", "have been successful", "swork",
    "_", "é", "٣",
]  # fmt: skip


@settings(max_examples=1500, deadline=None)
@given(st.sampled_from(sorted(_OLD_PATTERNS)), st.lists(st.sampled_from(_PATTERN_TOKENS), max_size=12))
def test_it_matches_the_answer_patterns_as_they_did_at_every_position(name: str, tokens: list[str]) -> None:
    text = "".join(tokens)
    old = [(m.span(), m.groups()) for m in _OLD_PATTERNS[name].finditer(text)]
    assert [(m.span(), m.groups()) for m in _NEW_PATTERNS[name].finditer(text)] == old, (name, text)
    assert (_NEW_PATTERNS[name].search(text) is None) == (_OLD_PATTERNS[name].search(text) is None)


def test_it_reads_list_markers_routes_and_success_words_and_leaves_the_rest() -> None:
    markers = grounding._MARKER.finditer("1. Paris\n2) Lyon at 3.5 or v2. now")
    assert [m.group(1) for m in markers] == ["1", "2"]
    assert [m.groups() for m in routes._ROUTE.finditer("JFK to SFO, then XJFK to SFO")] == [("JFK", "SFO")]
    assert turns._WORKED.search("The code still works.") and not turns._WORKED.search("It reworked nothing.")


_OLD_MENTION_PATTERNS = {
    "range_start": re.compile(
        r"(?<![\w.:/])(?P<h>1[0-2]|0?[1-9])(?::(?P<m>[0-5]\d))?"
        r"(?=\s?(?:to|until|till|-|–)\s?(?P<eh>1[0-2]|0?[1-9])(?::[0-5]\d)?\s?(?P<ap>[ap]m\b|[ap]\.m\.))",
    ),
    "letters": re.compile(r"[a-z]+"),
    # (as h20j left it: U+2010 and U+2011 are hyphens inside a word)
    "entity": re.compile(
        r"(?:[A-Z][\w'’.&\u2010\u2011-]*|&)"
        r"(?:(?:[ \t]+|[ \t]*&[ \t]*)(?:(?:of|de|la|del|du|von|van|&)\b|[A-Z][\w'’.&\u2010\u2011-]*))*"
    ),
}
_NEW_MENTION_PATTERNS = {
    "range_start": mentions._PATTERNS[3][1],
    "letters": mentions._LETTERS,
    "entity": mentions._ENTITY_RE,
}
_MENTION_TOKENS = [
    "1", "0", "9", "10", "12", "13", "01", "00", ":30", ":5", " to ", "-", "–", " until ", "pm", " pm",
    "a.m.", "am", " ", ".", "/", ":", "x", "Paris", "New", " of ", " the ", "&", " & ", "O'Neil", "St.", "\t",
    "\n", "é", "٣", "_", "ab", "\u2011", "Wi\u2011Fi", "\u2010",
]  # fmt: skip


@settings(max_examples=1500, deadline=None)
@given(
    st.sampled_from(sorted(_OLD_MENTION_PATTERNS)), st.lists(st.sampled_from(_MENTION_TOKENS), max_size=12)
)
def test_it_reads_ranges_letters_and_names_as_the_patterns_did(name: str, tokens: list[str]) -> None:
    text = "".join(tokens)
    old = [(m.span(), m.groupdict()) for m in _OLD_MENTION_PATTERNS[name].finditer(text)]
    new = [(m.span(), m.groupdict()) for m in _NEW_MENTION_PATTERNS[name].finditer(text)]
    assert new == old, (name, text)


def test_it_reads_the_start_of_a_time_range_and_not_a_lone_number() -> None:
    assert mentions._PATTERNS[3][0] == "time"
    found = [m.group("h") for m in mentions._PATTERNS[3][1].finditer("open 9 to 5 pm, 12 people, 10-11 a.m.")]
    assert found == ["9", "10"]
