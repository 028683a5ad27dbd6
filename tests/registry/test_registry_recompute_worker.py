"""A Celery worker killed (SIGKILL) in the middle of a drain loses no recompute: its claims come back.

Nobody queues a drain by hand and no beat runs: the new worker drains when it starts, and a drain
that finds the dead worker's rows still leased queues the drain that takes them when the lease
lapses (whether the start-up drain meets the lease still running depends on how long the worker
takes to start; the second test checks the follow-up drain on its own, on the real broker).
"""

from __future__ import annotations

import json
import os
import signal
import tempfile
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from django.core.cache import cache
from django.db import connection
from django.utils import timezone

from registry.models import Agent, PendingRecompute, Provider, VerificationSummary
from registry.services import recompute
from registry.services.summaries import summaries_ingest
from tests.celery_support import REDIS_URL, redis_available, start_worker, stop_worker, wait_for, worker_queue
from tests.registry.registry_support import summary_body

__all__ = ["worker_queue"]  # the fixture, imported for pytest

AGENTS = 800  # four claims of 200: the kill lands while most of them are still to do
# What is left of the dead worker's lease when the new worker is started (set by the test: a lease
# renewed just before the kill).
LEASE_LEFT_SECONDS = 4


def every_agent_scores_its_summary(provider: Provider) -> bool:
    if PendingRecompute.objects.exists():
        return False
    rows = Agent.objects.filter(subject_id__startswith="killed-").select_related("latest_score")
    newest = dict(VerificationSummary.objects.filter(provider=provider).values_list("agent_id", "pk"))
    return all(
        agent.latest_score is not None
        and agent.latest_score.record["provenance"]["summaryIds"] == {provider.slug: newest[agent.pk]}
        for agent in rows
    )


@pytest.mark.django_db(transaction=True)
def test_it_rescores_every_agent_by_itself_after_a_worker_is_killed_mid_drain(
    worker_queue: str,
    make_provider: Callable[..., tuple[Provider, str]],
    settings: Any,
) -> None:
    if connection.vendor != "postgresql":
        pytest.skip("a worker process shares the database only on PostgreSQL here (set DATABASE_URL)")
    assert redis_available(), "this test needs a Redis broker (REGISTRY_TEST_BROKER_URL)"
    settings.AUTO_REGISTER_AGENTS = True
    cache.delete_many([recompute.DRAIN_FLAG, recompute.LEASE_FLAG])  # none left by an earlier test
    provider, _ = make_provider("kill-verifier")
    for start in range(0, AGENTS, 200):
        summaries_ingest(
            provider=provider,
            bodies=[summary_body(f"killed-{n}", totalChecks=10 + n) for n in range(start, start + 200)],
        )
    assert PendingRecompute.objects.count() == AGENTS

    with tempfile.TemporaryDirectory() as tmp:
        first_log, second_log = Path(tmp) / "first.log", Path(tmp) / "second.log"
        first = start_worker(worker_queue, first_log)
        try:
            # The drain the ingest queued starts; kill the worker as soon as it holds a claim.
            deadline = time.monotonic() + 60
            while not PendingRecompute.objects.filter(claim__isnull=False).exists():
                assert first.poll() is None, first_log.read_text()[-4000:]
                assert time.monotonic() < deadline, f"no drain started:\n{first_log.read_text()[-4000:]}"
                time.sleep(0.005)
            os.kill(first.pid, signal.SIGKILL)
            first.wait(timeout=10)
        finally:
            stop_worker(first)
        left = PendingRecompute.objects.count()
        dead_claims = PendingRecompute.objects.filter(claim__isnull=False)
        assert dead_claims.exists(), "the kill missed the drain"
        assert 0 < left <= AGENTS
        dead_claims.update(claimed_until=timezone.now() + timedelta(seconds=LEASE_LEFT_SECONDS))

        second = start_worker(worker_queue, second_log)
        try:
            wait_for(
                lambda: every_agent_scores_its_summary(provider),
                deadline_seconds=120,
                process=second,
                log=second_log,
            )
        finally:
            stop_worker(second)


@pytest.mark.django_db(transaction=True)
def test_it_queues_a_drain_for_when_another_drains_lease_lapses(
    worker_queue: str, make_provider: Callable[..., tuple[Provider, str]], settings: Any
) -> None:
    if connection.vendor != "postgresql":
        pytest.skip("SKIP LOCKED claims need PostgreSQL (set DATABASE_URL)")
    assert redis_available(), "this test needs a Redis broker (REGISTRY_TEST_BROKER_URL)"
    import redis

    settings.AUTO_REGISTER_AGENTS = True
    settings.SCORE_RECOMPUTE_LEASE_SECONDS = 30
    cache.delete_many([recompute.DRAIN_FLAG, recompute.LEASE_FLAG])
    provider, _ = make_provider("lapse-verifier")
    summaries_ingest(provider=provider, bodies=[summary_body("lapsed-0", totalChecks=10)])
    dead = recompute.recompute_claim()  # ... and its worker dies: nothing renews the lease
    assert len(dead.generations) == 1
    lapses_at = PendingRecompute.objects.get().claimed_until
    assert lapses_at is not None

    broker = redis.Redis.from_url(REDIS_URL)

    def followups() -> list[dict[str, Any]]:
        messages = [json.loads(raw) for raw in broker.lrange(worker_queue, 0, -1)]
        return [
            message["headers"]
            for message in messages
            if message["headers"]["task"] == "registry.tasks.drain_recomputes"
            and "lease_followup" in message["headers"]["kwargsrepr"]
        ]

    assert recompute.recompute_drain() == 0  # nothing to claim: the row is leased
    queued = followups()
    assert len(queued) == 1
    # Due once the lease has lapsed, not before.
    assert datetime.fromisoformat(queued[0]["eta"]) >= lapses_at
    assert recompute.recompute_drain() == 0
    assert len(followups()) == 1  # one at a time, however many drains end
