"""Names, places and addresses, fifth pass (issue 16, helper h16n).

Every example below is invented for these tests; the names and streets are made up or common.
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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


@pytest.mark.parametrize("country", ["Netherlands", "Czech Republic", "Scotland", "Burma"])
def test_it_knows_the_countries_geonames_writes_otherwise(country: str) -> None:
    # "The Netherlands" without its article, and names GeoNames writes otherwise ("Czechia").
    assert _found(f"Our cousins moved to {country} in the spring.") == [("location", country)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The choir has been touring Uruguay since the spring.", [("location", "Uruguay")]),
        ("A small bakery chain serving Estonia and nothing more.", [("location", "Estonia")]),
        ("Last year she visited Mongolia.", [("location", "Mongolia")]),
    ],
)
def test_it_reads_a_country_after_a_verbs_participle_as_a_place(
    text: str, expected: list[tuple[str, str]]
) -> None:
    assert _found(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "The firm started hiring Mongolia staff.",  # a country used as an adjective
        "They called Georgia twice.",  # a listed first name: a person as often
        "We are proud Estonia fans.",  # no participle before
    ],
)
def test_it_does_not_read_a_country_used_as_an_adjective_or_a_first_name_as_a_place(text: str) -> None:
    assert ("location",) not in [(t,) for t, _ in _found(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a street and its number, then a town and a postcode, after a place cue
        ("The keys are in Lipová 17, Dolní Lhota, 742 55 now.", "Lipová 17, Dolní Lhota, 742 55"),
        # a lower-case street prefix, a town with a slash, a postcode with a dash
        ("Meet me at ul. Kwiatowa 9, Lublin/Czechów, 20-218", "ul. Kwiatowa 9, Lublin/Czechów, 20-218"),
        # a house number before and after the street's name
        ("The van stops at 12 Trg slobode 40 every day.", "12 Trg slobode 40"),
        # an address label and a lower-case street word
        ("Her address: 14 rue des Lilas", "14 rue des Lilas"),
        # a street word written as the name's ending, and a listed town
        ("Drop the parcel to Birkevej 21, Aarhus please.", "Birkevej 21, Aarhus"),
        # a street suffix after the number
        ("Trucks must enter on Quellanda 8 St. before noon.", "Quellanda 8"),
    ],
)
def test_it_reads_an_address_in_running_text_without_a_postcode(text: str, expected: str) -> None:
    assert ("location", expected) in _found(text)


@pytest.mark.parametrize(
    "text",
    [
        "We upgraded to Windows 11 last week.",  # a product and its version
        "See Chapter 3 in Python 3, then Django 4.",  # a chapter, no town, no postcode
        "in 2019 Apple released 5 new phones",  # a year, not a house number
        "Board at Gate 12, Terminal 2.",  # no street, no listed town
        "Trains from London St Pancras  Sun  3 departures",  # a timetable: a day inside
        "The meeting moved to Room 14 on Friday.",  # a room
    ],
)
def test_it_does_not_read_a_name_and_a_number_as_an_address_without_a_streets_evidence(text: str) -> None:
    assert not [v for t, v in _found(text) if t == "location" and any(c.isdigit() for c in v)]


def test_it_reads_the_surname_of_a_full_name_alone_elsewhere() -> None:
    # "Quelbarin" is in no list; after "Nestor Quelbarin" it names the same person.
    text = "The film was directed by Nestor Quelbarin and starring Quelbarin himself."
    assert _found(text) == [("person", "Nestor Quelbarin"), ("person", "Quelbarin")]


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Sorry for the delay, Ingrid, the parcel left on Monday.", "Ingrid"),
        ("Happy birthday, Ingrid!", "Ingrid"),
        ("Are you coming tonight, Halvorsen?", "Halvorsen"),
    ],
)
def test_it_reads_a_listed_name_addressed_after_a_comma(text: str, name: str) -> None:
    assert ("person", name) in _found(text)


def test_it_reads_the_listed_names_of_a_list_after_a_colon() -> None:
    text = "The shop was started by its founders: Lindqvist, Ohlsen and Lindqvist."
    assert [v for t, v in _found(text) if t == "person"] == ["Lindqvist", "Ohlsen", "Lindqvist"]
    text = "They had three kids: Ingrid, Hedda and Tove."
    assert [v for t, v in _found(text) if t == "person"] == ["Ingrid", "Hedda", "Tove"]


def test_it_does_not_read_a_list_of_surnames_alone_as_people_without_a_word_for_people() -> None:
    # "Lindqvist, Ohlsen and Gallagher" is as often a firm's name.
    assert not _found("Our suppliers: Lindqvist, Ohlsen and Gallagher.")


@pytest.mark.parametrize(
    "text",
    [
        "Available sizes: Small, Medium and Large.",  # words no list of names holds
        "We ship to Berlin, Germany.",  # a place after the comma
        "Pick a day, Monday or Friday.",  # a stop word
        "It went well, Thanks!",  # a greeting, not a name
    ],
)
def test_it_does_not_read_a_word_after_a_comma_or_in_a_list_as_a_name_unless_listed(text: str) -> None:
    assert not [v for t, v in _found(text) if t == "person"]


_PIECES = [*"AaSs .,:!\n", "12 ", "at ", "to ", "Tylova ", "ul. ", "Anna ", "Lisbon, France", ", Ingrid!"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=40))
def test_it_reports_addresses_and_addressed_names_in_order_without_overlap(pieces: list[str]) -> None:
    text = "".join(pieces)
    found = find_names(text)
    for match in found:
        assert text[match.start : match.end] == match.value
    for left, right in itertools.pairwise(found):
        assert left.end <= right.start


def test_it_reads_the_town_of_an_address_found_again_alone() -> None:
    text = "Please send the new card to Lipová 17, Dolní Lhota, 742 55. I am in Dolní Lhota until May."
    assert _found(text) == [("location", "Lipová 17, Dolní Lhota, 742 55"), ("location", "Dolní Lhota")]
