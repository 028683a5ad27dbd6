"""End-to-end scoring of one subject: the HCS-25 record, provenance and the inputs digest."""

from __future__ import annotations

import hashlib
import json

import pytest
import rfc8785

from adapters import (
    AdapterSpec,
    Component,
    FeedbackSummary,
    ProviderSummary,
    ScoringParams,
    Subject,
    inputs_digest,
    score_subject,
)
from adapters.params import AccuracyWeighting
from adapters.scoring import score_from_inputs

SUMMARIES = [
    ProviderSummary("tp", 0.9, 0.1, 0.0, 0.8, 100, {"low": 50, "high": 50, "micro": 7}),
    ProviderSummary("engine", 0.5, 0.5, 0.0, 0.6, 10),
    ProviderSummary("own", 1.0, 0.1, 0.0, 1.0, 500, excluded_reason="self-reported"),
]


def _record() -> dict[str, object]:
    record = score_subject(
        Subject("agent-1", "erc-8004"),
        summaries=SUMMARIES,
        feedback=FeedbackSummary(61.5, 100),
        params=ScoringParams(),
    )
    return record.to_hcs25(4, "2026-11-22T05:00:00Z")


def test_it_emits_the_hcs25_record_shape() -> None:
    out = _record()
    assert set(out) >= {
        "trustScore",
        "trustScores",
        "trustScoreConfigVersion",
        "trustScoreUpdatedAt",
        "trustConfidence",
        "breakdown",
        "provenance",
    }
    assert out["trustScoreConfigVersion"] == 4 and out["trustScoreUpdatedAt"] == "2026-11-22T05:00:00Z"
    assert out["trustScores"]["total"] == out["trustScore"]  # type: ignore[index]
    adapters = out["breakdown"]["adapters"]  # type: ignore[index]
    assert [a["adapterId"] for a in adapters] == ["output-verification", "erc8004-feedback"]
    for entry in adapters:
        assert set(entry) >= {
            "adapterId",
            "contributionMode",
            "applicable",
            "inDenominator",
            "weight",
            "components",
            "total",
        }
    # Composite is the weighted mean of the adapter totals in the breakdown.
    totals = [a["total"] for a in adapters if a["inDenominator"]]
    assert out["trustScore"] == pytest.approx(sum(totals) / len(totals), abs=0.005)
    json.dumps(out)  # plain JSON


def test_it_reports_provider_provenance_and_exclusions() -> None:
    ov = _record()["provenance"]["outputVerification"]  # type: ignore[index]
    assert [p["providerId"] for p in ov["providers"]] == ["tp", "engine"]
    assert ov["excluded"] == [{"providerId": "own", "reason": "self-reported"}]
    assert ov["totalChecks"] == 110
    tp = ov["providers"][0]
    # (0.5 * 50 + 2 * 50) / 100 = 1.25; micro is ignored.
    assert tp["stakeMultiplier"] == 1.25 and tp["discriminativePower"] == 1.0
    assert tp["quality"] == 90.0  # 0.9 * 0.8 * 1 * 1.25 * 100
    assert ov["disagreement"] > 0


def test_it_digests_the_canonical_inputs() -> None:
    record = score_subject(Subject("a"), summaries=SUMMARIES, feedback=None, params=ScoringParams())
    expected = "sha256:" + hashlib.sha256(rfc8785.dumps(record.inputs)).hexdigest()
    assert record.inputs_digest == expected
    assert record.to_hcs25(1, "t")["provenance"]["inputsDigest"] == expected  # type: ignore[index]
    other = score_subject(Subject("a"), summaries=SUMMARIES[:2], feedback=None, params=ScoringParams())
    assert other.inputs_digest != record.inputs_digest


def test_it_recomputes_a_score_from_stored_inputs() -> None:
    record = score_subject(
        Subject("a", "erc-8004"),
        summaries=SUMMARIES,
        feedback=FeedbackSummary(88, 10),
        params=ScoringParams(
            adapters=(*ScoringParams().adapters, AdapterSpec("availability", "universal", 2))
        ),
        extra_components={"availability": [Component("availability.uptime", 97.5, "stale")]},
    )
    stored = json.loads(json.dumps(record.inputs))
    again = score_from_inputs(stored)
    assert again.to_hcs25(1, "t") == record.to_hcs25(1, "t")
    assert again.inputs_digest == record.inputs_digest


def test_it_is_insensitive_to_key_order_in_the_digest() -> None:
    assert inputs_digest({"a": 1, "b": [1.5, None]}) == inputs_digest({"b": [1.5, None], "a": 1})
    with pytest.raises(ValueError, match="JSON"):
        inputs_digest({"a": float("nan")})


def test_it_scores_extra_adapters_with_their_modes() -> None:
    params = ScoringParams(
        adapters=(
            *ScoringParams().adapters,
            AdapterSpec("availability", "universal", 1),
            AdapterSpec("reputation", "conditional", 1),
        )
    )
    record = score_subject(
        Subject("a", "hcs-10"),
        summaries=[],
        feedback=None,
        params=params,
        extra_components={"availability": [Component("availability.uptime", 80)]},
    )
    by_id = {r.adapter_id: r for r in record.results}
    assert by_id["availability"].in_denominator and not by_id["reputation"].in_denominator
    assert record.trust_score == 80.0
    with pytest.raises(ValueError, match="unknown-thing"):
        score_subject(
            Subject("a"), summaries=[], feedback=None, params=params, extra_components={"unknown-thing": []}
        )


def test_it_leaves_an_absent_adapter_out_of_the_record() -> None:
    params = ScoringParams(adapters=(AdapterSpec("output-verification", "scoped", 1),))
    record = score_subject(
        Subject("a", "erc-8004"), summaries=SUMMARIES, feedback=FeedbackSummary(88, 10), params=params
    )
    assert [r.adapter_id for r in record.results] == ["output-verification"]
    assert not any(key.startswith("erc8004") for key in record.composite.trust_scores)


def test_it_gates_adapters_on_the_subject_protocol() -> None:
    params = ScoringParams(
        adapters=(
            AdapterSpec("output-verification", "scoped", 1, exclude_protocols=("mcp",)),
            AdapterSpec("erc8004-feedback", "scoped", 1, include_registries=("erc-8004",)),
        )
    )
    feedback = FeedbackSummary(88, 10)
    mcp = score_subject(
        Subject("a", "erc-8004", "mcp"), summaries=SUMMARIES, feedback=feedback, params=params
    )
    a2a = score_subject(
        Subject("a", "erc-8004", "a2a"), summaries=SUMMARIES, feedback=feedback, params=params
    )
    assert [r.applicable for r in mcp.results] == [False, True]
    assert [r.applicable for r in a2a.results] == [True, True]
    assert mcp.trust_score == 70.04  # the feedback adapter alone (the erc8004Feedback vector's total)


def test_it_recomputes_an_accuracy_weighted_score_from_its_stored_inputs() -> None:
    weighting = AccuracyWeighting()
    summaries = [
        ProviderSummary("sharp", 0.9, 0.1, 0.0, 0.9, 120, accuracy_factor=weighting.factor(57, 60)),
        ProviderSummary("sloppy", 0.97, 0.01, 0.0, 0.9, 120, accuracy_factor=weighting.factor(31, 60)),
    ]
    params = ScoringParams(accuracy_weighting=weighting)
    record = score_subject(Subject("w", "hcs-10"), summaries=summaries, feedback=None, params=params)
    unweighted = score_subject(
        Subject("w", "hcs-10"),
        summaries=[ProviderSummary(s.provider_id, 0.9 if s.provider_id == "sharp" else 0.97,
                                   s.block_rate, 0.0, 0.9, 120) for s in summaries],
        feedback=None,
        params=ScoringParams(),
    )  # fmt: skip
    # The sloppy provider's lenient report (quality 17.46) pulls the weighted score down less.
    assert record.trust_score > unweighted.trust_score
    again = score_from_inputs(json.loads(json.dumps(record.inputs)))
    assert (again.trust_score, again.inputs_digest) == (record.trust_score, record.inputs_digest)
    assert [s["accuracyFactor"] for s in record.inputs["outputVerification"]] == [
        s.accuracy_factor for s in summaries
    ]
    assert "accuracyFactor" not in unweighted.inputs["outputVerification"][0]


@pytest.mark.parametrize("factor", [0.0, -0.5, 1.01, 0.0005, float("nan"), True])
def test_it_refuses_an_accuracy_factor_outside_its_range(factor: float) -> None:
    with pytest.raises(ValueError, match="accuracy_factor"):
        ProviderSummary("p", 0.9, 0.1, 0.0, 0.9, 10, accuracy_factor=factor)
