"""The drain's batch scoring equals scoring each agent on its own, on random registries (issue 22).

The drain loads a whole batch's inputs in a few queries (plain rows, no model instances) and scores
the agents together; a record it stores must be the record the one-agent path stores, field for
field, and the inputs it reads must be the ones a plain ORM read of the agent's rows gives (`_orm_inputs`,
written here as the reference).
"""

from __future__ import annotations

import json
import random
from datetime import datetime, timedelta
from decimal import Decimal

import pytest
from django.utils import timezone
from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from adapters import ScoringParams
from adapters.scoring import Subject, score_subject, scoring_inputs
from registry.models import Agent, FeedbackEntry, Provider, VerificationSummary
from registry.services.providers import provider_create
from registry.services.recompute import recompute_drain, recompute_mark
from registry.services.scoring import (
    ScoreInputs,
    _inputs_from,
    feedback_summaries_many,
    inputs_json_many,
    scoring_config_current,
    scoring_params,
    trust_scores_prepare,
)

# Expected scores here are the SPEC 2.3 weighted mean: these tests pin that configuration (the
# default, the sybil-resistance floor, is tested in the *_sybil.py suites and the smoke test).
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("weighted_mean_config")]

FIELDS = (
    "trust_score",
    "trust_confidence",
    "record",
    "inputs",
    "inputs_digest",
    "newest_input_at",
    "changes_at",
)


def _orm_inputs(agent: Agent, params: ScoringParams, now: datetime) -> ScoreInputs:
    """The reference read: every stored row of the agent through the ORM, reduced here in Python.

    Each provider's newest summary (by window end, then arrival), in provider-slug order; the
    feedback reduction and the conversion to scoring inputs (`_inputs_from`) are the drain's own.
    """
    newest: dict[int, VerificationSummary] = {}
    for row in VerificationSummary.objects.filter(agent=agent).select_related("provider"):
        held = newest.get(row.provider_id)
        if held is None or (row.window_end, row.pk) > (held.window_end, held.pk):
            newest[row.provider_id] = row
    rows = sorted(newest.values(), key=lambda row: row.provider.slug)
    feedback = feedback_summaries_many([agent.pk], params.erc8004_feedback.rating_tag)[agent.pk]
    return _inputs_from(agent, rows, feedback, params, now)


def _random_registry(rng: random.Random, agents: int) -> list[Agent]:
    now = timezone.now()
    providers = [provider_create(name=f"P{i}", slug=f"batch-{i}")[0] for i in range(4)]
    providers[3].status = Provider.Status.SUSPENDED
    providers[3].save(update_fields=["status"])
    owner = "0x" + "ab" * 20
    providers[2].operator_address = owner
    providers[2].save(update_fields=["operator_address"])
    created = Agent.objects.bulk_create(
        [
            Agent(
                subject_id=f"batch-agent-{n}",
                registry=rng.choice(["erc-8004", "hcs-10", "other"]),
                protocol=rng.choice(["", "mcp", "a2a"]),
                owner_address=owner if rng.random() < 0.1 else "",
            )
            for n in range(agents)
        ]
    )
    summaries = []
    feedback = []
    for agent in created:
        for provider in rng.sample(providers, rng.randint(0, 4)):
            for window in range(rng.randint(1, 2)):
                allow = rng.random()
                block = rng.uniform(0, 1 - allow)
                stake = rng.choice(
                    [None, {"low": {"checks": rng.randint(0, 9)}, "high": {"checks": rng.randint(0, 9)}}]
                )
                summaries.append(
                    VerificationSummary(
                        provider=provider,
                        agent=agent,
                        window_days=7,
                        window_end=now - timedelta(days=rng.choice([0.5, 3, 45]), hours=window),
                        body_digest=f"sha256:{agent.pk}-{provider.pk}-{window}",
                        raw_body={"n": window},
                        allow_rate=allow,
                        block_rate=block,
                        uncertain_rate=rng.choice([None, 1 - allow - block]),
                        avg_confidence=rng.random(),
                        total_checks=rng.choice([0, 1, rng.randint(2, 10_000)]),
                        stake_distribution=stake,
                    )
                )
        for index in range(rng.choice([0, 0, 1, 3])):
            feedback.append(
                FeedbackEntry(
                    agent=agent,
                    client_address="0x" + f"{index:040x}",
                    feedback_index=index,
                    value=rng.randint(0, 10_000),
                    value_decimals=rng.choice([0, 2]),
                    tag1="starred" if rng.random() < 0.8 else "other",
                    revoked=rng.random() < 0.1,
                )
            )
    VerificationSummary.objects.bulk_create(summaries)
    FeedbackEntry.objects.bulk_create(feedback)
    return list(Agent.objects.select_related("latest_score").order_by("pk"))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_it_scores_a_batch_exactly_as_each_agent_alone(seed: int) -> None:
    agents = _random_registry(random.Random(seed), 60)
    now = timezone.now()
    params = scoring_params(scoring_config_current())
    together, fresh = trust_scores_prepare(agents=agents, now=now)
    assert len(fresh) == len(agents)
    for agent, (score, _) in zip(agents, together, strict=True):
        alone, _ = trust_scores_prepare(agents=[agent], now=now)[0][0]
        for field in FIELDS:
            assert getattr(score, field) == getattr(alone, field), (agent.subject_id, field)
        # The rows the batch read are the ones the ORM path reads, to the last input.
        gathered = _orm_inputs(agent, params, now)
        subject = Subject(agent.subject_id, agent.registry, agent.protocol or None)
        assert score.inputs == scoring_inputs(
            subject, summaries=gathered.summaries, feedback=gathered.feedback, params=params
        )
        assert score.record["provenance"]["summaryIds"] == gathered.summary_ids
        # The batch numbers (adapters.vectorised) are the scalar path's, bit for bit and key for key.
        scalar = score_subject(
            subject, summaries=gathered.summaries, feedback=gathered.feedback, params=params
        )
        record = {k: v for k, v in score.record.items() if k != "rated"}
        record["provenance"] = {
            k: v
            for k, v in record["provenance"].items()
            if k not in ("newestInputAt", "summaryIds", "changesAt")
        }
        expected = scalar.to_hcs25(score.config.version, score.record["trustScoreUpdatedAt"])
        assert json.dumps(record) == json.dumps(expected)
        assert score.inputs_digest == scalar.inputs_digest
        assert score.trust_score == Decimal(str(scalar.trust_score))
        assert (score.newest_input_at, score.changes_at) == (gathered.newest_input_at, gathered.changes_at)


def test_it_stores_from_the_drain_what_one_agent_alone_would_store() -> None:
    agents = _random_registry(random.Random(7), 40)
    recompute_mark(agent_ids=[agent.pk for agent in agents])
    recompute_drain()
    for agent in Agent.objects.filter(pk__in=[a.pk for a in agents]).select_related("latest_score"):
        drained = agent.latest_score
        assert drained is not None
        # As if the agent had never been scored: the one-agent path computes its record afresh.
        agent.latest_score = None
        alone, changed = trust_scores_prepare(agents=[agent], now=drained.computed_at)[0][0]
        assert changed
        for field in FIELDS:
            assert getattr(drained, field) == getattr(alone, field), (agent.subject_id, field)


_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=12,
)


@hypothesis_settings(max_examples=200, deadline=None)
@given(
    shared=st.lists(st.dictionaries(st.text(max_size=5), _json_values, max_size=4), min_size=1, max_size=3),
    rows=st.lists(
        st.tuples(st.dictionaries(st.text(max_size=5), _json_values, max_size=4), st.integers(0, 9)),
        max_size=6,
    ),
)
def test_it_encodes_a_batchs_inputs_as_json_dumps_does_each(
    shared: list[dict[str, object]], rows: list[tuple[dict[str, object], int]]
) -> None:
    # Inputs whose `params` is one of a few shared dicts (last, as the scoring inputs have it without
    # reviewers), first, between other members, or missing: the text is json.dumps's, byte for byte.
    inputs: list[dict[str, object]] = []
    for members, pick in rows:
        one = {k: v for k, v in members.items() if k != "params"}
        if pick < 6:
            one["params"] = shared[pick % len(shared)]
        elif pick < 8:
            one = {"params": shared[0], **one}
        elif pick == 8:
            # Between other members (the reviewers follow it under reviewer weighting).
            middle = len(one) // 2
            items = list(one.items())
            one = {**dict(items[:middle]), "params": shared[-1], **dict(items[middle:])}
        inputs.append(one)
    assert inputs_json_many(inputs) == [json.dumps(one) for one in inputs]
