"""Signed ingestion end to end: providers with a signer must sign every push (EIP-712)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from django.test import override_settings
from eth_account import Account
from rest_framework.test import APIClient

from provider_client import RegistryClient, RegistryError, signature_headers
from provider_client.cli import main as cli_main
from registry.models import SubmissionNonce, VerificationSummary
from registry.services.agents import agent_register
from registry.services.providers import provider_create

SIGNER = Account.from_key("0x" + "a1" * 32)
STRANGER = Account.from_key("0x" + "b2" * 32)


def summary(**overrides: Any) -> dict[str, Any]:
    body = {"agent": "agent-s", "allowRate": 0.9, "blockRate": 0.1, "avgConfidence": 0.8, "totalChecks": 20}
    body.update(overrides)
    return body


@pytest.fixture
def signed_provider(db: None) -> APIClient:
    _, issued = provider_create(name="Signer", slug="signer", signer_address=SIGNER.address)
    assert issued is not None
    agent_register(subject_id="agent-s")
    agent_register(subject_id="agent-t")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {issued.plaintext}")
    return client


def post(client: APIClient, path: str, body: Any, headers: dict[str, str]) -> Any:
    return client.post(path, body, format="json", headers=headers)


def test_it_accepts_a_body_signed_by_the_registered_signer(signed_provider: APIClient) -> None:
    body = summary()
    headers = signature_headers(body, provider="signer", agent_id="agent-s", private_key=SIGNER.key)
    response = post(signed_provider, "/api/v1/summaries", body, headers)
    assert response.status_code == 201, response.content
    assert SubmissionNonce.objects.filter(signer_address=SIGNER.address).count() == 1


def test_it_refuses_an_unsigned_body(signed_provider: APIClient) -> None:
    response = post(signed_provider, "/api/v1/summaries", summary(), {})
    assert response.status_code == 401
    assert response.json()["type"] == "/problems/signature-required"
    assert VerificationSummary.objects.count() == 0


def test_it_refuses_a_body_signed_by_another_key(signed_provider: APIClient) -> None:
    body = summary()
    headers = signature_headers(body, provider="signer", agent_id="agent-s", private_key=STRANGER.key)
    response = post(signed_provider, "/api/v1/summaries", body, headers)
    assert response.status_code == 401
    assert response.json()["reason"] == "wrong-signer"


def test_it_refuses_a_signature_over_another_body(signed_provider: APIClient) -> None:
    headers = signature_headers(summary(), provider="signer", agent_id="agent-s", private_key=SIGNER.key)
    response = post(signed_provider, "/api/v1/summaries", summary(totalChecks=999), headers)
    assert response.status_code == 401
    assert VerificationSummary.objects.count() == 0


def test_it_refuses_an_expired_signature(signed_provider: APIClient) -> None:
    body = summary()
    headers = signature_headers(
        body, provider="signer", agent_id="agent-s", private_key=SIGNER.key, deadline=int(time.time()) - 5
    )
    response = post(signed_provider, "/api/v1/summaries", body, headers)
    assert response.status_code == 401
    assert response.json()["reason"] == "expired"


def test_it_refuses_a_nonce_reused_for_another_body(signed_provider: APIClient) -> None:
    first = summary(updatedAt="2026-11-01T00:00:00Z")
    headers = signature_headers(first, provider="signer", agent_id="agent-s", private_key=SIGNER.key, nonce=7)
    assert post(signed_provider, "/api/v1/summaries", first, headers).status_code == 201
    again = summary(updatedAt="2026-11-02T00:00:00Z")
    replay = signature_headers(again, provider="signer", agent_id="agent-s", private_key=SIGNER.key, nonce=7)
    response = post(signed_provider, "/api/v1/summaries", again, replay)
    assert response.status_code == 409
    assert response.json()["type"] == "/problems/nonce-replayed"
    assert VerificationSummary.objects.count() == 1


def test_it_treats_the_same_signed_request_as_a_retry(signed_provider: APIClient) -> None:
    body = summary(updatedAt="2026-11-01T00:00:00Z")
    headers = signature_headers(body, provider="signer", agent_id="agent-s", private_key=SIGNER.key)
    assert post(signed_provider, "/api/v1/summaries", body, headers).status_code == 201
    assert post(signed_provider, "/api/v1/summaries", body, headers).status_code == 200
    assert VerificationSummary.objects.count() == 1


def test_it_binds_a_batch_signature_to_the_whole_batch(signed_provider: APIClient) -> None:
    batch = {"summaries": [summary(), summary(agent="agent-t")]}
    headers = signature_headers(batch, provider="signer", agent_id="*", private_key=SIGNER.key)
    assert post(signed_provider, "/api/v1/summaries/batch", batch, headers).status_code == 201
    tampered = {"summaries": [summary(updatedAt="2026-01-01T00:00:00Z")]}
    assert post(signed_provider, "/api/v1/summaries/batch", tampered, headers).status_code == 401


def test_it_checks_signatures_on_outcomes_too(signed_provider: APIClient) -> None:
    body = {
        "agent": "agent-s",
        "outcomes": [
            {"id": "o1", "verdict": "ALLOW", "confidence": 0.9, "checkedAt": "2026-11-20T10:00:00Z"}
        ],
    }
    assert post(signed_provider, "/api/v1/outcomes", body, {}).status_code == 401
    headers = signature_headers(body, provider="signer", agent_id="agent-s", private_key=SIGNER.key)
    assert post(signed_provider, "/api/v1/outcomes", body, headers).status_code == 201


@pytest.mark.django_db(transaction=True)
@override_settings(AUTO_REGISTER_AGENTS=True)
def test_it_pushes_through_the_cli_to_a_live_server(live_server: Any, tmp_path: Path) -> None:
    _, issued = provider_create(name="Cli", slug="cli", signer_address=SIGNER.address)
    assert issued is not None
    (tmp_path / "key").write_text(issued.plaintext)
    (tmp_path / "signer").write_text(SIGNER.key.hex())
    (tmp_path / "summary.json").write_text(json.dumps(summary(agent="agent-cli")))
    code = cli_main(
        [
            "push", str(tmp_path / "summary.json"), "--url", live_server.url, "--provider", "cli",
            "--api-key-file", str(tmp_path / "key"), "--signing-key-file", str(tmp_path / "signer"),
        ]
    )  # fmt: skip
    assert code == 0
    assert (
        VerificationSummary.objects.filter(agent__subject_id="agent-cli", provider__slug="cli").count() == 1
    )
    with (
        RegistryClient(live_server.url, api_key=issued.plaintext, provider="cli") as unsigned,
        pytest.raises(RegistryError) as refused,
    ):
        unsigned.push_summary(summary(agent="agent-cli", totalChecks=30))
    assert refused.value.status == 401
