"""Signed pushes (SPEC section 3): a provider with a registered signer signs every push with EIP-712."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from rest_framework.test import APIClient

from registry.models import IdempotencyRecord, Provider, VerificationSummary
from registry.services.agents import agent_register
from tests.registry.registry_support import TEST_SIGNER_KEY, demo_signer_address, signed_headers, summary_body

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


def test_it_answers_a_replayed_push_without_updated_at_with_the_first_answer(
    signer_client: APIClient,
) -> None:
    body = summary_body("signed-agent")  # no updatedAt: every push would open a new window
    headers = signed_headers("signing", "signed-agent", body, nonce=21)
    first = post(signer_client, body, headers)
    assert first.status_code == 201
    for _ in range(3):
        again = post(signer_client, body, headers)
        assert again.status_code == 200
        assert again.json() == {**first.json(), "status": "replayed"}
    assert VerificationSummary.objects.count() == 1


def test_it_keeps_a_correction_latest_when_the_old_signed_body_is_replayed(signer_client: APIClient) -> None:
    old = summary_body("signed-agent", totalChecks=10)
    old_headers = signed_headers("signing", "signed-agent", old, nonce=31)
    original = post(signer_client, old, old_headers)
    assert original.status_code == 201
    correction = summary_body("signed-agent", totalChecks=12)
    assert (
        post(
            signer_client, correction, signed_headers("signing", "signed-agent", correction, nonce=32)
        ).status_code
        == 201
    )
    replayed = post(signer_client, old, old_headers)
    assert (replayed.status_code, replayed.json()) == (200, {**original.json(), "status": "replayed"})
    assert VerificationSummary.objects.count() == 2
    latest = VerificationSummary.objects.order_by("-window_end", "-id").first()
    assert latest is not None and latest.total_checks == 12


def test_it_answers_a_replayed_signed_batch_and_outcomes_with_the_first_answer(
    signer_client: APIClient,
) -> None:
    batch = {"summaries": [summary_body("signed-agent"), summary_body("signed-agent", windowDays=30)]}
    headers = signed_headers("signing", "*", batch, nonce=41)
    first = post(signer_client, batch, headers, "/api/v1/summaries/batch")
    assert first.status_code == 201
    again = post(signer_client, batch, headers, "/api/v1/summaries/batch")
    results = [{**r, "status": "replayed"} for r in first.json()["results"]]
    assert (again.status_code, again.json()) == (200, {"created": 0, "replayed": 2, "results": results})
    assert VerificationSummary.objects.count() == 2
    outcome = {"id": "o-1", "verdict": "ALLOW", "confidence": 0.9, "checkedAt": "2026-11-20T10:00:00Z"}
    outcomes = {"agent": "signed-agent", "outcomes": [outcome]}
    headers = signed_headers("signing", "signed-agent", outcomes, nonce=42)
    first = post(signer_client, outcomes, headers, "/api/v1/outcomes")
    assert first.status_code == 201, first.content
    again = post(signer_client, outcomes, headers, "/api/v1/outcomes")
    assert (again.status_code, again.json()) == (200, {**first.json(), "created": 0, "replayed": 1})
    other = {**outcomes, "outcomes": [{**outcome, "id": "o-2"}]}
    refused = post(
        signer_client, other, signed_headers("signing", "signed-agent", other, nonce=42), "/api/v1/outcomes"
    )
    assert (refused.status_code, refused.json()["type"]) == (409, "/problems/nonce-replayed")


def test_it_refuses_a_nonce_of_another_body_even_when_the_first_kept_no_window(
    signer_client: APIClient,
) -> None:
    body = summary_body("signed-agent")
    assert (
        post(signer_client, body, signed_headers("signing", "signed-agent", body, nonce=51)).status_code
        == 201
    )
    other = summary_body("signed-agent", totalChecks=11)
    response = post(signer_client, other, signed_headers("signing", "signed-agent", other, nonce=51))
    assert (response.status_code, response.json()["type"]) == (409, "/problems/nonce-replayed")
    assert VerificationSummary.objects.count() == 1


def test_it_refuses_a_replay_of_a_nonce_whose_answer_was_not_kept(signer_client: APIClient) -> None:
    # A nonce taken before answers were kept: replaying it must not store a second window.
    body = summary_body("signed-agent")
    headers = signed_headers("signing", "signed-agent", body, nonce=61)
    assert post(signer_client, body, headers).status_code == 201
    IdempotencyRecord.objects.filter(key="eip712-nonce:61").delete()
    response = post(signer_client, body, headers)
    assert (response.status_code, response.json()["type"]) == (409, "/problems/nonce-replayed")
    assert VerificationSummary.objects.count() == 1


@pytest.mark.parametrize(
    ("header", "value"),
    [
        ("NONCE", str(2**256)),
        ("NONCE", "9" * 100_000),
        ("NONCE", "-1"),
        ("NONCE", "+5"),
        ("NONCE", "0x10"),
        ("NONCE", "1_000"),
        ("NONCE", " 5"),
        ("NONCE", "\u0665"),  # an Arabic-Indic five: int() takes it
        ("NONCE", ""),
        ("DEADLINE", str(2**256)),
        ("DEADLINE", "1e10"),
    ],
)
def test_it_refuses_a_signature_header_that_is_not_a_uint256_with_400(
    signer_client: APIClient, header: str, value: str
) -> None:
    body = summary_body("signed-agent")
    headers = signed_headers("signing", "signed-agent", body, nonce=71)
    headers[f"HTTP_X_SIGNATURE_{header}"] = value
    response = post(signer_client, body, headers)
    assert response.status_code == 400
    assert response["Content-Type"].startswith("application/problem+json")
    name = f"X-Signature-{header.title()}"
    assert response.json()["header"] == name and name in response.json()["detail"]
    assert VerificationSummary.objects.count() == 0


def test_it_accepts_the_largest_uint256_nonce(signer_client: APIClient) -> None:
    body = summary_body("signed-agent")
    headers = signed_headers("signing", "signed-agent", body, nonce=2**256 - 1)
    assert post(signer_client, body, headers).status_code == 201
    assert post(signer_client, body, headers).status_code == 200
    assert VerificationSummary.objects.count() == 1


def test_it_reserves_the_nonce_keys_from_idempotency_key_headers(signer_client: APIClient) -> None:
    body = summary_body("signed-agent")
    headers = signed_headers("signing", "signed-agent", body, nonce=81)
    response = post(signer_client, body, {**headers, "HTTP_IDEMPOTENCY_KEY": "eip712-nonce:81"})
    assert response.status_code == 400
    assert response.json()["header"] == "Idempotency-Key"
