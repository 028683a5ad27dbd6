"""PII coverage a redactor's users expect: URLs, national phone layouts, Taproot addresses, driver's
licences; and the look-alikes that are not PII: documentation samples, placeholders, four-part versions,
product codes shaped like phone numbers."""

from __future__ import annotations

import pytest

from verification.engine.safety import detect_pii, redact_pii
from verification.engine.safety.pii_types import is_sample_value


def _found(text: str) -> list[tuple[str, str]]:
    return [(m.type, m.value) for m in detect_pii(text)]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Docs are at https://docs.acme-corp.io/v2/guide?lang=en#setup today.", "https://docs.acme-corp.io/v2/guide?lang=en#setup"),
        ("see http://intranet.local/wiki/Onboarding.", "http://intranet.local/wiki/Onboarding"),
        ("(mirror: ftp://files.example.net/pub/a.tar.gz)", "ftp://files.example.net/pub/a.tar.gz"),
        ("Visit www.brightwater-dental.com/book, then call.", "www.brightwater-dental.com/book"),
        ("my profile www.linkedin.com/in/mara-lind", "www.linkedin.com/in/mara-lind"),
    ],
)  # fmt: skip
def test_it_finds_plain_urls_without_trailing_punctuation(text: str, value: str) -> None:
    assert ("url", value) in _found(text)


def test_it_reports_a_url_with_credentials_as_a_credential_not_a_plain_url() -> None:
    found = _found("DSN https://admin:hunter22@db.acme.io/prod and https://acme.io/status")
    assert found == [
        ("credential_url", "https://admin:hunter22@db.acme.io/prod"),
        ("url", "https://acme.io/status"),
    ]


def test_it_redacts_the_whole_url_with_the_email_or_phone_inside() -> None:
    text = "Unsubscribe: https://mail.acme.io/u?e=jo.bloggs@gmail.com&p=2125550147 thanks"
    redacted = redact_pii(text).text
    assert redacted == "Unsubscribe: [URL_1] thanks"


def test_it_does_not_read_a_dotted_word_as_a_url() -> None:
    assert _found("the file config.www.yaml and wwww.test are names, not links") == []


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Call me on 020 7946 0958 after six.", "020 7946 0958"),  # London
        ("mobile: 07700 900123", "07700 900123"),  # UK mobile
        ("Tel. 030 12345678 (Berlin office)", "030 12345678"),
        ("Phone 01 42 68 53 00", "01 42 68 53 00"),  # Paris
        ("reach her on 0412 345 678", "0412 345 678"),  # Australian mobile
        ("call (02) 9374 4000 for the Sydney office", "(02) 9374 4000"),
    ],
)
def test_it_finds_phone_numbers_in_national_layouts_after_a_phone_word(text: str, value: str) -> None:
    assert ("phone_national", value) in _found(text)


def test_it_finds_ten_digits_without_separators_after_a_phone_word() -> None:
    assert _found("text me at 4155550132 tonight") == [("phone_nanp", "4155550132")]
    assert _found("call 14155550132") == [("phone_nanp", "14155550132")]


@pytest.mark.parametrize(
    "text",
    [
        "order 4155550132 shipped",  # an order id: no phone word
        "call ref 4155550132",  # a reference after the phone word
        "phone 1055550132",  # area codes never start with 0 or 1
        "number 0000 000 0000 is our invoice",  # no region has that number
        "ticket number 012345678",
    ],
)
def test_it_leaves_numbers_that_are_not_valid_phones(text: str) -> None:
    assert [t for t, _ in _found(text) if t.startswith("phone")] == []


@pytest.mark.parametrize(
    "text",
    [
        "SKU 555-123-4567 is back in stock",
        "Model: 212-555-0147",
        "part no. 800 555 0199",
        "Order #415-555-0132",
    ],
)
def test_it_does_not_read_product_codes_after_sku_or_model_as_phones(text: str) -> None:
    assert _found(text) == []


def test_it_still_finds_a_phone_after_a_product_word_further_back() -> None:
    assert _found("About the SKU, call (212) 555-0147") == [("phone_nanp", "(212) 555-0147")]


@pytest.mark.parametrize(
    "value",
    [
        "bc1p5d7rjq7g6rdk2yhzks9smlaqtedr4dekq08ge8ztwac72sfr9rusxg3297",  # BIP-350's test vector
        "bc1pw508d6qejxtdg4y5r3zarvary0c5xw7kw508d6qejxtdg4y5r3zarvary0c5xw7kt5nd6y",  # 40-byte program
    ],
)
def test_it_finds_taproot_addresses_by_their_bech32m_checksum(value: str) -> None:
    assert _found(f"send to {value} please") == [("btc_address", value)]


def test_it_rejects_a_taproot_address_with_a_wrong_checksum_or_the_wrong_constant() -> None:
    bad = "bc1p5d7rjq7g6rdk2yhzks9smlaqtedr4dekq08ge8ztwac72sfr9rusxg3298"
    assert _found(f"send to {bad}") == []
    # Witness version 0 must use Bech32: with Bech32m's constant it is invalid (BIP-350).
    assert _found("to bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kemeawh") == []


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Driver's license: A1234567 (CA)", "A1234567"),
        ("driver license number S123-456-78-901-0", "S123-456-78-901-0"),
        ("DL# 123 456 789, NY", "123 456 789"),
        ("Driving licence MORGA753116SM9IJ", "MORGA753116SM9IJ"),
        ("DL 99812345", "99812345"),
    ],
)
def test_it_finds_drivers_licences_after_a_licence_word(text: str, value: str) -> None:
    assert ("drivers_license", value) in _found(text)


def test_it_needs_a_licence_word_for_a_licence_number() -> None:
    assert _found("ticket A1234567 closed") == []
    assert _found("MIT license, version 2") == []


@pytest.mark.parametrize(
    "text",
    [
        "export AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE",
        "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "STRIPE_KEY=sk_live_xxxxxxxxxxxxxxxxxxxxxxxx",
        "token ghp_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX",
        "api_key = your-api-key-goes-here-please",
        "OPENAI_API_KEY=sk-proj-0123456789abcdefghijklmnopqrstuvwxyz",
    ],
)
def test_it_recognises_documentation_samples_and_placeholders(text: str) -> None:
    assert _found(text) == []


def test_it_still_finds_real_looking_keys() -> None:
    assert _found("key AKIAZ7Q3LPXW4MNB2RTY") == [("aws_access_key", "AKIAZ7Q3LPXW4MNB2RTY")]
    assert _found("sk_live_4eC39HqLyjWDarjtT1zdp7dc") == [("stripe_key", "sk_live_4eC39HqLyjWDarjtT1zdp7dc")]
    assert not is_sample_value("q8Zr2LmX9vKp4TnW7yHs")


@pytest.mark.parametrize(
    "text",
    [
        "upgraded to 4.2.1.0 last night",
        "Bump lodash@4.17.21.1",
        "pinned requests==2.31.0.1",
        "firmware 1.0.2.3 is out",
        "release 0.9.1.2",
        "build 2.1.0.3-beta ships",
        "v1.2.3.4",
    ],
)
def test_it_does_not_read_four_part_versions_as_ipv4(text: str) -> None:
    assert _found(text) == []


def test_it_finds_an_ipv4_address_at_the_end_of_a_sentence() -> None:
    assert _found("The login came from 203.0.113.9.") == [("ipv4", "203.0.113.9")]
    assert _found("Blocked 198.51.100.23, 198.51.100.24.") == [
        ("ipv4", "198.51.100.23"),
        ("ipv4", "198.51.100.24"),
    ]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Ship to 12 5th Ln, Austin, TX 78701 today", "12 5th Ln, Austin, TX 78701"),
        ("meet at 400 N River Dr please", "400 N River Dr"),
        ("Neue Adresse: Lindenweg 12, 10115 Berlin.", "Lindenweg 12, 10115 Berlin"),
        ("Wir wohnen in der Hauptstraße 5a.", "Hauptstraße 5a"),
        ("Friedrich-Ebert-Allee 40/2, 53113 Bonn", "Friedrich-Ebert-Allee 40/2, 53113 Bonn"),
    ],
)
def test_it_finds_addresses_with_numbered_or_directional_streets_and_german_layouts(
    text: str, value: str
) -> None:
    assert ("postal_address", value) in _found(text)


@pytest.mark.parametrize(
    "text", ["Spring 2024 release", "the String 3 test", "Wegener 12 units", "Platz 1 ist frei"]
)
def test_it_does_not_read_words_ending_like_streets_as_addresses(text: str) -> None:
    assert _found(text) == []


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Send it to 88 Quarry Bend, Port Alder, ME 04101 by Friday", "88 Quarry Bend, Port Alder, ME 04101"),
        ("Flat 3, Mill Yard, Hebden Bridge, HX7 8AD", "Flat 3, Mill Yard, Hebden Bridge, HX7 8AD"),
        ("moved to 7 Kestrel Rise, Leeds, LS6 2QT.", "7 Kestrel Rise, Leeds, LS6 2QT"),
    ],
)
def test_it_finds_addresses_written_out_to_the_postcode_whatever_the_street_word(
    text: str, value: str
) -> None:
    assert ("postal_address", value) in _found(text)


def test_it_needs_the_town_and_postcode_for_a_street_word_it_does_not_know() -> None:
    assert _found("We shipped 88 Quarry Bend units") == []
    assert _found("Chapter 3 Results, Discussion, and More") == []


def test_it_does_not_read_a_routing_or_account_number_as_a_national_phone() -> None:
    assert [t for t, _ in _found("Routing number 054043513 failed validation.")] == []
    assert not [t for t, _ in _found("account number 0412 345 678") if t.startswith("phone")]
