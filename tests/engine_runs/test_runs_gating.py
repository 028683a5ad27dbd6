import pytest

from verification.engine.runs import Claim, RunVerifierConfig, ToolCallValidation, verify_run
from verification.engine.runs.gating import aggregate_score, decide_action, refusal, revise_message
from verification.engine.runs.report import ConsistencyProbe


def _claim(label, score, critical=True, text="x"):
    return Claim(text, (0, len(text)), f"About {text}.", "number", critical, label, score, reason="because")


def test_it_emits_revises_and_blocks_at_the_spec_thresholds():
    cfg = RunVerifierConfig()
    assert decide_action(0.85, [_claim("SUPPORTED", 0.85)], [], [], cfg) == "emit"
    assert decide_action(0.84, [_claim("SUPPORTED", 0.84)], [], [], cfg) == "revise"
    assert decide_action(0.5, [_claim("UNSUPPORTED", 0.5, critical=False)], [], [], cfg) == "revise"
    assert decide_action(0.39, [_claim("CONTRADICTED", 0.39, critical=False)], [], [], cfg) == "block"
    assert decide_action(0.9, [_claim("CONTRADICTED", 0.3)], [], [], cfg) == "block"


def test_it_uses_configured_thresholds():
    strict = RunVerifierConfig(emit_threshold=0.99, revise_threshold=0.9, block_threshold=0.6)
    assert decide_action(0.95, [_claim("SUPPORTED", 0.95)], [], [], strict) == "revise"
    assert decide_action(0.5, [_claim("UNSUPPORTED", 0.5)], [], [], strict) == "block"


def test_it_does_not_emit_after_rejected_calls_or_divergent_probes():
    cfg = RunVerifierConfig()
    bad_call = ToolCallValidation("f", {}, "invalid", ["x: bad"])
    assert decide_action(0.95, [], [bad_call], [], cfg) == "revise"
    probe = ConsistencyProbe("x", "x", ["y"], 0.0)
    assert decide_action(0.95, [], [], [probe], cfg) == "revise"


def test_it_aggregates_by_worst_claim_or_weighted_mean():
    claims = [_claim("SUPPORTED", 0.9), _claim("UNSUPPORTED", 0.3, critical=False)]
    assert aggregate_score(claims, RunVerifierConfig()) == 0.3
    assert aggregate_score(claims, RunVerifierConfig(aggregate="mean")) == pytest.approx((2 * 0.9 + 0.3) / 3)


@pytest.mark.parametrize(
    "kwargs", [{"emit_threshold": 0.5, "revise_threshold": 0.6}, {"aggregate": "median"}, {"probe_count": 0}]
)
def test_it_rejects_inconsistent_configuration(kwargs):
    with pytest.raises(ValueError):
        RunVerifierConfig(**kwargs)


def test_it_names_the_unsupported_claims_in_the_revise_message():
    msg = revise_message(
        [_claim("UNSUPPORTED", 0.5, text="42 km"), _claim("SUPPORTED", 0.9, text="7 kg")], []
    )
    assert '"42 km"' in msg and "7 kg" not in msg


def test_it_refuses_without_revealing_internals(run_of):
    r = verify_run(run_of("How tall?", [{"height_m": 330}], "It is 500 meters tall."))
    assert r.action == "block"
    assert r.refusal_message == refusal(r.claims)
    assert "500" not in r.refusal_message and "quantity" in r.refusal_message


def test_it_sets_the_stake_from_the_critical_claims(run_of):
    assert verify_run(run_of("Q?", [{"price": 5, "currency": "USD"}], "It costs $5.")).stake == "high"
    assert verify_run(run_of("Q?", [{"price": 5, "currency": "USD"}], "It costs $7.")).stake == "critical"
    assert verify_run(run_of("Q?", [{"h_m": 5}], "It is 5 m tall.")).stake == "medium"
    assert verify_run(run_of("Q?", [{"h_m": 5}], "It is nice.")).stake == "low"
