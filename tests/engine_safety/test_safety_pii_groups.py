"""Names in groups, speaker labels, towns with particles or a saint's name, streets without a number,
international address layouts, cards without a card word, phones after "number" (issue 16, helper h17d).

Every example below is invented for these tests; the names, streets and numbers are made up.
"""

from __future__ import annotations

import pytest

from verification.engine.safety import detect_pii
from verification.engine.safety.pii_names import find_names


def _found(text: str) -> list[tuple[str, str]]:
    return [(m.type, m.value) for m in find_names(text)]


def _detected(text: str) -> list[tuple[str, str]]:
    return [(m.type, m.value) for m in detect_pii(text)]


def _people(text: str) -> list[str]:
    return [value for kind, value in _found(text) if kind == "person"]


def test_it_reads_unlisted_names_in_a_list_after_a_word_for_people() -> None:
    text = "Attendees: Quorvenna Blatsk, Ilvaro Zentrup and Mesk Ondrovy."
    assert _people(text) == ["Quorvenna Blatsk", "Ilvaro Zentrup", "Mesk Ondrovy"]
    assert _people("the 3 founders: Zorbak, Quellin and Trusk. The idea was born") == [
        "Zorbak",
        "Quellin",
        "Trusk",
    ]


@pytest.mark.parametrize(
    "text",
    [
        "Colours: Red, Green and Blue.",
        "Members: Marketing, Engineering and Sales.",
        "Notes: Zorbak, Quellin and Trusk.",  # no word for people before the list
    ],
)
def test_it_does_not_read_a_list_of_things_as_people(text: str) -> None:
    assert _people(text) == []


def test_it_reads_two_unlisted_names_that_open_a_sentence_before_a_verb_of_people() -> None:
    text = "Is it any good? Zorbak and Quellin were precision engineers."
    assert _people(text) == ["Zorbak", "Quellin"]


@pytest.mark.parametrize(
    "text",
    [
        "Marketing and Development were merged last year.",
        "Cats and Dogs are welcome here.",
        "Sales and Engineering have met.",
        "Zorbak and Quellin sold the house.",  # no verb of a person's doing
    ],
)
def test_it_does_not_read_two_nouns_before_a_verb_as_people(text: str) -> None:
    assert _people(text) == []


def test_it_reads_a_speaker_label_listed_as_a_place_when_it_recurs() -> None:
    text = "Regina: Where were you?\nRegina: I waited all day.\nRegina: Fine then."
    assert _people(text).count("Regina") == 3


def test_it_reads_a_speaker_label_met_once_when_it_is_a_listed_first_name() -> None:
    text = "Maria: hi there\nTomasz: hello, how are you?\nMaria: fine"
    assert _people(text) == ["Maria", "Tomasz", "Maria"]


def test_it_reads_no_header_label_as_a_speaker() -> None:
    assert _people("Subject: hello\nFrom: me\nDate: today\nNote: a\nNote: b") == []


@pytest.mark.parametrize(
    ("text", "town"),
    [
        ("He lives in Bad Homburg vor der Höhe now.", "Bad Homburg vor der Höhe"),
        ("They met in Frankfurt am Main.", "Frankfurt am Main"),
    ],
)
def test_it_reads_a_listed_town_on_through_its_particles(text: str, town: str) -> None:
    assert ("location", town) in _found(text)


@pytest.mark.parametrize(
    ("text", "town"),
    [
        ("The truck left St. Felix on time.", "St. Felix"),
        ("The late delivery to Sainte Quorvenne.", "Sainte Quorvenne"),
        ("Can you confirm the booking in Saint Ilvarette-la-Forêt?", "Saint Ilvarette-la-Forêt"),
    ],
)
def test_it_reads_a_town_named_after_a_saint_after_a_place_cue(text: str, town: str) -> None:
    found = _found(text)
    assert ("location", town) in found
    assert not any(kind == "person" for kind, _ in found)


def test_it_reads_no_saint_town_without_a_place_cue() -> None:
    assert not any(kind == "location" for kind, _ in _found("Saint Felix was a bishop."))


def test_it_reads_an_unlisted_relative_after_my() -> None:
    assert _people("I would like to remove my kid Quorvenna from the will.") == ["Quorvenna"]


def test_it_reads_a_listed_first_name_after_is() -> None:
    assert _people("Why is Gennaro so impulsive?") == ["Gennaro"]


@pytest.mark.parametrize(
    ("text", "street"),
    [
        ("The bus station is on Spencer Street", "Spencer Street"),
        ("Stop at the corner of Quellin Lane St. and the square.", "Quellin Lane St."),
        ("The title refers to Zorbak Ave street in the old town.", "Zorbak Ave"),
    ],
)
def test_it_reads_a_street_without_a_house_number(text: str, street: str) -> None:
    assert ("location", street) in _found(text)


@pytest.mark.parametrize(
    "text",
    ["We went to The Street last night.", "Spencer Street is a film.", "He works at Google Way."],
)
def test_it_reads_no_street_without_a_cue_or_of_a_stop_word(text: str) -> None:
    assert not any(kind == "location" for kind, _ in _found(text))


@pytest.mark.parametrize(
    ("text", "address"),
    [
        ("Addressed to B. Gelder, Quellinpad 48, 6165 DZ, Zorbekerk.", "Quellinpad 48, 6165 DZ, Zorbekerk"),
        ("Addressed to B. Gelder, Quellinhof 28, 6028ZB, Zorbekerk.", "Quellinhof 28, 6028ZB, Zorbekerk"),
        ("Addressed to I. Pysz, pl. Zorbaka 48, 46-760 Quellinow.", "pl. Zorbaka 48, 46-760 Quellinow"),
        (
            "Addressed to L. Altera, Viale Zorbi, 798, 41011, Quellino (MO).",
            "Viale Zorbi, 798, 41011, Quellino (MO)",
        ),
        (
            "Addressed to A. Llobet, Camino Zorba 58 Piso 8 , Quellina, 01179.",
            "Camino Zorba 58 Piso 8 , Quellina, 01179",
        ),
    ],
)
def test_it_reads_international_address_layouts(text: str, address: str) -> None:
    assert ("postal_address", address) in _detected(text)


@pytest.mark.parametrize(
    "text",
    [
        "Resigned December 30, 1976 after being elected.",
        "Eugène Joseph, 467, rue Legendre",
        "Order 12, 12345 Items shipped",
    ],
)
def test_it_reads_no_date_or_order_as_an_international_address(text: str) -> None:
    assert not any(kind == "postal_address" for kind, _ in _detected(text))


def test_it_reads_a_jcb_card_across_the_35_range_without_a_card_word() -> None:
    # 3511... is outside JCB's 3528-3589 but inside the 35 range its issuers and generators use.
    assert ("payment_card", "3511728384994911") in _detected("Refund 3511728384994911 for Anne.")


def test_it_reads_a_twelve_digit_maestro_card_only_after_a_card_word() -> None:
    assert ("payment_card", "501852144259") in _detected("Refund to card 501852144259 please.")
    assert ("payment_card", "676124955110") in _detected("Charge declined for 676124955110; fine.")
    assert not any(kind == "payment_card" for kind, _ in _detected("Order 501852144259 shipped."))


def test_it_reads_ten_digits_after_number_as_a_phone_even_in_an_unassigned_area() -> None:
    assert ("phone_nanp", "3739188821") in _detected("My new number is 3739188821, thanks.")
    assert not any(kind == "phone_nanp" for kind, _ in _detected("Order number 3739188821 shipped."))
    # Inside a number written with a trunk prefix, the digits are that number's, not a US one.
    assert not any(kind == "phone_nanp" for kind, _ in _detected("new number +49(0)9566979375."))


def test_it_reads_a_phone_followed_by_a_hyphen_and_a_word() -> None:
    found = _detected("(658)985-9071-Office, 774.889.8825x8330-Fax")
    assert ("phone_nanp", "(658)985-9071") in found
    assert ("phone_nanp", "774.889.8825x8330") in found


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("Please ship it to Zorbakova 666\n328 70 Quellinov by Friday.", "328 70 Quellinov"),
        ("My address is Zorbak utca 71.\nH-3870 Quellinfalva.", "H-3870 Quellinfalva"),
        ("My address is 18 Zorbak Track\nQuellinui 5375", "Quellinui 5375"),
    ],
)
def test_it_reads_the_postcode_and_town_line_after_a_street_address(text: str, line: str) -> None:
    assert ("location", line) in _found(text)


def test_it_reads_no_sentence_after_an_address_as_its_town_line() -> None:
    text = "Address: Zorbakintie 38, Quellin, 520\nDuring 2014, the firm grew."
    assert not any(value.startswith("During") for _, value in _found(text))


def test_it_reads_a_house_number_with_a_capital_letter_in_an_international_address() -> None:
    text = "My address is Zorbakengen 67F, 3731 Quellinvik."
    assert ("postal_address", "Zorbakengen 67F, 3731 Quellinvik") in _detected(text)


@pytest.mark.parametrize(
    ("text", "street"),
    [
        ("Send the invoice to: Zorbakgatan 5", "Zorbakgatan 5"),
        ("Please ship the order to Quellintorget 7 by Friday.", "Quellintorget 7"),
        ("Please ship the order to 89 Zorbak Crescent by Friday.", "89 Zorbak Crescent"),
        ("Her flat on Travessa Quellina Zorbas, 97 is up for rent.", "Travessa Quellina Zorbas, 97"),
    ],
)
def test_it_reads_a_street_address_after_to_with_a_colon_an_ending_or_a_comma(text: str, street: str) -> None:
    assert ("location", street) in _found(text)


def test_it_reads_no_street_in_a_town_and_a_number_of_times() -> None:
    assert not any(kind == "location" for kind, _ in _found("We sent it to Quellin, 3 times by then."))


@pytest.mark.parametrize(
    ("text", "street"),
    [
        ("We used to live on 24 McQuellin Street before.", "24 McQuellin Street"),
        ("Billing address: 46 O'Zorbak Street", "46 O'Zorbak Street"),
        ("We moved to 746 Zorbak Pine last month.", "746 Zorbak Pine"),
    ],
)
def test_it_reads_irish_street_names_and_a_numbered_street_one_moved_to(text: str, street: str) -> None:
    assert ("location", street) in _found(text)


@pytest.mark.parametrize(
    ("text", "town"),
    [
        ("Please ship the order to Zorbakberg by Friday.", "Zorbakberg"),
        ("We drove to Quellinvik.", "Quellinvik"),
        ("They left Zorbakhaven yesterday.", "Zorbakhaven"),
    ],
)
def test_it_reads_an_unlisted_town_by_a_nordic_or_dutch_ending_after_a_place_cue(
    text: str, town: str
) -> None:
    assert ("location", town) in _found(text)


def test_it_reads_a_town_through_the_particles_nad_pod_and_pri() -> None:
    assert ("location", "Lysá nad Labem") in _found("Send it to Lysá nad Labem.")
    assert ("location", "Zorbov pri Quellinu") in _found("He moved to Zorbov pri Quellinu.")
