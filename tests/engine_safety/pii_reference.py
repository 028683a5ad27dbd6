"""Reference forms of the PII engine's shortcuts, kept here (not in the engine) for the tests that
compare the live path with them (test_safety_pii_per_value.py and others).

- ``candidates`` / ``accepted``: the generators ``detect_pii`` first collected each type's values with;
  the engine now enters them into its table with plain loops (``pii._collect_after_context``,
  ``pii._collect_from``).
- ``phone_national_in_regions``: the national phone check as first written, one ``phonenumbers``
  parse per region in turn; the engine leaves out the regions that can neither accept nor refuse
  the value (``pii_types._national_skips``).
- ``iban_reference``: the IBAN check as first written, python-stdnum's alone; the engine turns down
  a value whose mod 97-10 sum fails before stdnum looks its country up.
- ``btc_reference``: the first form of the Bitcoin address check (python-stdnum's check, then the
  Bech32m checksum for Taproot addresses); the engine computes a Bech32 checksum once.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from itertools import chain

from stdnum import bitcoin, iban

from verification.engine.safety.pii import (
    _VALUE_ROOM,
    PiiMatch,
    _accept,
    _before_label,
    _context_near,
    _context_words,
)
from verification.engine.safety.pii_types import _NATIONAL_REGIONS, PiiType, _compact
from verification.engine.text import lower


def candidates(kind: PiiType, text: str, lowered: str | None = None, start: int = 0) -> Iterable[PiiMatch]:
    """Every accepted value of ``kind`` in ``text`` (from ``start`` on, for a type without required
    context), as ``detect_pii`` first collected them."""
    if kind.context_required:
        assert kind.context is not None  # a required context is always given
        for ctx in _context_words(kind, text, lowered):
            stop = min(len(text), ctx.end() + kind.context_window + _VALUE_ROOM)
            for match in kind.pattern.finditer(text, ctx.end(), stop):
                if match.start(kind.group) > ctx.end() + kind.context_window:
                    break
                if match.end() == stop and stop < len(text):
                    continue  # cut by the window: the real token may be longer
                found = _accept(kind, match, text, True)
                if found is not None:
                    yield found
        if kind.label_after is not None:
            # A label after the value stands for the context (h24f).
            for label in kind.label_after.finditer(text):
                found = _before_label(kind, text, label)
                if found is not None:
                    yield found
        return
    for match in kind.pattern.finditer(text, start):
        found = _accept(kind, match, text, _context_near(kind, text, match.start()))
        if found is not None:
            yield found


def accepted(
    kind: PiiType,
    text: str,
    first: re.Match[str],
    pattern: re.Pattern[str] | None = None,
    subject: str | None = None,
) -> Iterator[PiiMatch]:
    """``candidates(kind, text, start=first.start())`` without matching ``first`` again."""
    pattern = kind.pattern if pattern is None else pattern
    subject = text if subject is None else subject
    for match in chain((first,), pattern.finditer(subject, first.end())):
        found = _accept(kind, match, text, _context_near(kind, text, match.start()))
        if found is not None:
            yield found


# The Bech32m constant (BIP-350), the Bech32 alphabet and the human-readable part "bc" as the
# checksum reads it (BIP-173), written out again so that the reference depends on no engine constant.
_BECH32M_CONST = 0x2BC830A3
_BECH32_ALPHABET = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
_BC_HRP = [ord(c) >> 5 for c in "bc"] + [0] + [ord(c) & 31 for c in "bc"]


def btc_reference(value: str) -> tuple[float, str] | None:
    """The Bitcoin check as first written: stdnum's check, then Bech32m for Taproot addresses."""
    if bitcoin.is_valid(value):
        return 0.95, "base58check_or_bech32"
    folded = lower(value)
    if not folded.startswith("bc1") or folded[3:4] == "q" or not 14 <= len(folded) <= 90:
        return None  # witness version 0 ("q") must use Bech32, which stdnum checked
    if any(c not in _BECH32_ALPHABET for c in folded[3:]):
        return None
    data = [_BECH32_ALPHABET.index(c) for c in folded[3:]]
    return (0.95, "bech32m") if bitcoin.bech32_checksum(_BC_HRP + data) == _BECH32M_CONST else None


def phone_national_in_regions(value: str) -> tuple[float, str] | None:
    """A national layout valid in one of the regions, each asked in turn (an unparsable value ends it)."""
    import phonenumbers

    for region in _NATIONAL_REGIONS:
        try:
            number = phonenumbers.parse(value, region)
        except phonenumbers.NumberParseException:
            return None
        if phonenumbers.is_valid_number(number):
            return 0.85, "phonenumbers"
    return None


def iban_reference(value: str) -> tuple[float, str] | None:
    """The IBAN check as first written: python-stdnum's, on the value without separators."""
    return (0.97, "iban_mod97") if iban.is_valid(_compact(value)) else None
