"""Providers cannot set on-chain identity fields or claim the eip155 namespace (issue 13, "High":
squatting on on-chain identities), and suspended providers write nothing."""

from __future__ import annotations

from typing import Any

import pytest

from registry.models import Agent, CheckOutcome, VerificationSummary
from tests.authz.authz_support import LINKED, World, summary

ONCHAIN = "eip155:8453:0x8004A169FB4a3325136EB29fA0ceB6D2e539a432:42"


@pytest.mark.parametrize(
    ("field", "value"),
    [("chainId", 8453), ("erc8004AgentId", 42), ("ownerAddress", "0x" + "ab" * 20)],
)
def test_it_refuses_chain_facts_from_a_provider(world: World, field: str, value: Any) -> None:
    response = world.clients["provider"].post(
        "/api/v1/agents", {"subjectId": "agent-squat", field: value}, format="json"
    )
    assert response.status_code == 400, response.content
    assert response["Content-Type"].startswith("application/problem+json")
    assert [e["pointer"] for e in response.json()["errors"]] == [f"/{field}"]
    assert not Agent.objects.filter(subject_id="agent-squat").exists()


@pytest.mark.parametrize("subject_id", [ONCHAIN, "EIP155:8453:0xabc:1", "eip155:1:0x" + "cd" * 20 + ":0"])
def test_it_refuses_eip155_subjects_from_a_provider(world: World, subject_id: str) -> None:
    response = world.clients["provider"].post("/api/v1/agents", {"subjectId": subject_id}, format="json")
    assert response.status_code == 400, response.content
    assert [e["pointer"] for e in response.json()["errors"]] == ["/subjectId"]
    assert not Agent.objects.filter(subject_id=subject_id).exists()


def test_it_never_auto_registers_an_eip155_subject_from_a_report(world: World, settings: Any) -> None:
    settings.AUTO_REGISTER_AGENTS = True
    client = world.clients["provider"]
    pushed = client.post("/api/v1/summaries", summary(ONCHAIN), format="json")
    assert pushed.status_code == 400 and pushed.json()["type"] == "/problems/unknown-agent"
    assert [e["pointer"] for e in pushed.json()["errors"]] == ["/agent"]
    batch = client.post(
        "/api/v1/summaries/batch", {"summaries": [summary("agent-auto"), summary(ONCHAIN)]}, format="json"
    )
    assert [e["pointer"] for e in batch.json()["errors"]] == ["/summaries/1/agent"]
    outcomes = client.post(
        "/api/v1/outcomes",
        {
            "agent": ONCHAIN,
            "outcomes": [
                {"id": "o", "verdict": "ALLOW", "confidence": 1, "checkedAt": "2026-11-20T00:00:00Z"}
            ],
        },
        format="json",
    )
    assert outcomes.status_code == 400 and outcomes.json()["type"] == "/problems/unknown-agent"
    assert not Agent.objects.filter(subject_id__startswith="eip155:").exists()
    assert not Agent.objects.filter(subject_id="agent-auto").exists()  # the batch is all or nothing
    # Other subjects are still auto-registered.
    assert client.post("/api/v1/summaries", summary("agent-auto"), format="json").status_code == 201


def test_it_accepts_reports_about_eip155_agents_the_indexer_registered(world: World) -> None:
    from registry.services.agents import agent_register

    agent_register(subject_id=ONCHAIN, registry="erc-8004", chain_id=8453, erc8004_agent_id=42)
    response = world.clients["provider"].post("/api/v1/summaries", summary(ONCHAIN), format="json")
    assert response.status_code == 201, response.content


def test_it_refuses_every_write_of_a_suspended_provider(world: World, settings: Any) -> None:
    settings.AUTO_REGISTER_AGENTS = True
    client = world.clients["suspended_provider"]
    outcome = {"id": "o", "verdict": "ALLOW", "confidence": 1, "checkedAt": "2026-11-20T00:00:00Z"}
    writes = [
        ("/api/v1/agents", {"subjectId": "agent-by-suspended"}),
        ("/api/v1/summaries", summary(LINKED)),
        ("/api/v1/summaries", summary("agent-by-suspended")),
        ("/api/v1/summaries/batch", {"summaries": [summary(LINKED)]}),
        ("/api/v1/outcomes", {"agent": LINKED, "outcomes": [outcome]}),
        ("/api/v1/outcomes", {"agent": "agent-by-suspended", "outcomes": [outcome]}),
    ]
    summaries, outcomes = VerificationSummary.objects.count(), CheckOutcome.objects.count()
    for url, body in writes:
        response = client.post(url, body, format="json")
        assert response.status_code == 403, (url, response.content)
        assert response.json()["type"] == "/problems/provider-suspended"
    assert not Agent.objects.filter(subject_id="agent-by-suspended").exists()
    assert (VerificationSummary.objects.count(), CheckOutcome.objects.count()) == (summaries, outcomes)
