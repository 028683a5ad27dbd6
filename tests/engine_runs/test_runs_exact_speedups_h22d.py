"""Cheaper look-ups of the run verifier that must answer exactly as the code they replace (issue 14, h22d:
short-run latency, exact savings only). Each test compares the new code with the old one's definition on
made-up inputs (hypothesis properties and seeded random texts), and pins the boundaries of each gate."""

from __future__ import annotations

import random
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from verification.engine.runs import mentions, trips, turns
from verification.engine.runs.clock import ISO_TIMESTAMP
from verification.engine.runs.evidence import normalize_text
from verification.engine.runs.mentions import _DAY_DASH_DAY, _DAY_RANGE, _HEDGE_BEFORE, _HEDGE_MAP, _hedge
from verification.engine.text import lower


def _old_hedge(m: re.Match[str]) -> str | None:
    # ``_hedge`` as it stood: the search over the whole window, for every value.
    text = m.string
    a = m.start()
    found = _HEDGE_BEFORE.search(text, max(0, a - 24), a)
    hedge = _HEDGE_MAP.get(lower(found.group("hedge"))) if found else None
    return None if hedge == "bound" else hedge


_HEDGE_PIECES = [
    "about", "around", "approximately", "roughly", "nearly", "almost", "some", "~", "just under", "just over",
    "under", "over", "more than", "less than", "fewer than", "at least", "at most", "up to", "close to",
    "upwards of", "exactly", "precisely", "x", "is", "at", "just", "than", "bout", "sabout", "Over", "$",
    " ", "  ", "\n", "\t", "\u00a0", ".", ",", "-", "(", "5", "12", "a", "to",
]  # fmt: skip
_VALUE = re.compile(r"\d+")


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from(_HEDGE_PIECES), max_size=14))
def test_it_reads_the_hedge_before_a_value_as_the_search_over_the_window(pieces: list[str]) -> None:
    text = "".join(pieces) + " 42 and " + "".join(reversed(pieces)) + "7"
    for m in _VALUE.finditer(text):
        assert _hedge(m) == _old_hedge(m), (text, m.start())


def test_it_reads_the_hedge_before_a_value_as_the_search_on_random_texts() -> None:
    rng = random.Random(22)
    for _ in range(3000):
        text = "".join(rng.choice(_HEDGE_PIECES) for _ in range(rng.randrange(1, 20))) + "9"
        for m in _VALUE.finditer(text):
            assert _hedge(m) == _old_hedge(m), (text, m.start())


def test_it_finds_a_hedge_only_with_white_space_before_the_value_and_inside_the_window() -> None:
    def first(text: str) -> str | None:
        m = _VALUE.search(text)
        assert m is not None
        return _hedge(m)

    assert first("about 5 km") == "about"
    assert first("about\n\n 5 km") == "about"  # any white space, several characters of it
    assert first("about5 km") is None  # no white space between the word and the value
    assert first("roughabout 5 km") is None  # a word's tail is no hedge word
    assert first("~ 5") is None and first("x~ 5") == "about"  # "~" after a word character only
    # The window is the 24 characters before the value: a hedge word must lie wholly inside it.
    assert first("approximately" + " " * 11 + "5") == "about"
    assert first("approximately" + " " * 12 + "5") is None
    assert mentions._HEDGE_SUFFIXES[0] == "about" and "~" in mentions._HEDGE_SUFFIXES


_OLD_WORD = re.compile(r"[a-z0-9]+(?:[.'’-][a-z0-9]+)*")


def _old_normalize(text: str) -> str:
    # ``normalize_text`` as it stood: only a text of letters and digits between single spaces skipped the
    # regular expression.
    low = text.casefold().replace("_", " ")
    if low.isascii() and low.replace(" ", "").isalnum() and low[0] != " " != low[-1] and "  " not in low:
        return low
    if "\u2010" in low or "\u2011" in low:
        low = low.replace("\u2010", "-").replace("\u2011", "-")
    return " ".join(_OLD_WORD.findall(low))


@settings(max_examples=800, deadline=None)
@given(st.text(alphabet="aZ09 -_.'’\u2011é?:", max_size=16))
def test_it_normalises_a_text_as_the_word_pattern_does(text: str) -> None:
    assert normalize_text(text) == _old_normalize(text), text


def test_it_keeps_a_text_of_hyphenated_words_as_it_is_and_reads_the_others_word_by_word() -> None:
    assert normalize_text("SKU-341736") == "sku-341736"
    assert normalize_text("Item SKU-341736 2024-05-13") == "item sku-341736 2024-05-13"
    # A hyphen that does not join two letters or digits is a separator, as in the word pattern.
    for text, normal in [
        ("-5", "5"),
        ("a-", "a"),
        ("a--b", "a b"),
        ("a -b", "a b"),
        ("a- b", "a b"),
        ("-", ""),
        ("", ""),
        ("a-b ", "a-b"),
        ("a-b  c", "a-b c"),
        ("2024-03-26T06:45:00", "2024-03-26t06 45 00"),
        ("caf\u00e9-bar", "caf bar"),
    ]:
        assert normalize_text(text) == normal == _old_normalize(text), text


_DAY_PIECES = [
    "june", "may", "Mar", "march", " ", "  ", "\n", "1", "3", "26", "31", "0", "9", "2026", "st", "th", "nd",
    "-", "–", "—", "to", "through", "until", "till", "of", ",", ".", "x", ":", "a",
]  # fmt: skip


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from(_DAY_PIECES), max_size=16))
def test_it_looks_for_a_range_of_days_only_where_one_day_runs_to_another(pieces: list[str]) -> None:
    low = "".join(pieces)
    if _DAY_RANGE.search(low) is not None:
        assert _DAY_DASH_DAY.search(low) is not None, low


def test_it_reads_ranges_of_days_in_both_forms_behind_the_gate() -> None:
    for text in ("June 26–27, 2026", "june 26th - 27th", "26 to 28 of june", "3rd until 5th may 2026"):
        low = text.lower()
        assert _DAY_RANGE.search(low) is not None and _DAY_DASH_DAY.search(low) is not None, text
    assert _DAY_DASH_DAY.search("june 26, 2026 - booked") is None
    dates = [m.text for m in mentions.extract_mentions("Open June 26–27, 2026.") if m.kind == "date"]
    assert dates == ["June 26", "27, 2026"]


def test_it_finds_every_range_of_days_behind_the_gate_on_random_ranges() -> None:
    rng = random.Random(22)
    seps = [" ", "", "  ", ". ", "\n", "x"]
    days = ["1", "01", "9", "12", "26", "31", "32", "0", "4"]
    ords = ["", "st", "th", "nd", "rd", "x"]
    dashes = ["-", " - ", "–", "—", " to ", "to", " through ", " until ", " till ", " ", "  -  ", "--"]
    months = ["june", "may", "mar", "sept", "december", "jun", "x"]
    hits = 0
    for _ in range(20000):
        a = rng.choice(days) + rng.choice(ords) + rng.choice(dashes) + rng.choice(days) + rng.choice(ords)
        if rng.random() < 0.5:
            low = rng.choice(months) + rng.choice(seps) + a + rng.choice(["", ", 2026", " 2026", ":"])
        else:
            low = a + rng.choice(seps) + rng.choice(["", "of "]) + rng.choice(months)
        low = rng.choice(["", "on ", "x", "9"]) + low + rng.choice(["", ".", "x", "5"])
        if _DAY_RANGE.search(low) is not None:
            hits += 1
            assert _DAY_DASH_DAY.search(low) is not None, low
    assert hits > 500


# The definitions of the rewritten patterns as they stood.
_OLD_ENTITY_BREAK = re.compile(r"(?<!\b[A-Z])(?<!\bSt)(?<!\bMr)(?<!\bDr)(?<!\bMrs)\.\s+")
_OLD_DONE = re.compile(
    r"\bI(?:'ve|’ve| have)?\s+(?:just\s+|now\s+|also\s+)?(?:scheduled|sent|emailed|messaged|texted|invited|"
    r"notified|shared|forwarded)\b"
)
_OLD_ROUTE = re.compile(
    r"\b(?:(between)\s+([A-Z]{3})\s+and\s+([A-Z]{3})"
    r"|([A-Z]{3})(?:\s+to\s+|\s*(?:→|->)\s*)([A-Z]{3}))\b"
)
_PIECES = [
    "I", "I've", "I’ve", "I have", " ", "  ", "\n", "just ", "sent", "scheduled", "xI", "AI", "_", "é",
    "between", "abetween", "Between", "JFK", "SFO", "JFKX", "and", " to ", "→", "->", " -> ", "-", "B",
    ".", ". ", "St", "Mr", "Dr", "Mrs", "A", "a", "Dr.", "U.S. ", "Mrs. ", "x.", "9", "é.",
]  # fmt: skip


def _same(old: re.Pattern[str], new: re.Pattern[str], text: str) -> None:
    n = len(text)
    for pos, endpos in ((0, n), (1, n), (min(3, n), max(0, n - 2)), (n // 2, n)):
        got = [(m.span(), m.groups(), m.regs) for m in new.finditer(text, pos, endpos)]
        want = [(m.span(), m.groups(), m.regs) for m in old.finditer(text, pos, endpos)]
        assert got == want, (text, pos, endpos)
        a, b = new.search(text, pos, endpos), old.search(text, pos, endpos)
        assert (a and a.regs) == (b and b.regs), (text, pos, endpos)
    assert new.split(text) == old.split(text), text


@settings(max_examples=800, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=16))
def test_it_matches_routes_reports_and_name_breaks_as_the_old_patterns(pieces: list[str]) -> None:
    text = "".join(pieces)
    _same(_OLD_ROUTE, trips._ROUTE, text)
    _same(_OLD_DONE, turns._DONE, text)
    _same(_OLD_ENTITY_BREAK, mentions._ENTITY_BREAK, text)


def test_it_matches_the_old_patterns_on_random_texts() -> None:
    rng = random.Random(22)
    hits = [0, 0, 0]
    for _ in range(4000):
        # Pieces mostly joined by a space, as words are: routes and reports need them.
        text = "".join(
            rng.choice(_PIECES) + rng.choice(("", " ", " ", " ", "\n")) for _ in range(rng.randrange(1, 24))
        )
        for i, (old, new) in enumerate(
            (
                (_OLD_ROUTE, trips._ROUTE),
                (_OLD_DONE, turns._DONE),
                (_OLD_ENTITY_BREAK, mentions._ENTITY_BREAK),
            )
        ):
            _same(old, new, text)
            hits[i] += old.search(text) is not None
    assert min(hits) > 5, hits


def test_it_matches_routes_as_the_old_pattern_on_random_routes() -> None:
    rng = random.Random(14)
    codes = ["JFK", "SFO", "JFKX", "JF", "jfk", "AJFK", "9AB", "LAX", "É", "B"]
    joins = [" to ", " to  ", "\tto\n", "->", " -> ", "→", " → ", " and ", "to", " ", " - "]
    edges = ["", " ", "x", "9", "between ", "Between ", "abetween ", "_", ".", "\n", "é"]
    hits = 0
    for _ in range(6000):
        text = (
            rng.choice(edges) + rng.choice(codes) + rng.choice(joins) + rng.choice(codes) + rng.choice(edges)
            + rng.choice(joins) + rng.choice(codes) + rng.choice(edges)
        )  # fmt: skip
        _same(_OLD_ROUTE, trips._ROUTE, text)
        hits += _OLD_ROUTE.search(text) is not None
    assert hits > 50, hits


def test_it_reads_a_route_and_its_groups_as_before() -> None:
    m = trips._ROUTE.search("Flights between JFK and SFO, then LAX -> SEA.")
    assert (
        m is not None and m.group(1) == "between" and m.span(1) == (8, 15) and m.group(2, 3) == ("JFK", "SFO")
    )
    m = trips._ROUTE.search("then LAX -> SEA.", 1)
    assert m is not None and m.group(1) is None and m.group(4, 5) == ("LAX", "SEA") and m.start(4) == 5
    assert trips._ROUTE.search("XJFK to SFO") is None and trips._ROUTE.search("abetween JFK and SFO") is None
    assert turns._DONE.search("I've just sent it") is not None and turns._DONE.search("AI sent it") is None
    assert mentions._ENTITY_BREAK.split("Dr. Who. Mrs. X. U.S. Army") == ["Dr. Who", "Mrs. X. U.S. Army"]


def test_it_looks_for_timestamps_only_where_a_day_runs_into_an_hour() -> None:
    rng = random.Random(7)
    heads = ["", "x", " at ", "1", ".", "-", ":", "+", "_", "é"]
    days = ["2026-07-12", "2026-7-12", "20260-07-12", "2026-07-123", "2026-07", "26-07-12"]
    seps = ["T", " ", "t", "  ", "", "\n"]
    hours = ["09:10", "9:10", "09:1", "0910", "09:10:00", "09:10:00.5", "09:10:60", "24:00"]
    tails = ["", "Z", "z", "+01:00", "-0130", "+1", ".", "x", ":", " UTC", "5"]
    hits = 0
    for _ in range(20000):
        text = "".join(rng.choice(part) for part in (heads, days, seps, hours, tails))
        if ISO_TIMESTAMP.search(text) is not None:
            hits += 1
            assert mentions._ISO_DAY_TIME.search(text) is not None, text
    assert hits > 50, hits
    found = [(m.kind, m.text) for m in mentions.extract_mentions("due on 2026-07-12 09:10:00+01:00.")]
    assert found == [("date", "2026-07-12"), ("time", "09:10:00+01:00")]


_OLD_NEW_ITEM = re.compile(
    r"\b(?:second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|next|last|another|other|latter)\b",
    re.I,
)
_ITEM_PIECES = [
    "second", "SECOND", "ſecond", "Third", "fourth", "fifth", "sixth", "ſixth", "seventh", "eighth", "ninth",
    "tenth", "next", "Next", "last", "LAST", "latter", "another", "other", "Other", "othe", "lastly", "x",
    "İ", "ı", "é", " ", "\n", "_", "5", ".", "-", "s", "K", "ſ", "a", "n",
]  # fmt: skip


def test_it_opens_the_new_item_pattern_with_every_character_ignorecase_lets_a_first_letter_match() -> None:
    lead = re.compile(r"[AaEeFfLlNnOoSsTt\u017f]")
    first = re.compile("(?i)[aefnlost]")
    every = "".join(map(chr, range(0x110000)))
    assert [m.start() for m in lead.finditer(every)] == [m.start() for m in first.finditer(every)]
    assert {
        w[0] for w in ("second", "third", "fourth", "fifth", "eighth", "next", "last", "another", "other")
    } <= set("aefnlost")


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from(_ITEM_PIECES), max_size=14))
def test_it_finds_a_turn_to_a_new_item_as_the_old_pattern(pieces: list[str]) -> None:
    from verification.engine.runs.records import _NEW_ITEM

    text = " ".join(pieces) + "".join(pieces)
    n = len(text)
    for pos, endpos in ((0, n), (2, n), (1, max(0, n - 3))):
        a, b = _NEW_ITEM.search(text, pos, endpos), _OLD_NEW_ITEM.search(text, pos, endpos)
        assert (a and a.span()) == (b and b.span()), (text, pos, endpos)
        assert [m.span() for m in _NEW_ITEM.finditer(text, pos, endpos)] == [
            m.span() for m in _OLD_NEW_ITEM.finditer(text, pos, endpos)
        ]


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet="ab 09-.\u0660\u0967\uff15\u00b2é", max_size=12))
def test_it_tells_a_string_holds_values_as_the_unicode_digit_search(text: str) -> None:
    from verification.engine.runs import evidence

    old = bool(re.search(r"\d", text))
    assert bool((evidence._ASCII_DIGIT if text.isascii() else evidence._DIGIT).search(text)) == old, text
    if not old:
        assert not evidence._holds_values(text)
    # Arabic-Indic and full-width digits are digits too (the text is then not ASCII).
    assert evidence._holds_values("\u0661\u0662 km") and evidence._holds_values("12 km")


_CODE_PIECES = [
    "8",
    "12",
    "\u0661",
    "W",
    "MF",
    "ABCD",
    "C",
    "x",
    "a",
    " ",
    "-",
    "4C",
    "2FBBAH",
    "_",
    "é",
    "K9",
]


@settings(max_examples=800, deadline=None)
@given(st.lists(st.sampled_from(_CODE_PIECES), max_size=12))
def test_it_reads_digit_led_codes_only_where_a_capital_follows_a_digit(pieces: list[str]) -> None:
    text = "".join(pieces)
    if mentions._DIGIT_LED_CODE.search(text) is not None:
        assert mentions._DIGIT_CAPITAL.search(text) is not None, text


def test_it_finds_every_digit_led_code_behind_the_gate_on_random_texts() -> None:
    rng = random.Random(9)
    hits = 0
    for _ in range(20000):
        text = "".join(rng.choice(_CODE_PIECES) for _ in range(rng.randrange(1, 10)))
        if mentions._DIGIT_LED_CODE.search(text) is not None:
            hits += 1
            assert mentions._DIGIT_CAPITAL.search(text) is not None, text
    assert hits > 1000, hits
    ids = [m.text for m in mentions.extract_mentions("Reservations 8WMF4C and 2FBBAH, item A12B3C.")]
    assert "8WMF4C" in ids and "2FBBAH" in ids
