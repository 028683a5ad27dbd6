"""Racing retries: concurrent identical pushes store one summary and answer the rest as replays."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection
from rest_framework.test import APIClient

from registry.models import IdempotencyRecord, Provider, VerificationSummary
from registry.services.agents import agent_register
from tests.registry.registry_support import summary_body

THREADS = 6


def race(key: str, body: dict[str, Any], headers: dict[str, Any]) -> list[int]:
    barrier = threading.Barrier(THREADS)
    statuses: list[int] = []
    errors: list[BaseException] = []

    def push() -> None:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
        try:
            barrier.wait(timeout=10)
            statuses.append(client.post("/api/v1/summaries", body, format="json", **headers).status_code)
        except BaseException as exc:  # collected and re-raised in the test thread
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=push) for _ in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not errors, errors
    return sorted(statuses)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("idempotency", [False, True], ids=["same window", "same idempotency key"])
def test_it_stores_one_summary_from_racing_identical_pushes(
    idempotency: bool, make_provider: Callable[..., tuple[Provider, str]]
) -> None:
    agent_register(subject_id="raced")
    _, key = make_provider("racer")
    if idempotency:
        body, headers = summary_body("raced"), {"HTTP_IDEMPOTENCY_KEY": "retry-1"}
    else:
        body, headers = summary_body("raced", updatedAt="2026-11-01T00:00:00Z"), {}
    statuses = race(key, body, headers)
    assert statuses == [200] * (THREADS - 1) + [201]
    assert VerificationSummary.objects.count() == 1
    assert IdempotencyRecord.objects.count() == (1 if idempotency else 0)
