"""The speed-ups of the engine give the same answers as the plain forms they replace."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.engine_runs.runs_helpers import make_run
from verification.engine.runs import verify_run
from verification.engine.runs.evidence import Fact, build_evidence
from verification.engine.runs.findings import Finding
from verification.engine.runs.grounding import _DROP_NON_ALNUM, _find_unprefixed
from verification.engine.runs.lexicon import ISO_CURRENCIES, MONTHS, NUMBER_WORDS, STATUS_WORDS, UNIT_WORDS
from verification.engine.runs.mentions import (
    _DIGIT_LED_CODE,
    _HEDGE_BEFORE,
    _HEDGE_WORDS,
    _STATUS_RE,
    Mention,
    _trie,
    _words,
    extract_mentions,
)
from verification.engine.runs.messages import parse_run

WORD_LISTS = [list(UNIT_WORDS), list(MONTHS), list(NUMBER_WORDS), [c.lower() for c in ISO_CURRENCIES]]
TEXTS = [
    "The Eiffel Tower in Paris is about 330 meters (1,083 ft) tall and opened on March 31, 1889.",
    "Flight BA 117 leaves at 8:30 AM from Terminal 5; it is likely delayed, fares rose 4.5% to $1,204.50.",
    "Two of the five transactions are pending. It takes an hour and a half, roughly 90 minutes.",
    "Item SKU-004211 is out of stock in Oslo; €312.99 or 45 USD, 3-star, twelve reviews, 2024-06-01T10:00Z.",
]


def _flat(words: list[str]) -> str:
    return "(?:" + "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True)) + ")"


def test_trie_alternations_match_exactly_what_the_flat_ones_match():
    for words in WORD_LISTS:
        trie, flat = re.compile(_trie(words) + r"\b"), re.compile(_flat(words) + r"\b")
        probes = [*words, *(w + "s" for w in words), *(w[:-1] for w in words if len(w) > 1)]
        for text in [*probes, *TEXTS]:
            low = text.lower()
            assert [m.span() for m in trie.finditer(low)] == [m.span() for m in flat.finditer(low)], text


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from([*UNIT_WORDS, *MONTHS, " ", "1", "-", "s"]), max_size=12))
def test_trie_alternation_of_units_agrees_on_random_text(parts):
    text = "".join(parts)
    words = list(UNIT_WORDS)
    trie, flat = re.compile(_trie(words)), re.compile(_flat(words))
    assert [m.span() for m in trie.finditer(text)] == [m.span() for m in flat.finditer(text)]


# The plain forms of two patterns rewritten to open with a choice of characters.
_STATUS_PLAIN = re.compile(
    r"\b(?:is|was|are|were|be|been|being|now|currently|still|already|marked as|marked|shows as"
    r"|status(?: is)?:?)"
    r"\s+(?:now\s+|currently\s+|still\s+|already\s+|been\s+|being\s+|not\s+)?"
    r"(?P<w>" + _words(list(STATUS_WORDS)) + r")\b"
)
_DIGIT_LED_PLAIN = re.compile(r"\b\d+[A-Z]+\d[A-Z0-9]*\b|\b\d+[A-Z]{4,}\b|\b[A-Z]{1,4}\d[A-Z0-9]*\d[A-Z]+\b")
_COPULA_PARTS = ["is", "was", "be", "been", "being", "marked", "as", "status", "shows", "now", "not", "abe"]


def _found(pattern: re.Pattern[str], text: str) -> list[tuple[tuple[int, int], dict[str, str | None]]]:
    return [(m.span(), m.groupdict()) for m in pattern.finditer(text)]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from([*_COPULA_PARTS, *list(STATUS_WORDS)[:20], " ", "  ", ":", "\n", "x", "-"]),
        max_size=12,
    ).map("".join),
    st.text(alphabet="aZ09.-_ \u00e9\u0663\nAB12xX:/", max_size=16),
)
def test_rewritten_status_and_code_patterns_match_what_the_plain_ones_match(words, chars):
    for text in (words, " ".join(words), chars, *TEXTS):
        assert _found(_STATUS_RE, text) == _found(_STATUS_PLAIN, text), text
        assert _found(_DIGIT_LED_CODE, text) == _found(_DIGIT_LED_PLAIN, text), text
    for text in (
        "It is been shipped.",
        "Status is: delivered; status: pending",
        "marked as shipped",
        "8WMF4C QK7P2M",
    ):
        assert _found(_STATUS_RE, text.lower()) == _found(_STATUS_PLAIN, text.lower())
        assert _found(_DIGIT_LED_CODE, text) == _found(_DIGIT_LED_PLAIN, text)


def test_reading_without_names_keeps_every_value_and_state():
    for text in TEXTS:
        full = [
            (m.kind, m.start, m.end, m.value)
            for m in extract_mentions(text)
            if m.kind not in ("entity", "likelihood", "direction")
        ]
        assert [(m.kind, m.start, m.end, m.value) for m in extract_mentions(text, names=False)] == full


def test_number_with_noun_search_matches_the_regular_expression():
    raw = "take 1 to 2 tablets | 12-tablets pack | bsd-3-clause | café 5 nuits"
    compact = raw.encode("ascii", "ignore").decode("ascii").translate(_DROP_NON_ALNUM)
    assert compact == re.sub(r"[^a-z0-9]", "", raw)
    for needle in ("2tablets", "12tablets", "3clause", "5nuits", "1to"):
        expected = re.search(rf"(?<!\d){re.escape(needle)}", compact) is not None
        assert _find_unprefixed(compact, needle) is expected


def test_records_of_a_finding_follow_its_facts():
    a = Fact("number", 1.0, 1, ("r", 0), (1, ("r", 0)), (1, ("r",)))
    b = Fact("number", 2.0, 1, ("r", 1), (1, ("r", 1)), (1, ("r",)))
    f = Finding(Mention("number", 0, 1, "1", value=1.0), "SUPPORTED", (0, 1), [a])
    assert f.records == {((1, ("r",)), (1, ("r", 0)))}
    f.facts = [b]
    assert f.records == {((1, ("r",)), (1, ("r", 1)))}
    f.facts.append(a)
    assert len(f.records) == 2
    f.facts = []
    assert f.records == frozenset()


def test_record_index_gives_the_numbers_a_scan_gives():
    records = [{"name": f"Item {i}", "price": 10.0 + i, "stock": i} for i in range(30)]
    run = parse_run(make_run("List?", [{"total": 30, "items": records}], "Item 3 costs $13."))
    ev = build_evidence(run)
    for i in (0, 7, 29):
        rec = (run.results[0].message_index, ("items", i))
        scan = [x for x in ev.numbers if x.record == rec or x.list_path is None][:5]
        assert ev.numbers_of(rec, 5) == scan


def test_memoised_evidence_gives_the_same_report_twice():
    msgs = make_run(
        "Prices?",
        [{"items": [{"name": "Kestrel 9", "price": "$12.50", "status": "in_stock", "date": "2024-05-06"}]}],
        "The Kestrel 9 costs $12.50, is in stock and arrives on May 6.",
    )
    first, second = verify_run(msgs).to_dict(), verify_run(msgs).to_dict()
    assert first == second


_HEDGE_PLAIN = re.compile(rf"\b(?P<hedge>{_HEDGE_WORDS})\s+$")


@settings(max_examples=500, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [*_HEDGE_WORDS[3:-1].split("|"), "x", "5", " ", "  ", "\n", "~", "jus", "ove", "r", "-"]
        ),
        max_size=8,
    ).map("".join),
    st.integers(0, 40),
)
def test_hedge_tree_finds_what_the_flat_hedge_pattern_finds(text, end):
    end = min(end, len(text))
    for start in (0, max(0, end - 24)):
        got, plain = _HEDGE_BEFORE.search(text, start, end), _HEDGE_PLAIN.search(text, start, end)
        assert (got and (got.span(), got.group("hedge"))) == (plain and (plain.span(), plain.group("hedge")))
