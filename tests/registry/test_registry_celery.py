"""Coalescing with a real Celery worker: a burst of summaries for one agent makes few recomputes."""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from rest_framework.test import APIClient

from registry.models import Agent, PendingRecompute, Provider, RecomputeRun, TrustScore
from registry.services.agents import agent_register
from tests.celery_support import REDIS_URL, redis_available, start_worker, stop_worker, wait_for, worker_queue
from tests.registry.registry_support import output_verification, summary_body

BURST = 20

__all__ = ["worker_queue"]  # the fixture, imported for pytest


@pytest.mark.django_db(transaction=True)
def test_it_coalesces_a_burst_of_summaries_into_few_recomputes(
    worker_queue: str,
    make_provider: Callable[..., tuple[Provider, str]],
    keyed_client: Callable[[str], APIClient],
    settings: Any,
    weighted_mean_config: object,  # the expected score is the SPEC 2.3 weighted mean's
) -> None:
    assert redis_available(), f"this test needs a Redis broker at {REDIS_URL} (REGISTRY_TEST_BROKER_URL)"
    settings.SCORE_RECOMPUTE_DELAY_SECONDS = 1
    agent = agent_register(subject_id="bursty", registry="hcs-10")
    _, key = make_provider("busy-verifier")
    client = keyed_client(key)
    bodies = [
        summary_body(
            "bursty",
            totalChecks=10 + 7 * i,
            blockRate=0.01 * (i % 6),
            allowRate=0.9,
            uncertainRate=0.09 - 0.01 * (i % 6),
            updatedAt=f"2026-11-01T00:{i:02d}:00Z",
        )
        for i in range(BURST)
    ]
    expected = output_verification([bodies[-1]])["total"]
    assert expected != output_verification([bodies[-2]])["total"]

    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "worker.log"
        process = start_worker(worker_queue, log)
        try:
            for body in bodies:
                response = client.post("/api/v1/summaries", body, format="json")
                assert response.status_code == 201, response.content

            def settled() -> bool:
                fresh = Agent.objects.get(pk=agent.pk)
                return (
                    fresh.trust_score is not None
                    and float(fresh.trust_score) == expected
                    and not PendingRecompute.objects.filter(agent_id=agent.pk).exists()
                )

            wait_for(settled, deadline_seconds=90, process=process, log=log)
        finally:
            stop_worker(process)

    runs = RecomputeRun.objects.filter(agent_id=agent.pk).count()
    assert 1 <= runs <= 3, f"{runs} recomputes for a burst of {BURST}"
    scores = TrustScore.objects.filter(agent_id=agent.pk)
    assert scores.count() <= runs
    latest = scores.order_by("-computed_at", "-id").first()
    assert latest is not None
    assert float(latest.trust_score) == expected
    assert latest.record["provenance"]["summaryIds"] == {
        "busy-verifier": max(s.pk for s in agent.summaries.all())
    }
