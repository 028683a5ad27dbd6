r"""The PII type table: one ``PiiType`` per kind of personal data or secret.

Each type has a candidate regex, an optional validator (the checksum where one exists, via python-stdnum:
Luhn, IBAN mod-97, ABA routing, SSN/ITIN/EIN rules, Verhoeff, CPF, BSN 11-proof, DNI letter, Base58Check
and Bech32 for Bitcoin, EIP-55 for Ethereum) and, for numbers that are ambiguous on their own (a
9-digit routing number, a passport number), the context words that must precede them.

Regexes use bounded repetition only, so matching is linear in the text length.

Speed idiom: a pattern that must start at a token boundary is written as its first character followed
by a look-behind over that character, ``\d(?<![\d\-].)\d{8}`` rather than ``(?<![\d\-])\d{9}``.  Both
match the same spans (``.`` re-reads the first character, which is never a newline), but only the
first lets ``re`` skip ahead to the characters that can start a match instead of trying the
look-behind at every position: two to forty times faster over long texts.
"""

# The pattern tables below keep one entry per line so they read as tables; regexes cannot be split.
# ruff: noqa: E501

from __future__ import annotations

import base64
import binascii
import datetime as dt
import ipaddress
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

from stdnum import bic, bitcoin, iban, luhn
from stdnum.br import cpf
from stdnum.ca import sin
from stdnum.es import dni
from stdnum.in_ import aadhaar
from stdnum.nl import bsn
from stdnum.us import ein, itin, rtn, ssn

from ..text import lower

__all__ = ["BLOCK_LIMIT", "PII_TYPES", "TYPES_BY_NAME", "PiiType"]

#: Longest PEM block (characters) whose end marker is looked for after a header.
BLOCK_LIMIT = 12_000

# A validator returns the confidence to report (or ``None`` to reject the candidate) and the name of the
# check that passed ("" when the type has no checksum).
Validator = Callable[[str], "tuple[float, str] | None"]


@dataclass(frozen=True, slots=True)
class PiiType:
    """How one PII type is found.

    ``context`` (a regex) must match within ``context_window`` characters before the candidate when
    ``context_required``; otherwise a context match only raises the confidence by ``context_boost``.
    ``negative_context`` (a regex anchored at the candidate, e.g. "version" before a dotted quad) rejects
    it.  ``priority`` settles overlaps: a more specific type (a provider key, a checksum-valid card) wins
    over a generic one (a phone number, a bare account number).  ``gate`` lists substrings of which the
    text must contain one before the regex runs (a cheap skip).  ``block_end`` extends a match (a PEM
    header) to the end marker that follows within ``BLOCK_LIMIT`` characters, searched separately so that
    a header without an end costs one bounded literal search, not a backtracking scan.  ``needs_digit``
    is false for the few types whose values can be written without a digit; the others are skipped on
    texts without one.  ``shrink`` retries a candidate that fails validation without its last
    space-separated group (an IBAN followed by an upper-case word).  ``min_digits`` is the fewest digits
    a valid value holds (a text with fewer skips the type) and ``context_gate`` lists lower-case
    substrings one of which every required context word, or every match of a case-insensitive pattern,
    contains (looked for in the lower-cased text before the regex runs: "api_kEY=" holds "key").
    ``lowered_form`` is a case-sensitive form of a case-insensitive ``pattern`` that finds the same
    spans in the lower-cased text, wherever lower-casing keeps every offset and the text holds no "ſ"
    or "ı" (the only characters that ``re.IGNORECASE`` matches to an ASCII letter while ``str.lower``
    leaves them alone; a test checks every code point): without ``re.IGNORECASE`` the regex engine can
    skip to the characters that may start a match, four to eight times faster.  ``memo`` lets the
    engine remember the validator's verdict per value: true unless the verdict depends on more than the
    value (a date of birth is checked against today's date).
    """

    name: str
    category: str
    pattern: re.Pattern[str]
    confidence: float
    validator: Validator | None = None
    context: re.Pattern[str] | None = None
    context_required: bool = False
    context_boost: float = 0.0
    context_window: int = 40
    negative_context: re.Pattern[str] | None = None
    priority: int = 0
    group: int = 0
    gate: tuple[str, ...] = ()
    block_end: re.Pattern[str] | None = None
    needs_digit: bool = True
    shrink: bool = False
    min_digits: int = 0
    context_gate: tuple[str, ...] = ()
    lowered_form: re.Pattern[str] | None = None
    memo: bool = True


# Compiled once: ``re.sub(pattern_string, ...)`` looks its pattern up in re's cache on every call, which
# cost more than the substitution itself on these short values.
_NON_DIGIT = re.compile(r"\D")
_SEPARATOR = re.compile(r"[\s.\-]")
_HEX40 = re.compile(r"[0-9a-fA-F]{40}")


def _digits(value: str) -> str:
    return _NON_DIGIT.sub("", value)


def _compact(value: str) -> str:
    return _SEPARATOR.sub("", value)


def _check(module_is_valid: Callable[[str], bool], confidence: float, check: str) -> Validator:
    def validate(value: str) -> tuple[float, str] | None:
        return (confidence, check) if module_is_valid(_compact(value)) else None

    return validate


# --- validators with more logic than "the stdnum check passes" ----------------------------------------

_CARD_PREFIXES = re.compile(
    r"^(?:4|5[1-5]|2(?:22[1-9]|2[3-9]\d|[3-6]\d\d|7[01]\d|720)|3[47]|6011|65|64[4-9]|35(?:2[89]|[3-8]\d)|"
    r"30[0-5]|36|38|62|50|5[6-8]|6[0-9])"
)


def _card(value: str) -> tuple[float, str] | None:
    digits = _digits(value)
    if not 13 <= len(digits) <= 19 or not _CARD_PREFIXES.match(digits) or not luhn.is_valid(digits):
        return None
    # All-same digits ("0000 0000 0000 0000") pass Luhn but are placeholders, not cards.
    if len(set(digits)) == 1:
        return None
    return 0.95, "luhn"


def _ssn(value: str) -> tuple[float, str] | None:
    compact = _digits(value)
    if compact.startswith("9"):
        return None  # 9xx is the ITIN range, never an SSN
    return (0.9, "ssn_rules") if ssn.is_valid(compact) else None


def _iban(value: str) -> tuple[float, str] | None:
    return (0.97, "iban_mod97") if iban.is_valid(_compact(value)) else None


def _jwt(value: str) -> tuple[float, str] | None:
    header = value.split(".", 1)[0]
    try:
        decoded = json.loads(base64.urlsafe_b64decode(header + "=" * (-len(header) % 4)))
    except (ValueError, binascii.Error):
        return None
    return (0.97, "jwt_header") if isinstance(decoded, dict) and "alg" in decoded else None


def _ipv4(value: str) -> tuple[float, str] | None:
    try:
        address = ipaddress.IPv4Address(value)
    except ValueError:
        return None
    if any(len(part) > 1 and part.startswith("0") for part in value.split(".")):
        return None  # "01.02.03.04" is a version or a date, not how addresses are written
    return (0.7 if address.is_private or address.is_loopback else 0.85), "ip_parse"


def _ipv6(value: str) -> tuple[float, str] | None:
    groups = [g for g in value.split(":") if g]
    if len(groups) < 3:
        return None
    try:
        ipaddress.IPv6Address(value)
    except ValueError:
        return None
    return 0.9, "ip_parse"


def _eth(value: str) -> tuple[float, str] | None:
    body = value[2:]
    if body.islower() or body.isupper() or body.isdigit():
        return 0.85, ""
    # Mixed case means EIP-55: the casing is a checksum and must be right.
    from eth_utils import is_checksum_address

    return (0.97, "eip55") if is_checksum_address(value) else None


# Verdicts of ``_dob`` by value and day: it tries up to ten ``strptime`` formats (20 µs), and the type's
# verdicts are not memoised by the engine (``PiiType.memo``) because they depend on today's date.
_DOB_VERDICTS: dict[tuple[str, dt.date], tuple[float, str] | None] = {}
_UNSEEN = object()  # "not in the table", by identity (see ``pii._UNSEEN``)


def _dob(value: str) -> tuple[float, str] | None:
    today = dt.date.today()
    key = (value, today)
    known: object = _DOB_VERDICTS.get(key, _UNSEEN)  # one look-up: another thread may empty the table
    if known is not _UNSEEN:
        return cast("tuple[float, str] | None", known)
    if len(_DOB_VERDICTS) >= 4_096:
        _DOB_VERDICTS.clear()  # bounded; also drops the verdicts of past days
    verdict = _dob_on(value, today)
    _DOB_VERDICTS[key] = verdict
    return verdict


# The formats ``_dob`` tries, in order, each with the separator it matches literally ("" for none).
_DOB_FORMATS = (("%Y-%m-%d", "-"), ("%m/%d/%Y", "/"), ("%d/%m/%Y", "/"), ("%d.%m.%Y", "."), ("%m-%d-%Y", "-"), ("%d-%m-%Y", "-"), ("%B %d %Y", ""), ("%b %d %Y", ""), ("%d %B %Y", ""), ("%d %b %Y", ""))  # fmt: skip


def _dob_on(value: str, today: dt.date) -> tuple[float, str] | None:
    text = value.replace(",", " ")
    for fmt, separator in _DOB_FORMATS:
        if separator and separator not in text:
            continue  # ``strptime`` cannot match a literal the text lacks: skip its failure (5 µs)
        try:
            date = dt.datetime.strptime(" ".join(text.split()), fmt).date()
        except ValueError:
            continue
        if date.year >= 1900 and date <= today:
            return 0.9, "date_parse"
    return None


def _aws_secret(value: str) -> tuple[float, str] | None:
    # 40 hex characters are a git SHA-1, not an AWS secret (which is base64-ish with mixed case).
    if _HEX40.fullmatch(value) or value.isalpha() or value.isdigit():
        return None
    return 0.9, ""


def _password(value: str) -> tuple[float, str] | None:
    if len(set(value)) <= 2 or lower(value) in {
        "required",
        "reset",
        "here",
        "policy",
        "none",
        "null",
        "hidden",
    }:
        return None  # "********", placeholders and prose, not a password
    return 0.85, ""


def _phone_intl(value: str) -> tuple[float, str] | None:
    # E.164 numbers carry 8 to 15 digits including the country code.
    return (0.8, "") if 8 <= len(_digits(value)) <= 15 else None


def _nino(value: str) -> tuple[float, str] | None:
    compact = _compact(value).upper()
    if compact[:2] in {"BG", "GB", "NK", "KN", "TN", "NT", "ZZ"}:
        return None
    return 0.85, "nino_rules"


def _c(pattern: str, flags: int = 0) -> re.Pattern[str]:
    return re.compile(pattern, flags)


_I = re.IGNORECASE
_NB = r"(?<![\w.+\-])"  # not preceded by a word character or a joiner: whole tokens only
_NA = r"(?![\w\-]|\.\w)"
_MONTHS = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]{0,6}\.?"
_DATE = (
    rf"(?:\d{{4}}-\d{{1,2}}-\d{{1,2}}|\d{{1,2}}[/.\-]\d{{1,2}}[/.\-]\d{{4}}|{_MONTHS}\s+\d{{1,2}},?\s+\d{{4}}|"
    rf"\d{{1,2}}\s+{_MONTHS}\s+\d{{4}})"
)

# Substrings one of which every street suffix of ``postal_address`` contains (its regex is case-sensitive).
_STREET_WORDS = ("St", "Av", "Road", "Rd", "Boulevard", "Blvd", "Dr", "Lane", "Ln", "Court", "Ct", "Way", "Pl", "Terrace", "Parkway", "Pkwy", "Cir", "Highway", "Hwy", "Sq")  # fmt: skip

# fmt: off
PII_TYPES: tuple[PiiType, ...] = (
    # --- credentials and secrets (specific formats first: they win overlaps) ----------------------
    PiiType("private_key", "credential", _c(r"-----BEGIN (?:[A-Z0-9]{1,12} ){0,3}PRIVATE KEY(?: BLOCK)?-----"), 0.99, priority=5, gate=("PRIVATE KEY",), block_end=_c(r"-----END (?:[A-Z0-9]{1,12} ){0,3}PRIVATE KEY(?: BLOCK)?-----"), needs_digit=False),
    PiiType("credential_url", "credential", _c(r"\b[a-z][a-z0-9+.\-]{1,20}://[^\s:/@]{1,64}:[^\s@/]{1,128}@[^\s/]{1,255}", _I), 0.95, priority=5, gate=("://",), needs_digit=False, lowered_form=_c(r"[a-z](?<!\w.)[a-z0-9+.\-]{1,20}://[^\s:/@]{1,64}:[^\s@/]{1,128}@[^\s/]{1,255}")),
    PiiType("anthropic_key", "credential", _c(r"sk-ant-(?<!\w.{7})(?:api|admin|oat)\d{2}-[A-Za-z0-9_\-]{60,200}"), 0.98, priority=5, gate=("sk-ant-",), needs_digit=False),
    PiiType("openai_key", "credential", _c(r"sk-(?<!\w.{3})(?!ant-)(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{32,200}"), 0.9, priority=4, gate=("sk-",), needs_digit=False),
    PiiType("aws_access_key", "credential", _c(r"A(?<!\w.)(?:KIA|SIA|GPA|IDA|ROA|NPA|NVA|IPA)[A-Z2-7]{16}\b"), 0.97, priority=5, gate=("AKIA", "ASIA", "AGPA", "AIDA", "AROA", "ANPA", "ANVA", "AIPA"), needs_digit=False),
    PiiType("aws_secret_key", "credential", _c(r"(?<![A-Za-z0-9/+])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])"), 0.9, _aws_secret, _c(r"aws_?secret|secret_?access_?key|secret\s+access\s+key|aws\s+secret", _I), True, context_window=50, priority=4, needs_digit=False, context_gate=("secret",)),
    PiiType("github_token", "credential", _c(r"g(?<!\w.)(?:h[pousr]_[A-Za-z0-9]{36,255}\b|ithub_pat_[A-Za-z0-9_]{22,255}\b)"), 0.98, priority=5, gate=("gh", "github_pat_"), needs_digit=False),
    PiiType("gitlab_token", "credential", _c(r"glpat-(?<!\w.{6})[0-9A-Za-z_\-]{20,64}(?![0-9A-Za-z_\-])"), 0.97, priority=5, gate=("glpat-",), needs_digit=False),
    PiiType("slack_token", "credential", _c(r"xox(?<!\w.{3})[abposr]-(?:\d{8,13}-){1,3}[A-Za-z0-9\-]{16,64}\b"), 0.97, priority=5, gate=("xox",), min_digits=8),
    PiiType("slack_webhook", "credential", _c(r"https://hooks\.slack\.com/services/T[A-Z0-9]{6,12}/B[A-Z0-9]{6,12}/[A-Za-z0-9]{16,32}"), 0.97, priority=5, gate=("hooks.slack.com",)),
    PiiType("stripe_key", "credential", _c(r"[srp](?<!\w.)k_(?:live|test)_[A-Za-z0-9]{16,99}\b"), 0.97, priority=5, gate=("_live_", "_test_"), needs_digit=False),
    PiiType("google_api_key", "credential", _c(r"AIza(?<!\w.{4})[0-9A-Za-z_\-]{35}(?![0-9A-Za-z_\-])"), 0.97, priority=5, gate=("AIza",), needs_digit=False),
    PiiType("npm_token", "credential", _c(r"npm_(?<!\w.{4})[A-Za-z0-9]{36}\b"), 0.95, priority=5, gate=("npm_",), needs_digit=False),
    PiiType("sendgrid_key", "credential", _c(r"SG\.(?<!\w.{3})[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}\b"), 0.97, priority=5, gate=("SG.",), needs_digit=False),
    PiiType("jwt", "credential", _c(r"eyJ(?<!\w.{3})[A-Za-z0-9_\-]{5,4000}\.eyJ[A-Za-z0-9_\-]{2,8000}\.[A-Za-z0-9_\-]{0,2000}"), 0.97, _jwt, priority=5, gate=("eyJ",), needs_digit=False),
    PiiType("generic_secret", "credential", _c(r"(?:api[_\-]?key|secret[_\-]?key|access[_\-]?token|auth[_\-]?token|client[_\-]?secret|private[_\-]?token|x-api-key)[\"']?\s*[:=]\s*[\"']?([A-Za-z0-9_\-./+=]{16,256})", _I), 0.8, priority=1, group=1, needs_digit=False, context_gate=("key", "token", "secret"), lowered_form=_c(r"(?:api[_\-]?key|secret[_\-]?key|access[_\-]?token|auth[_\-]?token|client[_\-]?secret|private[_\-]?token|x-api-key)[\"']?\s*[:=]\s*[\"']?([A-Za-z0-9_\-./+=]{16,256})")),
    PiiType("password", "credential", _c(r"(?<![a-z])(?:password|passwd|pwd|passphrase)\b[\"']?\s*(?:is\s+|[:=]\s*)[\"']?([^\s\"',;]{4,128})", _I), 0.85, _password, priority=1, group=1, needs_digit=False, context_gate=("pass", "pwd"), lowered_form=_c(r"p(?<![a-z].)(?:assword|asswd|wd|assphrase)\b[\"']?\s*(?:is\s+|[:=]\s*)[\"']?([^\s\"',;]{4,128})")),
    # --- financial -----------------------------------------------------------------------------
    PiiType("payment_card", "financial", _c(r"\d(?<![\w\-].)[ \-]?(?:\d[ \-]?){11,17}\d(?![\d\-]|\.\d)"), 0.95, _card, _c(r"\b(?:card|visa|master\s?card|amex|american\s+express|discover|cc|credit|debit|pay)\b", _I), context_boost=0.03, priority=3, min_digits=13),
    PiiType("iban", "financial", _c(r"[A-Z](?<!\w.)[A-Z]\d{2}(?: ?[A-Z0-9]){11,30}\b"), 0.97, _iban, priority=4, shrink=True, min_digits=2),
    PiiType("aba_routing", "financial", _c(r"(?<![\d\-])\d{9}(?![\d\-])"), 0.95, _check(rtn.is_valid, 0.95, "aba_checksum"), _c(r"\b(?:routing|aba|rtn|transit)\b", _I), True, priority=3, min_digits=9, context_gate=("routing", "aba", "rtn", "transit",)),
    PiiType("bank_account", "financial", _c(r"(?<![\d\-])\d{6,17}(?![\d\-])"), 0.7, None, _c(r"\b(?:account|acct|a/c|checking|savings)\b", _I), True, context_window=30, priority=1, min_digits=6, context_gate=("account", "acct", "a/c", "checking", "savings",)),
    PiiType("swift_bic", "financial", _c(r"\b[A-Z]{4}[A-Z]{2}[A-Z0-9]{2}(?:[A-Z0-9]{3})?\b"), 0.85, _check(bic.is_valid, 0.85, "bic_format"), _c(r"\b(?:swift|bic)\b", _I), True, priority=2, needs_digit=False, context_gate=("swift", "bic",)),
    # --- government ids -------------------------------------------------------------------------
    PiiType("us_ssn", "government_id", _c(r"\d(?<![\d\-].)(?<!\d \d)\d{2}([\- ])\d{2}\1\d{4}(?![\d\-]| \d)"), 0.9, _ssn, _c(r"\b(?:ssn|social\s+security|social|soc\.?\s+sec)\b", _I), context_boost=0.07, priority=3, min_digits=9),
    PiiType("us_ssn", "government_id", _c(r"\d(?<![\d\-].)\d{8}(?![\d\-])"), 0.9, _ssn, _c(r"\b(?:ssn|social\s+security)\b", _I), True, priority=3, min_digits=9, context_gate=("ssn", "social")),
    PiiType("us_itin", "government_id", _c(r"9(?<![\d\-].)(?<!\d 9)\d{2}([\- ])\d{2}\1\d{4}(?![\d\-]| \d)"), 0.8, _check(itin.is_valid, 0.8, "itin_rules"), _c(r"\b(?:itin|taxpayer|tin)\b", _I), context_boost=0.15, priority=3, min_digits=9),
    PiiType("us_itin", "government_id", _c(r"9(?<![\d\-].)\d{8}(?![\d\-])"), 0.9, _check(itin.is_valid, 0.9, "itin_rules"), _c(r"\b(?:itin|taxpayer|tin)\b", _I), True, priority=3, min_digits=9, context_gate=("itin", "taxpayer", "tin")),
    PiiType("us_ein", "government_id", _c(r"(?<![\d\-])\d{2}-\d{7}(?![\d\-])"), 0.9, _check(ein.is_valid, 0.9, "ein_prefix"), _c(r"\b(?:ein|fein|employer\s+identification|tax\s+id|federal\s+tax)\b", _I), True, priority=3, min_digits=9, context_gate=("ein", "tax", "employer")),
    PiiType("passport", "government_id", _c(r"\b(?:[A-Z]{1,2}\d{6,8}|\d{9})\b"), 0.8, None, _c(r"\bpassport\b", _I), True, priority=2, min_digits=6, context_gate=("passport",)),
    PiiType("ca_sin", "government_id", _c(r"(?<![\d\-])\d{3}([\- ]?)\d{3}\1\d{3}(?![\d\-])"), 0.95, _check(sin.is_valid, 0.95, "luhn"), _c(r"\b(?:sin|social\s+insurance)\b", _I), True, priority=3, min_digits=9, context_gate=("sin", "social",)),
    PiiType("in_aadhaar", "government_id", _c(r"[2-9](?<![\d\-].)(?:(?<!\d [2-9])|(?=\d{3}[\d\-]))\d{3}([ \-]?)\d{4}\1\d{4}(?![\d\-])(?!(?<= \d{4}) \d)"), 0.65, _check(aadhaar.is_valid, 0.65, "verhoeff"), _c(r"\b(?:aadhaar|aadhar|uidai|uid)\b", _I), context_boost=0.3, priority=2, min_digits=12),
    PiiType("br_cpf", "government_id", _c(r"\d(?<![\d.\-].)\d{2}\.\d{3}\.\d{3}-\d{2}(?![\d\-]|\.\d)"), 0.9, _check(cpf.is_valid, 0.9, "cpf_checksum"), _c(r"\bcpf\b", _I), context_boost=0.07, priority=3, min_digits=11),
    PiiType("br_cpf", "government_id", _c(r"\d(?<![\d.\-].)\d{10}(?![\d\-]|\.\d)"), 0.9, _check(cpf.is_valid, 0.9, "cpf_checksum"), _c(r"\bcpf\b", _I), True, priority=3, min_digits=11, context_gate=("cpf",)),
    PiiType("nl_bsn", "government_id", _c(r"(?<![\d.\-])\d{4}\.?\d{2}\.?\d{3}(?![\d\-]|\.\d)"), 0.95, _check(bsn.is_valid, 0.95, "bsn_11_proof"), _c(r"\b(?:bsn|burgerservicenummer|citizen\s+service)\b", _I), True, priority=3, min_digits=9, context_gate=("bsn", "burgerservicenummer", "citizen",)),
    PiiType("es_dni", "government_id", _c(r"\d(?<![\w\-].)\d{7}-?[A-Z](?![\w\-])"), 0.85, _check(dni.is_valid, 0.85, "dni_letter"), _c(r"\b(?:dni|nif|documento)\b", _I), context_boost=0.1, priority=3, min_digits=8),
    PiiType("uk_nino", "government_id", _c(r"[A-CEGHJ-PR-TW-Z](?<!\w.)[A-CEGHJ-NPR-TW-Z] ?\d{2} ?\d{2} ?\d{2} ?[A-D]\b"), 0.8, _nino, _c(r"\b(?:national\s+insurance|nino|ni\s+number)\b", _I), context_boost=0.1, priority=2, min_digits=6),
    PiiType("medical_record", "health", _c(r"(?<![\w\-])[A-Z]{0,3}\d{6,10}(?![\w\-])"), 0.75, None, _c(r"\b(?:mrn|medical\s+record|patient\s+(?:id|number)|chart)\b", _I), True, priority=2, min_digits=6, context_gate=("mrn", "medical", "patient", "chart",)),
    # --- contact ----------------------------------------------------------------------------------
    PiiType("email", "contact", _c(r"[A-Za-z0-9._%+\-](?<![\w.+\-].)[A-Za-z0-9._%+\-]{0,63}@(?:[A-Za-z0-9\-]{1,63}\.){1,8}[A-Za-z]{2,24}\b"), 0.95, priority=2, gate=("@",), needs_digit=False),
    PiiType("phone_nanp", "contact", _c(rf"{_NB}(?:\+?1[\s.\-]?)?(?:\([2-9]\d{{2}}\)\s?|[2-9]\d{{2}}[\s.\-])[2-9]\d{{2}}[\s.\-]\d{{4}}(?![\d\-]|\.\d)"), 0.8, None, _c(r"\b(?:call|phone|tel|telephone|mobile|cell|fax|text|contact|reach|whatsapp|number)\b", _I), context_boost=0.12, priority=1, min_digits=10),
    PiiType("phone_intl", "contact", _c(r"\+(?<![\w+].)(?!1[\s.\-(]?[2-9]\d\d)[1-9]\d{0,3}(?:[\s.\-]\(?\d{1,10}\)?|\(\d{1,5}\)){1,6}(?![\d\-])|\+(?<![\w+].)[2-9]\d{7,14}(?!\d)"), 0.8, _phone_intl, _c(r"\b(?:call|phone|tel|telephone|mobile|cell|fax|whatsapp|office|line)\b", _I), context_boost=0.12, priority=1, gate=("+",), min_digits=8),
    PiiType("postal_address", "location", _c(r"\d(?<!\w.)\d{0,5}[A-Z]?\s+(?:[A-Z][a-z]{1,20}\.?\s+){1,4}(?:Street|St|Avenue|Ave|Road|Rd|Boulevard|Blvd|Drive|Dr|Lane|Ln|Court|Ct|Way|Place|Pl|Terrace|Parkway|Pkwy|Circle|Cir|Highway|Hwy|Square|Sq)\b\.?(?:,?\s+(?:Apt|Suite|Unit|#)\.?\s*\w{1,6})?(?:,\s*[A-Z][a-zA-Z]{1,20}(?:\s[A-Z][a-zA-Z]{1,20}){0,2},\s*[A-Z]{2}\s+\d{5}(?:-\d{4})?)?"), 0.75, priority=1, min_digits=1, gate=_STREET_WORDS),
    PiiType("date_of_birth", "personal", _c(_DATE, _I), 0.9, _dob, _c(r"\b(?:dob|d\.o\.b|date\s+of\s+birth|birth\s*date|birthday|born(?:\s+on)?)\b", _I), True, context_window=25, priority=2, min_digits=4, context_gate=("dob", "d.o.b", "birth", "born",), memo=False),
    # --- network and devices -------------------------------------------------------------------------
    PiiType("ipv4", "network", _c(r"\d(?<![\w.].)\d{0,2}\.(?:\d{1,3}\.){2}\d{1,3}(?![\w.]|\.\d)"), 0.85, _ipv4, negative_context=_c(r"\b(?:version|ver|release|section|sections|chapter|rule|clause|figure|table|step|build|§)\W{0,3}$", _I), priority=1, gate=(".",), min_digits=4),
    PiiType("ipv6", "network", _c(r"[0-9A-Fa-f:](?<![\w:].)(?:(?<=[0-9A-Fa-f])[0-9A-Fa-f]{0,3}:|(?<=:))(?:[0-9A-Fa-f]{1,4}:|:){1,6}(?::|[0-9A-Fa-f]{1,4})(?![\w:])"), 0.9, _ipv6, priority=1, gate=(":",), needs_digit=False),
    PiiType("mac_address", "network", _c(r"[0-9A-Fa-f](?<![\w:\-].)[0-9A-Fa-f]([:\-])(?:[0-9A-Fa-f]{2}\1){4}[0-9A-Fa-f]{2}(?![\w:\-])|[0-9A-Fa-f](?<!\w.)[0-9A-Fa-f]{3}\.[0-9A-Fa-f]{4}\.[0-9A-Fa-f]{4}\b"), 0.9, priority=2, gate=(":", "-", "."), needs_digit=False),
    # --- crypto wallets --------------------------------------------------------------------------
    PiiType("eth_address", "crypto", _c(r"0(?<!\w.)x[0-9a-fA-F]{40}\b"), 0.85, _eth, priority=3, gate=("0x",)),
    PiiType("btc_address", "crypto", _c(r"[13b](?<!\w.)(?:(?<=[13])[1-9A-HJ-NP-Za-km-z]{25,34}|(?<=b)c1[02-9ac-hj-np-z]{11,71})\b"), 0.95, _check(bitcoin.is_valid, 0.95, "base58check_or_bech32"), priority=3, min_digits=1),
)
# fmt: on

TYPES_BY_NAME: dict[str, tuple[PiiType, ...]] = {}
for _t in PII_TYPES:
    TYPES_BY_NAME[_t.name] = (*TYPES_BY_NAME.get(_t.name, ()), _t)
