import datetime as dt

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.engine_runs.runs_helpers import make_run
from verification.engine.runs import verify_run

MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=-400, max_value=450).map(lambda x: x / 10))
def test_it_accepts_any_correct_fahrenheit_conversion(celsius):
    fahrenheit = round(celsius * 9 / 5 + 32)
    r = verify_run(make_run("Temperature?", [{"temperature_c": celsius}], f"It is about {fahrenheit}°F."))
    assert not r.hallucination_detected


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=-40, max_value=45), st.integers(min_value=3, max_value=30))
def test_it_rejects_temperatures_off_by_more_than_rounding(celsius, delta):
    r = verify_run(make_run("Temperature?", [{"temperature_c": celsius}], f"It is {celsius + delta}°C."))
    assert [c.label for c in r.flagged_claims] == ["CONTRADICTED"]


@settings(max_examples=40, deadline=None)
@given(st.dates(min_value=dt.date(1990, 1, 1), max_value=dt.date(2035, 12, 31)), st.integers(1, 27))
def test_it_matches_reformatted_dates_and_rejects_shifted_ones(day, shift):
    result = {"date": day.isoformat()}
    same = f"It is on {MONTHS[day.month - 1]} {day.day}, {day.year}."
    assert not verify_run(make_run("When?", [result], same)).hallucination_detected
    other = day + dt.timedelta(days=shift)
    wrong = f"It is on {MONTHS[other.month - 1]} {other.day}, {other.year}."
    assert verify_run(make_run("When?", [result], wrong)).hallucination_detected


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=1000, max_value=10**9))
def test_it_reads_grouped_money_amounts(cents):
    amount = cents / 100
    result = {"balance": {"amount": amount, "currency": "USD"}}
    r = verify_run(make_run("Balance?", [result], f"Your balance is ${amount:,.2f}."))
    assert not r.hallucination_detected
    r = verify_run(make_run("Balance?", [result], f"Your balance is ${amount * 10:,.2f}."))
    assert r.hallucination_detected
