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
      python bench/corpora/make_pii_generated.py --presidio   (also ``generated/pii_presidio.jsonl``, a
      second hold-out from presidio-evaluator's templates and people: ``pip install --no-deps
      presidio-evaluator==0.3.2``)
"""

# ruff: noqa: E501  (the template tables keep one template per line)

from __future__ import annotations

import json
import os
import random
import string
import sys
from collections.abc import Callable
from functools import partial
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


# --- a second hold-out from presidio-evaluator's data (issue 16) -------------------------------------
# Its sentence templates and its FakeNameGenerator.com people (names, streets and towns of 30 countries,
# not Faker's lists) are read from the installed package; Faker (seeded) fills the other slots.  The
# detector's rules were written without reading these templates: the set is measured, never tuned on.
# Slot -> our type ("" = filled but not PII here: organisations, ages, jobs, dates, nationalities).
_PRESIDIO_SLOTS = {
    "person": "person", "name": "person", "first_name": "person", "last_name": "person",
    "name_female": "person", "name_male": "person", "first_name_male": "person",
    "first_name_female": "person", "first_name_nonbinary": "person", "last_name_male": "person",
    "last_name_female": "person", "city": "location", "country": "location", "address": "location",
    "street_name": "location", "building_number": "location", "secondary_address": "location",
    "postcode": "location", "zipcode": "location", "state_abbr": "location", "email": "email",
    "phone_number": "phone", "credit_card_number": "payment_card", "iban": "iban", "ssn": "us_ssn",
    "ip_address": "ipv4", "url": "url", "date_of_birth": "date_of_birth",
    "us_driver_license": "drivers_license",
}  # fmt: skip


def _presidio_data() -> tuple[list[str], list[dict[str, str]], list[str]]:
    """presidio-evaluator's templates, people and driver's licence numbers (``pip install presidio-evaluator --no-deps``)."""
    import csv
    import importlib.util

    spec = importlib.util.find_spec("presidio_evaluator")  # found, not imported: its __init__ needs spaCy
    if spec is None or spec.origin is None:
        raise SystemExit("pip install --no-deps 'presidio-evaluator==0.3.2' first")
    raw = Path(spec.origin).parent / "data_generator" / "raw_data"
    templates = [
        # The file writes line breaks inside a template as the two characters "\\n": they are line
        # breaks (e-mails, letters), and the detector reads cues line by line.
        t.strip().replace("\\n", "\n")
        for t in (raw / "templates.txt").read_text(encoding="utf-8").splitlines()
        if t.strip()
    ]
    with (raw / "FakeNameGenerator.com_3000.csv").open(encoding="utf-8-sig") as handle:
        people = list(csv.DictReader(handle))
    licences = (raw / "us_driver_licenses.csv").read_text(encoding="utf-8").split()[1:]
    return templates, people, licences


def _presidio_value(
    slot: str, person: dict[str, str], fake: Faker, rng: random.Random, licences: list[str]
) -> str:
    street = person["StreetAddress"]
    number, _, street_name = street.partition(" ") if street[:1].isdigit() else ("", "", street)
    values = {
        "person": f"{person['GivenName']} {person['Surname']}",
        "name": f"{person['GivenName']} {person['MiddleInitial']}. {person['Surname']}"
        if rng.random() < 0.2
        else f"{person['GivenName']} {person['Surname']}",
        "first_name": person["GivenName"],
        "last_name": person["Surname"],
        "city": person["City"],
        "country": person["CountryFull"],
        "address": f"{street}, {person['City']}, {person['ZipCode']}",
        "street_name": street_name,
        "building_number": number or str(rng.randint(1, 300)),
        "postcode": person["ZipCode"],
        "zipcode": person["ZipCode"],
        "state_abbr": person["State"],
        "secondary_address": fake.secondary_address(),
        "email": fake.email(),
        "phone_number": fake.phone_number(),
        "credit_card_number": fake.credit_card_number(),
        "iban": fake.iban(),
        "ssn": _ssn(rng),
        "ip_address": fake.ipv4_public(),
        "url": fake.url(),
        "us_driver_license": rng.choice(licences),
        "date_of_birth": fake.date_of_birth(minimum_age=18, maximum_age=90).strftime("%B %d, %Y"),
        "organization": fake.company(),
        "age": str(rng.randint(18, 90)),
        "year": str(rng.randint(1950, 2024)),
        "job": fake.job(),
        "nationality": fake.country(),
        "date_time": fake.date_time().strftime("%Y-%m-%d %H:%M"),
        "day_of_week": fake.day_of_week(),
        "prefix": fake.prefix(),
        "prefix_male": fake.prefix_male(),
        "prefix_female": fake.prefix_female(),
    }
    if slot.startswith(("first_name_", "name_")):
        return person["GivenName"] if slot.startswith("first") else values["person"]
    if slot.startswith("last_name_"):
        return person["Surname"]
    if slot in ("nation_woman", "nation_plural"):
        return fake.country()
    return values.get(slot, fake.word())


def write_presidio(seed: int = 47, lines: int = 1_000, name: str = "presidio") -> Path:
    """``generated/pii_presidio.jsonl``: presidio-evaluator's templates filled with its own people.

    ``name="presidio_dev"`` (seed 2222) is a development draw: the same templates (the read half of the
    measured set shows nearly all of them already) with only the people whose given name, surname and
    town appear nowhere in ``pii_presidio.jsonl``, so no value of the measured half is in it.
    """
    templates, people, licences = _presidio_data()
    if name != "presidio":
        measured = (OUT / "pii_presidio.jsonl").read_text(encoding="utf-8")
        people = [
            p for p in people if not any(p[k] and p[k] in measured for k in ("GivenName", "Surname", "City"))
        ]
    rng = random.Random(seed)
    fake = Faker("en_US")
    fake.seed_instance(seed)
    rows: list[dict[str, object]] = []
    for i in range(lines):
        template, person = rng.choice(templates), rng.choice(people)
        text = ""
        entities: list[dict[str, object]] = []
        pos = 0
        while (open_ := template.find("{{", pos)) >= 0:
            close = template.index("}}", open_)
            text += template[pos:open_]
            slot = template[open_ + 2 : close].strip()
            value = _presidio_value(slot, person, fake, rng, licences)
            kind = _PRESIDIO_SLOTS.get(slot, "")
            last = entities[-1] if entities else None
            # Adjacent slots of one kind ("{{first_name}} {{last_name}}", "{{building_number}} {{street_name}}")
            # are one value.
            if (
                kind
                and last is not None
                and last["type"] == kind
                and text[int(str(last["end"])) :].strip(" ,") == ""
            ):
                last["end"] = len(text) + len(value)
                last["value"] = text[int(str(last["start"])) :] + value
            elif kind and value:
                entities.append(
                    {"type": kind, "start": len(text), "end": len(text) + len(value), "value": value}
                )
            text += value
            pos = close + 2
        text += template[pos:]
        row: dict[str, object] = {"id": f"{name}-{i}", "text": text, "entities": entities}
        if not entities:
            row["lookalike"] = "no_pii_slot"  # a template whose slots hold no PII (organisations, ages)
        rows.append(row)
    OUT.mkdir(exist_ok=True)
    path = OUT / f"pii_{name}.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


# --- names and small places of ten locales (issue 16) ----------------------------------------------
# People and towns from Faker's locales beyond the US, in sentences written for this file: a dev part
# (rules may be changed on its misses) and a hold-out part (other seed, other sentences; measured, never
# tuned on).  Japanese names are Faker's romanised ones; Indian names come from ``en_IN`` (Latin letters:
# ``hi_IN`` writes Devanagari, which the detector does not read).  Towns are the locale's own
# ``city()`` (real town lists for de_DE, it_IT, nl_NL, pl_PL, en_IN; made-up compositions elsewhere);
# ja_JP has no romanised towns and tr_TR no address provider, so their towns come from en_IN and
# de_DE.  A fifth of the lines are hard negatives: capitalised words that name no person or place.
INTL_LOCALES = ["de_DE", "fr_FR", "es_ES", "it_IT", "pt_BR", "pl_PL", "nl_NL", "tr_TR", "ja_JP", "hi_IN"]
_NAME_LOCALE = {"hi_IN": "en_IN"}
_TOWN_LOCALE = {"hi_IN": "en_IN", "ja_JP": "en_IN", "tr_TR": "de_DE"}
INTL_DEV_TEMPLATES = [
    "{person} called about the late delivery to {city}.",
    "Our new colleague {person} starts on Monday in the {city} office.",
    "Please forward the signed contract to {person} before Friday.",
    "The invoice was addressed to {person}, {location}.",
    "{first_name} said the parcel never arrived in {city}.",
    "Meeting notes: {person} and {person} agreed to postpone the audit.",
    "She grew up in {city} and later worked with {person}.",
    "Ticket escalated by {person} ({email}).",
    "Can {first_name} confirm the room booking in {city}?",
    "Thanks {first_name}, I will post it to {city} tomorrow.",
    "According to {person}, the truck left {city} on time.",
    "Mr {last_name} approved the refund yesterday.",
]
INTL_HOLDOUT_TEMPLATES = [
    "I spoke with {person} this morning; the refund goes to {location}.",
    "{person} is the new site lead at our {city} branch.",
    "Hotel reservation for {person}, arriving in {city} on the 14th.",
    "Witness statement signed by {person}, resident of {city}.",
    "Could you check whether {person} paid the deposit?",
    "Forwarding this from {person}: the heating in {city} is broken again.",
    "Lunch with {first_name} and {first_name} at noon?",
    "Parcel for {person} returned to sender, {location}.",
    "We stopped in {city} and drove on to {city} the next day.",
    "Payment reminder for {person}, account {iban}.",
    "{person} moved to {city} last spring; new number {phone}.",
    "Interview with {person} is set for Thursday, call {phone}.",
    "Best wishes from {city}, {first_name}",
    "The courier left the box with {person} next door.",
]
INTL_NEGATIVES = {
    "dev": [
        "Release Notes for Version 4.2: Improved Search and Faster Sync.",
        "The Quarterly Review moved to Conference Room B.",
        "Please read the Terms of Service before signing up.",
        "Our Customer Success team fixed the Billing Dashboard bug.",
        "Install Visual Studio Code and the Python extension first.",
        "Weekly Status: Payments Migration is on track.",
    ],
    "holdout": [
        "Project Atlas kickoff: Design Review at noon in the Blue Room.",
        "New in this release: Dark Mode, Offline Sync and Smart Replies.",
        "The Annual Report covers Revenue, Margins and Risk Factors.",
        "Open the Control Panel, then choose Network Settings.",
        "Sprint Planning slides are in the Shared Drive under Engineering.",
        "The Premium Plan adds Priority Support and Audit Logs.",
    ],
}


def _intl_value(slot: str, loc: str, fakers: dict[str, Faker]) -> str:
    people = fakers[_NAME_LOCALE.get(loc, loc)]
    towns = fakers[_TOWN_LOCALE.get(loc, loc)]
    roman = loc == "ja_JP"
    if slot == "person":
        return people.romanized_name() if roman else f"{people.first_name()} {people.last_name()}"
    if slot == "first_name":
        return people.first_romanized_name() if roman else people.first_name()
    if slot == "last_name":
        return people.last_romanized_name() if roman else people.last_name()
    if slot == "city":
        return towns.city()
    if slot == "location":
        return towns.address().replace("\n", ", ")
    if slot == "iban":
        return fakers["de_DE"].iban()
    return str(getattr(towns, {"email": "email", "phone": "phone_number"}[slot])())


def _fill_slots(
    template: str, kinds: dict[str, str], value_of: Callable[[str], str]
) -> tuple[str, list[dict[str, object]]]:
    """The template with each ``{slot}`` replaced by ``value_of(slot)``, and the entity of each value
    (its type from ``kinds``, its span in the text)."""
    text, entities, pos = "", [], 0
    while (open_ := template.find("{", pos)) >= 0:
        close = template.index("}", open_)
        text += template[pos:open_]
        slot = template[open_ + 1 : close]
        value = value_of(slot)
        entities.append(
            {"type": kinds[slot], "start": len(text), "end": len(text) + len(value), "value": value}
        )
        text += value
        pos = close + 1
    return text + template[pos:], entities


def write_intl(name: str, seed: int, templates: list[str], lines: int = 600) -> Path:
    """``generated/pii_intl_<name>.jsonl``: people and towns of ``INTL_LOCALES`` in ``templates``."""
    rng = random.Random(seed)
    fakers = {loc: Faker(loc) for loc in sorted(set(INTL_LOCALES) | {"en_IN"})}
    for i, fake in enumerate(fakers.values()):
        fake.seed_instance(seed * 100 + i)
    kinds = {"person": "person", "first_name": "person", "last_name": "person", "city": "location"}
    kinds |= {"location": "location", "email": "email", "phone": "phone", "iban": "iban"}
    rows: list[dict[str, object]] = []
    for i in range(lines):
        if rng.random() < 0.2:
            text = rng.choice(INTL_NEGATIVES[name])
            rows.append({"id": f"intl-{name}-{i}", "text": text, "entities": [], "lookalike": "capitalised"})
            continue
        loc = rng.choice(INTL_LOCALES)
        template = rng.choice(templates)
        text, entities = _fill_slots(template, kinds, partial(_intl_value, loc=loc, fakers=fakers))
        rows.append({"id": f"intl-{name}-{i}", "locale": loc, "text": text, "entities": entities})
    OUT.mkdir(exist_ok=True)
    path = OUT / f"pii_intl_{name}.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


# --- a held-out check from locales no other set uses (issue 16, fifth pass, helper h16n) --------------
# People, towns and street addresses of fifteen Faker locales that neither the sets above nor the rule
# writer's reading used, in sentences written for this file: running-text addresses without a postcode,
# vocatives, appositions, names alone on a line.  Measured only (``bench_pii_recall.py --sets
# faker_heldout``); no rule was written from its lines.  Faker's name and town lists are in the gazetteer
# (``pii_gazetteer_build.py``), so person recall here is optimistic; addresses and sentence shapes are not.
HELDOUT_LOCALES = [
    "sv_SE", "da_DK", "no_NO", "fi_FI", "cs_CZ", "sk_SK", "hu_HU", "hr_HR", "ro_RO", "pt_PT", "de_AT",
    "nl_BE", "en_IE", "en_CA", "en_NZ",
]  # fmt: skip
HELDOUT_TEMPLATES = [
    "Could you send the spare keys to {street}? I am staying there until May.",
    "The new office is at {street}, {city}.",
    "Thanks, {first_name}. I will call you tomorrow.",
    "My colleague, {person}, will take over the account next week.",
    "{person}, the head of finance, signed the budget.",
    "Please return the form to:\n{person}\n{street}\n{city}",
    "Attendees:\n{person}\n{person}\n{person}",
    "We used to live on {street} before moving to {city}.",
    "Delivery address: {address}",
    "Sorry for the delay, {first_name}, the parcel left {city} yesterday.",
    "I met {person} at the conference in {city}.",
    "Her flat on {street} is up for rent.",
    "Reminder: {first_name} {last_name} picks up the order on Friday.",
    "Happy birthday, {first_name}!",
    "The workshop moved from {city} to {city}.",
    "Send the invoice to {address}, attention {person}.",
]
HELDOUT_NEGATIVES = [
    "The Release Candidate fixes the Login Screen and the Export Wizard.",
    "Go to Account Settings, then Privacy and Security.",
    "Our Growth Team meets every Tuesday in the Orange Room.",
    "Version 12.4.1 of the Mobile App is out on both stores.",
    "The Annual Planning Summit starts with a Keynote at 9.",
    "Order 4471-22 shipped on 2024-03-05 with tracking code ZX93-11.",
]


def _heldout_value(slot: str, fake: Faker) -> str:
    if slot == "person":
        return f"{fake.first_name()} {fake.last_name()}"
    if slot in ("street", "address"):
        return str(getattr(fake, "street_address" if slot == "street" else "address")()).replace("\n", ", ")
    return str(getattr(fake, slot)())


def write_faker_heldout(seed: int = 83, lines: int = 500) -> Path:
    """``generated/pii_faker_heldout.jsonl``: people, towns and addresses of ``HELDOUT_LOCALES``."""
    rng = random.Random(seed)
    fakers = {loc: Faker(loc) for loc in HELDOUT_LOCALES}
    for i, fake in enumerate(fakers.values()):
        fake.seed_instance(seed * 100 + i)
    kinds = {"person": "person", "first_name": "person", "last_name": "person"}
    kinds |= {"city": "location", "street": "location", "address": "location"}
    rows: list[dict[str, object]] = []
    for i in range(lines):
        if rng.random() < 0.15:
            text = rng.choice(HELDOUT_NEGATIVES)
            rows.append(
                {"id": f"faker-heldout-{i}", "text": text, "entities": [], "lookalike": "capitalised"}
            )
            continue
        loc = rng.choice(HELDOUT_LOCALES)
        fake = fakers[loc]
        template = rng.choice(HELDOUT_TEMPLATES)
        text, entities = _fill_slots(template, kinds, partial(_heldout_value, fake=fake))
        rows.append({"id": f"faker-heldout-{i}", "locale": loc, "text": text, "entities": entities})
    OUT.mkdir(exist_ok=True)
    path = OUT / "pii_faker_heldout.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def main() -> None:
    # Some of Faker's locale data (it_IT's cities among them) come out of sets, whose order follows the
    # string hash: without a fixed seed two runs write different files.
    if os.environ.get("PYTHONHASHSEED") != "0":
        os.execve(sys.executable, [sys.executable, *sys.argv], {**os.environ, "PYTHONHASHSEED": "0"})
    if "--presidio-dev" in sys.argv:  # only the development draw (issue 16, h22f)
        print(write_presidio(seed=2222, name="presidio_dev"))
        return
    # The hold-out adds locales (and so phone and address layouts) the dev part never shows.
    print(write("dev", 11, ["en_US", "en_GB", "de_DE"], DEV_TEMPLATES, 600))
    print(
        write("holdout", 29, ["en_US", "en_GB", "de_DE", "fr_FR", "en_AU", "en_IN"], HOLDOUT_TEMPLATES, 600)
    )
    print(write_intl("dev", 61, INTL_DEV_TEMPLATES))
    print(write_intl("holdout", 67, INTL_HOLDOUT_TEMPLATES))
    if "--faker-heldout" in sys.argv:
        print(write_faker_heldout())
    if "--presidio" in sys.argv:
        print(write_presidio())


if __name__ == "__main__":
    main()
