"""Write PII corpora from Faker's locale data: ``generated/pii_dev.jsonl`` and ``generated/pii_holdout.jsonl``.

Unlike ``make_pii_corpus.py`` (values the engine's authors shaped by hand), the values here come from
Faker's providers in several locales (names, street addresses, phone numbers in each country's own
layouts, URLs, IBANs, cards) and from this file's generators for the types Faker lacks (driver's
licences, Taproot addresses, credential URLs).  The dev and hold-out parts use different seeds, different
locales for part of the values, and different sentence templates, so the hold-out measures wording and
layouts the rules were not written against.  Hard negatives (versions, product codes, order ids,
documentation samples, placeholders, timestamps) are mixed in with the ``lookalike`` field.

Every line: ``{"id", "text", "entities": [{"type", "start", "end", "value"}], "lookalike"?: kind}``.
Types are the engine's names where it has one, and ``person`` / ``location`` for what it has none of:
their recall is measured anyway, so the report shows what a redactor still lets through.

Run:  python bench/corpora/make_pii_generated.py   (needs the ``bench`` extra: Faker)
"""

# ruff: noqa: E501  (the template tables keep one template per line)

from __future__ import annotations

import json
import random
import string
from collections.abc import Callable
from pathlib import Path

from faker import Faker

OUT = Path(__file__).resolve().parent / "generated"

_BECH32 = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"


def _bech32m_address(rng: random.Random) -> str:
    """A valid Taproot address (witness version 1, 32-byte program, Bech32m checksum; BIP-350)."""
    program = [rng.randrange(256) for _ in range(32)]
    acc, bits, data = 0, 0, [1]
    for byte in program:
        acc, bits = (acc << 8) | byte, bits + 8
        while bits >= 5:
            bits -= 5
            data.append((acc >> bits) & 31)
    if bits:
        data.append((acc << (5 - bits)) & 31)
    gen = (0x3B6A57B2, 0x26508E6D, 0x1EA119FA, 0x3D4233DD, 0x2A1462B3)

    def polymod(values: list[int]) -> int:
        chk = 1
        for v in values:
            top = chk >> 25
            chk = ((chk & 0x1FFFFFF) << 5) ^ v
            for i in range(5):
                chk ^= gen[i] if (top >> i) & 1 else 0
        return chk

    hrp = [ord(c) >> 5 for c in "bc"] + [0] + [ord(c) & 31 for c in "bc"]
    mod = polymod(hrp + data + [0] * 6) ^ 0x2BC830A3
    checksum = [(mod >> 5 * (5 - i)) & 31 for i in range(6)]
    return "bc1" + "".join(_BECH32[d] for d in data + checksum)


def _licence(rng: random.Random) -> str:
    d = lambda n: "".join(rng.choice(string.digits) for _ in range(n))  # noqa: E731
    letter = rng.choice(string.ascii_uppercase)
    return rng.choice(
        [
            f"{letter}{d(7)}",  # California
            f"{letter}{d(3)}-{d(3)}-{d(2)}-{d(3)}-{d(1)}",  # Florida
            f"{d(3)} {d(3)} {d(3)}",  # New York
            f"{d(8)}",  # Texas
            f"{letter}{d(12)}",  # Michigan, Minnesota
            f"{letter}{d(8)}",  # Ohio-like
        ]
    )


def _ssn(rng: random.Random) -> str:
    """A US SSN by the SSA's rules (Faker's locales give other countries' numbers under ``ssn``)."""
    area = rng.choice([a for a in range(1, 900) if a != 666])
    return f"{area:03d}-{rng.randint(1, 99):02d}-{rng.randint(1, 9999):04d}"


# Each generator: (faker, rng) -> value.  Phone numbers use the locale's own layouts.
Gen = Callable[[Faker, random.Random], str]
VALUES: dict[str, Gen] = {
    "person": lambda f, r: f.name(),
    "location": lambda f, r: f.address().replace("\n", ", "),
    "email": lambda f, r: f.email(),
    "phone": lambda f, r: f.phone_number(),
    "url": lambda f, r: f.url() + r.choice(["", "account/settings", f"u/{f.user_name()}", "?ref=mail"]),
    "credential_url": lambda f, r: (
        f"{r.choice(['postgres', 'mysql', 'redis', 'https'])}://{f.user_name()}:{f.password(special_chars=False)}@{f.domain_name()}/{f.word()}"
    ),
    "ipv4": lambda f, r: f.ipv4_public(),
    "payment_card": lambda f, r: f.credit_card_number(),
    "iban": lambda f, r: f.iban(),
    "us_ssn": lambda f, r: _ssn(r),
    "drivers_license": lambda f, r: _licence(r),
    "btc_address": lambda f, r: _bech32m_address(r),
    "date_of_birth": lambda f, r: f.date_of_birth(minimum_age=18, maximum_age=90).strftime(
        r.choice(["%Y-%m-%d", "%m/%d/%Y", "%B %d, %Y"])
    ),
}

# Templates: a line holds one to three slots {type}.  Dev and hold-out templates differ in wording.
DEV_TEMPLATES = [
    "Hi, this is {person}. My new number is {phone}, please update the ticket.",
    "Customer {person} ({email}) asked us to ship to {location}.",
    "Login from {ipv4} for {email}; the user then opened {url}.",
    "Refund to card {payment_card} for {person}, phone {phone}.",
    "Please wire the deposit to IBAN {iban}. Contact: {person}.",
    "Applicant {person}, SSN {us_ssn}, date of birth {date_of_birth}.",
    "Driver's license: {drivers_license}. Name on licence: {person}.",
    "Send the payout to {btc_address} and confirm to {email}.",
    "DATABASE_URL={credential_url}",
    "Our office moved to {location}. Call {phone} to book.",
    "Patient {person}, DOB {date_of_birth}, mobile {phone}.",
    "Found your profile at {url}, {person}. Still at {location}?",
]
HOLDOUT_TEMPLATES = [
    "Ticket #{n}: {person} cannot log in. Callback on {phone}.",
    "From: {person} <{email}>\nI live at {location} now, not the old place.",
    "[auth] user={email} ip={ipv4} status=ok",
    "Charge declined for {payment_card}; cardholder {person} says it is fine.",
    "Beneficiary {person}, account IBAN {iban}, reference invoice {n}.",
    "SSN on file: {us_ssn} (born {date_of_birth}).",
    "DL number {drivers_license}, expires next year.",
    "tip jar: {btc_address}",
    "Connecting with {credential_url} failed: timeout.",
    "Reach {person} at {phone} or visit {url}.",
    "Delivery address: {location}. Leave it with {person}.",
    "{person} wrote from {ipv4} asking to close the account.",
]
# Lines with no PII that look like some (hard negatives), by kind.
NEGATIVES: dict[str, list[str]] = {
    "version": [
        "Upgraded the agent to {ver} last night.",
        "Bump lodash@{ver}",
        "firmware {ver} fixes the fan curve",
    ],
    "product_code": ["SKU {code} is back in stock.", "Model: {code}, black.", "part no. {code} ships Monday"],
    "order_id": ["Order {n} shipped on {date}.", "invoice {n} paid", "ticket number {n} closed"],
    "sample": [
        "export AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE",
        "STRIPE_KEY=sk_live_xxxxxxxxxxxxxxxxxxxxxxxx",
        "api_key = your-api-key-goes-here",
    ],
    "timestamp": ["job finished at {date}T10:42:07Z in 3.2 s", "built {date} 14:03:11 UTC"],
}


def _fill(template: str, fake: Faker, rng: random.Random) -> dict[str, object]:
    text, entities, pos = "", [], 0
    while True:
        open_ = template.find("{", pos)
        if open_ < 0:
            text += template[pos:]
            break
        close = template.index("}", open_)
        text += template[pos:open_]
        slot = template[open_ + 1 : close]
        if slot == "n":
            text += str(rng.randint(10_000, 99_999_999))
        else:
            value = VALUES[slot](fake, rng)
            entities.append({"type": slot, "start": len(text), "end": len(text) + len(value), "value": value})
            text += value
        pos = close + 1
    return {"text": text, "entities": entities}


def _negative(kind: str, template: str, rng: random.Random, fake: Faker) -> str:
    ver = ".".join(str(rng.randint(0, 20)) for _ in range(4))
    code = f"{rng.randint(200, 999)}-{rng.randint(200, 999)}-{rng.randint(1000, 9999)}"
    return template.format(ver=ver, code=code, n=rng.randint(10_000, 99_999_999), date=fake.date())


def write(name: str, seed: int, locales: list[str], templates: list[str], lines: int) -> Path:
    rng = random.Random(seed)
    fakers = {loc: Faker(loc) for loc in locales}
    for i, fake in enumerate(fakers.values()):
        fake.seed_instance(seed * 100 + i)
    rows: list[dict[str, object]] = []
    for i in range(lines):
        fake = fakers[rng.choice(locales)]
        if rng.random() < 0.2:
            kind = rng.choice(sorted(NEGATIVES))
            text = _negative(kind, rng.choice(NEGATIVES[kind]), rng, fake)
            rows.append({"id": f"{name}-{i}", "text": text, "entities": [], "lookalike": kind})
        else:
            rows.append({"id": f"{name}-{i}", **_fill(rng.choice(templates), fake, rng)})
    OUT.mkdir(exist_ok=True)
    path = OUT / f"pii_{name}.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def main() -> None:
    # The hold-out adds locales (and so phone and address layouts) the dev part never shows.
    print(write("dev", 11, ["en_US", "en_GB", "de_DE"], DEV_TEMPLATES, 600))
    print(
        write("holdout", 29, ["en_US", "en_GB", "de_DE", "fr_FR", "en_AU", "en_IN"], HOLDOUT_TEMPLATES, 600)
    )


if __name__ == "__main__":
    main()
