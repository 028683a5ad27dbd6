"""Half-up rounding and clamping: exact decimal semantics despite binary floats."""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from adapters.numbers import clamp, round_half_up, round_half_up_array

finite_scores = st.floats(min_value=-1000.0, max_value=1000.0, allow_nan=False)


def test_it_rounds_the_product_from_the_240_checks_vector_up() -> None:
    # 0.9 * 0.85 * 1 * 0.75 * 100 is 57.375 exactly in decimals but not in binary.
    assert round_half_up(0.9 * 0.85 * 1.0 * 0.75 * 100.0) == 57.38


@pytest.mark.parametrize(
    ("value", "places", "expected"),
    [
        (1.005, 2, 1.01),
        (2.675, 2, 2.68),
        (0.125, 2, 0.13),
        (-0.125, 2, -0.12),
        (0.99995, 4, 1.0),
        (2.5, 0, 3.0),
    ],
)
def test_it_rounds_decimal_ties_up(value: float, places: int, expected: float) -> None:
    assert round_half_up(value, places) == expected


@given(st.integers(0, 1_000_000), st.integers(0, 4))
def test_it_rounds_every_exact_half_up(units: int, places: int) -> None:
    # A decimal tie written as text: units + 0.5 in the last kept place.  Scores are
    # never negative (they are clamped first), where Decimal's HALF_UP goes away from
    # zero and floor(x + 0.5) towards +infinity.
    text = f"{Decimal(units) / Decimal(10**places) + Decimal(5) / Decimal(10 ** (places + 1))}"
    expected = float(Decimal(text).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP))
    assert round_half_up(float(text), places) == expected


@given(st.integers(0, 10_000_000), st.integers(0, 4))
def test_it_agrees_with_decimal_half_up_on_decimal_inputs(millionths: int, places: int) -> None:
    text = str(Decimal(millionths) / Decimal(100_000))  # values up to 100 with 5 decimals
    expected = float(Decimal(text).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP))
    assert round_half_up(float(text), places) == expected


@given(finite_scores, st.integers(0, 4))
def test_it_is_idempotent_and_close(value: float, places: int) -> None:
    once = round_half_up(value, places)
    assert round_half_up(once, places) == once
    assert abs(once - value) <= 0.5 * 10**-places + 1e-9


@given(st.lists(finite_scores, max_size=50), st.integers(0, 4))
def test_it_rounds_arrays_exactly_like_scalars(values: list[float], places: int) -> None:
    got = round_half_up_array(np.array(values, dtype=np.float64), places)
    assert got.tolist() == [round_half_up(v, places) for v in values]


@given(finite_scores)
def test_it_clamps_into_the_score_range(value: float) -> None:
    assert 0.0 <= clamp(value) <= 100.0
    assert clamp(value) == value or value < 0 or value > 100


def test_it_refuses_nan_and_infinity() -> None:
    with pytest.raises(ValueError, match="NaN"):
        clamp(math.nan)
    with pytest.raises(ValueError, match="finite"):
        round_half_up(math.inf)
    with pytest.raises(ValueError, match="places"):
        round_half_up(1.0, places=9)
