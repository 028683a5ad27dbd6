"""Arithmetic on evidence values respects what the values measure.

A stated value with a unit is only taken as a sum or difference of evidence values of the same kind of
quantity (a temperature of temperatures, a speed of speeds), and an amount of money never as a sum with a
physical quantity. Before, any two numbers of the results whose difference matched a stated value
"supported" it: a made-up temperature that happened to be the wind speed minus the temperature passed.
"""

from __future__ import annotations

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from tests.engine_runs.runs_helpers import make_run
from verification.engine.runs import verify_run
from verification.engine.runs.mentions import Mention
from verification.engine.runs.numeric import derive, may_add, may_multiply

WEATHER_Q = "How is the weather in Tallinn right now?"


def _labels(report):
    return {c.text: (c.label, c.reason) for c in report.claims}


def test_it_flags_a_temperature_that_is_the_wind_minus_the_temperature():
    result = {"city": "Tallinn", "temperature_c": 9, "condition": "overcast", "wind_kmh": 31}
    answer = "In Tallinn it is 22°C and overcast, with wind at 31 km/h."  # 31 - 9 = 22
    r = verify_run(make_run(WEATHER_Q, [result], answer, tool="get_weather"))
    assert r.hallucination_detected
    assert [c.text for c in r.flagged_claims] == ["22°C"]


def test_it_flags_a_wind_speed_that_is_the_wind_plus_the_temperature():
    result = {"city": "Tallinn", "temperature_c": 12, "condition": "fog", "wind_kmh": 20}
    answer = "Tallinn has fog at 12°C and the wind blows at 32 km/h."  # 20 + 12 = 32
    r = verify_run(make_run(WEATHER_Q, [result], answer, tool="get_weather"))
    assert [c.text for c in r.flagged_claims] == ["32 km/h"]


def test_it_still_derives_a_temperature_swing_from_two_temperatures():
    result = {"city": "Tallinn", "high_c": 19, "low_c": 8, "wind_kmh": 40}
    answer = "Today's high is 19°C and the low is 8°C, a swing of 11°C."
    r = verify_run(make_run(WEATHER_Q, [result], answer, tool="get_weather"))
    assert not r.hallucination_detected
    assert _labels(r)["11°C"] == ("SUPPORTED", "difference")


def test_it_still_adds_distances_given_in_different_units():
    result = {"first_leg_km": 12, "second_leg_m": 3000, "elevation_gain_m": 450}
    answer = "The first leg is 12 km and the second 3000 m, 15 km in all."
    r = verify_run(make_run("How long is the route?", [result], answer, tool="get_route"))
    assert not r.hallucination_detected
    assert _labels(r)["15 km"] == ("SUPPORTED", "sum")


def test_it_flags_a_price_that_is_the_fare_plus_a_temperature():
    result = {"route": "Leeds to York", "fare": 18, "temperature_c": 7}
    answer = "The ticket from Leeds to York costs $25."  # 18 + 7 = 25
    r = verify_run(make_run("How much is the ticket?", [result], answer, tool="get_fare"))
    assert [c.text for c in r.flagged_claims] == ["$25"]


def test_it_still_prices_a_distance_at_a_rate():
    result = {"rate_per_km": 2.5, "distance_km": 12}
    answer = "The ride of 12 km will cost $30."
    r = verify_run(make_run("What will the taxi cost?", [result], answer, tool="quote"))
    assert not r.hallucination_detected
    assert _labels(r)["$30"] == ("SUPPORTED", "product")


def test_it_allows_sums_only_of_the_same_kind_of_quantity():
    temp = Mention("quantity", 0, 4, "20°C", value=20.0, unit="degC")
    price = Mention("money", 0, 3, "$20", value=20.0)
    assert may_add(temp, "degF") and not may_add(temp, "km/hour") and not may_add(temp, None)
    assert may_add(price, None) and not may_add(price, "degC") and not may_add(price, "km")
    assert may_multiply(price, "km") and not may_multiply(price, "degC")


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=2, max_value=500), st.integers(min_value=2, max_value=500))
def test_it_derives_a_physical_sum_only_from_terms_of_its_kind(a, b):
    assume(a != b)
    stated = Mention("quantity", 0, 6, f"{a + b} km", value=float(a + b), unit="km")
    assert derive(stated, [a, b], False, True) == "sum"
    assert derive(stated, [a, b], False, True, addends=[]) == ""
    assert derive(stated, [a, b], False, True, addends=[a]) == ""


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=2, max_value=300), st.integers(min_value=2, max_value=300))
def test_it_keeps_products_of_money_when_sums_are_closed_to_other_kinds(rate, units):
    assume(rate != units)
    stated = Mention("money", 0, 6, f"${rate * units}", value=float(rate * units))
    assert derive(stated, [rate, units], False, False, addends=[]) == "product"
