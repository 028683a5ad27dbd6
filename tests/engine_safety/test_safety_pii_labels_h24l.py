"""The phone label words after a value are read in the lower-cased text (h24l): the same results.

``pii._collect_after_context`` looked for ``PiiType.label_after`` (h24f) with its case-insensitive regex
over the text; it now runs one flat, case-sensitive alternation of the same words over the lower-cased
text wherever ``detect_pii`` passes it (as the context words, ``_context_words``), and reads a word's
``weak`` group from the word.  These tests compare the labels found and the values accepted with the
first form (``pii_reference.candidates``), on corpus lines and on Hypothesis texts made of label words in
every case, digits, separators, and the characters whose case folding is not one for one.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.engine_safety.pii_reference import candidates
from tests.engine_safety.safety_support import corpus_texts_cached
from verification.engine.safety.fastpath import lowered_matches, lowered_text
from verification.engine.safety.pii import _LOWERED_LABELS, _collect_after_context, detect_pii
from verification.engine.safety.pii_types import _PHONE_LABEL_AFTER, PII_TYPES

_LABELLED = tuple(kind for kind in PII_TYPES if kind.label_after is not None)
_WORDS = (
    "mobile", "mob", "cell", "cellphone", "fax", "tel", "telephone", "phone", "whatsapp", "landline",
    "office", "work", "home", "main", "direct", "desk", "Office", "HOME", "Mobile", "FAX", "DesK",
    "homework", "mobiles", "cellar", "telex", "workday", "call", "number", "order", "sku",
)  # fmt: skip
_PIECES = (
    *_WORDS, " ", "  ", "\t", "\n", "(", ")", "-", "\u2013", ",", ".", ":", "_", "+",
    "0467029574", "5835929779", "555 234 5678", "01227 323236", "(020) 7946 0958", "212-555-0147",
    "\u212a", "\u017f", "\u0131", "\u0130", "\u00e9", "\u03a3", "x",
)  # fmt: skip
_TEXTS = st.lists(st.sampled_from(_PIECES), max_size=24).map("".join)


def _labels_old(text: str) -> list[tuple[int, int, bool]]:
    label = _LABELLED[0].label_after
    assert label is not None
    return [(m.start(), m.end(), m.group("weak") is not None) for m in label.finditer(text)]


def _labels_new(text: str) -> list[tuple[int, int, bool]]:
    assert _LABELLED[0].label_after is not None
    compiled, boundary, weak = _LOWERED_LABELS[id(_LABELLED[0].label_after)]
    words = lowered_matches(compiled, boundary, lowered_text(text))
    return [(m.start(), m.end(), m.group() in weak) for m in words]


def _folds(text: str, lowered: str) -> bool:
    """``detect_pii``'s condition for reading context words in the lowered text."""
    return text.isascii() or (len(lowered) == len(text) and "ſ" not in text and "ı" not in text)


def _values_new(text: str) -> list[tuple[str, int, int, float]]:
    lowered = lowered_text(text)
    found: dict[tuple[str, int, int], tuple[int, object]] = {}
    for kind in _LABELLED:
        _collect_after_context(kind, text, lowered if _folds(text, lowered) else None, 0.0, found)  # type: ignore[arg-type]
    return sorted((m.type, m.start, m.end, m.confidence) for _, m in found.values())  # type: ignore[attr-defined]


def _values_old(text: str) -> list[tuple[str, int, int, float]]:
    found: dict[tuple[str, int, int], float] = {}
    for kind in _LABELLED:
        for match in candidates(kind, text):
            key = (match.type, match.start, match.end)
            found[key] = max(found.get(key, 0.0), match.confidence)
    return sorted((*key, confidence) for key, confidence in found.items())


def test_both_phone_types_share_the_label_words_the_lowered_form_was_made_of() -> None:
    assert len(_LABELLED) == 2
    assert all(kind.label_after is _LABELLED[0].label_after for kind in _LABELLED)
    assert _LABELLED[0].label_after is not None and _LABELLED[0].label_after.pattern == _PHONE_LABEL_AFTER
    compiled, boundary, weak = _LOWERED_LABELS[id(_LABELLED[0].label_after)]
    assert boundary and weak == {"office", "work", "home", "main", "direct", "desk"}
    assert compiled.pattern.startswith("(?:mobile|mob|cell|cellphone|fax|")


def test_labels_found_in_the_lowered_text_are_the_regex_labels() -> None:
    # Negatives stay negatives: a label word inside a longer word, or a weak word in running text.
    assert _labels_new("homework cellar telex") == _labels_old("homework cellar telex") == []
    assert _labels_new("555 234 5678 (Home) FAX") == [(14, 18, True), (20, 23, False)]
    for text in corpus_texts_cached():
        lowered = lowered_text(text)
        if _folds(text, lowered) and len(lowered) == len(text):
            assert _labels_new(text) == _labels_old(text), text[:200]


def test_values_before_labels_are_the_first_forms_on_corpus_lines() -> None:
    for text in corpus_texts_cached():
        assert _values_new(text) == _values_old(text), text[:200]


@settings(max_examples=600, deadline=None)
@given(_TEXTS)
def test_labels_and_values_are_the_first_forms_on_any_text(text: str) -> None:
    lowered = lowered_text(text)
    if _folds(text, lowered) and len(lowered) == len(text):
        assert _labels_new(text) == _labels_old(text)
    assert _values_new(text) == _values_old(text)


def test_labelled_phones_are_still_found() -> None:
    found = {(m.type, m.value) for m in detect_pii("Reach me: 0467029574 Fax or 5835929779-Office.")}
    assert ("phone_nanp", "5835929779") in found
    assert not detect_pii("Build 5155633292 home page")
