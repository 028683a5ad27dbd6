"""Towns struck or visited, towns with their postcode, speakers after what they said, credits, first
names that are towns before what only a body does, adjective-named streets (issue 16, sixteenth round,
helper h25g).

Every example below is invented for these tests: the towns and names are common ones, the numbers made up.
"""

from __future__ import annotations

import time

import pytest

from verification.engine.safety import detect_pii, redact_pii


def _values(text: str, kind: str) -> list[str]:
    return [m.value for m in detect_pii(text) if m.type == kind]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        # What only strikes a place: listed towns and unlisted ones alike.
        ("The storm hit Granada hard last night.", "Granada"),
        ("The storm hit Ruthside hard last night.", "Ruthside"),
        ("An earthquake struck Soltau on Monday.", "Soltau"),
        ("Floods battered Port Ellenview for a week.", "Port Ellenview"),
        ("The hurricane swept through Osterode am Harz.", "Osterode am Harz"),
        # A listed town visited.
        ("We visited Granada last year.", "Granada"),
        ("They toured Heiligenstadt in May.", "Heiligenstadt"),
        # A town with its postcode after a preposition, listed or not.
        ("Looking to support Hudson Inc in Menara 5076 in its mission.", "Menara 5076"),
        ("Looking to support Clay-Pacheco in Linwood 8011 in its mission.", "Linwood 8011"),
        ("The office in Halfway House 1692 is closed.", "Halfway House 1692"),
        # The postcode first: a ZIP+4 or a listed town's name after it.
        ("Please ship it to 11253-0218 Nueva Uganda by Thursday.", "11253-0218 Nueva Uganda"),
        ("The parcel went to 00494-0359 Vieja Senegal by Thursday.", "00494-0359 Vieja Senegal"),
        # Hungarian streets by their type, a given name in lower case as generators write it.
        ("The venue is Dózsa györgy utca 29., second floor.", "Dózsa györgy utca 29"),
        (
            "Kind regards,\nL. Pásztor Piroska\nÉrdi utca 181., H-8599 Tamásiváros",
            "Érdi utca 181., H-8599 Tamásiváros",
        ),
        (
            "Please update the billing address with Tas vezér u. 66., Szálka, 7121 for this card.",
            "Tas vezér u. 66., Szálka, 7121",
        ),
        ("Rákóczi út 22., Szentjakabfa, 8272", "Rákóczi út 22., Szentjakabfa, 8272"),
        # A place in Greek letters after a strong place cue.
        ("My friend lives in ΛΕΥΚΩΣΙΑ", "ΛΕΥΚΩΣΙΑ"),
        ("He lives on the north side of Μεγάλη Άμμος 203.", "Μεγάλη Άμμος 203"),
        # Streets named by an adjective, with their house number.
        ("Return the keys to Vlaška 489, please.", "Vlaška 489"),
        ("Return the keys to Lodná 754, please.", "Lodná 754"),
        ("New office: Poštovní 5", "Poštovní 5"),
    ],
)
def test_it_reads_a_place_struck_visited_coded_or_adjective_named(text: str, value: str) -> None:
    assert value in _values(text, "location")
    assert value not in redact_pii(text).text


@pytest.mark.parametrize(
    ("text", "value"),
    [
        # A speech tag after what was said: the one word after it is the speaker, listed or not.
        ('"I am glad to hear that," says Szepesy.', "Szepesy"),
        ("I'm so jealous! said Kazu to the others.", "Kazu"),
        ('"Is it ready?" asked Kazu.', "Kazu"),
        # Credits name a person even when no list holds the name.
        ("A film directed by John Smith and starring Szakács.", "Szakács"),
        ("The song was sung by Arihiro in 1971.", "Arihiro"),
        # A first name that is an English word, inside a sentence after a word that leads to a person.
        ("I forwarded the whole thread to Grace this morning.", "Grace"),
        ("Can you check with Jay before merging?", "Jay"),
        ("Please send the minutes to Cameron.", "Cameron"),
        # A first name that is also a town's, before what only a body does.
        ("Zachary shouted at the driver.", "Zachary"),
        ("When we told her, Amelia laughed.", "Amelia"),
        ("Then Florence apologised for the delay.", "Florence"),
    ],
)
def test_it_reads_a_speaker_a_credit_or_a_town_named_person(text: str, value: str) -> None:
    assert value in _values(text, "person")
    assert value not in redact_pii(text).text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # "hit" alone comes before keys and people; other subjects than weather are firms' news.
        ("Just hit Save and wait for the upload.", []),
        ("The outage hit Fastly customers for an hour.", []),
        ("A strike hit Acme warehouses.", []),
        ("The storm hit Monday morning.", []),
        # A first name after "visited" stays as it was: nothing is read.
        ("We visited Sydney last year.", []),
        # Numbered things and years after a preposition are no town's postcode.
        ("It runs on Port 8080.", []),
        ("Meet me in Room 1234.", []),
        ("I upgraded from Windows 2000 in 2001.", []),
        ("The bug is in Build 4512.", []),
        ("In Berlin 2000 people marched.", [("location", "Berlin")]),
        # A speech tag before a common noun or a stop word; no speaker without what was said.
        ('"Fine," said the man.', []),
        ('"Stop," said Google.', []),
        # A body's verb after a place that is no first name, or after a region.
        ("Paris laughed it off.", []),
        ("Georgia shouted its anger.", []),
        # Counts of things after a number are no town.
        ("We grew to 2500 Employees.", []),
        ("The plane climbed from 12000 Feet.", []),
        ("We went from 5000 Members to 8000 Members.", []),
        # Words that name tools, settings or a sentence's start stay words.
        ("Welcome to Ruby on Rails.", []),
        ("Set the volume to Max.", []),
        ("To Grace the table we bought flowers.", []),
        ("Report to Dean of students.", []),
        # A Hungarian street type needs its house number.
        ("Az utca szép.", []),
        # A Greek word with no place cue before it.
        ("The word Ελληνικά means Greek.", []),
        ("Written in Ελληνικά by him.", []),
        # An ASCII word before a version number is no adjective-named street.
        ("Upgrade to Python 3, please.", []),
    ],
)
def test_it_leaves_look_alikes_of_the_new_classes_alone(text: str, expected: list[tuple[str, str]]) -> None:
    assert [(m.type, m.value) for m in detect_pii(text) if m.type in ("person", "location")] == expected


def test_it_reads_the_new_patterns_in_linear_time() -> None:
    # Runs of each new pattern's characters: prepositions, capitals, digits, blanks, speech tags.
    cases = [
        "in " * 20_000,
        "in A" * 15_000,
        "in Aa " * 10_000 + "1234",
        "Aa " * 20_000 + "1234.",
        "1" * 50_000,
        " " * 50_000 + "in Menara 5076.",
        ", said " * 8_000,
        "the storm hit " * 4_000 + "Granada",
        "Zachary " * 6_000 + "shouted",
        "to 1234 " * 6_000,
        "Aa aa " * 8_000 + "utca 5",
        "utca " * 10_000 + "5",
        "to Grace " * 5_000,
        "lives in " + "Άμμος " * 8_000,
        "Aa aa u. " * 6_000 + "5",
        # Many values in one text: each new step looks its neighbours up by bisection, not by a scan.
        "lives in ΛΕΥΚΩΣΙΑ. " * 4_000,
        "to support Paul in Linwood 8011 in it. " * 2_000,
        "Kaposvári utca 36, " * 4_000,
    ]
    for text in cases:
        began = time.perf_counter()
        detect_pii(text)
        assert time.perf_counter() - began < 5.0, text[:20]
