"""Two batches about the same agents, posted at the same moment in opposite orders, both succeed.

Each batch marks its agents for a recompute (a row lock per agent) and may register new agents (a
unique index entry per agent); taken in request order, two such batches could wait on each other in
a cycle, which PostgreSQL breaks after `deadlock_timeout` (1 s) by failing one of them (issue 15,
point 7: one non-2xx and a p99 of 1,023 ms in the batch benchmark).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection, connections

from registry.models import Agent, PendingRecompute, Provider, VerificationSummary
from registry.services.agents import agent_register
from registry.services.summaries import summaries_ingest
from tests.registry.registry_support import summary_body

ROUNDS = 6
KNOWN = 150
NEW = 50


@pytest.fixture(autouse=True)
def _no_drain_on_commit(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tasks run eagerly here; the rounds empty the queue themselves so every mark inserts a row."""
    from registry.services import recompute

    monkeypatch.setattr(recompute, "_ensure_drain", lambda: None)


@pytest.mark.django_db(transaction=True)
def test_it_stores_two_concurrent_overlapping_batches_without_a_deadlock(
    make_provider: Callable[..., tuple[Provider, str]], settings: Any
) -> None:
    if connection.vendor != "postgresql":
        pytest.skip("row locks need PostgreSQL (set DATABASE_URL)")
    settings.AUTO_REGISTER_AGENTS = True
    known = [agent_register(subject_id=f"shared-{n:03d}").subject_id for n in range(KNOWN)]
    providers = [make_provider("left-verifier")[0], make_provider("right-verifier")[0]]
    errors: list[BaseException] = []

    for round_ in range(ROUNDS):
        PendingRecompute.objects.all().delete()
        subjects = known + [f"new-{round_}-{n:03d}" for n in range(NEW)]
        barrier = threading.Barrier(2)

        def post(
            provider: Provider, order: list[str], round_: int = round_, barrier: threading.Barrier = barrier
        ) -> None:
            bodies = [
                summary_body(s, updatedAt=f"2026-11-{round_ + 1:02d}T00:00:00Z", totalChecks=10 + round_)
                for s in order
            ]
            try:
                barrier.wait(10)
                status, _ = summaries_ingest(provider=provider, bodies=bodies, batch_key="summaries")
                assert status == 201, status
            except BaseException as exc:
                errors.append(exc)
            finally:
                connections.close_all()

        threads = [
            threading.Thread(target=post, args=(providers[0], subjects)),
            threading.Thread(target=post, args=(providers[1], subjects[::-1])),
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        assert not errors, errors

    assert VerificationSummary.objects.count() == 2 * ROUNDS * (KNOWN + NEW)
    assert Agent.objects.count() == KNOWN + ROUNDS * NEW
    assert PendingRecompute.objects.count() == KNOWN + NEW
