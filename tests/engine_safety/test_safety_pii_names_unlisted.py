"""Names no list holds and places without a cue (issue 16, fourth pass): read by context and shape.

The names below are made up for these tests ("Tazmirel", "Quorvath"): no gazetteer holds them, so
only the evidence each test names can find them.
"""

from __future__ import annotations

import pytest

from verification.engine.safety import detect_pii, redact_pii
from verification.engine.safety.pii_names import _FLAGS, find_names


def _found(text: str) -> list[tuple[str, str]]:
    return [(m.type, m.value) for m in find_names(text)]


def test_the_made_up_names_are_in_no_list() -> None:
    for word in ("Tazmirel", "Quorvath", "Brelandor", "Vexidra", "Ostrapolje", "Kelvaniq"):
        assert word not in _FLAGS


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Tazmirel is a very kind person.", [("person", "Tazmirel")]),
        ("Tazmirel is very reliable. You can always depend on him.", [("person", "Tazmirel")]),
        ("Tazmirel Quorvath listed his favourite films.", [("person", "Tazmirel Quorvath")]),
        ("Tazmirel Quorvath lives at the end of the road.", [("person", "Tazmirel Quorvath")]),
    ],
)
def test_it_reads_an_unlisted_name_before_a_persons_verb_and_pronoun(
    text: str, expected: list[tuple[str, str]]
) -> None:
    assert _found(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "Kubernetes is fast and scales well.",
        "Terraform has a plan command. It is useful.",
        "There is a sale at the store for his new trip.",
        "What is the answer? He did not say.",
    ],
)
def test_it_does_not_read_a_capitalised_word_before_a_verb_as_a_person_without_a_persons_word(
    text: str,
) -> None:
    assert [m for m in find_names(text) if m.type == "person"] == []


def test_it_finds_the_other_mentions_of_an_unlisted_name_read_by_context() -> None:
    text = "Tazmirel had given Tazmirel his keys."
    assert _found(text) == [("person", "Tazmirel"), ("person", "Tazmirel")]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The prize went to Brelandor Kelvaniqov last year.", "Brelandor Kelvaniqov"),
        ("A song by Vexidra Brelandović was played.", "Vexidra Brelandović"),
        ("Signed Tazmirel K. Quorvath in the margin.", "Tazmirel K. Quorvath"),
    ],
)
def test_it_reads_a_surnames_ending_or_a_middle_initial_as_a_person(text: str, expected: str) -> None:
    assert ("person", expected) in _found(text)


def test_it_reads_an_unlisted_name_before_a_persons_possession() -> None:
    assert _found("As promised, here's Quorvath's address.") == [("person", "Quorvath")]
    assert _found("Kubernetes's scheduler is slow.") == []


def test_it_reads_a_role_written_capitalised_before_a_name_as_its_cue() -> None:
    assert ("person", "Tazmirel Quorvath") in _found("Producer Tazmirel Quorvath said it was fine.")


def test_it_reads_a_repeated_speakers_label_as_a_name_but_not_a_roles() -> None:
    chat = "Quorvath: Remember me?\nBrelandor: No.\nQuorvath: You saved my life!"
    assert [v for t, v in _found(chat) if t == "person"].count("Quorvath") == 2
    roles = "User: hello\nAssistant: hi\nUser: tell me a joke"
    assert _found(roles) == []


def test_it_reads_the_name_line_of_an_address_block() -> None:
    text = "Tazmirel Quorvath\nBrelandor Holdings\n12 Ostrapolje Street\nKelvaniq 4410"
    assert ("person", "Tazmirel Quorvath") in _found(text)
    assert _found("Release Candidate\n2 fixes\n3 features") == []


def test_a_title_wins_over_a_unit_number_after_the_name() -> None:
    assert ("person", "Tazmirel Quorvath") in _found("Miss Tazmirel Quorvath Apt. 461, 54 Main St")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Where: Ostrapolje Country Club.", "Ostrapolje"),
        ("Ostrapolje bridge is falling down.", "Ostrapolje"),
        ("He lives on the north side of Ostrapolje Kelvaniq.", "Ostrapolje Kelvaniq"),
        ("Norway was super fun to visit!", "Norway"),
        ("I'm glad that New Zealand is moving in that direction.", "New Zealand"),
        ("My friend grew up in ΠΑΦΟΣ.", "ΠΑΦΟΣ"),
    ],
)
def test_it_finds_a_place_before_a_landmark_a_street_cue_or_a_verb(text: str, expected: str) -> None:
    assert ("location", expected) in _found(text)


def test_it_keeps_a_country_as_a_modifier_out() -> None:
    assert _found("The Norway government issued a statement.") == []
    assert _found("Where Ostrapolje runs, nothing breaks.") == []


@pytest.mark.parametrize(
    ("text", "value"),
    [("ZIP: 42158", "42158"), ("My zip code is 4620-428", "4620-428"), ("Postcode: BN7 4QG", "BN7 4QG")],
)
def test_it_redacts_a_postcode_after_its_label(text: str, value: str) -> None:
    assert ("location", value) in _found(text)
    assert value not in redact_pii(text).text


def test_a_number_without_a_postcode_label_is_no_place() -> None:
    assert [m for m in detect_pii("Order 42158 shipped.") if m.type == "location"] == []


def test_it_redacts_every_mention_of_a_name_or_place_found_once() -> None:
    text = "She moved to Ostrapolje last year, and we go back to Ostrapolje in May."
    assert _found(text) == [("location", "Ostrapolje"), ("location", "Ostrapolje")]
    text = "Tazmirel Quorvath listed his films; Tazmirel Quorvath (again) won."
    assert "Tazmirel Quorvath" not in redact_pii(text).text
    # A value inside a longer word is not another mention of it.
    assert _found("Tazmirel is a kind person; Tazmirelski is not.") == [("person", "Tazmirel")]
