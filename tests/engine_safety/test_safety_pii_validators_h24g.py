"""Four validators of never-seen values, made cheaper without changing a verdict (issue 16, h24g).

- Dates of birth in a numeric format are read by ``pii_types._numeric_date``: the regular expression
  ``strptime`` builds for the format, matched as ``strptime`` matches it, and the date built from its
  three groups.  Compared with ``datetime.strptime`` on dates built from digits (ASCII and others),
  separators and blanks, and the strings compared with ``_strptime.TimeRE``'s.
- IBANs whose mod 97-10 sum holds are checked by ``pii_types._iban_registered``: the registry entry, the
  BBAN structure's pattern and the country's module looked up once per country code.  Compared with
  python-stdnum's ``iban.is_valid`` on numbers of every registered country (BBANs of the right structure,
  so that the country modules run, and of the wrong one) and of unregistered codes.
- Card numbers' Luhn sum is computed by ``pii_types._luhn`` (compiled), not stdnum's interpreted one.
- A national phone layout is not parsed in a region where the digits (with or without the national
  prefix) match no number type of the country code, beside its general description
  (``_national_skip``): compared with asking every region in turn.
"""

from __future__ import annotations

import _strptime
import datetime as dt
import random

import phonenumbers
from hypothesis import given, settings
from hypothesis import strategies as st
from stdnum import iban, luhn, numdb

from tests.engine_safety.pii_reference import phone_national_in_regions
from verification.engine.safety.pii_types import (
    _DOB_FORMATS,
    _NATIONAL_REGIONS,
    _NUMERIC_DATE_PATTERNS,
    _NUMERIC_DATES,
    _dob_on,
    _iban,
    _iban_registered,
    _iban_structure,
    _luhn,
    _mod97,
    _national_skips,
    _numeric_date,
    _phone_national,
)


def _strptime_date(data: str, fmt: str) -> dt.date | None:
    try:
        return dt.datetime.strptime(data, fmt).date()
    except ValueError:
        return None


def _numeric(data: str, fmt: str) -> dt.date | None:
    try:
        return _numeric_date(_NUMERIC_DATES[fmt], data)
    except ValueError:
        return None


def test_the_numeric_formats_are_strptimes_own_patterns() -> None:
    numeric = [fmt for fmt, _ in _DOB_FORMATS if "%B" not in fmt and "%b" not in fmt]
    assert sorted(numeric) == sorted(_NUMERIC_DATE_PATTERNS)
    builder = _strptime.TimeRE()
    for fmt, pattern in _NUMERIC_DATE_PATTERNS.items():
        assert builder.pattern(fmt) == pattern, fmt
        assert builder.compile(fmt).flags == _NUMERIC_DATES[fmt].flags, fmt


_DATE_PARTS = st.sampled_from(
    ["1990", "2024", "1899", "0000", "2000", "03", "3", "12", "13", "31", "30", "29", "02", "2", "00", "0",
     " 5", "5 ", "١٩٩٠", "٠٣", "１２", "-", "/", ".", " ", "x", "19", "90", "1"]
)  # fmt: skip


@settings(max_examples=800, deadline=None)
@given(st.lists(_DATE_PARTS, min_size=1, max_size=7).map("".join), st.sampled_from(sorted(_NUMERIC_DATES)))
def test_numeric_dates_read_as_strptime_reads_them(data: str, fmt: str) -> None:
    assert _numeric(data, fmt) == _strptime_date(data, fmt), (data, fmt)


def test_numeric_dates_on_every_day_and_its_neighbours() -> None:
    # Every day of two years (a leap year among them) and the days no month has, in every format.
    days = [dt.date(2000, 1, 1) + dt.timedelta(days=k) for k in range(731)]
    for fmt in _NUMERIC_DATES:
        for day in days:
            for data in (day.strftime(fmt), day.strftime(fmt).replace("0", "", 1)):
                assert _numeric(data, fmt) == _strptime_date(data, fmt), (data, fmt)
        for month in range(0, 14):
            for d in (0, 29, 30, 31, 32):
                data = fmt.replace("%Y", "2001").replace("%m", str(month)).replace("%d", str(d))
                assert _numeric(data, fmt) == _strptime_date(data, fmt), (data, fmt)


_DOB_EXTRA = st.sampled_from(["March", "sep.", ",", "\t"])


def _dob_on_strptime(value: str, today: dt.date) -> tuple[float, str] | None:
    """``_dob_on`` as it was: ``strptime`` for every format."""
    text = value.replace(",", " ")
    for fmt, separator in _DOB_FORMATS:
        if separator and separator not in text:
            continue
        try:
            date = dt.datetime.strptime(" ".join(text.split()), fmt).date()
        except ValueError:
            continue
        if date.year >= 1900 and date <= today:
            return 0.9, "date_parse"
    return None


@settings(max_examples=500, deadline=None)
@given(st.lists(_DATE_PARTS | _DOB_EXTRA, min_size=1, max_size=8).map("".join))
def test_dates_of_birth_as_before(value: str) -> None:
    today = dt.date(2026, 11, 27)
    assert _dob_on(value, today) == _dob_on_strptime(value, today), value


def test_a_date_the_month_lacks_and_a_future_one_stay_refused() -> None:
    today = dt.date(2026, 11, 27)
    assert _dob_on("1990-02-30", today) is None
    assert _dob_on("31.04.1990", today) is None
    assert _dob_on("01/02/2999", today) is None
    assert _dob_on("1899-12-31", today) is None
    assert _dob_on("14/03/1985", today) == (0.9, "date_parse")  # read day first, after the month failed


_REGISTRY = numdb.get("iban")
_COUNTRIES = sorted(prefix[1] for prefix in _REGISTRY.prefixes)


def test_the_bban_patterns_are_stdnums() -> None:
    for prefix in _REGISTRY.prefixes:
        structure = prefix[3].get("bban", "")
        assert _iban_structure(structure).pattern == iban._struct_to_re(structure).pattern, structure


def _with_check(country: str, bban: str) -> str:
    return country + iban.calc_check_digits(country + "00" + bban) + bban


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_ibans_of_every_country_read_as_stdnum_reads_them(data: st.DataObject) -> None:
    country = data.draw(st.sampled_from([*_COUNTRIES, "XX", "QQ", "1A", "ZZ"]))
    properties = _REGISTRY.info(country)[0][1]
    structure = properties.get("bban", "") if properties else ""
    if structure and data.draw(st.booleans()):
        bban = data.draw(st.from_regex(iban._struct_to_re(structure), fullmatch=True))
    else:
        bban = data.draw(st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", min_size=8, max_size=30))
    number = _with_check(country, bban.upper())
    assert _mod97(number) == 1
    assert _iban_registered(number) == iban.is_valid(number), number
    assert _iban(number) == ((0.97, "iban_mod97") if iban.is_valid(number) else None)


def test_every_registered_layout_with_a_valid_bban_and_with_one_character_off() -> None:
    rng = random.Random(16)
    valid = 0
    for country in _COUNTRIES:
        pattern = iban._struct_to_re(_REGISTRY.info(country)[0][1]["bban"])
        # A BBAN of the right structure, built from it: letters for "a", digits for "n", either for "c".
        structure = _REGISTRY.info(country)[0][1]["bban"]
        for _ in range(20):
            bban = ""
            for length, kind in iban._struct_re.findall(structure):
                alphabet = {"n": "0123456789", "a": "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "c": "AB0123456789"}[kind]
                bban += "".join(rng.choice(alphabet) for _ in range(int(length)))
            assert pattern.match(bban)
            for candidate in (bban, bban[:-1] + ("A" if bban[-1].isdigit() else "1"), bban + "0"):
                number = _with_check(country, candidate)
                verdict = iban.is_valid(number)
                valid += verdict
                assert _iban_registered(number) == verdict, number
    assert valid > 500  # most random BBANs of the right structure pass (a few countries check more)


@settings(max_examples=1000, deadline=None)
@given(st.text(alphabet="0123456789", max_size=24) | st.text(alphabet="0123456789٣７ x", max_size=20))
def test_luhn_as_stdnum(digits: str) -> None:
    assert _luhn(digits) == luhn.is_valid(digits), digits


def test_luhn_on_every_single_digit_change_of_a_card() -> None:
    card = "4111111111111111"
    for k in range(len(card)):
        for digit in "0123456789":
            changed = card[:k] + digit + card[k + 1 :]
            assert _luhn(changed) == luhn.is_valid(changed), changed


def test_a_region_whose_number_types_cannot_read_the_digits_is_left_out() -> None:
    # "01234567": seven digits after the trunk "0" fit the general description of German and
    # Austrian numbers; none of Germany's number types reads them, Austria's fixed lines do.  Before
    # h24g Germany was asked too (a parse and a validity check for nothing).
    skips = dict(zip(_NATIONAL_REGIONS, _national_skips("01234567"), strict=True))
    assert skips["DE"] and not skips["AT"]
    assert not phonenumbers.is_valid_number(phonenumbers.parse("01234567", "DE"))
    # A London number is still read in Britain, a Berlin one in Germany.
    assert not dict(zip(_NATIONAL_REGIONS, _national_skips("02079460958"), strict=True))["GB"]
    assert not dict(zip(_NATIONAL_REGIONS, _national_skips("0301234567"), strict=True))["DE"]
    assert _phone_national("020 7946 0958") == (0.85, "phonenumbers")


@settings(max_examples=600, deadline=None)
@given(st.text(alphabet="0123456789", min_size=4, max_size=14), st.sampled_from(["", " ", "-", "(", "/"]))
def test_national_layouts_read_as_asking_every_region(body: str, separator: str) -> None:
    value = "0" + body[:3] + separator + body[3:]
    if separator == "(":
        value = "(0" + body[:3] + ") " + body[3:]
    assert _phone_national(value) == phone_national_in_regions(value), value
