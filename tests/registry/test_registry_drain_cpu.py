"""What keeps a recompute batch's CPU down (issue 22): array-bound id lists, queries a batch does not
need left out, the collector paused while a batch is settled. Results must not change with any of it."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.core.cache import cache
from django.db import connection
from django.db.models import Q
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from common.collector import collector_paused
from registry.lookups import any_of
from registry.models import Agent, AgentLink, FeedbackEntry, VerificationSummary
from registry.selectors import identity_groups_many
from registry.services.providers import provider_create
from registry.services.recompute import DRAIN_FLAG, recompute_drain, recompute_mark
from registry.services.scoring import (
    latest_summaries_many,
    latest_summary_rows_many,
    reviewer_evidence_many,
    scoring_config_current,
    scoring_params,
    trust_scores_prepare,
)

pytestmark = pytest.mark.django_db(transaction=True)


def _agents(count: int, prefix: str = "cpu") -> list[Agent]:
    Agent.objects.bulk_create([Agent(subject_id=f"{prefix}-{i:03d}") for i in range(count)])
    return list(
        Agent.objects.select_related("latest_score").filter(subject_id__startswith=prefix).order_by("pk")
    )


def test_it_matches_the_rows_that_in_matches_for_any_values() -> None:
    agents = _agents(12)
    AgentLink.objects.create(agent=agents[1], primary=agents[0], reason=AgentLink.Reason.choices[0][0])
    ids = [agent.pk for agent in agents]
    subjects = [agent.subject_id for agent in agents]

    @settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(
        picked=st.lists(st.sampled_from([*ids, 0, max(ids) + 1, 2**40]), max_size=30),
        names=st.lists(st.sampled_from([*subjects, "", "nobody", "o'brien", "a,b", '{"x"}']), max_size=8),
    )
    def check(picked: list[int], names: list[str]) -> None:
        def rows(*conditions: Any) -> list[int]:
            return list(Agent.objects.filter(*conditions).order_by("pk").values_list("pk", flat=True))

        assert rows(any_of("pk", picked)) == rows(Q(pk__in=picked))
        assert rows(any_of("subject_id", names)) == rows(Q(subject_id__in=names))
        assert rows(any_of("pk", picked) | any_of("subject_id", names)) == rows(
            Q(pk__in=picked) | Q(subject_id__in=names)
        )
        # A foreign key's column (the drain reads links, marks and feedback by agent id).
        links = AgentLink.objects.order_by("pk").values_list("pk", flat=True)
        assert list(links.filter(any_of("agent_id", picked))) == list(links.filter(agent_id__in=picked))
        assert list(links.filter(any_of("primary_id", set(picked)))) == list(
            links.filter(primary_id__in=picked)
        )

    check()


@pytest.mark.skipif(connection.vendor != "postgresql", reason="arrays are PostgreSQL's")
def test_it_binds_the_values_as_one_parameter_whatever_their_number() -> None:
    few, params_few = Agent.objects.filter(any_of("pk", [1, 2, 3])).query.sql_with_params()
    many, params_many = Agent.objects.filter(any_of("pk", list(range(1, 301)))).query.sql_with_params()
    assert few == many  # the same text, so the driver parses it once
    assert params_few == ([1, 2, 3],)
    assert params_many == (list(range(1, 301)),)


def test_it_reads_only_the_reviewers_for_a_batch_nobody_rated() -> None:
    agents = _agents(5)
    # Feedback that does not count (revoked, another tag) is not a reviewer.
    FeedbackEntry.objects.create(agent=agents[0], client_address="0x" + "1" * 40, feedback_index=0, value=90,
                                 tag1="starred", revoked=True)  # fmt: skip
    FeedbackEntry.objects.create(agent=agents[1], client_address="0x" + "2" * 40, feedback_index=0, value=90,
                                 tag1="other")  # fmt: skip
    params = scoring_params(scoring_config_current())
    groups = identity_groups_many([agent.pk for agent in agents])
    with CaptureQueriesContext(connection) as captured:
        evidence = reviewer_evidence_many(agents, params, timezone.now(), groups=groups)
    assert len(captured.captured_queries) == 1
    assert {
        pk: (found.standings, found.feedback, found.client_addresses) for pk, found in evidence.items()
    } == {agent.pk: ((), None, ()) for agent in agents}


def test_it_reads_the_reviewers_fully_once_someone_rated_the_batch() -> None:
    agents = _agents(5)
    FeedbackEntry.objects.create(agent=agents[0], client_address="0x" + "1" * 40, feedback_index=0, value=90,
                                 tag1="starred")  # fmt: skip
    params = scoring_params(scoring_config_current())
    groups = identity_groups_many([agent.pk for agent in agents])
    with CaptureQueriesContext(connection) as captured:
        evidence = reviewer_evidence_many(agents, params, timezone.now(), groups=groups)
    assert len(captured.captured_queries) > 1
    assert [standing.reviewer for standing in evidence[agents[0].pk].standings] == ["0x" + "1" * 40]


def test_it_reads_the_linked_identities_once_per_batch() -> None:
    agents = _agents(4)
    AgentLink.objects.create(agent=agents[1], primary=agents[0], reason=AgentLink.Reason.choices[0][0])
    with CaptureQueriesContext(connection) as captured:
        trust_scores_prepare(agents=agents, now=timezone.now())
    links = [query for query in captured.captured_queries if "registry_agentlink" in query["sql"]]
    assert len(links) == 2  # identity_groups_many: the agents' primaries, then the groups' members


def test_it_pauses_the_collector_inside_and_restores_it_after() -> None:
    assert gc.isenabled()
    with collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(RuntimeError), collector_paused():
        raise RuntimeError("a failed batch")
    assert gc.isenabled()


def test_it_leaves_a_paused_collector_paused() -> None:
    gc.disable()
    try:
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()


@pytest.fixture
def drain_held_back() -> Iterator[None]:
    cache.set(DRAIN_FLAG, 1, timeout=300)
    yield
    cache.delete(DRAIN_FLAG)


@pytest.mark.usefixtures("drain_held_back")
def test_it_settles_a_batch_with_the_collector_paused() -> None:
    agents = _agents(6)
    recompute_mark(agent_ids=[agent.pk for agent in agents])
    seen: list[tuple[str, bool]] = []

    def record(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        seen.append((sql, gc.isenabled()))
        return execute(sql, params, many, context)

    with connection.execute_wrapper(record):
        assert recompute_drain() == len(agents)
    assert gc.isenabled()
    # The settle's statements (the agents' locks among them) run with the collector off; the claim's do not.
    locks = [enabled for sql, enabled in seen if "FOR NO KEY UPDATE" in sql]
    claims = [enabled for sql, enabled in seen if "SKIP LOCKED" in sql]
    assert locks and not any(locks)
    assert claims and all(claims)


def test_it_loads_summary_times_exactly_as_the_orm_does() -> None:
    agents = _agents(3)
    providers = [provider_create(name=f"Timed {i}", slug=f"timed-{i}")[0] for i in range(2)]
    moment = datetime(2026, 3, 29, 1, 30, 15, 123456, tzinfo=UTC)
    VerificationSummary.objects.bulk_create(
        [
            VerificationSummary(
                provider=provider,
                agent=agent,
                window_days=7,
                window_end=moment - timedelta(days=n, microseconds=n),
                body_digest=f"sha256:{agent.pk}-{provider.pk}",
                raw_body={},
                allow_rate=0.5,
                block_rate=0.5,
                avg_confidence=0.5,
                total_checks=10,
            )
            for n, (agent, provider) in enumerate((a, p) for a in agents for p in providers)
        ]
    )
    ids = [agent.pk for agent in agents]
    rows = latest_summary_rows_many(ids)
    stored = latest_summaries_many(ids)

    def times(summaries: list[Any]) -> list[tuple[Any, ...]]:
        return [
            (s.pk, s.window_end, s.received_at, s.window_end.utcoffset(), s.received_at.isoformat())
            for s in summaries
        ]

    assert {pk: times(found) for pk, found in rows.items()} == {
        pk: times(found) for pk, found in stored.items()
    }
    assert all(row.window_end.tzinfo is not None for found in rows.values() for row in found)
