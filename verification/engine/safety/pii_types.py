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
look-behind at every position (figures in docs/benchmarks.md, "The PII detector's machinery").
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
from types import ModuleType
from typing import cast

from stdnum import bic, bitcoin, iban
from stdnum.br import cpf
from stdnum.ca import sin
from stdnum.es import dni
from stdnum.exceptions import ValidationError
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
    space-separated group (an IBAN followed by an upper-case word, a card number followed by another
    number: "4526018159083012 000").  ``min_digits`` is the fewest digits
    a valid value holds (a text with fewer skips the type) and ``context_gate`` lists lower-case
    substrings one of which every required context word, or every match of a case-insensitive pattern,
    contains (looked for in the lower-cased text before the regex runs: "api_kEY=" holds "key").
    ``lowered_form`` is a case-sensitive form of a case-insensitive ``pattern`` that finds the same
    spans in the lower-cased text, wherever lower-casing keeps every offset and the text holds no "ſ"
    or "ı" (the only characters that ``re.IGNORECASE`` matches to an ASCII letter while ``str.lower``
    leaves them alone; a test checks every code point): without ``re.IGNORECASE`` the regex engine can
    skip to the characters that may start a match.  ``memo`` lets the
    engine remember the validator's verdict per value: true unless the verdict depends on more than the
    value (a date of birth is checked against today's date).  ``label_after`` (words, for a type that
    requires context) stands for the context when one of its words follows the value as its label
    ("0467029574 fax", "5835929779-Office", "555 234 5678 (mobile)"; see ``pii._collect_before_label``).
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
    label_after: re.Pattern[str] | None = None


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
    r"^(?:4|5[1-5]|2(?:22[1-9]|2[3-9]\d|[3-6]\d\d|7[01]\d|720)|3[47]|6011|65|64[4-9]|35|"
    r"30[0-5]|36|38|62|50|5[6-8]|6[0-9]|1800|2131)"
)
# Maestro's 12-digit numbers (the shortest length the scheme issues): only after a card word, as twelve
# digits with a valid Luhn digit are one in ten of all twelve-digit numbers (order and Aadhaar ids).
_MAESTRO_PREFIXES = re.compile(r"^(?:50[0-9]|5[6-8]|6)")


def _luhn(digits: str) -> bool:
    """``luhn.is_valid(digits)`` (python-stdnum): a non-empty string of ASCII digits whose Luhn sum is a
    multiple of ten.  In this compiled module the loop runs as machine integers; stdnum's (a tuple of
    ``str.index`` calls, two sums, a ``divmod`` per other digit) stays interpreted, and a never-seen card
    number paid it in full.  A test compares the two.

    >>> _luhn("4111111111111111"), _luhn("4111111111111112"), _luhn("")
    (True, False, False)
    """
    if not digits or not (digits.isascii() and digits.isdigit()):
        return False  # stdnum: an empty number, or a character outside "0123456789"
    total = 0
    double = False
    for k in range(len(digits) - 1, -1, -1):
        digit = ord(digits[k]) - 48
        if double:
            digit *= 2
            if digit > 9:
                digit -= 9
        total += digit
        double = not double
    return total % 10 == 0


def _card(value: str) -> tuple[float, str] | None:
    digits = _digits(value)
    if not 13 <= len(digits) <= 19 or not _CARD_PREFIXES.match(digits) or not _luhn(digits):
        return None
    # All-same digits ("0000 0000 0000 0000") pass Luhn but are placeholders, not cards.
    if len(set(digits)) == 1:
        return None
    return 0.95, "luhn"


def _card12(value: str) -> tuple[float, str] | None:
    digits = _digits(value)
    if len(digits) != 12 or not _MAESTRO_PREFIXES.match(digits) or not _luhn(digits):
        return None
    return 0.9, "luhn"


def _ssn(value: str) -> tuple[float, str] | None:
    compact = _digits(value)
    if compact.startswith("9"):
        return None  # 9xx is the ITIN range, never an SSN
    return (0.9, "ssn_rules") if ssn.is_valid(compact) else None


def _iban(value: str) -> tuple[float, str] | None:
    compact = _compact(value)
    if not (compact.isascii() and compact.isalnum()):
        return (0.97, "iban_mod97") if iban.is_valid(compact) else None
    if _mod97(compact) != 1:
        return None  # stdnum checks the same sum first (its registry look-up costs far more)
    return (0.97, "iban_mod97") if _iban_registered(compact.upper()) else None


# Per country code (a number's first two characters), what stdnum's ``iban.validate`` checks after the
# checksum: the BBAN structure of its registry entry as a compiled pattern (``None``: no entry, the number
# is refused) and the ``validate`` of the country's own IBAN module (``None``: there is none).  stdnum finds the entry by a
# walk over its 89 registry prefixes and converts the structure to a pattern (a substitution with a
# Python callback, then ``re``'s cache) for every number: a third of the check of a never-seen IBAN.
_IbanRule = tuple[re.Pattern[str] | None, Callable[[str], str] | None]
_IBAN_RULES: dict[str, _IbanRule] = {}
# stdnum's notation of a BBAN structure ("4!n4!n12!c"): a length, "!", a class of characters.
_IBAN_STRUCTURE = re.compile(r"([1-9][0-9]*)!([nac])")
_IBAN_CLASSES = {"n": "[0-9]", "a": "[A-Z]", "c": "[A-Za-z0-9]"}


def _iban_structure(structure: str) -> re.Pattern[str]:
    """The pattern stdnum's ``iban._struct_to_re`` builds for a BBAN ``structure`` (a test compares them).

    >>> _iban_structure("4!a6!n8!n").pattern
    '^[A-Z]{4}[0-9]{6}[0-9]{8}$'
    """
    parts: list[str] = []
    at = 0
    for match in _IBAN_STRUCTURE.finditer(structure):
        parts.append(structure[at : match.start()])
        parts.append(f"{_IBAN_CLASSES[match.group(2)]}{{{match.group(1)}}}")
        at = match.end()
    parts.append(structure[at:])
    return re.compile("^" + "".join(parts) + "$")


def _iban_rule(country: str) -> _IbanRule | None:
    """The rule of ``_IBAN_RULES`` for the two characters ``country``, or ``None`` where stdnum's registry
    is not keyed by two characters alone (then the entry a number gets may depend on more of it)."""
    from stdnum import numdb
    from stdnum.util import get_cc_module

    registry = numdb.get("iban")
    if any(prefix[0] != 2 or prefix[4] for prefix in registry.prefixes):
        return None
    # ``info`` of the whole number and of its first two characters give the same first entry: every
    # prefix is two characters long and has no children.
    properties = registry.info(country)[0][1]
    if not properties:
        return None, None
    module = get_cc_module(lower(country), "iban")
    return _iban_structure(properties.get("bban", "")), None if module is None else module.validate


def _iban_registered(number: str) -> bool:
    """``iban.is_valid(number)`` for an upper-case ASCII letters-and-digits ``number`` whose mod 97-10 sum
    is 1: its country's registry entry, its BBAN structure, its country's own check, as stdnum checks
    them, with the entry and the structure's pattern looked up once per country code."""
    country = number[:2]
    rule = _IBAN_RULES.get(country)
    if rule is None:
        built = _iban_rule(country)
        if built is None:
            return iban.is_valid(number)
        rule = _IBAN_RULES[country] = built  # at most 36 * 36 codes: letters and digits
    pattern, validate = rule
    if pattern is None or pattern.match(number[4:]) is None:
        return False
    if validate is not None:
        try:
            validate(number)
        except ValidationError:
            return False
    return True


def _mod97(compact: str) -> int:
    """ISO 7064 mod 97-10 of an IBAN written with ASCII letters and digits (its first four
    characters moved to its end, each letter read as two digits, 10 to 35): 1 for a valid one.

    >>> _mod97("GB82WEST12345698765432"), _mod97("GB82WEST12345698765431")
    (1, 71)
    """
    remainder = 0
    for char in compact[4:] + compact[:4]:
        digit = int(char, 36)
        remainder = (remainder * (10 if digit < 10 else 100) + digit) % 97
    return remainder


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
    parts = value.split(".")
    if any(len(part) > 1 and part.startswith("0") for part in parts):
        return None  # "01.02.03.04" is a version or a date, not how addresses are written
    if parts[0] == "0":
        return None  # 0.0.0.0/8 holds no host: "0.9.1.2" is a version
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


# Verdicts of ``_dob`` by value and day: it tries up to ten ``strptime`` formats, and the type's
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


# The numeric formats of ``_DOB_FORMATS`` as ``strptime`` reads them: the regular expression
# ``_strptime.TimeRE`` builds for each (its "%Y", "%m" and "%d", which no locale changes; a test compares
# the strings with the library's), compiled with its flag.  ``strptime`` matches it from the start, refuses
# a value with text left over, and builds the date from the three groups' integers, which refuses a day the
# month lacks: so does ``_numeric_date``.  On a never-seen value each ``strptime`` call cost about 15 us
# interpreted (its lock, a locale check, a cache look-up, a walk over every directive), most of ``_dob``.
_DATE_Y = r"(?P<Y>\d\d\d\d)"
_DATE_M = r"(?P<m>1[0-2]|0[1-9]|[1-9])"
_DATE_D = r"(?P<d>3[0-1]|[1-2]\d|0[1-9]|[1-9]| [1-9])"
_NUMERIC_DATE_PATTERNS: dict[str, str] = {
    "%Y-%m-%d": f"{_DATE_Y}-{_DATE_M}-{_DATE_D}",
    "%m/%d/%Y": f"{_DATE_M}/{_DATE_D}/{_DATE_Y}",
    "%d/%m/%Y": f"{_DATE_D}/{_DATE_M}/{_DATE_Y}",
    "%d.%m.%Y": rf"{_DATE_D}\.{_DATE_M}\.{_DATE_Y}",
    "%m-%d-%Y": f"{_DATE_M}-{_DATE_D}-{_DATE_Y}",
    "%d-%m-%Y": f"{_DATE_D}-{_DATE_M}-{_DATE_Y}",
}
_NUMERIC_DATES: dict[str, re.Pattern[str]] = {
    fmt: re.compile(pattern, re.IGNORECASE) for fmt, pattern in _NUMERIC_DATE_PATTERNS.items()
}


def _numeric_date(pattern: re.Pattern[str], data: str) -> dt.date:
    """``dt.datetime.strptime(data, fmt).date()`` for a numeric format of ``_DOB_FORMATS`` given as its
    compiled ``pattern`` (``_NUMERIC_DATES``): the same date, or ``ValueError`` where ``strptime`` raises one.

    >>> _numeric_date(_NUMERIC_DATES["%d.%m.%Y"], "14.3.1985")
    datetime.date(1985, 3, 14)
    """
    found = pattern.match(data)
    if found is None or found.end() != len(data):
        raise ValueError("no date in this format")
    return dt.date(int(found.group("Y")), int(found.group("m")), int(found.group("d")))


def _dob_on(value: str, today: dt.date) -> tuple[float, str] | None:
    text = value.replace(",", " ")
    for fmt, separator in _DOB_FORMATS:
        if separator and separator not in text:
            continue  # ``strptime`` cannot match a literal the text lacks: skip its (costly) failure
        numeric = _NUMERIC_DATES.get(fmt)
        try:
            if numeric is not None:
                date = _numeric_date(numeric, " ".join(text.split()))
            else:
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


# Documentation samples and placeholders that have a key's shape: AWS's own examples
# ("AKIAIOSFODNN7EXAMPLE"), filler runs ("sk_live_xxxxxxxxxxxxxxxxxxxxxxxx"), counting sequences.  A real
# key is random: the chance of eight equal characters in a row in a base-62 key is below 1 in 10^11.
_FILLER = re.compile(r"(.)\1{7,}|0123456789|123456789|abcdefghij|ABCDEFGHIJ")
_SAMPLE_WORDS = ("example", "sample", "placeholder", "your_", "your-", "yourkey", "dummy", "redacted", "changeme", "insert", "xxxx", "_here", "-here")  # fmt: skip


def is_sample_value(value: str) -> bool:
    """Whether a key-shaped ``value`` is a documentation sample or a placeholder, not a secret.

    >>> is_sample_value("AKIAIOSFODNN7EXAMPLE"), is_sample_value("sk_live_xxxxxxxxxxxxxxxxxxxxxxxx")
    (True, True)
    >>> is_sample_value("sk_live_4eC39HqLyjWDarjtT1zdp7dc")
    False
    """
    folded = lower(value)
    return _FILLER.search(value) is not None or any(word in folded for word in _SAMPLE_WORDS)


def _secret(confidence: float, inner: Validator | None = None) -> Validator:
    """A validator that rejects samples and placeholders, then applies ``inner`` (if any)."""

    def validate(value: str) -> tuple[float, str] | None:
        if is_sample_value(value):
            return None
        return (confidence, "") if inner is None else inner(value)

    return validate


# The Bech32m constant (BIP-350): Taproot (witness version 1 and up) addresses use it, where python-stdnum
# checks only Bech32's constant 1 (witness version 0).
_BECH32M_CONST = 0x2BC830A3
_BECH32_ALPHABET = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"


# The human-readable part "bc" as the Bech32 checksum reads it (BIP-173).
_BC_HRP = [ord(c) >> 5 for c in "bc"] + [0] + [ord(c) & 31 for c in "bc"]


def _bech32_polymod(values: list[int]) -> int:
    """The Bech32 checksum of ``values`` (five-bit groups, the human-readable part expanded first), as
    BIP-173 defines it (its generator's five constants below): 1 for a valid Bech32 string, ``_BECH32M_CONST`` for a valid Bech32m one.

    The same number as stdnum's ``bitcoin.bech32_checksum`` (a test compares them), written here
    because this module is compiled: its loop of five tests per character then runs as machine
    integers, where stdnum's interpreted one cost most of the check of a never-seen Taproot address.

    >>> _bech32_polymod(_BC_HRP + [_BECH32_ALPHABET.index(c) for c in "qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq"])
    1
    """
    checksum = 1
    for value in values:
        top = checksum >> 25
        checksum = (checksum & 0x1FFFFFF) << 5 ^ value
        # One test per bit of ``top``, written out (interpreted: 20 us an address, stdnum 30 us).
        if top & 1:
            checksum ^= 0x3B6A57B2
        if top & 2:
            checksum ^= 0x26508E6D
        if top & 4:
            checksum ^= 0x1EA119FA
        if top & 8:
            checksum ^= 0x3D4233DD
        if top & 16:
            checksum ^= 0x2A1462B3
    return checksum


def _btc(value: str) -> tuple[float, str] | None:
    folded = lower(value)
    if not (value.startswith("bc1") and value.isascii() and value.isalnum()):
        # A Base58Check address (or anything else the caller passes): stdnum's check, then Bech32m.
        if bitcoin.is_valid(value):
            return 0.95, "base58check_or_bech32"
        if not folded.startswith("bc1") or any(c not in _BECH32_ALPHABET for c in folded[3:]):
            return None
        return _bech32m(folded, _bech32_polymod(_BC_HRP + [_BECH32_ALPHABET.index(c) for c in folded[3:]]))
    # A Bech32 address (as the pattern gives them: nothing for stdnum's ``compact`` to remove, so it
    # reads the same lower-cased form): its checksum is computed once.  stdnum accepts only the
    # constant 1 (Bech32), after its alphabet and length checks; the Taproot form (Bech32m) is
    # checked here.  Same verdicts as stdnum's check followed by the Bech32m one (a test compares
    # them with that first form, tests/engine_safety/pii_reference.py), at half the cost of a Taproot
    # address.
    if any(c not in _BECH32_ALPHABET for c in folded[3:]):
        return None  # stdnum: an invalid format; here: not Bech32m either
    checksum = _bech32_polymod(_BC_HRP + [_BECH32_ALPHABET.index(c) for c in folded[3:]])
    if checksum == 1:
        return (0.95, "base58check_or_bech32") if bitcoin.is_valid(value) else None
    return _bech32m(folded, checksum)


def _bech32m(folded: str, checksum: int) -> tuple[float, str] | None:
    """The verdict on a lower-cased "bc1" address, all in the Bech32 alphabet, that stdnum turned down,
    given its ``checksum``: a Taproot address (witness version 1 and up) whose checksum is Bech32m's."""
    if folded[3:4] == "q" or not 14 <= len(folded) <= 90:
        return None  # witness version 0 ("q") must use Bech32, which stdnum checks
    return (0.95, "bech32m") if checksum == _BECH32M_CONST else None


def _phone_library() -> ModuleType:
    """``phonenumbers``, imported on first use (it loads its metadata then), with its cache of compiled
    metadata patterns switched on.

    Without it the library compiles each metadata pattern through ``re.compile``, whose cache lookup
    (about 20 per number parsed and checked) cost an eighth of ``_phone_national`` on never-seen
    values (docs/benchmarks.md, "PII validation of never-seen values (h17c)"), and whose cache of 512
    patterns the metadata of many regions can overflow.  The switch only keeps the compiled patterns:
    the same patterns, the same verdicts.  Versions without the switch (8.13) are left as they are.
    """
    if _PHONE_LIBRARY:
        return _PHONE_LIBRARY[0]
    import phonenumbers
    from phonenumbers import re_util

    enable = getattr(re_util, "enable_pattern_cache", None)
    if enable is not None:
        enable()  # idempotent: two threads may both get here
    _PHONE_LIBRARY.append(phonenumbers)
    return phonenumbers


_PHONE_LIBRARY: list[ModuleType] = []


# Regions whose national layouts (a leading trunk "0", no country code) ``_phone_national`` tries, in order.
_NATIONAL_REGIONS = ("GB", "DE", "FR", "IN", "AU", "IT", "ES", "NL", "IE", "BE", "CH", "AT", "SE", "PL", "BR", "JP", "MX", "ZA", "NZ")  # fmt: skip


# The fewest ASCII digits of a national layout that can be valid in one of ``_NATIONAL_REGIONS``.  The
# pattern lets four through ("0927", "(01) 23"): the trunk "0" and three digits, shorter than any of
# the regions' numbers (the shortest are German and Austrian, four digits after the "0"), and read
# through an international prefix ("0" "9" in Mexico) too short for a country code and a number.  The
# tests check every four-digit layout the pattern admits against the loop below.  Without this, such
# a value cost 19 ``phonenumbers.parse`` calls before it was turned down (a third of the phone checks
# of a pass over the generated lines, where dates, times and ids give them).
_NATIONAL_MIN_DIGITS = 5


def _phone_national(value: str) -> tuple[float, str] | None:
    """A number in a national layout ("020 7946 0958", "030 1234567") valid in one of the regions.

    Each region in turn, as ``phonenumbers`` reads the value there (an unparsable value ends it),
    less the regions that can neither read it as valid nor refuse it (``_national_skip``): the same
    verdict with fewer of the parses (a value valid nowhere used to cost 19).  Where the region's
    international prefix does not start the digits, the region's reading comes from the library's
    metadata (``_national_read``), without ``parse`` and ``is_valid_number`` (h25c).
    """
    phonenumbers = _phone_library()

    if value.isascii() and sum(map(value.count, "0123456789")) < _NATIONAL_MIN_DIGITS:
        return None
    digits = ""
    if _NATIONAL_LAYOUT.fullmatch(value) is not None:
        digits = _NON_DIGIT.sub("", value)
        if not _NSN_MIN + 1 <= len(digits) <= _NSN_MAX:
            digits = ""  # the parser may refuse it for its length: every region is asked
    rules = _national_rules() if digits else None
    # The digits after an international prefix that a region already read and found valid nowhere:
    # a region that strips its prefix to the same digits reads the same number ("0044..." in Britain,
    # Germany, France and every region dialling "00"), so it is not asked again (``_idd_rest``).
    read_after_idd: list[str] = []
    for index, region in enumerate(_NATIONAL_REGIONS):
        rest = None
        if rules is not None:
            rule = rules[index]
            if _national_skip(digits, rule):
                continue
            rest = _idd_rest(digits, rule)
            if rest is not None and rest in read_after_idd:
                continue
            if rule is not None and rule[0].match(digits) is None:
                # No international prefix: read from the metadata, as the library would (h25c).
                verdict = _national_read(digits, _national_readers()[index])
                if verdict == _READ_VALID:
                    return 0.85, "phonenumbers"
                if verdict == _READ_INVALID:
                    continue
        try:
            number = phonenumbers.parse(value, region)
        except phonenumbers.NumberParseException:
            return None
        if phonenumbers.is_valid_number(number):
            return 0.85, "phonenumbers"
        if rest is not None:
            read_after_idd.append(rest)
    return None


_NO_SKIPS: tuple[bool, ...] = (False,) * len(_NATIONAL_REGIONS)
# The values ``_national_skips`` reads: a trunk "0" (no country code, no international "+"), then ASCII
# digits and the pattern's separators only (a letter may be a keypad digit or an extension's label).
_NATIONAL_LAYOUT = re.compile(r"\(?0[0-9 ./\-()]*")
# Per region of ``_NATIONAL_REGIONS``, what ``phonenumbers.parse`` reads of a value written with ASCII
# digits and the separators of the ``phone_national`` pattern (its digits, in order: the separators,
# brackets and an extension-free tail change nothing), built on first use from the library's metadata:
# the international (IDD) prefix, the national prefix it strips, and the general description (lengths
# and pattern) of each region of the country code with the descriptions of its number types (fixed line,
# mobile, toll free, ...), of which a valid number matches the general one and one type's.  ``None`` for
# a region that rewrites its national prefix (Brazil, Japan): it is always asked.
_Description = tuple[re.Pattern[str], frozenset[int]]
_General = tuple[re.Pattern[str], frozenset[int], tuple[_Description, ...]]
# The number types ``phonenumbers`` reads a valid number as (``_number_type_helper``): a number that
# matches none of them in its region is of type UNKNOWN, which ``is_valid_number`` refuses.
_NUMBER_TYPES = ("premium_rate", "toll_free", "shared_cost", "voip", "personal_number", "pager", "uan", "voicemail", "fixed_line", "mobile")  # fmt: skip
_NationalRule = tuple[re.Pattern[str], re.Pattern[str] | None, tuple[_General, ...]] | None
_NATIONAL_RULES: list[_NationalRule] = []
# phonenumbers' bounds on a national number: shorter or longer ones are refused, not turned down.
_NSN_MIN, _NSN_MAX = 2, 17


def _national_rules() -> list[_NationalRule]:
    if _NATIONAL_RULES:
        return _NATIONAL_RULES
    from phonenumbers import COUNTRY_CODE_TO_REGION_CODE, PhoneMetadata

    rules: list[_NationalRule] = []
    for region in _NATIONAL_REGIONS:
        metadata = PhoneMetadata.metadata_for_region(region)
        assert metadata is not None and metadata.country_code is not None
        generals: list[_General] = []
        for other in COUNTRY_CODE_TO_REGION_CODE[metadata.country_code]:
            other_metadata = PhoneMetadata.metadata_for_region(other)
            general = None if other_metadata is None else other_metadata.general_desc
            if general is not None and general.national_number_pattern:
                # No pattern: no number of that region is valid (``_match_national_number``).
                types: list[_Description] = []
                for name in _NUMBER_TYPES:
                    desc = getattr(other_metadata, name, None)
                    if desc is not None and desc.national_number_pattern:
                        types.append(
                            (re.compile(desc.national_number_pattern), frozenset(desc.possible_length or ()))
                        )
                generals.append(
                    (
                        re.compile(general.national_number_pattern),
                        frozenset(general.possible_length or ()),
                        tuple(types),
                    )
                )
        prefix = metadata.national_prefix_for_parsing
        if metadata.international_prefix is None or metadata.national_prefix_transform_rule:
            rules.append(None)
            continue
        rules.append(
            (
                re.compile(metadata.international_prefix),
                re.compile(prefix) if prefix else None,
                tuple(generals),
            )
        )
    _NATIONAL_RULES[:] = rules
    return _NATIONAL_RULES


def _general_match(number: str, generals: tuple[_General, ...]) -> bool:
    """Whether national ``number`` matches the general description of one of the regions and the
    description of one of that region's number types: for each, its length among the possible lengths
    (any, where none are listed) and the pattern, whole (``phonenumbers._is_number_matching_desc``).

    The types were added in h24g: a number that matches a region's general description and none of
    its types (of which a valid number matches one) cost a parse and a check before."""
    for pattern, lengths, types in generals:
        if (not lengths or len(number) in lengths) and pattern.fullmatch(number) is not None:
            for type_pattern, type_lengths in types:
                if (not type_lengths or len(number) in type_lengths) and type_pattern.fullmatch(
                    number
                ) is not None:
                    return True
    return False


def _national_skip(digits: str, rule: _NationalRule) -> bool:
    """Whether a value with these ASCII ``digits`` (a trunk "0" first, 3 to 17 of them) can be neither
    valid in the region of ``rule`` nor refused there by the parser: its digits do not start with the
    region's international prefix (which would read a country code), and neither they nor they less
    the national prefix match the general description of a region of the country code and the
    description of one of its number types.  Exact: ``phonenumbers`` reads one of the two as the
    national number, and a valid one matches such descriptions (``is_valid_number`` checks the general
    one first, then the types'); the parser refuses a value for its length only below 2 or above 17
    digits, and for its international prefix, which is never skipped."""
    if rule is None:
        return False
    international, national, generals = rule
    if international.match(digits) is not None or _general_match(digits, generals):
        return False
    stripped = None if national is None else national.match(digits)
    return stripped is None or not _general_match(digits[stripped.end() :], generals)


def _idd_rest(digits: str, rule: _NationalRule) -> str | None:
    """The digits that ``phonenumbers.parse`` reads a country code from when the region of ``rule``
    strips its international prefix from ``digits`` (a value of ``_NATIONAL_LAYOUT``), else ``None``.

    The parser strips the prefix unless a "0" follows it (no country code starts with "0"); from then
    on it reads the country code and the number from these digits alone, with the metadata of the
    country code found, never the region's: two regions that leave the same digits parse the value to
    the same number, or refuse it alike.
    """
    if rule is None:
        return None
    idd = rule[0].match(digits)
    if idd is None or digits[idd.end() : idd.end() + 1] == "0":
        return None
    return digits[idd.end() :]


# The national reading of a value of ``_NATIONAL_LAYOUT`` in one region, without ``phonenumbers.parse``
# and ``is_valid_number`` (h25c): per region of ``_NATIONAL_REGIONS``, what the two read of the
# library's metadata, built on first use.  The national prefix pattern, the region's general
# description's pattern (its "viable" test when stripping the prefix), the general description's
# possible lengths and local-only lengths (``_test_number_length``), whether the country code has one
# region only, and per region of the country code, in the library's order, its leading digits and its
# descriptions (the general one and the number types', as ``_General``; ``None`` where the general one
# has no pattern: no number is valid there).  ``None`` for a region that rewrites its national prefix or
# has no international prefix (always asked).
_ReadRegion = tuple[re.Pattern[str] | None, _General | None]
_NationalReader = (
    tuple[
        re.Pattern[str] | None,
        re.Pattern[str] | None,
        tuple[int, ...],
        frozenset[int],
        bool,
        tuple[_ReadRegion, ...],
    ]
    | None
)
_NATIONAL_READERS: list[_NationalReader] = []
# ``_national_read``'s verdicts: valid, read and not valid, and "ask the library" (a case it does not
# decide: the parser may refuse the value, or the metadata has a shape it does not read).
_READ_VALID, _READ_INVALID, _READ_ASK = 1, 0, -1


def _descriptions(metadata: object) -> _General | None:
    """The general description of ``metadata`` with its number types', as ``_number_type_helper``
    reads them (mobile only where it is not declared the same pattern as fixed line), or ``None``."""
    general = getattr(metadata, "general_desc", None)
    if general is None or not general.national_number_pattern:
        return None
    same = bool(getattr(metadata, "same_mobile_and_fixed_line_pattern", False))
    types: list[_Description] = []
    for name in _NUMBER_TYPES:
        if name == "mobile" and same:
            continue
        desc = getattr(metadata, name, None)
        if desc is not None and desc.national_number_pattern:
            types.append((re.compile(desc.national_number_pattern), frozenset(desc.possible_length or ())))
    return (
        re.compile(general.national_number_pattern),
        frozenset(general.possible_length or ()),
        tuple(types),
    )


def _national_readers() -> list[_NationalReader]:
    if _NATIONAL_READERS:
        return _NATIONAL_READERS
    _phone_library()
    from phonenumbers import COUNTRY_CODE_TO_REGION_CODE, PhoneMetadata

    readers: list[_NationalReader] = []
    for region in _NATIONAL_REGIONS:
        metadata = PhoneMetadata.metadata_for_region(region)
        assert metadata is not None and metadata.country_code is not None
        general = metadata.general_desc
        if (
            metadata.international_prefix is None
            or metadata.national_prefix_transform_rule
            or general is None
            or not general.possible_length
        ):
            readers.append(None)
            continue
        regions: list[_ReadRegion] = []
        for other in COUNTRY_CODE_TO_REGION_CODE[metadata.country_code]:
            other_metadata = PhoneMetadata.metadata_for_region(other.upper(), None)
            if other_metadata is None:
                continue  # ``_region_code_for_number_from_list`` passes it by
            leading = other_metadata.leading_digits
            regions.append((None if leading is None else re.compile(leading), _descriptions(other_metadata)))
        prefix = metadata.national_prefix_for_parsing
        readers.append(
            (
                re.compile(prefix) if prefix else None,
                re.compile(general.national_number_pattern) if general.national_number_pattern else None,
                tuple(general.possible_length),
                frozenset(general.possible_length_local_only or ()),
                len(COUNTRY_CODE_TO_REGION_CODE[metadata.country_code]) == 1,
                tuple(regions),
            )
        )
    _NATIONAL_READERS[:] = readers
    return _NATIONAL_READERS


def _number_of_type(number: str, descriptions: _General | None) -> bool:
    """Whether ``_number_type_helper`` reads national ``number`` as some type (not UNKNOWN)."""
    if descriptions is None:
        return False
    pattern, lengths, types = descriptions
    if (lengths and len(number) not in lengths) or pattern.fullmatch(number) is None:
        return False
    for type_pattern, type_lengths in types:
        if (not type_lengths or len(number) in type_lengths) and type_pattern.fullmatch(number) is not None:
            return True
    return False


def _national_read(digits: str, reader: _NationalReader) -> int:
    """``phonenumbers.parse(value, region)`` then ``is_valid_number``, for a value of
    ``_NATIONAL_LAYOUT`` with these ASCII ``digits`` (a trunk "0" first, 3 to 17 of them) that the
    region's international prefix does not start: ``_READ_VALID`` or ``_READ_INVALID``, or
    ``_READ_ASK`` where the parser might refuse the value (the library is asked then).

    The parser reads such a value as the region's (no country code starts with "0"), its digits as
    the national number, less the national prefix when the prefix matches, unless the digits match
    the general pattern and the rest does not, or the rest has no possible length
    (``_maybe_strip_national_prefix_carrier_code``, ``_test_number_length``).  The number's region is
    the country code's only one, or the first of its regions whose leading digits start it or that
    reads it as some type; it is valid when that region reads it as some type
    (``region_code_for_number``, ``is_valid_number_for_region``).  The tests compare it with the
    library on numbers of every layout and region."""
    if reader is None:
        return _READ_ASK
    prefix, viable, lengths, local_lengths, single, regions = reader
    number = digits
    if prefix is not None:
        found = prefix.match(digits)
        if found is not None:
            rest = digits[found.end() :]
            # Kept whole when the digits fit the general pattern and the rest does not.
            if viable is None or viable.fullmatch(digits) is None or viable.fullmatch(rest) is not None:
                size = len(rest)  # stripped when the rest has a possible length (or is too long)
                if size not in local_lengths and not (
                    lengths[0] > size
                    or (lengths[0] != size and size <= lengths[-1] and size not in lengths[1:])
                ):
                    number = rest
    if len(number) < _NSN_MIN:
        return _READ_ASK  # the parser refuses it (not reached: no region has such short numbers)
    if single:
        return _READ_VALID if _number_of_type(number, regions[0][1] if regions else None) else _READ_INVALID
    for leading, descriptions in regions:
        if leading is not None:
            if leading.match(number) is not None:
                return _READ_VALID if _number_of_type(number, descriptions) else _READ_INVALID
        elif _number_of_type(number, descriptions):
            return _READ_VALID
    return _READ_INVALID


def _national_skips(digits: str) -> tuple[bool, ...]:
    """``_national_skip`` for every region of ``_NATIONAL_REGIONS`` (all ``False`` where it does not
    apply: digits not starting with "0", fewer than 3 or more than 17)."""
    if not _NSN_MIN + 1 <= len(digits) <= _NSN_MAX or digits[:1] != "0":
        return _NO_SKIPS
    return tuple(_national_skip(digits, rule) for rule in _national_rules())


def _phone_us_digits(value: str) -> tuple[float, str] | None:
    """Ten digits in a row ("4155550132"), after a phone word: a valid NANP number."""
    phonenumbers = _phone_library()

    try:
        number = phonenumbers.parse(value, "US")
    except phonenumbers.NumberParseException:
        return None
    if phonenumbers.is_valid_number(number):
        return 0.85, "phonenumbers"
    # An area code not (yet) assigned still reads as a phone number after a phone word: the pattern
    # already holds the NANP layout (area and exchange codes start with 2-9), and a redactor that lets
    # "mobile 3739188821" through because the plan lacks area 373 leaks the number.
    return 0.6, "nanp_layout"


def _nino(value: str) -> tuple[float, str] | None:
    compact = _compact(value).upper()
    if compact[:2] in {"BG", "GB", "NK", "KN", "TN", "NT", "ZZ"}:
        return None
    return 0.85, "nino_rules"


# Words that number things other than houses: "Order 12, 12345 Items" is not an address.
_NOT_A_STREET = frozenset(
    {
        "order",
        "invoice",
        "ticket",
        "case",
        "item",
        "version",
        "page",
        "step",
        "section",
        "chapter",
        "table",
        "figure",
        "room",
        "line",
        "row",
        "build",
        "release",
        "issue",
        "ref",
        "reference",
        "note",
        "slide",
        "part",
        "unit",
        "question",
        "task",
        "sprint",
        "week",
        "day",
        "level",
    }
)


def _street_number_town(value: str) -> tuple[float, str] | None:
    """A "Street 12, 12345 Town" candidate whose first word numbers something else is not an address."""
    first = lower(value.split(None, 1)[0])
    return None if first in _NOT_A_STREET else (0.75, "street_postcode_town")


def _street_town_postcode(value: str) -> tuple[float, str] | None:
    """A street with its house number, then a town (and a postcode): none of its words may number
    something else ("Chapter 3 Section 4", "Order 12, Items, 12345"), and a last number that reads as a
    year ("Albums 2019") is no house number."""
    street = value.split(",", 1)[0]
    words = [lower(w.rstrip(".")) for w in street.split()]
    if any(w in _NOT_A_STREET for w in words):
        return None
    if "," not in value and (last := words[-1]).isdigit() and len(last) == 4 and last[:2] in ("19", "20"):
        return None
    return (0.75 if "," in value else 0.7), "street_number_town"


_MONTH_NAMES = frozenset(
    (
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
    )
)


def _street_number_postcode(value: str) -> tuple[float, str] | None:
    """``_street_town_postcode``, and no month before the number: "December 30, 1976 after" is a date."""
    words = value.split(",", 1)[0].split()
    if any(lower(w) in _MONTH_NAMES for w in words):
        return None
    return _street_town_postcode(value)


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

# An address written out to the postcode: number and street (any suffix), town, then a US state and ZIP
# code or a UK postcode; the tail is what makes it an address, so the street may end in any word.
_ZIP_OR_POSTCODE = r"(?:[A-Z]{2}\s+\d{5}(?:-\d{4})?|[A-Z]{1,2}\d[A-Z\d]?\s?\d[A-Z]{2})"
# US state and territory codes, for "Town, ST 12345".
_US_STATE = r"(?:A[KLRSZ]|C[AOT]|D[CE]|F[LM]|G[AU]|HI|I[ADLN]|K[SY]|LA|M[ADEINOPST]|N[CDEHJMVY]|O[HKR]|P[AR]|RI|S[CD]|T[NX]|UT|V[AIT]|W[AIVY])"
# A town after a postcode: a capitalised word, then hyphenated parts or up to two more capitalised words
# ("Duhamel-les-Bains", "Bad Brückenau").  ``[^\W\d_a-z]``: a letter that is not a lower-case ASCII one.
_TOWN = r"[^\W\d_a-z][\w']{1,30}(?:-[\w']{1,30}|\s[^\W\d_a-z][\w'\-]{1,30}){0,3}"
# The street words of German-style addresses ("Lindenweg 12, 10115 Berlin"): the street, one
# word, comes before the house number.
# (The patterns themselves stay ASCII, "Stra\w{1,2}e" for "Straße": the hyperscan prefilter projects texts
# onto ASCII and has no stand-in for a literal "ß".)
_STRASSE_WORDS = ("tra", "weg", "Weg", "gasse", "Gasse", "llee", "platz", "Platz", "damm", "Damm", "ufer", "Ufer")  # fmt: skip
# International streets (issue 16, third pass): a word of a street's name is capitalised, a particle
# ("de", "van", "degli") or a street word written in lower case ("rue", "ul.", "gate").
_STREET_NAME_WORD = r"(?:[^\W\d_a-z][\w'\-]{0,30}\.?|d[aeiou]|de[ils]|della|degli|dos|das|van|von|der|den|la|le|les|y|ul\.|ulica|rue|route|avenue|cours|via|calle|rua|gate|vei|veien|vej|gatan|straat|weg|laan)"  # fmt: skip
_INTL_POSTCODE = r"(?:\d{3,5}(?:[ \-]\d{2,3})?(?:[ \t][A-Z]{2}(?![\w\-]))?|[A-Z]{1,2}\d[A-Z\d]?[ \t]?\d[A-Z]{2}|[A-Z]\d[A-Z][ \t]?\d[A-Z]\d)(?![\w\-])"
# A town of capitalised words on the line of its postcode (``_TOWN`` may run on to the next line).
_TOWN_ON_LINE = r"[^\W\d_a-z][\w']{1,30}(?:-[\w']{1,30}|[ \t][^\W\d_a-z][\w'\-]{1,30}){0,3}"
# The words of a flat or floor after a house number (Spanish, Italian, Portuguese, English).
_FLOOR_WORD = r"(?:Piso|Puerta|Planta|Piano|Appartamento|Interno|Scala|Andar|Apto\.?|Apt\.?|Flat|Floor)"
_INTL_TOWN = r"[^\W\d_][\w'\-]{0,30}(?:[ \t][^\W\d_][\w'\-]{0,30}){0,4}"
# Substrings one of which every street suffix of ``postal_address`` contains (its regex is case-sensitive).
# A phone extension ("x131", " ext. 12") is part of the number: redacting it with the number keeps the
# line from naming the person's desk.
_EXTENSION = r"(?:\s?(?:x|ext\.?)\s?\d{1,6}\b)?"
# A URL: a scheme or "www.", then everything up to white space or a quote, less trailing punctuation
# ("see https://x.org/a." ends at "a").
_URL_TAIL = r"""(?:[^\s<>"'`]{0,2040}[^\s<>"'`.,;:!?)\]}])?"""
# The path of a URL with credentials, kept with it so the redaction takes the whole URL.
_URL_PATH = r"""(?:/(?:[^\s<>"'`]{0,2040}[^\s<>"'`.,;:!?)\]}])?)?"""
# US state licence layouts (letters then digits: CA "A1234567", FL "S123-456-78-901-0", NY "123 456 789",
# digits only 7-12) and the UK's "MORGA753116SM9IJ"; always after a licence word.
_LICENCE = r"(?<![\w\-])(?:[A-Z]{1,2}\d{4,14}|[A-Z]\d{3}(?:[\- ]\d{1,4}){2,4}|\d{3}[\- ]\d{3}[\- ]\d{3}(?:[\- ]\d{3})?|\d{7,12}|[A-Z9]{5}\d{6}[A-Z9]{2}\d[A-Z]{2}|\d{2}[A-Z]{3}\d{5}|[A-Z]\d{2}-\d{2}-\d{4})(?![\w\-])"
_LICENCE_WORDS = r"\b(?:driver'?s?\s+licen[cs]e|driving\s+licen[cs]e|driver\s+license|licen[cs]e\s+(?:no|number|#)|dl\s*(?:no|number|#)|dl|d\.l\.|dln)\b\.?"
# Product codes and other numbers after these words are not phone numbers ("SKU 555-123-4567", "Model
# 212-555-0147", "routing number 054043513").
_NOT_A_PHONE = r"\b(?:sku|model|part|item|product|p/n|pn|mpn|upc|ean|serial|s/n|catalog|cat|ref|reference|order|invoice|ticket|case|tracking|routing|account|acct|policy|member|customer|licen[cs]e|passport|ssn|tax|vat)\b\W{0,4}(?:no\.?|number|num|id|code|#)?\W{0,3}$"

# A phone's label written after the number (h24f): the words that name a line ("0467029574 fax",
# "5835929779-Office", "555 234 5678 (mobile)").  The ``weak`` ones are ordinary words too ("home", "work",
# "office"): they count only in brackets, after a dash or ending their line, as in a signature's list of
# numbers ("555 234 5678 (home)", "01227 323236-Office"), not in running text ("1234567890 home runs").
_PHONE_LABEL_AFTER = r"\b(?:(?P<strong>mobile|mob|cell|cellphone|fax|tel|telephone|phone|whatsapp|landline)|(?P<weak>office|work|home|main|direct|desk))\b"
# The substrings of those words for ``context_gate`` ("mob" holds "mobile", "tel" "telephone").
_PHONE_LABEL_GATE = ("mob", "cell", "fax", "tel", "phone", "whatsapp", "landline", "office", "work", "home", "main", "direct", "desk")  # fmt: skip

_STREET_WORDS = ("St", "Av", "Road", "Rd", "Boulevard", "Blvd", "Dr", "Lane", "Ln", "Court", "Ct", "Way", "Pl", "Terrace", "Parkway", "Pkwy", "Cir", "Highway", "Hwy", "Sq")  # fmt: skip

# fmt: off
PII_TYPES: tuple[PiiType, ...] = (
    # --- credentials and secrets (specific formats first: they win overlaps) ----------------------
    PiiType("private_key", "credential", _c(r"-----BEGIN (?:[A-Z0-9]{1,12} ){0,3}PRIVATE KEY(?: BLOCK)?-----"), 0.99, priority=5, gate=("PRIVATE KEY",), block_end=_c(r"-----END (?:[A-Z0-9]{1,12} ){0,3}PRIVATE KEY(?: BLOCK)?-----"), needs_digit=False),
    PiiType("credential_url", "credential", _c(r"\b[a-z][a-z0-9+.\-]{1,20}://[^\s:/@]{1,64}:[^\s@/]{1,128}@[^\s/]{1,255}" + _URL_PATH, _I), 0.95, priority=5, gate=("://",), needs_digit=False, lowered_form=_c(r"[a-z](?<!\w.)[a-z0-9+.\-]{1,20}://[^\s:/@]{1,64}:[^\s@/]{1,128}@[^\s/]{1,255}" + _URL_PATH)),
    PiiType("anthropic_key", "credential", _c(r"sk-ant-(?<!\w.{7})(?:api|admin|oat)\d{2}-[A-Za-z0-9_\-]{60,200}"), 0.98, _secret(0.98), priority=5, gate=("sk-ant-",), needs_digit=False),
    PiiType("openai_key", "credential", _c(r"sk-(?<!\w.{3})(?!ant-)(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{32,200}"), 0.9, _secret(0.9), priority=4, gate=("sk-",), needs_digit=False),
    PiiType("aws_access_key", "credential", _c(r"A(?<!\w.)(?:KIA|SIA|GPA|IDA|ROA|NPA|NVA|IPA)[A-Z2-7]{16}\b"), 0.97, _secret(0.97), priority=5, gate=("AKIA", "ASIA", "AGPA", "AIDA", "AROA", "ANPA", "ANVA", "AIPA"), needs_digit=False),
    PiiType("aws_secret_key", "credential", _c(r"(?<![A-Za-z0-9/+])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])"), 0.9, _secret(0.9, _aws_secret), _c(r"aws_?secret|secret_?access_?key|secret\s+access\s+key|aws\s+secret", _I), True, context_window=50, priority=4, needs_digit=False, context_gate=("secret",)),
    PiiType("github_token", "credential", _c(r"g(?<!\w.)(?:h[pousr]_[A-Za-z0-9]{36,255}\b|ithub_pat_[A-Za-z0-9_]{22,255}\b)"), 0.98, _secret(0.98), priority=5, gate=("gh", "github_pat_"), needs_digit=False),
    PiiType("gitlab_token", "credential", _c(r"glpat-(?<!\w.{6})[0-9A-Za-z_\-]{20,64}(?![0-9A-Za-z_\-])"), 0.97, _secret(0.97), priority=5, gate=("glpat-",), needs_digit=False),
    PiiType("slack_token", "credential", _c(r"xox(?<!\w.{3})[abposr]-(?:\d{8,13}-){1,3}[A-Za-z0-9\-]{16,64}\b"), 0.97, _secret(0.97), priority=5, gate=("xox",), min_digits=8),
    PiiType("slack_webhook", "credential", _c(r"https://hooks\.slack\.com/services/T[A-Z0-9]{6,12}/B[A-Z0-9]{6,12}/[A-Za-z0-9]{16,32}"), 0.97, priority=5, gate=("hooks.slack.com",)),
    PiiType("stripe_key", "credential", _c(r"[srp](?<!\w.)k_(?:live|test)_[A-Za-z0-9]{16,99}\b"), 0.97, _secret(0.97), priority=5, gate=("_live_", "_test_"), needs_digit=False),
    PiiType("google_api_key", "credential", _c(r"AIza(?<!\w.{4})[0-9A-Za-z_\-]{35}(?![0-9A-Za-z_\-])"), 0.97, _secret(0.97), priority=5, gate=("AIza",), needs_digit=False),
    PiiType("npm_token", "credential", _c(r"npm_(?<!\w.{4})[A-Za-z0-9]{36}\b"), 0.95, _secret(0.95), priority=5, gate=("npm_",), needs_digit=False),
    PiiType("sendgrid_key", "credential", _c(r"SG\.(?<!\w.{3})[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}\b"), 0.97, _secret(0.97), priority=5, gate=("SG.",), needs_digit=False),
    PiiType("jwt", "credential", _c(r"eyJ(?<!\w.{3})[A-Za-z0-9_\-]{5,4000}\.eyJ[A-Za-z0-9_\-]{2,8000}\.[A-Za-z0-9_\-]{0,2000}"), 0.97, _jwt, priority=5, gate=("eyJ",), needs_digit=False),
    PiiType("generic_secret", "credential", _c(r"(?:api[_\-]?key|secret[_\-]?key|access[_\-]?token|auth[_\-]?token|client[_\-]?secret|private[_\-]?token|x-api-key)[\"']?\s*[:=]\s*[\"']?([A-Za-z0-9_\-./+=]{16,256})", _I), 0.8, _secret(0.8), priority=1, group=1, needs_digit=False, context_gate=("key", "token", "secret"), lowered_form=_c(r"(?:api[_\-]?key|secret[_\-]?key|access[_\-]?token|auth[_\-]?token|client[_\-]?secret|private[_\-]?token|x-api-key)[\"']?\s*[:=]\s*[\"']?([A-Za-z0-9_\-./+=]{16,256})")),
    PiiType("password", "credential", _c(r"(?<![a-z])(?:password|passwd|pwd|passphrase)\b[\"']?\s*(?:is\s+|[:=]\s*)[\"']?([^\s\"',;]{4,128})", _I), 0.85, _password, priority=1, group=1, needs_digit=False, context_gate=("pass", "pwd"), lowered_form=_c(r"p(?<![a-z].)(?:assword|asswd|wd|assphrase)\b[\"']?\s*(?:is\s+|[:=]\s*)[\"']?([^\s\"',;]{4,128})")),
    # --- financial -----------------------------------------------------------------------------
    PiiType("payment_card", "financial", _c(r"\d(?<![\w\-].)[ \-]?(?:\d[ \-]?){11,17}\d(?![\d\-]|\.\d)"), 0.95, _card, _c(r"\b(?:card|visa|master\s?card|amex|american\s+express|discover|cc|credit|debit|pay)\b", _I), context_boost=0.03, priority=3, min_digits=13, shrink=True),
    PiiType("payment_card", "financial", _c(r"\d(?<![\w\-].)\d{11}(?![\d\-]|\.\d)"), 0.9, _card12, _c(r"\b(?:card(?:holder)?|maestro|debit|credit|charge[ds]?)\b", _I), True, priority=3, min_digits=12, context_gate=("card", "maestro", "debit", "credit", "charge")),
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
    PiiType("drivers_license", "government_id", _c(_LICENCE), 0.85, None, _c(_LICENCE_WORDS, _I), True, context_window=30, priority=2, min_digits=5, context_gate=("licen", "dl", "d.l.")),
    # --- contact ----------------------------------------------------------------------------------
    PiiType("email", "contact", _c(r"[A-Za-z0-9._%+\-](?<![\w.+\-].)[A-Za-z0-9._%+\-]{0,63}@(?:[A-Za-z0-9\-]{1,63}\.){1,8}[A-Za-z]{2,24}\b"), 0.95, priority=2, gate=("@",), needs_digit=False),
    PiiType("url", "network", _c(rf"h(?<![\w.\-].)ttps?://[^\s<>\"'`/]{{1,255}}{_URL_TAIL}|f(?<![\w.\-].)tp://[^\s<>\"'`/]{{1,255}}{_URL_TAIL}|w(?<![\w.\-/].)ww\.[A-Za-z0-9\-]{{1,63}}(?:\.[A-Za-z0-9\-]{{1,63}}){{1,8}}(?:[/?#]{_URL_TAIL})?(?![\w.\-])"), 0.9, priority=3, gate=("://", "www."), needs_digit=False),
    PiiType("phone_nanp", "contact", _c(rf"{_NB}(?:(?:\+|00)?1[\s.\-]?)?(?:\([2-9]\d{{2}}\)\s?|[2-9]\d{{2}}[\s.\-])[2-9]\d{{2}}[\s.\-]\d{{4}}{_EXTENSION}(?!\d|-\d|\.\d)"), 0.8, None, _c(r"\b(?:call|phone|tel|telephone|mobile|cell|fax|text|contact|reach|whatsapp|number)\b", _I), context_boost=0.12, negative_context=_c(_NOT_A_PHONE, _I), priority=1, min_digits=10),
    PiiType("phone_nanp", "contact", _c(r"(?:1(?<![\w+\-.)].)[2-9]|[2-9](?<![\w+\-.)].))\d{2}[2-9]\d{6}(?![\w\-]|\.\d)"), 0.85, _phone_us_digits, _c(r"\b(?:call|phone|tel|telephone|mobile|cell|fax|text|whatsapp|sms|number|reach|dial|contact)\b", _I), True, negative_context=_c(_NOT_A_PHONE, _I), priority=1, min_digits=10, context_gate=("call", "phone", "tel", "mobile", "cell", "fax", "text", "whatsapp", "sms", "number", "reach", "dial", "contact", *_PHONE_LABEL_GATE), label_after=_c(_PHONE_LABEL_AFTER, _I)),
    PiiType("phone_national", "contact", _c(r"(?:\((?<![\w+\-.(].)0\d{1,4}\)|0(?<![\w+\-.(].)\d{1,4})(?:[ .\-/]?\d{2,4}){1,4}(?![\w\-]|\.\d)"), 0.85, _phone_national, _c(r"\b(?:call|phone|tel|telephone|mobile|cell|fax|whatsapp|office|line|number|handy|portable|reach)\b", _I), True, context_window=30, negative_context=_c(_NOT_A_PHONE, _I), priority=1, min_digits=9, context_gate=("call", "phone", "tel", "mobile", "cell", "fax", "whatsapp", "office", "line", "number", "handy", "portable", "reach", *_PHONE_LABEL_GATE), label_after=_c(_PHONE_LABEL_AFTER, _I)),
    PiiType("phone_intl", "contact", _c(r"\+(?<![\w+].)(?!1[\s.\-(]?[2-9]\d\d)[1-9]\d{0,3}(?:[\s.\-]\(?\d{1,10}\)?|\(\d{1,5}\)){1,6}(?![\d\-])|\+(?<![\w+].)[2-9]\d{7,14}(?!\d)|\+(?<![\w+].)[2-9]\d{1,3}(?:\s?\(0\)\s?|\d{1,4}[\s.\-])\d{2,10}(?:[\s.\-]\d{2,10}){0,4}" + _EXTENSION + r"(?![\d\-])"), 0.8, _phone_intl, _c(r"\b(?:call|phone|tel|telephone|mobile|cell|fax|whatsapp|office|line)\b", _I), context_boost=0.12, priority=1, gate=("+",), min_digits=8),
    PiiType("postal_address", "location", _c(r"\d(?<!\w.)\d{0,5}[A-Z]?\s+(?:(?:[A-Z][a-z]{1,20}|\d{1,3}(?:st|nd|rd|th)|[NSEW]|NE|NW|SE|SW)\.?\s+){1,4}(?:Street|St|Avenue|Ave|Road|Rd|Boulevard|Blvd|Drive|Dr|Lane|Ln|Court|Ct|Way|Place|Pl|Terrace|Parkway|Pkwy|Circle|Cir|Highway|Hwy|Square|Sq)\b\.?(?:,?\s+(?:Apt|Suite|Unit|#)\.?\s*\w{1,6})?(?:,\s*[A-Z][a-zA-Z]{1,20}(?:\s[A-Z][a-zA-Z]{1,20}){0,2},\s*[A-Z]{2}\s+\d{5}(?:-\d{4})?)?"), 0.75, priority=1, min_digits=1, gate=_STREET_WORDS),
    PiiType("postal_address", "location", _c(r"[A-Z](?<![\w\-].)[\w\-]{1,40}(?:[Ss]tra\w{1,2}e|[Ss]tr\.|[Ww]eg|[Gg]asse|[Aa]llee|[Pp]latz|[Dd]amm|[Uu]fer)\s+\d{1,4}[a-z]?(?:[\-/]\d{1,4})?(?:,\s*\d{5}\s+\w[\w\-]{1,30}(?:\s\w[\w\-]{1,30}){0,2})?(?![\w\-])"), 0.75, priority=1, min_digits=1, gate=_STRASSE_WORDS),
    PiiType("postal_address", "location", _c(rf"(?:(?:Flat|Studio|Apartment|Apt\.?|Unit|Suite)\s+\d{{1,5}}[A-Za-z]?,\s*(?:\d{{1,6}}[A-Z]?\s+)?|\d(?<!\w.)\d{{0,5}}[A-Z]?\s+)(?:[A-Z][a-z]{{1,20}}\s+){{0,3}}[A-Z][a-z]{{1,20}},\s*(?:[A-Z][a-z]{{1,20}}\s+){{0,2}}[A-Z][a-z]{{1,20}},\s*{_ZIP_OR_POSTCODE}\b"), 0.75, priority=1, min_digits=2),
    # International layouts (issue 16): French streets ("6, rue Hamon, 16804 Sainte-Foy"), street and
    # house number then a 5-digit or Dutch postcode ("Calle Mayor 5, 28013 Madrid"), Indian PIN codes
    # after the town ("28, MG Road, Malda-374605"), Australian states ("1/56 Smith St, Hove, SA 5048")
    # and US military mail ("PSC 1234, Box 567, APO AE 09012").  Each ends in what only an address ends in.
    PiiType("postal_address", "location", _c(rf"(?:\d(?<!\w.)\d{{0,3}}(?:\s?(?:bis|ter))?,?\s+)?(?:[Rr]ue|[Aa]venue|[Bb]oulevard|[Cc]hemin|[Pp]lace|[Aa]ll\wes?|[Ii]mpasse|[Qq]uai|[Rr]oute|[Cc]ours|[Pp]assage)\s+(?:[\w'\-]{{1,30}}\s+){{0,5}}?[\w'\-]{{1,30}},\s*\d{{5}}\s+{_TOWN}"), 0.75, priority=1, min_digits=5, needs_digit=True),
    PiiType("postal_address", "location", _c(rf"[A-Z](?<![\w\-].)[\w'\-]{{1,30}}(?:\s(?:[A-Z][\w'\-]{{0,30}}|d[aeiou]|de[ils]|della|dos|das|van|von|der|den|la|le|y)){{0,3}}\s\d{{1,4}}[a-z]?(?:[/\-]\d{{1,4}})?,\s*(?:\d{{5}}|\d{{4}}\s?[A-Z]{{2}})\s+{_TOWN}"), 0.75, _street_number_town, priority=1, min_digits=5),
    PiiType("postal_address", "location", _c(r"\d(?<!\w.)[\d/\-]{0,6}[A-Z]?,\s*(?:[^\W\d_][\w.'\- ]{1,40},\s*){1,3}[^\W\d_][\w. ]{1,30}?(?:\s*-\s*|\s+)[1-9]\d{5}(?![\d\-])"), 0.75, priority=1, min_digits=7),
    PiiType("postal_address", "location", _c(r"\d(?<!\w.)\d{0,4}(?:/\d{1,5})?[A-Z]?\s+(?:[A-Z][a-z]{1,20}\s+){0,3}[A-Z][a-z]{1,20},\s*(?:[A-Z][a-z]{1,20}\s+){0,2}[A-Z][a-z]{1,20},?\s+(?:ACT|NSW|NT|QLD|SA|TAS|VIC|WA),?\s+\d{4}(?![\d\-])"), 0.75, priority=1, min_digits=5),
    # Street and house number (either order), town and a postcode of any country after it ("Laukaantie 79,
    # KOKKOLA, 67600", "269 Pireaus Av, Agios Epiktitos, 9500", "3968 Bay Street, Toronto, M5J 2R8");
    # a street between two numbers, alone on its line (or after "at", "to", "in") or before a town ("197 Siikarannantie 59",
    # "114 ul. Cicha 86, Kędzierzyn-Koźle").  Issue 16, third pass.
    PiiType("postal_address", "location", _c(rf"(?:\d(?<![\w\-.].)\d{{0,4}}[A-Z]?[ \t]+(?:{_STREET_NAME_WORD}[ \t]+){{0,5}}{_STREET_NAME_WORD}(?:[ \t]+\d{{1,5}}[a-z]?)?|[^\W\d_a-z](?<![\w\-].)[\w'\-]{{0,30}}\.?(?:[ \t]+{_STREET_NAME_WORD}){{0,5}}[ \t]+\d{{1,5}}[a-z]?(?:[/\-]\d{{1,4}})?),[ \t]*{_INTL_TOWN},[ \t]*{_INTL_POSTCODE}"), 0.75, _street_town_postcode, priority=1, min_digits=4),
    # A street and house number (the number after a comma too, "Viale Almagià, 798"), a flat or floor
    # ("Piso 8", "Piano 2"), then a postcode and a town with a comma between them ("Mikepad 48, 6165 DZ,
    # Elkenrade", "pl. Wolności 48, 46-760 Skawina", "Viale Cendron, 40, 21051, Arcisate (VA)"), or a
    # town then a postcode after a floor ("Camino Adora Parra 58 Piso 8 , Lugo, 01179").  Issue 16, h17d.
    PiiType("postal_address", "location", _c(rf"(?:[^\W\d_a-z](?<![\w\-.].)[\w'\-]{{0,30}}+\.?|[uapo](?<![\w\-.].)[ls]\.)(?:[ \t]+{_STREET_NAME_WORD}){{0,5}}+(?:(?:,[ \t]*|[ \t]+)\d{{1,5}}[a-zA-Z]?(?:[/\-]\d{{1,4}})?(?:[ \t]+{_FLOOR_WORD}[ \t]*\d{{1,4}}[A-Za-z]?)?[ \t]*,[ \t]*(?:\d{{2}}-\d{{3}}|\d{{4}}[A-Z]{{2}}|{_INTL_POSTCODE}),?[ \t]+{_TOWN_ON_LINE}(?:[ \t]*\([A-Z]{{2}}\))?|[ \t]+\d{{1,5}}[a-z]?[ \t]+{_FLOOR_WORD}[ \t]*\d{{1,4}}[A-Za-z]?[ \t]*,[ \t]*{_INTL_TOWN},[ \t]*{_INTL_POSTCODE})"), 0.75, _street_number_postcode, priority=1, min_digits=4),
    PiiType("postal_address", "location", _c(rf"(?:(?<![^\n])[ \t>?]*|(?<=at |to |is |in |on )|(?<=: ))\d\d{{0,4}}[ \t]+(?:{_STREET_NAME_WORD}[ \t]+){{1,4}}\d{{1,5}}(?:,[ \t]*{_INTL_TOWN}(?![\w\-])|(?=[ \t]*(?:\n|$)|[ \t]+St\.))"), 0.7, _street_town_postcode, priority=1, min_digits=2),
    # Without a house number: street, town and UK postcode ("Chambers Pike, Hove, BN3 2AB"); a US town,
    # state and ZIP code ("Springfield, IL 62704").
    PiiType("postal_address", "location", _c(r"[A-Z](?<!\w.)[a-z]{1,20}(?:\s+[A-Z][a-z]{1,20}){0,3},\s*(?:[A-Z][a-z]{1,20}\s+){0,2}[A-Z][a-z]{1,20},?\s+[A-Z]{1,2}\d[A-Z\d]?\s\d[A-Z]{2}\b"), 0.75, priority=1, min_digits=2),
    PiiType("postal_address", "location", _c(rf"[A-Z](?<!\w.)[a-z]{{1,20}}(?:\s[A-Z][a-z]{{1,20}}){{0,2}},\s*{_US_STATE}\s+\d{{5}}(?:-\d{{4}})?(?![\d\-])"), 0.75, priority=1, min_digits=5),
    PiiType("postal_address", "location", _c(r"(?:PSC|Unit|USNS|USNV|USS|USCGC|CMR)\s+[\w ]{1,30},\s*(?:Box\s+\d{1,5},\s*)?(?:APO|FPO|DPO)\s+A[AEP]\s+\d{5}(?!\d)"), 0.8, priority=1, min_digits=5, gate=("APO", "FPO", "DPO")),
    PiiType("date_of_birth", "personal", _c(_DATE, _I), 0.9, _dob, _c(r"\b(?:dob|d\.o\.b|date\s+of\s+birth|birth\s*date|birthday|born(?:\s+on)?)\b", _I), True, context_window=25, priority=2, min_digits=4, context_gate=("dob", "d.o.b", "birth", "born",), memo=False),
    # --- network and devices -------------------------------------------------------------------------
    PiiType("ipv4", "network", _c(r"\d(?<![\w.].)\d{0,2}\.(?:\d{1,3}\.){2}\d{1,3}(?!\w|\.\w|-[A-Za-z]|\+\w)"), 0.85, _ipv4, negative_context=_c(r"(?:\b(?:version|versions|ver|v|release|section|sections|chapter|rule|clause|figure|table|step|build|firmware|update|updated|upgrade|upgraded|patch|package|driver|sdk|library|bump|bumped|pin|pinned|tag)(?:\s+(?:to|from|is|was|of))?\W{0,3}|\b(?:upgrad|updat|bump)\w{0,3}(?:\s+[\w\-]{1,20}){0,3}\s+to\W{0,3}|@|[=~]=|§\W{0,3})$", _I), priority=1, gate=(".",), min_digits=4),
    PiiType("ipv6", "network", _c(r"[0-9A-Fa-f:](?<![\w:].)(?:(?<=[0-9A-Fa-f])[0-9A-Fa-f]{0,3}:|(?<=:))(?:[0-9A-Fa-f]{1,4}:|:){1,6}(?::|[0-9A-Fa-f]{1,4})(?![\w:])"), 0.9, _ipv6, priority=1, gate=(":",), needs_digit=False),
    PiiType("mac_address", "network", _c(r"[0-9A-Fa-f](?<![\w:\-].)[0-9A-Fa-f]([:\-])(?:[0-9A-Fa-f]{2}\1){4}[0-9A-Fa-f]{2}(?![\w:\-])|[0-9A-Fa-f](?<!\w.)[0-9A-Fa-f]{3}\.[0-9A-Fa-f]{4}\.[0-9A-Fa-f]{4}\b"), 0.9, priority=2, gate=(":", "-", "."), needs_digit=False),
    # --- crypto wallets --------------------------------------------------------------------------
    PiiType("eth_address", "crypto", _c(r"0(?<!\w.)x[0-9a-fA-F]{40}\b"), 0.85, _eth, priority=3, gate=("0x",)),
    PiiType("btc_address", "crypto", _c(r"[13b](?<!\w.)(?:(?<=[13])[1-9A-HJ-NP-Za-km-z]{25,34}|(?<=b)c1[02-9ac-hj-np-z]{11,71})\b"), 0.95, _btc, priority=3, min_digits=1),
)
# fmt: on

TYPES_BY_NAME: dict[str, tuple[PiiType, ...]] = {}
for _t in PII_TYPES:
    TYPES_BY_NAME[_t.name] = (*TYPES_BY_NAME.get(_t.name, ()), _t)
