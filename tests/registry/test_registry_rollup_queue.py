"""The outcome roll-up queue keeps its mark when outcomes arrive during a roll-up, and after a crash."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from registry.models import PendingRollup, Provider, VerificationSummary
from registry.services import rollups
from registry.services.agents import agent_register
from registry.services.outcomes import outcomes_ingest


@pytest.fixture(autouse=True)
def _no_drain_on_commit(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tasks run eagerly here: the tests drive claims and roll-ups themselves."""
    monkeypatch.setattr(rollups, "_ensure_drain", lambda: None)


def post(provider: Provider, *ids: str) -> None:
    checked_at = (timezone.now() - timedelta(hours=1)).isoformat().replace("+00:00", "Z")
    outcomes = [{"id": i, "verdict": "BLOCK", "confidence": 0.9, "checkedAt": checked_at} for i in ids]
    status, _ = outcomes_ingest(provider=provider, body={"agent": "rolled", "outcomes": outcomes})
    assert status == 201


def newest_rollup_checks() -> int:
    rollups_made = VerificationSummary.objects.filter(source=VerificationSummary.Source.OUTCOMES)
    summary = rollups_made.order_by("-id").first()
    assert summary is not None
    return int(summary.total_checks)


@pytest.mark.django_db(transaction=True)
def test_it_rolls_up_again_when_outcomes_arrive_between_claim_and_settle(
    make_provider: Callable[..., tuple[Provider, str]],
) -> None:
    agent_register(subject_id="rolled", registry="hcs-10")
    provider, _ = make_provider("rolling-verifier")
    post(provider, "a")
    token, claimed = rollups._claim(10)
    assert len(claimed) == 1
    post(provider, "b")  # bumps the generation of the claimed row
    ((provider_id, agent_id), generation) = next(iter(claimed.items()))
    assert rollups._settle(token, provider_id, agent_id, generation) == 0
    assert PendingRollup.objects.get().claim is None  # released, not deleted
    assert rollups.rollup_drain() == 1
    assert not PendingRollup.objects.exists()
    assert newest_rollup_checks() == 2


@pytest.mark.django_db(transaction=True)
def test_it_gives_back_the_roll_ups_of_a_drain_that_died(
    make_provider: Callable[..., tuple[Provider, str]], settings: Any
) -> None:
    settings.SCORE_RECOMPUTE_LEASE_SECONDS = 0.5
    agent_register(subject_id="rolled", registry="hcs-10")
    provider, _ = make_provider("rolling-verifier")
    post(provider, "a", "b", "c")
    rollups._claim(10)  # ... and the worker dies
    assert rollups.rollup_drain() == 0
    time.sleep(0.6)
    assert rollups.rollup_drain() == 1
    assert newest_rollup_checks() == 3
