"""General rules for the weak kinds on tools without a profile (issue 17): learned schema, test-double
markers on any tool, decisive order-of-magnitude jumps, and the shipped calibration map."""

import random
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from verification.engine.tools import ToolVerifier, Verdict
from verification.engine.tools.confidence import DEFAULT_KNOTS, TableCalibrator, default_calibrator


def _quote(entity: str, price: float, **extra: Any) -> dict[str, Any]:
    return {"id": entity, "price": price, "currency": "EUR", **extra}


def _warm(engine: ToolVerifier, calls: int = 120, seed: int = 7) -> dict[str, float]:
    """Feed an unprofiled quote tool ordinary traffic: 12 entities, prices drifting by < 1 % a call."""
    rng = random.Random(seed)
    prices = {f"E{i}": 10.0 * (i + 1) for i in range(12)}
    for _ in range(calls):
        entity = rng.choice(sorted(prices))
        prices[entity] = round(prices[entity] * (1 + rng.uniform(-0.008, 0.008)), 2)
        r = engine.verify("quote", {"id": entity}, _quote(entity, prices[entity]), rng.uniform(80, 160))
        assert r.verdict is not Verdict.BLOCK, r.explanation
    return prices


def test_it_blocks_a_habitual_field_missing_on_an_unprofiled_tool():
    engine = ToolVerifier()
    _warm(engine)
    r = engine.verify("quote", {"id": "E1"}, {"id": "E1", "currency": "EUR"}, 120.0)
    assert r.verdict is Verdict.BLOCK
    assert "price" in r.signals["schema_mismatch"].detail


def test_it_does_not_treat_a_field_as_habitual_before_twenty_results():
    engine = ToolVerifier()
    _warm(engine, calls=15)
    r = engine.verify("quote", {"id": "E1"}, {"id": "E1", "currency": "EUR"}, 120.0)
    assert not r.signals["schema_mismatch"].fired


def test_it_does_not_use_the_warm_up_rule_for_arguments_never_seen():
    engine = ToolVerifier()
    _warm(engine, calls=30)
    r = engine.verify("quote", {"id": "NEW"}, {"id": "NEW", "currency": "EUR"}, 120.0)
    assert not r.signals["schema_mismatch"].fired


def test_it_blocks_a_field_the_same_arguments_just_returned_after_a_short_warm_up():
    # 30 results: too few for the 99 %-of-50 rule, enough for the same arguments' own history.
    engine = ToolVerifier()
    _warm(engine, calls=30)
    engine.verify("quote", {"id": "E1"}, _quote("E1", 20.0), 120.0)
    r = engine.verify("quote", {"id": "E1"}, {"id": "E1", "currency": "EUR"}, 120.0)
    assert r.verdict is Verdict.BLOCK
    assert "price" in r.signals["schema_mismatch"].detail


def test_it_still_blocks_a_missing_field_after_early_fabrications_slipped_through():
    # Accepted results without the field lower its presence below 99 % for good; the same arguments
    # dropping it is evidence those results do not take away.
    engine = ToolVerifier()
    rng = random.Random(5)
    for i in range(200):
        entity = f"E{rng.randrange(6)}"
        result = _quote(entity, 10.0 + rng.uniform(-0.05, 0.05))
        if i in (3, 9, 14):
            del result["price"]
        engine.verify("quote", {"id": entity}, result, 100.0)
    engine.verify("quote", {"id": "E1"}, _quote("E1", 10.0), 100.0)
    r = engine.verify("quote", {"id": "E1"}, {"id": "E1", "currency": "EUR"}, 100.0)
    assert r.verdict is Verdict.BLOCK


def test_it_does_not_block_a_field_that_comes_and_goes_for_the_same_arguments():
    # Present in 92 % of the results but dropped between two calls for the same arguments: optional.
    engine = ToolVerifier()
    rng = random.Random(11)
    for _ in range(200):
        entity = f"E{rng.randrange(4)}"
        extra = {"bid": 9.9} if rng.random() < 0.92 else {}
        engine.verify("quote", {"id": entity}, _quote(entity, 10.0, **extra), 100.0)
    engine.verify("quote", {"id": "E1"}, _quote("E1", 10.0, bid=9.9), 100.0)
    r = engine.verify("quote", {"id": "E1"}, _quote("E1", 10.0), 100.0)
    assert not r.signals["schema_mismatch"].fired


def test_it_does_not_block_an_optional_field_missing():
    engine = ToolVerifier()
    rng = random.Random(3)
    for i in range(150):
        result = _quote("E1", 10.0 + rng.uniform(-0.05, 0.05))
        if i % 10 == 0:
            result["note"] = "dividend"  # present in a tenth of the results: optional
        engine.verify("quote", {"id": "E1"}, result, 100.0)
    r = engine.verify("quote", {"id": "E1"}, _quote("E1", 10.0), 100.0)
    assert not r.signals["schema_mismatch"].fired


@pytest.mark.parametrize(
    "extra",
    [{"error": True}, {"status": "sample"}, {"mock": True}, {"is_fake": True}],
)
def test_it_blocks_test_double_markers_on_an_unprofiled_tool(extra: dict[str, Any]):
    engine = ToolVerifier()
    prices = _warm(engine)
    result = _quote("E2", prices["E2"], **extra)
    if "status" in extra:
        result = {**_quote("E2", prices["E2"]), "currency": "sample"}
    r = engine.verify("quote", {"id": "E2"}, result, 120.0)
    assert r.verdict is Verdict.BLOCK, r.explanation
    assert r.signals["schema_mismatch"].fired


def test_it_accepts_a_falsy_error_field_and_placeholder_words_the_tool_always_returns():
    engine = ToolVerifier()
    for i in range(60):
        engine.verify("t", {"i": i % 5}, {"v": i % 5, "kind": "sample"}, 100.0)
    assert (
        not engine.verify("t", {"i": 1}, {"v": 1, "kind": "sample"}, 100.0).signals["schema_mismatch"].fired
    )
    r = engine.verify("quote", {"id": "E1"}, _quote("E1", 10.0, error=None), 100.0)
    assert not r.signals["schema_mismatch"].fired


@pytest.mark.parametrize("factor", [10.0, 0.1, 25.0, 1 / 30])
def test_it_blocks_an_order_of_magnitude_jump_for_the_same_arguments(factor: float):
    engine = ToolVerifier()
    prices = _warm(engine, calls=200)
    # Normal latency, no session, fields all present: only the jump says the value is invented.
    r = engine.verify("quote", {"id": "E3"}, _quote("E3", round(prices["E3"] * factor, 2)), 120.0)
    assert r.verdict is Verdict.BLOCK, r.explanation
    assert r.signals["historical_inconsistency"].decisive


def test_it_does_not_decide_on_a_jump_where_real_jumps_happen():
    # A counter that drains and is restocked: 10x moves are part of its real history.
    engine = ToolVerifier()
    rng = random.Random(5)
    stock = {f"S{i}": 1000.0 for i in range(6)}
    for _ in range(300):
        key = rng.choice(sorted(stock))
        stock[key] = max(0.0, stock[key] - rng.uniform(20, 200))
        if stock[key] < 80:
            stock[key] = 1000.0
        engine.verify("stock", {"id": key}, {"id": key, "stock": float(int(stock[key]))}, 90.0)
    key = "S1"
    r = engine.verify("stock", {"id": key}, {"id": key, "stock": float(int(stock[key] * 10) + 7)}, 90.0)
    assert not r.signals["historical_inconsistency"].decisive


def test_it_accepts_a_jump_the_next_call_confirms():
    engine = ToolVerifier()
    prices = _warm(engine, calls=200)
    split = _quote("E4", round(prices["E4"] / 10, 2))  # a ten-for-one split
    assert engine.verify("quote", {"id": "E4"}, split, 120.0).verdict is Verdict.BLOCK
    assert engine.verify("quote", {"id": "E4"}, split, 120.0).verdict is not Verdict.BLOCK


def test_it_reports_a_calibrated_confidence_by_default():
    engine = ToolVerifier()
    r = engine.verify("quote", {"id": "E1"}, _quote("E1", 10.0), 100.0)
    assert r.extra["calibrated_confidence"] == pytest.approx(default_calibrator().predict(r.posterior))
    assert r.confidence == r.posterior
    assert "calibrated_confidence" not in ToolVerifier(calibrator=None).verify("q", {}, {"a": 1}, 9.0).extra


@given(st.floats(0.0, 1.0), st.floats(0.0, 1.0))
def test_it_maps_posteriors_monotonically_into_probabilities(a: float, b: float):
    cal = default_calibrator()
    lo, hi = sorted((a, b))
    assert 0.0 <= cal.predict(lo) <= cal.predict(hi) <= 1.0


def test_it_refuses_knots_that_are_not_a_monotone_probability_map():
    with pytest.raises(ValueError):
        TableCalibrator([(0.0, 0.5), (0.5, 0.2)])
    with pytest.raises(ValueError):
        TableCalibrator([(0.5, 0.1), (0.5, 0.2)])
    with pytest.raises(ValueError):
        TableCalibrator([(0.0, 0.1)])
    assert TableCalibrator(DEFAULT_KNOTS).knots()[0][0] == 0.0


def test_it_fits_the_shipped_calibration_on_development_seeds_only():
    from verification.engine.eval.tool_streams import CALIBRATION_SEEDS, DEV_SEEDS, HELDOUT_SEEDS

    assert set(DEV_SEEDS) <= set(CALIBRATION_SEEDS)
    assert not set(CALIBRATION_SEEDS) & set(HELDOUT_SEEDS)


def test_it_reads_a_fraction_in_a_whole_number_field_as_a_type_change():
    engine = ToolVerifier()
    for i in range(60):
        engine.verify("stock", {"id": i % 6}, {"id": i % 6, "stock": float(500 - i)}, 90.0)
    r = engine.verify("stock", {"id": 9}, {"id": 9, "stock": 431.37}, 90.0)
    assert r.signals["spc_anomaly"].fired
    assert "field type changed" in r.signals["spc_anomaly"].detail


def test_it_blocks_a_value_beyond_the_learned_bounds_by_their_whole_width():
    engine = ToolVerifier()
    rng = random.Random(11)
    for i in range(150):
        key = i % 12
        engine.verify("meter", {"id": key}, {"id": key, "pct": round(50 + rng.gauss(0, 12), 1)}, 90.0)
    r = engine.verify("meter", {"id": 3}, {"id": 3, "pct": 361.7}, 90.0)
    assert r.verdict is Verdict.BLOCK, r.explanation
    assert r.signals["value_plausibility"].decisive
    # The same value for arguments never seen may be a new entity of another scale: not decisive.
    fresh = engine.verify("meter", {"id": 99}, {"id": 99, "pct": 361.7}, 90.0)
    assert not fresh.signals["value_plausibility"].decisive


def test_it_learns_a_flagged_change_once_the_next_call_confirms_it():
    engine = ToolVerifier()
    clock = 0

    def call(key: int, balance: float) -> Verdict:
        nonlocal clock
        clock += 1
        stamp = f"2025-01-01T{clock // 3600:02d}:{clock // 60 % 60:02d}:{clock % 60:02d}Z"
        result = {"id": key, "balance": balance, "as_of": stamp}
        return engine.verify("ledger", {"id": key}, result, 90.0).verdict

    for i in range(80):  # the timestamp changes every call, the balance never: it looks fixed
        call(i % 4, 100.0 + i % 4)
    assert call(1, 99.0) is Verdict.FLAG  # a "fixed attribute" changed
    call(1, 99.0)  # the next call confirms it
    learned = engine.store.get("tool:ledger")["chg"]["/balance"]["chg"]
    assert learned == 1
