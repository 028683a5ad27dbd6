"""Places, addresses and what stays readable after redaction, fifth pass (issue 16, helper h18e).

Every example below is invented for these tests; the towns, streets and numbers are made up.
"""

from __future__ import annotations

import pytest

from verification.engine.safety import detect_pii, redact_pii
from verification.engine.safety.pii_names import find_names


def _places(text: str) -> list[str]:
    return [m.value for m in find_names(text) if m.type == "location"]


def _left(text: str, *words: str) -> list[str]:
    """The words still readable after ``redact_pii``."""
    redacted = redact_pii(text).text
    return [word for word in words if word in redacted]


@pytest.mark.parametrize(
    ("text", "town"),
    [
        ("Our warehouse in Brandonport ships daily.", "Brandonport"),
        ("The courier is waiting in Hollisterton.", "Hollisterton"),
        ("We drove to Margaretview last week.", "Margaretview"),
        ("Her cousin moved to Kowalskiland.", "Kowalskiland"),
    ],
)
def test_it_reads_a_town_made_of_a_name_and_a_town_ending(text: str, town: str) -> None:
    assert town in _places(text)


def test_it_leaves_a_surname_with_a_town_ending_to_a_person() -> None:
    # A listed surname is not read by its ending ("thanks to Crawford", "to Ellington").
    assert _places("Send the draft to Ellington.") == []


@pytest.mark.parametrize(
    ("text", "town"),
    [
        ("She lives in South Quentara now.", "South Quentara"),
        ("Our team in West Brelly will call you.", "West Brelly"),
        ("I grew up in East Dorvanport, near the coast.", "East Dorvanport"),
        ("The depot at Lake Ombrine opens at nine.", "Lake Ombrine"),
        ("He flew to New Tasperly on Friday.", "New Tasperly"),
    ],
)
def test_it_reads_a_town_after_a_compass_or_new_or_lake_word(text: str, town: str) -> None:
    assert town in _places(text)
    assert _left(text, town.split()[-1]) == []


def test_it_reads_no_town_in_a_compass_word_before_a_stop_word() -> None:
    assert _places("Open the settings in New Version 3 of the app.") == []


def test_it_reads_a_town_after_a_residence_or_address_label() -> None:
    # An unlisted town after "Residence:"; a listed one after an address's label, where a first name
    # is still the addressee's.
    assert _places("Residence: Kelvarosd") == ["Kelvarosd"]
    assert _places("Billing address: Tampere") == ["Tampere"]
    assert _places("Billing address: Florence Smith") == []


@pytest.mark.parametrize(
    ("text", "street"),
    [
        ("Return the parcel to Brekkemoen 37E, please.", "Brekkemoen 37E"),
        ("Deliver it to Holmvik 9c/2 before noon.", "Holmvik 9c/2"),
        ("Deliver it to 4821 Corvin Viaduct Apt. 212 before noon.", "4821 Corvin Viaduct Apt. 212"),
        ("He lives at 77 Tallow Junction with his sister.", "77 Tallow Junction"),
        ("The venue is Kvarngatan 87, second floor.", "Kvarngatan 87"),
        ("New office: Skovbrynsvej 14", "Skovbrynsvej 14"),
    ],
)
def test_it_reads_a_street_address_with_house_letters_unit_or_street_suffix(text: str, street: str) -> None:
    assert not _left(text, street)
    assert _left(text, *street.split()[:1]) == []


@pytest.mark.parametrize(
    "text",
    [
        "The answer is Windows 11, not 10.",
        "Upgrade to Python 3 first.",
        "Note: Chapter 4 covers it.",
        "The score is Arsenal 2, Chelsea 1.",
        "It is Model 3b that failed.",
        "The answer is Option 2b, then 4.",
        "Time: 10:30 at Gate 5",
    ],
)
def test_it_reads_no_street_in_a_name_and_a_number(text: str) -> None:
    assert [m for m in detect_pii(text) if m.type in ("location", "postal_address")] == []


@pytest.mark.parametrize(
    ("text", "town_line"),
    [
        ("Kind regards,\nTomas Veller\nBirkenstrasse 29\n4711 Quernhausen", "Quernhausen"),
        ("Invoice to:\n295 Grant Hollow Apt. 950\nLake Orrimouth, YT V6M 7E3", "Orrimouth"),
        ("Her postal address is 913 Cooper Ridge\nDalbyhaven, VIC, 4040.", "Dalbyhaven"),
        ("Ship to 68 Rachael Knolls\nBevanmouth\nN0 1RT", "Bevanmouth"),
        ("Return address: Johnystraat 23\n2864\nWeverlo", "Weverlo"),
        ("Send it to Strada Lungă Nr. 44\nSangeorz-Baile, 466158", "Sangeorz-Baile"),
    ],
)
def test_it_redacts_the_town_line_after_a_street_line(text: str, town_line: str) -> None:
    assert _left(text, town_line) == []


def test_it_reads_no_town_line_after_a_line_that_is_no_street() -> None:
    text = "Totals\nOrder 12345\n2000 Units shipped"
    assert [m for m in detect_pii(text) if m.type in ("location", "postal_address")] == []


@pytest.mark.parametrize(
    ("text", "street"),
    [
        ("Kind regards,\nIsak Lundqvel\nBrunnsgatan 4\n21345 Vellorby", "Brunnsgatan"),
        ("Her address is Flat 66 2 Orrin Ridge\nBarrowmouth, NSW, 7500.", "Orrin"),
        ("Invoice to:\nKertvárosi utca 231.\nH-1607 Nagyberekfa", "Kertvárosi"),
    ],
)
def test_it_redacts_a_street_line_that_a_town_line_follows(text: str, street: str) -> None:
    # The street is read by its shape only because its postcode and town line follows: both go.
    assert _left(text, street) == []


@pytest.mark.parametrize(
    ("text", "address"),
    [
        ("The venue is Flat 18, Orla Common, second floor.", "Flat 18, Orla Common"),
        ("He lives at PO Box 23 with his sister.", "PO Box 23"),
        ("Please ship to PO Box 343, Wood Tarrow 9264 by Monday.", "PO Box 343, Wood Tarrow 9264"),
        ("Return it to Drumul Morilor Nr. 32, please.", "Drumul Morilor Nr. 32"),
        (
            "Deliver to Intrarea Zorelor Nr. 767 Bl. 9 Sc. 3 Ap. 41 today.",
            "Intrarea Zorelor Nr. 767 Bl. 9 Sc. 3 Ap. 41",
        ),
        ("Invoice to:\nStrada Nucului, Vadeni, 137549", "Strada Nucului, Vadeni, 137549"),
        ("The venue is Calzada Rojas 496 Interior 340, second floor.", "Calzada Rojas 496 Interior 340"),
    ],
)
def test_it_redacts_a_unit_street_a_po_box_and_romanian_or_mexican_addresses(text: str, address: str) -> None:
    redacted = redact_pii(text).text
    assert not [word for word in address.replace(",", " ").split() if word in redacted.split()]


def test_it_reads_no_box_without_a_post_office() -> None:
    assert [m for m in detect_pii("Put it in Box 3.") if m.type in ("location", "postal_address")] == []


@pytest.mark.parametrize(
    "text",
    [
        "The invoice was addressed to Karl-Heinz Bröring, Lindenallee 7, 39635 Hofbach.",
        "The letter was addressed to Akira Tanabe, 94/472, Nair, Nagpur 193598.",
    ],
)
def test_it_keeps_the_person_before_an_address_after_addressed_to(text: str) -> None:
    name = text.split("addressed to ")[1].split(",")[0]
    assert ("person", name) in [(m.type, m.value) for m in find_names(text)]


@pytest.mark.parametrize(
    ("text", "address"),
    [
        ("Return the keys to Av das Laranjas, 8, please.", "Av das Laranjas, 8"),
        ("He lives at 9373 Powell Island with his sister.", "9373 Powell Island"),
        (
            "Invoice to:\n4557 Jamison Pass, East Robvale, MB L9K1X1",
            "4557 Jamison Pass, East Robvale, MB L9K1X1",
        ),
        ("Regards,\nAnna Brook\n66 Wharenui Cross\nPapakorewa 9529", "66 Wharenui Cross\nPapakorewa 9529"),
        ("Return the keys to Jakobsenhøgda 50, please.", "Jakobsenhøgda 50"),
    ],
)
def test_it_redacts_streets_by_short_street_words_island_cross_and_names_joined_to_a_street_word(
    text: str, address: str
) -> None:
    redacted = redact_pii(text).text
    assert not [word for word in address.replace(",", " ").split() if word in redacted.split()]


@pytest.mark.parametrize(
    ("text", "town"),
    [
        ("The parcel is waiting at the depot in Oleby.", "Oleby"),
        ("Our team in Tapolcahida will call you.", "Tapolcahida"),
        ("The bus left Vestermarkøbing at noon.", "Vestermarkøbing"),
    ],
)
def test_it_reads_nordic_and_hungarian_town_endings(text: str, town: str) -> None:
    assert town in _places(text)


@pytest.mark.parametrize("text", ["I switched to Photoshop 7 today.", "Upgrade to Pythonista 3 now."])
def test_it_reads_no_street_in_a_product_and_its_version(text: str) -> None:
    assert [m for m in detect_pii(text) if m.type in ("location", "postal_address")] == []


@pytest.mark.parametrize(
    ("text", "left_out"),
    [
        ("Please ship to Mühlenweg 95/83, Torgelow 72331.", "Torgelow"),
        ("Mailing address: Beerenweg 762, Augsburg, Sachsen 99467", "Sachsen"),
        ("Customer Tia Roe asked us to ship to 527 Paul Isle Apt. 801, East Stephton, AR 96088.", "96088"),
    ],
)
def test_it_redacts_the_town_and_postcode_after_a_street_the_typed_patterns_found(
    text: str, left_out: str
) -> None:
    # The typed pattern reads the street (and maybe the town); the names pass reads the whole address,
    # and the longer span wins, so nothing of the address stays readable.
    assert _left(text, left_out) == []


def test_it_keeps_the_person_before_a_comma_and_a_house_number() -> None:
    text = "The invoice was addressed to Rika Satomi, 48, Pathak Marg, Firozabad 722033."
    assert ("person", "Rika Satomi") in [(m.type, m.value) for m in detect_pii(text)]


@pytest.mark.parametrize(
    ("text", "address"),
    [
        (
            "Please ship to Unit 25, 6 Arlow Beach Road, Upper Marrow Hill 8941 today.",
            "Unit 25, 6 Arlow Beach Road",
        ),
        ("Please ship to Level 8, 8 Kathleen Alley, Korowera 9573 today.", "Level 8, 8 Kathleen Alley"),
        (
            "Invoice to:\nApt. 962\n5 Matariki Arcade\nWekatahi 7352",
            "Apt. 962\n5 Matariki Arcade\nWekatahi 7352",
        ),
        ("Return address: PO Box 65\nTahirua 9846", "PO Box 65\nTahirua 9846"),
    ],
)
def test_it_redacts_a_unit_before_its_street_and_the_town_after_a_po_box(text: str, address: str) -> None:
    redacted = redact_pii(text).text
    assert not [word for word in address.replace(",", " ").split() if word in redacted.split()]


def test_it_reads_no_unit_street_in_a_count() -> None:
    assert [
        m for m in detect_pii("Go to Unit 4, 5 of them failed.") if m.type in ("location", "postal_address")
    ] == []
