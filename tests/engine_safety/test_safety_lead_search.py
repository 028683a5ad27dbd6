"""Searching long texts from the rules' leads (``fastpath.LeadSearch``) finds what ``re`` finds.

Three layers: every position where a rule's lower-cased form (or the "talks about attacks" phrases)
matches starts with one of its leads (``prefilter.leading_literals``); ``LeadSearch.search`` gives
``compiled.search``'s match from any position, rising or falling, and ``lowered_matches`` with it the same
matches as without; and ``detect_injection`` gives the same findings with and without the leads on long
mutated documents.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from contextlib import contextmanager

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.engine_safety.safety_support import corpus_texts_cached
from tests.engine_safety.test_safety_multiscan import _mutated_documents
from verification.engine.safety import detect_injection
from verification.engine.safety.fastpath import LeadSearch, at_word_boundary, lowered_matches
from verification.engine.safety.injection import _META_LOWERED, _TOOL_RESULT_RULES, _USER_RULES
from verification.engine.safety.multiscan import LEAD_FINDERS_ENABLED, lead_finder
from verification.engine.safety.prefilter import leading_literals
from verification.engine.safety.rule_index import ALL_RULES, search_leads

# (name, compiled lower-cased form, whether ``\b`` is checked in Python, leads) for every searcher.
SEARCHED = [
    (rule.rule_id, rule.lowered, rule.lowered_boundary, leads)
    for rule in ALL_RULES
    if rule.lowered is not None and (leads := search_leads(rule.lowered)) is not None
] + [("meta", _META_LOWERED[0], _META_LOWERED[1], search_leads(_META_LOWERED[0]))]


def _page() -> str:
    texts = corpus_texts_cached()
    return "\n".join(texts).lower()


def test_it_has_leads_for_the_rules_that_cost_most_on_long_pages() -> None:
    names = {name for name, *_ in SEARCHED}
    # The bare word "jailbreak" (``manip.jailbreak_word``) is the search that runs on every page naming it.
    assert {"override.ignore_prior", "manip.jailbreak_word", "meta"} <= names
    assert len(SEARCHED) > 40


def test_it_reads_the_strings_every_match_starts_with() -> None:
    assert leading_literals(re.compile(r"\b(?:ignore|forget)\s+rules|pr(?:ior|evious)")) == {
        "ignore",
        "forget",
        "prior",
        "previous",
    }
    assert leading_literals(re.compile(r"(?<=x)abc|(?:de)+f")) == {"abc", "de"}
    for unknown in (r"\w+ignore", r"(?:a)?bc", r"a|", r"[ab]c", r"(?i:ab)c", r"x*y"):
        assert leading_literals(re.compile(unknown)) is None, unknown
    assert leading_literals(re.compile("ab", re.IGNORECASE)) is None


def test_it_finds_a_lead_wherever_a_rule_matches_on_the_corpora() -> None:
    text = _page()
    rng = random.Random(3)
    for name, compiled, _boundary, leads in SEARCHED:
        assert leads is not None
        starts = {m.start() for m in compiled.finditer(text)}
        starts |= {rng.randrange(len(text)) for _ in range(3_000)}
        for start in sorted(starts):
            if compiled.match(text, start) is not None:
                assert any(text.startswith(lead, start) for lead in leads), (name, text[start : start + 40])


def _plain_search(compiled: re.Pattern[str], boundary: bool, text: str, pos: int) -> re.Match[str] | None:
    # What ``LeadSearch.search`` must give: ``search``, and with ``boundary`` the first of its answers
    # from ``pos`` on that starts at a word boundary.
    match = compiled.search(text, pos)
    while boundary and match is not None and not at_word_boundary(text, match.start()):
        match = compiled.search(text, match.start() + 1)
    return match


def _span(match: re.Match[str] | None) -> tuple[int, int] | None:
    return None if match is None else match.span()


def _assert_same_searches(text: str, positions: list[int]) -> None:
    for name, compiled, boundary, leads in SEARCHED:
        assert leads is not None
        # The default first stretch, and one so short that leads straddle the stretches' ends often;
        # each lead found by ``str.find`` and all of them by one hyperscan pass (``LeadFinder``).
        finder = lead_finder(leads)
        assert finder is not None
        # What ``re`` gives, computed once per rule: each plain search of a rule that never matches again
        # reads the rest of a 2 MB page, and the four searchers below are compared with the same answers.
        expected = {pos: _span(_plain_search(compiled, boundary, text, pos)) for pos in positions}
        expected_spans = [m.span() for m in lowered_matches(compiled, boundary, text)]
        for stretch, found_by in ((4096, None), (7, None), (4096, finder), (7, finder)):
            searcher = LeadSearch(compiled, leads, text, boundary, stretch, found_by)
            for pos in positions:
                assert _span(searcher.search(pos)) == expected[pos], (name, pos, stretch, found_by)
            searcher = LeadSearch(compiled, leads, text, boundary, stretch, found_by)
            fast = [m.span() for m in lowered_matches(compiled, boundary, text, 0, None, searcher)]
            assert fast == expected_spans, (name, stretch, found_by)


def test_it_searches_like_re_on_the_corpora() -> None:
    text = _page()
    rng = random.Random(5)
    rising = sorted(rng.randrange(len(text)) for _ in range(60))
    _assert_same_searches(text, [0, *rising, *reversed(rising), len(text)])


@settings(max_examples=200, deadline=None)
@given(_mutated_documents(), st.randoms(use_true_random=False))
def test_it_searches_like_re_on_mutated_texts(text: str, rng: random.Random) -> None:
    lowered = text.lower()
    positions = [rng.randrange(len(lowered) + 1) for _ in range(6)]
    _assert_same_searches(lowered, [0, *positions])


def test_it_finds_every_place_a_lead_starts_in_one_pass() -> None:
    finder = lead_finder(("an", "how", "é"))
    assert finder is not None
    # Characters beyond Latin-1 read as "?": offsets hold, and a lead is found after them.
    text = "how can\u4e00an owl fly? café an"
    expected = sorted(i for lead in ("an", "how", "é") for i in range(len(text)) if text.startswith(lead, i))
    assert finder(text, 0, len(text)) == expected
    # A stretch keeps the leads that start in it, those that run past its end included.
    assert finder(text, 1, 9) == [x for x in expected if 1 <= x < 9]
    assert finder(text, 5, 6) == [5]
    assert lead_finder(("ab\u4e00",)) is None  # not Latin-1: callers use ``str.find``


@contextmanager
def _without_leads() -> Iterator[None]:
    saved = [(rules, rules.leads, rules.meta_leads) for rules in (_USER_RULES, _TOOL_RESULT_RULES)]
    try:
        for rules, _leads, _meta in saved:
            rules.leads, rules.meta_leads = {}, None
        yield
    finally:
        for rules, leads, meta in saved:
            rules.leads, rules.meta_leads = leads, meta


@settings(max_examples=60, deadline=None)
@given(_mutated_documents(), st.sampled_from(["user", "tool_result"]))
def test_it_detects_alike_with_and_without_the_leads(text: str, source: str) -> None:
    text = text * (1 + 2_100 // max(1, len(text)))  # long enough for the leads
    with_leads = detect_injection(text, source="tool_result" if source == "tool_result" else "user")
    with _without_leads():
        without = detect_injection(text, source="tool_result" if source == "tool_result" else "user")
    assert with_leads == without
    LEAD_FINDERS_ENABLED[0] = False  # each lead found by ``str.find``
    try:
        by_find = detect_injection(text, source="tool_result" if source == "tool_result" else "user")
    finally:
        LEAD_FINDERS_ENABLED[0] = True
    assert by_find == with_leads
