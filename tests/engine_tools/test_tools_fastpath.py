"""The verifier's hot path gives exactly the results of the reference pipeline it replaces.

The engine screens each check (running it in full only when it may fire), adds evidence signal by
signal, classifies leaves inside the walk and short-cuts the Western Electric rules within 1σ. Each
test here runs the straightforward version beside the fast one and asks for identical output.
"""

from __future__ import annotations

import gc
import json
import math
import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.engine_tools.tools_support import json_values
from verification.engine.store import MemoryStore
from verification.engine.tools import ToolVerifier, Verdict, VerificationResult, adaptive
from verification.engine.tools.baseline import count_floor, count_gone, hold_pending, new_tool_state
from verification.engine.tools.features import Limits, _feats, _flatten, inspect_result
from verification.engine.tools.fusion import add_evidence, prior_log_odds, probability, verdict_for
from verification.engine.tools.result import Tier, new_result
from verification.engine.tools.stats import RULE_WEIGHTS, new_stats, push, western_electric
from verification.engine.tools.tier0 import (
    NETWORK_FLOOR_MS,
    check_latency,
    check_length,
    check_pattern,
    check_schema,
    habitual_missing,
    log_size,
)
from verification.engine.tools.tier1 import check_history, check_plausibility, check_session, check_spc


class ReferenceVerifier(ToolVerifier):
    """The verification as it was written before the hot path: every check in full, fused at once."""

    def _verify(
        self, tool: str, args_hash: str, ins: Any, ms: float, session_id: str | None, echo: Any = ()
    ) -> Any:
        tool_key, args_key, fb_key = f"tool:{tool}", f"args:{tool}:{args_hash}", f"fb:{tool}"
        keys = [tool_key, args_key, fb_key, f"meta:{tool}"] + ([f"sess:{session_id}"] if session_id else [])
        values = self.store.get_many(keys)
        ts, args_state, fb, stored = values[0], values[1], values[2], values[3]
        session_state = values[4] if session_id else None
        registered = stored is not None
        plan = self._resolve_meta(tool, stored)
        profile, lrs = plan.profile, plan.lrs
        prior = adaptive.adapted_prior(fb, self.prior)
        threshold = adaptive.adapted_threshold(fb, self.block_threshold)
        decisive_lr = lrs["decisive"]
        reference = None
        if args_state is not None:
            reference = args_state["last"] if args_state.get("ok", True) else args_state.get("good")
        tier0 = (
            check_schema(profile, ins, ts, lrs["schema_mismatch"], habitual_missing(ts, ins, reference)),
            check_pattern(profile, ins, self.limits.max_pattern_chars, lrs["pattern_mismatch"]),
            check_latency(
                profile, ms, lrs["latency_anomaly"], decisive_lr, registered=registered, tool_state=ts
            ),
            check_length(profile, ins.size, ts, lrs["length_anomaly"], decisive_lr),
        )
        log_odds = add_evidence(prior_log_odds(prior), tier0)
        posterior = probability(log_odds)
        log_latency = math.log10(max(ms, 1e-3))
        size_log = log_size(ins.size)
        s_history = None
        signals = {s.name: s for s in tier0}
        if posterior >= threshold:
            tier = Tier.TIER_0
        else:
            tier = Tier.TIER_1
            last = args_state["last"] if args_state else None
            tier1 = (
                check_spc(ts, ins, log_latency, size_log, lrs["spc_anomaly"]),
                check_session(ts, session_state, tool, args_hash, ins, lrs["session_inconsistency"]),
                check_history(ts, args_state, ins, lrs["historical_inconsistency"], decisive_lr),
                check_plausibility(ts, ins, lrs["value_plausibility"], decisive_lr, last, echo),
            )
            s_history = tier1[2]
            signals.update({s.name: s for s in tier1})
            posterior = probability(add_evidence(log_odds, tier1))
        verdict = verdict_for(posterior, min(self.accept_threshold, threshold), threshold)
        updates: dict[str, Any] = {}
        if not registered and profile.has_network_io:
            fast = ms < NETWORK_FLOOR_MS
            updates[tool_key] = lambda s: count_floor(s or new_tool_state(), fast)
        learned = verdict is Verdict.ACCEPT or (verdict is Verdict.FLAG and self.learn_flagged != "none")
        if not (learned and (verdict is Verdict.ACCEPT or self.learn_flagged == "all")) and reference and ts:
            floor = updates.get(tool_key)
            updates[tool_key] = lambda s: count_gone(
                floor(s) if floor else s or new_tool_state(), ins, reference
            )
        if learned:
            self._learn(
                updates,
                tool_key,
                args_key,
                session_id,
                tool,
                args_hash,
                ins,
                log_latency,
                size_log,
                args_state,
                tool_level=verdict is Verdict.ACCEPT or self.learn_flagged == "all",
                echo=echo,
            )
        elif args_state is not None and s_history is not None and s_history.fired:
            leaves = ins.leaves
            updates[args_key] = lambda s: hold_pending(s, leaves)
        if updates:
            self.store.update_many(updates)
        extra = (
            {} if self.calibrator is None else {"calibrated_confidence": self.calibrator.predict(posterior)}
        )
        return new_result(verdict, posterior, signals, tier, prior, tool, threshold, extra)


def _outcome(r: VerificationResult) -> Any:
    return (
        r.verdict,
        r.confidence.hex(),
        int(r.tier_reached),
        r.prior,
        r.block_threshold,
        [
            (k, s.fired, s.score, s.likelihood_ratio, s.detail, s.tier, s.decisive)
            for k, s in r.signals.items()
        ],
        r.explanation,
    )


def _replay(engine: ToolVerifier, calls: list[tuple[Any, ...]]) -> list[Any]:
    engine.register_tool_profile(
        "weather",
        expected_latency_ms=(80, 8000),
        required_fields=["temperature"],
        forbidden_fields=["mock"],
        response_patterns=[r'"temperature"\s*:\s*-?\d'],
        min_response_length=20,
        max_response_length=400,
    )
    engine.register_tool_profile("calc", expected_latency_ms=(0.01, 50), has_network_io=False)
    engine.register_tool_profile("db", expected_latency_ms=(0.5, 3000), min_response_length=10)
    out = []
    for i, (tool, args, result, ms, session) in enumerate(calls):
        try:
            r = engine.verify(tool, args, result, ms, session)
        except ValueError as exc:
            out.append(("rejected", str(exc)))
            continue
        out.append(_outcome(r))
        if i % 7 == 3:
            engine.record_feedback(tool, r.confidence, r.verdict is Verdict.BLOCK)
    return out


def _drifting_stream(seed: int, n: int) -> list[tuple[Any, ...]]:
    """A stream that exercises every signal: learned baselines, repeats, drift, stubs and odd latencies."""
    rnd = random.Random(seed)
    calls: list[tuple[Any, ...]] = []
    for i in range(n):
        tool = rnd.choice(["weather", "calc", "news", "news", "db"])
        key = rnd.randrange(4)
        level = 10.0 + 5 * key + (i // 40) + rnd.choice([0.0, 0.0, 0.5, -0.5])
        if tool == "weather":
            as_of = f"2024-03-0{1 + key}T10:00"
            result: Any = {"temperature": round(level, 1), "humidity": 40 + key, "as_of": as_of}
        elif tool == "calc":
            result = {"result": key * 7 + (i // 50), "expr": f"{key}*7"}
        elif tool == "db":
            result = {"rows": [[key, level]] * (1 + key), "row_count": 1 + key, "ok": True}
        else:
            items = [{"title": f"t{(i // 9 + j) % 6}", "score": j + key} for j in range(rnd.randrange(1, 7))]
            result = {"articles": items, "count": len(items), "topic": f"k{key}"}
        r = rnd.random()
        if r < 0.04 and isinstance(result, dict):
            result["mock"] = True
        elif r < 0.08 and isinstance(result, dict) and i > 250:
            result.pop(rnd.choice(sorted(result)))  # a habitual field vanishes
        elif r < 0.12 and isinstance(result, dict):
            k = next(iter(result))
            if isinstance(result[k], int | float):
                result[k] = result[k] * rnd.choice([10, -1, 50, 0.02])
        elif r < 0.14:
            result = json.dumps(result)
        ms = rnd.choice([0.4, 1.5, 3.0, 60.0, 150.0, 300.0, 900.0, 12000.0, rnd.uniform(100, 400), 200.0])
        session = rnd.choice([None, "s1", "s2"])
        calls.append((tool, {"k": key}, result, ms, session))
    return calls


def test_it_screens_and_fuses_exactly_as_the_full_checks_do():
    for seed in range(3):
        calls = _drifting_stream(seed, 700)
        fast, ref = ToolVerifier(store=MemoryStore()), ReferenceVerifier(store=MemoryStore())
        assert _replay(fast, calls) == _replay(ref, calls)
        # Everything learned is the same too (cached envelopes aside, which only the full checks fill).
        assert _strip(fast.store._data) == _strip(ref.store._data)  # type: ignore[attr-defined]


def _strip(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if k != "env"}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["weather", "calc", "other", "db"]),
            st.integers(0, 2),
            json_values(),
            st.sampled_from([0.0, 0.5, 1.5, 2.0, 40.0, 120.0, 5000.0, 50000.0]),
            st.sampled_from([None, "s"]),
        ),
        min_size=1,
        max_size=25,
    )
)
def test_it_gives_the_reference_results_on_any_json(calls):
    stream = [(tool, {"k": k}, result, ms, session) for tool, k, result, ms, session in calls]
    assert _replay(ToolVerifier(), stream) == _replay(ReferenceVerifier(), stream)


@settings(max_examples=150, deadline=None)
@given(json_values())
def test_it_classifies_every_leaf_in_the_walk_as_the_reference_does(value):
    try:
        leaves, _, walked, _ = _flatten(value, Limits(max_leaves=24))
    except ValueError:
        return  # refused (too deep, too many values): nothing was classified
    if walked is not None:
        assert tuple(walked) == _feats(leaves)


def test_it_leaves_colliding_paths_and_huge_integers_to_the_reference_classification():
    leaves, _, walked, _ = _flatten({"a": [1, 2], "a/#": 7}, Limits())
    assert walked is None and inspect_result({"a": [1, 2], "a/#": 7}).feats == _feats(leaves)
    _, _, walked, _ = _flatten({"n": 10**400}, Limits())
    assert walked is None


def test_it_leaves_no_reference_cycles_behind():
    engine = ToolVerifier()
    gc.collect()
    gc.disable()
    try:
        for i in range(50):
            engine.verify("t", {"k": i % 3}, {"rows": [{"v": i, "name": "x" * 80}], "n": 1}, 120.0, "s")
        found = gc.collect()
    finally:
        gc.enable()
    # Garbage in cycles waits for the cyclic collector, whose runs every later verification pays for.
    assert found == 0, f"{found} objects in reference cycles"


def _reference_western_electric(rs: Any, x: float, min_sigma: float) -> tuple[float, list[int]]:
    n = rs["n"]
    if n < 8:
        return 0.0, []
    sd = math.sqrt(rs["m2"] / (n - 1)) if n > 1 else 0.0
    sigma = max(sd, min_sigma)
    if sigma <= 0.0:
        return 0.0, []
    mean, buf = rs["mean"], rs["buf"]
    z = (x - mean) / sigma
    side = 1.0 if z > 0 else -1.0
    sz = side * z
    k = len(buf)
    fired: list[int] = []
    if abs(z) > 3.0:
        fired.append(1)
    if sz > 2.0 and 1 + sum(1 for v in buf[max(k - 2, 0) :] if side * ((v - mean) / sigma) > 2.0) >= 2:
        fired.append(2)
    if sz > 1.0 and 1 + sum(1 for v in buf[max(k - 4, 0) :] if side * ((v - mean) / sigma) > 1.0) >= 4:
        fired.append(3)
    if sz > 0 and k >= 7 and all(side * ((buf[i] - mean) / sigma) > 0 for i in range(k - 1, k - 8, -1)):
        fired.append(4)
    return (float(sum(RULE_WEIGHTS[r - 1] for r in fired)), fired) if fired else (0.0, fired)


@settings(max_examples=200)
@given(
    st.lists(st.floats(min_value=-50, max_value=50, allow_nan=False), min_size=0, max_size=40),
    st.floats(min_value=-80, max_value=80, allow_nan=False),
    st.sampled_from([0.0, 0.05, 3.0]),
)
def test_it_scores_western_electric_as_the_reference_rules_do(values, x, min_sigma):
    rs = new_stats()
    for v in values:
        push(rs, v)
    assert western_electric(rs, x, min_sigma) == _reference_western_electric(rs, x, min_sigma)


def test_it_still_names_habitual_fields_that_vanish_and_fields_never_seen():
    ts = new_tool_state()
    ts["n"], ts["keys"] = 40, {"a": 40, "b": 40, "c": 3}
    fired = check_spc(ts, inspect_result({"a": 1, "z": 2}), 2.0, 1.0, 3.0)
    assert fired.fired and "['b']" in fired.detail and "['z']" in fired.detail
    quiet = check_spc(ts, inspect_result({"a": 1, "b": 2}), 2.0, 1.0, 3.0)
    assert not quiet.fired
