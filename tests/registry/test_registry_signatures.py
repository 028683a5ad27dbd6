"""Signed pushes (SPEC section 3): a provider with a registered signer signs every push with EIP-712."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from registry_support import TEST_SIGNER_KEY, demo_signer_address, signed_headers, summary_body
from rest_framework.test import APIClient

from registry.models import Provider, VerificationSummary
from registry.services.agents import agent_register

pytestmark = pytest.mark.django_db

OTHER_KEY = "0x" + "5d" * 32


@pytest.fixture
def signer_client(
    make_provider: Callable[..., tuple[Provider, str]], keyed_client: Callable[[str], APIClient]
) -> APIClient:
    agent_register(subject_id="signed-agent")
    _, key = make_provider("signing", signer_address=demo_signer_address())
    return keyed_client(key)


def post(client: APIClient, body: Any, headers: dict[str, Any], path: str = "/api/v1/summaries") -> Any:
    return client.post(path, body, format="json", **headers)


def test_it_accepts_a_correctly_signed_push_and_replays_its_retry(signer_client: APIClient) -> None:
    body = summary_body("signed-agent", updatedAt="2026-11-01T00:00:00Z")
    headers = signed_headers("signing", "signed-agent", body, nonce=1)
    assert post(signer_client, body, headers).status_code == 201
    assert post(signer_client, body, headers).status_code == 200
    assert VerificationSummary.objects.count() == 1


def test_it_refuses_an_unsigned_push_from_a_provider_with_a_signer(signer_client: APIClient) -> None:
    response = post(signer_client, summary_body("signed-agent"), {})
    assert response.status_code == 401
    assert response["Content-Type"].startswith("application/problem+json")
    assert response.json()["type"] == "/problems/signature-required"
    assert VerificationSummary.objects.count() == 0


@pytest.mark.parametrize(
    ("change", "status"),
    [("wrong key", 401), ("other provider", 401), ("other agent", 401), ("expired", 401), ("tampered", 401)],
)
def test_it_refuses_a_badly_signed_push(signer_client: APIClient, change: str, status: int) -> None:
    agent_register(subject_id="someone-else")
    body = summary_body("signed-agent")
    signed = dict(body)
    kwargs: dict[str, Any] = {"nonce": 7}
    slug, agent = "signing", "signed-agent"
    if change == "wrong key":
        kwargs["key"] = OTHER_KEY
    elif change == "other provider":
        slug = "impostor"
    elif change == "other agent":
        agent = "someone-else"
    elif change == "expired":
        kwargs["ttl"] = -60
    else:
        body = {**body, "totalChecks": 5000}
    response = post(
        signer_client,
        body,
        signed_headers(slug, agent, signed, key=kwargs.pop("key", TEST_SIGNER_KEY), **kwargs),
    )
    assert response.status_code == status
    assert VerificationSummary.objects.count() == 0


def test_it_refuses_a_nonce_reused_for_another_body(signer_client: APIClient) -> None:
    first = summary_body("signed-agent", updatedAt="2026-11-01T00:00:00Z")
    second = summary_body("signed-agent", updatedAt="2026-11-02T00:00:00Z")
    assert (
        post(signer_client, first, signed_headers("signing", "signed-agent", first, nonce=3)).status_code
        == 201
    )
    response = post(signer_client, second, signed_headers("signing", "signed-agent", second, nonce=3))
    assert response.status_code == 409
    assert VerificationSummary.objects.count() == 1


def test_it_accepts_a_signed_batch_bound_to_every_agent(signer_client: APIClient) -> None:
    items = [summary_body("signed-agent", updatedAt=f"2026-11-0{i + 1}T00:00:00Z") for i in range(3)]
    body = {"summaries": items}
    response = post(
        signer_client, body, signed_headers("signing", "*", body, nonce=9), "/api/v1/summaries/batch"
    )
    assert response.status_code == 201, response.content
    assert VerificationSummary.objects.count() == 3
