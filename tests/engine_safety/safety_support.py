"""Shared by the safety suites: the labelled corpora in bench/corpora as plain texts."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from hypothesis import strategies as st

CORPORA = Path(__file__).resolve().parents[2] / "bench" / "corpora"


def corpus_texts() -> list[str]:
    """Every text of every corpus, with the earlier turns of multi-turn rows, in file order."""
    texts: list[str] = []
    for path in sorted(CORPORA.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            texts.append(row["text"])
            texts.extend(row.get("history", []))
    return texts


def _insert_at(text: str, at: int, piece: str) -> str:
    return text[:at] + piece + text[at:]


def _homoglyphs_from(text: str, at: int) -> str:
    # Cyrillic look-alikes for one "o" and one "i" after `at`.
    return text[:at] + text[at:].replace("o", "о", 1).replace("i", "і", 1)


@st.composite
def mutated_lines(draw: st.DrawFn, pieces: Sequence[str], *, max_edits: int, homoglyphs: bool = False) -> str:
    """A corpus line with up to `max_edits` random edits: inserted pieces (or random text), deletions,
    case swaps, and either inserted digits/separators or (with `homoglyphs`) look-alike letters and a
    zero-width space. Shared by the property tests that compare a shortcut with the full scan."""
    text = draw(st.sampled_from(corpus_texts_cached()))
    for _ in range(draw(st.integers(0, max_edits))):
        at = draw(st.integers(0, len(text)))
        kind = draw(st.integers(0, 4 if homoglyphs else 3))
        if kind == 0:
            text = _insert_at(text, at, draw(st.sampled_from(list(pieces)) | st.text(max_size=6)))
        elif kind == 1:
            text = text[:at] + text[at + draw(st.integers(1, 12)) :]
        elif kind == 2:
            end = at + draw(st.integers(1, 30))
            text = text[:at] + text[at:end].swapcase() + text[end:]
        elif not homoglyphs:
            text = _insert_at(text, at, draw(st.sampled_from("0123456789 -.")))
        elif kind == 3:
            text = _homoglyphs_from(text, at)
        else:
            text = _insert_at(text, at, "\u200b")
    return text


_TEXTS: list[str] = []


def corpus_texts_cached() -> list[str]:
    """:func:`corpus_texts`, read once per process."""
    if not _TEXTS:
        _TEXTS.extend(corpus_texts())
    return _TEXTS
