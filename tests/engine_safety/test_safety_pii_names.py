"""Person names and places (issue 16): gazetteers plus cues, no model."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verification.engine.safety import detect_pii, pii_names, redact_pii
from verification.engine.safety.pii_gazetteer_data import CITIES, FIRST_NAMES, REGIONS, SURNAMES
from verification.engine.safety.pii_names import find_names


def _found(text: str) -> list[tuple[str, str]]:
    return [(m.type, m.value) for m in detect_pii(text) if m.type in ("person", "location")]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Dear Ms Okafor, your parcel is held.", [("person", "Okafor")]),
        ("My name is Tobiah Wrenfield and I need a refund.", [("person", "Tobiah Wrenfield")]),
        ("Patient Margaret Oyelaran, DOB 1950-02-11.", [("person", "Margaret Oyelaran")]),
        ("The ticket was opened by Kevin Marsh yesterday.", [("person", "Kevin Marsh")]),
        ("Yesterday Laura Fernsby asked for the invoice.", [("person", "Laura Fernsby")]),
        ("Regards,\nPriya Raman", [("person", "Priya Raman")]),
        ("From: Jens Albrecht <jens@example.org>", [("person", "Jens Albrecht")]),
        ("Contact: Heike Sommerfeld", [("person", "Heike Sommerfeld")]),
        ("Please call Sarah tomorrow.", [("person", "Sarah")]),
        ("Dr. Amara Nwosu signed the form.", [("person", "Amara Nwosu")]),
        ("Hi David  Attached is the invoice.", [("person", "David")]),
    ],
)
def test_it_finds_person_names_from_cues_and_the_name_lists(
    text: str, expected: list[tuple[str, str]]
) -> None:
    assert _found(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "Best Regards, the Support Team",
        "May I ask how Customer Service handles this?",
        "Will you check the Release Notes for April?",
        "The New York Times ran the story.",
        "Grace Period ends on Monday.",
        "Open the Settings page and click Save Changes.",
        "Ship it to 12 Susan Shores, Port Kimberly, MN 13513.",
        "Our Paris line is busy.",
        "Status: in Progress",
        "Error in Reading the file",
        "What does DROP TABLE do in Postgres?",
        "Your card was charged by Athena Diagnostics.",
    ],
)
def test_it_does_not_read_common_capitalised_words_as_names_or_places(text: str) -> None:
    assert [t for t, v in _found(text) if t == "person" or (t == "location" and "Shores" not in v)] == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("She lives in Lisbon now.", [("location", "Lisbon")]),
        ("We moved to New Zealand last year.", [("location", "New Zealand")]),
        ("Our office is based in Rio de Janeiro.", [("location", "Rio de Janeiro")]),
        ("The parcel went to Lyon, France.", [("location", "Lyon, France")]),
        ("Born in Kenya, raised in Texas.", [("location", "Kenya"), ("location", "Texas")]),
    ],
)
def test_it_finds_places_after_a_place_cue(text: str, expected: list[tuple[str, str]]) -> None:
    assert _found(text) == expected


def test_it_reads_a_first_name_after_to_as_a_person_and_a_country_as_a_place() -> None:
    assert _found("Send it to Charlotte Brennan.") == [("person", "Charlotte Brennan")]
    assert _found("Flights to Jordan are full.") == [("location", "Jordan")]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Livraison: 6, rue Hamon, 16804 Sainte-Foy, merci.", "6, rue Hamon, 16804 Sainte-Foy"),
        ("Ship to Calle Mayor 5, 28013 Madrid.", "Calle Mayor 5, 28013 Madrid"),
        ("Address: 28, MG Road, Bengaluru - 560001", "28, MG Road, Bengaluru - 560001"),
        ("Post to 1/56 Andrews Court, Hove, SA 5048 please", "1/56 Andrews Court, Hove, SA 5048"),
        ("Mail to PSC 6044, Box 1163, APO AP 36390.", "PSC 6044, Box 1163, APO AP 36390"),
    ],
)
def test_it_finds_international_address_layouts(text: str, value: str) -> None:
    assert ("postal_address", value) in [(m.type, m.value) for m in detect_pii(text)]


def test_it_does_not_read_an_order_number_and_a_count_as_an_address() -> None:
    assert detect_pii("Order 12, 12345 Items in stock") == []


def test_it_redacts_names_and_places_with_the_rest() -> None:
    text = "Hi, this is Tobiah Wrenfield from Lisbon, Portugal; mail tobiah@example.org."
    redacted = redact_pii(text).text
    assert "Wrenfield" not in redacted and "Lisbon" not in redacted and "tobiah@" not in redacted
    assert "[PERSON_1]" in redacted and "[LOCATION_1]" in redacted


def test_it_gives_a_street_in_an_address_to_the_address() -> None:
    [match] = detect_pii("Deliver to 742 Evergreen Terrace, Springfield, OR 97403.")
    assert match.type == "postal_address"


def test_it_filters_names_by_type_and_confidence() -> None:
    text = "Dear Ms Okafor, see you in Lisbon."
    assert [m.type for m in detect_pii(text, types=["location"])] == ["location"]
    assert [m.type for m in detect_pii(text, types=["email"])] == []
    assert detect_pii(text, min_confidence=0.99) == []


def test_it_ships_name_and_place_lists_of_the_documented_sizes() -> None:
    assert len(FIRST_NAMES.split("|")) > 5_000
    assert len(SURNAMES.split("|")) > 20_000
    assert {"France", "Texas", "Europe"} <= set(REGIONS.split("|"))
    assert {"Lisbon", "Madrid"} <= set(CITIES.split("|"))


_PIECES = [*"AaBbMmJjSsDr .,:-\n'é", "Mr ", "in ", "Dear ", "Anna ", "Lisbon, France", "Smith"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=60))
def test_it_reports_spans_that_hold_their_value_and_never_overlap(pieces: list[str]) -> None:
    text = "".join(pieces)
    found = find_names(text)
    for match in found:
        assert text[match.start : match.end] == match.value
        assert 0.5 <= match.confidence <= 1.0
    for left, right in itertools.pairwise(found):
        assert left.end <= right.start


def test_it_never_reports_overlapping_places_read_from_one_run() -> None:
    # Found by the property above: two places of one run shared "France"; a redactor gets their union.
    text = "Mr Anna Lisbon, France-Lisbon, France"
    found = [(m.type, m.start, m.end) for m in find_names(text)]
    assert found == [("person", 3, 7), ("location", 8, len(text))]


_ASCII_PIECES = [*"AaBbMmJjSsOo .,:-'@\t\n", "Mc", "Dr.", "O'Brien", "Anna-Lena", "x1", "_"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_ASCII_PIECES), max_size=40))
def test_it_tokenises_ascii_text_with_the_ascii_pattern_as_with_the_full_one(pieces: list[str]) -> None:
    # The ASCII pattern is a speed path (issue 16): on ASCII text it must find exactly the same words.
    text = "".join(pieces)
    full = [m.span() for m in pii_names._CAPITALISED.finditer(text)]
    assert [m.span() for m in pii_names._CAPITALISED_ASCII.finditer(text)] == full


def test_it_looks_words_up_in_one_table_that_agrees_with_every_list() -> None:
    # One dict look-up per word replaces one per list (issue 16, speed): each bit must mean its list.
    tables = {
        pii_names._F_FIRST: pii_names._FIRST,
        pii_names._F_SURNAME: pii_names._SURNAME,
        pii_names._F_PLACE: pii_names._PLACE,
        pii_names._F_PREFIX: pii_names._PLACE_PREFIXES,
        pii_names._F_STOP: pii_names._STOP,
        pii_names._F_ORG: pii_names._ORG_WORDS,
        pii_names._F_REGION: pii_names._REGION,
        pii_names._F_AMBIGUOUS: pii_names._AMBIGUOUS_FIRST,
    }
    # A listed word with diacritics is also listed without them (``fold``), for the same lists.
    folded = {
        bit: {pii_names.fold(w) for w in table if not w.isascii() and len(w) > 4}
        for bit, table in tables.items()
    }
    words = set().union(*tables.values(), *folded.values()) | {"Zzyzxq", "Hello", "Mr."}
    for word in words:
        flags = pii_names._FLAGS.get(word, 0)
        for bit, table in tables.items():
            assert bool(flags & bit) == (word in table or word in folded[bit]), (word, bit)


# --- names and towns beyond the US census lists (issue 16, recall) -----------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # First names of other countries, from Faker's locale lists, shaped "first name + capitalised".
        ("Yesterday Radosław Wiśniewski sent the forms.", [("person", "Radosław Wiśniewski")]),
        ("The keys are with Sedat Yıldırım downstairs.", [("person", "Sedat Yıldırım")]),
        ("I met Hiroshi Takahashi at the fair.", [("person", "Hiroshi Takahashi")]),
        # A question's auxiliary before its subject is a cue for one listed first name.
        ("Can Ksawery sign the lease today?", [("person", "Ksawery")]),
        ("Did Thijs get the parcel?", [("person", "Thijs")]),
    ],
)
def test_it_finds_names_of_other_countries(text: str, expected: list[tuple[str, str]]) -> None:
    assert _found(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # A small town from the shipped lists after a travel verb.
        ("The van left Eggenfelden at six.", [("location", "Eggenfelden")]),
        # A town that no list holds, known by its shape: a hyphenated particle, a particle between
        # capitalised words, a town-forming ending.
        ("The letter went to Montreuil-sur-Loir.", [("location", "Montreuil-sur-Loir")]),
        ("She teaches in Vila Nova do Campo.", [("location", "Vila Nova do Campo")]),
        ("We stopped in Quellendorf for lunch.", [("location", "Quellendorf")]),
        # A listed town that goes on after a particle.
        ("Ship it to Ribeira do Campo.", [("location", "Ribeira do Campo")]),
        # A site named by its town.
        ("He works at our Brembilla office.", [("location", "Brembilla")]),
    ],
)
def test_it_finds_small_towns_by_list_cue_and_shape(text: str, expected: list[tuple[str, str]]) -> None:
    assert _found(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "The board meeting moved to Conference Room B.",
        "I work for Hartley, Osborne and Pike now.",
        "The quote came from Vance PLC on Friday.",
        "Our lawyers at Morales, Quinn and Tate sent the bill.",
        "She reads Entertainment Weekly on the train.",
        "Hong Kong Harbour looked calm.",
        "Open the Control Panel, then Network Settings.",
        "Thanks to Crawford for the help.",  # a surname with a town ending, after "to": not a town
    ],
)
def test_it_reads_firms_rooms_and_publications_as_neither_people_nor_places(text: str) -> None:
    found = _found(text)
    assert all(t != "location" for t, _ in found), found
    assert all(t != "person" or v == "Crawford" for t, v in found), found


def test_it_keeps_a_list_of_first_names_as_people_not_a_firm() -> None:
    found = _found("I booked calls with Julian, Virginia, and Michael.")
    assert ("person", "Julian") in found


def test_it_lists_no_first_name_that_is_a_place_unless_the_census_lists_it() -> None:
    # "London Plane", "Camden Market": a Faker first name that is a listed place is left out.
    assert "London" not in pii_names._FIRST
    assert "Ksawery" in pii_names._FIRST and "Eggenfelden" in pii_names._CITY


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # A person cue before a word that is also a town: the person wins.
        ("According to Esna Arslan, the forms are late.", [("person", "Esna Arslan")]),
        # A first name that is also a town, with a person's particle after it: a person.
        ("Send the keys to Bradley van Oosten today.", [("person", "Bradley van Oosten")]),
    ],
)
def test_it_reads_a_person_cue_and_a_persons_particle_before_a_town_word(
    text: str, expected: list[tuple[str, str]]
) -> None:
    assert _found(text) == expected


# --- third pass (issue 16): classes of the presidio-evaluator misses read on its even lines -----------


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Erik had given him the keys.", "Erik"),  # a verb of a person's doing
        ("I'm Sophia's daughter.", "Sophia"),  # a possessive
        ("Gottfrid, can I please speak to your boss?", "Gottfrid"),  # a vocative
        ("Laetitia: What a wife.", "Laetitia"),  # a speaker's label
        ('"I\'m glad," says Watkins.', "Watkins"),  # a verb of saying before
        ("Sometimes people call me Haruaki", "Haruaki"),  # a naming cue takes an unlisted name
        ("My name is Sora", "Sora"),
        ("What's your last name? Pisano", "Pisano"),
    ],
)
def test_it_finds_a_lone_name_in_a_person_shaped_context(text: str, value: str) -> None:
    assert ("person", value) in _found(text)


@pytest.mark.parametrize(
    "text",
    [
        "Berlin is large and cheap.",  # a place
        "Jordan is a country in the Middle East.",  # an ambiguous first name
        "Will is a noun and a verb.",
        "Alexander, Miller and Foster is an investment bank.",  # a firm's last surname
        "Python is a language called Python.",
    ],
)
def test_it_keeps_places_words_and_firms_out_of_the_person_context(text: str) -> None:
    assert [v for t, v in _found(text) if t == "person"] == []


def test_it_finds_the_other_mentions_of_a_name_it_found() -> None:
    text = "Zachary Whitfield called, and later Zachary wrote again."
    assert [v for t, v in _found(text) if t == "person"] == ["Zachary Whitfield", "Zachary"]


def test_it_reads_names_and_places_written_with_or_without_diacritics() -> None:
    assert pii_names.fold("Kędzierzyn-Koźle") == "Kedzierzyn-Kozle"
    assert ("location", "Sao Paulo") in _found("We moved to Sao Paulo last year.")  # listed as São Paulo
    assert ("location", "Reykjavík") in _found("She lives in Reykjavík now.")


def test_it_reads_the_lines_of_an_address_ending_in_a_country_and_postcode() -> None:
    text = "Anita Olofsson\n\n1623 Old Cres\n Suite 795\n Lady Frere\n South Africa 5416\n"
    places = [v for t, v in _found(text) if t == "location"]
    assert places == ["1623 Old Cres", "Suite 795", "Lady Frere", "South Africa 5416"]
    assert ("person", "Frere") not in _found(text)  # "Lady" is no title there


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Meet me at Loftaheden 59, EKSJÖ, 575 98", "Loftaheden 59, EKSJÖ, 575 98"),
        ("It is 269 Pireaus Av, Agios Epiktitos, 9500 now.", "269 Pireaus Av, Agios Epiktitos, 9500"),
        (
            "It is Laan van Nieuw Oosteinde 142, Voorburg, 2274 GK",
            "Laan van Nieuw Oosteinde 142, Voorburg, 2274 GK",
        ),
        ("Sent to 3968 Bay Street, Toronto, M5J 2R8", "3968 Bay Street, Toronto, M5J 2R8"),
        ("His address: 114 ul. Cicha 86, Kędzierzyn-Koźle", "114 ul. Cicha 86, Kędzierzyn-Koźle"),
        ("The bus drops you off at 283 Dalmatinova 70 St.", "283 Dalmatinova 70"),
    ],
)
def test_it_finds_a_street_number_town_and_postcode_of_any_country(text: str, value: str) -> None:
    assert [m.value for m in detect_pii(text) if m.type == "postal_address"] == [value]


@pytest.mark.parametrize(
    "text",
    [
        "Chapter 3 Section 4\n",
        "Buy the iPhone 15 Pro 256",
        "Order 12, Items, 12345",
        "Released 3 Albums 2019\n",
        "Windows 11 ships today.",
    ],
)
def test_it_does_not_read_numbered_things_as_a_street(text: str) -> None:
    assert [m for m in detect_pii(text) if m.type in ("postal_address", "location")] == []


def test_it_reads_a_street_named_after_a_person_as_a_street() -> None:
    text = "Please send it to Rua Diadema 1903, Recife, 52081-540 soon."
    assert [t for t, _ in _found(text)] == []
    assert [m.value for m in detect_pii(text)] == ["Rua Diadema 1903, Recife, 52081-540"]


def test_it_finds_a_town_written_in_capitals_after_a_place_cue() -> None:
    assert ("location", "HUITTINEN") in _found("We moved here from HUITTINEN last year.")
    assert ("location", "MADRID") in _found("She lives in MADRID now.")  # a listed place, any place cue
    assert _found("I wrote it in HTML and JSON from AWS.") == []


def test_it_reads_a_town_and_a_country_closing_a_text_on_their_own_lines() -> None:
    assert _found("Warrane G. Fouquet\n\nKisbarát\nHungary")[-2:] == [
        ("location", "Kisbarát"),
        ("location", "Hungary"),
    ]
    assert _found("Release notes\nLinux\nWindows") == []


def test_it_does_not_take_a_thing_called_by_a_name_for_a_person() -> None:
    assert _found("Our system, called Deep Speech, outperforms the others.") == []
    assert ("person", "Ruth") in _found("He had a caring mother named Ruth.")
