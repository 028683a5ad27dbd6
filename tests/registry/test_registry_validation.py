"""Refusals: invalid summaries, unknown agents, oversized bodies, bad keys (SPEC section 3)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from rest_framework.test import APIClient

from registry.models import Agent, Provider, VerificationSummary
from registry.services.agents import agent_register
from registry.services.providers import api_key_revoke, provider_set_status
from tests.registry.registry_support import VECTORS, summary_body

MUST_REJECT = VECTORS["mustReject"]

# The field each mustReject vector gets wrong (the sum rule is reported on blockRate).
OFFENDING_FIELD = {
    "allowRate above 1": "allowRate",
    "rate given as a string": "allowRate",
    "negative totalChecks": "totalChecks",
    "fractional totalChecks": "totalChecks",
    "rates sum above 1": "blockRate",
    "stake checks exceed totalChecks": "stakeDistribution",
    "NaN confidence": "avgConfidence",
    "missing avgConfidence": "avgConfidence",
}

pytestmark = pytest.mark.django_db


def problem_fields(response: Any) -> list[str]:
    assert response["Content-Type"].startswith("application/problem+json"), response["Content-Type"]
    body = response.json()
    assert body["status"] == response.status_code
    assert body["type"].startswith("/problems/")
    return [e["field"] for e in body.get("errors", [])]


@pytest.fixture
def client(provider_client: tuple[Provider, APIClient]) -> APIClient:
    agent_register(subject_id="agent-v")
    return provider_client[1]


def test_it_has_a_field_for_every_must_reject_vector() -> None:
    assert {v["name"] for v in MUST_REJECT} == set(OFFENDING_FIELD)


@pytest.mark.parametrize("vector", MUST_REJECT, ids=[v["name"] for v in MUST_REJECT])
def test_it_refuses_every_must_reject_summary(client: APIClient, vector: dict[str, Any]) -> None:
    response = client.post("/api/v1/summaries", {"agent": "agent-v", **vector["summary"]}, format="json")
    assert response.status_code == 400, response.content
    assert OFFENDING_FIELD[vector["name"]] in problem_fields(response)
    assert VerificationSummary.objects.count() == 0


@pytest.mark.parametrize("vector", MUST_REJECT, ids=[v["name"] for v in MUST_REJECT])
def test_it_names_the_batch_item_and_field_of_a_must_reject_summary(
    client: APIClient, vector: dict[str, Any]
) -> None:
    good = [summary_body("agent-v", updatedAt=f"2026-01-0{i + 1}T00:00:00Z") for i in range(3)]
    bad = {"agent": "agent-v", **vector["summary"]}
    response = client.post("/api/v1/summaries/batch", {"summaries": [*good, bad]}, format="json")
    assert response.status_code == 400, response.content
    assert problem_fields(response) == [f"summaries[3].{OFFENDING_FIELD[vector['name']]}"]
    assert VerificationSummary.objects.count() == 0


def test_it_names_summaries_3_allow_rate_in_a_batch(client: APIClient) -> None:
    items = [summary_body("agent-v", updatedAt=f"2026-01-0{i + 1}T00:00:00Z") for i in range(5)]
    items[3]["allowRate"] = 1.01
    response = client.post("/api/v1/summaries/batch", {"summaries": items}, format="json")
    assert response.status_code == 400
    assert problem_fields(response) == ["summaries[3].allowRate"]
    assert "summaries[3].allowRate" in response.json()["detail"]


@pytest.mark.parametrize(
    ("literal", "field"),
    [("NaN", "allowRate"), ("Infinity", "avgConfidence"), ("-Infinity", "blockRate")],
)
def test_it_refuses_non_finite_literals_in_the_raw_body(client: APIClient, literal: str, field: str) -> None:
    values = {"allowRate": "0.9", "blockRate": "0.1", "avgConfidence": "0.8"}
    values[field] = literal
    raw = (
        '{{"agent": "agent-v", "allowRate": {allowRate}, "blockRate": {blockRate}, '
        '"avgConfidence": {avgConfidence}, "totalChecks": 10}}'.format(**values)
    ).encode()
    response = client.post("/api/v1/summaries", raw, content_type="application/json")
    assert response.status_code == 400, response.content
    assert field in problem_fields(response)
    assert VerificationSummary.objects.count() == 0


def test_it_refuses_malformed_json_as_a_problem(client: APIClient) -> None:
    response = client.post("/api/v1/summaries", b'{"agent": "agent-v", ', content_type="application/json")
    assert response.status_code == 400
    problem_fields(response)
    assert response.json()["type"] == "/problems/malformed-json"


def test_it_refuses_an_unknown_agent_when_auto_registration_is_off(
    provider_client: tuple[Provider, APIClient], settings: Any
) -> None:
    settings.AUTO_REGISTER_AGENTS = False
    response = provider_client[1].post("/api/v1/summaries", summary_body("nobody-knows-me"), format="json")
    assert response.status_code == 400
    assert problem_fields(response) == ["agent"]
    assert not Agent.objects.filter(subject_id="nobody-knows-me").exists()
    assert VerificationSummary.objects.count() == 0


def test_it_registers_an_unknown_agent_when_auto_registration_is_on(
    provider_client: tuple[Provider, APIClient], auto_register: None
) -> None:
    body = summary_body("newcomer", agentRegistry="hcs-10", agentProtocol="a2a")
    response = provider_client[1].post("/api/v1/summaries", body, format="json")
    assert response.status_code == 201, response.content
    agent = Agent.objects.get(subject_id="newcomer")
    assert (agent.registry, agent.protocol, agent.auto_registered) == ("hcs-10", "a2a", True)


def test_it_refuses_an_oversized_body_with_413(client: APIClient, settings: Any) -> None:
    settings.MAX_BODY_BYTES = 2048
    body = summary_body("agent-v", providers=[{"id": "x" * 200} for _ in range(20)])
    response = client.post("/api/v1/summaries", body, format="json")
    assert response.status_code == 413
    problem_fields(response)
    assert VerificationSummary.objects.count() == 0
    small = client.post("/api/v1/summaries", summary_body("agent-v"), format="json")
    assert small.status_code == 201


def test_it_refuses_a_request_without_a_key_with_401(client: APIClient, api: APIClient) -> None:
    response = api.post("/api/v1/summaries", summary_body("agent-v"), format="json")
    assert response.status_code == 401
    problem_fields(response)
    assert "WWW-Authenticate" in response
    assert VerificationSummary.objects.count() == 0


def test_it_refuses_an_unknown_key_with_401(
    client: APIClient, keyed_client: Callable[[str], APIClient]
) -> None:
    response = keyed_client("trk_not-a-real-key").post(
        "/api/v1/summaries", summary_body("agent-v"), format="json"
    )
    assert response.status_code == 401
    problem_fields(response)


def test_it_refuses_a_revoked_key_with_401(
    make_provider: Callable[..., tuple[Provider, str]], keyed_client: Callable[[str], APIClient]
) -> None:
    agent_register(subject_id="agent-v")
    _, key = make_provider("revokee")
    client = keyed_client(key)
    assert client.post("/api/v1/summaries", summary_body("agent-v"), format="json").status_code == 201
    api_key_revoke(prefix=key[:12])
    response = client.post("/api/v1/summaries", summary_body("agent-v", totalChecks=11), format="json")
    assert response.status_code == 401
    problem_fields(response)
    assert VerificationSummary.objects.count() == 1


def test_it_refuses_a_suspended_provider_with_403(provider_client: tuple[Provider, APIClient]) -> None:
    agent_register(subject_id="agent-v")
    provider, client = provider_client
    provider_set_status(provider=provider, status=Provider.Status.SUSPENDED, actor_label="test")
    response = client.post("/api/v1/summaries", summary_body("agent-v"), format="json")
    assert response.status_code == 403
    problem_fields(response)
    assert response.json()["type"] == "/problems/provider-suspended"
    outcomes = {
        "agent": "agent-v",
        "outcomes": [
            {"id": "o1", "verdict": "ALLOW", "confidence": 0.9, "checkedAt": "2026-01-01T00:00:00Z"}
        ],
    }
    assert client.post("/api/v1/outcomes", outcomes, format="json").status_code == 403
    assert VerificationSummary.objects.count() == 0


def test_it_refuses_a_list_sent_to_the_single_endpoint(client: APIClient) -> None:
    response = client.post("/api/v1/summaries", [summary_body("agent-v")], format="json")
    assert response.status_code == 400
    problem_fields(response)
    assert VerificationSummary.objects.count() == 0


def test_it_refuses_a_batch_over_the_configured_size(client: APIClient, settings: Any) -> None:
    settings.SUMMARY_BATCH_MAX = 3
    items = [summary_body("agent-v", updatedAt=f"2026-01-0{i + 1}T00:00:00Z") for i in range(4)]
    response = client.post("/api/v1/summaries/batch", {"summaries": items}, format="json")
    assert response.status_code == 400
    assert problem_fields(response) == ["summaries"]
    assert VerificationSummary.objects.count() == 0
    ok = client.post("/api/v1/summaries/batch", {"summaries": items[:3]}, format="json")
    assert ok.status_code == 201
    assert VerificationSummary.objects.count() == 3


def test_it_refuses_a_batch_that_is_not_a_list(client: APIClient) -> None:
    response = client.post("/api/v1/summaries/batch", summary_body("agent-v"), format="json")
    assert response.status_code == 400
    assert problem_fields(response) == ["summaries"]


def test_it_refuses_invalid_outcomes_naming_the_field(client: APIClient) -> None:
    body = {
        "agent": "agent-v",
        "outcomes": [
            {"id": "o1", "verdict": "ALLOW", "confidence": 0.9, "checkedAt": "2026-01-01T00:00:00Z"},
            {"id": "o2", "verdict": "MAYBE", "confidence": 0.9, "checkedAt": "2026-01-01T00:00:00Z"},
            {"id": "o3", "verdict": "BLOCK", "confidence": 1.2, "checkedAt": "2026-01-01T00:00:00Z"},
            {"id": "o4", "verdict": "BLOCK", "confidence": 0.5, "checkedAt": "2026-01-01T00:00:00"},
        ],
    }
    response = client.post("/api/v1/outcomes", body, format="json")
    assert response.status_code == 400
    assert problem_fields(response) == [
        "outcomes[1].verdict",
        "outcomes[2].confidence",
        "outcomes[3].checkedAt",
    ]


def test_it_refuses_a_window_that_ends_in_the_future(provider_client: Any) -> None:
    from datetime import UTC, datetime, timedelta

    _, client = provider_client
    future = (datetime.now(UTC) + timedelta(days=400)).isoformat().replace("+00:00", "Z")
    body = {"agent": "agent-f", "allowRate": 0.9, "blockRate": 0.1, "avgConfidence": 0.8, "totalChecks": 10}
    response = client.post("/api/v1/summaries", {**body, "updatedAt": future}, format="json")
    assert response.status_code == 400
    assert response.json()["errors"][0]["field"] == "updatedAt"


def test_it_names_every_bad_field_of_every_batch_item(client: APIClient) -> None:
    items = [
        summary_body("agent-a", allowRate="0.9", totalChecks=-1, updatedAt="yesterday"),
        summary_body("agent-b"),
        summary_body("agent-c", allowRate=0.7, blockRate=0.6, windowDays=0),
        {k: v for k, v in summary_body("agent-d").items() if k not in ("avgConfidence", "totalChecks")},
    ]
    response = client.post("/api/v1/summaries/batch", {"summaries": items}, format="json")
    assert response.status_code == 400
    assert sorted(problem_fields(response)) == [
        "summaries[0].allowRate",
        "summaries[0].totalChecks",
        "summaries[0].updatedAt",
        # The sum rule reads fields that are each valid here: reported with the item's other error.
        "summaries[2].blockRate",
        "summaries[2].windowDays",
        "summaries[3].avgConfidence",
        "summaries[3].totalChecks",
    ]
    assert VerificationSummary.objects.count() == 0


def test_it_names_every_bad_field_of_an_outcome(client: APIClient) -> None:
    outcome = {"id": "o-1", "verdict": "MAYBE", "confidence": 2, "checkedAt": "soon"}
    response = client.post("/api/v1/outcomes", {"agent": "agent-a", "outcomes": [outcome]}, format="json")
    assert response.status_code == 400
    assert sorted(problem_fields(response)) == [
        "outcomes[0].checkedAt",
        "outcomes[0].confidence",
        "outcomes[0].verdict",
    ]
