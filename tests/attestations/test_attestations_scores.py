"""Signed scores end to end: issue through the API, verify with eth-account alone, tamper, expire."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.test import override_settings
from eth_account import Account
from eth_account.messages import encode_typed_data
from eth_utils import keccak
from rest_framework.test import APIClient

from attestations.services.keys import service_key_reset
from registry.services.agents import agent_register
from registry.services.providers import provider_create
from registry.services.summaries import summaries_ingest

SIGNING_KEY = "0x" + "4f" * 32


@pytest.fixture
def signing_key(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    monkeypatch.setenv("TRUST_REGISTRY_SIGNING_KEY", SIGNING_KEY)
    service_key_reset()
    yield Account.from_key(SIGNING_KEY).address
    service_key_reset()


@pytest.fixture
def scored_agent(db: None, django_capture_on_commit_callbacks: Any) -> str:
    provider, _ = provider_create(name="P", slug="p")
    agent_register(subject_id="agent-9", registry="hcs-10")
    with django_capture_on_commit_callbacks(execute=True):
        summaries_ingest(
            provider=provider,
            bodies=[
                {
                    "agent": "agent-9",
                    "allowRate": 0.9,
                    "blockRate": 0.1,
                    "avgConfidence": 0.8,
                    "totalChecks": 100,
                }
            ],
        )
    return "agent-9"


def test_it_signs_a_score_that_eth_account_alone_verifies(signing_key: str, scored_agent: str) -> None:
    api = APIClient()
    response = api.get(f"/api/v1/agents/{scored_agent}/trust-score/attestation")
    assert response.status_code == 200, response.content
    document = response.json()
    signable = encode_typed_data(full_message=document["typedData"])
    assert Account.recover_message(signable, signature=document["signature"]) == signing_key
    score = api.get(f"/api/v1/agents/{scored_agent}/trust-score").json()
    assert document["typedData"]["message"]["score"] == round(score["trustScore"] * 100)
    assert document["typedData"]["message"]["agentId"] == scored_agent
    assert "0x" + keccak(response.content).hex() == response["X-Document-Keccak256"]


def test_it_verifies_its_own_attestation_and_refuses_a_tampered_one(
    signing_key: str, scored_agent: str
) -> None:
    api = APIClient()
    document = api.get(f"/api/v1/agents/{scored_agent}/trust-score/attestation").json()
    verdict = api.post("/api/v1/attestations/verify", document, format="json").json()
    assert verdict["valid"] is True and verdict["signer"] == signing_key
    document["typedData"]["message"]["score"] += 1
    verdict = api.post("/api/v1/attestations/verify", document, format="json").json()
    assert verdict["valid"] is False and verdict["signedByThisRegistry"] is False


def test_it_serves_the_same_bytes_by_id(signing_key: str, scored_agent: str) -> None:
    api = APIClient()
    first = api.get(f"/api/v1/agents/{scored_agent}/trust-score/attestation")
    link = first["Link"].split(";")[0].strip("<>")
    again = api.get(link)
    assert again.content == first.content


def test_it_answers_503_without_a_signing_key(scored_agent: str, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (
        "TRUST_REGISTRY_SIGNING_KEY",
        "TRUST_REGISTRY_SIGNING_KEY_FILE",
        "TRUST_REGISTRY_SIGNING_KEY_KEYSTORE",
    ):
        monkeypatch.delenv(name, raising=False)
    service_key_reset()
    response = APIClient().get(f"/api/v1/agents/{scored_agent}/trust-score/attestation")
    assert response.status_code == 503
    assert SIGNING_KEY[2:10] not in response.content.decode()


@override_settings(ATTESTATION_TTL_SECONDS=60)
def test_it_reports_an_expired_attestation_as_not_current(signing_key: str, scored_agent: str) -> None:
    from datetime import timedelta

    from django.utils import timezone

    from attestations.services.scores import attestation_verify

    api = APIClient()
    document = api.get(f"/api/v1/agents/{scored_agent}/trust-score/attestation").json()
    later = timezone.now() + timedelta(seconds=120)
    verdict = attestation_verify(typed=document["typedData"], signature=document["signature"], now=later)
    assert (
        verdict["signedByThisRegistry"] is True and verdict["current"] is False and verdict["valid"] is False
    )


def test_it_refuses_to_sign_the_score_of_an_agent_that_is_not_rated(signing_key: str, db: None) -> None:
    agent_register(subject_id="agent-new", registry="hcs-10")
    api = APIClient()
    response = api.get("/api/v1/agents/agent-new/trust-score/attestation")
    assert response.status_code == 409, response.content
    assert response["Content-Type"] == "application/problem+json"
    assert response.json()["type"].endswith("/problems/not-rated")
    record = api.get("/api/v1/agents/agent-new/trust-score").json()
    assert record["rated"] is False and record["trustConfidence"] == 0
    history = api.get("/api/v1/agents/agent-new/trust-score/history").json()
    assert [entry["rated"] for entry in history["results"]] == [False]


def test_it_marks_a_scored_agent_as_rated(signing_key: str, scored_agent: str) -> None:
    record = APIClient().get(f"/api/v1/agents/{scored_agent}/trust-score").json()
    assert record["rated"] is True and record["trustConfidence"] > 0
