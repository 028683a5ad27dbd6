"""The drain's batch scoring under the default configuration, the sybil floor (SPEC 2.4).

The batch (`adapters.vectorised.hcs25_records`) takes each agent's reviewer standings: a record it
stores must be the one `score_subject` makes from the same inputs and standings, byte for byte,
and the one the agent gets when it is scored alone.
"""

from __future__ import annotations

import json
import random
from datetime import timedelta
from decimal import Decimal

import pytest
from django.core.management import call_command
from django.utils import timezone

from adapters.scoring import Subject, score_subject
from adapters.vectorised import batch_supported
from registry.models import Agent, FeedbackEntry
from registry.services.recompute import recompute_drain, recompute_mark
from registry.services.scoring import (
    _inputs_from,
    latest_summary_rows_many,
    reviewer_evidence_many,
    scoring_config_current,
    scoring_params,
    trust_scores_prepare,
)
from tests.registry.test_registry_recompute_batch_scoring import FIELDS, _random_registry

pytestmark = pytest.mark.django_db(transaction=True)


def _reviewers(rng: random.Random, agents: list[Agent]) -> list[Agent]:
    """Add established reviewers with a spread of ratings and a fresh ring rating the same agents."""
    entries = []
    first = []
    for index in range(12):
        address = f"0x{index + 0x100:040x}"
        rated = rng.sample(agents, rng.randint(2, 6))
        for n, agent in enumerate(rated):
            entries.append(
                FeedbackEntry(
                    agent=agent,
                    client_address=address,
                    feedback_index=n,
                    value=rng.randint(40, 100),
                    tag1="starred",
                )
            )
        first.append((address, rated[0]))
    ring = rng.sample(agents, 5)
    for index in range(8):
        for n, agent in enumerate(ring):
            entries.append(
                FeedbackEntry(
                    agent=agent,
                    client_address=f"0x{index + 0x900:040x}",
                    feedback_index=n,
                    value=100,
                    tag1="starred",
                )
            )
    FeedbackEntry.objects.bulk_create(entries)
    # created_at is set on insert: each established wallet gave its first rating 200 days ago, so it
    # is old when it rates the others (the ring's wallets are all new).
    old = timezone.now() - timedelta(days=200)
    for address, agent in first:
        FeedbackEntry.objects.filter(client_address=address, agent=agent).update(created_at=old)
    return list(Agent.objects.select_related("latest_score").order_by("pk"))


@pytest.mark.parametrize("seed", [1, 2])
def test_it_scores_a_batch_under_the_sybil_floor_exactly_as_the_scalar_path(seed: int) -> None:
    call_command("scoring_config_sybil_floor")
    rng = random.Random(seed)
    agents = _reviewers(rng, _random_registry(rng, 40))
    now = timezone.now()
    params = scoring_params(scoring_config_current())
    assert params.reviewer_weighting() and batch_supported(params)
    together, fresh = trust_scores_prepare(agents=agents, now=now)
    assert len(fresh) == len(agents)
    evidence = reviewer_evidence_many(agents, params, now)
    rows = latest_summary_rows_many([agent.pk for agent in agents])
    for agent, (score, _) in zip(agents, together, strict=True):
        found = evidence[agent.pk]
        gathered = _inputs_from(agent, rows[agent.pk], found.feedback, params, now)
        subject = Subject(agent.subject_id, agent.registry, agent.protocol or None)
        scalar = score_subject(
            subject,
            summaries=gathered.summaries,
            feedback=gathered.feedback,
            params=params,
            reviewers=found.standings,
        )
        record = {k: v for k, v in score.record.items() if k != "rated"}
        record["provenance"] = {
            k: v
            for k, v in record["provenance"].items()
            if k not in ("newestInputAt", "summaryIds", "changesAt", "feedbackIdentities")
        }
        expected = scalar.to_hcs25(score.config.version, score.record["trustScoreUpdatedAt"])
        assert json.dumps(record) == json.dumps(expected), agent.subject_id
        assert score.inputs_digest == scalar.inputs_digest
        assert score.inputs == scalar.inputs
        assert score.trust_score == Decimal(str(scalar.trust_score))
        # A batch of one is the same record.
        alone, _ = trust_scores_prepare(agents=[agent], now=now)[0][0]
        for field in FIELDS:
            assert getattr(score, field) == getattr(alone, field), (agent.subject_id, field)
    # Reviewers were in play: some agents have a curated set, some only ring members or none.
    assert any(s.record["provenance"]["reviewers"]["clientAddresses"] for s, _ in together)
    assert any(not s.record["provenance"]["reviewers"]["clientAddresses"] for s, _ in together)


def test_it_stores_from_the_drain_under_the_sybil_floor_what_one_agent_alone_would_store() -> None:
    call_command("scoring_config_sybil_floor")
    rng = random.Random(5)
    agents = _reviewers(rng, _random_registry(rng, 30))
    recompute_mark(agent_ids=[agent.pk for agent in agents])
    recompute_drain()
    for agent in Agent.objects.filter(pk__in=[a.pk for a in agents]).select_related("latest_score"):
        drained = agent.latest_score
        assert drained is not None
        assert drained.record["compositionGraphId"] == "sybil-floor-1"
        agent.latest_score = None
        alone, changed = trust_scores_prepare(agents=[agent], now=drained.computed_at)[0][0]
        assert changed
        for field in FIELDS:
            assert getattr(drained, field) == getattr(alone, field), (agent.subject_id, field)
