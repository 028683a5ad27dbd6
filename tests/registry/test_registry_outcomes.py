"""Raw per-check outcomes: vocabulary mapping, roll-up into a windowed summary, replays (SPEC section 3)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from registry.models import CheckOutcome, Provider, VerificationSummary
from registry.services.agents import agent_register
from tests.registry.registry_support import output_verification

# Expected scores here are the SPEC 2.3 weighted mean: these tests pin that configuration (the
# default, the sybil-resistance floor, is tested in the *_sybil.py suites and the smoke test).
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("weighted_mean_config")]

# (id, reported verdict, confidence, stake)
OUTCOMES = [
    ("c1", "ALLOW", 0.9, "low"),
    ("c2", "ALLOW", 0.8, "low"),
    ("c3", "ALLOW", 0.7, "high"),
    ("c4", "HOLD", 0.6, "high"),
    ("c5", "DISSENT", 0.5, "critical"),
    ("c6", "OBJECT", 0.95, "critical"),
    ("c7", "BLOCK", 0.85, "medium"),
    ("c8", "UNCERTAIN", 0.4, ""),
    ("c9", "ALLOW", 1.0, "micro"),
    ("c10", "ALLOW", 0.65, "medium"),
    ("c11", "ALLOW", 0.75, "low"),
    ("c12", "OBJECT", 0.55, "high"),
]
MAPPED = {
    "ALLOW": "ALLOW",
    "BLOCK": "BLOCK",
    "UNCERTAIN": "UNCERTAIN",
    "HOLD": "UNCERTAIN",
    "DISSENT": "UNCERTAIN",
    "OBJECT": "BLOCK",
}


def iso(delta: timedelta) -> str:
    return (timezone.now() - delta).isoformat().replace("+00:00", "Z")


def outcome(
    oid: str, verdict: str, confidence: float, stake: str, age: timedelta = timedelta(hours=1)
) -> dict[str, Any]:
    body: dict[str, Any] = {"id": oid, "verdict": verdict, "confidence": confidence, "checkedAt": iso(age)}
    if stake:
        body["stake"] = stake
    return body


@pytest.fixture
def client(provider_client: tuple[Provider, APIClient]) -> APIClient:
    agent_register(subject_id="checked", registry="hcs-10")
    return provider_client[1]


def test_it_maps_the_verdict_vocabulary(client: APIClient) -> None:
    body = {"agent": "checked", "outcomes": [outcome(*o) for o in OUTCOMES]}
    response = client.post("/api/v1/outcomes", body, format="json")
    assert response.status_code == 201, response.content
    assert response.json() == {"agent": "checked", "created": 12, "replayed": 0}
    stored = {o.outcome_id: (o.reported_verdict, o.verdict) for o in CheckOutcome.objects.all()}
    assert stored == {oid: (verdict, MAPPED[verdict]) for oid, verdict, _, _ in OUTCOMES}
    assert stored["c4"][1] == stored["c5"][1] == "UNCERTAIN"
    assert stored["c6"][1] == "BLOCK"


def test_it_rolls_outcomes_up_into_the_providers_summary(
    client: APIClient, committed: Callable[[Callable[[], Any]], Any], api: APIClient
) -> None:
    old = outcome("c0", "BLOCK", 0.1, "low", age=timedelta(days=8))  # outside the 7-day window
    body = {"agent": "checked", "outcomes": [old, *(outcome(*o) for o in OUTCOMES)]}
    response = committed(lambda: client.post("/api/v1/outcomes", body, format="json"))
    assert response.status_code == 201
    summary = VerificationSummary.objects.get()
    assert summary.source == "outcomes"
    assert summary.window_days == 7
    n = len(OUTCOMES)
    verdicts = [MAPPED[v] for _, v, _, _ in OUTCOMES]
    assert summary.total_checks == n
    assert summary.allow_rate == pytest.approx(verdicts.count("ALLOW") / n)
    assert summary.block_rate == pytest.approx(verdicts.count("BLOCK") / n)
    assert summary.uncertain_rate == pytest.approx(verdicts.count("UNCERTAIN") / n)
    assert summary.avg_confidence == pytest.approx(sum(c for _, _, c, _ in OUTCOMES) / n)
    stake = summary.stake_distribution
    assert stake is not None
    for level in ("low", "medium", "high", "critical", "micro"):
        rows = [(MAPPED[v], c) for _, v, c, s in OUTCOMES if s == level]
        assert stake[level]["checks"] == len(rows)
        assert stake[level]["allowRate"] == pytest.approx(sum(v == "ALLOW" for v, _ in rows) / len(rows))
        assert stake[level]["avgConfidence"] == pytest.approx(sum(c for _, c in rows) / len(rows))
    assert set(stake) == {"low", "medium", "high", "critical", "micro"}

    signal = {
        "allowRate": summary.allow_rate,
        "blockRate": summary.block_rate,
        "avgConfidence": summary.avg_confidence,
        "totalChecks": n,
        "stakeDistribution": {k: {"checks": v["checks"]} for k, v in stake.items()},
    }
    record = api.get("/api/v1/agents/checked/trust-score").json()
    assert record["trustScore"] == output_verification([signal])["total"]


def test_it_rolls_new_outcomes_into_a_new_summary(
    client: APIClient, committed: Callable[[Callable[[], Any]], Any]
) -> None:
    first = {"agent": "checked", "outcomes": [outcome(*o) for o in OUTCOMES[:6]]}
    committed(lambda: client.post("/api/v1/outcomes", first, format="json"))
    second = {"agent": "checked", "outcomes": [outcome(*o) for o in OUTCOMES[6:]]}
    committed(lambda: client.post("/api/v1/outcomes", second, format="json"))
    summaries = list(VerificationSummary.objects.order_by("id"))
    assert [s.total_checks for s in summaries] == [6, 12]


def test_it_treats_a_replayed_outcome_id_with_the_same_content_as_a_no_op(
    client: APIClient, committed: Callable[[Callable[[], Any]], Any]
) -> None:
    body: dict[str, Any] = {"agent": "checked", "outcomes": [outcome(*o) for o in OUTCOMES[:3]]}
    assert committed(lambda: client.post("/api/v1/outcomes", body, format="json")).status_code == 201
    again = committed(lambda: client.post("/api/v1/outcomes", body, format="json"))
    assert again.status_code == 200
    assert again.json() == {"agent": "checked", "created": 0, "replayed": 3}
    assert CheckOutcome.objects.count() == 3
    assert VerificationSummary.objects.count() == 1


def test_it_refuses_a_replayed_outcome_id_with_other_content_with_409(
    client: APIClient, committed: Callable[[Callable[[], Any]], Any]
) -> None:
    body: dict[str, Any] = {"agent": "checked", "outcomes": [outcome(*o) for o in OUTCOMES[:3]]}
    committed(lambda: client.post("/api/v1/outcomes", body, format="json"))
    changed = dict(body["outcomes"][1], verdict="BLOCK")
    response = client.post(
        "/api/v1/outcomes",
        {"agent": "checked", "outcomes": [outcome("c99", "ALLOW", 0.5, ""), changed]},
        format="json",
    )
    assert response.status_code == 409
    assert response["Content-Type"].startswith("application/problem+json")
    assert [e["field"] for e in response.json()["errors"]] == ["outcomes[1].id"]
    assert CheckOutcome.objects.count() == 3
    assert not CheckOutcome.objects.filter(outcome_id="c99").exists()


def test_it_refuses_an_outcome_id_reused_for_another_agent(client: APIClient) -> None:
    agent_register(subject_id="someone-else")
    body = {"agent": "checked", "outcomes": [outcome(*OUTCOMES[0])]}
    client.post("/api/v1/outcomes", body, format="json")
    response = client.post("/api/v1/outcomes", {**body, "agent": "someone-else"}, format="json")
    assert response.status_code == 409


def test_it_refuses_outcomes_about_an_unknown_agent(client: APIClient) -> None:
    response = client.post(
        "/api/v1/outcomes", {"agent": "ghost", "outcomes": [outcome(*OUTCOMES[0])]}, format="json"
    )
    assert response.status_code == 400
    assert [e["field"] for e in response.json()["errors"]] == ["agent"]
    assert CheckOutcome.objects.count() == 0
