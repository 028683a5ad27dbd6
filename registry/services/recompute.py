"""The recompute queue: scores are never left stale by a crash, a race or a broker outage.

Invariant: once the queue has been drained (no PendingRecompute row left), every agent's stored
score reflects every committed input.

How each step keeps it:

* **Marking.** Every write that changes an agent's inputs (a summary, a rating, a provider's
  status...) calls :func:`recompute_mark` (or, for the summary ingest statement, the same upsert
  in SQL) *in its own transaction*: ``INSERT ... ON CONFLICT (agent_id) DO UPDATE SET generation =
  generation + 1``. The update takes the row lock, so a drain that wants the row waits for the
  writer to commit or roll back; and the new generation commits together with the input it
  announces. Agents are marked in ascending id order, so two writers marking overlapping agents
  lock them in the same order and cannot deadlock.
* **Claiming.** A drain claims up to a batch of unclaimed rows (or rows whose lease expired) with
  ``FOR UPDATE SKIP LOCKED`` and commits ``claim`` (a fresh token per batch) and ``claimed_until``;
  it remembers the generation it saw. Nothing is deleted here: a worker killed after the claim
  leaves the rows behind, and once ``claimed_until`` passes (SCORE_RECOMPUTE_LEASE_SECONDS, a few
  seconds, renewed from a thread while the batch is worked on: see leases.py) the next drain claims
  them again. A drain that finds nothing to claim but leases held by others queues one drain for
  when the earliest lapses, and a worker queues a drain when it starts, so a dead worker's rows
  are not left to the beat.
* **Settling.** The drain computes the scores and, in one transaction, locks the agents and then
  its rows (in agent id order, waiting for any writer that is bumping one), keeps only the rows it
  still holds (the token fences: a lease that lapsed and was taken by another drain is left to
  that drain, and the score computed here is discarded, so a short lease costs at most repeated
  work), stores the new scores, and deletes a row only if its generation is still the one
  claimed. A row whose generation moved announces an input this computation may not have seen:
  its claim is released and it is recomputed (by this drain's next batch, or the next drain). An
  input committed after the settle inserts a new row, because the old one is gone.

A computation therefore never removes a mark it did not account for, and a mark outlives every
failure between claim and settle. Scheduling a drain task is only a way to make it happen sooner:
if the broker or cache is down, the row waits for the beat drain (`drain_recomputes`), and the write
that created it still succeeds.
"""

from __future__ import annotations

import contextlib
import logging
import math
import time
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import kombu.exceptions
import psycopg
import redis.exceptions
from django.conf import settings
from django.core.cache import cache
from django.db import DatabaseError, OperationalError, connection, models, transaction
from django.db.models import Min, Q
from django.utils import timezone

from common.collector import collector_paused
from common.enqueue import task_named

from ..lookups import any_of
from ..models import Agent, PendingRecompute, RecomputeRun, TrustScore
from .leases import lease_kept, lease_until
from .scoring import SCORED_AGENT_FIELDS, trust_score_compute, trust_scores_prepare, trust_scores_store

logger = logging.getLogger(__name__)

# While this cache key exists a drain is queued; requests in the meantime only mark agents.
DRAIN_FLAG = "registry:recompute-drain-queued"
DRAIN_BATCH = 200
# While this cache key exists a drain is queued for when the earliest lease held by others lapses.
LEASE_FLAG = "registry:recompute-lease-drain-queued"
# How long after a lease lapses that drain runs (clock steps between the worker and the database).
LEASE_SLACK_SECONDS = 0.5
# A claim whose computation failed (a bug, not a crash) is kept this long before it is tried again.
FAILED_RETRY_SECONDS = 60.0

# What a down or restarting broker/cache raises from the after-commit scheduling; the marks are
# already committed, so these are logged and the beat drain picks the agents up.
SCHEDULING_ERRORS: tuple[type[BaseException], ...] = (
    redis.exceptions.RedisError,
    kombu.exceptions.KombuError,
    OSError,
)

_MARK_SQL = (
    "INSERT INTO registry_pendingrecompute (agent_id, requested_at, generation) VALUES {values} "
    "ON CONFLICT (agent_id) DO UPDATE SET generation = registry_pendingrecompute.generation + 1, "
    "priority = 0"
)


# --- marking ---------------------------------------------------------------------------------------


def recompute_mark(*, agent_ids: Iterable[int]) -> None:
    """Mark agents for a recompute in the caller's transaction, and queue a drain after it commits.

    Bursts coalesce on one row per agent; each mark bumps the row's generation so a drain that is
    computing the agent at the same time knows it has to do it again.
    """
    ids = sorted(set(agent_ids))
    if not ids:
        return
    now = timezone.now()
    with transaction.atomic(), connection.cursor() as cursor:
        # Chunks keep the statement under SQLite's variable limit; ascending ids keep lock order.
        for start in range(0, len(ids), 300):
            chunk = ids[start : start + 300]
            values = ", ".join(["(%s, %s, 1)"] * len(chunk))
            params = [value for agent_id in chunk for value in (agent_id, now)]
            cursor.execute(_MARK_SQL.format(values=values), params)
    recompute_drain_ensure()


def recompute_drain_ensure() -> None:
    """After the caller's transaction commits, queue a drain unless one is already due.

    For writers that mark agents themselves (the summary ingest statement).
    """
    transaction.on_commit(_ensure_drain)


def _ensure_drain() -> None:
    drain_queue_once(task=task_named("registry.tasks.drain_recomputes"), flag=DRAIN_FLAG, what="recompute")


def drain_queue_once(*, task: Any, flag: str, what: str) -> None:
    """Queue `task` after SCORE_RECOMPUTE_DELAY_SECONDS unless the cache `flag` says one is due.

    Shared by every durable queue drained this way (recomputes, roll-ups). A broker or cache
    failure is logged, never raised: the write is committed and its rows are marked, so the beat
    drain finds them.
    """
    delay = settings.SCORE_RECOMPUTE_DELAY_SECONDS
    try:
        # The flag outlives the countdown a little; if the task is lost, it expires and the next
        # request (or the beat drain) queues another.
        if cache.add(flag, 1, timeout=math.ceil(delay) + 2):
            task.apply_async(countdown=delay, retry=False)
    except SCHEDULING_ERRORS:
        logger.warning("could not queue a %s drain; the beat drain will pick it up", what, exc_info=True)


def drain_after_leases(*, model: type[models.Model], task: Any, flag: str, what: str) -> None:
    """Queue `task` for when the earliest lease on `model`'s rows lapses, unless one is queued.

    Called by a drain that found nothing to claim but rows leased by others: if their holder is
    dead (a killed worker), nothing else would come for them until the beat drain. If the holder is
    alive, it renews or settles them and the extra drain finds nothing.
    """
    if task.app.conf.task_always_eager:
        return  # an eager task cannot wait for the lease: it would run now, and again, in a loop
    try:
        leased = model._default_manager.filter(claimed_until__isnull=False)
        nearest = leased.aggregate(at=Min("claimed_until"))["at"]
    except DatabaseError:
        logger.warning("could not read the %s leases; the beat drain will", what, exc_info=True)
        return
    if nearest is None:
        return
    countdown = max(0.0, (nearest - timezone.now()).total_seconds()) + LEASE_SLACK_SECONDS
    try:
        # One such drain at a time: it clears the flag when it starts (lease_followup), so while
        # leases are held there is at most one of these per lease, however many drains end.
        if cache.add(flag, 1, timeout=math.ceil(countdown) + 2):
            task.apply_async(kwargs={"lease_followup": True}, countdown=countdown, retry=False)
    except SCHEDULING_ERRORS:
        logger.warning("could not queue a %s drain after a lease", what, exc_info=True)


def _drain_after_leases() -> None:
    drain_after_leases(
        model=PendingRecompute,
        task=task_named("registry.tasks.drain_recomputes"),
        flag=LEASE_FLAG,
        what="recompute",
    )


# --- draining --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Claim:
    token: uuid.UUID
    generations: dict[int, int]  # agent id -> generation seen when claimed


def recompute_claim(*, batch: int = DRAIN_BATCH) -> Claim:
    """Claim up to `batch` pending agents under a lease; commits at once.

    Changed inputs first (oldest request first), then the marks of a bulk rescore (RescoreJob).
    """
    now = timezone.now()
    token = uuid.uuid4()
    with transaction.atomic():
        rows = list(
            PendingRecompute.objects.select_for_update(skip_locked=True)
            .filter(Q(claimed_until__isnull=True) | Q(claimed_until__lt=now))
            # The pending_claim_order index: read in this order and stop after a batch.
            .order_by("priority", "requested_at", "agent_id")
            .values_list("agent_id", "generation")[:batch]
        )
        if rows:
            PendingRecompute.objects.filter(any_of("agent_id", [agent_id for agent_id, _ in rows])).update(
                claim=token, claimed_until=lease_until()
            )
    return Claim(token=token, generations=dict(rows))


def recompute_settle(*, claim: Claim) -> tuple[int, int]:
    """Score the claimed agents and settle their rows; returns (settled, released for another run).

    Raises if the computation fails; the rows then stay claimed until the lease expires.
    """
    ids = sorted(claim.generations)
    if not ids:
        return 0, 0
    started = timezone.now()
    with transaction.atomic():
        # Only the columns scoring reads (the previous record's JSON is not needed: only its digest and
        # configuration are compared); decoding the others cost more than the query.
        agents = list(
            Agent.objects.select_related("latest_score")
            .only(*SCORED_AGENT_FIELDS)
            .filter(any_of("pk", ids))
            .order_by("pk")
        )
        results, fresh = trust_scores_prepare(agents=agents, now=started)
        # Agents before their marks, each in id order: writers that update an agent and then mark it
        # (the chain indexer) take the same order, so the two cannot wait on each other in a cycle.
        # NO KEY UPDATE is the lock the UPDATE below takes anyway; it leaves alone the KEY SHARE that
        # an ingest's foreign key to the agent holds (FOR UPDATE would wait on it, and deadlock).
        list(
            Agent.objects.select_for_update(no_key=True)
            .filter(any_of("pk", ids))
            .order_by("pk")
            .values_list("pk", flat=True)
        )
        # Waits for a writer bumping one of these marks to commit or roll back.
        held = dict(
            PendingRecompute.objects.select_for_update()
            .filter(any_of("agent_id", ids), claim=claim.token)
            .order_by("agent_id")
            .values_list("agent_id", "generation")
        )
        trust_scores_store(fresh=[(agent, score) for agent, score in fresh if agent.pk in held], now=started)
        _runs_record(
            runs=[
                (agent.pk, changed)
                for agent, (_, changed) in zip(agents, results, strict=True)
                if agent.pk in held
            ],
            started=started,
            finished=timezone.now(),
        )
        done = [
            agent_id for agent_id, generation in held.items() if generation == claim.generations[agent_id]
        ]
        moved = [agent_id for agent_id in held if agent_id not in done]
        PendingRecompute.objects.filter(any_of("agent_id", done), claim=claim.token).delete()
        if moved:
            PendingRecompute.objects.filter(any_of("agent_id", moved), claim=claim.token).update(
                claim=None, claimed_until=None
            )
    return len(done), len(moved)


_INSERT_RUNS = """
INSERT INTO registry_recomputerun (agent_id, started_at, finished_at, changed)
SELECT u.agent_id, %(started)s, %(finished)s, u.changed
FROM unnest(%(agent)b::bigint[], %(changed)b::boolean[]) AS u(agent_id, changed)
"""


def _runs_record(*, runs: list[tuple[int, bool]], started: datetime, finished: datetime) -> None:
    """One RecomputeRun per settled agent: one statement with array parameters on PostgreSQL."""
    if not runs:
        return
    if connection.vendor != "postgresql":
        RecomputeRun.objects.bulk_create(
            [
                RecomputeRun(agent_id=agent_id, started_at=started, finished_at=finished, changed=changed)
                for agent_id, changed in runs
            ]
        )
        return
    connection.ensure_connection()
    with psycopg.Cursor(connection.connection) as cursor:
        cursor.execute(
            _INSERT_RUNS,
            {
                "started": started,
                "finished": finished,
                "agent": [agent_id for agent_id, _ in runs],
                "changed": [changed for _, changed in runs],
            },
        )


def recompute_drain(
    *, batch: int = DRAIN_BATCH, budget_seconds: float | None = None, lease_followup: bool = False
) -> int:
    """Claim and settle batches until none is left (or the time budget is spent); returns agents settled.

    Claims skip locked and leased rows, so several workers can drain side by side. `lease_followup`:
    this is the drain queued for when others' leases lapse (see drain_after_leases).
    """
    budget = settings.SCORE_RECOMPUTE_DRAIN_BUDGET_SECONDS if budget_seconds is None else budget_seconds
    try:
        # Cleared first, so anything that lands while this runs queues exactly one more drain.
        cache.delete_many([DRAIN_FLAG, LEASE_FLAG] if lease_followup else [DRAIN_FLAG])
    except SCHEDULING_ERRORS:
        logger.warning("could not clear the drain flag", exc_info=True)
    deadline = time.monotonic() + budget
    done = 0
    while True:
        claim = recompute_claim(batch=batch)
        if not claim.generations:
            break
        # The lease is renewed while this claim is worked on, and lapses soon after a crash.
        with lease_kept(model=PendingRecompute, token=claim.token):
            try:
                with collector_paused():
                    settled, _ = recompute_settle(claim=claim)
            except Exception:
                logger.exception(
                    "recompute of %d agents together failed; trying them one by one", len(claim.generations)
                )
                settled = _settle_one_by_one(claim)
                if settled == 0:
                    # The rows stay claimed until the lease expires: retrying them now would loop.
                    break
        done += settled
        if len(claim.generations) < batch:
            break
        if time.monotonic() > deadline:
            # Hand over to a fresh task rather than hold one worker forever under a steady ingest.
            _ensure_drain()
            return done
    # Rows still leased by others (a dead worker's, or this drain's after a failure) need a drain
    # once the lease lapses; nothing else may come for them on a quiet system but the beat.
    _drain_after_leases()
    return done


def _settle_one_by_one(claim: Claim) -> int:
    settled = 0
    for agent_id, generation in claim.generations.items():
        try:
            done, _ = recompute_settle(claim=Claim(token=claim.token, generations={agent_id: generation}))
        except OperationalError:
            # The database is unreachable or restarting: the other agents would fail the same way.
            # Their lease lapses in a few seconds and a later drain takes them.
            logger.warning("the database failed while recomputing agent %s; the rest wait", agent_id)
            return settled
        except Exception:
            # One agent's failure (a bug, bad data) must not starve the others; it is tried again
            # after a while rather than at every drain once its short lease lapses.
            logger.exception("recompute of agent %s failed; it stays pending", agent_id)
            with contextlib.suppress(DatabaseError):
                PendingRecompute.objects.filter(agent_id=agent_id, claim=claim.token).update(
                    claimed_until=timezone.now() + timedelta(seconds=FAILED_RETRY_SECONDS)
                )
            continue
        settled += done
    return settled


def recompute_run(*, agent_id: int) -> TrustScore | None:
    """Recompute one agent now; its pending mark is settled if no input arrived meanwhile."""
    generation = (
        PendingRecompute.objects.filter(agent_id=agent_id, claim__isnull=True)
        .values_list("generation", flat=True)
        .first()
    )
    started = timezone.now()
    with transaction.atomic():
        agent = Agent.objects.select_related("latest_score").filter(pk=agent_id).first()
        if agent is None:
            return None
        score, changed = trust_score_compute(agent=agent)
        RecomputeRun.objects.create(
            agent_id=agent_id, started_at=started, finished_at=timezone.now(), changed=changed
        )
        if generation is not None:
            # Only the mark read before computing; a newer one stays for the drain.
            PendingRecompute.objects.filter(
                agent_id=agent_id, generation=generation, claim__isnull=True
            ).delete()
    return score
