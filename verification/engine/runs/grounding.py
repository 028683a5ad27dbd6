"""Stage 2: label every checkable value of the answer against the evidence of the run.

Principles (general, never tuned to a data set):
- a value is SUPPORTED when the evidence states it, possibly after reasoning a careful reader accepts:
  unit conversion, rounding to the stated precision (wider when hedged with "about"), reformatted dates and
  clock times, number words, and one step of arithmetic (sum, difference, product, ratio, percentage,
  duration between two times, days between two dates, list counts and tallies);
- it is CONTRADICTED when comparable evidence (same unit, currency, counted noun, kind) says otherwise,
  when it belongs to another record than the one the sentence talks about, or when a stated direction or
  state (rose/fell, won/lost, in stock/out of stock, ...) disagrees with the evidence;
- it is UNSUPPORTED when nothing in the run speaks to it.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from datetime import date as _date
from datetime import datetime
from itertools import pairwise
from typing import Any

from rapidfuzz import fuzz, process

from ..budget import UNLIMITED, Budget
from ..text import lower
from .added_counts import check_added_counts
from .advised_times import offset_of_a_result_time
from .aggregates import EQUATION, computed_amount
from .asked_counts import check_asked_counts
from .best_rated import check_best_rated, check_told_ratings
from .changed_ends import check_changed_ends
from .clock import zone_instant_match
from .code_places import check_code_places
from .equations import check_written_equations
from .errors import RunTooLargeError
from .evidence import Evidence, Fact, has_words, normalize_text
from .findings import SWAPPED_IDENTIFIER, Finding, joined_identifiers, split_sentences
from .identity import identities
from .item_options import check_item_options
from .labelled_totals import check_labelled_totals
from .lexicon import (
    AIRPORT_PLACES,
    ALIASES,
    CLOSING_NOUNS,
    CLOSING_WORDS,
    FUNCTION_WORDS,
    GENERAL_TERMS,
    ISO_CURRENCIES,
    MONTHS,
    NUMBER_WORDS,
    REVERSE_ALIASES,
    SERVICE_WORDS,
    TIME_ZONES,
    WEEKDAY_ABBREVIATIONS,
    WEEKDAYS,
)
from .link_forms import RunLinks
from .mentions import Mention, extract_mentions
from .name_kinds import ReturnedKinds, link_text_span, offered_as_reference
from .numeric import (
    SIGNED_UNITS,
    SortedValues,
    accepts,
    conversion,
    derive,
    interval,
    may_add,
    may_multiply,
    operand,
)
from .own_lists import (
    AnswerAmounts,
    check_own_enumerations,
    listed_changes,
    listed_total,
    rounded_difference,
    told_gap,
    told_sum,
)
from .person_names import check_person_names
from .polarity import check_polarity
from .policy_durations import check_policy_durations
from .policy_rates import check_policy_rates, check_record_rates
from .records import (
    ANOTHER_ITEM,
    MAX_OPERANDS,
    check_periods,
    check_records,
    check_value_lists,
    identifier_told_after,
)
from .refund_words import check_refund_words
from .relative import relative_findings
from .routes import check_routes
from .table_rows import check_table_rows
from .trips import check_failed_identifiers, check_trips
from .turns import check_failed_calls, check_turn_names

__all__ = ["Finding", "ground_answer", "split_sentences"]

_DOLLARS = frozenset({"USD", "CAD", "AUD", "NZD", "SGD", "HKD", "MXN"})


def _dim_of(unit: str) -> str:
    if unit in ("degC", "degF"):
        return "temperature"
    if unit == "percent":
        return "percent"
    from .units import dimension

    return dimension(unit)


# An hour of a 24-hour clock past noon told as a morning time ("13:00 AM"); "13:00 PM" is only redundant.
# A capitalised month name right before a number ("May 32"): the number is that month's day.
_MONTH_BEFORE = re.compile(r"\b([A-Z][a-z]{2,8})\.?\s+$")
_IMPOSSIBLE_AM = re.compile(r"(?:1[3-9]|2[0-3])[:.h]\d\d\s*a\.?m\b\.?", re.I)


def _noun_key(noun: str | None) -> set[str]:
    if not noun:
        return set()
    n = lower(noun)
    keys = {n}
    if n.endswith("ies"):
        keys.add(n[:-3] + "y")
    if n.endswith("es"):
        keys.add(n[:-2])
    if n.endswith("s"):
        keys.add(n[:-1])
    return keys


def _weekday(year: int, month: int, day: int) -> int:
    """The weekday of a date (Monday 0), or -1 when it is no calendar day ("Friday, February 30")."""
    try:
        return _date(year, month, day).weekday()
    except ValueError:
        return -1


def _number_then_noun(haystack: str, number: str, noun: str) -> bool:
    """Whether ``haystack`` has ``number``, then a space, a hyphen or nothing, then ``noun``, with no digit,
    decimal point or comma just before the number: what ``re.search(r"(?<![\\d.,])NUMBER[ -]?NOUN")`` with
    both escaped finds, read with ``str.find`` of the three literal forms. The pattern, made and run per
    counted value over all of the results' text, tried its look-behind at every position: most of the cost
    of a long answer against a big result (issue 14, h19e). ``str.isdecimal`` is what ``\\d`` matches (the
    Unicode category Nd).

    >>> _number_then_noun("8926329222 | 4-piece", "4", "piece"), _number_then_noun("14 pieces", "4", "piece")
    (True, False)
    >>> _number_then_noun("1.4 piece, 4piece", "4", "piece"), _number_then_noun("4 items", "4", "piece")
    (True, False)
    """
    if noun not in haystack:
        return False  # one read of the haystack, not three, for a noun the results never use
    for sep in ("", " ", "-"):
        needle = number + sep + noun
        at = haystack.find(needle)
        while at >= 0:
            before = haystack[at - 1] if at > 0 else ""
            if not before or not (before.isdecimal() or before in ".,"):
                return True
            at = haystack.find(needle, at + 1)
    return False


def _accepted_by(m: Mention, facts: list[Fact]) -> list[Fact]:
    """``[f for f in facts if accepts(m, f.value)]``, in order, with ``m``'s interval computed once rather
    than once per fact (``accepts`` reads the mention's text for its magnitude on every call)."""
    lo, hi = interval(m)
    if m.unit in SIGNED_UNITS:
        return [f for f in facts if lo <= f.value <= hi]
    return [f for f in facts if lo <= abs(f.value) <= hi]


class _Matcher:
    def __init__(self, ev: Evidence, answer: str) -> None:
        self.ev = ev
        self.answer = answer
        # Evidence numbers sorted per unit (absolute values, and signed ones for signed units).
        groups: dict[str | None, list[Fact]] = {}
        for f in ev.numbers:
            found = groups.get(f.unit)  # no new empty list per number, as setdefault makes
            if found is None:
                groups[f.unit] = [f]
            else:
                found.append(f)
        self.by_unit = {u: SortedValues((abs(f.value), f) for f in fs) for u, fs in groups.items()}
        self.signed = {
            u: SortedValues((f.value, f) for f in fs) for u, fs in groups.items() if u in SIGNED_UNITS
        }
        self.scoped_money = any(f.currencies for f in ev.numbers)
        self._same_dim: dict[str, list[str]] = {}
        self._compact: str | None = None
        self._by_word: dict[str, list[Fact]] | None = None
        self._compact_strings: list[tuple[str, Fact]] | None = None
        self._names: dict[str, tuple[str, list[Fact], str]] = {}
        self._dates_by_month: dict[Any, list[Fact]] | None = None
        self._run_years: frozenset[int] | None = None
        self._times_by_value: dict[Any, list[Fact]] | None = None
        self._count_groups: dict[frozenset[str], list[int]] | None = None
        self._run_links: RunLinks | None = None

    def _literal_with_noun(self, m: Mention) -> bool:
        # "2 tablets" in "1 to 2 tablets", "3-clause" in "BSD-3-Clause".
        if self._compact is None:
            # Only ASCII letters and digits are kept: drop non-ASCII, then the rest, both in C.
            ascii_only = self.ev.raw_haystack.encode("ascii", "ignore").decode("ascii")
            self._compact = ascii_only.translate(_DROP_NON_ALNUM)
        assert m.value is not None and m.noun is not None
        number = f"{m.value:g}" if m.decimals == 0 else m.text.split()[0]
        if _find_unprefixed(self._compact, number + lower(m.noun)):
            return True
        # Compacting joins "8926329222 | 4-piece" into "...92224piece": look for the number and its noun as
        # they stand, a space or a hyphen between ("4-piece", "4 pieces"; issue 14, h18f).
        return _number_then_noun(self.ev.raw_haystack, number, lower(m.noun).rstrip("s"))

    def _counts_keyed(self, nouns: set[str]) -> list[Fact]:
        """``[f for f in self.ev.counts if f.key_tokens & nouns]``: the counts with one of ``nouns`` among
        their key tokens, in evidence order.

        Every counted value asked it of every count fact; the counts of one list share a few token sets
        (its length, a tally per key), so the positions are grouped by token set once per answer and a
        question tests each set once.
        """
        groups = self._count_groups
        if groups is None:
            groups = {}
            for i, f in enumerate(self.ev.counts):
                found = groups.get(f.key_tokens)
                if found is None:
                    groups[f.key_tokens] = [i]
                else:
                    found.append(i)
            self._count_groups = groups
        lists = [positions for tokens, positions in groups.items() if not tokens.isdisjoint(nouns)]
        if not lists:
            return []
        counts = self.ev.counts
        if len(lists) == 1:
            return [counts[i] for i in lists[0]]
        return [counts[i] for i in sorted([i for positions in lists for i in positions])]

    def _units_like(self, unit: str) -> list[str]:
        if unit not in self._same_dim:
            dim = _dim_of(unit)
            self._same_dim[unit] = [
                u for u in self.by_unit if u and u != "year_of_date" and (u == unit or _dim_of(u) == dim)
            ]
        return self._same_dim[unit]

    def _search(
        self,
        m: Mention,
        unit: str | None,
        target_unit: str | None,
        bounds: tuple[float, float] | None = None,
    ) -> list[Fact]:
        """Facts of ``unit`` whose value, converted to ``target_unit``, ``m`` accepts (``bounds``:
        ``interval(m)`` computed by the caller, for a search that converts nothing)."""
        converted = bool(unit and target_unit and unit != target_unit)
        lo, hi = bounds if bounds is not None and not converted else interval(m, converted=converted)
        if converted:
            assert unit is not None and target_unit is not None
            conv = conversion(unit, target_unit)
            if conv is None:
                return []
            scale, offset = conv
            lo, hi = sorted(((lo - offset) / scale, (hi - offset) / scale))
        if m.unit in SIGNED_UNITS and unit in self.signed:
            return list(self.signed[unit].between(lo, hi))
        sv = self.by_unit.get(unit)
        return list(sv.between(max(lo, 0.0) if lo > 0 else 0.0, hi)) if sv else []

    def _empty_list(self, nouns: set[str]) -> bool:
        """Whether a list the counted noun names came back empty (its length, a count fact, is 0)."""
        return any(
            f.value == 0 and f.text == "length" and not f.key_tokens.isdisjoint(nouns) for f in self.ev.counts
        )

    def number(self, m: Mention) -> tuple[str, list[Fact], str, bool]:
        assert m.value is not None
        v = m.value
        # "one" and "1" say little on their own, but "found one user" of a list of users that came back empty
        # claims a result the tool did not return: that is checked like any other count.
        if (
            abs(v) <= 1
            and m.decimals == 0
            and m.kind in ("number", "count", "money")
            and not (v == 1 and m.noun and m.kind != "money" and self._empty_list(_noun_key(m.noun)))
        ):
            return "SUPPORTED", [], "trivial number", False
        if m.noun and self._literal_with_noun(m):
            return "SUPPORTED", [], "stated in the evidence with its noun", False
        if m.kind in ("number", "count") and m.noun and _counts_named_items(self.answer, m):
            return "SUPPORTED", [], "the number of the items the answer names with it", False
        hits: list[Fact] = []
        strict = False
        nouns = _noun_key(m.noun)
        keyed: list[Fact] = []
        by_value = [f for n in nouns for f in self.ev.value_counts.get(n, ())] if nouns else []
        if by_value and m.kind in ("number", "count"):
            # "2 events and 3 meetings" where each event has an ``event_type``: a count of the items of
            # that type, whatever other list has as many elements.
            hits = _accepted_by(m, by_value)
            if hits:
                return "SUPPORTED", hits, "the number of items of this kind", False
            across = _count_across_records(by_value, self.ev)
            if across and accepts(m, sum(f.value for f in across)):
                # "you have two tablets in separate orders": one in each of two orders (issue 14, h19b).
                return "SUPPORTED", across, "the number of items of this kind across the results", False
            told = ", ".join(sorted({f"{f.value:g}" for f in by_value}))
            return "CONTRADICTED", by_value[:3], f"the results have {told} of this kind", False
        if m.kind in ("number", "count") and nouns:
            keyed = [f for n in nouns for f in self.ev.numbers_keyed(n)]
            keyed += self._counts_keyed(nouns)
        if keyed:
            strict = True
            hits = _accepted_by(m, [f for f in keyed if f.unit != "year_of_date"])
            if any(f.kind == "count" for f in hits):
                hits = [f for f in hits if f.kind == "count"]  # "3 events" counts the events list
        elif m.kind == "money":
            hits = self._search(m, None, None)
            if m.currency:
                strict = self.scoped_money
                hits = [
                    f for f in hits
                    if not f.currencies or m.currency in f.currencies
                    or (m.currency == "$" and bool(f.currencies & _DOLLARS))
                ]  # fmt: skip
        elif m.unit and m.kind in ("quantity", "percent"):
            units = self._units_like(m.unit)
            if units:
                strict = True
                for u in units:
                    hits += self._search(m, u, m.unit)
            else:
                hits = self._search(m, None, None)
        else:
            # Without a target unit nothing is converted: one interval serves every unit's values.
            bounds = interval(m)
            for key in self.by_unit:
                if key != "year_of_date":
                    hits += self._search(m, key, None, bounds)
                elif m.kind == "year":
                    hits += self.by_unit[key].between(abs(v), abs(v))
            if m.kind == "count":
                hits += _accepted_by(m, self.ev.counts)
        if hits:
            return "SUPPORTED", hits, "stated in the evidence", False
        if m.kind == "year":
            years = "year_of_date" in self.by_unit or any(
                1500 <= f.value <= 2100
                for sv in self.by_unit.values()
                for f in sv.items
                if isinstance(f, Fact)
            )
            return ("CONTRADICTED" if years else "UNSUPPORTED"), [], "no evidence gives this year", False
        if strict:
            return "CONTRADICTED", [], "comparable evidence gives a different value", False
        return "UNSUPPORTED", [], "no evidence gives this value", False

    def derived(
        self, m: Mention, operands: list[float], facts: list[Fact], addends: list[float] | None = None
    ) -> str:
        """Arithmetic on ``operands`` (values of the items the sentence is about) that gives ``m``;
        ``addends``, when given, are the operands that may be terms of a sum or difference."""
        assert m.value is not None
        if m.unit in ("min", "hour", "day", "s", "week", "year"):
            return self._duration(m, facts)
        if m.kind in ("count", "year") or (m.noun and m.kind == "number"):
            return ""
        return derive(m, operands, m.kind == "percent", m.kind == "quantity", addends)

    def _duration(self, m: Mention, facts: list[Fact]) -> str:
        """A duration between two times or dates of the items in context, or the period a key names."""
        assert m.value is not None and m.unit is not None
        conv = conversion(m.unit, "min")
        if conv is None:
            return ""
        minutes = m.value * conv[0]
        probe = Mention(
            "quantity", m.start, m.end, m.text, value=minutes, unit="min", decimals=m.decimals, hedge=m.hedge
        )
        lo, hi = interval(probe, converted=m.unit != "min")
        if m.unit in ("day", "week"):
            # "roughly 5 weeks" is told to the week: its precision is the stated unit's, not a minute's
            # ("roughly 5 weeks" for the 32 days between two dates; issue 14, h25f).
            own_lo, own_hi = interval(m)
            lo, hi = min(lo, own_lo * conv[0]), max(hi, own_hi * conv[0])
        if m.unit == "year":
            years = sorted({f.value for f in facts if f.kind == "number" and 1000 <= f.value <= 2200})
            return "years between two evidence years" if derive(m, years, False, True) == "difference" else ""
        for f in self.ev.numbers:
            for tok, period in (
                ("daily", 1440.0),
                ("hourly", 60.0),
                ("weekly", 10080.0),
                ("annual", 525600.0),
            ):
                if tok in f.key_tokens and lo <= period <= hi:
                    return f"the period of a {tok} value"
        if (
            m.unit in ("day", "week")
            and float(m.value).is_integer()
            and any(c.value == m.value for c in self.ev.counts)
        ):
            return "the number of days listed"
        keys = {id(f) for f in facts}
        dts = [f.value for f in self.ev.datetimes if id(f) in keys or f.list_path is None][:24]
        for i, x in enumerate(dts):
            for y in dts[i + 1 :]:
                if (x.tzinfo is None) != (y.tzinfo is None):
                    x, y = x.replace(tzinfo=None), y.replace(tzinfo=None)
                delta = abs((y - x).total_seconds()) / 60
                if delta and lo <= delta <= hi:
                    return "time between two evidence times"
        # The times of day of the records in context: their departures and arrivals.
        records = {f.record for f in facts if f.record is not None}
        how = _clock_span(lo, hi, [f for f in self.ev.times if f.record in records])
        if how:
            return how
        days: list[_date] = []
        for v in sorted(
            {
                f.value
                for f in self.ev.dates
                if f.value[0] and f.value[2] and (id(f) in keys or f.list_path is None)
            }
        ):
            try:
                days.append(_date(*v))
            except (TypeError, ValueError):
                continue  # "2024-02-30" in a result, or no month: no calendar day to count from
            if len(days) == 24:
                break
        for i, x in enumerate(days):
            for y in days[i + 1 :]:
                if lo <= abs((y - x).days) * 1440.0 <= hi:
                    return "days between two evidence dates"
        return ""

    def clock_duration(self, m: Mention) -> str:
        """``m`` ("1:30", no am/pm) read as hours and minutes: the time between two times of the run.

        A length of time is often written like a clock time ("Give me the result as HH:MM", "the flight
        takes 2:45"); when no clock time of the evidence is ``m``, the duration between two of its dated
        times may be.
        """
        assert m.time is not None
        minutes = float(m.time[0] * 60 + m.time[1])
        if not minutes:
            return ""
        probe = Mention("quantity", m.start, m.end, m.text, value=minutes, unit="min")
        how = self._duration(probe, self.ev.datetimes)
        return f"a duration written as hours:minutes ({how})" if how else ""

    # other kinds ------------------------------------------------------------------------------------
    def date(self, m: Mention) -> tuple[str, list[Fact], str]:
        assert m.date is not None
        y, mo, d, wd = m.date
        if self._dates_by_month is None:
            # Evidence dates per month, in evidence order: a date is compared with its month's dates only
            # (a scan of every date per mention grew with answer length x result size).
            by_month: dict[Any, list[Fact]] = {}
            for f in self.ev.dates:
                by_month.setdefault(f.value[1], []).append(f)
            self._dates_by_month = by_month
        hits = [
            f for f in self._dates_by_month.get(mo, ())
            if (d is None or f.value[2] == d) and (y is None or f.value[0] == y)
        ]  # fmt: skip
        if not hits and y is not None:
            hits = self._told_without_year(mo, d, y)
        if hits:
            if wd is not None and d is not None:
                year = y or next((f.value[0] for f in hits if f.value[0]), None)
                if year and mo is not None and _weekday(year, mo, d) not in (wd, -1):
                    return "CONTRADICTED", hits, "the weekday does not fall on this date"
            return "SUPPORTED", hits, "stated in the evidence"
        if self.ev.dates:
            later = _days_later(self.ev, y, mo, d)
            if later:
                return "SUPPORTED", later, "a time of the results falls days after this date (+N)"
            return "CONTRADICTED", [], "the evidence gives other dates"
        return "UNSUPPORTED", [], "no evidence gives this date"

    def _told_without_year(self, mo: int | None, d: int | None, y: int) -> list[Fact]:
        """The dates of the run told without a year ("departing on May 20") that are the answer's month and
        day, when ``y`` is a year of the run's dated evidence: "2024-05-20" restates the customer's "May 20"
        in the year the run is in (issue 14, tau2-bench airline runs of grok-4, h23i). Another year, one
        the run never dates anything in, is still the answer's own."""
        assert self._dates_by_month is not None
        if d is None:
            return []
        if self._run_years is None:
            self._run_years = frozenset(f.value[0] for f in self.ev.dates if f.value[0])
        if y not in self._run_years:
            return []
        return [f for f in self._dates_by_month.get(mo, ()) if f.value[0] is None and f.value[2] == d]

    def time(self, m: Mention) -> tuple[str, list[Fact], str]:
        if _IMPOSSIBLE_AM.match(m.text):
            # "13:00 AM" is no time of any clock: whatever the results give, this value is wrong.
            label = "CONTRADICTED" if self.ev.times else "UNSUPPORTED"
            return label, [], "an hour past 12 cannot be in the morning"
        if self._times_by_value is None:
            by_value: dict[Any, list[Fact]] = {}
            for f in self.ev.times:
                by_value.setdefault(f.value, []).append(f)
            self._times_by_value = by_value
        hits = list(self._times_by_value.get(m.time, ()))
        if hits:
            return "SUPPORTED", hits, "stated in the evidence"
        zone = m.extra.get("zone")
        if zone is not None and m.time is not None:
            # "4:10 AM EDT" for a result's 09:10+01:00: the same instant told in the zone the answer names.
            instants = [f for f in self.ev.datetimes if isinstance(f.value, datetime)]
            same = zone_instant_match(m.time, zone, [f.value for f in instants])
            if same is not None:
                told = [f for f in instants if f.value is same]
                return "SUPPORTED", told, "the same instant in another zone"
        if self.ev.times:
            return "CONTRADICTED", [], "the evidence gives other times"
        return "UNSUPPORTED", [], "no evidence gives this time"

    def literal(self, m: Mention) -> tuple[str, list[Fact], str]:
        needle = m.text.casefold().rstrip("/")
        if needle and needle in self.ev.raw_haystack:
            return "SUPPORTED", self._string_facts(normalize_text(m.text)), "stated in the evidence"
        norm = normalize_text(m.text)
        if norm and has_words(self.ev.haystack, norm):
            return "SUPPORTED", self._string_facts(norm), "stated in the evidence"
        if m.kind == "url":
            # The run's page in another form: scheme, "www.", tracking query, anchor, trailing slash,
            # locale segment, a parent path (h25f).
            if self._run_links is None:
                self._run_links = RunLinks(self.ev.raw_haystack)
            if self._run_links.same_page(m.text):
                return "SUPPORTED", [], "a page of the run, written in another form"
        if m.kind == "id":
            shape = _shape(m.text)
            same = any(_shape(f.text) == shape for f in self.ev.strings)
            return ("CONTRADICTED" if same else "UNSUPPORTED"), [], "no evidence gives this identifier"
        return "UNSUPPORTED", [], f"this {m.kind} appears nowhere in the run"

    def _string_facts(self, norm: str) -> list[Fact]:
        if self._by_word is None:
            # word -> the strings that contain it, so a look-up scans only the strings of its rarest word
            # A string is added to each of its words' lists once: a repeated word finds it last in its list
            # (cheaper than a set of the words of every string).
            by_word: dict[str, list[Fact]] = {}
            for f in self.ev.strings:
                for w in f.value.split():
                    found = by_word.get(w)
                    if found is None:
                        by_word[w] = [f]
                    elif found[-1] is not f:
                        found.append(f)
            self._by_word = by_word
        words = norm.split()
        pools = [self._by_word.get(w, []) for w in words]
        pool = min(pools, key=len) if pools and all(pools) else self.ev.strings
        hits = [f for f in pool if norm in f.value]
        if not hits:
            compact = norm.replace(" ", "")
            if self._compact_strings is None:
                self._compact_strings = [(f.value.replace(" ", ""), f) for f in self.ev.strings]
            hits = [f for value, f in self._compact_strings if compact and compact in value]
        return hits[:20]

    def entity(self, m: Mention) -> tuple[str, list[Fact], str]:
        # A name recurs in an answer ("Item ...", a city): its verdict depends on its text alone.
        known = self._names.get(m.text)
        if known is None:
            known = self._names[m.text] = self._entity(m)
        label, facts, why = known
        return label, list(facts), why  # each finding owns its list of facts

    def _entity(self, m: Mention) -> tuple[str, list[Fact], str]:
        norm = normalize_text(m.text)
        if not norm:
            return "SUPPORTED", [], "empty"
        if has_words(self.ev.haystack, norm):
            return "SUPPORTED", self._string_facts(norm), "stated in the evidence"
        if _ACRONYM_PLURAL.fullmatch(m.text):
            # "IDs", "URLs", "PINs": the plural of an abbreviation the run has ("reservation_id").
            single = norm[:-1]
            if has_words(self.ev.haystack, single) or self.ev.in_vocabulary(single):
                return (
                    "SUPPORTED",
                    self._string_facts(single),
                    "the plural of an abbreviation of the evidence",
                )
        for alias in (*ALIASES.get(norm, ()), *REVERSE_ALIASES.get(norm, ())):
            if has_words(self.ev.haystack, alias):
                return "SUPPORTED", self._string_facts(alias), "a common abbreviation of the evidence"
        compact = norm.replace(" ", "").replace(".", "")
        if len(compact) >= 2 and self.ev.has_acronym(compact):  # the length first: no table for one letter
            return "SUPPORTED", [], "an acronym of the evidence"
        if m.text.isupper() and m.text.upper() in ISO_CURRENCIES and m.text.upper() in self.ev.currencies:
            return "SUPPORTED", [], "a currency of the evidence"
        if compact != norm:
            # "U.S." is "US": a dotted abbreviation has the aliases of its letters (issue 14, h20j).
            for alias in (*ALIASES.get(compact, ()), *REVERSE_ALIASES.get(compact, ())):
                if has_words(self.ev.haystack, alias):
                    return "SUPPORTED", self._string_facts(alias), "a common abbreviation of the evidence"
            if _dotted_code_of_evidence(m.text, compact, self.ev):
                return "SUPPORTED", self._string_facts(compact), "the evidence's code, written with dots"
        if _expansion_of_evidence_code(norm, self.ev):
            return "SUPPORTED", [], "the expansion of a code of the evidence"
        tokens = [t for t in norm.split() if t not in FUNCTION_WORDS and len(t) > 1]
        if tokens and all(self._token_known(t) for t in tokens):
            facts = self._string_facts(norm)
            if not facts:
                for t in tokens:
                    facts += self._string_facts(t)
            return "SUPPORTED", facts[:20], "its words all appear in the evidence"
        head, sep, tail = m.text.replace("\u2010", "-").replace("\u2011", "-").rpartition("-")
        if sep and head and tail.isalpha() and tail.islower():
            # "DHL-calculable", "Tesla-approved": a name of the results with a lower-case word joined to it
            # is an attribute of that name, not another name (issue 14, h21a).
            known_head = normalize_text(head)
            if known_head and has_words(self.ev.haystack, known_head):
                return "SUPPORTED", self._string_facts(known_head), "a name of the evidence with a suffix"
        return "UNSUPPORTED", [], "this name appears nowhere in the run"

    def _token_known(self, tok: str) -> bool:
        known = self.ev.in_vocabulary  # the set of words is built only if the fuzzy match below needs it
        if known(tok) or (len(tok) > 4 and known(tok.rstrip("s"))) or known(tok.replace("-", "")):
            return True
        if any(known(a) for a in (*ALIASES.get(tok, ()), *REVERSE_ALIASES.get(tok, ()))):
            return True
        if len(tok) < 5:
            return False
        # fuzz.ratio is at most 200·min(len)/(sum of lengths): only entries of 88/112 to 112/88 of the word's
        # length can reach 88 (integer bounds, the boundary lengths included).
        n = len(tok)
        near = self.ev.vocabulary_near(-(-88 * n // 112), 112 * n // 88)
        best = process.extractOne(tok, near, scorer=fuzz.ratio, score_cutoff=88)
        return best is not None


def _clock_span(lo: float, hi: float, times: list[Fact]) -> str:
    """How a length of time in minutes ``[lo, hi]`` is the time from a departure to an arrival of the
    records in context (times of day, past midnight when the arrival is earlier: "01:00:00+1"): a flight of
    one record ("a 2.5-hour flight" from 07:00 to 09:30), or a wait from one record's arrival to another's
    departure ("a layover of 9.5 hours" from 09:30 to 19:00). Issue 14, h23d.

    >>> from .evidence import Fact
    >>> def t(hm, key, rec):
    ...     return Fact("time", hm, 2, (rec, key), (2, (rec,)), None, frozenset(key.split("_")))
    >>> times = [t((7, 0), "departure_time", 0), t((9, 30), "arrival_time", 0)]
    >>> times.append(t((19, 0), "departure_time", 1))
    >>> _clock_span(150, 150, times), _clock_span(570, 570, times), _clock_span(600, 600, times)
    ('the time from a departure to its arrival', 'the time from an arrival to the next departure', '')
    """
    departures = [f for f in times if f.key_tokens & _DEPARTURE_KEYS]
    arrivals = [f for f in times if f.key_tokens & _ARRIVAL_KEYS]
    for d in departures:
        for a in arrivals:
            if not (isinstance(d.value, tuple) and isinstance(a.value, tuple)):
                continue
            minutes = ((a.value[0] - d.value[0]) * 60 + a.value[1] - d.value[1]) % 1440
            if not minutes:
                continue
            if a.record == d.record and lo <= minutes <= hi:
                return "the time from a departure to its arrival"
            if a.record != d.record and lo <= 1440 - minutes <= hi:
                return "the time from an arrival to the next departure"
    return ""


_DEPARTURE_KEYS = frozenset({"departure", "departs", "depart", "departing"})
_ARRIVAL_KEYS = frozenset({"arrival", "arrives", "arrive", "arriving"})


def _dotted_code_of_evidence(text: str, compact: str, ev: Evidence) -> bool:
    """Whether a dotted abbreviation ("U.S.", "U.K.") is a code the results write without dots, in
    capitals ("origin_country: US"): the same code (issue 14, h22a). The capitals are required, so that a
    pronoun "us" of a page supports no "U.S.".

    >>> from .evidence import Evidence
    >>> ev = Evidence(haystack="origin country us")
    >>> ev.contents[0] = "origin_country: US"
    >>> _dotted_code_of_evidence("U.S", "us", ev), _dotted_code_of_evidence("U.K", "uk", ev)
    (True, False)
    >>> ev.contents[0] = "contact us today"
    >>> _dotted_code_of_evidence("U.S", "us", ev)
    False
    """
    if not 2 <= len(compact) <= 4 or "." not in text or not has_words(ev.haystack, compact):
        return False
    code = re.compile(r"(?<![\w.])" + re.escape(compact.upper()) + r"(?![\w])")
    return any(isinstance(c, str) and code.search(c) for c in ev.contents.values())


def _expansion_of_evidence_code(norm: str, ev: Evidence) -> bool:
    """Whether a name of three words or more spells out, by its words' initials (function words aside), a
    code the results write in capitals: "Family and Medical Leave Act" for "FMLA", "Health Savings Account"
    for "HSA" (issue 14: well-known expansions of the codes the tools return are no new names; h22a).

    >>> from .evidence import Evidence
    >>> ev = Evidence(haystack="leave type fmla")
    >>> ev.contents[0] = "leave_type: FMLA"
    >>> _expansion_of_evidence_code("family and medical leave act", ev)
    True
    >>> _expansion_of_evidence_code("federal motor leave office", ev)
    False
    >>> _expansion_of_evidence_code("fm leave", ev)
    False
    """
    words = [w for w in norm.split() if w not in FUNCTION_WORDS]
    if not 3 <= len(words) <= 8 or not all(w[:1].isalpha() for w in words):
        return False
    code = "".join(w[0] for w in words)
    if not has_words(ev.haystack, code):
        return False
    upper = re.compile(r"(?<![\w.])" + re.escape(code.upper()) + r"(?![\w])")
    return any(isinstance(c, str) and upper.search(c) for c in ev.contents.values())


# The plural of an abbreviation: capitals and a lower-case "s" ("IDs", "URLs", "SKUs").
_ACRONYM_PLURAL = re.compile(r"[A-Z]{2,6}s")

# Words of a field label only, where a name would not stand ("New Price:", "Grand Total:").
_LABEL_WORDS = frozenset({"new", "old", "base", "net", "grand", "full"})
# A line's list markup, bullets and check marks ("- ", "2. ", "✅ **", "✓ ") before its first word.
_LINE_MARKUP = re.compile(r"[ \t]*(?:[-+•>*#✅✓✔☑][\ufe0f]?[ \t]*)*(?:\d{1,2}[.)][ \t]*)?[*_]*")
# "Non-waterproof", "non-refundable": an attribute of the results told as absent, not a name.
_NON = re.compile(r"(?i)non-([a-z]{3,})")


def _service_word(word: str) -> bool:
    """A service word, or its -ing, -ed or -s form ("Exchanging:", "Modified:", "Arrives at 01:00").

    >>> _service_word("arrives"), _service_word("departing"), _service_word("processed")
    (True, True, True)
    >>> _service_word("paris")
    False
    """
    if word in SERVICE_WORDS:
        return True
    for suffix in ("ing", "ed", "s"):
        stem = word.removesuffix(suffix)
        if stem != word and (stem in SERVICE_WORDS or stem + "e" in SERVICE_WORDS):
            return True
    return False


# The line under a markdown table's header: "|---|---|", "| :--- | ---: |".
_TABLE_RULE = re.compile(r"[ \t]*\|[ \t]*:?-{2,}")


def _table_header_cell(answer: str, pos: int) -> bool:
    r"""Whether ``pos`` is in the header row of a markdown table (a line of cells the rule line follows): its
    words name columns, they are no claim (issue 14, h25d: table rows now read one by one).

    >>> a = "| Item | New price |\n|---|---|\n| Lamp | $5 |"
    >>> _table_header_cell(a, a.index("New")), _table_header_cell(a, a.index("Lamp"))
    (True, False)
    """
    start = answer.rfind("\n", 0, pos) + 1
    if not answer[start:pos].lstrip(" \t").startswith("|"):
        return False
    end = answer.find("\n", pos)
    return end >= 0 and _TABLE_RULE.match(answer, end + 1) is not None


def _service_label(answer: str, m: Mention, ev: Evidence) -> bool:
    r"""Whether a capitalised phrase the run does not have is an agent's ordinary label words, not a name.

    Made only of ``SERVICE_WORDS`` ("Total Cost", "Direct Flights"), it is one anywhere. As a field label
    (opening a line or a list item, before a colon: "- New Total Price: $478", "- Original Cabin: Business",
    "Mia Khan's Date of Birth:") one of its words is a service word or a key of the results, the field it
    names, and each other word a service word or a word of the run. "- Olivia Smith: 4" stays a name: no
    word of it names a field.

    >>> from .evidence import Evidence
    >>> ev = Evidence(haystack="cabin | economy")
    >>> a = "- Original Cabin: Economy\n- Olivia Smith: 4\nThe Total Cost is $5."
    >>> [_service_label(a, Mention("entity", i, j, a[i:j]), ev) for i, j in ((2, 16), (28, 40), (48, 58))]
    [True, False, True]
    """
    words = normalize_text(m.text).split()
    if not words:
        return False
    if all(_service_word(w) for w in words):
        return True
    if _table_header_cell(answer, m.start):
        return True  # "| Current item | Current price | New price |": a markdown table's column names
    negated = _NON.fullmatch(m.text)
    if negated is not None and ev.in_vocabulary(lower(negated.group(1))):
        return True  # "Leather, Non-waterproof" beside ``"waterproof": "no"``
    if m.text.isupper() and len(words) > 1 and all(_service_word(w) or ev.in_vocabulary(w) for w in words):
        return True  # a heading in capitals of the run's and the service's words: "GRILL MODIFICATION - ..."
    line_start = answer.rfind("\n", 0, m.start) + 1
    opening = _LINE_MARKUP.match(answer, line_start)
    if opening is None or opening.end() != m.start or not answer[m.end :].lstrip("*_ \t").startswith(":"):
        return False
    words = [w[:-2] if w.endswith("'s") else w for w in words]
    if not any(_service_word(w) or ev.numbers_keyed(w) for w in words):
        return False
    return all(
        _service_word(w) or w in _LABEL_WORDS or w in FUNCTION_WORDS or ev.in_vocabulary(w) for w in words
    )


def _without_advice_names(findings: list[Finding], returned: ReturnedKinds) -> list[Finding]:
    """``findings`` without the unsupported names headed by a kind noun the run names nothing of ("...
    Customer Service" where no text of the run names a service): advice from general knowledge (issue 14,
    h23b). Read after the code expansions, which take an unsupported "Medical Leave Act" with the "Family"
    before it as the results' FMLA; a bare short answer ("The Selective Service Act.") is the value asked
    for and is not read here."""
    return [
        f
        for f in findings
        if not (
            f.label == "UNSUPPORTED" and f.mention.kind == "entity" and returned.lacks_kind_of(f.mention.text)
        )
    ]


def _reference_elsewhere(answer: str, m: Mention, returned: ReturnedKinds) -> bool:
    """Whether the unsupported URL ``m`` is offered as a reference (a Markdown link, a line of sources) to a
    site no text of the run gives: general knowledge, not a value of the results (issue 14, h23b)."""
    return offered_as_reference(answer, m) and not returned.host_returned(m.text)


def _of_no_result_kind(answer: str, m: Mention, mentions: list[Mention]) -> bool:
    """Whether the unsupported name ``m`` is of no kind of name the tool results hold: a time zone after a
    clock time ("3:42 PM PDT"), or a term of general vocabulary ("Wi-Fi", "Ethernet", "HR").

    Issue 14's rule: a name unsupported by the tools is a claim when it is a proper name of a kind the tools
    return (people, places, firms, products, the records' codes); general knowledge the context does not
    speak to is not (h20j). Other acronyms stay claims: "UBS" or "HBO" beside a record or passage that
    names no such firm or network is a made-up name, not vocabulary.
    """
    text = m.text
    low = lower(text)
    if low in TIME_ZONES:
        i = m.start
        while i > 0 and answer[i - 1] in " \t(":
            i -= 1
        if any(x.end == i and x.kind in ("time", "date") for x in mentions):
            return True
    words = normalize_text(text).split()
    return bool(words) and all(w in GENERAL_TERMS for w in words)


# A possessive inside a capitalised phrase ("Tesla’s Wheel"), and the capitalised words that may continue the
# owned name past the phrase ("... and Tire Protection Plan").
_POSSESSIVE = re.compile(r"['’]s[ \t]+")
_NAME_TAIL = re.compile(r"(?:[ \t]+(?:(?:and|&|of|for|the)[ \t]+)?[A-Z][\w'’\u2010\u2011-]*)*")


def _owned_by_a_known_name(answer: str, m: Mention, matcher: _Matcher) -> bool:
    """Whether the unsupported name ``m`` is a name of the results in the possessive before a name the
    results give whole: "Tesla’s Wheel and Tire Protection Plan" (the plan on a page, Tesla a manufacturer
    of the records), "Tesla’s Model S". The phrase is the owner and the thing owned, not one name (issue 14,
    h20j). The owned name must be the results' own phrase of two words or more: a possessive before a
    single word ("Brer Rabbit’s Adventure") is a title, still checked whole.
    """
    poss = _POSSESSIVE.search(m.text)
    if poss is None:
        return False
    owner = m.text[: poss.start()]
    if not owner or matcher.entity(Mention("entity", m.start, m.start + len(owner), owner))[0] != "SUPPORTED":
        return False
    own_start = m.start + poss.end()
    tail = _NAME_TAIL.match(answer, m.end)
    end = tail.end() if tail is not None else m.end
    for stop in (end, m.end):
        owned = normalize_text(answer[own_start:stop])
        if len(owned.split()) >= 2 and has_words(matcher.ev.haystack, owned):
            return True
    return False


def _closing(text: str) -> bool:
    r"""Whether a capitalised phrase is a closing formula of a message ("Best Regards", "Safe Travels",
    "Have a Great Trip"), or opens with one on its own line, the signature after it ("Best Regards,\nThe
    Travel Desk"): made of closing words (``CLOSING_WORDS``), with service and function words, one of
    them a closing word. "Best Western" or "Warm Springs Lodge" are no closing formulas: a word of them is
    none of those.

    >>> _closing("Best Regards"), _closing("Best Regards,\nRail Desk"), _closing("Best Western")
    (True, True, False)
    >>> _closing("Weekend"), _closing("Have a Great Weekend")
    (False, True)
    """
    first = text.partition("\n")[0]
    words = normalize_text(first).split()
    if not words or not any(w in CLOSING_WORDS for w in words):
        return False
    if len(words) == 1 and words[0] not in _SIGN_OFFS:
        return False  # "Good", "Nice" alone open a sentence, they close no message
    return all(
        w in CLOSING_WORDS or w in CLOSING_NOUNS or w in SERVICE_WORDS or w in FUNCTION_WORDS for w in words
    )


_SIGN_OFFS = frozenset({"regards", "sincerely", "cheers", "thanks"})


# A value that says a field is empty or open ("- Baggage: None", "Seat: N/A", "Gate: TBD"): capitalised as
# a list item's first word, never a name (h14a).
_PLACEHOLDER = re.compile(
    r"(?:none|nil|n/?a|tbd|tba|unknown|free|pending|unlimited|included|complimentary)(?![\w/])", re.I
)


def _placeholder(answer: str, m: Mention) -> bool:
    r"""Whether the name ``m`` is only a word that says a field is empty or open (``_PLACEHOLDER``).

    >>> a = "- Bags: None\n- Carrier: Free Spirit Rail"
    >>> free = Mention("entity", 24, 41, "Free Spirit Rail")
    >>> _placeholder(a, Mention("entity", 8, 12, "None")), _placeholder(a, free)
    (True, False)
    """
    found = _PLACEHOLDER.match(answer, m.start)
    return found is not None and m.end <= found.end()


def _signature(answer: str, start: int) -> bool:
    r"""Whether ``start`` opens the line right after a closing formula ("Kind regards,\nRail Desk"): the
    signature of the message, not a claim about the results.

    >>> a = "It leaves at 7.\nKind regards,\nRail Desk"
    >>> _signature(a, a.index("Rail")), _signature(a, a.index("It"))
    (True, False)
    """
    line = answer.rfind("\n", 0, start) + 1
    if line == 0:
        return False
    # The line before first: normalising the words before ``start`` for every name of a long line cost the
    # square of its length (h22b: 33,000 characters of names, 7 s); the order of the two tests is no matter.
    before = answer.rfind("\n", 0, line - 1) + 1
    closing = answer[before : line - 1].strip(" \t*_-,!.")
    if not (closing and _closing(closing)):
        return False
    lead = normalize_text(answer[line:start]).split()
    return all(w in FUNCTION_WORDS for w in lead)  # "Your Assistant" is a signature too


# Deletes every ASCII character but a-z and 0-9 (the haystack is case-folded already).
_DROP_NON_ALNUM = {c: None for c in range(128) if not (chr(c).isdigit() or "a" <= chr(c) <= "z")}

_LETTER = re.compile(r"[A-Za-z]")
_DIGIT = re.compile(r"\d")


# A clock time of the results that falls days after its record's date: "03:00:00+1" (next day).
_DAY_OFFSET = re.compile(r"\d:\d\d(?::\d\d)?\+(\d)\b")


def _days_later(ev: Evidence, y: int | None, mo: int | None, d: int | None) -> list[Fact]:
    """The evidence dates that ``y-mo-d`` is N days after, when the results mark times "+N" (a flight that
    lands the next day): "Arrival: May 26" for a flight of May 25 arriving at "00:00:00+1" is that
    time's date, not a date the agent made up (issue 14). Only the offsets the results mark count.

    >>> from .evidence import Fact, Evidence
    >>> ev = Evidence(dates=[Fact("date", (2024, 5, 25), 1, ("date",), None, None)],
    ...               raw_haystack="hat276 | 18:00:00 | 00:00:00+1 | 2024-05-25")
    >>> [f.value for f in _days_later(ev, 2024, 5, 26)], _days_later(ev, 2024, 5, 27)
    ([(2024, 5, 25)], [])
    """
    if d is None or mo is None:
        return []
    offsets = {int(n) for n in _DAY_OFFSET.findall(ev.raw_haystack)}
    out: list[Fact] = []
    for f in ev.dates if offsets else ():
        fy, fm, fd = f.value[0], f.value[1], f.value[2]
        if fy is None or fm is None or fd is None or (y is not None and fy != y):
            continue
        try:
            base = _date(fy, fm, fd)
        except ValueError:
            continue
        for n in offsets:
            later = _date.fromordinal(base.toordinal() + n)
            if later.month == mo and later.day == d:
                out.append(f)
    return out


# A list whose values under one key are added up ("New Total Price: $465" for the prices of a reservation's
# four flights): a short list, as a total of a long one is seldom stated and would match by chance.
_MAX_TOTALLED = 12


# An enumeration the answer gives: "(#W1 and #W2)", "hose, backpack, and hiking boots". Its parts are
# split at commas, "and", "&" and "or".
_ENUM_SPLIT = re.compile(r"\s*(?:,\s*(?:and|&)?|\band\b|&|\bor\b)\s*")
_PAREN_AFTER = re.compile(r"[^\S\n]*\(([^()\n]{1,200})\)")
_BACK_REFERENCE = frozenset({"these", "those", "both"})


def _enumerated(text: str, longest: int) -> int:
    """How many items ``text`` enumerates from its end: trailing parts of at most ``longest`` words."""
    parts = [p for p in _ENUM_SPLIT.split(text.strip(" .:;!?*")) if p.strip()]
    n = 0
    for part in reversed(parts):
        if len(part.split()) > longest:
            break
        n += 1
    return n if n >= 2 else 0


def _counts_named_items(answer: str, m: Mention) -> bool:
    """Whether the count ``m`` ("two orders", "these two items") counts items the answer itself names with
    it: a parenthesised enumeration right after its noun ("your other two orders (#W1 and #W2)", "all three
    items (hose, backpack, and hiking boots)"), or, after "these", "those" or "both", the last items of the
    enumeration the answer ended its previous sentence with ("... return the Electric Kettle and Mechanical
    Keyboard. The refund for these two items"). The count is then the answer's own, not a length of a
    result's list (the items themselves are checked as claims of their own); it is compared with what it
    counts.

    >>> a = "Your other two orders (#W1 and #W2) are processed."
    >>> _counts_named_items(a, Mention("count", 11, 14, "two", value=2.0, noun="orders"))
    True
    >>> _counts_named_items(a, Mention("count", 11, 14, "two", value=3.0, noun="orders"))
    False
    """
    assert m.value is not None and m.noun is not None
    want = int(m.value) if float(m.value).is_integer() else -1
    if want < 2:
        return False
    low = lower(answer)
    noun_at = low.find(lower(m.noun), m.end)
    if 0 <= noun_at - m.end <= 12:
        after = _PAREN_AFTER.match(answer, noun_at + len(m.noun))
        if after is not None:
            return _enumerated(after.group(1), 5) == want
    before = low[max(0, m.start - 12) : m.start].split()
    if not before or before[-1] not in _BACK_REFERENCE:
        return False
    head = answer[: m.start]
    # The previous sentence: from the last sentence end before the count's own sentence.
    own = max(head.rfind(". "), head.rfind("\n"), head.rfind("! "), head.rfind("? "))
    if own < 0:
        return False
    prev_start = max(head.rfind(". ", 0, own), head.rfind("\n", 0, own), 0)
    # "These two items": the last two things the sentence before names (it may name more before them).
    return _enumerated(head[prev_start:own], 4) >= want


# The value a count is filtered by, right after its noun: "2 reservations in business class".
_FILTER = re.compile(r"[a-z ]{0,30}?\b(?:in|with)\s+(?:the\s+)?([a-z]+)")
# Or the one word between the count and its noun: "three pending orders" (the word, then the noun).
_STATE_BEFORE_NOUN = re.compile(r"[ \t]+([a-z]+)[ \t]+([a-z]+)")
# Or a word after the noun that says what the things are: "3 orders that are still pending".
_STATE_AFTER_NOUN = re.compile(
    r"[ \t]+([a-z]+)[ \t]+(?:(?:(?:that|which)[ \t]+)?(?:are|were|remain)[ \t]+)?"
    r"(?:(?:still|currently|now)[ \t]+)?([a-z]+)\b(?![ \t]+(?:to|by|for|on|at|in|from|with)\b)"
)


def _filtered_count(answer: str, m: Mention, ev: Evidence) -> list[Fact]:
    """The tool results or records that have the value a count names after its noun, when there are as
    many as it says: "You have two upcoming reservations in business class" after three reservations were
    fetched, two with ``"cabin": "business"`` (issue 14: counts the agent made of the results). Each result
    or record counts once, whatever key holds the value.

    >>> from .evidence import Fact, Evidence
    >>> ev = Evidence(strings=[Fact("string", "business", i, ("cabin",), None, None) for i in (3, 5)]
    ...     + [Fact("string", "economy", 4, ("cabin",), None, None)])
    >>> ans = "You have two reservations in business class."
    >>> len(_filtered_count(ans, Mention("number", 9, 12, "two", value=2.0, noun="reservations"), ev))
    2
    >>> _filtered_count(ans, Mention("number", 9, 12, "two", value=3.0, noun="reservations"), ev)
    []
    >>> ans = "You have two business reservations."
    >>> len(_filtered_count(ans, Mention("number", 9, 12, "two", value=2.0, noun="reservations"), ev))
    2
    >>> ans = "You have two reservations that are still business."
    >>> len(_filtered_count(ans, Mention("number", 9, 12, "two", value=2.0, noun="reservations"), ev))
    2
    """
    low = lower(answer)
    text = low if len(low) == len(answer) else answer
    found = _FILTER.match(text, m.end)
    if m.value is None:
        return []
    if found is not None and found.group(1) not in FUNCTION_WORDS:
        word = found.group(1)
    else:
        # The value as the word before the noun: "three pending orders", "2 delivered orders" (h23d).
        before = _STATE_BEFORE_NOUN.match(text, m.end)
        after = _STATE_AFTER_NOUN.match(text, m.end)
        if before is not None and m.noun is not None and lower(before.group(2)) == lower(m.noun):
            word = before.group(1)
        elif after is not None and m.noun is not None and lower(after.group(1)) == lower(m.noun):
            # Or after it: "3 orders that are still pending", "two reservations still pending".
            word = after.group(2)
        else:
            return []
        if word in FUNCTION_WORDS:
            return []
    picked: dict[tuple[int, int], Fact] = {}
    for f in ev.strings:
        if f.source == "tool" and isinstance(f.value, str) and f.value == word:
            picked.setdefault((f.message_index, id(f.record)), f)
    return list(picked.values()) if picked and len(picked) == m.value else []


def _list_totals(ev: Evidence) -> list[tuple[float, list[Fact]]]:
    """The sum of each short list's values under one key, with the values: a total the agent computed
    from the items of one result (issue 14: sums and totals of the results are not false claims). The
    pairwise sums of ``derive`` see only the records the answer names, and no total of three items.

    >>> from .evidence import Fact, Evidence
    >>> prices = [Fact("number", v, 2, ("flights", i, "price"), None, (2, ("flights",))) for i, v in
    ...           enumerate([107.0, 141.0, 108.0, 109.0])]
    >>> [t for t, _ in _list_totals(Evidence(numbers=prices))]
    [465.0]
    """
    # The items of one list under one key: the list's path and the key (``flights[i].price``).
    groups: dict[tuple[Any, Any], list[Fact]] = {}
    for f in ev.numbers:
        if f.list_path is None or f.source != "tool" or not isinstance(f.path, tuple) or not f.path:
            continue
        key = (f.list_path, f.path[-1])
        group = groups.get(key)
        if group is None:
            groups[key] = [f]
        elif len(group) <= _MAX_TOTALLED:
            group.append(f)
    return [
        (sum(x.value for x in facts), facts) for facts in groups.values() if 2 <= len(facts) <= _MAX_TOTALLED
    ]


def _calculator_results(ev: Evidence) -> list[Fact]:
    """The tool results that are one number and nothing else: what a calculator tool returned."""
    return [
        f
        for f in ev.numbers
        if f.path == "$"
        and f.source == "tool"
        and f.text
        and ev.contents.get(f.message_index, "").strip() == f.text.strip()
    ]


def _calculated(m: Mention, results: list[Fact]) -> list[Fact]:
    """The calculator ``results`` (:func:`_calculator_results`) that give ``m``: "5.0" for "(13 - 11) +
    (16 - 13)", which the agent then states with its unit or currency ("5 hours", "$255"). A number of a
    larger result is no calculation and stays compared by its key and unit.

    >>> from .evidence import Fact, Evidence
    >>> ev = Evidence(numbers=[Fact("number", 5.0, 3, "$", None, None, text="5.0")], contents={3: "5.0"})
    >>> hours = Mention("quantity", 0, 7, "5 hours", value=5.0, unit="hour")
    >>> [f.value for f in _calculated(hours, _calculator_results(ev))]
    [5.0]
    """
    if m.value is None or not results:
        return []
    # The figure as written: a quantity's value is kept in a base unit ("5 hours" is 300 minutes).
    written = _FIGURE.search(m.text)
    probe = m
    if written is not None and m.unit:
        figure = float(written.group(0).replace(",", ""))
        probe = Mention("number", m.start, m.end, m.text, value=figure, decimals=m.decimals, hedge=m.hedge)
    return [f for f in results if accepts(m, f.value) or accepts(probe, f.value)]


_FIGURE = re.compile(r"-?\d[\d,]*(?:\.\d+)?")


# A run of digits that ends an identifier: "gift_card_7091239", "certificate-8544743", "order #50321".
_DIGITS = re.compile(r"\d{4,12}")


def _identifier_digits(text: str, ev: Evidence) -> bool:
    """Whether the bare number ``text`` ("7091239") is the digit part of an identifier of the results
    (``gift_card_7091239``): agents name a payment method, an order or a card by its number alone (issue 14:
    identifiers the tools return). A number of four digits or more, the whole run of digits after a word of
    the identifier; another number ("7091238") is not.

    >>> ev = Evidence(raw_haystack="gift_card_7091239 | credit_card_4412093", haystack="gift card 7091239")
    >>> _identifier_digits("7091239", ev), _identifier_digits("7091238", ev), _identifier_digits("709123", ev)
    (True, False, False)
    """
    if not _DIGITS.fullmatch(text):
        return False
    for hay in (ev.raw_haystack, ev.haystack):
        pos = hay.find(text)
        while pos >= 0:
            end = pos + len(text)
            before = hay[pos - 2 : pos] if pos >= 2 else ""
            if (
                len(before) == 2
                and before[0].isalpha()
                and before[1] in "_-# "
                and (end == len(hay) or not hay[end].isdigit())
            ):
                return True
            pos = hay.find(text, pos + 1)
    return False


# The words that announce the last characters of an identifier: "VIN ending 17642", "card ending in 4242",
# "ends with **0517**", just before the number.
_ENDING_BEFORE = re.compile(r"(?:\bending|\bends?)(?:\s+(?:in|with))?[\s*_`'\"(:#]*$")


def _identifier_tail(answer: str, m: Mention, ev: Evidence) -> bool:
    """Whether ``m`` is the tail of an identifier of the results that the answer says it ends with: "VIN
    ending 17642" for ``vin: 5YJ3E1EA7KF317642`` (a number of three digits or more, after "ending" or "ends
    with", found at the end of a longer code of the results).

    >>> ev = Evidence(raw_haystack="vin: 5yj3e1ea7kf317642 | card: visa")
    >>> a = "The VIN ending 17642 is yours; the VIN ending 17643 is not; 17642 alone is a number."
    >>> [_identifier_tail(a, m, ev) for m in extract_mentions(a) if m.kind == "number"]
    [True, False, False]
    """
    text = m.text
    if len(text) < 3 or not text.isdigit():
        return False
    if not _ENDING_BEFORE.search(lower(answer[max(0, m.start - 60) : m.start])):
        return False
    hay = ev.raw_haystack
    pos = hay.find(text)
    while pos >= 0:
        end = pos + len(text)
        if pos > 0 and hay[pos - 1].isalnum() and (end == len(hay) or not hay[end].isalnum()):
            return True
        pos = hay.find(text, pos + 1)
    return False


def _find_unprefixed(haystack: str, needle: str) -> bool:
    """Whether ``needle`` occurs in ``haystack`` not right after a digit ("2tablets", not "12tablets").

    >>> _find_unprefixed("12tablets2tablets", "2tablets"), _find_unprefixed("12tablets", "2tablets")
    (True, False)
    """
    pos = haystack.find(needle)
    while pos >= 0:
        if pos == 0 or not haystack[pos - 1].isdigit():
            return True
        pos = haystack.find(needle, pos + 1)
    return False


def _shape(text: str) -> str:
    return _LETTER.sub("A", _DIGIT.sub("9", text.strip()))


# ---- the driver -------------------------------------------------------------------------------------


def ground_answer(
    answer: str,
    ev: Evidence,
    *,
    budget: Budget = UNLIMITED,
    max_claims: int | None = None,
    max_comparisons: int | None = None,
    answer_path: str = "answer",
    question: str = "",
    turn_start: int = -1,
    work: list[int] | None = None,
) -> list[Finding]:
    """Label the checkable values of ``answer`` against ``ev``.

    ``question`` is the user's request the answer replies to: when it asks for an aggregate (a total, a
    sum, an estimate of a cost), a bare number the rules cannot derive is taken as that computation, not
    flagged (see ``_bare_unsupported``). ``turn_start`` is the index of that request's message: the tool
    results after it are the answer's own turn (see ``relative.relative_findings``).

    ``max_claims`` caps the answer's checkable values and ``max_comparisons`` those values times the
    evidence facts (RunTooLargeError naming ``answer_path``, before any matching); ``budget`` is checked
    for every value matched, as each match may scan the evidence. ``work``, when given, receives the number
    of findings the arithmetic look-ups of the amounts read (``AnswerAmounts.reads``: tests count work so).

    >>> from .messages import parse_run
    >>> from .evidence import build_evidence
    >>> run = parse_run([{"role": "user", "content": "When was it built?"},
    ...     {"role": "tool", "tool_call_id": "c", "content": '{"built": "1887-1889", "height": "330 m"}'},
    ...     {"role": "assistant", "content": "It was built in 1950 and is about 1,083 feet tall."}])
    >>> [(f.mention.text, f.label) for f in ground_answer(run.answer, build_evidence(run))]
    [('1950', 'CONTRADICTED'), ('1,083 feet', 'SUPPORTED')]
    """
    mentions = _join_names(answer, extract_mentions(answer), ev)
    _check_work(mentions, ev, max_claims, max_comparisons, answer_path)
    budget.check("reading the answer")
    bare = len(answer.split()) <= 5
    if bare:
        # A bare short answer ("Lepidoptera", "Scottish") is the claim itself, even at the start.
        for m in mentions:
            m.strong = True
    sentences = split_sentences(answer) or [(0, len(answer))]
    matcher = _Matcher(ev, answer)
    returned = ReturnedKinds(ev)  # the kinds of names and the sites the run speaks of, read on first use
    unread_links: list[tuple[int, int]] = []
    findings: list[Finding] = []

    # Sentences are disjoint and in order: the one holding a position is found by bisection.
    sentence_starts = [s[0] for s in sentences]

    def sentence_of(pos: int) -> tuple[int, int]:
        i = bisect_right(sentence_starts, pos) - 1
        if i >= 0 and pos < sentences[i][1]:
            return sentences[i]
        return sentences[-1]

    # Pass 1: values on their own.
    deferred: list[Mention] = []
    markers = _list_markers(answer) | _numbered_labels(answer)
    for m in mentions:
        budget.check("matching the answer's values against the evidence")
        sent = sentence_of(m.start)
        if m.kind in ("money", "percent", "quantity", "number", "count", "year"):
            if (m.kind == "count" and m.extra.get("word") in ("first", "second")) or m.value is None:
                continue
            if m.kind == "number" and m.start in markers:
                continue  # "1. ... 2. ...": the numbers of a list's items, not values
            label, facts, why, derived = matcher.number(m)
            if label == "UNSUPPORTED" and m.kind == "number" and _identifier_digits(m.text, ev):
                label, why = "SUPPORTED", "the digits of an identifier of the results"
            elif label != "SUPPORTED" and m.kind == "number" and _identifier_tail(answer, m, ev):
                label, facts, why = "SUPPORTED", [], "the last characters of an identifier of the results"
            if label != "SUPPORTED" and m.kind == "quantity" and _named_period(m, ev):
                label, facts, why = "SUPPORTED", [], "the run names this period in words"
            findings.append(Finding(m, label, sent, facts, why, derived))
        elif m.kind == "score":
            hits = [f for f in ev.numbers if f.value in m.values]
            ok = all(any(f.value == v for f in hits) for v in m.values)
            findings.append(
                Finding(
                    m,
                    "SUPPORTED" if ok else "CONTRADICTED",
                    sent,
                    hits,
                    "both scores in the evidence" if ok else "a score differs",
                )
            )
        elif m.kind == "date":
            label, facts, why = matcher.date(m)
            findings.append(Finding(m, label, sent, facts, why))
        elif m.kind == "time":
            label, facts, why = matcher.time(m)
            offset = offset_of_a_result_time(answer, sent, m, mentions, ev) if label != "SUPPORTED" else []
            if offset:  # "3.5 hours before the 02:00 flight, around 22:30" (h23b)
                label, facts, why = "SUPPORTED", offset, "a result's time and the sentence's duration"
            findings.append(Finding(m, label, sent, facts, why))
        elif m.kind in ("url", "email", "id"):
            label, facts, why = matcher.literal(m)
            if label == "UNSUPPORTED" and m.kind == "url" and _reference_elsewhere(answer, m, returned):
                # A link to a site the run never read, offered as a reference, and the words it is linked
                # from: general knowledge (h23b).
                unread_links.append(link_text_span(answer, m))
                continue
            findings.append(Finding(m, label, sent, facts, why))
        elif m.kind == "entity":
            label, facts, why = matcher.entity(m)
            if label != "SUPPORTED" and not m.strong:
                continue
            if label != "SUPPORTED" and _of_no_result_kind(answer, m, mentions):
                continue  # a time zone after a time, a term of general vocabulary
            if label != "SUPPORTED" and _owned_by_a_known_name(answer, m, matcher):
                label, facts, why = "SUPPORTED", [], "a name of the results and what it owns in the results"
            if label != "SUPPORTED" and _service_label(answer, m, ev):
                # "New Total Price: $478", "the Total Cost is": the values are the claims. A label is no
                # name, so it contradicts nothing either ("✅ **Exchanging:** Hiking Boots ...").
                continue
            if label == "UNSUPPORTED" and (
                _closing(m.text) or _signature(answer, m.start) or _placeholder(answer, m)
            ):
                continue  # "Best Regards,", "Safe Travels!": a sign-off, and the signature after it
            findings.append(Finding(m, label, sent, facts, why))
        elif m.kind == "currency":
            ok = m.currency in ev.currencies or (m.currency == "$" and bool(ev.currencies & _DOLLARS))
            if ev.currencies:
                findings.append(
                    Finding(
                        m,
                        "SUPPORTED" if ok else "CONTRADICTED",
                        sent,
                        [],
                        "currency of the evidence" if ok else "the evidence is in another currency",
                    )
                )
        else:
            deferred.append(m)
    findings = _without_names_in(findings, unread_links)
    # Relative dates ("tomorrow", "next Monday") against the run's own date, where the system prompt gives
    # one; a phrase inside a value already read ("on Tuesday, December 10") is that value's.
    for rel in relative_findings(answer, ev, sentence_of, findings, turn_start):
        r = rel.mention
        inside = [f for f in findings if r.start <= f.mention.start and f.mention.end <= r.end]
        if any(x.start < r.end and r.start < x.end for x in mentions if x.start < r.start or x.end > r.end):
            continue
        # "in 3 days" is a date, not the duration "3 days" it holds.
        findings = [f for f in findings if f not in inside]
        findings.append(rel)
        findings.sort(key=lambda f: f.mention.start)  # in answer order, as the record lookups expect
    # Pass 2: reasoned arithmetic on the values of the items the sentence talks about, plus the run-level
    # values (a number of nights, a rate) and the answer's own supported values ("4 nights come to €696, or
    # $766").
    # Read once per answer, on the first value they may give: the run's calculator results, its lists' totals.
    results: list[Fact] | None = None
    totals: list[tuple[float, list[Fact]]] | None = None
    # The findings' starts when in answer order (as built and re-sorted above): the findings before a
    # value are then a prefix, found by bisection, which the look-ups below read instead of every finding
    # (issue 14, h19e).
    in_order = [g.mention.start for g in findings]
    starts: list[int] | None = in_order
    if any(in_order[i] > in_order[i + 1] for i in range(len(in_order) - 1)):
        starts = None
    # The answer's amounts and supported values, indexed once: each look-up below reads a few of them, not
    # every finding (an answer of 4,000 amounts took ~20 s; issue 14, h23c). A value turned supported is
    # added before the next one is read.
    amounts = AnswerAmounts(answer, findings, starts)
    item_heads: tuple[list[int], list[int]] | None = None  # read on the first look
    checked = -1  # the last value checked below: it may have turned supported
    for at, f in enumerate(findings):
        if checked >= 0:
            amounts.supported(checked)
            checked = -1
        if f.label == "SUPPORTED" or f.mention.value is None or f.mention.kind not in _NUMERIC:
            continue
        checked = at
        budget.check("reasoning about the answer's unsupported values")
        if results is None:
            results = _calculator_results(ev)
        calc = _calculated(f.mention, results)
        if calc:
            f.label, f.facts, f.derived = "SUPPORTED", calc, True
            f.reason = "the result of a calculation of the run"
            continue
        # A total is an amount (money, or a bare number); a count of things ("2 events") adds no values.
        summable = f.mention.kind == "money" or (f.mention.kind == "number" and not f.mention.noun)
        if summable and totals is None:
            totals = _list_totals(ev)
        total = [t for t in totals or () if summable and accepts(f.mention, t[0])]
        if total:
            f.label, f.facts, f.derived = "SUPPORTED", total[0][1], True
            f.reason = "the total of a list's values"
            continue
        facts = _context_facts(findings, f, sentences, ev, None, starts, amounts)
        m = f.mention
        pool = [x for x in facts if x.kind == "number" and _same_currency(m, x)]
        # Only values of a kind the stated value can come from: a temperature is no term of a difference
        # that gives a wind speed, and a price is no sum of kilometres.
        operands = [operand(m, x.value, x.unit) for x in pool if may_multiply(m, x.unit)][:MAX_OPERANDS]
        addends = [operand(m, x.value, x.unit) for x in pool if may_add(m, x.unit)][:MAX_OPERANDS]
        for g in _earlier_supported(findings, m.start, starts, amounts):
            unit = _unit_of(g)
            value = operand(m, abs(g.value or 0.0), unit)
            if may_multiply(m, unit):
                operands.append(value)
            if may_add(m, unit):
                addends.append(value)
        how = (
            ""
            if m.kind == "number" and _range_end(answer, m)
            else matcher.derived(m, operands, facts, addends)
        )
        if how in ("sum", "difference") and m.kind == "money" and not amounts.states_arithmetic(f.sentence):
            # An amount the sentence does not call computed is read, not added: the sum or difference of
            # two other amounts of the results is no support for it (an edited fare, "Economy: $134").
            how = ""
        if how in ("", "difference") and m.kind == "money" and amounts.states_arithmetic(f.sentence):
            # A total closes the item of the fares it adds: its terms are read from the records of that
            # item's identifiers first, which the records of every time, date and place told before may
            # have pushed out of the operands above; a count of seats or bags is no term of an amount. A
            # sum found so is preferred to a difference of the values above (a total adds).
            if item_heads is None:
                item_heads = _item_heads(answer)
            item = _item_start_of(item_heads, m.start)
            near = _context_facts(findings, f, sentences, ev, item, starts, amounts)
            terms = [
                operand(m, x.value, x.unit)
                for x in near
                if x.kind == "number"
                and _same_currency(m, x)
                and may_add(m, x.unit)
                and not _COUNTED_KEYS & x.key_tokens
            ][:MAX_OPERANDS]
            # ``physical``: a sum or a difference only, no product of a fare and a count.
            near_how = derive(m, terms, False, True, terms)
            if near_how == "sum" or not how:
                how = near_how
        if not how and listed_total(f, findings, answer, amounts):
            # "**Total refund: $3,646.68**" after the three refunds it adds up (see own_lists).
            how = "the total of the amounts the answer lists"
        if not how and f.label == "UNSUPPORTED":
            # "you will pay the difference of $229": an amount computed from values the answer never names.
            how = computed_amount(m, amounts.lowered(f.sentence), ev, amounts.computed)[0]
        if not how and f.label == "UNSUPPORTED" and m.kind == "money":
            how = _named_total(answer, findings, f, amounts)
        if not how and f.label == "UNSUPPORTED" and m.kind == "money":
            # "2 grills with a total price of $1,939.05": the items of that kind in one result, added up.
            how = _kind_total(answer, findings, f, ev, amounts)
        if not how and f.label == "UNSUPPORTED" and m.kind == "money":
            # "Your refund of $1,187.35 will arrive ...": the refunds the results record, added up.
            how = _refunds_total(answer, f, ev, amounts)
        if not how and f.label == "UNSUPPORTED" and m.kind == "money":
            # "$481.50 → $466.75", "$150.01 → $135.24", ... then "New Order Total: $1,130.85" (see own_lists).
            how = listed_changes(f, findings, answer, amounts)
        if how:
            f.label, f.reason, f.derived = "SUPPORTED", how, True
    _restated_amounts(findings)
    read = amounts.reads
    amounts = AnswerAmounts(answer, findings, starts)  # the restatements may have turned any supported
    for at, f in enumerate(findings):
        if checked >= 0:
            amounts.supported(checked)
            checked = -1
        if f.label == "UNSUPPORTED":
            checked = at
        # After the restatements: the other amount of "$1,130.85, which is $180.85 over your $950 budget"
        # may be one (see own_lists).
        if f.label == "UNSUPPORTED" and told_gap(f, findings, answer, amounts):
            f.label, f.reason, f.derived = "SUPPORTED", "the gap between an amount and a limit it names", True
        elif f.label == "UNSUPPORTED" and told_sum(f, findings, answer, amounts):
            # "$2,533.21 (your original $73.00 plus the $2,460.21 from the cancellations)" (see own_lists).
            f.label, f.reason, f.derived = "SUPPORTED", "the sum of the terms its sentence writes out", True
        elif f.label == "UNSUPPORTED" and rounded_difference(f, findings, amounts):
            # "(which would bring it to around $685)" under the total and the item taken out (see own_lists).
            f.label, f.derived = "SUPPORTED", True
            f.reason = "a difference of two amounts the answer states, rounded"
    if work is not None:
        work.append(read + amounts.reads)
    for f in findings:
        if f.label != "SUPPORTED" and f.mention.kind in ("number", "count") and f.mention.noun:
            picked = _filtered_count(answer, f.mention, ev)
            if picked:
                f.label, f.facts, f.derived = "SUPPORTED", picked, True
                f.reason = "the number of results with the value the sentence names"
    for f in findings:
        if (
            f.label == "CONTRADICTED"
            and f.mention.kind == "time"
            and _CLOCK_DURATION.fullmatch(f.mention.text)
        ):
            budget.check("reasoning about the answer's unsupported values")
            how = matcher.clock_duration(f.mention)
            if how:
                f.label, f.reason, f.derived = "SUPPORTED", how, True
    for f in findings:
        if _impossible_day(answer, f.mention):
            f.label, f.facts, f.derived = "CONTRADICTED", [], False
            f.reason = "no month has this day"
    _check_enumerations(answer, findings, sentence_of)
    check_own_enumerations(answer, findings)
    _check_other_counts(answer, findings, ev)
    check_periods(answer, findings)
    check_records(answer, findings, sentences, matcher.ev, matcher.derived, budget=budget)
    check_value_lists(answer, findings, matcher.ev, matcher.derived)
    _check_labelled_slots(answer, findings, ev)
    _check_labelled_numbers(answer, findings, ev)
    _check_labelled_counts(answer, findings, ev, turn_start)
    _check_identifier_blocks(answer, findings, ev)
    _check_identifier_details(answer, findings, ev)
    findings += check_polarity(answer, deferred, findings, ev, sentence_of, sentences, budget=budget)
    budget.check("checking names against their sentences")
    findings = _check_titles(answer, findings, matcher, sentence_of)
    if _AGGREGATE_REQUEST.search(lower(question)):
        # Read once for all the findings (h24b): whether the results' records are known, and the index.
        known = _records_known(findings)
        index = AnswerAmounts(answer, findings)
        findings = [f for f in findings if not _computed_total(f, findings, sentences, ev, known, index)]
    findings = _drop_code_expansions(answer, findings, ev)
    findings = _drop_spelled_out_codes(answer, findings, ev)
    if not bare:
        findings = _without_advice_names(findings, returned)
    # After the drop: a code it flags stays (the drop leaves out unsupported names that spell a code).
    check_code_places(answer, findings, ev)
    check_person_names(findings, ev)
    findings = _drop_examples(answer, findings)
    findings = _drop_device_waits(answer, findings)
    findings = _drop_requested_fields(answer, findings)
    # The supported findings of each sentence, gathered once: listing them per unsupported name cost the
    # product of names and findings (h22b). The labels read are those before this loop, as before: it only
    # turns unsupported names into contradicted ones or drops them.
    supported: dict[tuple[int, int], list[Finding]] = {}
    for done in findings:
        if done.label == "SUPPORTED":
            supported.setdefault(done.sentence, []).append(done)
    told: set[int] = set()
    for f in findings:
        if f.label == "UNSUPPORTED" and f.mention.kind == "entity":
            # A swapped name inside a grounded statement contradicts it; a new name alone is unsupported.
            others = supported.get(f.sentence, [])
            if len(others) < 2:
                continue
            # Only against a name slot of a record the sentence's values come from. With no name of that
            # form in those records the results do not speak to the name: general knowledge told next to
            # grounded values ("Forms W-4 or DE 4" beside the state a search was about), no claim (issue 14:
            # a proper name of a kind the tools return; h22j).
            if _swapped_name_slot(f.mention.text, others, ev):
                f.label = "CONTRADICTED"
            else:
                told.add(id(f))
    if told:
        findings = [f for f in findings if id(f) not in told]
    check_turn_names(answer, findings, ev, turn_start, sentence_of)
    findings += check_failed_calls(answer, ev, turn_start, sentence_of)
    findings += check_routes(answer, findings, ev, sentence_of)
    findings += check_trips(answer, findings, ev, sentence_of, turn_start)
    findings += check_failed_identifiers(answer, findings, ev, turn_start, sentence_of)
    check_asked_counts(answer, findings, ev, question, turn_start)
    check_policy_rates(answer, findings, ev)
    check_record_rates(answer, findings, ev)
    check_labelled_totals(answer, findings)
    check_written_equations(answer, findings)
    findings += check_table_rows(answer, findings, ev, sentence_of)
    findings += check_best_rated(answer, findings, ev, question, sentence_of)
    findings += check_told_ratings(answer, findings, ev, question, sentence_of)
    findings += check_changed_ends(answer, findings, ev, sentence_of)
    findings += check_added_counts(answer, findings, question, sentence_of)
    findings += check_policy_durations(answer, findings, ev, sentence_of)
    check_item_options(answer, findings, ev, sentence_of)
    findings += check_refund_words(answer, findings, ev, sentence_of)
    _cite_rivals(findings, ev, matcher)
    findings.sort(key=lambda f: f.mention.start)
    return findings


def _count_across_records(counts: list[Fact], ev: Evidence) -> list[Fact]:
    """One count of a kind of item per record the results read (the latest read of a record read twice,
    an order fetched then returned by an action), when there are two such records or more; else empty."""
    if len(counts) < 2:
        return []
    ids = identities(ev, {f.record for f in counts})
    latest: dict[Any, Fact] = {}
    for f in counts:
        key = ids.get(f.record) or f.record
        if key not in latest or f.message_index > latest[key].message_index:
            latest[key] = f
    return list(latest.values()) if len(latest) >= 2 else []


def _restated_amounts(findings: list[Finding]) -> None:
    """Support, in place, an unsupported amount that restates one the answer computed elsewhere.

    An exchange summary repeats the price difference worked out above it ("**Price difference: $22.55**"
    ... "- Amount to pay: $22.55"): the label of the repeat ("Amount to pay") is no cue of arithmetic, but
    the amount is the one computed (issue 14, h19b). Only an amount supported by arithmetic is restated so;
    one the results state would have supported its repeat already.
    """
    computed = [
        g
        for g in findings
        if g.label == "SUPPORTED" and g.derived and g.mention.kind == "money" and g.mention.value is not None
    ]
    if not computed:
        return
    # Per currency, each computed value's first place in ``computed``, and the values sorted: an amount is
    # compared with the few values near it, not with every computed amount (quadratic on a long answer of
    # computed totals; h24b). The first computed amount within half a cent is the one taken, as a scan in
    # order would. Only amounts that were unsupported turn supported below, so ``computed`` stays as read.
    first: dict[Any, dict[float, int]] = {}
    for k, g in enumerate(computed):
        value = g.mention.value
        assert value is not None
        if value == value:  # a NaN is within half a cent of nothing
            first.setdefault(g.mention.currency, {}).setdefault(value, k)
    ordered = {currency: sorted(places) for currency, places in first.items()}
    for f in findings:
        m = f.mention
        if f.label != "UNSUPPORTED" or m.kind != "money" or m.value is None:
            continue
        places = first.get(m.currency)
        if places is None:
            continue
        values = ordered[m.currency]
        # A window wider than half a cent on either side, then the test itself: rounding aside.
        lo, hi = bisect_left(values, m.value - 0.01), bisect_right(values, m.value + 0.01)
        near = [places[v] for v in values[lo:hi] if abs(v - m.value) < 0.005]
        if near:
            g = computed[min(near)]
            f.label, f.facts, f.derived = "SUPPORTED", g.facts, True
            f.reason = "the amount the answer computes, restated"


_RIVAL_CITES = 3


def _leaf_words(x: Fact) -> set[str]:
    """The words of the last key of ``x``'s path, singular (``total_baggages`` -> total, baggage)."""
    leaf = x.path[-1] if isinstance(x.path, tuple) and x.path else ""
    if not isinstance(leaf, str):
        return set()
    return _singular_tokens(w for w in re.split(r"[_\W]+", lower(leaf)) if w)


def _check_labelled_numbers(answer: str, findings: list[Finding], ev: Evidence) -> None:
    r"""Relabel, in place, a bare number under a field label that names a numeric key of the results.

    "- **Total Bags:** 4" when the results' only ``total_bags`` is 3: the label says which value it is,
    so a 4 found elsewhere in the run (a seat count, a day) or reached by one step of arithmetic supports
    nothing. The label must name the key exactly (``total_bags`` for "Total Bags", not ``total_price``
    for "Total"); any key so named that holds the value keeps it; money is left alone (a labelled total is
    often computed: "New Total Price")."""
    index: dict[str, list[Fact]] | None = None
    for f in findings:
        m = f.mention
        if m.kind not in ("number", "count") or m.value is None or m.noun or m.unit:
            continue
        label = _label_words(answer, m.start)
        if not label:
            continue
        if index is None:
            index = {}
            for x in ev.numbers:
                if x.source == "tool" and x.unit is None:
                    for w in _singular_tokens(x.key_tokens):
                        index.setdefault(w, []).append(x)
        first = next(iter(label))
        named = [x for x in index.get(first, ()) if _leaf_words(x) == label]
        if not named:
            continue
        hits = [x for x in named if accepts(m, x.value)]
        if hits:
            if f.label != "SUPPORTED":
                f.label, f.facts, f.reason = "SUPPORTED", hits, "the value of the field the label names"
        elif f.label == "SUPPORTED" or f.label == "UNSUPPORTED":
            told = ", ".join(sorted({f"{x.value:g}" for x in named}))
            f.label, f.facts, f.derived = "CONTRADICTED", named[:3], False
            f.reason = f"the field the label names holds {told}"


# Key words that name one thing in the results under another word: "bags" counts ``total_baggages``.
_COUNT_HEADS = {
    "bag": "baggage",
    "luggage": "baggage",
    "suitcase": "baggage",
    "traveler": "passenger",
    "traveller": "passenger",
}
# Words that make a count something other than what a record holds: a change, an allowance, a limit.
_COUNT_CHANGES = frozenset(
    [
        "add",
        "added",
        "adding",
        "additional",
        "extra",
        "new",
        "more",
        "free",
        "allowance",
        "allowed",
        "up",
        "max",
        "maximum",
        "per",
        "each",
        "remaining",
        "left",
        "would",
        "will",
        "can",
        "could",
        "may",
        "change",
        "changed",
        "changing",
        "now",
        "updated",
        "instead",
        "another",
        "remove",
        "removed",
        "removing",
        "fewer",
        "less",
        "allow",
    ]
)
# Last key words that say what kind of value a key holds, not what it counts ("total", "price").
_COUNT_NOT_HEADS = frozenset(
    {"total", "amount", "price", "number", "count", "sum", "cost", "balance", "fee", "value", "id", "code"}
    | {
        "rate",
        "score",
        "rating",
        "level",
        "second",
        "minute",
        "hour",
        "day",
        "night",
        "week",
        "month",
        "year",
    }
    | {"time", "date"}
)
_COUNT_WORDS_AFTER = re.compile(r"[ \t]*((?:[A-Za-z]+(?:-[A-Za-z]+)*[ \t]*){1,3})")


def _count_tokens(text: str) -> list[str]:
    """The words of ``text`` lower-cased and singular, a hyphenated word as one ("non-free" -> nonfree)."""
    words = re.split(r"[^a-z0-9]+", lower(text).replace("-", ""))
    out: list[str] = []
    for w in words:
        if w:
            one = w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w
            out.append(_COUNT_HEADS.get(one, one))
    return out


def _record_ids(ev: Evidence, answer: str) -> dict[Any, set[str]]:
    """The identifiers each record of the results holds (a string of at least five characters under a key
    ``id``, ``code``, ``..._id`` or ``...Id``) that the answer states."""
    out: dict[Any, set[str]] = {}
    # Whether a key names an identifier, per key: the records of a list repeat their keys.
    id_keys: dict[str, bool] = {}
    for x in ev.strings:
        if x.source != "tool" or x.record is None or not isinstance(x.value, str) or len(x.value) < 5:
            continue
        leaf = x.path[-1] if isinstance(x.path, tuple) and x.path else ""
        if not isinstance(leaf, str):
            continue
        is_id = id_keys.get(leaf)
        if is_id is None:
            is_id = id_keys[leaf] = lower(leaf) in ("id", "code") or leaf.endswith(("_id", "Id"))
        if not is_id:
            continue
        out.setdefault(x.record, set())
        if x.value in answer:
            out[x.record].add(x.value)
    return out


def _count_keys(ev: Evidence, turn_start: int) -> dict[str, list[tuple[Fact, list[str]]]]:
    """The plain numbers and list lengths of the results after message ``turn_start``, by the last word of
    their key (``total_baggages`` under ``baggage``), with their key words."""
    out: dict[str, list[tuple[Fact, list[str]]]] = {}
    for x in ev.counts + ev.numbers:
        if x.source != "tool" or x.unit is not None or x.record is None or x.message_index <= turn_start:
            continue
        if x.currencies or not isinstance(x.path, tuple) or not x.path or not isinstance(x.path[-1], str):
            continue
        keys = _count_tokens(x.path[-1].replace("_", " "))
        if keys:
            out.setdefault(keys[-1], []).append((x, keys))
    return out


def _same_keys(ev: Evidence, facts: list[Fact]) -> list[Fact]:
    """Every tool value of the run under the last key of one of ``facts`` (lengths for a list's key)."""
    leaves = {(x.kind, x.path[-1]) for x in facts if isinstance(x.path, tuple) and x.path}
    return [
        y
        for y in ev.counts + ev.numbers
        if y.source == "tool" and isinstance(y.path, tuple) and y.path and (y.kind, y.path[-1]) in leaves
    ]


def _has_quantities(ev: Evidence, x: Fact) -> bool:
    """Whether the items of the list ``x`` counts hold a quantity (``quantity``, ``qty``)."""
    where = (x.message_index, x.path)
    return any(
        y.list_path == where and ("quantity" in y.key_tokens or "qty" in y.key_tokens) for y in ev.numbers
    )


def _stated_before(answer: str, values: set[str], end: int) -> int:
    """Where the answer last states one of ``values`` before ``end`` (-1: nowhere)."""
    return max((answer.rfind(v, 0, end) for v in values), default=-1)


def _check_labelled_counts(answer: str, findings: list[Finding], ev: Evidence, turn_start: int = -1) -> None:
    r"""Relabel, in place, a count whose label or noun names a count key of one record that holds another.

    "- **Checked bags:** 2" or "2 checked bags" when the reservation's ``total_baggages`` is 1, "3
    passengers" when its ``passengers`` list has 2 items: a 2 found elsewhere in the run supports nothing.
    The key's last word must be a word of the label or of the words after the number, singular or in its
    family ("bags" ~ ``baggage``); when the count names more key words ("1 total", "0 non-free") only the
    keys with them are read. The record must be the one the answer names (an identifier of it in the answer,
    the nearest before the count when several), or the only record with such keys. A count of a change, an
    allowance or a limit ("1 additional bag", "2 free bags", "up to 5 passengers") is left alone, and so is
    a count no key of the record names ("Baggage: 1 checked bag" names ``baggage`` keys, so any of them).
    The record must have been read in the answer's turn (after message ``turn_start``, the request the
    answer replies to): a record read before it may have been changed since ("Bags: 2" after the user asked
    to add two); with no turn known, nothing is read. Fewer items than a list holds may be some of them.
    """
    if turn_start < 0:
        return
    ids: dict[Any, set[str]] | None = None
    by_head: dict[str, list[tuple[Fact, list[str]]]] | None = None
    for f in findings:
        m = f.mention
        if m.kind not in ("number", "count") or m.value is None or m.unit or f.label == "CONTRADICTED":
            continue
        if m.value != int(m.value) or not 0 <= m.value < 100:
            continue
        line = answer.rfind("\n", 0, m.start) + 1
        found = _LINE_LABEL.match(answer, line)
        label = found.group(1) if found is not None and found.end() <= m.start else ""
        after = _COUNT_WORDS_AFTER.match(answer, m.end)
        own: list[str] = []
        for w in _count_tokens(after.group(1)) if after is not None else []:
            if w in FUNCTION_WORDS:
                break  # the noun ends at a function word ("a high of 78 and a low of 60")
            own.append(w)
        labelled = [w for w in _count_tokens(label) if w not in FUNCTION_WORDS]
        words = set(labelled) | set(own)
        # The counted noun: the last word after the number ("2 checked bags"), else the label's last word
        # ("Checked Bags: 2", "Baggage: 0 non-free"); a unit of time or a kind of value counts nothing.
        heads = [w for w in (own[-1:] + labelled[-1:]) if w not in _COUNT_NOT_HEADS]
        if not heads:
            continue
        if by_head is None:
            by_head = _count_keys(ev, turn_start)
        # Candidate keys: numbers and list lengths of the turn's results whose key's last word is the noun.
        named = [xk for h in heads for xk in by_head.get(h, ())]
        if not named:
            continue
        if set(_count_tokens(answer[f.sentence[0] : f.sentence[1]])) & _COUNT_CHANGES:
            continue
        # The first head any key has: the noun after the number before the label's.
        head = next(h for h in heads if any(k[-1] == h for _, k in named))
        named = [(x, k) for x, k in named if k[-1] == head]
        # The keys with the most of the count's other words ("1 total" -> total_baggages).
        best = max(len(set(k[:-1]) & words) for _, k in named)
        named = [(x, k) for x, k in named if len(set(k[:-1]) & words) == best]
        if ids is None:
            ids = _record_ids(ev, answer)
        records = {x.record for x, _ in named}
        stated = {r for r in records if ids.get(r)}
        if stated:
            # The record whose identifier the answer states last before the count; with none before it,
            # the records must share their identifiers (one record fetched twice).
            nearest = {r: _stated_before(answer, ids.get(r, set()), m.start) for r in stated}
            last = max(nearest.values())
            if last >= 0:
                stated = {r for r in stated if nearest[r] == last}
            elif len({frozenset(ids[r]) for r in stated}) > 1:
                continue
            records = stated
        elif len(records) > 1:
            continue
        facts = [x for x, _ in named if x.record in records]
        if not facts or any(accepts(m, x.value) for x in facts):
            continue
        # A value the same key holds in any result of the run is left alone (a recap of an earlier turn's
        # list), and so is a count of a list whose items have quantities (3 items may be 2 + 1 of them).
        if any(accepts(m, y.value) for y in _same_keys(ev, facts)):
            continue
        if any(x.kind == "count" and _has_quantities(ev, x) for x in facts):
            continue
        if all(x.kind == "count" for x in facts) and m.value < max(x.value for x in facts):
            continue  # fewer items than the list has may be some of them ("1 event" of 4 calendar items)
        told = ", ".join(sorted({f"{x.value:g}" for x in facts}))
        f.label, f.facts, f.derived = "CONTRADICTED", facts[:3], False
        f.reason = f"the record's count the words name holds {told}"


# A field label that opens a line, before the value: "- **Departure:** 06:00 AM", "Arrival: 8:45".
# The runs are possessive: the list markers and the emphasis both take "*", and a line of n asterisks was
# n² steps every time the pattern was tried at a line start. Giving a marker back to the emphasis run
# reaches no position the full markers did not, so no match changes.
_LINE_LABEL = re.compile(
    r"[ \t]*+(?:[-+•>*#][ \t]*+)*+(?:\d{1,2}[.)][ \t]*+)?[*_]*+([A-Za-z][A-Za-z ]{1,40}?)[*_]*+:[*_ \t]*+"
)
_SLOT_KINDS = frozenset({"time", "date", "money"})


def _singular_tokens(words: Any) -> set[str]:
    return {w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w for w in words}


def _label_words(answer: str, start: int) -> set[str]:
    """The content words, made singular, of the line label that ends right at ``start`` ("- **Total
    Bags:** 4" gives {"total", "bag"} for the 4); empty when no label ends there."""
    found = _LINE_LABEL.match(answer, answer.rfind("\n", 0, start) + 1)
    if found is None or found.end() != start:
        return set()
    return _singular_tokens(normalize_text(found.group(1)).split()) - FUNCTION_WORDS


def _tool_facts_by_record(ev: Evidence) -> dict[tuple[str, Any], list[Fact]]:
    """The tool results' times, dates and amounts, by (kind, record): the slots of each record."""
    per_record: dict[tuple[str, Any], list[Fact]] = {}
    for kind, facts in (("time", ev.times), ("date", ev.dates), ("money", ev.numbers)):
        for x in facts:
            if x.source == "tool" and x.record is not None and x.unit != "year_of_date":
                per_record.setdefault((kind, x.record), []).append(x)
    return per_record


def _check_labelled_slots(answer: str, findings: list[Finding], ev: Evidence) -> None:
    r"""Relabel, in place, a value under a field label that is another field of the same item.

    "- Departure: 06:00 AM" where 06:00 is the flight's arrival time (``arrival_time``) and its
    ``departure_time`` is 04:00: the value is in the results, but in the other slot of the same record
    (issue 14: a value compared against the same entity's slot). A label word decides only when it is a
    key word of some of the record's values of that kind and not of all (``departure``, not ``time``); a
    value whose own key has every deciding word, in any record it is found in, is kept; a label that names
    no key of the record ("Original Price", "Outbound") decides nothing.
    """
    per_record: dict[tuple[str, Any], list[Fact]] | None = None
    for f in findings:
        m = f.mention
        if f.label != "SUPPORTED" or f.derived or not f.facts or m.kind not in _SLOT_KINDS:
            continue
        label = _label_words(answer, m.start)
        if not label:
            continue
        if per_record is None:
            per_record = _tool_facts_by_record(ev)
        slots: list[Fact] = []
        fits = False
        for x in f.facts:
            same = per_record.get((m.kind, x.record), []) if x.source == "tool" else []
            if len(same) < 2:
                fits = True  # nothing to tell slots apart by
                break
            tokens = [_singular_tokens(y.key_tokens) for y in same]
            deciding = {w for w in label if any(w in t for t in tokens) and not all(w in t for t in tokens)}
            own = _singular_tokens(x.key_tokens)
            if not deciding or deciding <= own:
                fits = True
                break
            slots += [y for y, t in zip(same, tokens, strict=True) if deciding <= t]
        if not fits and slots:
            f.label, f.facts = "CONTRADICTED", slots[:3]
            f.reason = "this is another field of the same item; the labelled field says otherwise"


_RANGE_AFTER = re.compile(r"\s*(?:to|-|–|—)\s*\d")
_RANGE_BEFORE = re.compile(r"\d\s*(?:to|-|–|—)\s*$")


def _impossible_day(answer: str, m: Mention) -> bool:
    """Whether ``m`` is a bare number 32-99 right after a capitalised month name ("May 32"): read as a day
    of that month, it is none (a date edited past the month's end is not a number for arithmetic)."""
    if m.kind != "number" or m.value is None or not 32 <= m.value <= 99 or m.text != str(int(m.value)):
        return False
    after = answer[m.end : m.end + 2]
    if after[:1].isalnum() or after[:1] == ":" or (after[:1] in ".," and after[1:].isdigit()):
        return False
    month = _MONTH_BEFORE.search(answer[max(0, m.start - 12) : m.start])
    return month is not None and lower(month.group(1)) in MONTHS


def _range_end(answer: str, m: Mention) -> bool:
    """Whether the bare number ``m`` is an end of a range the answer states ("within 6 to 7 days", "3-5"):
    a range is read from the results, not computed; no product or sum of other values supports its ends."""
    return _RANGE_AFTER.match(answer, m.end) is not None or (
        _RANGE_BEFORE.search(answer[max(0, m.start - 8) : m.start]) is not None
    )


def _record_order(record: Any) -> tuple[int, tuple[str, ...]]:
    """A sort key for records that does not depend on the hash seed: the latest result first, then the path.

    >>> sorted([(2, ("items", 1)), (5, ("items", 0)), (2, ("items", 0))], key=_record_order)
    [(5, ('items', 0)), (2, ('items', 0)), (2, ('items', 1))]
    """
    return (-record[0], tuple(str(p) for p in record[1]))


def _tool_records(f: Finding, roots: bool = False) -> set[Any]:
    """The records of the results (one list element each; with ``roots``, also a result's top level) that
    give ``f``'s value."""
    return {
        x.record for x in f.facts if x.source == "tool" and x.record is not None and (roots or x.record[1])
    }


# The reason of a detail told under a swapped identifier: right for the item it comes from.
_OF_DESCRIBED_ITEM = "a value of the item the details describe (the identifier is not)"


def _check_identifier_blocks(answer: str, findings: list[Finding], ev: Evidence) -> None:
    r"""Relabel, in place, an identifier whose block of details all belong to another item of the results.

    "1. Flight PX210\n   - Departs: 09:15\n   - Fare: $88": the identifier opens a block (the rest of its
    paragraph, up to the next identifier); when at least two times, dates or amounts of that block are each
    read from list items of the results, some items give them all, none of those is an item the identifier
    is read from, and each of them has its own identifier under the same key ("PX318" as ``flight``), the
    identifier was put in place of the one the details are about (issue 14: a swapped flight number). A
    block whose details come from different items (a price from the booking, times from a search) decides
    nothing, nor does an item without an identifier of that key.
    """
    ids = [k for k, f in enumerate(findings) if f.mention.kind == "id" and f.label == "SUPPORTED"]
    keyed: dict[Any, list[tuple[Any, str]]] | None = None
    # Identifiers named together share the block under the last of them (see _check_identifier_details).
    together: dict[int, list[Finding]] = {}
    for group in joined_identifiers(answer, [findings[k] for k in ids]):
        for g in group:
            together[id(g)] = group
    for n, k in enumerate(ids):
        f = findings[k]
        if f.derived:
            continue
        own = set().union(*(_tool_records(g) for g in together.get(id(f), [f])))
        if not own:
            continue
        end = _block_end(answer, f)
        if n + 1 < len(ids):
            end = min(end, findings[ids[n + 1]].mention.start)
        common: set[Any] | None = None
        details = 0
        # Details already read as another item's (check_records: the sentence names this identifier, the
        # value is a sibling's) are the same evidence: with the identifier swapped, every detail is.
        explained: list[Finding] = []
        for g in findings[k + 1 :]:
            if g.mention.start >= end:
                break
            if g.mention.kind not in _SLOT_KINDS or g.derived:
                continue
            if g.label == "CONTRADICTED" and g.reason == ANOTHER_ITEM:
                explained.append(g)
            elif g.label != "SUPPORTED":
                continue
            recs = _tool_records(g)
            if not recs:
                continue
            details += 1
            common = recs if common is None else common & recs
            if not common:
                break
        if details < 2 or not common or common & own:
            continue
        if keyed is None:
            keyed = {}
            for x in ev.strings:
                if x.source == "tool" and x.record is not None and x.path and isinstance(x.path[-1], str):
                    keyed.setdefault(x.record, []).append((x.path[-1], str(x.value)))
        keys = {x.path[-1] for x in f.facts if x.path and isinstance(x.path[-1], str)}
        stated = lower(f.mention.text)
        others = [
            [v for key, v in keyed.get(r, ()) if key in keys and lower(v) != stated]
            for r in sorted(common, key=str)
        ]
        if not all(others):
            continue
        f.label = "CONTRADICTED"
        f.facts = [x for x in ev.strings if x.record in common and x.path and x.path[-1] in keys][:3]
        f.reason = SWAPPED_IDENTIFIER
        # The identifier is the one wrong value: the details are right for the item they come from.
        for g in explained:
            g.label, g.reason = "SUPPORTED", _OF_DESCRIBED_ITEM


_LIST_LINE = re.compile(r"([ \t]*)(?:([-*•])|\d{1,2}[.)])?\s*")
# A bullet that is a field of a record ("- Flight: PX210", "- **Fare:** $88"): a short label and a colon. An
# item line of a list ("- **Laptop** (15-inch, 16GB RAM) - $2,291.87") is no field: the bullets after it
# are other items, not more details of the identifiers it names (issue 14, h18f).
_FIELD_LABEL = re.compile(r"\**[^:\n*]{1,40}\**:")


def _block_end(answer: str, f: Finding) -> int:
    """Where the details of the identifier of ``f`` end: the rest of its sentence when the sentence ends
    before its line does (prose), else the rest of its line, then the lines nested under it (indented
    deeper), and, when its line is a bullet field ("- Flight: PX210", a label and a colon), the sibling bullet
    fields after it; a numbered item, a line indented less, or a blank line starts something else."""
    m = f.mention
    line_end = answer.find("\n", m.end)
    if f.sentence[1] < (len(answer) if line_end < 0 else line_end):
        return max(f.sentence[1], m.end)
    start = answer.rfind("\n", 0, m.start) + 1
    head = _LIST_LINE.match(answer, start)
    assert head is not None
    indent = len(head.group(1))
    bullet = head.group(2) is not None and _FIELD_LABEL.match(answer, head.end()) is not None
    end = answer.find("\n", m.end)
    while end >= 0:
        nxt = end + 1
        line = _LIST_LINE.match(answer, nxt)
        assert line is not None
        stop = answer.find("\n", nxt)
        text = answer[nxt : len(answer) if stop < 0 else stop]
        if not text.strip():
            break
        deeper = len(line.group(1)) > indent
        sibling = bullet and len(line.group(1)) == indent and line.group(2) is not None
        if not (deeper or sibling):
            break
        end = stop
    return len(answer) if end < 0 else end


def _same_value(m: Mention, x: Fact) -> bool:
    """Whether the evidence value ``x`` (of ``m``'s kind) is the value ``m`` states."""
    if m.kind == "time":
        return m.time is not None and tuple(x.value[:2]) == m.time
    if m.kind == "date":
        if m.date is None:
            return False
        return all(a is None or b is None or a == b for a, b in zip(m.date[:3], x.value[:3], strict=False))
    return m.value is not None and accepts(m, x.value)


# Dates are left out: a flight is often told on the date it is being moved to, which its items do not give.
_DETAIL_KINDS = frozenset({"time", "money"})


def _check_identifier_details(answer: str, findings: list[Finding], ev: Evidence) -> None:
    r"""Relabel, in place, a detail of an identifier's block that the identifier's own items give otherwise.

    "- Flight PX210 on October 7" where every item of the results that carries PX210 dates it October 3:
    the date is in the results (another flight's), but the items of the flight the sentence names have a
    date under the same key, and it is another (issue 14: a value supported only by a coincidental value of
    another record). The block of an identifier is the rest of its paragraph up to the next identifier; a
    detail is a time, date or amount read from list items; it is compared only when none of the items that
    give it carries the identifier, and only against the identifier's items that have a value of its kind
    under one of its keys.
    """
    ids = [k for k, f in enumerate(findings) if f.mention.kind == "id" and f.label == "SUPPORTED"]
    per_record: dict[tuple[str, Any], list[Fact]] | None = None
    # Identifiers named together ("Flight HAT136 & HAT039") share the block under the last of them: a
    # detail there may be any of their items' (the first leg's times under a one-stop itinerary's heading).
    last_of: dict[int, list[Finding]] = {}
    for group in joined_identifiers(answer, [findings[k] for k in ids]):
        last_of[id(group[-1])] = group
    for n, k in enumerate(ids):
        f = findings[k]
        named = last_of.get(id(f))
        if named is None or f.derived:
            continue
        own: set[Any] = set()
        own_all: set[Any] = set()
        for g in named:
            if not g.derived:
                own |= _tool_records(g)
                own_all |= _tool_records(g, True)
        if not own:
            continue
        end = _block_end(answer, f)
        if n + 1 < len(ids):
            end = min(end, findings[ids[n + 1]].mention.start)
        # The details relabelled here, with the facts that gave them; and the identifiers of the group whose
        # items give some other detail of the block (those are not swapped).
        moved: list[tuple[Finding, list[Fact]]] = []
        agreeing: set[int] = set()
        for g in findings[k + 1 :]:
            m = g.mention
            if m.start >= end:
                break
            if m.kind not in _DETAIL_KINDS or g.label != "SUPPORTED" or g.derived or not g.facts:
                continue
            recs = _tool_records(g)
            for h in named:
                if recs & _tool_records(h):
                    agreeing.add(id(h))
            if per_record is None:
                per_record = _tool_facts_by_record(ev)
            if recs & own and _other_labelled_slot(answer, g, own, per_record):
                continue
            # A value the identifier's own result gives at its top level ("total" beside "order_id") is
            # that item's.
            if not recs or _tool_records(g, True) & own_all or any(x.source != "tool" for x in g.facts):
                continue
            keys = {w for x in g.facts for w in _singular_tokens(x.key_tokens)}
            # The identifier's records latest read first, in a fixed order: the slots cited are the first
            # three, and a set's order changes with the hash seed (the same run gave other evidence spans
            # in another process).
            slots = [
                y
                for r in sorted(own, key=_record_order)
                for y in per_record.get((m.kind, r), ())
                if keys & _singular_tokens(y.key_tokens)
            ]
            if slots and not any(_same_value(m, y) for y in slots):
                told_of = identifier_told_after(answer, g, findings)
                if told_of is not None and told_of is not f and recs & _tool_records(told_of):
                    # "$1679 for the second flight (HAT277)" in HAT028's block: the identifier in brackets
                    # after the amount names its item, which gives it (issue 14, h24d).
                    continue
                if m.kind == "money" and _equation_operand(answer, m):
                    # "- Price: $105 + $190 = $295" under the second leg: the addends are the legs' own
                    # fares, one of them the first leg's. An operand that an identifier named earlier in the
                    # paragraph (the option's other leg) gives under the same key is that leg's (issue 14,
                    # h22c); another item's value stays flagged.
                    para = answer.rfind("\n\n", 0, f.mention.start) + 1
                    legs: set[Any] = set()
                    for j in ids:
                        h = findings[j]
                        if para <= h.mention.start <= f.mention.start and not h.derived:
                            legs |= _tool_records(h)
                    if any(
                        _same_value(m, y)
                        for r in legs
                        for y in per_record.get((m.kind, r), ())
                        if keys & _singular_tokens(y.key_tokens)
                    ):
                        continue
                moved.append((g, g.facts))
                g.label, g.facts = "CONTRADICTED", slots[:3]
                g.reason = "the item this identifier names gives another value here"
        _blame_swapped_identifier(named, moved, agreeing, ev)


def _equation_operand(answer: str, m: Mention) -> bool:
    """Whether ``m`` is an operand of an equation its line writes out, left of its ``=`` ("$105 + $190 =
    $295"): each operand may be another item's value (the legs of an itinerary, added up).

    >>> from .mentions import Mention
    >>> a = "- Price: $105 + $190 = $295"
    >>> [_equation_operand(a, Mention("money", a.index(t), a.index(t) + 4, t)) for t in ("$105", "$295")]
    [True, False]
    """
    lo = answer.rfind("\n", 0, m.start) + 1
    hi = answer.find("\n", m.end)
    hi = len(answer) if hi < 0 else hi
    for eq in EQUATION.finditer(answer, lo, hi):
        if eq.start() <= m.end and m.end <= answer.rfind("=", eq.start(), eq.end()):
            return True
    return False


def _other_labelled_slot(
    answer: str, g: Finding, own: set[Any], per_record: dict[tuple[str, Any], list[Fact]]
) -> bool:
    """Relabel ``g`` when its field label names a slot of the identifier's own items that holds another
    value, its value being another slot of those items ("Flight HAT229 / - Departure: 13:00", 13:00 being
    HAT229's arrival). A value that is also some other flight's departure passes the check of labelled slots
    (which reads every item giving it); the identifier says which item is meant (issue 14, h20g)."""
    m = g.mention
    label = _label_words(answer, m.start)
    if not label:
        return False
    matching: list[Fact] = []
    for r in sorted(own, key=_record_order):  # the facts cited are the first three: a fixed order
        same = per_record.get((m.kind, r), [])
        if len(same) < 2:
            continue
        tokens = [_singular_tokens(y.key_tokens) for y in same]
        deciding = {w for w in label if any(w in t for t in tokens) and not all(w in t for t in tokens)}
        if not deciding:
            continue
        matching += [y for y, t in zip(same, tokens, strict=True) if deciding <= t]
    if not matching or any(_same_value(m, y) for y in matching):
        return False
    g.label, g.facts = "CONTRADICTED", matching[:3]
    g.reason = "this is another field of the same item; the labelled field says otherwise"
    return True


def _blame_swapped_identifier(
    named: list[Finding], moved: list[tuple[Finding, list[Fact]]], agreeing: set[int], ev: Evidence
) -> None:
    """Move the blame, in place, from an identifier's details to the identifier when it is the swapped one.

    Two or more details of a block that the identifier's items give otherwise, all read from one other item
    that has an identifier of its own under the same key: the agent told that item's details under another
    item's identifier (issue 14: a swapped flight number), so the identifier is the wrong value and its
    details are right. Of identifiers named together, the one blamed is the only one whose items give none
    of the block's other details; when that is not exactly one, nothing moves.
    """
    if len(moved) < 2:
        return
    common: set[Any] | None = None
    for _, facts in moved:
        recs = {x.record for x in facts if x.source == "tool" and x.record is not None and x.record[1]}
        common = recs if common is None else common & recs
        if not common:
            return
    suspects = [h for h in named if id(h) not in agreeing]
    if len(suspects) != 1 or not common:
        return
    f = suspects[0]
    keys = {x.path[-1] for x in f.facts if x.path and isinstance(x.path[-1], str)}
    stated = lower(f.mention.text)
    theirs = [
        x
        for x in ev.strings
        if x.record in common and x.path and x.path[-1] in keys and lower(str(x.value)) != stated
    ]
    if not {x.record for x in theirs} >= common:
        return
    for g, facts in moved:
        g.label, g.facts = "SUPPORTED", facts
        g.reason = _OF_DESCRIBED_ITEM
    f.label, f.facts = "CONTRADICTED", theirs[:3]
    f.reason = SWAPPED_IDENTIFIER


# A title the answer quotes ("an email titled “Weekend plans”"), or the text of a reminder or task ("a
# reminder to water the plants", "remind you to call Amy"), up to a word that starts its time or place.
_QUOTED = re.compile(r'"([^"\n]{3,80})"|“([^”\n]{3,80})”')
_TASK_TEXT = re.compile(
    r"\b(?:reminders?|remind (?:you|me)|tasks?|to-dos?)"
    # "a reminder for you to ...", "reminder added to ...", "your first reminder is to ..."
    r"(?:\s+(?:for (?:you|me)|(?:is|was|has been)(?: (?:set|added|created|saved))?"
    r"|added|set|created|saved))?\s+to\s+"
    # A task starts with what to do: "the reminder to your list" names where it went, not a task.
    r"(?!(?:your|my|the|a|an|this|that|his|her|their|our)\b)"
    r"([a-z][^.,;:!?()\n]{2,80}?)(?=\s+(?:at|on|by|for|due|and|with|from|before|after|tomorrow|today|tonight|"
    r"this|next|every|in|until)\b|[.,;:!?()\n]|$)"
)


# The items after a colon that a count announces ("the 3 latest emails from Ana: A, B, C."): commas or a
# final "and" between them.
_ITEM_SEP = re.compile(r",\s*(?:and\s+)?|\s+and\s+")
_ENUM_LEAD = re.compile(r"[^:\d\n]{0,60}?:\s+")


def _check_enumerations(answer: str, findings: list[Finding], sentence_of: Any) -> None:
    """Relabel, in place, a count that its own enumeration contradicts ("here are the 2 emails: A, B, C").

    The count must count a noun and open the list: a colon follows it within its sentence, with no other
    number between; the list runs to the end of the sentence, one line, and has at least two items.
    """
    for f in findings:
        m = f.mention
        if m.kind not in ("number", "count") or m.noun is None or m.value is None:
            continue
        if not 2 <= m.value <= 12 or m.value != int(m.value):
            continue
        sent = sentence_of(m.start)
        lead = _ENUM_LEAD.match(answer, m.end, sent[1])
        if lead is None:
            continue
        tail = answer[lead.end() : sent[1]].rstrip(" .!?")
        if not tail or "\n" in tail:
            continue
        items = [x for x in _ITEM_SEP.split(tail) if x.strip()]
        parts = _part_counts(items)
        if parts is not None:
            # "four orders in total: three pending and one processed": the parts of the count, by kind
            # (h23d). They must add up to it.
            if len(items) >= 2 and sum(parts) != int(m.value):
                f.label, f.facts, f.derived = "CONTRADICTED", [], False
                f.reason = f"its parts add up to {sum(parts)}"
        elif len(items) >= 2 and len(items) != int(m.value):
            f.label, f.facts, f.derived = "CONTRADICTED", [], False
            f.reason = f"the answer lists {len(items)} of them"


# A count that opens an item of a list: "three pending", "1 processed".
_PART_COUNT = re.compile(r"\s*(\d{1,2}|[a-z]+)\s+\S")


def _part_counts(items: list[str]) -> list[int] | None:
    """The counts that open every item of an enumeration ("three pending", "one processed"), or None when
    an item opens with no count: the items are then the things counted, not parts of the count.

    >>> _part_counts(["three pending", "one processed"]), _part_counts(["Oslo", "2 in Lima"])
    ([3, 1], None)
    """
    out: list[int] = []
    for item in items:
        found = _PART_COUNT.match(lower(item))
        if found is None:
            return None
        word = found.group(1)
        n = int(word) if word.isdigit() else NUMBER_WORDS.get(word)
        if n is None:
            return None
        out.append(n)
    return out


_OTHER_BEFORE = re.compile(r"\bother\s+$")
_OTHER_AFTER = re.compile(r"\s+other\b")


def _check_other_counts(answer: str, findings: list[Finding], ev: Evidence) -> None:
    """Relabel, in place, a count of "other" things that is the results' list of them less one.

    "You also have two other orders" of a user with three: the one the answer is about is not counted, so
    the list's length is the count plus one (issue 14, h18f). Only support is added: a count equal to the
    whole list may still leave out an item the results do not list.
    """
    for f in findings:
        m = f.mention
        if f.label == "SUPPORTED" or m.kind not in ("number", "count") or not m.noun or m.value is None:
            continue
        if not (
            _OTHER_BEFORE.search(answer, max(0, m.start - 8), m.start) or _OTHER_AFTER.match(answer, m.end)
        ):
            continue
        nouns = _noun_key(m.noun)
        rest = [c for c in ev.counts if c.key_tokens & nouns and c.value == m.value + 1]
        if rest:
            f.label, f.facts, f.derived = "SUPPORTED", rest[:3], True
            f.reason = "the results' list of them less the one the answer is about"


# Periods people name by a word ("the last decade", "a fortnight"): the same length told in numbers.
_PERIOD_WORDS: dict[str, dict[str, float]] = {
    "decade": {"year": 10.0, "month": 120.0},
    "century": {"year": 100.0},
    "fortnight": {"day": 14.0, "week": 2.0},
    "week": {"day": 7.0},
}


def _named_period(m: Mention, ev: Evidence) -> bool:
    """Whether ``m`` (a duration such as "10 years") is a period the run names by a word ("decade")."""
    if m.unit is None or m.value is None:
        return False
    return any(
        lengths.get(m.unit) == m.value and ev.in_vocabulary(word) for word, lengths in _PERIOD_WORDS.items()
    )


def _titles(answer: str) -> list[tuple[int, int]]:
    """The spans of the titles and task texts of ``answer`` (``_QUOTED``, ``_TASK_TEXT``).

    >>> a = 'I set a reminder to water the plants at 9 and an email titled "Weekend plans".'
    >>> [a[x:y] for x, y in _titles(a)]
    ['Weekend plans', 'water the plants']
    """
    out: list[tuple[int, int]] = []
    if '"' in answer or "“" in answer:
        for m in _QUOTED.finditer(answer):
            g = 1 if m.group(1) is not None else 2
            out.append((m.start(g), m.end(g)))
    low = lower(answer)
    if len(low) == len(answer) and ("remind" in low or "task" in low or "to-do" in low):
        for m in _TASK_TEXT.finditer(low):
            out.append((m.start(1), m.start(1) + len(m.group(1).rstrip())))
    return out


def _check_titles(answer: str, findings: list[Finding], matcher: _Matcher, sentence_of: Any) -> list[Finding]:
    """Check the titles and task texts of the answer as names of things the tools return (issue 14: a
    reminder's text, an email's subject, an event's title are values of the results, even in lower case).

    A title most of whose words appear in the run (in any order, spelling variants allowed, as for names)
    is grounded and adds no claim: people retell a task with a typo or a word of their own ("pay your rend"
    for "pay rent"). One whose words are mostly nowhere in the run is unsupported, as a name that appears
    nowhere, and replaces the names read inside it. Function words and words of one or two letters do not
    count.
    """
    spans = _titles(answer)
    if not spans:
        return findings
    added: list[Finding] = []
    covered: list[tuple[int, int]] = []
    for a, b in spans:
        text = answer[a:b]
        norm = normalize_text(text)
        tokens = [t for t in norm.split() if t not in FUNCTION_WORDS and len(t) > 2 and not t.isdigit()]
        if not tokens or has_words(matcher.ev.haystack, norm):
            continue
        unknown = sum(1 for t in tokens if not matcher._token_known(t))
        if 2 * unknown <= len(tokens):
            continue  # most of its words are the run's: a retelling with a typo or a word changed
        mention = Mention("entity", a, b, text, strong=True)
        added.append(
            Finding(mention, "UNSUPPORTED", sentence_of(a), [], "this title appears nowhere in the run")
        )
        covered.append((a, b))
    if not added:
        return findings
    kept = [
        f
        for f in findings
        if not (
            f.mention.kind == "entity"
            and any(a <= f.mention.start and f.mention.end <= b for a, b in covered)
        )
    ]
    return kept + added


# "1:30", "12:05": hours and minutes with no am/pm and no seconds, which may be a clock time or a duration.
_CLOCK_DURATION = re.compile(r"\d{1,2}:[0-5]\d")
# "1." / "2)" followed by white space or the end: the number of a list item (list_markers decides).
# ``(?<![\w.,:/$€£-])(\d{1,2})[.)](?=\s|$)`` opening with its first digit (the look-behind then reads the
# character before it), so the engine skips to the digits in C instead of trying every position of the answer.
# Same matches, same group.
_MARKER = re.compile(r"(\d(?<![\w.,:/$€£-].)\d?)[.)](?=\s|$)")


# "Total refunds across all orders: $138.74", "Total charges: $12": a total named by what it adds up.
_TOTAL_OF = re.compile(r"\btotal\s+([a-z]+?)s?\b")


def _named_total(
    answer: str, findings: list[Finding], f: Finding, amounts: AnswerAmounts | None = None
) -> str:
    r"""Whether ``f``, an amount labelled a total of a kind ("Total refunds: $138.74"), is the sum of the
    supported amounts the answer gave that kind to before it ("a refund of $0.60", "Refund: $43.59", ...):
    the answer adds up its own values, each checked on its own. An amount given twice in one line ("-$0.60
    (you'll receive a refund of $0.60)") counts once: only the one the kind's word stands just before.

    >>> from .mentions import Mention
    >>> a = "- refund of $0.60\n- Refund: $43.59\n**Total refunds: $44.19**"
    >>> def money(text, label="SUPPORTED"):
    ...     i = a.index(text)
    ...     m = Mention("money", i, i + len(text), text, value=float(text[1:]))
    ...     return Finding(m, label, (0, len(a)))
    >>> found = [money("$0.60"), money("$43.59"), money("$44.19", "UNSUPPORTED")]
    >>> _named_total(a, found, found[-1])
    'the total of the amounts the answer gives as refund'
    """
    m = f.mention
    assert m.value is not None
    if amounts is not None:
        # The same reading from indexes of the answer (h24b): the line's "total X" before the amount from
        # the line's own candidates, the sum from running sums of the kind over the findings.
        line_start = amounts.line_start(m.start)
        named = _total_of_before(amounts, line_start, m.start)
        if named is None:
            return ""
        kind = named.group(1)
        total, n = _kind_sum_before(amounts, kind, line_start)
    else:
        line_start = answer.rfind("\n", 0, m.start) + 1
        named = _TOTAL_OF.search(lower(answer[line_start : m.start]))
        if named is None:
            return ""
        kind = named.group(1)
        total, n = 0.0, 0
        for g in findings:
            if g.mention.end > line_start:
                break
            if not _given_as(answer, g, kind):
                continue
            total += abs(g.mention.value or 0.0)
            n += 1
    if n >= 2 and abs(total - abs(m.value)) < 0.005:
        return f"the total of the amounts the answer gives as {kind}"
    return ""


def _given_as(answer: str, g: Finding, kind: str) -> bool:
    """Whether ``g`` is a supported amount of money the kind's word stands just before ("refund of $0.60")."""
    if g.label != "SUPPORTED" or g.mention.kind != "money" or g.mention.value is None:
        return False
    before = lower(answer[max(0, g.mention.start - 24) : g.mention.start])
    return re.search(rf"\b{re.escape(kind)}s?\b\W*(?:of\W*)?$", before) is not None


# Where a ``_TOTAL_OF`` match that starts at a "total" may look: the word, the white space, the letters after
# it (and the character after them, for ``s?`` and ``\b``).
_TOTAL_REACH = re.compile(r"total\s*[a-z]*")
_TOTAL_AT = re.compile(r"\btotal")


def _total_of_before(amounts: AnswerAmounts, line_start: int, cut: int) -> re.Match[str] | None:
    """``_TOTAL_OF.search(lower(answer[line_start:cut]))``, from the candidates of the line read once.

    A match starts at a "total" with a word boundary before it (``_TOTAL_AT``); its match at that start,
    made once on the whole line, reads no character past ``reach`` (``_TOTAL_REACH``'s end), so it is the
    match of any cut beyond that. Only the "total"s whose reach the cut falls in are matched again, with
    the cut as ``endpos`` (which reads the string as ending there, ``\b`` included). A long line of
    amounts was lowered and searched again for each of them: quadratic (h24b). Lines that are not ASCII
    are lowered and searched as before: lower-casing may change their length."""
    key = ("line", line_start)
    line = amounts.totals.get(key)
    if line is None:
        answer = amounts.answer
        end = answer.find("\n", line_start)
        text = answer[line_start : len(answer) if end < 0 else end]
        low = lower(text)
        # Lower-casing keeps positions unless a character expands (only U+0130 does); final sigma's
        # context changes a letter ``_TOTAL_OF`` reads alike (\w, not [a-z]).
        ascii_line = len(low) == len(text)
        low = low if ascii_line else ""
        starts = [t.start() for t in _TOTAL_AT.finditer(low)]
        full = [_TOTAL_OF.match(low, p) for p in starts]
        reach: list[int] = []
        top = -1
        for p in starts:
            r = _TOTAL_REACH.match(low, p)
            top = max(top, (r.end() if r is not None else p) + 1)
            reach.append(top)  # the most any "total" up to this one reads: ascending
        ok = next((j for j, x in enumerate(full) if x is not None), len(full))
        line = (ascii_line, low, starts, full, reach, ok)
        amounts.totals[key] = line
    ascii_line, low, starts, full, reach, ok = line
    if not ascii_line:
        return _TOTAL_OF.search(lower(amounts.answer[line_start:cut]))
    at = cut - line_start
    k = bisect_left(starts, at)  # the "total"s that start before the cut
    fresh = bisect_right(reach, at, 0, k)  # those before ``fresh`` read nothing at or past the cut
    if ok < fresh:
        found: re.Match[str] | None = full[ok]
        return found
    for j in range(fresh, k):
        found = _TOTAL_OF.match(low, starts[j], at)
        if found is not None:
            return found
    return None


def _kind_sum_before(amounts: AnswerAmounts, kind: str, line_start: int) -> tuple[float, int]:
    """The sum and the number of the supported amounts given as ``kind`` (``_given_as``) among the findings
    before the first that ends past ``line_start``, from running sums kept per kind. The findings summed
    come before the amount checked, so ``ground_answer`` has labelled them for good (h24b)."""
    findings = amounts.findings
    ends = amounts.totals.get("ends")
    if ends is None:
        ends, top = [], -1
        for g in findings:
            top = max(top, g.mention.end)
            ends.append(top)
        amounts.totals["ends"] = ends
    stop = bisect_right(ends, line_start)  # the first finding that ends past the line start, as a break
    sums = amounts.totals.setdefault(("kind", kind), [(0.0, 0)])
    while len(sums) <= stop:
        g = findings[len(sums) - 1]
        total, n = sums[-1]
        if _given_as(amounts.answer, g, kind):
            total, n = total + abs(g.mention.value or 0.0), n + 1
        amounts.reads += 1
        sums.append((total, n))
    result: tuple[float, int] = sums[stop]
    return result


# What a sentence calls an amount that adds up items: "a total price of", "in total", "combined".
_KIND_TOTAL = re.compile(r"\b(?:total|totals|totalling|totaling|combined|altogether|together|sum)\b")


def _kind_total(
    answer: str, findings: list[Finding], f: Finding, ev: Evidence, amounts: AnswerAmounts | None = None
) -> str:
    r"""Whether the amount ``f``, which its sentence calls a total, adds up the items of the kind a count
    before it names: "order #W8 contained 2 grills with a total price of $1,939.05" where the order's
    ``items`` hold two records named "Grill" priced 985.66 and 953.39 (issue 14, h23d: a sum the agent made
    of part of one result). The items are those of one list of one result whose string value is the
    counted noun (in the singular), as many as the count says; the amount is the sum of one key they all
    have. Another count or another sum is no support: "3 grills", "$1,939.50" stay unsupported.

    >>> from .evidence import Fact, Evidence
    >>> def item(i, name, price):
    ...     rec = (2, ("items", i))
    ...     return (Fact("string", name, 2, ("items", i, "name"), rec, (2, ("items",))),
    ...             Fact("number", price, 2, ("items", i, "price"), rec, (2, ("items",))))
    >>> facts = [item(0, "Grill", 985.66), item(1, "Kettle", 48.02), item(2, "Grill", 953.39)]
    >>> ev = Evidence(strings=[s for s, _ in facts], numbers=[n for _, n in facts])
    >>> a = "It contained 2 grills with a total price of $1,939.05."
    >>> count = Finding(Mention("number", 13, 14, "2", value=2.0, noun="grills"), "SUPPORTED", (0, len(a)))
    >>> total = Finding(Mention("money", 44, 53, "$1,939.05", value=1939.05), "UNSUPPORTED", (0, len(a)))
    >>> _kind_total(a, [count, total], total, ev)
    'the total of the items of the kind its sentence counts'
    >>> count.mention.value = 3.0
    >>> _kind_total(a, [count, total], total, ev)
    ''
    """
    m = f.mention
    if m.value is None:
        return ""
    s0, s1 = f.sentence
    if amounts is not None:
        # From the index (h24b): the sentence's search, its counts, the answer lowered once, and per kind
        # the records of the results and the sums of their keys, read once per answer.
        if amounts.search(f.sentence, _KIND_TOTAL) is None:
            return ""
        per_sentence = amounts.totals.get("counts")
        if per_sentence is None:
            per_sentence = {}
            for g in amounts.findings:
                if _kind_count(g):
                    per_sentence.setdefault(g.sentence, []).append(g.mention)
            amounts.totals["counts"] = per_sentence
        totals = _counted_totals(amounts, per_sentence.get(f.sentence, []), f.sentence, m.start, ev)
        amounts.reads += len(totals)
        if any(accepts(m, total) for total in totals):
            return "the total of the items of the kind its sentence counts"
        return ""
    if _KIND_TOTAL.search(lower(answer[s0:s1])) is None:
        return ""
    counts = [
        g.mention
        for g in findings
        if g.sentence == f.sentence and g.mention.end <= m.start and _kind_count(g)
    ]
    low = lower(answer)
    for c in counts:
        kinds = _count_kinds(c, low, answer)
        for records in _kind_groups(kinds, ev).values():
            if len(records) != c.value:
                continue
            if _records_total(m, records, ev):
                return "the total of the items of the kind its sentence counts"
    return ""


def _count_kinds(c: Mention, low: str, answer: str) -> set[str]:
    """The values the results may give the things ``c`` counts (``low``: the answer in lower case)."""
    noun = lower(c.noun or "")
    kinds = {noun, *_singular_tokens([noun])}
    if noun.endswith("es"):
        kinds.add(noun[:-2])
    before = _STATE_BEFORE_NOUN.match(low, c.end) if len(low) == len(answer) else None
    if before is not None and before.group(2) == noun and before.group(1) not in FUNCTION_WORDS:
        # "your three pending orders total $7,620.39": the results with that value (h23d).
        kinds.add(before.group(1))
    return kinds


def _count_totals(amounts: AnswerAmounts, c: Mention, ev: Evidence) -> list[float]:
    """The sums of the keys of each group of records of the kind ``c`` counts that has as many records as
    it says: the totals it may explain (the groups and sums kept per answer, h24b)."""
    kinds = _count_kinds(c, amounts.lowered_answer(), amounts.answer)
    key = ("kinds", frozenset(kinds))
    groups = amounts.totals.get(key)
    if groups is None:
        groups = amounts.totals[key] = _kind_groups(kinds, ev)
    out: list[float] = []
    for records in groups.values():
        if len(records) != c.value:
            continue
        sums = amounts.totals.get(("sums", id(records)))
        if sums is None:
            sums = amounts.totals[("sums", id(records))] = _records_sums(records, ev)
        out += sums
    return out


def _counted_totals(
    amounts: AnswerAmounts, counts: list[Mention], sentence: tuple[int, int], pos: int, ev: Evidence
) -> list[float]:
    """The totals (``_count_totals``) of the counts of ``sentence`` that end at ``pos`` or before it, each
    value once. The counts in order of their ends (as they are, not overlapping) form a prefix: the values
    new at each count are kept per sentence, in order, with how many there are after each count, so an
    amount reads the distinct totals (bounded by the results), not every count before it again (h25h: one
    sentence of many counts and totals was quadratic)."""
    entry: tuple[list[int], bool, list[float], set[float], list[int]] | None
    entry = amounts.totals.get(("count totals", sentence))
    if entry is None:
        ends = [c.end for c in counts]
        entry = (ends, all(a <= b for a, b in pairwise(ends)), [], set(), [])
        amounts.totals[("count totals", sentence)] = entry
    ends, ascending, values, seen, upto = entry
    if not ascending:
        out: list[float] = []
        for c in counts:
            if c.end <= pos:
                out += _count_totals(amounts, c, ev)
        return out
    k = bisect_right(ends, pos)
    while len(upto) < k:
        amounts.reads += 1
        for total in _count_totals(amounts, counts[len(upto)], ev):
            if total not in seen:
                seen.add(total)
                values.append(total)
        upto.append(len(values))
    return values[: upto[k - 1]] if k else []


def _kind_count(g: Finding) -> bool:
    """Whether ``g`` counts a few things of a kind ("2 grills"), for :func:`_kind_total`."""
    return (
        g.mention.kind in ("number", "count")
        and bool(g.mention.noun)
        and g.mention.value is not None
        and 2 <= g.mention.value <= 12
    )


def _kind_groups(kinds: set[str], ev: Evidence) -> dict[Any, dict[Any, None]]:
    """The records of each list (or of each kind of result) whose string value is one of ``kinds``, in the
    order the results give them (a set's order, which the hash seed sets, would order the sum)."""
    groups: dict[Any, dict[Any, None]] = {}
    for s in ev.strings:
        if (
            s.source == "tool"
            and s.record is not None
            and isinstance(s.value, str)
            and isinstance(s.path, tuple)
            and lower(s.value) in kinds
        ):
            where = s.list_path if s.list_path is not None else tuple(k for k in s.path if isinstance(k, str))
            groups.setdefault(where, {})[s.record] = None
    return groups


_REFUND_WORD = re.compile(r"\brefund(?:s|ed)?\b")


def _refunds_total(answer: str, f: Finding, ev: Evidence, amounts: AnswerAmounts | None = None) -> str:
    """Whether the amount ``f``, in a sentence about a refund, is the sum of the refunds the results record:
    the records with a string value "refund" (``"transaction_type": "refund"``) and one amount, two of them or
    more, each counted once however often its result was read ("Your refund of $1,187.35" after two
    cancellations refunded 1,003.22 and 184.13; issue 14, h23d).

    >>> from .evidence import Fact, Evidence
    >>> def refund(msg, v):
    ...     rec = (msg, ("payment_history", 1))
    ...     return (Fact("string", "refund", msg, ("payment_history", 1, "transaction_type"), rec, None),
    ...             Fact("number", v, msg, ("payment_history", 1, "amount"), rec, None))
    >>> facts = [refund(3, 1003.22), refund(5, 184.13), refund(7, 184.13)]
    >>> ev = Evidence(strings=[s for s, _ in facts], numbers=[n for _, n in facts])
    >>> a = "Your refund of $1,187.35 is on its way."
    >>> said = Finding(Mention("money", 15, 24, "$1,187.35", value=1187.35), "UNSUPPORTED", (0, 39))
    >>> _refunds_total(a, said, ev)
    'the sum of the refunds the results record'
    """
    m = f.mention
    if m.value is None:
        return ""
    if amounts is not None:
        # The sentence's search and the results' refunds, read once per answer (h24b).
        if amounts.search(f.sentence, _REFUND_WORD) is None:
            return ""
        told = amounts.totals.get("refunds")
        if told is None:
            told = amounts.totals["refunds"] = _recorded_refunds(ev)
    elif _REFUND_WORD.search(lower(answer[f.sentence[0] : f.sentence[1]])) is None:
        return ""
    else:
        told = _recorded_refunds(ev)
    total, n = told
    if n >= 2 and accepts(m, total):
        return "the sum of the refunds the results record"
    return ""


def _recorded_refunds(ev: Evidence) -> tuple[float, int]:
    """The sum and the number of the refunds the results record (see :func:`_refunds_total`)."""
    records = {
        s.record
        for s in ev.strings
        if s.source == "tool"
        and s.record is not None
        and isinstance(s.value, str)
        and lower(s.value) == "refund"
    }
    if len(records) < 2:
        return 0.0, 0
    by_record: dict[Any, list[float]] = {}
    for x in ev.numbers:
        if x.record in records and x.source == "tool" and isinstance(x.path, tuple):
            by_record.setdefault(x.record, []).append(x.value)
    seen: set[tuple[Any, float]] = set()
    total, n = 0.0, 0
    for rec, values in by_record.items():
        if len(values) != 1:
            continue
        key = (rec[1], values[0])  # the same refund read again by a later call is one refund
        if key not in seen:
            seen.add(key)
            total += abs(values[0])
            n += 1
    return total, n


def _records_total(m: Mention, records: dict[Any, None], ev: Evidence) -> bool:
    """Whether one key that each of ``records`` holds once (in the record or below it: an order's payment
    amount, an item's price) adds up to the amount ``m`` over the records."""
    return any(accepts(m, total) for total in _records_sums(records, ev))


def _records_sums(records: dict[Any, None], ev: Evidence) -> list[float]:
    """The sums over ``records`` of each key that each of them holds once, in the order the keys are first
    read (the amount checked aside: kept per group of records, h24b)."""
    by_message: dict[int, list[tuple[Any, ...]]] = {}
    for rec in records:
        by_message.setdefault(rec[0], []).append(rec[1])
    sums: dict[tuple[Any, ...], dict[Any, list[float]]] = {}
    for x in ev.numbers:
        where = by_message.get(x.message_index)
        if where is None or x.source != "tool" or not isinstance(x.path, tuple):
            continue
        for path in where:
            if x.path[: len(path)] == path and len(x.path) > len(path):
                key = tuple(k for k in x.path[len(path) :] if isinstance(k, str))
                sums.setdefault(key, {}).setdefault((x.message_index, path), []).append(x.value)
    out: list[float] = []
    for per_record in sums.values():
        once = len(per_record) == len(records) and all(len(v) == 1 for v in per_record.values())
        if once:
            out.append(sum(v[0] for v in per_record.values()))
    return out


_NUMBERED_LABEL = re.compile(r"\b([A-Z][a-z]+) (#?)(\d{1,2})\b")


def _numbered_labels(answer: str) -> set[int]:
    r"""The start positions of the numbers of the answer's own numbered labels, "Exchange #1 ... Exchange #2":
    a word that numbers two or more of its sections from 1 on, not a value. Without "#" the label must open
    its line, markup aside ("**Item 1 - Water Bottle:**" ... "**Item 2 - Desk Lamp:**"): in running text
    "Terminal 1 ... Terminal 2" may be values (issue 14, h20a).

    >>> a = "**Exchange #1 - Skateboard**\n...\n**Exchange #2 - Hose**"
    >>> [a[i] for i in sorted(_numbered_labels(a))], _numbered_labels("Seat #2 is free.")
    (['1', '2'], set())
    >>> a = "**Item 1 - Bottle:**\n- $45\n\n**Item 2 - Lamp:**\n- $137"
    >>> [a[i] for i in sorted(_numbered_labels(a))], _numbered_labels("Gate 1 or Gate 2 is open.")
    (['1', '2'], set())
    """
    if "#" not in answer and "\n" not in answer:
        return set()
    by_label: dict[str, list[tuple[int, int]]] = {}
    for m in _NUMBERED_LABEL.finditer(answer):
        if not m.group(2):
            line_start = answer.rfind("\n", 0, m.start()) + 1
            if answer[line_start : m.start()].strip(_MARKUP_CHARS + "0123456789.)"):
                continue  # "... at Gate 2": no label of the answer's own sections
        by_label.setdefault(m.group(1) + m.group(2), []).append((int(m.group(3)), m.start(3)))
    out: set[int] = set()
    for found in by_label.values():
        numbers = sorted({n for n, _ in found})
        if len(numbers) >= 2 and numbers == list(range(1, len(numbers) + 1)):
            out.update(pos for _, pos in found)
    return out


def _list_markers(answer: str) -> set[int]:
    r"""The start positions of the numbers that number a list's items ("1. Paris 2. Oslo", "1) ... 2) ...").

    A marker opens its line (after white space or markup), or is the next number after a marker already
    read ("1. 3 2." numbers two items, the first of which says "3"): a list counts up from 1 or from the
    line's own number.

    >>> sorted(_list_markers("1. 3 2."))
    [0, 5]
    >>> sorted(_list_markers("Steps:\n1. Open it.\n2. Close it."))
    [7, 19]
    >>> sorted(_list_markers("It is rated 4. Yes."))
    []
    """
    if "." not in answer and ")" not in answer:
        return set()
    out: set[int] = set()
    last = 0
    for m in _MARKER.finditer(answer):
        n = int(m.group(1))
        line_start = answer.rfind("\n", 0, m.start()) + 1
        opens_line = not answer[line_start : m.start()].strip(_MARKUP_CHARS)
        if (opens_line and (n == 1 or n == last + 1 or not out)) or (last and n == last + 1):
            out.add(m.start())
            last = n
    return out


_MARKUP_CHARS = "#*_>-+• \t"


# A request for a computed aggregate: a total, a sum, an estimate, a cost over a period or a whole trip.
_AGGREGATE_REQUEST = re.compile(
    r"\b(?:total|totals|sum|estimate|estimated|altogether|combined|in all|add up|adds up|aggregate|"
    r"expense|expenses|cost for|cost of the|overall cost|overall price)\b"
)


def _bare_unsupported(f: Finding) -> bool:
    """Whether ``f`` is a bare number (no unit, currency, counted noun or hedge) that nothing in the run
    speaks to. Asked for a total or an estimate, an agent answers with the result of several steps of
    arithmetic over the results and the request's own quantities ("3 days", "2 meals a day"), which the
    rules (one step) do not follow; a bare number there is that computation, not a value a reader could
    look up (issue 14: sums and totals the agent computed are not false claims). It is still flagged when
    comparable evidence says otherwise (contradicted, as any value), and with a unit, a currency or a noun
    ("$690", "690 euros") it is a specific value and stays a claim when unsupported.
    """
    m = f.mention
    return (
        f.label == "UNSUPPORTED"
        and m.kind == "number"
        and not m.noun
        and not m.unit
        and not m.currency
        and not m.hedge
    )


def _computed_total(
    f: Finding,
    findings: list[Finding],
    sentences: list[tuple[int, int]],
    ev: Evidence,
    known: bool | None = None,
    amounts: AnswerAmounts | None = None,
) -> bool:
    """Whether ``f`` is a bare number (``_bare_unsupported``) that may be the total asked for: when the
    results tell which values belong to the items the answer talks about (records of a JSON list), it must
    be larger than every one of them, since a total adds up or multiplies them (a changed rating or price
    of one item, "5.8" for 4.8, is not and stays flagged); when they do not (free text), any bare number.

    ``known``, whether any supported finding holds a fact of a record of a list, and ``amounts``, the
    findings indexed (in answer order), may be given for all the findings at once: each was read again for
    every bare number (h24b)."""
    if not _bare_unsupported(f) or f.mention.value is None:
        return False
    if known is None:
        known = _records_known(findings)
    if not known:
        return True
    starts = amounts.starts() if amounts is not None and amounts.in_order else None
    values = [
        x.value
        for x in _context_facts(findings, f, sentences, ev, None, starts, amounts if starts else None)
        if x.kind == "number" and not _opens_name(x, ev)
    ]
    return not values or abs(f.mention.value) > max(abs(v) for v in values)


def _records_known(findings: list[Finding]) -> bool:
    """Whether a supported finding holds a fact of a record of a list (see :func:`_computed_total`)."""
    return any(
        x.record is not None and x.list_path is not None
        for g in findings
        if g.label == "SUPPORTED"
        for x in g.facts
    )


# A number followed by a capitalised word: a street number or a postcode ("14 Rue Cler", "75007 Paris").
_NAME_AFTER = re.compile(r" [A-Z][a-z]")


def _opens_name(x: Fact, ev: Evidence) -> bool:
    """Whether the evidence number ``x`` is part of a name or address in its text ("75007 Paris"): a label,
    not an amount, so no bound on a total computed from the amounts of the results."""
    if x.source != "tool":
        return False
    start, end = ev.locate(x)
    content = ev.contents.get(x.message_index, "")
    return end > start and _NAME_AFTER.match(content, end) is not None


# A short code in capitals ("CDG", "LHR", "NYSE", "B2"): what a tool returns for a place, a carrier, a market.
_CODE = re.compile(r"[A-Z][A-Z0-9]{1,4}")


# A parenthesis of examples the agent offers ("(e.g., Los Angeles, San Francisco)", "(like "5G/4G/3G/2G
# Auto")"): suggestions, not claims.
_EXAMPLES = re.compile(r"\((?:e\.\s?g\.|for example|for instance|such as|like\b)[^()]*\)", re.I)
# Examples offered in the sentence itself and closed by a hedge that says they are only examples ("like
# Google Chrome, Safari, or any other browser", "such as "Speedtest by Ookla" or similar", "cities like Los
# Angeles (LAX), Seattle (SEA), etc.").
_HEDGED_EXAMPLES = re.compile(
    r"\b(?:such as|like|e\.g\.,?|for example,?|for instance,?)\s[^.;!?\n]{1,160}?"
    r"(?:\bor\s+(?:any\s+other|another|something\s+similar|similar)\b|,?\s+etc\b)",
    re.I,
)
_HEDGES = ("or any other", "or another", "or something similar", "or similar", " etc")
# A how-to step on the customer's own device: a line or sentence that opens (after a list marker or a bold
# step title) with a verb of finding or choosing on a screen ("Look for "Preferred Network Type" or "Network
# Mode."", "4. Check the 'Network Mode' setting", "Tap on "Mobile Network""). What it quotes is a label of the
# device's menus, which the results do not list.
_DEVICE_STEP = re.compile(
    r"(?m)(?:^|(?<=[.!?] ))[ \t]*(?:[-*\u2022][ \t]+|\d{1,2}[.)][ \t]+)?(?:\*\*[^*\n]{1,40}\*\*:?[ \t]*)?"
    r"(?:Open|Go to|Tap(?: on)?|Look for|Find|Select|Navigate to|Swipe|Scroll to|Check the|Check for|"
    r"Toggle|Turn)\b[^\n!?]*?(?=[.!?](?:\s|$)|$)"
)
_QUOTED_LABEL = re.compile(r"\"[^\"\n]{1,60}\"|'[^'\n]{1,60}'|\u201c[^\u201d\n]{1,60}\u201d")


def _drop_examples(answer: str, findings: list[Finding]) -> list[Finding]:
    """Without the unsupported names of examples and of device labels.

    A parenthesis of examples ("Which city on the West Coast (e.g., Los Angeles, San Francisco,
    Seattle)?"), examples closed by a hedge ("a browser like Google Chrome, Safari, or any other browser"):
    the agent asks or illustrates with them, it states nothing about the results (issue 14: general
    knowledge the context does not speak to is no claim). So do the quoted labels of a how-to step on the
    customer's device ("Look for "Preferred Network Type" or "Network Mode.""; tau2-bench telecom, h23a).
    Only names found nowhere in the run are dropped: a name of the results (another item's) stays checked.

    >>> from .mentions import Mention
    >>> ans = "Which city (e.g., Los Angeles, Seattle)?"
    >>> la = Finding(Mention("entity", 18, 29, "Los Angeles"), "UNSUPPORTED", (0, 40), [], "")
    >>> [f.mention.text for f in _drop_examples(ans, [la])]
    []
    >>> ans = 'Open a browser, like Chrome or any other browser. Look for "Network Type" or "Mode".'
    >>> found = [Finding(Mention("entity", a, a + len(t), t), "UNSUPPORTED", (0, 84), [], "")
    ...          for t in ("Chrome", "Network Type") for a in [ans.index(t)]]
    >>> [f.mention.text for f in _drop_examples(ans, found)]
    []
    >>> ans = 'The West Coast could include cities like Los Angeles (LAX), Seattle (SEA), etc. Which one?'
    >>> found = [Finding(Mention("entity", a, a + len(t), t), "UNSUPPORTED", (0, 80), [], "")
    ...          for t in ("Los Angeles", "SEA") for a in [ans.index(t)]]
    >>> [f.mention.text for f in _drop_examples(ans, found)]
    []
    >>> ans = 'You ordered the "Network Type" adapter, like Chrome.'
    >>> nt = Finding(Mention("entity", 17, 29, "Network Type"), "UNSUPPORTED", (0, 52), [], "")
    >>> [f.mention.text for f in _drop_examples(ans, [nt])]
    ['Network Type']
    """
    spans = [m.span() for m in _EXAMPLES.finditer(answer)] if "(" in answer else []
    low = lower(answer)
    if any(h in low for h in _HEDGES):
        spans += [m.span() for m in _HEDGED_EXAMPLES.finditer(answer)]
    if '"' in answer or "'" in answer or "\u201c" in answer:
        for step in _DEVICE_STEP.finditer(answer):
            a = step.start()
            spans += [(a + q.start(), a + q.end()) for q in _QUOTED_LABEL.finditer(step.group())]
    return _without_names_in(findings, spans)


# A power-cycle or reset step on the customer's own device, up to the "for" of its wait: "unplug your modem
# and router for 60 seconds", "press and hold the reset button for about 10 seconds", "wait 30 seconds".
_DEVICE_WAIT = re.compile(
    r"\b(?:unplug|power[ \t]+(?:it|them|\w+)?[ \t]*off|turn[ \t]+(?:it|them)[ \t]+off"
    r"|press[ \t]+and[ \t]+hold|leave[ \t]+(?:it|them)[ \t]+(?:off|unplugged))\b"
    r"[^.!?\n]{0,80}?\bfor[ \t]+(?:about[ \t]+|at[ \t]+least[ \t]+)?$"
    r"|\bwait[ \t]+(?:for[ \t]+)?(?:about[ \t]+|at[ \t]+least[ \t]+)?$",
    re.I,
)
_WAIT_UNITS = frozenset({"s", "min"})


def _drop_device_waits(answer: str, findings: list[Finding]) -> list[Finding]:
    """Without the unsupported waits of a how-to step on the customer's device ("unplug your modem and
    router for 60 seconds"): troubleshooting advice of general knowledge, which no tool result gives
    (issue 14, h24k). A wait the results give another value for is still contradicted.

    >>> from .mentions import Mention
    >>> ans = "Unplug your modem and router for 60 seconds, then plug the modem in."
    >>> w = Finding(Mention("quantity", 33, 43, "60 seconds", unit="s"), "UNSUPPORTED", (0, 68), [], "")
    >>> [f.mention.text for f in _drop_device_waits(ans, [w])]
    []
    >>> ans = "Your hold lasts for 60 seconds."
    >>> w = Finding(Mention("quantity", 20, 30, "60 seconds", unit="s"), "UNSUPPORTED", (0, 31), [], "")
    >>> [f.mention.text for f in _drop_device_waits(ans, [w])]
    ['60 seconds']
    """
    if "seconds" not in answer and "minute" not in answer:
        return findings
    out = []
    for f in findings:
        m = f.mention
        if (
            f.label == "UNSUPPORTED"
            and m.kind == "quantity"
            and m.unit in _WAIT_UNITS
            and _DEVICE_WAIT.search(answer[max(0, m.start - 120) : m.start]) is not None
        ):
            continue
        out.append(f)
    return out


def _without_names_in(findings: list[Finding], spans: list[tuple[int, int]]) -> list[Finding]:
    """``findings`` without the unsupported names that lie inside one of ``spans``."""
    if not spans:
        return findings
    return [
        f
        for f in findings
        if not (
            f.label == "UNSUPPORTED"
            and f.mention.kind == "entity"
            and any(a <= f.mention.start and f.mention.end <= b for a, b in spans)
        )
    ]


# A line by which the agent asks the customer for what the list after it names: a request addressed to the
# customer, then a colon ending the line ("Please provide your complete new address so I can update your
# account:", "Could you please provide me with:", "I'll need the following details:"). "Please confirm
# the following:" is no such line (what follows restates details, each a claim), nor is a requirement the
# answer retells ("To renew, you must provide:" lists a page's documents).
_REQUEST_LINE = re.compile(
    r"(?:\b(?:please|could\s+you|can\s+you|would\s+you)\b[^\n]{0,40}?\b(?:provide|share|send|give|tell)\b"
    r"|\b(?:provide|send|give|tell)\s+me\b|\blet\s+me\s+know\b|\bi(?:'ll|\s+will)?\s+need\b)[^\n]*:[*_ \t]*"
)
_RESTATES = re.compile(r"\b(?:confirm|review|verify|double-check|check)")
_LIST_ITEM = re.compile(r"[ \t]*+(?:[-*•][ \t]|\d{1,2}[.)][ \t])")


def _requested_fields(answer: str) -> list[tuple[int, int]]:
    r"""The spans of the list items that a request line opens (``_REQUEST_LINE``): each names a field the
    customer is asked to give, with the form or an example of its value, not a value of the results.

    >>> a = "Great! Please provide your new address:\n- Street (line 1)\n- State (AZ)\n\nThanks, Nina."
    >>> [a[x:y] for x, y in _requested_fields(a)]
    ['- Street (line 1)', '- State (AZ)']
    >>> _requested_fields("Please confirm the following:\n- Lamp (blue)")
    []
    >>> _requested_fields("I'll need you to confirm these details:\n- Lamp (blue)")
    []
    >>> _requested_fields("To renew it, you must provide:\n- Form DS-82")
    []
    """
    out: list[tuple[int, int]] = []
    pos = answer.find(":\n")
    while pos >= 0:
        start = answer.rfind("\n", 0, pos) + 1
        head = lower(answer[start : pos + 1])
        # The sentence of the line that asks: the request verb is in its last sentence.
        last = max(head.rfind(". "), head.rfind("! "), head.rfind("? "))
        if _REQUEST_LINE.search(head, last + 1) and not _RESTATES.search(head, last + 1):
            at = pos + 2
            while at < len(answer):
                end = answer.find("\n", at)
                end = len(answer) if end < 0 else end
                if not _LIST_ITEM.match(answer, at, end):
                    break
                out.append((at, end))
                at = end + 1
        pos = answer.find(":\n", pos + 2)
    return out


def _drop_requested_fields(answer: str, findings: list[Finding]) -> list[Finding]:
    """Without the unsupported names and titles of the list items a request opens ("Please provide your new
    address:\n- Apartment/Suite/Unit number (if any, otherwise just say "none")\n- State (AZ)"): the agent
    asks for the values, it states none about the results (issue 14, h22b). A value such an item states
    ("- Zip code (85033)") is still checked.
    """
    return _without_names_in(findings, _requested_fields(answer) if ":\n" in answer else [])


# A code of three capitals given as a whole value of a result: quoted in JSON ("LAS", "DFW": an airport, a
# station, a market), or the value of a YAML-like ``key: value`` line ("arrival_airport: MAN", issue 14,
# h20j).
_VALUE_CODE = re.compile(r'"([A-Z]{3})"|:[ \t]+\'?([A-Z]{3})\'?[ \t]*$', re.M)


def _spells_code(name: str, codes: set[str]) -> bool:
    """Whether ``name`` spells one of ``codes``: the code's letters in order in the name, from its first
    letter ("Las Vegas" LAS, "Dallas/Fort Worth" DFW, "Detroit Metropolitan Wayne County" DTW). That is how
    such codes are made, so a name that spells a code of the results is the agent's expansion of it.

    >>> _spells_code("Las Vegas", {"LAS"}), _spells_code("Chicago", {"ORD"}), _spells_code("Paris", {"PAR"})
    (True, False, True)
    """
    letters = "".join(c for c in name.upper() if c.isalpha())
    for code in codes:
        if not letters.startswith(code[0]):
            continue
        i = 1
        for c in letters[1:]:
            if i < len(code) and c == code[i]:
                i += 1
        if i == len(code):
            return True
    return False


# Words an airport's name adds to its city ("Seattle-Tacoma International Airport"), and the words that
# join two places in one phrase ("Detroit to New York").
# The same words as ``airports_build.FILLER``, which drops them from the generated names.
_AIRPORT_FILLER = frozenset(
    {
        "international", "intl", "airport", "airports", "the", "area", "metro", "metropolitan", "regional",
        "municipal", "national",
    }
)  # fmt: skip
_PLACE_JOINS = re.compile(r"\s+(?:to|and|or|via|from|through)\s+|\s*/\s*")


def _names_code_places(name: str, codes: set[str]) -> bool:
    """Whether each place of ``name`` is a city or airport name of one of ``codes`` (``AIRPORT_PLACES``).

    >>> _names_code_places("Detroit to New York", {"DTW", "JFK"}), _names_code_places("Houston", {"DTW"})
    (True, False)
    >>> _names_code_places("George Bush Intercontinental", {"IAH"}), _names_code_places("George", {"IAH"})
    (True, False)
    >>> _names_code_places("Hartsfield-Jackson Atlanta International Airport", {"ATL"})
    True
    """
    places = {p for code in codes if code in AIRPORT_PLACES for p in AIRPORT_PLACES[code].split(";")}
    if not places:
        return False
    known = {w for p in places for w in p.split()}
    parts = _PLACE_JOINS.split(normalize_text(name.replace(".", "").replace("-", " ")))
    for part in parts:
        words = [w for w in part.split() if w not in _AIRPORT_FILLER]
        # Every word of the part is a word of these places, and one place is whole in it: "Hartsfield
        # Jackson Atlanta" is, "George" alone is not.
        padded = f" {' '.join(words)} "
        if words and not (set(words) <= known and any(f" {p} " in padded for p in places)):
            return False
    return any(parts)


def _result_codes(ev: Evidence) -> set[str]:
    """The three-capital codes the tool results give as whole string values."""
    return {quoted or line for text in ev.contents.values() for quoted, line in _VALUE_CODE.findall(text)}


# What may join the parts of one spelled-out name that the name reader cut ("Family and Medical Leave Act").
_NAME_GLUE = frozenset({"and", "of", "&", "for", "the", "on", "in", "to"})


def _drop_spelled_out_codes(answer: str, findings: list[Finding], ev: Evidence) -> list[Finding]:
    """Without the unsupported names whose words, read together across "and"/"of" ("Family" + "Medical
    Leave Act"), spell out a code the results write in capitals (``_expansion_of_evidence_code``).
    """
    flagged = [f for f in findings if f.label == "UNSUPPORTED" and f.mention.kind == "entity"]
    if len(flagged) < 2:
        return findings
    flagged.sort(key=lambda f: f.mention.start)
    drop: set[int] = set()
    i = 0
    while i < len(flagged):
        j = i
        while j + 1 < len(flagged):
            gap = answer[flagged[j].mention.end : flagged[j + 1].mention.start].split()
            if not gap or not all(lower(w) in _NAME_GLUE for w in gap):
                break
            j += 1
        if j > i:
            text = answer[flagged[i].mention.start : flagged[j].mention.end]
            if _expansion_of_evidence_code(normalize_text(text), ev):
                drop.update(id(f) for f in flagged[i : j + 1])
        i = j + 1
    return [f for f in findings if id(f) not in drop] if drop else findings


def _drop_code_expansions(answer: str, findings: list[Finding], ev: Evidence | None = None) -> list[Finding]:
    """Without the unsupported names that spell out a supported code next to them in parentheses.

    "from Paris (CDG)" or "CDG (Paris)" when the tool returned "CDG": the name is the agent's expansion of
    the code (an airport's city, an exchange's name), general knowledge the results do not speak to, not a
    value the run states; the code itself is the claim, and it is checked. A name that stands alone, or next
    to a code nothing supports, is still a claim.

    >>> from .mentions import Mention
    >>> ans = "Flight from Paris (CDG) to Oslo."
    >>> paris = Finding(Mention("entity", 12, 17, "Paris"), "UNSUPPORTED", (0, 31), [], "")
    >>> cdg = Finding(Mention("entity", 19, 22, "CDG"), "SUPPORTED", (0, 31), [], "")
    >>> oslo = Finding(Mention("entity", 27, 31, "Oslo"), "UNSUPPORTED", (0, 31), [], "")
    >>> [f.mention.text for f in _drop_code_expansions(ans, [paris, cdg, oslo])]
    ['CDG', 'Oslo']
    >>> ans = "It lands at CDG (Paris)."
    >>> cdg = Finding(Mention("entity", 12, 15, "CDG"), "SUPPORTED", (0, 24), [], "")
    >>> paris = Finding(Mention("entity", 17, 22, "Paris"), "UNSUPPORTED", (0, 24), [], "")
    >>> [f.mention.text for f in _drop_code_expansions(ans, [cdg, paris])]
    ['CDG']
    """
    codes = {
        (f.mention.start, f.mention.end)
        for f in findings
        if f.label == "SUPPORTED" and f.mention.kind in ("entity", "id") and _CODE.fullmatch(f.mention.text)
    }
    # A name alone that spells a code of the results ("from Denver to Las Vegas" when a result has "LAS").
    spelled: set[str] | None = None
    if ev is not None and any(f.label != "SUPPORTED" and f.mention.kind == "entity" for f in findings):
        spelled = _result_codes(ev)
    if not codes and not spelled:
        return findings
    out: list[Finding] = []
    for f in findings:
        m = f.mention
        if (
            f.label != "SUPPORTED"
            and m.kind == "entity"
            and spelled
            and (_spells_code(m.text, spelled) or _names_code_places(m.text, spelled))
        ):
            continue
        if f.label == "UNSUPPORTED" and m.kind == "entity":
            # "Name (CODE)": the code in the parentheses right after the name.
            after = answer[m.end : m.end + 12]
            open_at = len(after) - len(after.lstrip(" "))
            if after[open_at : open_at + 1] == "(":
                a = m.end + open_at + 1
                close = answer.find(")", a, a + 8)
                if close > 0 and (a, close) in codes:
                    continue
            # "CODE (Name)": the name alone in parentheses right after the code.
            if answer[m.start - 1 : m.start] == "(" and answer[m.end : m.end + 1] == ")":
                lo = max(0, m.start - 9)
                before = answer[lo : m.start - 1].rstrip(" ")
                code = _CODE.search(before)
                if (
                    code is not None
                    and code.end() == len(before)
                    and (lo + code.start(), lo + code.end()) in codes
                ):
                    continue
        out.append(f)
    return out


def _cite_rivals(findings: list[Finding], ev: Evidence, matcher: _Matcher | None = None) -> None:
    """Give every contradicted value that has no evidence of its own the evidence that says otherwise.

    A contradiction is flagged because comparable evidence states another value (another time, date,
    figure in the same unit, identifier of the same shape, or the strings of the item its sentence is
    about): those facts are what a reader checks, so the report cites them (issue 14). Facts of the items
    the sentence's supported values talk about come first.
    """
    by_sentence: dict[tuple[int, int], list[Finding]] | None = None
    for f in findings:
        if f.label != "CONTRADICTED" or f.facts:
            continue
        m = f.mention
        if m.kind == "time":
            pool = ev.times
        elif m.kind == "year" and not ev.dates:
            # The years the run states as numbers (a founding year, a season).
            pool = [
                x
                for x in ev.numbers
                if x.unit == "year_of_date" or (x.unit is None and 1500 <= x.value <= 2100)
            ]
        elif m.kind in ("date", "year"):
            pool = ev.dates
        elif m.kind == "id":
            shape = _shape(m.text)
            pool = [x for x in ev.strings if _shape(x.text) == shape]
        elif m.kind in _NUMERIC:
            pool = [x for x in ev.numbers if x.unit == m.unit and x.unit != "year_of_date"]
            if not pool and m.noun:
                # "5 events" against the events list, "3-star" against ``stars``: the counted noun's values.
                nouns = _noun_key(m.noun)
                pool = [x for n in nouns for x in ev.numbers_keyed(n)] + [
                    x for x in ev.counts if x.key_tokens & nouns
                ]
            if not pool and m.unit and matcher is not None:
                # "9 km" against figures in miles: the evidence of the same dimension.
                units = set(matcher._units_like(m.unit))
                pool = [x for x in ev.numbers if x.unit in units]
        elif m.kind == "entity":
            pool = ev.strings
        else:
            continue
        if by_sentence is None:
            # The supported findings of each sentence and their records, gathered once: gathering them per
            # contradicted value read every finding for each (h24b). This loop changes no label, and the
            # facts only of contradicted findings.
            by_sentence = {}
            for g in findings:
                if g.label == "SUPPORTED":
                    by_sentence.setdefault(g.sentence, []).append(g)
        told = by_sentence.get(f.sentence, [])
        records = {r for g in told for _, r in g.records}
        near = [x for x in pool if x.record is not None and x.record in records]
        if m.kind == "entity":
            # A swapped name: the strings of the item its sentence is about; without items (free text), the
            # evidence the rest of its sentence rests on, which names something else.
            near = near or [x for g in told if g is not f for x in g.facts if x.kind == "string"]
            pool = near
        f.facts = (near or list(pool))[:_RIVAL_CITES]


_NUMERIC = frozenset({"money", "percent", "quantity", "number", "count", "year"})


# A name as a record holds it in a slot: a code ("DEN", "W-4", "LM672") or a few words whose first is
# capitalised, without the punctuation of a sentence ("Breizh Café", "Green Motion").
_SLOT_CODE = re.compile(r"[A-Z0-9][A-Z0-9._/-]{1,15}")
_SLOT_WORDS = re.compile(r"[A-Z\u00c0-\u00de][^\s.!?;:]*+(?: [^\s.!?;:]++){0,5}")


def _name_form(text: str) -> str | None:
    """``code``, ``words`` or None (not a name as a record's slot holds one), by the text's form.

    >>> _name_form("DEN"), _name_form("LM672"), _name_form("Green Motion"), _name_form("Forms")
    ('code', 'code', 'words', 'words')
    >>> _name_form("the hotel is closed."), _name_form("1234"), _name_form("A passport is accepted. Bring it")
    (None, None, None)
    """
    t = text.strip()
    if (
        lower(t).rstrip(".") in WEEKDAYS
        or lower(t).rstrip(".") in WEEKDAY_ABBREVIATIONS
        or lower(t) in MONTHS
    ):
        return None  # "Fri" of opening hours is a day, checked as one
    if _SLOT_CODE.fullmatch(t):
        return "code" if any(c.isalpha() for c in t) else None
    return "words" if _SLOT_WORDS.fullmatch(t) else None


def _swapped_name_slot(name: str, others: list[Finding], ev: Evidence) -> bool:
    """Whether the records the other (supported) values of a sentence come from hold a name in a slot (a
    code or a few capitalised words, see ``_slot_form``), or another name of the sentence is one the results
    state: then ``name``, found nowhere in the run, stands where that slot's name should ("Green Motion
    rated 4.5 at $50" of a record naming "New Car Rental"). Without such a slot
    (values read from a search query, a free text, records of numbers only) a name next to grounded values
    is general knowledge the results do not speak to, unsupported at most (issue 14: a name is
    contradicted only against the same slot of the same record; h22j).

    >>> from .evidence import Fact
    >>> from .mentions import Mention
    >>> rec = (2, (0,))
    >>> rating = Fact("number", 4.5, 2, ("$", 0, "rating"), rec, None)
    >>> title = Fact("string", "new car rental", 2, ("$", 0, "name"), rec, None, text="New Car Rental")
    >>> found = [Finding(Mention("number", 0, 3, "4.5"), "SUPPORTED", (0, 9), [rating]),
    ...          Finding(Mention("number", 4, 7, "4.5"), "SUPPORTED", (0, 9), [rating])]
    >>> ev = Evidence(strings=[])
    >>> _swapped_name_slot("Green Motion", found, ev), _swapped_name_slot("DE", found, ev)
    (False, False)
    >>> ev.strings.append(title)
    >>> _swapped_name_slot("Green Motion", found, ev), _swapped_name_slot("DE", found, ev)
    (True, True)
    """
    form = _name_form(name)
    if form is None:
        return True  # not a name of a slot's form: the rule as before
    stated = [g for g in others if g.mention.kind == "entity"]
    # Another name of the sentence that the results themselves state (a passage about "Gunmen from
    # Laredo", "carrier: Parcelo" in a text result), not only the agent's own query: the sentence speaks of
    # what the results name, and a name found nowhere is a swap. A name supported without facts of its own
    # (words of a text result, or of the user) counts unless it only opens the sentence ("Update your").
    bare = [g for g in stated if not g.facts]
    if (
        any(g.facts and not all(_requested(x) for x in g.facts) for g in stated)
        or any(not g.mention.sentence_start for g in bare)
        or _named_in_records(bare, others, ev)
    ):
        return True
    # A place may stand in a code's slot ("Madrid" for "LIS"), a code in a name's: any slot of a name will do.
    records = {x.record for g in others for x in g.facts if x.record is not None}
    if not records:
        # Values matched in the words of the run, not in a record (a text result): any slot of the run.
        return any(_slot_form(x) is not None for x in ev.strings) or any(
            _text_has_slot(t) for t in ev.contents.values()
        )
    if any(x.record in records and _slot_form(x) is not None for x in ev.strings):
        return True
    # A text result (YAML-like "carrier: UPS" lines) has its slots in its text.
    texts = {r[0] for r in records if r[1] == ()}
    return any(_text_has_slot(ev.contents.get(i)) for i in texts)


# "key: value" lines of a text result, and the keys of a fetched page (its title, address, body), whose
# words are a page's, not a record's name.
_TEXT_SLOT = re.compile(r"^[ \t]*+(?:- )?([A-Za-z_][\w]{0,40}):[ \t]++(\S[^\n]{0,80})$", re.MULTILINE)
_PAGE_KEYS = frozenset(["title", "url", "content", "source", "domain", "snippet", "metadata", "rank"])


def _text_has_slot(text: str | None) -> bool:
    """Whether a text result holds a name in a ``key: value`` line (see ``_slot_form``).

    >>> _text_has_slot("carrier: UPS\\nweight_kg: 2"), _text_has_slot("leave_program: Family Leave")
    (True, True)
    >>> _text_has_slot("weight_kg: 2\\nquery: California paycheck"), _text_has_slot("title: Help Desk")
    (False, False)
    """
    if not text:
        return False
    for m in _TEXT_SLOT.finditer(text):
        key, value = m.group(1), m.group(2).strip().strip("'\"")
        if key in _PAGE_KEYS or key in _FREE_TEXT_KEYS:
            continue
        if _slot_form(Fact("string", "", -1, (key,), None, None, text=value)) is not None:
            return True
    return False


def _named_in_records(names: list[Finding], others: list[Finding], ev: Evidence) -> bool:
    """Whether a name supported without facts of its own (a text result: "carrier: Parcelo") is written in
    the text of a result the sentence's other values come from, not only in the user's or the agent's
    words."""
    if not names:
        return False
    results = {x.record[0] for g in others for x in g.facts if x.record is not None}
    texts = [normalize_text(ev.contents[i]) for i in results if isinstance(ev.contents.get(i), str)]
    return any(has_words(t, normalize_text(g.mention.text)) for g in names for t in texts)


def _key_of(x: Fact) -> str:
    """The last key of a fact's path ("" for free text)."""
    return next((k for k in reversed(x.path) if isinstance(k, str)), "") if isinstance(x.path, tuple) else ""


def _requested(x: Fact) -> bool:
    """Whether a fact is words of what the agent asked (a search query, the reason of a call).

    >>> from .evidence import Fact
    >>> _requested(Fact("string", "", 1, ("tool_calls", 0, "function", "arguments", "query"), None, None))
    True
    >>> _requested(Fact("string", "", 2, ("passages", 0), None, None))
    False
    """
    return _key_of(x) in _FREE_TEXT_KEYS


# Keys of what an agent asks (a search query, the reason of a call): words of a request, not the name of a
# record (a merchant's name in ``description`` is one; longer prose is cut by its length).
_FREE_TEXT_KEYS = frozenset(["query", "q", "search", "search_query", "keywords", "reason", "prompt"])


# Slots whose codes are no names: identifiers, references, currencies ("statement_id", "currency: USD").
_NO_NAME_KEY_WORDS = frozenset(["id", "ids", "number", "reference", "ref", "currency", "uuid", "token"])


def _slot_form(x: Fact) -> str | None:
    """The form of the name a string fact of a record holds in a name slot (``code`` or ``words``), None
    for free text: a key of free text, more than eight words, or no capitalised word ("1 on 1 with
    Virginia" is a slot of words, a search query is none).

    >>> from .evidence import Fact
    >>> _slot_form(Fact("string", "", 2, ("$", 0, "name"), (2, (0,)), None, text="1 on 1 with Virginia"))
    'words'
    >>> _slot_form(Fact("string", "", 2, ("$", 0, "query"), (2, (0,)), None, text="California paycheck"))
    >>> _slot_form(Fact("string", "", 2, ("$", 0, "airport"), (2, (0,)), None, text="DEN"))
    'code'
    >>> _slot_form(Fact("string", "", 2, ("$", 0, "statement_id"), (2, (0,)), None, text="PS-2026-07"))
    """
    text = x.text or ""
    words = text.split()
    if x.kind != "string" or _requested(x) or not 1 <= len(words) <= 8:
        return None
    if _NO_NAME_KEY_WORDS.intersection(lower(_key_of(x)).split("_")):
        return None
    if len(words) == 1 and _name_form(text) == "code":
        return "code"
    return "words" if any(w[:1].isupper() and not _SLOT_CODE.fullmatch(w) for w in words) else None


def _check_work(
    mentions: list[Mention], ev: Evidence, max_claims: int | None, max_comparisons: int | None, path: str
) -> None:
    """Refuse an answer whose matching would be too much work, before any of it is done."""
    if max_claims is not None and len(mentions) > max_claims:
        raise RunTooLargeError(
            path, f"the answer has {len(mentions)} checkable values, the limit is {max_claims}"
        )
    if max_comparisons is not None:
        facts = (
            len(ev.numbers) + len(ev.strings) + len(ev.dates) + len(ev.times) + len(ev.datetimes)
            + len(ev.counts) + len(ev.states)
        )  # fmt: skip
        work = len(mentions) * facts
        if work > max_comparisons:
            raise RunTooLargeError(
                path,
                f"{len(mentions)} checkable values against {facts} evidence facts make {work} comparisons, "
                f"the limit is {max_comparisons}",
            )


def _earlier_supported(
    findings: list[Finding],
    before: int,
    starts: list[int] | None = None,
    amounts: AnswerAmounts | None = None,
) -> list[Mention]:
    """The mentions of the last MAX_OPERANDS supported findings with a value that start before ``before``,
    in order: read backwards and stopped once full (a forward scan of every finding was quadratic). With
    ``starts``, the findings' starts in order, the backward read begins at the last one before ``before``
    rather than at the answer's end; with ``amounts`` too, it reads only the supported values (h23c)."""
    if starts is not None and amounts is not None:
        return [g.mention for g in amounts.valued_before(before, MAX_OPERANDS)]
    out: list[Mention] = []
    end = bisect_left(starts, before) if starts is not None else len(findings)
    for i in range(end - 1, -1, -1):
        g = findings[i]
        if len(out) >= MAX_OPERANDS:
            break
        if g.label == "SUPPORTED" and g.mention.value and g.mention.start < before:
            out.append(g.mention)
    out.reverse()
    return out


def _unit_of(m: Mention) -> str | None:
    """The unit a value of the answer is in, for arithmetic: its own, none for money and plain numbers."""
    return m.unit if m.kind in ("quantity", "percent") else None


def _same_currency(m: Mention, fact: Fact) -> bool:
    if m.kind != "money" or not m.currency or not fact.currencies:
        return True
    return m.currency in fact.currencies or (m.currency == "$" and bool(fact.currencies & _DOLLARS))


# Keys that count things (a flight's ``available_seats``, a booking's ``total_baggages``): an amount of money
# is no sum of a fare and a number of seats ("$348" is not 333 + 15; issue 14: an edited total that such a
# sum would support).
_COUNTED_KEYS = frozenset(
    {"seat", "seats", "baggage", "baggages", "bag", "bags", "count", "quantity", "qty", "stock", "inventory"}
)


# The head of a numbered item ("2. **Flight HAT218 & HAT039**") or a blank line: where an item's details
# start.
_ITEM_HEAD = re.compile(r"\n[ \t]*\n|(?:^|\n)[ \t]*\d{1,2}[.)][ \t]")


def _item_heads(answer: str) -> tuple[list[int], list[int]]:
    """The ends and the starts of the answer's item heads (``_ITEM_HEAD``), read once per answer."""
    ends: list[int] = []
    heads: list[int] = []
    for m in _ITEM_HEAD.finditer(answer):
        ends.append(m.end())
        heads.append(m.start())
    return ends, heads


def _item_start_of(heads: tuple[list[int], list[int]], pos: int) -> int:
    r"""Where the numbered item or paragraph that holds ``pos`` starts (0 when none does), from the item
    heads of :func:`_item_heads`: the last that ends at ``pos`` or before. The heads read up to ``pos`` are
    the same: a head that runs past ``pos`` holds no shorter one that ends before it (h23c).

    >>> text = "1. A\n   - $5\n2. B\n   - $7"
    >>> _item_start_of(_item_heads(text), 21)  # the line break before "2."
    12
    """
    ends, starts = heads
    i = bisect_right(ends, pos)
    return starts[i - 1] if i else 0


def _context_facts(
    findings: list[Finding],
    target: Finding,
    sentences: list[tuple[int, int]],
    ev: Evidence,
    item: int | None = None,
    starts: list[int] | None = None,
    amounts: AnswerAmounts | None = None,
) -> list[Fact]:
    """Evidence facts of the records the answer has talked about so far (its own sentence first; when
    ``item``, the start of its numbered item or paragraph, is given, then the records of the identifiers of
    that item, its other values', the identifiers' of the answer before), then run-level facts (values
    outside lists, the user's numbers). The item comes before the rest of the answer: "- Total Price: $261"
    under the second of several one-stop options adds that option's fares, which the records of the options
    before it would push past the operands kept (issue 14: sums the agent computed). ``starts``, the
    findings' starts in order, limits the reading to the findings that start before the target's sentence
    ends (the others are skipped in any case); with ``amounts`` too, only the supported findings that hold a
    fact of a record, the only ones the walk reads anything from (h23c)."""
    # Records in the order they were talked about, kept as dict keys: the membership test is a hash look-up
    # (a list's ``in`` compared record tuples against every record so far: quadratic in the records of a big
    # result, for every flagged value; issue 13). The numbers of each record are taken as the record is
    # found, in evidence order; once MAX_OPERANDS are there the rest of the walk cannot change the answer
    # (dates and times come after the numbers and are cut off), so it stops.
    by_record, root_positions = ev.record_index()
    numbers = ev.numbers
    ordered: dict[Any, int] = {}
    own: list[Fact] = []
    end = target.sentence[1]
    if starts is not None and amounts is not None and target.label != "SUPPORTED":
        # The same walk over the records, not the findings (h24b): the target's sentence's findings first,
        # then per tier the records in the order the tier's findings first hold them (``first_records``),
        # those already taken skipped. A record of the target's sentence is taken in tier 0, so a later
        # tier, which skips that sentence's findings, meets any other record first where the index does.
        # The target, not supported, is none of them.
        count = amounts.recorded_count(end)
        split = count
        if item is not None:
            split = min(amounts.recorded_count(item), count)  # the findings of the item are the rest
        tiers: list[list[Any]] = []
        first = amounts.sentence_records(target.sentence, count)  # kept per sentence, each record once
        if first is not None:
            tiers.append(first)
        else:
            for g in amounts.recorded_of_sentence(target.sentence, count):
                if g.mention.start < end:
                    tiers.append(
                        [x.record for x in g.facts if x.record is not None and x.list_path is not None]
                    )
        if item is not None:
            tiers += [
                amounts.first_records(split, count, 1),
                amounts.first_records(split, count, 2),
                amounts.first_records(0, split, 1),
                amounts.first_records(0, split, 2),
            ]
        else:
            tiers.append(amounts.first_records(0, count, 0))
        for records in tiers:
            for r in records:
                if _take_record(r, ordered, by_record, numbers, own):
                    return _gathered(own, ordered, ev, root_positions)
        return _gathered(own, ordered, ev, root_positions)
    if starts is not None and amounts is not None:
        before = amounts.recorded_before(end)
    else:
        before = findings[: bisect_left(starts, end)] if starts is not None else findings
    for tier in (0, 1, 2, 3, 4) if item is not None else (0, 4):
        for g in before:
            if g is target or g.label != "SUPPORTED" or g.mention.start >= end:
                continue
            # 0: the target's sentence; with an ``item``, 1, 2: the identifiers, then the other values, of
            # the rest of its item; 3, 4: the same for the rest of the answer (without, 4 is all of it). A
            # "Total Price" under "Flight 1: HAT069" and "Flight 2: HAT258" adds their fares, which the
            # records of every time, date and place told on the way would push out of the operands kept.
            if g.sentence == target.sentence:
                at = 0
            elif item is None:
                at = 4
            else:
                at = (1 if g.mention.start >= item else 3) + (g.mention.kind != "id")
            if at != tier:
                continue
            for x in g.facts:
                r = x.record
                if r is None or x.list_path is None:
                    continue
                if _take_record(r, ordered, by_record, numbers, own):
                    return _gathered(own, ordered, ev, root_positions)
    return _gathered(own, ordered, ev, root_positions)


def _take_record(
    r: Any, ordered: dict[Any, int], by_record: dict[Any, list[int]], numbers: list[Fact], own: list[Fact]
) -> bool:
    """For :func:`_context_facts`: take the record ``r`` unless it is taken (the numbers of its lists, in
    evidence order, onto ``own``); whether ``own`` holds MAX_OPERANDS numbers now (the walk stops)."""
    if r in ordered:
        return False  # taken before, when ``own`` was short of MAX_OPERANDS (or the walk had stopped)
    ordered[r] = len(ordered)
    for i in by_record.get(r, ()):
        if numbers[i].list_path is not None:
            own.append(numbers[i])
    return len(own) >= MAX_OPERANDS


def _gathered(own: list[Fact], ordered: dict[Any, int], ev: Evidence, root: list[int]) -> list[Fact]:
    """For :func:`_context_facts`: the first MAX_OPERANDS of the records' numbers taken (``own``), then of
    their dates and times, then the first MAX_OPERANDS run-level numbers: those outside lists (at ``root``
    in ``ev.numbers``) when a record was taken, any when none was. With MAX_OPERANDS numbers taken, the
    dates and times would be cut off: they are not read."""
    numbers = ev.numbers
    if len(own) < MAX_OPERANDS:
        own += [x for x in ev.datetimes if x.record in ordered]
        own += [x for x in ev.dates if x.record in ordered]
    run_level = [numbers[i] for i in root[:MAX_OPERANDS]] if ordered else numbers[:MAX_OPERANDS]
    return own[:MAX_OPERANDS] + run_level


def _join_names(answer: str, mentions: list[Mention], ev: Evidence) -> list[Mention]:
    # "Hoka Clifton 9", "Room 2A", "LG UltraGear 27GP850-B": a name and the number or code next to it are one
    # name when the evidence has them together.
    out: list[Mention] = []
    for m in mentions:
        prev = out[-1] if out else None
        if (
            prev is not None
            and {prev.kind, m.kind} <= {"entity", "id", "number"}
            and "entity" in {prev.kind, m.kind}
            and answer[prev.end : m.start] == " "
        ):  # fmt: skip
            joined = answer[prev.start : m.end]
            norm = normalize_text(joined)
            if norm and has_words(ev.haystack, norm):
                out[-1] = Mention("entity", prev.start, m.end, joined, strong=True)
                continue
        out.append(m)
    return out
