"""Lone names in lists and tables, thanks before a name, going back to a town, a month that is a town's
name (issue 16, helper h23g).

Every example below is invented for these tests; the names and towns are made up or common.
"""

from __future__ import annotations

import pytest

from verification.engine.safety import detect_pii, redact_pii
from verification.engine.safety.pii_names import _sibling_name, find_names


def _found(text: str, kind: str) -> list[str]:
    return [m.value for m in find_names(text) if m.type == kind]


@pytest.mark.parametrize(
    ("text", "names"),
    [
        # A person beside a person in a list: the item no rule found alone is a name too.
        ("Attendees: April Ross, Tamara Kelley", ["April Ross", "Tamara Kelley"]),
        ("Assigned: Rufino Caldera; reviewer: Mario Alcántar", ["Rufino Caldera", "Mario Alcántar"]),
        ("- Mati Erik\n- Mihkel Rand", ["Mati Erik", "Mihkel Rand"]),
        ("* Mati Erik\n* Mihkel Rand\n* Anna Kowalski", ["Mati Erik", "Mihkel Rand", "Anna Kowalski"]),
        # A table's column: the same cell of the rows around a person.
        (
            "| 1 | Isabela Gallegos | approved |\n| 2 | Margarita Otero | pending |",
            ["Isabela Gallegos", "Margarita Otero"],
        ),
        ("name\tcity\nRufino Caldera\tnone\nMario Alcántar\tnone", ["Rufino Caldera", "Mario Alcántar"]),
    ],
)
def test_it_reads_the_other_items_of_a_list_or_column_that_holds_a_person(
    text: str, names: list[str]
) -> None:
    assert _found(text, "person") == names


@pytest.mark.parametrize(
    "text",
    [
        # Items that are no names beside a person: a team, a town, a product, a role.
        "Cc: John Smith, Marketing Team, Berlin",
        "Owners: John Smith, Santa Clara",
        "- John Smith\n- Release Notes\n- Windows Update",
        "| John Smith | Project Manager |\n| Anna Kowalski | Head of Sales |",
        # One person in a column of grounds, or in a list of landmarks: the others are no people.
        "| 1 | Brother Bear |\n| 2 | Cinderella |\n| 3 | John Smith |\n| 4 | Freedom Bell |",
        "Holy Island, John Smith, Morecambe Bay, Romney Marsh",
    ],
)
def test_it_leaves_items_that_are_no_names_in_a_list_with_a_person(text: str) -> None:
    people = _found(text, "person")
    assert all(p in ("John Smith", "Anna Kowalski") for p in people), people


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("April Ross", True),
        ("Isabela Gallegos", True),
        ("Erika", True),
        ("Marketing Team", False),
        ("Santa Clara", False),
        ("Berlin", False),
        ("Anna Lisbon", False),  # a town's name last
        ("Barlow Park", False),  # a place named after a person
        ("Opponent's Coach", False),
        ("Head of Sales", False),
        ("Release Notes", False),
        ("Morgan", False),  # one word: an ambiguous first name
    ],
)
def test_what_a_list_item_must_look_like(value: str, expected: bool) -> None:
    assert _sibling_name(value) is expected


def test_a_csv_row_s_name_is_no_street_after_its_row_number() -> None:
    # "12 Susan Shores" is a street; "7,James Murphy,active" is a row of a CSV file.
    text = "id,name,status\n7,James Murphy,active\n8,Anne Thompson,closed"
    assert _found(text, "person") == ["James Murphy", "Anne Thompson"]
    assert _found("She lives at 12 Susan Shores.", "person") == []


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Thanks Marta, that fixed it.", "Marta"),
        ("Cheers, Morgan", "Morgan"),
        ("Best, Taylor\n", "Taylor"),
        ("Evening Marta, the deploy is done.", "Marta"),
    ],
)
def test_it_reads_the_one_thanked_or_signed_to_like_the_one_greeted(text: str, name: str) -> None:
    assert _found(text, "person") == [name]


@pytest.mark.parametrize(
    "text", ["Thanks Apple, great phone.", "Best, Regards", "Cheers, Berlin!", "Best Western, Main St"]
)
def test_thanks_before_a_word_that_is_no_first_name_names_nobody(text: str) -> None:
    assert _found(text, "person") == []


@pytest.mark.parametrize(
    ("text", "town"),
    [
        ("I returned to Chatriant after the course.", "Chatriant"),
        ("They came back to Rapinville after the wedding.", "Rapinville"),
        ("We went back to Obermoos in May.", "Obermoos"),
    ],
)
def test_a_town_gone_back_to_is_a_place(text: str, town: str) -> None:
    assert town in _found(text, "location")
    assert town not in redact_pii(text).text


@pytest.mark.parametrize("text", ["We met in March.", "The office moved to Berlin in March.", "Due in March"])
def test_a_month_after_a_bare_preposition_is_no_place(text: str) -> None:
    assert "March" not in _found(text, "location")
    assert all(m.value != "March" for m in detect_pii(text))


def test_a_town_named_like_a_month_after_a_strong_cue_is_still_a_place() -> None:
    assert _found("She lives in March.", "location") == ["March"]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Please ship it to 2990 North Albury by Thursday.", "2990 North Albury"),
        ("The office moved to 0852 East Angel in March.", "0852 East Angel"),
    ],
)
def test_a_postcode_and_a_town_named_with_a_compass_point_after_an_address_cue(text: str, value: str) -> None:
    assert _found(text, "location") == [value]


@pytest.mark.parametrize(
    "text",
    ["Upgrade to 2990 New Features now", "It moved to 12 New York offices", "Send it to 2024 New Year"],
)
def test_no_postcode_and_town_without_a_postcode_s_digits_or_an_address_cue(text: str) -> None:
    assert all(m.evidence != "street_address" for m in find_names(text))


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("He lives on the north side of Dalmatinova 43.", "Dalmatinova 43"),
        ("Ask the driver to stop at the corner of Parmova 109 St.", "Parmova 109"),
        ("Looking to support a charity in Cameri 28062 in its mission", "Cameri 28062"),
        ("The depot in Cookstown L0L 1L0 is closed.", "Cookstown L0L 1L0"),
    ],
)
def test_a_house_number_or_postcode_after_a_place_is_redacted_with_it(text: str, value: str) -> None:
    assert value in [m.value for m in detect_pii(text)]
    assert value not in redact_pii(text).text


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("I have been to London 3 times", "London"),
        ("We hired in Tokyo 5000 employees", "Tokyo"),
        ("Meet in Berlin 2019.", "Berlin"),
    ],
)
def test_a_count_or_a_year_after_a_place_is_left_out(text: str, value: str) -> None:
    assert [m.value for m in detect_pii(text) if m.type == "location"] == [value]


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Ferko Takacs\n\nMontbovon\nSwitzerland", "Ferko Takacs"),
        ("Lena Wirth\nObermoos\nAustria 4020", "Lena Wirth"),
        (
            ">Maika van de Noort\n>Ortiz Ltd\n>97 Rua das Flores 3\n>Loulé\n>Portugal 8100-743",
            "Maika van de Noort",
        ),
    ],
)
def test_the_name_atop_a_short_address_block_ending_in_a_country(text: str, name: str) -> None:
    assert name in _found(text, "person")


@pytest.mark.parametrize(
    "text",
    [
        "Release Notes\n\nBerlin\nGermany",
        "Acme Corp\n\nBerlin\nGermany",
        "Weekly Update\n\nWe shipped the build.\nSales grew in Germany, France and Italy last quarter, "
        "and the team thanks everyone who helped with the launch and the many reviews that came in.\nGermany",
    ],
)
def test_no_name_atop_a_block_whose_first_line_is_no_name(text: str) -> None:
    assert _found(text, "person") == []


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Best regards,\nApril Ross", "April Ross"),
        ("Dear May Chen,", "May Chen"),
        ("Signed by June Carter on Monday", "June Carter"),
    ],
)
def test_a_first_name_that_is_a_month_with_a_surname_after_a_strong_cue(text: str, name: str) -> None:
    assert _found(text, "person") == [name]


@pytest.mark.parametrize("text", ["In April Smith joined the team.", "Due in May Chen said so."])
def test_a_month_before_a_surname_without_a_cue_stays_a_month(text: str) -> None:
    assert all(not p.startswith(("April", "May")) for p in _found(text, "person"))


def test_a_title_is_no_first_name_that_is_a_word() -> None:
    assert _found("Patient Miss Rita Riley, DOB 10/18/1969", "person") == ["Rita Riley"]


@pytest.mark.parametrize(
    ("text", "readable"),
    [
        ("Invoice to:\nAleea Popa\nMatca, 565774", ["Aleea Popa", "Matca", "565774"]),
        ("Please ship to Bulevardul Oprea\nJimbolia, 388250 by Monday.", ["Bulevardul Oprea", "Jimbolia"]),
        (
            "Her postal address is Studio 9\nMelissa Squares\nDianaton\nCM4H 2HP.",
            ["Melissa Squares", "Dianaton"],
        ),
        ("Return address: Aleea Voinea\nValea Caselor, 428188", ["Aleea Voinea"]),
    ],
)
def test_a_street_named_like_a_person_is_a_place_with_its_town_lines(text: str, readable: list[str]) -> None:
    redacted = redact_pii(text).text
    assert all(value not in redacted for value in readable), redacted
    assert all(m.type != "person" for m in detect_pii(text))


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Ship to: Olu Adeyemi\n12 Main Road", "Olu Adeyemi"),
        ("Flat 4 is free. Dear Walton Grove,\nthanks", "Walton Grove"),
        ("Dear Carmen Strada,\nthanks", "Carmen Strada"),
    ],
)
def test_a_person_stays_a_person_away_from_a_street_s_shape(text: str, name: str) -> None:
    assert name in _found(text, "person")
