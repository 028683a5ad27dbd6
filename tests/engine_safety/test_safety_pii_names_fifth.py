"""Names, places and addresses, fifth pass (issue 16, helper h16n).

Every example below is invented for these tests; the names and streets are made up or common.
"""

from __future__ import annotations

import pytest

from verification.engine.safety import pii, pii_names
from verification.engine.safety.pii_names import POSTCODE_LABELS, find_names, may_find


def _found(text: str) -> list[tuple[str, str]]:
    return [(m.type, m.value) for m in find_names(text)]


def _label_spellings() -> list[str]:
    """Every label of ``POSTCODE_LABELS`` the way a text may write it."""
    return [form for label in POSTCODE_LABELS for form in (label, label.capitalize(), label.upper())]


@pytest.mark.parametrize("label", _label_spellings())
def test_it_skips_no_text_whose_postcode_label_the_pass_reads(label: str) -> None:
    # The skip of detect_pii and the pass read one list: a label the pass reads is never skipped.
    text = f"the {label}: 40213"
    assert ("location", "40213") in _found(text)
    assert may_find(text, text.lower())
    assert pii.may_name(text, text.lower())
    assert any(m.type == "location" and m.value == "40213" for m in pii.detect_pii(text))


def test_it_skips_the_names_pass_on_one_lower_case_line_without_a_label() -> None:
    text = "the parcel number is 40213"
    assert not may_find(text, text)
    assert not pii.may_name(text, text)


def test_the_postcode_pattern_is_built_from_the_labels() -> None:
    # A label read by the pattern but missing from the list would leave lower-case texts skipped.
    for label in POSTCODE_LABELS:
        assert pii_names._POSTCODE_LABEL.search(f"{label} 40213") is not None
    assert pii_names._POSTCODE_LABEL.search("parcel 40213") is None
