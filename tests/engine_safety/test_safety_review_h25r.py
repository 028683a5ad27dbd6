"""h25r's review of h25g: a word-first-name before the plural noun it qualifies, and a speech tag before a
possessive, name no person; the persons h25g meant stay."""

from __future__ import annotations

import pytest

from verification.engine.safety.pii import detect_pii


def _persons(text: str) -> list[str]:
    return [m.value for m in detect_pii(text) if m.type == "person"]


@pytest.mark.parametrize(
    "text",
    [
        "Pair the suit with Penny loafers.",
        "Thanks to Grace periods, nobody paid late fees.",
        "Decorate the table with Holly berries.",
        "Upgrade the doors to Iris scanners.",
        "Switch the lamp to Daisy chains.",
    ],
)
def test_it_names_no_person_in_a_word_first_name_before_a_plural_noun(text: str) -> None:
    assert _persons(text) == []


def test_it_names_no_speaker_in_a_possessive_after_a_speech_tag() -> None:
    assert _persons("'Done!' said Ubuntu's installer.") == []
    assert _persons("'Done!' said Ubuntu’s installer.") == []


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("I forwarded the thread to Grace this morning.", "Grace"),
        ("Check with Jay before merging.", "Jay"),
        ("Pass the notes to Holly tomorrow.", "Holly"),
        ("Say thanks to Penny always.", "Penny"),
        ("'I'm so jealous!' said Kazu.", "Kazu"),
        ("'... direction,' says Szepesy.", "Szepesy"),
    ],
)
def test_it_still_names_the_persons_h25g_meant(text: str, name: str) -> None:
    assert _persons(text) == [name]
