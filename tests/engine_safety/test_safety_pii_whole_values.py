"""Addresses written as columns, names and towns with cues the rules lacked, and places redacted whole
(issue 16, helper h22f).

Every example below is invented for these tests; the names, streets and towns are made up or common.
"""

from __future__ import annotations

import itertools

import pytest

from verification.engine.safety import detect_pii, redact_pii
from verification.engine.safety.pii_names import find_names, whole_place


def _found(text: str, kind: str) -> list[str]:
    return [m.value for m in find_names(text) if m.type == kind]


def _readable(text: str, value: str) -> bool:
    return value in redact_pii(text).text


# --- an address written as a column --------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "values"),
    [
        (
            "Billing address: Olga Berg\n    22 Main Street Suite 395\n   Springfield\n    IL\n    62704\n",
            ["Springfield", "IL", "62704"],
        ),
        (
            "Ship to:\n   41 Tarn Rise 18 Apt. 7\n   Kerrowby\n    KB\n    30412\n",
            ["41 Tarn Rise 18 Apt. 7", "Kerrowby", "KB", "30412"],
        ),
        ("Invoice to:\n12 Gabriel Lane\n   ALDENBY\n    \n    WR6 4ZJ", ["ALDENBY", "WR6 4ZJ"]),
        ("Deliver to:\n7 Brook Lane\nVeltrup\nKR\n285 47", ["Veltrup", "KR", "285 47"]),
    ],
)
def test_it_redacts_the_town_region_and_postcode_lines_of_an_address_column(
    text: str, values: list[str]
) -> None:
    for value in values:
        assert not _readable(text, value), value


@pytest.mark.parametrize(
    "text",
    [
        "Results\nBuild 42 passed\nTotal\n12345",
        "Version 3.2\nReleased\n2014",
        "Build 42\nStatus\nOK",
        "Order 5521 shipped\nTracking\nPending",
    ],
)
def test_it_leaves_short_lines_under_a_number_that_are_no_address(text: str) -> None:
    assert [m for m in detect_pii(text) if m.type in ("location", "postal_address")] == []


def test_it_reads_the_name_line_of_a_quoted_mail_that_opens_with_an_empty_quoted_line() -> None:
    text = "> \n> Ilvana Morrek\n> Tarn Holdings\n> 12 Main Street\n> Springfield"
    assert "Ilvana Morrek" in _found(text, "person")


def test_it_reads_the_addressee_on_an_address_label_line() -> None:
    text = "Billing address: Kauan Limberg\n    194 Tarn Rise 65 Apt. 889\n   Salto\n    SA\n    50000\n"
    assert _found(text, "person") == ["Kauan Limberg"]
    assert _found("Email address: Support Team\n12 tickets open", "person") == []


# --- names with cues the rules lacked -------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("She named him Kristine", "Kristine"),
        ("They called her Ivo.", "Ivo"),
        ("Follow up with Nermina Portak in a couple of months.", "Nermina Portak"),
        ("I want to add Aleandro Mazzetti as a beneficiary to my account", "Aleandro Mazzetti"),
        ("we need to add Varsany Cseko as guardian", "Varsany Cseko"),
        ('Kauan Ribeller, the Therapist, sports, said: "I am glad"', "Kauan Ribeller"),
        ("detained top-flight tennis player Macaire Hernadez over visa disputes", "Macaire Hernadez"),
        ("It was a done thing between him and Jozza's kid; and everybody knew.", "Jozza"),
    ],
)
def test_it_reads_a_name_after_a_naming_verb_role_or_follow_up_and_before_a_role_on_an_account(
    text: str, name: str
) -> None:
    assert name in _found(text, "person")


@pytest.mark.parametrize(
    "text",
    [
        "I called him Friday.",
        "I told him Monday works.",
        "Professional writer Winner of the Nobel Peace Prize",
        "Follow up with Google Cloud support next week.",
        "Check with Legal before you sign.",
    ],
)
def test_it_reads_no_name_in_look_alikes_of_those_cues(text: str) -> None:
    assert _found(text, "person") == []


# --- places -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("I'm Anna Berg, originally from BODØ, and I'm 74.", "BODØ"),
        ("Where: BODØ Country Club.", "BODØ"),
        ("My address is Virolahti.", "Virolahti"),
        ("Billing address: Olanesby", "Olanesby"),
        ("The bus station is on Cheriton Dr", "Cheriton Dr"),
        ("The bus station is on Uitsig St", "Uitsig St"),
        ("The bus station is on Sale-Heyfield Road", "Sale-Heyfield Road"),
        ("the economy of the band's home city Montehermoso: Jensen Group", "Montehermoso"),
        ("She went back to her home town Tarnby last year.", "Tarnby"),
    ],
)
def test_it_reads_towns_and_streets_with_the_cues_and_shapes_the_rules_lacked(text: str, place: str) -> None:
    assert place in _found(text, "location")


@pytest.mark.parametrize(
    "text",
    [
        "Her email address is Gmail based.",
        "Your IP address: Localhost",
        "I met Dr Smith on Monday",
        "Visit Francis St Clair at home",
    ],
)
def test_it_reads_no_place_in_other_addresses_or_titles(text: str) -> None:
    assert _found(text, "location") == []


@pytest.mark.parametrize(
    ("text", "address"),
    [
        ("I'll meet you at Veres Palne u. 8., Tiszavar, 5358 today.", "Veres Palne u. 8., Tiszavar, 5358"),
        ("Here's her address:\n\nul. Kwietna 135, Gdańsk, 80-376", "ul. Kwietna 135, Gdańsk, 80-376"),
        (
            "I lived in 69 boulevard Aristide Briand, LE CREUSOT, 71200.",
            "69 boulevard Aristide Briand, LE CREUSOT, 71200",
        ),
    ],
)
def test_it_reads_a_street_with_an_abbreviation_or_after_a_label_and_a_blank_line(
    text: str, address: str
) -> None:
    assert not _readable(text, address)
    assert any(address in m.value for m in detect_pii(text))


# --- a place redacted whole -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "left"),
    [
        ("Return address: Rua Ricardo Carvalho, 41, 7937-904 Alcácer do Sal", "do Sal"),
        ("Invoice to:\nPísnická 2, 647 03 Klobouky u Brna", "u Brna"),
        ("Return address: boulevard Beurret 46, 8904 Chevrolet-des-Bois", "boulevard"),
        ("Her postal address is boulevard de Masseron 104, 7625 Francillon.", "boulevard de"),
        ("Please ship to Regentova cesta 8, 8362 Ljutomer by Monday.", "Ljutomer"),
        ("Kind regards,\nPoppy McIsaac\n9 Larsen Road, Tangiwaka 5565", "Tangiwaka"),
    ],
)
def test_it_redacts_the_whole_place_not_a_part_of_it(text: str, left: str) -> None:
    assert left not in redact_pii(text).text


@pytest.mark.parametrize(
    ("text", "span"),
    [
        ("We meet in Paris on Monday", (11, 16)),
        ("Meet at 5 Main Street, 2024 was a good year", (8, 21)),
    ],
)
def test_it_grows_no_place_over_a_day_or_a_year(text: str, span: tuple[int, int]) -> None:
    assert whole_place(text, *span) == span


def test_it_keeps_grown_places_apart_from_the_matches_beside_them() -> None:
    text = "Send it to Klobouky u Brna, call 415-555-0132 or mail ana@example.org"
    matches = detect_pii(text)
    assert all(a.end <= b.start for a, b in itertools.pairwise(matches))


@pytest.mark.parametrize(
    ("text", "street"),
    [
        ("Kind regards,\nKatica Milinov\nBijenička 906\n65234 Pakrac", "Bijenička 906"),
        ("Kind regards,\nVit Musil\nV Nížinách 61\n682 64 Vejprty", "V Nížinách 61"),
    ],
)
def test_it_reads_a_name_and_number_above_a_postcode_and_town_line_as_a_street(
    text: str, street: str
) -> None:
    assert street in _found(text, "location")


@pytest.mark.parametrize(
    "text",
    ["Build 12\n12345 Tests passed", "Build 12\n12345 Tests", "Step 3\n2048 Tokens", "Chapter 4\n1500 Words"],
)
def test_it_reads_no_street_above_a_number_and_a_word(text: str) -> None:
    assert _found(text, "location") == []
