"""Issue 14, hostile input: ``mentions._name_starts`` (h24c) searched the text once per distinct word with a
month's or weekday's head, so many words sharing one ("mon", "monmon", ...) made it superlinear (50 k
characters: 4.6 s through ``extract_mentions``, review h24r). It searches once per head now. Checked here: the
same starts as the old form on generated text, and such a text through ``extract_mentions``.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from verification.engine.runs import mentions


def _old_name_starts(low: str, words: set[str]) -> list[int]:
    # mentions._name_starts as h24c wrote it (before the review).
    starts: list[int] = []
    size = len(low)
    for word in words:
        if word[:3] not in mentions._NAME_HEADS:
            continue
        at = low.find(word)
        while at >= 0:
            end = at + len(word)
            if (at == 0 or not ("a" <= low[at - 1] <= "z")) and (end == size or not ("a" <= low[end] <= "z")):
                starts.append(at)
            at = low.find(word, at + 1)
    starts.sort()
    return starts


_PIECES = [
    "mon",
    "monday",
    "may",
    "mar",
    "march",
    "jan",
    "x",
    "a",
    " ",
    "-",
    "1",
    "é",
    "thu",
    "thursday",
    "ma",
]


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=40).map("".join))
def test_it_finds_the_starts_the_old_form_found(low: str) -> None:
    words = set(mentions._LETTERS.findall(low))
    assert mentions._name_starts(low, words) == _old_name_starts(low, words)


def test_it_reads_many_words_of_one_head_once() -> None:
    text = " ".join("mon" * k for k in range(1, 400)) + " " + "mon" * 20_000
    low = text.lower()
    starts = mentions._name_starts(low, set(mentions._LETTERS.findall(low)))
    assert len(starts) == 400
    assert mentions.extract_mentions(text) is not None
