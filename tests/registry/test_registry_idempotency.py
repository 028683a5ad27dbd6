"""Idempotency, all-or-nothing batches, durability and append-only storage of summaries."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from rest_framework.test import APIClient

from registry.models import (
    AppendOnlyError,
    CheckOutcome,
    PendingRecompute,
    Provider,
    ScoringConfig,
    TrustScore,
    VerificationSummary,
)
from registry.services.agents import agent_register
from tests.registry.registry_support import summary_body

pytestmark = pytest.mark.django_db

WINDOW = "2026-11-01T00:00:00Z"


@pytest.fixture
def client(provider_client: tuple[Provider, APIClient]) -> APIClient:
    agent_register(subject_id="agent-i")
    return provider_client[1]


def test_it_creates_then_replays_the_same_window_and_body(client: APIClient) -> None:
    body = summary_body("agent-i", updatedAt=WINDOW)
    first = client.post("/api/v1/summaries", body, format="json")
    assert first.status_code == 201
    assert first.json()["status"] == "created"
    again = client.post("/api/v1/summaries", body, format="json")
    assert again.status_code == 200
    assert again.json()["status"] == "replayed"
    assert again.json()["id"] == first.json()["id"]
    assert VerificationSummary.objects.count() == 1


def test_it_refuses_a_different_body_for_a_stored_window_with_409(client: APIClient) -> None:
    assert (
        client.post("/api/v1/summaries", summary_body("agent-i", updatedAt=WINDOW), format="json").status_code
        == 201
    )
    response = client.post(
        "/api/v1/summaries", summary_body("agent-i", updatedAt=WINDOW, totalChecks=20), format="json"
    )
    assert response.status_code == 409
    assert response["Content-Type"].startswith("application/problem+json")
    assert [e["field"] for e in response.json()["errors"]] == ["updatedAt"]
    assert VerificationSummary.objects.get().total_checks == 10


def test_it_stores_a_new_window_of_the_same_provider_and_agent(client: APIClient) -> None:
    client.post("/api/v1/summaries", summary_body("agent-i", updatedAt=WINDOW), format="json")
    other = client.post(
        "/api/v1/summaries",
        summary_body("agent-i", updatedAt="2026-11-02T00:00:00Z", totalChecks=20),
        format="json",
    )
    assert other.status_code == 201
    assert VerificationSummary.objects.count() == 2


def test_it_keeps_windows_of_different_providers_apart(
    client: APIClient, make_provider: Any, keyed_client: Any
) -> None:
    _, key = make_provider("second")
    body = summary_body("agent-i", updatedAt=WINDOW)
    assert client.post("/api/v1/summaries", body, format="json").status_code == 201
    assert keyed_client(key).post("/api/v1/summaries", body, format="json").status_code == 201
    assert VerificationSummary.objects.count() == 2


def test_it_replays_an_idempotency_key_with_the_same_answer(client: APIClient) -> None:
    body = summary_body("agent-i")  # no updatedAt: only the key makes the retry safe
    first = client.post("/api/v1/summaries", body, format="json", HTTP_IDEMPOTENCY_KEY="req-1")
    assert first.status_code == 201
    retry = client.post("/api/v1/summaries", body, format="json", HTTP_IDEMPOTENCY_KEY="req-1")
    assert retry.status_code == 200
    # The first answer, told as a replay: the same summary, nothing stored this time.
    assert first.json()["status"] == "created" and retry.json()["status"] == "replayed"
    assert {**retry.json(), "status": "created"} == first.json()
    assert VerificationSummary.objects.count() == 1
    fresh = client.post("/api/v1/summaries", body, format="json", HTTP_IDEMPOTENCY_KEY="req-2")
    assert fresh.status_code == 201
    assert VerificationSummary.objects.count() == 2


def test_it_refuses_an_idempotency_key_reused_for_another_body_with_409(client: APIClient) -> None:
    client.post("/api/v1/summaries", summary_body("agent-i"), format="json", HTTP_IDEMPOTENCY_KEY="req-1")
    response = client.post(
        "/api/v1/summaries",
        summary_body("agent-i", totalChecks=99),
        format="json",
        HTTP_IDEMPOTENCY_KEY="req-1",
    )
    assert response.status_code == 409
    assert response["Content-Type"].startswith("application/problem+json")
    assert response.json()["idempotencyKey"] == "req-1"
    assert VerificationSummary.objects.count() == 1


def test_it_scopes_idempotency_keys_to_the_provider(
    client: APIClient, make_provider: Any, keyed_client: Any
) -> None:
    _, key = make_provider("second")
    body = summary_body("agent-i")
    assert client.post("/api/v1/summaries", body, format="json", HTTP_IDEMPOTENCY_KEY="k").status_code == 201
    other = keyed_client(key).post("/api/v1/summaries", body, format="json", HTTP_IDEMPOTENCY_KEY="k")
    assert other.status_code == 201
    assert other.json()["provider"] == "second"


def test_it_replays_a_batch_idempotency_key(client: APIClient) -> None:
    items = [summary_body("agent-i", totalChecks=10 + i) for i in range(3)]
    # Without updatedAt all three would share "now" as the window; give each its own.
    for i, item in enumerate(items):
        item["updatedAt"] = f"2026-10-0{i + 1}T00:00:00Z"
    first = client.post(
        "/api/v1/summaries/batch", {"summaries": items}, format="json", HTTP_IDEMPOTENCY_KEY="b1"
    )
    assert first.status_code == 201
    assert first.json()["created"] == 3
    retry = client.post(
        "/api/v1/summaries/batch", {"summaries": items}, format="json", HTTP_IDEMPOTENCY_KEY="b1"
    )
    assert retry.status_code == 200
    assert (retry.json()["created"], retry.json()["replayed"]) == (0, 3)
    assert [r["status"] for r in retry.json()["results"]] == ["replayed"] * 3
    assert [r["id"] for r in retry.json()["results"]] == [r["id"] for r in first.json()["results"]]
    again = client.post("/api/v1/summaries/batch", {"summaries": items}, format="json")
    assert again.status_code == 200
    assert (again.json()["created"], again.json()["replayed"]) == (0, 3)
    assert VerificationSummary.objects.count() == 3


def test_it_stores_nothing_from_a_batch_with_one_invalid_item(client: APIClient) -> None:
    items = [summary_body("agent-i", updatedAt=f"2026-10-0{i + 1}T00:00:00Z") for i in range(4)]
    items[2]["totalChecks"] = -3
    response = client.post("/api/v1/summaries/batch", {"summaries": items}, format="json")
    assert response.status_code == 400
    assert VerificationSummary.objects.count() == 0


def test_it_stores_nothing_from_a_batch_with_one_conflicting_item(client: APIClient) -> None:
    client.post("/api/v1/summaries", summary_body("agent-i", updatedAt=WINDOW), format="json")
    items = [summary_body("agent-i", updatedAt=f"2026-10-0{i + 1}T00:00:00Z") for i in range(3)]
    items.append(summary_body("agent-i", updatedAt=WINDOW, totalChecks=50))
    response = client.post("/api/v1/summaries/batch", {"summaries": items}, format="json")
    assert response.status_code == 409
    assert [e["field"] for e in response.json()["errors"]] == ["summaries[3].updatedAt"]
    assert VerificationSummary.objects.count() == 1


def test_it_stores_nothing_from_a_batch_naming_an_unknown_agent(client: APIClient) -> None:
    items = [summary_body("agent-i", updatedAt=f"2026-10-0{i + 1}T00:00:00Z") for i in range(3)]
    items.append(summary_body("ghost", updatedAt=WINDOW))
    response = client.post("/api/v1/summaries/batch", {"summaries": items}, format="json")
    assert response.status_code == 400
    assert [e["field"] for e in response.json()["errors"]] == ["summaries[3].agent"]
    assert VerificationSummary.objects.count() == 0


def test_it_answers_every_item_of_a_mixed_batch_in_order(client: APIClient, settings: Any) -> None:
    # New windows of a known agent, a stored window sent again, a duplicate inside the batch and an
    # agent registered on first report: on PostgreSQL the first kind takes the one-statement insert and
    # the others the general path, and the answer must still list every item in request order.
    settings.AUTO_REGISTER_AGENTS = True
    stored = client.post("/api/v1/summaries", summary_body("agent-i", updatedAt=WINDOW), format="json").json()
    items = [
        summary_body("agent-i", updatedAt="2026-10-01T00:00:00Z"),
        summary_body("agent-i", updatedAt=WINDOW),
        summary_body("newcomer", updatedAt=WINDOW, agentRegistry="hcs-10"),
        summary_body("agent-i", updatedAt="2026-10-01T00:00:00Z"),
        summary_body("agent-i", updatedAt="2026-10-02T00:00:00Z", windowDays=30),
    ]
    response = client.post("/api/v1/summaries/batch", {"summaries": items}, format="json")
    assert response.status_code == 201, response.json()
    answer = response.json()
    assert (answer["created"], answer["replayed"]) == (3, 2)
    results = answer["results"]
    assert [r["status"] for r in results] == ["created", "replayed", "created", "replayed", "created"]
    assert [r["agent"] for r in results] == ["agent-i", "agent-i", "newcomer", "agent-i", "agent-i"]
    assert results[1]["id"] == stored["id"]
    assert results[3]["id"] == results[0]["id"]
    assert results[4]["windowDays"] == 30
    assert VerificationSummary.objects.count() == 4
    for result in results:
        row = VerificationSummary.objects.get(pk=result["id"])
        assert row.body_digest == result["bodyDigest"]
        assert row.window_end.isoformat().replace("+00:00", "Z") == result["windowEnd"]
    assert PendingRecompute.objects.filter(agent__subject_id__in=["agent-i", "newcomer"]).count() == 2


def test_it_makes_an_accepted_summary_durable_before_answering(client: APIClient) -> None:
    body = summary_body(
        "agent-i", updatedAt=WINDOW, stakeDistribution={"low": {"checks": 4}, "micro": {"checks": 3}}
    )
    response = client.post("/api/v1/summaries", body, format="json")
    assert response.status_code == 201
    # Read with raw SQL on the same connection: the row is in the table, not just in an ORM cache.
    table = VerificationSummary._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT total_checks, block_rate, source FROM {table} WHERE id = %s", [response.json()["id"]]
        )
        assert cursor.fetchone() == (10, 0.1, "push")
    stored = VerificationSummary.objects.get(pk=response.json()["id"])
    assert stored.raw_body == body
    assert stored.stake_distribution == {"low": {"checks": 4}, "micro": {"checks": 3}}
    assert stored.window_end.isoformat() == "2026-11-01T00:00:00+00:00"
    assert stored.body_digest == response.json()["bodyDigest"]


@pytest.mark.parametrize("model", [VerificationSummary, TrustScore, ScoringConfig, CheckOutcome])
def test_it_refuses_to_change_or_delete_append_only_rows(
    client: APIClient, committed: Any, model: type[Any]
) -> None:
    committed(
        lambda: client.post("/api/v1/summaries", summary_body("agent-i", updatedAt=WINDOW), format="json")
    )
    client.post(
        "/api/v1/outcomes",
        {
            "agent": "agent-i",
            "outcomes": [{"id": "o", "verdict": "ALLOW", "confidence": 1, "checkedAt": WINDOW}],
        },
        format="json",
    )
    row = model.objects.first()
    assert row is not None
    with pytest.raises(AppendOnlyError):
        row.save()
    with pytest.raises(AppendOnlyError):
        row.delete()
    with pytest.raises(AppendOnlyError):
        model.objects.all().delete()
    with pytest.raises(AppendOnlyError):
        model.objects.filter(pk=row.pk).update(pk=row.pk)
    assert model.objects.filter(pk=row.pk).exists()


def test_it_refuses_an_overlong_idempotency_key(client: APIClient) -> None:
    response = client.post(
        "/api/v1/summaries", summary_body("agent-i"), format="json", HTTP_IDEMPOTENCY_KEY="k" * 256
    )
    assert response.status_code == 400
    assert VerificationSummary.objects.count() == 0


def test_it_refuses_an_idempotency_key_reused_on_another_endpoint(client: APIClient) -> None:
    client.post("/api/v1/summaries", summary_body("agent-i"), format="json", HTTP_IDEMPOTENCY_KEY="shared")
    outcomes = {
        "agent": "agent-i",
        "outcomes": [{"id": "o", "verdict": "ALLOW", "confidence": 1, "checkedAt": WINDOW}],
    }
    response = client.post("/api/v1/outcomes", outcomes, format="json", HTTP_IDEMPOTENCY_KEY="shared")
    assert response.status_code == 409
    assert CheckOutcome.objects.count() == 0


def test_it_names_a_bad_idempotency_key_header_in_errors(provider_client: tuple[Any, APIClient]) -> None:
    _, client = provider_client
    response = client.post(
        "/api/v1/summaries", summary_body("keyed"), format="json", HTTP_IDEMPOTENCY_KEY="k" * 256
    )
    assert response.status_code == 400
    (error,) = response.json()["errors"]
    assert (error["field"], error["header"], error["pointer"]) == ("Idempotency-Key", "Idempotency-Key", "")
    assert "Idempotency-Key" in response.json()["detail"]
