"""ToolVerifier behaviour: tiers, signals, learning, feedback and hostile input."""

import json
import time
from typing import Any

import pytest

from verification.engine.tools import ResultRejectedError, Tier, ToolVerifier, Verdict

WEATHER: dict[str, Any] = {
    "expected_latency_ms": (80, 8000),
    "required_fields": ["temperature", "humidity"],
    "forbidden_fields": ["mock", "error"],
    "response_patterns": [r'"temperature"\s*:\s*-?\d+(?:\.\d+)?'],
    "min_response_length": 20,
    "max_response_length": 500,
}


def _engine(**kwargs):
    v = ToolVerifier(**kwargs)
    v.register_tool_profile("get_weather", **WEATHER)
    v.register_tool_profile(
        "calculate", expected_latency_ms=(0.005, 50), required_fields=["result"], has_network_io=False
    )
    return v


def _weather(t=18.0, h=65, **extra):
    return {"temperature": t, "humidity": h, "conditions": "Cloudy", **extra}


def test_it_accepts_a_result_that_fits_its_profile():
    r = _engine().verify("get_weather", {"city": "London"}, _weather(), 350.0)
    assert r.verdict is Verdict.ACCEPT
    assert r.tier_reached is Tier.TIER_1
    assert r.confidence == r.posterior < r.prior
    assert not r.is_hallucinated


def test_it_blocks_at_tier_zero_when_a_required_field_is_missing():
    r = _engine().verify("get_weather", {"city": "London"}, {"temperature": 18.0}, 350.0)
    assert r.verdict is Verdict.BLOCK and r.tier_reached is Tier.TIER_0
    assert r.signals["schema_mismatch"].fired and "humidity" in r.signals["schema_mismatch"].detail
    assert "spc_anomaly" not in r.signals  # tier 1 skipped


def test_it_blocks_forbidden_and_unseen_stub_marker_fields():
    v = _engine()
    assert v.verify("get_weather", {"city": "A"}, _weather(mock=True), 300.0).verdict is Verdict.BLOCK
    r = v.verify("get_weather", {"city": "A"}, _weather(_stubbed=True), 300.0)
    assert r.signals["schema_mismatch"].fired and "_stubbed" in r.signals["schema_mismatch"].detail


def test_it_reports_a_pattern_mismatch():
    r = _engine().verify("get_weather", {"city": "A"}, _weather(t="18C"), 300.0)
    assert r.signals["pattern_mismatch"].fired
    assert r.verdict is not Verdict.ACCEPT


def test_it_treats_sub_two_ms_as_impossible_only_for_network_tools():
    v = _engine()
    fast_network = v.verify("get_weather", {"city": "A"}, _weather(), 0.3)
    assert fast_network.signals["latency_anomaly"].decisive and fast_network.verdict is Verdict.BLOCK
    fast_local = v.verify("calculate", {"expression": "1+1"}, {"result": 2}, 0.03)
    assert not fast_local.signals["latency_anomaly"].fired and fast_local.verdict is Verdict.ACCEPT


def test_it_only_weakly_suspects_a_network_call_below_the_profile_minimum():
    r = _engine().verify("get_weather", {"city": "A"}, _weather(), 20.0)  # an HTTP cache hit
    assert r.signals["latency_anomaly"].fired and not r.signals["latency_anomaly"].decisive
    assert r.verdict is not Verdict.BLOCK


def test_it_flags_a_length_beyond_the_profile_and_decides_when_absurd():
    v = _engine()
    slightly = v.verify("get_weather", {"city": "A"}, _weather(notes="x" * 480), 300.0)
    assert slightly.signals["length_anomaly"].fired and not slightly.signals["length_anomaly"].decisive
    absurd = v.verify("get_weather", {"city": "A"}, _weather(notes="x" * 5000), 300.0)
    assert absurd.signals["length_anomaly"].decisive and absurd.verdict is Verdict.BLOCK


def _warm_stock(v, ticker="NVDA", price=650.0, n=60, latency=150.0):
    for i in range(n):
        v.verify(
            "get_stock_price",
            {"ticker": ticker},
            {
                "ticker": ticker,
                "price": round(price * (1 + 0.001 * ((i % 7) - 3)), 2),
                "as_of": f"2024-03-04T10:{i:02d}:00Z",
            },
            latency + (i % 5) * 10,
            session_id=f"warm-{i}",
        )


def test_it_flags_the_seeds_nvda_case_from_history_across_sessions():
    v = ToolVerifier()
    _warm_stock(v)
    r = v.verify(
        "get_stock_price",
        {"ticker": "NVDA"},
        {"ticker": "NVDA", "price": 50.0, "as_of": "2024-03-04T11:30:00Z"},
        160.0,
        session_id="session-123",
    )
    assert r.signals["historical_inconsistency"].fired
    assert "price" in r.signals["historical_inconsistency"].detail
    assert r.verdict is not Verdict.ACCEPT


def test_it_catches_a_fifty_fold_swing_within_a_session():
    v = ToolVerifier()
    v.verify("get_stock_price", {"ticker": "X"}, {"price": 100.0, "as_of": "t1"}, 150.0, session_id="s")
    r = v.verify("get_stock_price", {"ticker": "X"}, {"price": 5000.0, "as_of": "t2"}, 150.0, session_id="s")
    assert r.signals["session_inconsistency"].fired and r.signals["session_inconsistency"].score == 1.0


def test_it_does_not_compare_results_of_different_arguments_in_a_session():
    v = ToolVerifier()
    v.verify("get_stock_price", {"ticker": "A"}, {"price": 10.0}, 150.0, session_id="s")
    r = v.verify("get_stock_price", {"ticker": "B"}, {"price": 5000.0}, 150.0, session_id="s")
    assert not r.signals["session_inconsistency"].fired


def test_it_learns_that_a_pure_function_never_changes_its_answer():
    v = _engine()
    for i in range(60):
        v.verify("calculate", {"expression": f"{i % 6} * 7"}, {"result": (i % 6) * 7}, 0.05)
    r = v.verify("calculate", {"expression": "3 * 7"}, {"result": 24}, 0.05)
    assert r.signals["historical_inconsistency"].decisive
    assert r.verdict is Verdict.BLOCK


def test_it_blocks_a_value_that_changed_while_its_timestamp_did_not():
    v = ToolVerifier()
    for i in range(40):
        v.verify(
            "quote", {"s": "A"}, {"price": 100.0 + i * 0.1, "as_of": f"2024-03-04T10:{i:02d}:00Z"}, 150.0
        )
    r = v.verify("quote", {"s": "A"}, {"price": 140.0, "as_of": "2024-03-04T10:39:00Z"}, 150.0)
    assert r.signals["historical_inconsistency"].decisive
    assert r.verdict is Verdict.BLOCK


def test_it_judges_numbers_against_mean_plus_three_sigma_per_field():
    v = ToolVerifier()
    for i in range(40):
        v.verify("sensor", {"id": i}, {"humidity": 40 + (i * 7) % 50}, 150.0)
    wild = v.verify("sensor", {"id": 999}, {"humidity": 250}, 150.0)
    assert wild.signals["value_plausibility"].fired
    normal = v.verify("sensor", {"id": 998}, {"humidity": 61}, 150.0)
    assert not normal.signals["value_plausibility"].fired


def test_it_does_not_learn_from_blocked_results():
    v = _engine()
    v.verify("get_weather", {"city": "A"}, _weather(), 0.2)  # blocked: impossible latency
    assert v.store.get("tool:get_weather") is None
    v.verify("get_weather", {"city": "A"}, _weather(), 200.0)
    assert v.store.get("tool:get_weather")["n"] == 1


def test_it_moves_prior_and_threshold_with_feedback():
    v = ToolVerifier()
    before = v.tool_adaptation("search_web")
    for _ in range(40):
        after = v.record_feedback("search_web", 0.05, True)  # the engine kept missing hallucinations
    assert after["prior"] > before["prior"]
    assert after["block_threshold"] < before["block_threshold"]
    r = v.verify("search_web", {"q": "x"}, {"results": []}, 300.0)
    assert r.prior == pytest.approx(after["prior"])


def test_it_does_not_move_the_prior_when_feedback_agrees_with_the_engine():
    v = ToolVerifier()
    for i in range(60):
        bad = i % 3 == 0
        v.record_feedback("t", 0.9 if bad else 0.1, bad)
    assert abs(v.tool_adaptation("t")["prior"] - 0.15) < 0.05


def test_it_uses_per_engine_and_per_tool_likelihood_ratios():
    v = ToolVerifier(likelihood_ratios={"schema_mismatch": 2.0})
    v.register_tool_profile("a", required_fields=["x"])
    v.register_tool_profile("b", required_fields=["x"], likelihood_ratios={"schema_mismatch": 50.0})
    ra = v.verify("a", {}, {}, 150.0)
    rb = v.verify("b", {}, {}, 150.0)
    assert ra.signals["schema_mismatch"].likelihood_ratio == 2.0
    assert rb.signals["schema_mismatch"].likelihood_ratio == 50.0
    assert rb.posterior > ra.posterior
    with pytest.raises(ValueError, match="unknown signal"):
        ToolVerifier(likelihood_ratios={"nope": 2.0})


def test_it_serialises_results_to_plain_json():
    r = _engine().verify("get_weather", {"city": "A"}, _weather(), 300.0)
    data = json.loads(json.dumps(r.to_dict()))
    assert data["verdict"] == "accept"
    assert set(data["signals"]) == {
        "schema_mismatch",
        "pattern_mismatch",
        "latency_anomaly",
        "length_anomaly",
        "spc_anomaly",
        "session_inconsistency",
        "historical_inconsistency",
        "value_plausibility",
    }


def test_it_refuses_deeply_nested_results_with_a_clear_error():
    deep: dict = {}
    node = deep
    for _ in range(5000):
        node["a"] = {}
        node = node["a"]
    with pytest.raises(ResultRejectedError, match="nested deeper"):
        ToolVerifier().verify("t", {}, deep, 100.0)


def test_it_refuses_results_beyond_the_size_limit_quickly():
    huge = {"rows": ["x" * 1000] * 20_000}  # 20 MB of text
    start = time.perf_counter()
    with pytest.raises(ResultRejectedError, match="limit"):
        ToolVerifier().verify("t", {}, huge, 100.0)
    assert time.perf_counter() - start < 5.0  # generous bound: refused before serialising


def test_it_refuses_values_that_are_not_json():
    with pytest.raises(ResultRejectedError, match="not JSON"):
        ToolVerifier().verify("t", {}, {"when": object()}, 100.0)
    with pytest.raises(ValueError, match="execution_time_ms"):
        ToolVerifier().verify("t", {}, {}, float("nan"))


def test_it_verifies_text_and_json_text_results():
    v = _engine()
    assert v.verify("get_weather", {"city": "A"}, json.dumps(_weather()), 300.0).verdict is Verdict.ACCEPT
    text = v.verify("get_weather", {"city": "A"}, "It is 18 degrees in London", 300.0)
    assert text.signals["schema_mismatch"].fired and text.verdict is Verdict.BLOCK


def test_it_keeps_state_bounded_for_wide_results():
    v = ToolVerifier()
    wide = {f"k{i}": i for i in range(5000)}
    v.verify("t", {}, wide, 100.0)
    ts = v.store.get("tool:t")
    assert len(ts["num"]) <= v.limits.max_leaves
    assert len(v.store.get(f"args:t:{next(k for k in [_args_key(v)])}")["last"]) <= v.limits.max_leaves


def _args_key(v):
    from verification.engine.tools.engine import _args_hash

    return _args_hash({}, v.limits)


def test_it_learns_that_an_unprofiled_tool_is_local_from_its_own_latencies():
    v = ToolVerifier()
    first = v.verify("tokenize", {"text": "a"}, {"tokens": 1}, 0.05)
    assert first.signals["latency_anomaly"].fired and not first.signals["latency_anomaly"].decisive
    for i in range(30):
        v.verify("tokenize", {"text": str(i)}, {"tokens": i}, 0.05 + i * 0.001)
    later = v.verify("tokenize", {"text": "b"}, {"tokens": 2}, 0.04)
    assert not later.signals["latency_anomaly"].fired
    assert later.verdict is Verdict.ACCEPT


def test_it_decides_on_sub_floor_latency_once_an_unprofiled_tool_shows_network_io():
    v = ToolVerifier()
    for i in range(30):
        v.verify("fetch", {"u": str(i % 5)}, {"status": 200}, 120.0 + i)
    r = v.verify("fetch", {"u": "1"}, {"status": 200}, 0.1)
    assert r.signals["latency_anomaly"].decisive and r.verdict is Verdict.BLOCK


def test_it_flattens_a_repeated_result_once_and_judges_it_alike():
    v = _engine()
    first = v.verify("get_weather", {"city": "A"}, _weather(), 300.0)
    again = v.verify("get_weather", {"city": "B"}, json.dumps(_weather()), 300.0)  # the same JSON text
    assert len(v._inspect_cache) == 1
    assert again.verdict is first.verdict
    assert {k: s.fired for k, s in again.signals.items()} == {k: s.fired for k, s in first.signals.items()}


def test_it_reports_the_same_posterior_as_one_fusion_of_every_signal():
    from verification.engine.tools.fusion import fuse
    from verification.engine.tools.result import VerificationResult, explain

    v = _engine()
    _warm_stock(v)
    for r in (
        v.verify("get_weather", {"city": "A"}, _weather(), 300.0),
        v.verify("get_weather", {"city": "A"}, {"temperature": 18.0}, 350.0),  # blocked at tier 0
        v.verify("get_stock_price", {"ticker": "NVDA"}, {"ticker": "NVDA", "price": 50.0}, 160.0),
    ):
        assert isinstance(r, VerificationResult)
        assert r.posterior == fuse(r.prior, r.signals.values())  # bit-identical, not approximately
        assert r.explanation == explain(r.verdict, r.signals, r.prior, r.posterior, r.tier_reached)
        assert r.to_dict()["explanation"] == r.explanation


def test_it_still_flags_a_latency_spike_after_an_earlier_one_was_accepted():
    # Issue 17: an accepted spike learned at full weight widened a young latency baseline until the
    # next identical spike no longer broke the 3-sigma rule. It now enters at the 3-sigma limit.
    engine = ToolVerifier()
    for i, ms in enumerate((100.0, 110.0, 95.0, 105.0, 98.0, 102.0, 107.0, 93.0)):
        engine.verify("lookup_item", {"id": i}, {"id": i, "name": f"item {i}"}, ms)
    first = engine.verify("lookup_item", {"id": 100}, {"id": 100, "name": "item 100"}, 3000.0)
    assert first.signals["spc_anomaly"].fired and first.verdict is not Verdict.BLOCK
    engine.verify("lookup_item", {"id": 101}, {"id": 101, "name": "item 101"}, 101.0)
    second = engine.verify("lookup_item", {"id": 102}, {"id": 102, "name": "item 102"}, 3000.0)
    assert second.signals["spc_anomaly"].fired
    assert "latency rules [1" in second.signals["spc_anomaly"].detail
