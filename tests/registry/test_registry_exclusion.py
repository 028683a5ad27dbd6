"""Which stored summaries count for an agent: the registry's reasons first, then the adapter's rule."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from registry.models import Agent, Provider, VerificationSummary
from registry.services.scoring import exclusion_reason

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def _summary(
    *, age: timedelta, checks: int = 40, status: str = Provider.Status.ACTIVE
) -> VerificationSummary:
    provider = Provider(slug="p", name="P", status=status, operator_address="0x" + "aa" * 20)
    return VerificationSummary(provider=provider, window_end=NOW - age, total_checks=checks)


@pytest.mark.parametrize("max_age", [30.0, 7.5, 0.25])
def test_it_turns_a_summary_stale_only_once_it_is_older_than_the_maximum_age(max_age: float) -> None:
    agent = Agent(pk=1, subject_id="a", owner_address="0x" + "bb" * 20)
    limit = timedelta(days=max_age)
    assert exclusion_reason(_summary(age=limit), agent, NOW, max_age) is None
    assert exclusion_reason(_summary(age=limit - timedelta(microseconds=1)), agent, NOW, max_age) is None
    assert exclusion_reason(_summary(age=limit + timedelta(microseconds=1)), agent, NOW, max_age) == "stale"


def test_it_gives_the_registrys_own_reasons_before_staleness_and_empty_windows() -> None:
    agent = Agent(pk=1, subject_id="a", owner_address="0x" + "AA" * 20)
    old_and_empty = timedelta(days=90)
    suspended = _summary(age=old_and_empty, checks=0, status=Provider.Status.SUSPENDED)
    assert exclusion_reason(suspended, agent, NOW, 30.0) == "suspended"
    # The provider's operator owns the agent (addresses compared without case).
    assert exclusion_reason(_summary(age=old_and_empty, checks=0), agent, NOW, 30.0) == "self-reported"
    stranger = Agent(pk=2, subject_id="b", owner_address="0x" + "cc" * 20)
    assert exclusion_reason(_summary(age=old_and_empty, checks=0), stranger, NOW, 30.0) == "stale"
    assert exclusion_reason(_summary(age=timedelta(days=1), checks=0), stranger, NOW, 30.0) == "no checks"
