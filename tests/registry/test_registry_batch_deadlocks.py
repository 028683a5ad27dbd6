"""Concurrent overlapping batches (issue 22): no deadlock reaches a client, every summary stored once.

Sixteen threads post batches of 200-1,000 summaries through the API at the same time. Each batch is
a random sample, in a random order, of its provider's pool of windows, so batches of one provider
insert the same windows (and every batch marks the same agents for a recompute) in different orders.
On PostgreSQL this deadlocked (`DeadlockDetected`, a 500) when each request took its locks in the
order of its items.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection
from rest_framework.test import APIClient

from registry.models import Agent, PendingRecompute, Provider, VerificationSummary
from registry.services.recompute import recompute_drain
from tests.registry.registry_support import summary_body

THREADS = 16
PROVIDERS = 4
AGENTS = 500
WINDOWS = ("2026-11-01T00:00:00Z", "2026-11-02T00:00:00Z")  # 1,000 windows per provider


def _pool(provider_index: int) -> list[dict[str, Any]]:
    """Every window a provider may send; the same window always has the same body (a replay)."""
    return [
        summary_body(
            f"overlap-{agent}",
            updatedAt=window,
            allowRate=round(0.5 + ((agent * 7 + provider_index) % 50) / 100, 2),
            blockRate=round(0.5 - ((agent * 7 + provider_index) % 50) / 100, 2),
        )
        for agent in range(AGENTS)
        for window in WINDOWS
    ]


@pytest.mark.django_db(transaction=True)
def test_it_answers_every_overlapping_concurrent_batch_and_stores_each_summary_once(
    make_provider: Callable[..., tuple[Provider, str]],
) -> None:
    if connection.vendor != "postgresql":
        pytest.skip("lock ordering and deadlock retries are PostgreSQL behaviour")
    Agent.objects.bulk_create([Agent(subject_id=f"overlap-{agent}") for agent in range(AGENTS)])
    keys = [make_provider(f"overlap-provider-{i}")[1] for i in range(PROVIDERS)]
    pools = [_pool(i) for i in range(PROVIDERS)]
    rng = random.Random(22)
    plans = []
    for n in range(THREADS):
        provider_index = n % PROVIDERS
        pool = pools[provider_index]
        plans.append((provider_index, rng.sample(pool, rng.randint(200, len(pool)))))

    barrier = threading.Barrier(THREADS)
    answers: list[tuple[int, Any]] = []
    errors: list[BaseException] = []

    def post(provider_index: int, items: list[dict[str, Any]]) -> None:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {keys[provider_index]}")
        try:
            barrier.wait(timeout=30)
            response = client.post("/api/v1/summaries/batch", {"summaries": items}, format="json")
            answers.append((response.status_code, response.json()))
        except BaseException as exc:  # collected and re-raised in the test thread
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=post, args=plan) for plan in plans]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=600)
    assert not errors, errors
    failed = [(status, body) for status, body in answers if status not in (200, 201)]
    assert not failed, failed[:2]
    assert len(answers) == THREADS

    sent = {
        (f"overlap-provider-{provider_index}", item["agent"], item["updatedAt"])
        for provider_index, items in plans
        for item in items
    }
    stored = list(
        VerificationSummary.objects.values_list("provider__slug", "agent__subject_id", "window_end")
    )
    assert len(stored) == len(set(stored)) == len(sent)
    assert {(p, a, w.isoformat().replace("+00:00", "Z")) for p, a, w in stored} == sent
    # Exactly one answer created each window; the others replayed it.
    assert sum(body["created"] for _, body in answers) == len(sent)
    # Every agent that got a summary was marked: once the queue is drained, each has a score.
    recompute_drain()
    assert not PendingRecompute.objects.exists()
    scored = set(Agent.objects.filter(latest_score__isnull=False).values_list("subject_id", flat=True))
    assert scored == {agent for _, agent, _ in sent}
