"""Every HCS-25 conformance vector (core, outputVerification, erc8004Feedback, composite) passes exactly."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from adapters import (
    AdapterSpec,
    Component,
    FeedbackSummary,
    ProviderSummary,
    ScoringParams,
    Subject,
    adapter_result,
    composite,
    score_batch,
    score_erc8004_feedback,
    score_output_verification,
    score_subject,
)
from adapters.params import STAKE_LEVELS

VECTORS_PATH = Path(__file__).resolve().parents[2].parent / "shared" / "conformance" / "hcs25_vectors.json"
VECTORS: dict[str, Any] = json.loads(VECTORS_PATH.read_text())
PARAMS = ScoringParams()
OV_SPEC = PARAMS.spec("output-verification")
FB_SPEC = PARAMS.spec("erc8004-feedback")


def _ids(group: str) -> list[str]:
    return [v["name"] for v in VECTORS[group]]


def _summary(index: int, raw: dict[str, Any]) -> ProviderSummary:
    stake = raw.get("stakeDistribution")
    return ProviderSummary(
        provider_id=f"p{index}",
        allow_rate=raw["allowRate"],
        block_rate=raw["blockRate"],
        uncertain_rate=raw.get("uncertainRate"),
        avg_confidence=raw["avgConfidence"],
        total_checks=raw["totalChecks"],
        stake_distribution=None if stake is None else {level: v["checks"] for level, v in stake.items()},
    )


def _feedback(raw: dict[str, Any] | None) -> FeedbackSummary | None:
    return None if raw is None else FeedbackSummary(raw["averageScore"], raw["totalFeedbacks"])


@pytest.mark.parametrize("vector", VECTORS["core"], ids=_ids("core"))
def test_it_passes_core_vectors(vector: dict[str, Any]) -> None:
    results = [
        adapter_result(
            AdapterSpec(adapter["id"], adapter["mode"], adapter["weight"]),
            [Component(key, value, status) for key, (value, status) in adapter["components"].items()],
        )
        for adapter in vector["adapters"]
    ]
    assert composite(results).trust_score == vector["expected"]["trustScore"]


@pytest.mark.parametrize("vector", VECTORS["outputVerification"], ids=_ids("outputVerification"))
def test_it_passes_output_verification_vectors(vector: dict[str, Any]) -> None:
    assert OV_SPEC is not None
    summaries = [_summary(i, raw) for i, raw in enumerate(vector["providers"])]
    result, provenance = score_output_verification(summaries, PARAMS.output_verification, OV_SPEC)
    expected = vector["expected"]
    assert result.applicable is expected["applicable"]
    assert provenance.total_checks == sum(p["totalChecks"] for p in vector["providers"])
    if expected["applicable"]:
        values = {c.key: c.value for c in result.components}
        assert values == {
            "output-verification.quality": expected["quality"],
            "output-verification.coverage": expected["coverage"],
        }
        assert result.total == expected["total"]
        assert result.in_denominator
    else:
        assert result.reason == "insufficient sample"
        assert not result.in_denominator


@pytest.mark.parametrize("vector", VECTORS["outputVerification"], ids=_ids("outputVerification"))
def test_it_passes_output_verification_vectors_vectorised(vector: dict[str, Any]) -> None:
    providers = vector["providers"]
    shape = (1, len(providers))
    stakes = np.zeros((*shape, 4), dtype=np.int64)
    for j, raw in enumerate(providers):
        for level, value in (raw.get("stakeDistribution") or {}).items():
            if level in STAKE_LEVELS:
                stakes[0, j, STAKE_LEVELS.index(level)] = value["checks"]
    out = score_batch(
        np.array([[p["allowRate"] for p in providers]]).reshape(shape),
        np.array([[p["blockRate"] for p in providers]]).reshape(shape),
        np.array([[p["avgConfidence"] for p in providers]]).reshape(shape),
        np.array([[p["totalChecks"] for p in providers]], dtype=np.int64).reshape(shape),
        stakes,
        params=PARAMS,
    )
    expected = vector["expected"]
    assert bool(out.ov_applicable[0]) is expected["applicable"]
    if expected["applicable"]:
        assert (out.quality[0], out.coverage[0], out.ov_total[0]) == (
            expected["quality"],
            expected["coverage"],
            expected["total"],
        )


@pytest.mark.parametrize("vector", VECTORS["erc8004Feedback"], ids=_ids("erc8004Feedback"))
def test_it_passes_erc8004_feedback_vectors(vector: dict[str, Any]) -> None:
    assert FB_SPEC is not None
    result = score_erc8004_feedback(
        _feedback(vector["summary"]), vector["registry"], PARAMS.erc8004_feedback, FB_SPEC
    )
    expected = vector["expected"]
    assert result.applicable is expected["applicable"]
    assert {c.key: c.value for c in result.components} == expected["components"]
    assert result.total == expected["total"]


@pytest.mark.parametrize("vector", VECTORS["composite"], ids=_ids("composite"))
def test_it_passes_composite_vectors(vector: dict[str, Any]) -> None:
    record = score_subject(
        Subject("agent", vector["registry"]),
        summaries=[_summary(i, raw) for i, raw in enumerate(vector["outputVerification"])],
        feedback=_feedback(vector["erc8004Feedback"]),
        params=PARAMS,
    )
    expected = vector["expected"]
    out = record.to_hcs25(1, "2026-01-01T00:00:00Z")
    assert out["trustScore"] == expected["trustScore"]
    assert out["trustScores"] == expected["trustScores"]
    assert out["trustConfidence"] == expected["trustConfidence"]
