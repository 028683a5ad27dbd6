"""The engine as a provider: its verifications become outcomes, summaries and a stats endpoint."""

from __future__ import annotations

from typing import Any

import pytest
from jsonschema import Draft202012Validator
from rest_framework.test import APIClient

from registry.models import VerificationSummary
from registry.schemas import SIGNAL_SCHEMA
from registry.services.agents import agent_register
from verification.services.engine_provider import ENGINE_SLUG, engine_outcome_record

VERDICTS = ["accept"] * 7 + ["flag"] * 2 + ["block"] * 3


@pytest.fixture
def verified_agent(db: None, django_capture_on_commit_callbacks: Any) -> str:
    agent_register(subject_id="agent-e", registry="hcs-10")
    with django_capture_on_commit_callbacks(execute=True):
        for index, verdict in enumerate(VERDICTS):
            engine_outcome_record(
                agent="agent-e",
                verification_id=f"v-{index}",
                verdict=verdict,
                confidence=0.5 + index / 100,
                stake="high" if verdict == "block" else "low",
            )
    return "agent-e"


def test_it_rolls_engine_verdicts_into_the_agents_score(verified_agent: str) -> None:
    summary = VerificationSummary.objects.filter(provider__slug=ENGINE_SLUG).order_by("-window_end").first()
    assert summary is not None
    assert summary.total_checks == len(VERDICTS)
    assert summary.allow_rate == pytest.approx(VERDICTS.count("accept") / len(VERDICTS))
    assert summary.block_rate == pytest.approx(VERDICTS.count("block") / len(VERDICTS))
    record = APIClient().get(f"/api/v1/agents/{verified_agent}/trust-score").json()
    providers = record["provenance"]["outputVerification"]["providers"]
    assert [p["providerId"] for p in providers] == [ENGINE_SLUG]
    assert providers[0]["totalChecks"] == len(VERDICTS)


def test_it_serves_the_hcs25_stats_endpoint(verified_agent: str) -> None:
    response = APIClient().get(f"/v1/stats/{verified_agent}?window=7d")
    assert response.status_code == 200, response.content
    stats = response.json()
    assert list(Draft202012Validator(SIGNAL_SCHEMA).iter_errors(stats)) == []
    assert stats["totalChecks"] == len(VERDICTS)
    assert stats["uncertainRate"] == pytest.approx(VERDICTS.count("flag") / len(VERDICTS))
    expected_confidence = sum(0.5 + i / 100 for i in range(len(VERDICTS))) / len(VERDICTS)
    assert stats["avgConfidence"] == pytest.approx(expected_confidence)
    assert stats["stakeDistribution"]["high"]["checks"] == VERDICTS.count("block")


@pytest.mark.parametrize("window", ["7", "0d", "abc", "365d"])
def test_it_refuses_a_malformed_window(verified_agent: str, window: str) -> None:
    response = APIClient().get(f"/v1/stats/{verified_agent}?window={window}")
    assert response.status_code == 400
    assert response.json()["errors"][0]["field"] == "window"


def test_it_answers_404_for_an_agent_the_engine_never_saw(db: None) -> None:
    agent_register(subject_id="agent-unseen")
    assert APIClient().get("/v1/stats/agent-unseen?window=7d").status_code == 404
    assert APIClient().get("/v1/stats/agent-missing?window=7d").status_code == 404


def test_it_refuses_an_unknown_verdict(db: None) -> None:
    agent_register(subject_id="agent-x")
    with pytest.raises(ValueError, match="verdict must be one of"):
        engine_outcome_record(
            agent="agent-x", verification_id="v", verdict="maybe", confidence=0.5, stake="low"
        )
