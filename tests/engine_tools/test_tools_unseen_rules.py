"""Round 3 of issue 17's general rules: a result naming another entity than the one asked for, a
drop judged against real drops (not restocks), a positive field crossing zero for the same
arguments; and the typed summary the service reads (``ToolVerifier.baseline``)."""

import random
from typing import Any

from verification.engine.tools import ToolVerifier, Verdict


def _stock(entity: str, units: float) -> dict[str, Any]:
    return {"sku": entity, "units": units, "warehouse": "north"}


def _warm_lookups(
    engine: ToolVerifier, entities: int = 12, calls: int = 400, seed: int = 3
) -> dict[str, float]:
    """A stock lookup over many entities: it repeats the sku it was asked for; units drain by steps of
    10-40 % and, below 60, restock tenfold. A restock the engine holds back is confirmed by the next
    call, as real traffic does."""
    rng = random.Random(seed)
    units = {f"S{i:03d}": float(rng.randint(200, 900)) for i in range(entities)}
    for _ in range(calls):
        sku = rng.choice(sorted(units))
        restock = units[sku] < 60
        units[sku] = units[sku] * 10 if restock else float(int(units[sku] * rng.uniform(0.6, 0.9)))
        r = engine.verify("stock", {"sku": sku}, _stock(sku, units[sku]), rng.uniform(90, 140))
        if r.verdict is Verdict.BLOCK:
            assert restock, r.explanation
            r = engine.verify("stock", {"sku": sku}, _stock(sku, units[sku]), rng.uniform(90, 140))
            assert r.verdict is not Verdict.BLOCK, r.explanation
    return units


def test_it_blocks_a_result_for_another_entity_than_the_one_asked_for():
    engine = ToolVerifier()
    units = _warm_lookups(engine)
    asked, other = sorted(units)[:2]
    r = engine.verify("stock", {"sku": asked}, _stock(other, units[other]), 110.0)
    assert r.verdict is Verdict.BLOCK
    assert "sku" in r.signals["value_plausibility"].detail


def test_it_flags_but_does_not_block_another_entity_for_arguments_never_seen():
    engine = ToolVerifier()
    units = _warm_lookups(engine)
    r = engine.verify("stock", {"sku": "S999"}, _stock(sorted(units)[0], 300.0), 110.0)
    assert r.verdict is Verdict.FLAG
    assert not r.signals["value_plausibility"].decisive


def test_it_does_not_learn_an_echo_from_a_few_arguments_asked_many_times():
    # Two addresses asked a hundred times each are echoed verbatim; a third comes back extended.
    engine = ToolVerifier()
    for i in range(200):
        address = ("1 Main St", "9 Elm Rd")[i % 2]
        engine.verify("geocode", {"address": address}, {"formatted": address, "lat": 51.5}, 120.0)
    r = engine.verify(
        "geocode", {"address": "3 Oak Ave"}, {"formatted": "3 Oak Ave, Springfield", "lat": 51.4}, 120.0
    )
    assert r.verdict is not Verdict.BLOCK


def test_it_accepts_a_field_that_differs_from_the_argument_as_it_did_before_for_those_arguments():
    engine = ToolVerifier()
    _warm_lookups(engine)
    # These arguments always answer with a normalised sku: their own answer, not another entity.
    for _ in range(3):
        r = engine.verify("stock", {"sku": "s-legacy"}, _stock("S-LEGACY", 500.0), 110.0)
    assert r.verdict is not Verdict.BLOCK


def _drained(engine: ToolVerifier, units: dict[str, float]) -> tuple[str, float]:
    """The fullest sku after one more ordinary drain step (so its last change was no restock)."""
    sku = max(units, key=lambda k: units[k])
    level = float(int(units[sku] * 0.8))
    assert engine.verify("stock", {"sku": sku}, _stock(sku, level), 110.0).verdict is Verdict.ACCEPT
    return sku, level


def test_it_blocks_a_tenfold_drop_where_only_rises_were_tenfold():
    engine = ToolVerifier()
    sku, level = _drained(engine, _warm_lookups(engine))
    r = engine.verify("stock", {"sku": sku}, _stock(sku, round(level / 12, 0)), 110.0)
    assert r.verdict is Verdict.BLOCK
    assert r.signals["historical_inconsistency"].decisive


def test_it_still_does_not_decide_on_a_tenfold_rise_where_restocks_happen():
    engine = ToolVerifier()
    units = _warm_lookups(engine)
    sku = min(units, key=lambda k: units[k])
    r = engine.verify("stock", {"sku": sku}, _stock(sku, units[sku] * 11), 110.0)
    assert not r.signals["historical_inconsistency"].decisive


def test_it_blocks_a_positive_field_turning_negative_far_beyond_its_steps():
    engine = ToolVerifier()
    sku, level = _drained(engine, _warm_lookups(engine))
    r = engine.verify("stock", {"sku": sku}, _stock(sku, -level - 40.0), 110.0)
    assert r.verdict is Verdict.BLOCK
    assert r.signals["value_plausibility"].decisive


def test_it_does_not_decide_on_a_value_crossing_zero_by_an_ordinary_step():
    engine = ToolVerifier()
    rng = random.Random(5)
    level = {f"P{i}": rng.uniform(3.0, 6.0) for i in range(10)}
    for _ in range(300):
        probe = rng.choice(sorted(level))
        level[probe] = max(0.5, level[probe] + rng.uniform(-0.4, 0.4))
        engine.verify("thermo", {"probe": probe}, {"probe": probe, "celsius": round(level[probe], 2)}, 100.0)
    probe = min(level, key=lambda k: level[k])
    value = level[probe]
    while value > 0.35:  # a cold night: down by ordinary steps...
        value = max(0.3, value - 0.3)
        engine.verify("thermo", {"probe": probe}, {"probe": probe, "celsius": round(value, 2)}, 100.0)
    # ...and across zero by one more
    r = engine.verify("thermo", {"probe": probe}, {"probe": probe, "celsius": -0.1}, 100.0)
    assert not r.signals["value_plausibility"].decisive


def test_it_summarises_what_it_learned_about_a_tool_on_natural_scales():
    engine = ToolVerifier()
    assert engine.baseline("stock") is None
    _warm_lookups(engine, calls=40)
    b = engine.baseline("stock")
    assert b is not None
    assert 0 < b.observations <= 40
    assert b.field_counts == dict.fromkeys(("sku", "units", "warehouse"), b.observations)
    assert all(90 <= ms <= 140 for ms in b.latency_ms)
    window, total = b.numeric["/units"]
    assert total == b.observations and all(v > 0 for v in window)
