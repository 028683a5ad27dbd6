"""The typed domain services under the ingest shells (issue 15): in-process callers store summaries,
outcomes and feedback without building a JSON body, and get what an HTTP post would have stored."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from common.errors import ApplicationError
from registry.models import (
    Agent,
    CheckOutcome,
    FeedbackEntry,
    PendingRecompute,
    PendingRollup,
    Provider,
    VerificationSummary,
)
from registry.services.agents import agent_register
from registry.services.feedback import Feedback, feedback_record, feedback_revoke
from registry.services.outcomes import outcome_body, outcomes_record
from registry.services.summaries import summaries_record, summary_body
from registry.services.validation import (
    NormalisedOutcome,
    NormalisedSummary,
    outcome_validate,
    summary_validate,
)
from signing.canonical import canonical_digest
from tests.registry.registry_support import summary_body as posted_summary

pytestmark = pytest.mark.django_db


@pytest.fixture
def agent(db: None) -> Agent:
    return agent_register(subject_id="typed-agent", registry="hcs-10")


def _normalised_summary(body: dict[str, Any]) -> NormalisedSummary:
    item, errors = summary_validate(body, prefix=[])
    assert errors == [] and item is not None
    return item


def test_it_stores_a_typed_summary_and_marks_its_agent(
    provider_client: tuple[Provider, APIClient], agent: Agent
) -> None:
    provider = provider_client[0]
    ended = (timezone.now() - timedelta(minutes=5)).replace(microsecond=0)
    item = _normalised_summary(posted_summary(agent.subject_id, updatedAt=ended.isoformat(), totalChecks=41))
    [result] = summaries_record(provider=provider, summaries=[item])
    stored = VerificationSummary.objects.get(pk=result.summary_id)
    assert result.created is True
    assert (stored.agent_id, stored.total_checks, stored.window_end) == (agent.pk, 41, ended)
    # With no body given, the stored body is the summary in the SPEC's field names, digested as such.
    assert stored.raw_body == summary_body(item)
    assert stored.raw_body["totalChecks"] == 41 and stored.raw_body["agent"] == agent.subject_id
    assert stored.body_digest == canonical_digest(stored.raw_body)
    assert PendingRecompute.objects.filter(agent=agent).exists()


def test_it_replays_over_the_typed_service_what_was_posted_over_http(
    provider_client: tuple[Provider, APIClient], agent: Agent
) -> None:
    provider, client = provider_client
    ended = (timezone.now() - timedelta(hours=1)).replace(microsecond=0).isoformat().replace("+00:00", "Z")
    body = posted_summary(agent.subject_id, updatedAt=ended, agentRegistry="hcs-10")
    assert client.post("/api/v1/summaries", body, format="json").status_code == 201
    # The rendered body of the same summary has the posted digest, so it is the same window's replay.
    [result] = summaries_record(provider=provider, summaries=[_normalised_summary(body)])
    assert result.created is False
    assert VerificationSummary.objects.filter(agent=agent).count() == 1


def test_it_refuses_a_typed_summary_for_a_stored_window_with_other_numbers(
    provider_client: tuple[Provider, APIClient], agent: Agent
) -> None:
    provider = provider_client[0]
    ended = (timezone.now() - timedelta(hours=2)).replace(microsecond=0).isoformat()
    first = _normalised_summary(posted_summary(agent.subject_id, updatedAt=ended, totalChecks=12))
    other = _normalised_summary(posted_summary(agent.subject_id, updatedAt=ended, totalChecks=13))
    summaries_record(provider=provider, summaries=[first])
    with pytest.raises(ApplicationError) as refused:
        summaries_record(provider=provider, summaries=[other])
    assert refused.value.status == 409
    # The default locator names the summary by its index in the call.
    assert [e.pointer for e in refused.value.errors] == ["/0/updatedAt"]
    assert VerificationSummary.objects.filter(agent=agent).count() == 1


def test_it_keeps_http_pointers_for_a_conflict_in_a_posted_batch(
    provider_client: tuple[Provider, APIClient], agent: Agent
) -> None:
    client = provider_client[1]
    ended = (timezone.now() - timedelta(hours=3)).replace(microsecond=0).isoformat()
    first = posted_summary(agent.subject_id, updatedAt=ended, totalChecks=20)
    assert client.post("/api/v1/summaries", first, format="json").status_code == 201
    other = posted_summary(agent.subject_id, updatedAt=ended, totalChecks=21)
    batch = {"summaries": [posted_summary(agent.subject_id, windowDays=30), other]}
    response = client.post("/api/v1/summaries/batch", batch, format="json")
    assert response.status_code == 409
    assert [e["pointer"] for e in response.json()["errors"]] == ["/summaries/1/updatedAt"]


def _outcome(outcome_id: str, verdict: str = "ALLOW", confidence: float = 0.75) -> NormalisedOutcome:
    return NormalisedOutcome(
        outcome_id=outcome_id,
        verdict=verdict,
        reported_verdict=verdict,
        confidence=confidence,
        stake="medium",
        checked_at=(timezone.now() - timedelta(minutes=30)).replace(microsecond=0),
    )


def test_it_stores_typed_outcomes_and_coalesces_their_rollup_marks(
    provider_client: tuple[Provider, APIClient], agent: Agent
) -> None:
    provider = provider_client[0]
    first = outcomes_record(provider=provider, agent=agent, outcomes=[_outcome("t-1"), _outcome("t-2")])
    again = outcomes_record(provider=provider, agent=agent, outcomes=[_outcome("t-2"), _outcome("t-3")])
    assert (first.created, first.replayed) == (2, 0)
    assert (again.created, again.replayed) == (1, 1)
    assert sorted(CheckOutcome.objects.values_list("outcome_id", flat=True)) == ["t-1", "t-2", "t-3"]
    # One pending roll-up for the pair, its generation bumped by each call that stored something.
    [pending] = PendingRollup.objects.filter(provider=provider, agent=agent)
    assert pending.generation == 2


def test_it_refuses_a_typed_outcome_id_reused_for_another_verdict(
    provider_client: tuple[Provider, APIClient], agent: Agent
) -> None:
    provider = provider_client[0]
    outcomes_record(provider=provider, agent=agent, outcomes=[_outcome("t-9", "ALLOW")])
    with pytest.raises(ApplicationError) as refused:
        outcomes_record(provider=provider, agent=agent, outcomes=[_outcome("t-9", "BLOCK")])
    assert refused.value.status == 409
    assert [e.pointer for e in refused.value.errors] == ["/0/id"]
    assert CheckOutcome.objects.get(outcome_id="t-9").verdict == "ALLOW"


def test_it_digests_a_typed_outcome_as_its_posted_body(agent: Agent) -> None:
    posted = {
        "id": "t-20",
        "verdict": "BLOCK",
        "confidence": 0.6,
        "stake": "high",
        "checkedAt": (timezone.now() - timedelta(hours=1)).isoformat().replace("+00:00", "Z"),
    }
    item, errors = outcome_validate(posted, prefix=[])
    assert errors == [] and item is not None
    # Outcomes stored before this service existed were digested from such bodies: they still replay.
    assert canonical_digest(outcome_body(item)) == canonical_digest(posted)


def test_it_refuses_typed_writes_of_a_suspended_provider(
    provider_client: tuple[Provider, APIClient], agent: Agent
) -> None:
    provider = provider_client[0]
    Provider.objects.filter(pk=provider.pk).update(status=Provider.Status.SUSPENDED)
    provider.refresh_from_db()
    with pytest.raises(ApplicationError) as refused:
        outcomes_record(provider=provider, agent=agent, outcomes=[_outcome("t-30")])
    assert refused.value.status == 403
    assert not CheckOutcome.objects.filter(outcome_id="t-30").exists()


def _feedback(index: int, value: int = 80) -> Feedback:
    return Feedback(
        client_address="0x00000000000000000000000000000000000000c1",
        feedback_index=index,
        value=Decimal(value),
        value_decimals=0,
        tag1="starred",
        tag2="",
        block_number=100 + index,
    )


def test_it_stores_feedback_and_marks_the_agent(agent: Agent) -> None:
    feedback_record(agent=agent, feedback=_feedback(1, 70))
    feedback_record(agent=agent, feedback=_feedback(1, 90))  # read twice: replaced, not added
    [entry] = FeedbackEntry.objects.filter(agent=agent)
    assert (entry.value, entry.revoked, entry.block_number) == (Decimal(90), False, 101)
    assert PendingRecompute.objects.filter(agent=agent).exists()


def test_it_revokes_known_feedback_and_reports_unknown_feedback(agent: Agent) -> None:
    feedback_record(agent=agent, feedback=_feedback(2))
    PendingRecompute.objects.filter(agent=agent).delete()
    assert feedback_revoke(agent=agent, client_address=_feedback(2).client_address, feedback_index=2)
    assert FeedbackEntry.objects.get(agent=agent, feedback_index=2).revoked is True
    assert PendingRecompute.objects.filter(agent=agent).exists()
    PendingRecompute.objects.filter(agent=agent).delete()
    # Unknown feedback: nothing changed, so nothing is marked; the caller reads it from the chain.
    assert not feedback_revoke(agent=agent, client_address=_feedback(3).client_address, feedback_index=3)
    assert not PendingRecompute.objects.filter(agent=agent).exists()
    feedback_record(agent=agent, feedback=_feedback(3), revoked=True)
    assert FeedbackEntry.objects.get(agent=agent, feedback_index=3).revoked is True


def test_it_records_engine_outcomes_with_the_digest_of_the_body_it_used_to_post(db: None) -> None:
    from verification.services.engine_provider import engine_outcome_record

    agent_register(subject_id="engine-checked", registry="hcs-10")
    moment = (timezone.now() - timedelta(minutes=2)).replace(microsecond=0)
    answer = engine_outcome_record(
        agent="engine-checked",
        verification_id="run-7",
        verdict="revise",
        confidence=1.4,
        stake="low",
        checked_at=moment,
    )
    assert answer == {"agent": "engine-checked", "created": 1, "replayed": 0}
    stored = CheckOutcome.objects.get(outcome_id="run-7")
    # The body the engine used to fabricate for outcomes_ingest: a verification recorded before the
    # typed service existed replays instead of conflicting.
    old_body = {
        "id": "run-7",
        "verdict": "UNCERTAIN",
        "confidence": 1.0,
        "stake": "low",
        "checkedAt": moment.isoformat().replace("+00:00", "Z"),
    }
    assert (stored.verdict, stored.confidence) == ("UNCERTAIN", 1.0)
    assert stored.body_digest == canonical_digest(old_body)
    again = engine_outcome_record(
        agent="engine-checked",
        verification_id="run-7",
        verdict="flag",
        confidence=1.0,
        stake="low",
        checked_at=moment,
    )
    assert again == {"agent": "engine-checked", "created": 0, "replayed": 1}
