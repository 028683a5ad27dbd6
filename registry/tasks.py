"""Celery tasks: thin wrappers that load by id and call a service."""

from __future__ import annotations

import logging
from typing import Any

from celery import shared_task
from celery.signals import worker_ready
from django.db import OperationalError, transaction
from django.db.models import F
from django.utils import timezone

from .models import Agent, Provider, TrustScore
from .services.audit import provider_audit_refresh
from .services.collector import TransientCollectError, provider_stats_collect
from .services.outcomes import outcomes_rollup
from .services.recompute import SCHEDULING_ERRORS, recompute_drain, recompute_mark, recompute_run
from .services.rescore import rescore_enqueue, rescore_jobs_resume
from .services.rollups import rollup_drain

logger = logging.getLogger(__name__)


@shared_task(autoretry_for=(OperationalError,), retry_backoff=True, max_retries=5)
def recompute_trust_score(agent_id: int) -> str | None:
    score = recompute_run(agent_id=agent_id)
    return None if score is None else str(score.trust_score)


@shared_task(autoretry_for=(OperationalError,), retry_backoff=True, max_retries=5)
def drain_recomputes(lease_followup: bool = False) -> int:
    """Recompute every agent marked pending (queued after a burst, and on the beat as a safety net).

    It first resumes rescore jobs whose enqueue task was lost and settles their progress (at most every
    rescore.PROGRESS_RECOUNT_SECONDS per job). `lease_followup`: queued for when other drains' leases
    lapse (their worker may be dead).
    """
    rescore_jobs_resume()
    return recompute_drain(lease_followup=lease_followup)


@shared_task(autoretry_for=(OperationalError,), retry_backoff=True, max_retries=5)
def enqueue_rescore(job_id: int) -> int | None:
    """Mark a rescore job's agents for the recompute queue (resumable; see services/rescore.py)."""
    job = rescore_enqueue(job_id=job_id)
    return None if job is None else job.total


@shared_task(autoretry_for=(OperationalError,), retry_backoff=True, max_retries=5)
def drain_rollups(lease_followup: bool = False) -> int:
    """Roll up every (provider, agent) pair marked pending (after outcomes, and on the beat)."""
    return rollup_drain(lease_followup=lease_followup)


@worker_ready.connect
def drain_on_worker_start(**_: Any) -> None:
    """A worker that starts (or restarts after a crash) drains at once, and again when the leases of
    a dead predecessor lapse (the drain queues that itself); not left to the beat."""
    for task in (drain_recomputes, drain_rollups):
        try:
            task.apply_async(retry=False)
        except SCHEDULING_ERRORS:
            logger.warning("could not queue %s at worker start; the beat will", task.name, exc_info=True)


@shared_task(autoretry_for=(OperationalError,), retry_backoff=True, max_retries=5)
def rollup_outcomes(provider_id: int, agent_id: int) -> int | None:
    provider = Provider.objects.filter(pk=provider_id).first()
    agent = Agent.objects.filter(pk=agent_id).first()
    if provider is None or agent is None:
        return None
    summary = outcomes_rollup(provider=provider, agent=agent)
    return None if summary is None else summary.pk


@shared_task(autoretry_for=(TransientCollectError,), retry_backoff=30, retry_backoff_max=900, max_retries=4)
def collect_provider_stats(provider_id: int) -> dict[str, Any] | None:
    provider = Provider.objects.filter(pk=provider_id).first()
    if provider is None:
        return None
    return provider_stats_collect(provider=provider).to_dict()


@shared_task
def collect_all_provider_stats() -> int:
    """Beat: fan out one task per provider so one provider's failure never blocks another."""
    ids = list(
        Provider.objects.filter(status=Provider.Status.ACTIVE)
        .exclude(stats_endpoint="")
        .values_list("pk", flat=True)
    )
    for provider_id in ids:
        collect_provider_stats.delay(provider_id)
    return len(ids)


@shared_task
def recompute_aging_scores() -> int:
    """Beat: rescore agents whose counted summaries have turned stale since their last score."""
    agent_ids = list(
        TrustScore.objects.filter(changes_at__lte=timezone.now(), agent__latest_score_id=F("pk")).values_list(
            "agent_id", flat=True
        )
    )
    with transaction.atomic():
        recompute_mark(agent_ids=agent_ids)
    return len(agent_ids)


@shared_task(autoretry_for=(OperationalError,), retry_backoff=True, max_retries=3)
def refresh_provider_audit() -> int | None:
    """Beat and the admin button: recompute the stored provider audit numbers (skipped if one runs)."""
    done = provider_audit_refresh(wait=False)
    return None if done is None else done.providers
