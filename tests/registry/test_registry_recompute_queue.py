"""The recompute queue's invariant: once drained, every agent's score reflects every committed input.

The races are driven step by step with two or three database connections (threads), on PostgreSQL,
where the row locks they depend on exist.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.db import connection, connections, transaction
from django.utils import timezone

from registry.models import Agent, PendingRecompute, Provider
from registry.services.agents import agent_register
from registry.services.leases import lease_kept, lease_renew
from registry.services.recompute import recompute_claim, recompute_drain, recompute_mark, recompute_settle
from registry.services.summaries import summaries_ingest
from tests.registry.registry_support import summary_body

MakeProvider = Callable[..., tuple[Provider, str]]


def needs_postgresql() -> None:
    if connection.vendor != "postgresql":
        pytest.skip("row locks and SKIP LOCKED need PostgreSQL (set DATABASE_URL)")


def newest_summary_id(agent: Agent) -> int:
    return max(agent.summaries.values_list("pk", flat=True))


def scored_summary_ids(agent: Agent) -> dict[str, int]:
    fresh = Agent.objects.select_related("latest_score").get(pk=agent.pk)
    assert fresh.latest_score is not None
    return dict(fresh.latest_score.record["provenance"]["summaryIds"])


class InThread:
    """Run `body` on its own thread (hence its own database connection); re-raise its error on join."""

    def __init__(self, body: Callable[[], Any]) -> None:
        self.error: BaseException | None = None
        self.result: Any = None

        def run() -> None:
            try:
                self.result = body()
            except BaseException as exc:  # handed to the test thread
                self.error = exc
            finally:
                connections.close_all()

        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()

    def join(self, timeout: float = 30) -> Any:
        self.thread.join(timeout)
        assert not self.thread.is_alive(), "the thread is stuck"
        if self.error is not None:
            raise self.error
        return self.result


def wait_until_a_backend_waits_for_a_lock(deadline_seconds: float = 10) -> None:
    deadline = time.monotonic() + deadline_seconds
    while time.monotonic() < deadline:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                "AND wait_event_type = 'Lock'"
            )
            if cursor.fetchone()[0]:
                return
        time.sleep(0.02)
    pytest.fail("no connection ever waited for a lock")


def _newer_summary(provider: Provider) -> None:
    """A newer window from `provider` about the scored agent "racer": it marks the agent pending."""
    summaries_ingest(
        provider=provider, bodies=[summary_body("racer", updatedAt="2026-11-02T00:00:00Z", totalChecks=40)]
    )


@pytest.fixture(autouse=True)
def _no_drain_on_commit(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tasks run eagerly here: a write's after-commit drain would run in the middle of a scripted race.

    The tests drive claim, settle and drain themselves instead.
    """
    from registry.services import recompute

    monkeypatch.setattr(recompute, "_ensure_drain", lambda: None)


@pytest.fixture
def scored_agent(make_provider: MakeProvider) -> Iterator[tuple[Agent, Provider]]:
    agent = agent_register(subject_id="racer", registry="hcs-10")
    provider, _ = make_provider("race-verifier")
    summaries_ingest(provider=provider, bodies=[summary_body("racer", updatedAt="2026-11-01T00:00:00Z")])
    assert recompute_drain() == 1
    assert scored_summary_ids(agent) == {"race-verifier": newest_summary_id(agent)}
    yield agent, provider


@pytest.mark.django_db(transaction=True)
def test_it_keeps_the_mark_when_a_summary_commits_while_the_drain_settles(
    scored_agent: tuple[Agent, Provider],
) -> None:
    # The lost update of issue 15: the drain has claimed the agent and read its inputs; an ingest
    # marks the agent and commits only while the drain is storing the score. The drain must not
    # remove the mark, and the next batch must score the new summary.
    needs_postgresql()
    agent, provider = scored_agent
    ingested = threading.Event()
    release = threading.Event()

    def ingest() -> None:
        with transaction.atomic():
            summaries_ingest(
                provider=provider,
                bodies=[summary_body("racer", updatedAt="2026-11-02T00:00:00Z", totalChecks=40)],
            )
            ingested.set()
            assert release.wait(30)

    recompute_mark(agent_ids=[agent.pk])
    claim = recompute_claim()
    assert set(claim.generations) == {agent.pk}
    writer = InThread(ingest)
    assert ingested.wait(30)
    # The settle computes without the uncommitted summary, then waits on the row the ingest bumped.
    settle = InThread(lambda: recompute_settle(claim=claim))
    wait_until_a_backend_waits_for_a_lock()
    release.set()
    writer.join()
    assert settle.join() == (0, 1)  # nothing settled: the generation moved; the row was released

    row = PendingRecompute.objects.get(agent_id=agent.pk)
    assert row.claim is None
    assert recompute_drain() == 1
    assert not PendingRecompute.objects.exists()
    assert scored_summary_ids(agent) == {"race-verifier": newest_summary_id(agent)}


@pytest.mark.django_db(transaction=True)
def test_it_keeps_the_mark_when_a_summary_commits_between_claim_and_settle(
    scored_agent: tuple[Agent, Provider],
) -> None:
    needs_postgresql()
    agent, provider = scored_agent
    recompute_mark(agent_ids=[agent.pk])
    claim = recompute_claim()
    _newer_summary(provider)
    # This settle happens to see the summary, but it cannot know that from the mark: it recomputes.
    assert recompute_settle(claim=claim) == (0, 1)
    assert recompute_drain() == 1
    assert not PendingRecompute.objects.exists()
    assert scored_summary_ids(agent) == {"race-verifier": newest_summary_id(agent)}


@pytest.mark.django_db(transaction=True)
def test_it_makes_an_ingest_that_marks_during_the_settle_leave_a_new_mark(
    scored_agent: tuple[Agent, Provider],
) -> None:
    # The other order: the settle holds the row lock when the ingest marks the agent. The ingest
    # waits, and once the settle has deleted the row it inserts a fresh one for the next drain.
    needs_postgresql()
    agent, provider = scored_agent
    recompute_mark(agent_ids=[agent.pk])
    claim = recompute_claim()
    locked = threading.Event()
    release = threading.Event()

    def settle_holding_the_lock() -> tuple[int, int]:
        with transaction.atomic():
            result = recompute_settle(claim=claim)
            locked.set()
            assert release.wait(30)
            return result

    settle = InThread(settle_holding_the_lock)
    assert locked.wait(30)
    writer = InThread(
        lambda: summaries_ingest(
            provider=provider,
            bodies=[summary_body("racer", updatedAt="2026-11-03T00:00:00Z", totalChecks=40)],
        )
    )
    wait_until_a_backend_waits_for_a_lock()
    release.set()
    assert settle.join() == (1, 0)
    writer.join()

    assert PendingRecompute.objects.filter(agent_id=agent.pk, claim__isnull=True).exists()
    assert recompute_drain() == 1
    assert scored_summary_ids(agent) == {"race-verifier": newest_summary_id(agent)}


@pytest.mark.django_db(transaction=True)
def test_it_gives_back_the_claims_of_a_drain_that_died(
    scored_agent: tuple[Agent, Provider], settings: Any
) -> None:
    agent, provider = scored_agent
    settings.SCORE_RECOMPUTE_LEASE_SECONDS = 0.5
    _newer_summary(provider)
    claim = recompute_claim()  # ... and the worker dies before settling
    assert set(claim.generations) == {agent.pk}
    assert recompute_drain() == 0  # still leased
    time.sleep(0.6)
    assert recompute_drain() == 1
    assert not PendingRecompute.objects.exists()
    assert scored_summary_ids(agent) == {"race-verifier": newest_summary_id(agent)}


@pytest.mark.django_db(transaction=True)
def test_it_lets_a_drain_whose_lease_was_taken_over_store_nothing(
    scored_agent: tuple[Agent, Provider], settings: Any
) -> None:
    agent, provider = scored_agent
    settings.SCORE_RECOMPUTE_LEASE_SECONDS = 0.2
    _newer_summary(provider)
    slow = recompute_claim()
    time.sleep(0.3)
    fast = recompute_claim()
    assert set(fast.generations) == {agent.pk}
    before = Agent.objects.get(pk=agent.pk).latest_score_id
    assert recompute_settle(claim=slow) == (0, 0)
    assert Agent.objects.get(pk=agent.pk).latest_score_id == before
    assert recompute_settle(claim=fast) == (1, 0)
    assert scored_summary_ids(agent) == {"race-verifier": newest_summary_id(agent)}


@pytest.mark.django_db(transaction=True)
def test_it_settles_while_a_writer_updates_the_agent_then_marks_it(
    scored_agent: tuple[Agent, Provider],
) -> None:
    # The chain indexer updates an agent and then marks it in one transaction. A settle that locked
    # the mark first and then updated the agent would wait on the writer while the writer waits on
    # it: a deadlock. Agents are locked before marks everywhere.
    needs_postgresql()
    agent, provider = scored_agent
    summaries_ingest(
        provider=provider,
        bodies=[summary_body("racer", updatedAt="2026-11-02T00:00:00Z", totalChecks=40)],
    )
    claim = recompute_claim()
    assert set(claim.generations) == {agent.pk}
    updated = threading.Event()
    release = threading.Event()

    def update_then_mark() -> None:
        with transaction.atomic():
            Agent.objects.filter(pk=agent.pk).update(owner_address="0x" + "ab" * 20)
            updated.set()
            assert release.wait(30)
            recompute_mark(agent_ids=[agent.pk])

    writer = InThread(update_then_mark)
    assert updated.wait(30)
    settle = InThread(lambda: recompute_settle(claim=claim))
    wait_until_a_backend_waits_for_a_lock()
    release.set()
    writer.join()
    assert settle.join() == (0, 1)  # the writer's mark came in first: computed again
    assert recompute_drain() == 1
    assert not PendingRecompute.objects.exists()
    assert scored_summary_ids(agent) == {"race-verifier": newest_summary_id(agent)}


@pytest.mark.django_db(transaction=True)
def test_it_keeps_the_lease_of_a_claim_worked_on_longer_than_the_lease(
    scored_agent: tuple[Agent, Provider], settings: Any
) -> None:
    agent, provider = scored_agent
    settings.SCORE_RECOMPUTE_LEASE_SECONDS = 0.3
    _newer_summary(provider)
    slow = recompute_claim()
    assert set(slow.generations) == {agent.pk}
    with lease_kept(model=PendingRecompute, token=slow.token):
        # Several leases long: the renewals keep the claim, so no other drain takes the agent.
        for _ in range(4):
            time.sleep(0.3)
            assert recompute_claim().generations == {}
        assert recompute_settle(claim=slow) == (1, 0)
    assert not PendingRecompute.objects.exists()
    assert scored_summary_ids(agent) == {"race-verifier": newest_summary_id(agent)}


@pytest.mark.django_db(transaction=True)
def test_it_lets_the_lease_lapse_once_the_claim_is_no_longer_worked_on(
    scored_agent: tuple[Agent, Provider], settings: Any
) -> None:
    agent, provider = scored_agent
    settings.SCORE_RECOMPUTE_LEASE_SECONDS = 0.3
    _newer_summary(provider)
    dead = recompute_claim()
    with lease_kept(model=PendingRecompute, token=dead.token):
        time.sleep(0.5)
        assert recompute_claim().generations == {}
    # The holder stopped (as a killed worker's thread does): the next claim after a lease gets it.
    time.sleep(0.4)
    assert set(recompute_claim().generations) == {agent.pk}


@pytest.mark.django_db(transaction=True)
def test_it_renews_no_row_a_writer_holds_locked(scored_agent: tuple[Agent, Provider], settings: Any) -> None:
    agent, provider = scored_agent
    settings.SCORE_RECOMPUTE_LEASE_SECONDS = 0.3
    _newer_summary(provider)
    claim = recompute_claim()
    locked, release = threading.Event(), threading.Event()

    def writer() -> None:
        with transaction.atomic():
            recompute_mark(agent_ids=[agent.pk])  # holds the row lock until it commits
            locked.set()
            release.wait(10)

    held = InThread(writer)
    assert locked.wait(10)
    # The renewal skips the locked row instead of waiting (it could otherwise deadlock a writer).
    assert lease_renew(model=PendingRecompute, token=claim.token) == 0
    release.set()
    held.join()
    assert lease_renew(model=PendingRecompute, token=claim.token) == 1


@pytest.mark.django_db(transaction=True)
def test_it_holds_back_an_agent_whose_computation_fails_and_scores_the_others(
    scored_agent: tuple[Agent, Provider], monkeypatch: pytest.MonkeyPatch
) -> None:
    from registry.services import recompute

    agent, provider = scored_agent
    poison = agent_register(subject_id="poison", registry="hcs-10")
    summaries_ingest(
        provider=provider,
        bodies=[
            summary_body("racer", updatedAt="2026-11-02T00:00:00Z", totalChecks=40),
            summary_body("poison", updatedAt="2026-11-02T00:00:00Z", totalChecks=41),
        ],
    )
    prepare = recompute.trust_scores_prepare

    def failing_for_poison(*, agents: list[Agent], now: Any) -> Any:
        if any(candidate.pk == poison.pk for candidate in agents):
            raise ValueError("a bug in the scoring of this agent")
        return prepare(agents=agents, now=now)

    monkeypatch.setattr(recompute, "trust_scores_prepare", failing_for_poison)
    assert recompute_drain() == 1  # the batch fails, then the agents one by one: racer is scored
    assert scored_summary_ids(agent) == {"race-verifier": newest_summary_id(agent)}
    held = PendingRecompute.objects.get()
    assert held.agent_id == poison.pk
    # Not retried at every drain once the short lease lapses, but after FAILED_RETRY_SECONDS.
    assert held.claimed_until is not None
    assert (held.claimed_until - timezone.now()).total_seconds() > recompute.FAILED_RETRY_SECONDS / 2
    assert recompute_drain() == 0
