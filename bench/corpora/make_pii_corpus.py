"""Write the labelled PII corpora ``pii_dev.jsonl`` and ``pii_holdout.jsonl``.

Every value is synthetic: card numbers, IBANs, national ids and keys are made up here with a seeded
random generator, and the check digits are computed with python-stdnum so that "valid" lines really
pass their checksum and "look-alike" lines really fail it.  The dev and hold-out parts use different
seeds *and* different sentence templates, so the hold-out lines test wording the rules never saw.

Each line: ``{"id", "text", "entities": [{"type", "start", "end", "value"}], "lookalike"?: type}``.
A line with no entities is a negative (text without PII that looks like it).

Run:  python bench/corpora/make_pii_corpus.py
"""

# The pattern tables below keep one entry per line so they read as tables; regexes cannot be split.
# ruff: noqa: E501

from __future__ import annotations

import base64
import hashlib
import json
import random
import string
from collections.abc import Callable
from pathlib import Path

from eth_utils import to_checksum_address
from stdnum import iban, luhn, verhoeff
from stdnum.br import cpf
from stdnum.es import dni
from stdnum.us import rtn

HERE = Path(__file__).resolve().parent
ALNUM = string.ascii_letters + string.digits


def _digits(rng: random.Random, n: int) -> str:
    return "".join(rng.choice(string.digits) for _ in range(n))


def _alnum(rng: random.Random, n: int, alphabet: str = ALNUM) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


# --- value generators: (rng) -> value string -------------------------------------------------------


def gen_email(rng: random.Random) -> str:
    first = rng.choice(["maria", "j.smith", "chen.wei", "o_connor", "priya", "lars.n", "a.kowalska"])
    dom = rng.choice(["gmail.com", "acme-corp.io", "uni-heidelberg.de", "outlook.co.uk", "proton.me"])
    return f"{first}{rng.randint(1, 99)}@{dom}"


def gen_phone_nanp(rng: random.Random) -> str:
    a, e, n = (
        f"{rng.randint(2, 9)}{_digits(rng, 2)}",
        f"{rng.randint(2, 9)}{_digits(rng, 2)}",
        _digits(rng, 4),
    )
    return rng.choice(
        [f"({a}) {e}-{n}", f"{a}-{e}-{n}", f"{a}.{e}.{n}", f"+1 {a} {e} {n}", f"+1-{a}-{e}-{n}"]
    )


def gen_phone_intl(rng: random.Random) -> str:
    return rng.choice(
        [
            f"+44 20 {_digits(rng, 4)} {_digits(rng, 4)}",
            f"+49 30 {_digits(rng, 8)}",
            f"+33 1 {_digits(rng, 2)} {_digits(rng, 2)} {_digits(rng, 2)} {_digits(rng, 2)}",
            f"+81 3-{_digits(rng, 4)}-{_digits(rng, 4)}",
            f"+91 98{_digits(rng, 3)} {_digits(rng, 5)}",
        ]
    )


def gen_ssn(rng: random.Random) -> str:
    area = rng.choice([rng.randint(1, 665), rng.randint(667, 899)])
    return f"{area:03d}-{rng.randint(1, 99):02d}-{rng.randint(1, 9999):04d}"


def gen_ssn_invalid(rng: random.Random) -> str:
    return rng.choice(
        [
            f"000-{rng.randint(1, 99):02d}-{rng.randint(1, 9999):04d}",
            f"666-{rng.randint(1, 99):02d}-{rng.randint(1, 9999):04d}",
            f"{rng.randint(101, 665):03d}-00-{rng.randint(1, 9999):04d}",
            f"{rng.randint(101, 665):03d}-{rng.randint(1, 99):02d}-0000",
        ]
    )


def gen_itin(rng: random.Random) -> str:
    return f"9{_digits(rng, 2)}-{rng.choice([70, 75, 78, 81, 88, 90, 92, 94, 99])}-{_digits(rng, 4)}"


def gen_ein(rng: random.Random) -> str:
    return f"{rng.choice(['12', '20', '27', '45', '61', '83', '94'])}-{_digits(rng, 7)}"


def gen_passport(rng: random.Random) -> str:
    return rng.choice([_digits(rng, 9), rng.choice("CXEA") + _digits(rng, 8)])


def _luhn_complete(prefix: str, length: int, rng: random.Random) -> str:
    body = prefix + _digits(rng, length - len(prefix) - 1)
    return body + luhn.calc_check_digit(body)


def _group_card(num: str, rng: random.Random) -> str:
    sep = rng.choice(["", " ", "-"])
    if len(num) == 15:
        return sep.join([num[:4], num[4:10], num[10:]])
    return sep.join(num[i : i + 4] for i in range(0, len(num), 4))


def gen_card(rng: random.Random) -> str:
    prefix, length = rng.choice(
        [("4", 16), ("51", 16), ("55", 16), ("2221", 16), ("34", 15), ("37", 15), ("6011", 16)]
    )
    return _group_card(_luhn_complete(prefix, length, rng), rng)


def gen_card_invalid(rng: random.Random) -> str:
    good = _luhn_complete(rng.choice(["4", "53", "6011"]), 16, rng)
    bad = good[:-1] + str((int(good[-1]) + rng.randint(1, 9)) % 10)
    return _group_card(bad, rng)


def _iban_valid(rng: random.Random) -> str:
    while True:
        cc, bban = rng.choice(
            [
                ("DE", _digits(rng, 18)),
                ("GB", "".join(rng.choice(string.ascii_uppercase) for _ in range(4)) + _digits(rng, 14)),
                ("NL", "".join(rng.choice(string.ascii_uppercase) for _ in range(4)) + _digits(rng, 10)),
                ("FR", _digits(rng, 23)),
                ("ES", _digits(rng, 20)),
                ("CH", _digits(rng, 17)),
            ]
        )
        number = cc + iban.calc_check_digits(cc + "00" + bban) + bban
        if iban.is_valid(number):
            return number


def _iban_format(number: str, rng: random.Random) -> str:
    return number if rng.random() < 0.4 else " ".join(number[i : i + 4] for i in range(0, len(number), 4))


def gen_iban(rng: random.Random) -> str:
    return _iban_format(_iban_valid(rng), rng)


def gen_iban_invalid(rng: random.Random) -> str:
    number = _iban_valid(rng)
    check = (int(number[2:4]) + rng.randint(1, 40)) % 97 + 2
    return _iban_format(number[:2] + f"{check:02d}" + number[4:], rng)


def gen_aba(rng: random.Random) -> str:
    body = f"{rng.choice([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 21, 26, 31, 61, 71]):02d}" + _digits(rng, 6)
    return body + rtn.calc_check_digit(body)


def gen_aba_invalid(rng: random.Random) -> str:
    good = gen_aba(rng)
    return good[:-1] + str((int(good[-1]) + rng.randint(1, 9)) % 10)


def gen_bank_account(rng: random.Random) -> str:
    return _digits(rng, rng.randint(8, 12))


def gen_bic(rng: random.Random) -> str:
    return rng.choice(["DEUTDEFF", "BOFAUS3N", "NWBKGB2L", "COBADEFFXXX", "BNPAFRPP", "INGBNL2A", "CHASUS33"])


def gen_ca_sin(rng: random.Random) -> str:
    num = _luhn_complete(str(rng.randint(1, 7)), 9, rng)
    return f"{num[:3]} {num[3:6]} {num[6:]}"


def gen_aadhaar(rng: random.Random) -> str:
    while True:
        body = str(rng.randint(2, 9)) + _digits(rng, 10)
        num = body + verhoeff.calc_check_digit(body)
        if num != num[::-1]:
            return f"{num[:4]} {num[4:8]} {num[8:]}"


def gen_cpf(rng: random.Random) -> str:
    body = _digits(rng, 9)
    num = body + cpf._calc_check_digits(body)
    return f"{num[:3]}.{num[3:6]}.{num[6:9]}-{num[9:]}"


def gen_bsn(rng: random.Random) -> str:
    while True:
        body = _digits(rng, 8)
        total = sum((9 - i) * int(d) for i, d in enumerate(body))
        check = total % 11
        if check < 10 and body[0] != "0":
            return body + str(check)


def gen_dni(rng: random.Random) -> str:
    body = _digits(rng, 8)
    return body + dni.calc_check_digit(body)


def gen_aws_access(rng: random.Random) -> str:
    return rng.choice(["AKIA", "ASIA"]) + _alnum(rng, 16, string.ascii_uppercase + "234567")


def gen_aws_secret(rng: random.Random) -> str:
    return _alnum(rng, 40, ALNUM + "/+")


def gen_github(rng: random.Random) -> str:
    if rng.random() < 0.3:
        return "github_pat_" + _alnum(rng, 22) + "_" + _alnum(rng, 59)
    return rng.choice(["ghp_", "gho_", "ghs_"]) + _alnum(rng, 36)


def gen_slack(rng: random.Random) -> str:
    return f"xox{rng.choice('bpa')}-{_digits(rng, 12)}-{_digits(rng, 12)}-{_alnum(rng, 24)}"


def gen_stripe(rng: random.Random) -> str:
    return rng.choice(["sk_live_", "rk_live_", "sk_test_"]) + _alnum(rng, rng.randint(24, 40))


def gen_openai(rng: random.Random) -> str:
    if rng.random() < 0.5:
        return "sk-proj-" + _alnum(rng, 64, ALNUM + "_-")
    return "sk-" + _alnum(rng, 48)


def gen_anthropic(rng: random.Random) -> str:
    return "sk-ant-api03-" + _alnum(rng, 93, ALNUM + "_-") + "AA"


def gen_google(rng: random.Random) -> str:
    return "AIza" + _alnum(rng, 35, ALNUM + "_-")


def gen_gitlab(rng: random.Random) -> str:
    return "glpat-" + _alnum(rng, 20, ALNUM + "_-")


def gen_private_key(rng: random.Random) -> str:
    kind = rng.choice(["RSA ", "EC ", "OPENSSH ", ""])
    body = "\n".join(_alnum(rng, 64, ALNUM + "+/") for _ in range(3))
    return f"-----BEGIN {kind}PRIVATE KEY-----\n{body}\n-----END {kind}PRIVATE KEY-----"


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def gen_jwt(rng: random.Random) -> str:
    header = _b64url(json.dumps({"alg": rng.choice(["HS256", "RS256"]), "typ": "JWT"}).encode())
    payload = _b64url(
        json.dumps({"sub": _digits(rng, 6), "iat": 1700000000 + rng.randint(0, 10**6)}).encode()
    )
    return f"{header}.{payload}.{_b64url(rng.randbytes(32))}"


def gen_password(rng: random.Random) -> str:
    return _alnum(rng, rng.randint(4, 8)) + rng.choice("!#$%&*") + _alnum(rng, rng.randint(3, 6))


def gen_ipv4(rng: random.Random) -> str:
    return rng.choice(
        [
            f"203.0.113.{rng.randint(1, 254)}",
            f"192.168.{rng.randint(0, 255)}.{rng.randint(1, 254)}",
            f"10.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}",
            f"{rng.randint(11, 223)}.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}",
        ]
    )


def gen_ipv6(rng: random.Random) -> str:
    groups = [f"{rng.randint(0, 65535):x}" for _ in range(8)]
    if rng.random() < 0.5:
        return "2001:db8::" + ":".join(groups[:3])
    return "2001:" + ":".join(groups[1:])


def gen_mac(rng: random.Random) -> str:
    octets = [f"{rng.randint(0, 255):02X}" for _ in range(6)]
    style = rng.random()
    if style < 0.4:
        return ":".join(octets)
    if style < 0.8:
        return "-".join(octets).lower()
    joined = "".join(octets).lower()
    return f"{joined[:4]}.{joined[4:8]}.{joined[8:]}"


def gen_address(rng: random.Random) -> str:
    street = rng.choice(["Maple", "Oak", "Sunset", "Elm", "Washington", "Lakeview", "Pine Ridge"])
    suffix = rng.choice(["Street", "St.", "Avenue", "Ave", "Road", "Blvd", "Drive", "Lane"])
    city, state, zip_ = rng.choice(
        [
            ("Springfield", "IL", "62704"),
            ("Austin", "TX", "78701"),
            ("Portland", "OR", "97205"),
            ("Boston", "MA", "02108"),
        ]
    )
    return f"{rng.randint(1, 9999)} {street} {suffix}, {city}, {state} {zip_}"


MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October"]


def gen_dob(rng: random.Random) -> str:
    y, m, d = rng.randint(1940, 2005), rng.randint(1, 12), rng.randint(1, 28)
    return rng.choice(
        [f"{y}-{m:02d}-{d:02d}", f"{m:02d}/{d:02d}/{y}", f"{MONTHS[m % 10]} {d}, {y}", f"{d}.{m}.{y}"]
    )


def gen_eth(rng: random.Random) -> str:
    raw = "0x" + rng.randbytes(20).hex()
    return to_checksum_address(raw) if rng.random() < 0.7 else raw


def _b58(data: bytes) -> str:
    alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
    n = int.from_bytes(data, "big")
    out = ""
    while n:
        n, r = divmod(n, 58)
        out = alphabet[r] + out
    pad = len(data) - len(data.lstrip(b"\0"))
    return "1" * pad + out


def gen_btc(rng: random.Random) -> str:
    payload = bytes([rng.choice([0, 5])]) + rng.randbytes(20)
    check = hashlib.sha256(hashlib.sha256(payload).digest()).digest()[:4]
    return _b58(payload + check)


def gen_mrn(rng: random.Random) -> str:
    return _digits(rng, rng.randint(7, 9))


def gen_cred_url(rng: random.Random) -> str:
    scheme = rng.choice(["postgres", "mysql", "mongodb+srv", "https", "redis"])
    return f"{scheme}://{rng.choice(['admin', 'svc_app', 'root'])}:{_alnum(rng, 12)}@db{rng.randint(1, 9)}.internal.example:5432/app"


# --- templates -------------------------------------------------------------------------------------------

Templates = dict[str, tuple[Callable[[random.Random], str], list[str], list[str]]]

# type -> (generator, dev templates, hold-out templates)
# fmt: off
POSITIVE: Templates = {
    "email": (gen_email, ["Contact me at {v} for the details.", "Reply-To: {v}", "Her address is {v}, she answers fast."], ["Please cc {v} on the thread.", "signup email={v}"]),
    "phone_nanp": (gen_phone_nanp, ["Call me at {v} after 5pm.", "Phone: {v}", "You can text {v} any time."], ["My cell is {v}.", "Customer callback number {v} (mobile)"]),
    "phone_intl": (gen_phone_intl, ["Our London office: {v}", "Reach the support line on {v}.", "Tel. {v}"], ["WhatsApp me on {v}", "Fax {v} for the forms"]),
    "us_ssn": (gen_ssn, ["SSN: {v}", "My social security number is {v}.", "Employee SSN {v} on file"], ["Soc. Sec. # {v}", "the applicant's social is {v}"]),
    "us_itin": (gen_itin, ["ITIN {v} was issued last year.", "Taxpayer ITIN: {v}", "Use ITIN {v} on the form."], ["individual taxpayer identification number {v}", "ITIN# {v}"]),
    "us_ein": (gen_ein, ["Company EIN: {v}", "Our employer identification number is {v}.", "EIN {v} (Delaware LLC)"], ["Federal tax id (EIN) {v}", "FEIN: {v}"]),
    "passport": (gen_passport, ["Passport number {v}, expires 2031.", "passport no: {v}", "Her passport {v} was scanned."], ["Travel doc (passport) # {v}", "passport ID {v} issued in Boston"]),
    "payment_card": (gen_card, ["Card number {v}, exp 09/27.", "Charge it to {v}.", "CC: {v}"], ["Pay with my Visa {v} please", "card on file {v}"]),
    "iban": (gen_iban, ["IBAN: {v}", "Wire the money to {v}.", "Beneficiary account {v}"], ["Transfer to IBAN {v} by Friday", "bank details: {v} (BIC below)"]),
    "aba_routing": (gen_aba, ["Routing number {v}", "ABA {v}, checking account", "routing: {v}"], ["Bank routing # {v}", "RTN {v} for direct deposit"]),
    "bank_account": (gen_bank_account, ["Account number {v} at First Bank.", "acct no. {v}", "Bank account: {v}"], ["deposit into account # {v}", "checking account number {v}"]),
    "swift_bic": (gen_bic, ["SWIFT code {v}", "BIC: {v}", "Use SWIFT/BIC {v} for the wire."], ["swift {v}", "bank identifier (BIC) {v}"]),
    "ca_sin": (gen_ca_sin, ["SIN: {v}", "My social insurance number is {v}.", "Canadian SIN {v}"], ["social insurance no. {v}", "SIN# {v} (Ontario)"]),
    "in_aadhaar": (gen_aadhaar, ["Aadhaar: {v}", "My Aadhaar number is {v}.", "aadhaar no {v}"], ["UIDAI Aadhaar {v}", "Aadhaar card {v} linked"]),
    "br_cpf": (gen_cpf, ["CPF: {v}", "Meu CPF é {v}.", "CPF {v} do cliente"], ["cpf n. {v}", "Cadastro CPF {v}"]),
    "nl_bsn": (gen_bsn, ["BSN: {v}", "Mijn burgerservicenummer is {v}.", "BSN {v} van de klant"], ["bsn-nummer {v}", "citizen service number (BSN) {v}"]),
    "es_dni": (gen_dni, ["DNI: {v}", "Mi DNI es {v}.", "DNI {v} del titular"], ["documento DNI {v}", "NIF/DNI {v}"]),
    "aws_access_key": (gen_aws_access, ["aws_access_key_id = {v}", "The key {v} leaked in the logs.", "AWS key: {v}"], ["export AWS_ACCESS_KEY_ID={v}", "access key {v} rotated"]),
    "aws_secret_key": (gen_aws_secret, ["aws_secret_access_key = {v}", "AWS_SECRET_ACCESS_KEY={v}", "secret access key: {v}"], ["aws secret key {v}", "\"SecretAccessKey\": \"{v}\""]),
    "github_token": (gen_github, ["GITHUB_TOKEN={v}", "token {v} has repo scope", "Use {v} to clone."], ["gh auth token: {v}", "pushed with {v}"]),
    "slack_token": (gen_slack, ["SLACK_BOT_TOKEN={v}", "slack token {v}", "bot uses {v}"], ["Slack credential {v}", "token: {v}"]),
    "stripe_key": (gen_stripe, ["STRIPE_SECRET_KEY={v}", "stripe key {v}", "Payments use {v}."], ["the Stripe secret {v}", "stripe.api_key = '{v}'"]),
    "openai_key": (gen_openai, ["OPENAI_API_KEY={v}", "openai key: {v}", "client = OpenAI(api_key=\"{v}\")"], ["my OpenAI token {v}", "key {v} billed to the team"]),
    "anthropic_key": (gen_anthropic, ["ANTHROPIC_API_KEY={v}", "claude key {v}", "x-api-key: {v}"], ["Anthropic credential {v}", "api key = {v}"]),
    "google_api_key": (gen_google, ["GOOGLE_API_KEY={v}", "maps key {v}", "key={v}&libraries=places"], ["Firebase apiKey: \"{v}\"", "google key {v}"]),
    "gitlab_token": (gen_gitlab, ["GITLAB_TOKEN={v}", "personal access token {v}", "CI uses {v}"], ["gitlab PAT {v}", "private-token: {v}"]),
    "private_key": (gen_private_key, ["Here is the key:\n{v}", "{v}", "id_rsa contents:\n{v}"], ["deploy key below\n{v}\nthanks", "PEM:\n{v}"]),
    "jwt": (gen_jwt, ["Authorization: Bearer {v}", "session token {v}", "jwt={v}"], ["cookie auth={v}; Path=/", "id_token: {v}"]),
    "password": (gen_password, ["password: {v}", "The wifi password is {v}", "pwd={v}"], ["login with passwd {v}", "DB_PASSWORD={v}"]),
    "ipv4": (gen_ipv4, ["Server IP: {v}", "Blocked requests from {v} yesterday.", "ssh into {v}"], ["client address {v} (eu-west)", "ping {v} timed out"]),
    "ipv6": (gen_ipv6, ["IPv6: {v}", "The host resolves to {v}.", "allow {v} in the firewall"], ["AAAA record {v}", "peer {v} disconnected"]),
    "mac_address": (gen_mac, ["MAC: {v}", "Device {v} joined the network.", "hw address {v}"], ["ether {v}", "whitelisted MAC {v}"]),
    "postal_address": (gen_address, ["Ship it to {v}.", "Address: {v}", "I live at {v}."], ["deliver to {v} before noon", "billing address {v}"]),
    "date_of_birth": (gen_dob, ["DOB: {v}", "Date of birth {v}", "I was born on {v}."], ["birthdate {v}", "born {v} in Ohio"]),
    "eth_address": (gen_eth, ["Send ETH to {v}", "wallet {v}", "payout address {v}"], ["my MetaMask is {v}", "recipient {v} on Base"]),
    "btc_address": (gen_btc, ["BTC address {v}", "bitcoin: {v}", "Donate to {v}"], ["send sats to {v}", "cold wallet {v}"]),
    "medical_record": (gen_mrn, ["MRN: {v}", "Medical record number {v}", "patient MRN {v} admitted"], ["chart # (MRN) {v}", "medical record no. {v}"]),
    "credential_url": (gen_cred_url, ["DATABASE_URL={v}", "connect with {v}", "dsn: {v}"], ["conn string {v}", "use {v} for staging"]),
}
# fmt: on


def _neg_uuid(rng: random.Random) -> str:
    h = rng.randbytes(16).hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


# fmt: off
# look-alike negatives: (type they imitate, generator, dev templates, hold-out templates)
NEGATIVE: list[tuple[str, Callable[[random.Random], str], list[str], list[str]]] = [
    ("payment_card", gen_card_invalid, ["Card number {v} was rejected.", "Order ref {v}"], ["tracking id {v}"]),
    ("iban", gen_iban_invalid, ["IBAN {v} (typo?)", "reference {v}"], ["payment ref {v}"]),
    ("us_ssn", gen_ssn_invalid, ["SSN {v} is not a valid number.", "Case number {v}"], ["file no. {v}"]),
    ("aba_routing", gen_aba_invalid, ["Routing number {v} failed validation.", "ticket {v}"], ["routing {v} (rejected by bank)"]),
    ("ipv4", lambda r: f"{r.randint(1, 9)}.{r.randint(0, 20)}.{r.randint(0, 30)}.{r.randint(0, 9)}", ["Upgraded to version {v} today.", "See section {v} of the spec."], ["release v{v} notes"]),
    ("ipv4", lambda r: f"{r.randint(256, 999)}.{r.randint(0, 255)}.{r.randint(0, 255)}.{r.randint(0, 255)}", ["Measured {v} units"], ["code {v}"]),
    ("aws_secret_key", lambda r: r.randbytes(20).hex(), ["Commit {v} fixed the bug.", "git sha {v}"], ["revision {v}"]),
    ("eth_address", lambda r: "0x" + r.randbytes(32).hex(), ["Transaction hash {v}", "tx {v} confirmed"], ["block hash {v}"]),
    ("eth_address", lambda r: "0x" + "".join(c.upper() if r.random() < 0.5 else c for c in r.randbytes(20).hex()), ["weird casing {v}"], ["mixed {v}"]),
    ("phone_nanp", lambda r: f"{r.randint(2020, 2024)}-{r.randint(1, 12):02d}-{r.randint(1, 28):02d}", ["Released {v}.", "Meeting on {v}"], ["due {v}"]),
    ("phone_nanp", lambda r: f"ISBN 978-{r.randint(0, 9)}-{_digits(r, 3)}-{_digits(r, 5)}-{r.randint(0, 9)}", ["The book {v} is out of print.", "Cite {v}"], ["edition {v}"]),
    ("payment_card", lambda r: "1Z" + _alnum(r, 16, string.ascii_uppercase + string.digits), ["UPS tracking {v}", "Shipment {v} delivered"], ["parcel {v}"]),
    ("passport", lambda r: f"INV-{r.randint(2019, 2025)}-{_digits(r, 6)}", ["Invoice {v} is overdue.", "Ref {v}"], ["bill {v}"]),
    ("api_key", _neg_uuid, ["Request id {v}", "trace {v}"], ["correlation-id {v}"]),
    ("mac_address", lambda r: f"{r.randint(0, 23):02d}:{r.randint(0, 59):02d}:{r.randint(0, 59):02d}", ["Lap time {v}", "Started at {v}"], ["duration {v}"]),
    ("date_of_birth", gen_dob, ["Invoice date {v}", "The contract was signed on {v}."], ["shipped on {v}"]),
    ("phone_intl", lambda r: f"${r.randint(1, 999)},{_digits(r, 3)}.{_digits(r, 2)}", ["Revenue was {v} last quarter.", "Total {v}"], ["budget {v}"]),
    ("bank_account", lambda r: _digits(r, 10), ["Population reached {v} in 2020.", "Unix time {v}"], ["row count {v}"]),
    ("jwt", lambda r: "eyJ" + _alnum(r, 10) + ".md", ["Open file {v}", "see {v}"], ["doc {v}"]),
    ("password", lambda r: rng_word(r), ["Reset your password via the link.", "Forgot password? Click {v}."], ["password policy: {v} chars minimum"]),
    ("postal_address", lambda r: f"{r.randint(2, 99)} {r.choice(['apples', 'steps', 'ways'])}", ["We found {v} to improve the street market.", "Try {v} on the road ahead"], ["see {v} down the avenue"]),
]
# fmt: on


def rng_word(rng: random.Random) -> str:
    return rng.choice(["here", "reset", "12", "Settings"])


def _fill(template: str, value: str, typ: str) -> tuple[str, list[dict[str, object]]]:
    start = template.index("{v}")
    text = template.replace("{v}", value)
    return text, [{"type": typ, "start": start, "end": start + len(value), "value": value}]


def build(split: str, seed: int, per_type: int, per_negative: int) -> list[dict[str, object]]:
    """Build one split's rows with its own seed and templates."""
    rng = random.Random(seed)
    rows: list[dict[str, object]] = []
    pick = 1 if split == "dev" else 2
    for typ, (gen, dev_t, hold_t) in POSITIVE.items():
        templates = dev_t if pick == 1 else hold_t
        for i in range(per_type):
            text, ents = _fill(templates[i % len(templates)], gen(rng), typ)
            rows.append({"text": text, "entities": ents})
    # a few lines with two entities of different types
    types = list(POSITIVE)
    for _ in range(per_type * 2):
        t1, t2 = rng.sample(types, 2)
        gen1, dev1, hold1 = POSITIVE[t1]
        gen2, dev2, hold2 = POSITIVE[t2]
        a, ea = _fill(rng.choice(dev1 if pick == 1 else hold1), gen1(rng), t1)
        b, eb = _fill(rng.choice(dev2 if pick == 1 else hold2), gen2(rng), t2)
        offset = len(a) + 1
        for e in eb:
            e["start"] = int(e["start"]) + offset  # type: ignore[call-overload]
            e["end"] = int(e["end"]) + offset  # type: ignore[call-overload]
        rows.append({"text": a + " " + b, "entities": ea + eb})
    for typ, gen, dev_t, hold_t in NEGATIVE:
        templates = dev_t if pick == 1 else hold_t
        for i in range(per_negative):
            t = templates[i % len(templates)]
            rows.append({"text": t.replace("{v}", gen(rng)), "entities": [], "lookalike": typ})
    rng.shuffle(rows)
    return [{"id": f"pii-{split[0]}-{i:04d}", **row} for i, row in enumerate(rows, 1)]


def main() -> None:
    """Write both splits next to this script."""
    for split, seed, per_type, per_negative in (("dev", 1, 5, 5), ("holdout", 2, 3, 3)):
        rows = build(split, seed, per_type, per_negative)
        path = HERE / f"pii_{split}.jsonl"
        with path.open("w", encoding="utf-8") as fh:
            for row in rows:
                fh.write(json.dumps(row, ensure_ascii=False) + "\n")
        print(f"{path.name}: {len(rows)} lines")


if __name__ == "__main__":
    main()
