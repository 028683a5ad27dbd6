"""The name-kind patterns find the same phrases and hosts as their first forms, in time linear in the text.

``_PHRASE`` and ``_HOST`` of ``name_kinds`` are run over every tool result of a run, text written by others.
Their first forms tried a match at every capital (every letter) of a word and scanned to the word's end each
time: a 20,000-character key in a result ("AAAA...", base64, hex) took 18 s. The guarded forms start only
where a word does (or at "http(s)://" inside one); these tests check, over texts drawn from the characters
the patterns turn on, that they find exactly what the first forms found, and count the positions the
guarded forms can start at on a long word (no timing).
"""

from __future__ import annotations

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from verification.engine.runs import name_kinds

# The first forms (session of 2026-11-27), kept here as the reference.
_OLD_PHRASE = re.compile(r"[A-Z][\w'’&-]*(?:[ \t]+(?:(?:of|and|&|for|the|de|du|la)[ \t]+)*[A-Z][\w'’&-]*)+")
_OLD_HOST = re.compile(r"(?i)(?:https?://)?(?:www\.)?([a-z0-9-]+(?:\.[a-z0-9-]+)+)")

_PIECES = [
    "A", "B", "a", "b", "1", "_", "-", "'", "’", "&", " ", "\t", "\n", ".", ":", "/", "of", "and", "the",
    "la", "É", "é", "ſ", "K", "http", "https", "://", "www", "www.", "x", "Customer Service", "Act",
    "fedex.com", "é.com", "ÀB",
]  # fmt: skip
_texts = st.lists(st.sampled_from(_PIECES), max_size=40).map("".join)


def _phrases(text: str) -> list[tuple[tuple[int, int], str]]:
    return [(m.span(1), m.group(1)) for m in name_kinds._PHRASE.finditer(text)]


def _hosts(text: str) -> list[tuple[tuple[int, int], str]]:
    return [(m.span(), m.group(1)) for m in name_kinds._HOST.finditer(text)]


@settings(max_examples=600, deadline=None)
@given(_texts)
@example("aB C")
@example("xAbC of the Dd")
@example("ÉA B")
def test_phrase_matches_the_first_form(text: str) -> None:
    assert _phrases(text) == [(m.span(), m.group(0)) for m in _OLD_PHRASE.finditer(text)]


@settings(max_examples=600, deadline=None)
@given(_texts)
@example("xhttps://a.b")
@example("xhttp://www.a.b")
@example("xwww.a.b")
@example("httphttps://a.b c.d")
@example("ſ.k")
def test_host_matches_the_first_form(text: str) -> None:
    assert _hosts(text) == [(m.span(), m.group(1)) for m in _OLD_HOST.finditer(text)]


# The guards the patterns start with: a match can start only where its guard matches.
_PHRASE_GUARD = re.compile(r"(?<![\w'’&-])")
_HOST_GUARD = re.compile(r"(?i)(?:(?<![a-z0-9-])|(?=https?://))")


def _starts(guard: re.Pattern[str], text: str) -> int:
    return sum(1 for i in range(len(text) + 1) if guard.match(text, i))


def test_the_guards_are_the_patterns_own() -> None:
    assert name_kinds._PHRASE.pattern.startswith(_PHRASE_GUARD.pattern)
    assert name_kinds._HOST.pattern.startswith(_HOST_GUARD.pattern)


def test_a_long_word_has_one_start() -> None:
    for word in ("A" * 5000, "A1" * 2500, "a-" * 2500, "Ab" * 2500):
        assert _starts(_HOST_GUARD, word) == 1
        assert _starts(_PHRASE_GUARD, word) == 1
        assert _phrases(word) == [] and _hosts(word) == []
