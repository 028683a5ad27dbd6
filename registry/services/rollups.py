"""The outcome roll-up queue: the recompute queue's protocol (see recompute.py) for (provider, agent) pairs.

Invariant: once drained, every pair's newest outcome summary covers every committed outcome.

* **Marking.** The transaction that stores outcomes upserts a PendingRollup row for the pair and
  bumps its generation (:func:`rollup_mark`); after commit a drain is queued, and a broker or cache
  outage is logged only: the beat drain finds the row.
* **Claiming.** A drain claims rows (SKIP LOCKED, a lease of SCORE_RECOMPUTE_LEASE_SECONDS, renewed
  while the batch is worked on: leases.py) and commits the claim; a killed worker's claims come
  back when the lease runs out, and a drain that finds only others' leases queues one for then.
* **Settling.** Per pair, one transaction locks the row (still ours?), rolls the outcomes up (a new
  summary, which marks the agent for a recompute) and deletes the row only if its generation is the
  claimed one; otherwise it releases it for another roll-up.
"""

from __future__ import annotations

import contextlib
import logging
import uuid
from collections.abc import Iterable
from datetime import timedelta

from django.core.cache import cache
from django.db import DatabaseError, OperationalError, connection, transaction
from django.db.models import Q
from django.utils import timezone

from common.enqueue import task_named

from ..models import Agent, PendingRollup, Provider
from .leases import lease_kept, lease_until
from .outcomes import outcomes_rollup
from .recompute import FAILED_RETRY_SECONDS, SCHEDULING_ERRORS, drain_after_leases, drain_queue_once

logger = logging.getLogger(__name__)

DRAIN_FLAG = "registry:rollup-drain-queued"
LEASE_FLAG = "registry:rollup-lease-drain-queued"
DRAIN_BATCH = 100

_MARK_SQL = (
    "INSERT INTO registry_pendingrollup (provider_id, agent_id, requested_at, generation) VALUES {values} "
    "ON CONFLICT (provider_id, agent_id) DO UPDATE SET generation = registry_pendingrollup.generation + 1"
)


def rollup_mark(*, pairs: Iterable[tuple[int, int]]) -> None:
    """Mark (provider id, agent id) pairs for a roll-up in the caller's transaction; drain after commit."""
    ordered = sorted(set(pairs))  # one lock order for concurrent writers
    if not ordered:
        return
    now = timezone.now()
    with transaction.atomic(), connection.cursor() as cursor:
        for start in range(0, len(ordered), 200):
            chunk = ordered[start : start + 200]
            values = ", ".join(["(%s, %s, %s, 1)"] * len(chunk))
            params = [value for provider_id, agent_id in chunk for value in (provider_id, agent_id, now)]
            cursor.execute(_MARK_SQL.format(values=values), params)
    transaction.on_commit(_ensure_drain)


def _ensure_drain() -> None:
    drain_queue_once(task=task_named("registry.tasks.drain_rollups"), flag=DRAIN_FLAG, what="roll-up")


def rollup_drain(*, batch: int = DRAIN_BATCH, lease_followup: bool = False) -> int:
    """Claim pending pairs and roll each up; returns how many rows were settled.

    `lease_followup`: this is the drain queued for when others' leases lapse (drain_after_leases).
    """
    try:
        cache.delete_many([DRAIN_FLAG, LEASE_FLAG] if lease_followup else [DRAIN_FLAG])
    except SCHEDULING_ERRORS:
        logger.warning("could not clear the roll-up drain flag", exc_info=True)
    done = 0
    while True:
        token, claimed = _claim(batch)
        if not claimed:
            break
        # The lease is renewed while the pairs are rolled up, and lapses soon after a crash.
        with lease_kept(model=PendingRollup, token=token):
            for (provider_id, agent_id), generation in claimed.items():
                try:
                    done += _settle(token, provider_id, agent_id, generation)
                except OperationalError:
                    # The database is unreachable: the rest would fail too; their lease lapses soon.
                    logger.warning("the database failed while rolling up; the rest wait", exc_info=True)
                    return done  # no follow-up: it would fail the same way; the beat drain retries
                except Exception:
                    # A bug or bad data: tried again after a while; the other pairs go on.
                    logger.exception("roll-up of provider %s, agent %s failed", provider_id, agent_id)
                    with contextlib.suppress(DatabaseError):
                        PendingRollup.objects.filter(
                            provider_id=provider_id, agent_id=agent_id, claim=token
                        ).update(claimed_until=timezone.now() + timedelta(seconds=FAILED_RETRY_SECONDS))
        if len(claimed) < batch:
            break
    # Pairs still leased by others (a dead worker's) need a drain once the lease lapses.
    _drain_after_leases()
    return done


def _drain_after_leases() -> None:
    drain_after_leases(
        model=PendingRollup, task=task_named("registry.tasks.drain_rollups"), flag=LEASE_FLAG, what="roll-up"
    )


def _claim(batch: int) -> tuple[uuid.UUID, dict[tuple[int, int], int]]:
    now = timezone.now()
    token = uuid.uuid4()
    with transaction.atomic():
        rows = list(
            PendingRollup.objects.select_for_update(skip_locked=True)
            .filter(Q(claimed_until__isnull=True) | Q(claimed_until__lt=now))
            .order_by("requested_at", "id")
            .values_list("id", "provider_id", "agent_id", "generation")[:batch]
        )
        PendingRollup.objects.filter(id__in=[row[0] for row in rows]).update(
            claim=token, claimed_until=lease_until()
        )
    return token, {(provider_id, agent_id): generation for _, provider_id, agent_id, generation in rows}


def _settle(token: uuid.UUID, provider_id: int, agent_id: int, generation: int) -> int:
    with transaction.atomic():
        row = (
            PendingRollup.objects.select_for_update()
            .filter(provider_id=provider_id, agent_id=agent_id, claim=token)
            .first()
        )
        if row is None:
            return 0  # the lease ran out and another drain took the pair
        provider = Provider.objects.filter(pk=provider_id).first()
        agent = Agent.objects.filter(pk=agent_id).first()
        if provider is not None and agent is not None:
            outcomes_rollup(provider=provider, agent=agent)
        if row.generation == generation:
            row.delete()
            return 1
        PendingRollup.objects.filter(pk=row.pk).update(claim=None, claimed_until=None)
        return 0
