"""A full rescore as one operation: every agent (or a provider's agents) through the recompute queue.

Suspending a provider or activating a new scoring configuration changes the score of every agent it
touches, up to the whole registry. Marking a million agents from Python (a list of ids, one
statement per 300) is slow and holds one transaction open for all of it; here a RescoreJob row is
stored in the caller's transaction (the durable intent), and its agents are then marked with
``INSERT ... SELECT`` in chunks of ascending agent id, each chunk in its own short transaction
together with the job's high-water mark, so an enqueue interrupted by a crash resumes where it
stopped (the beat drain resumes it; see :func:`rescore_jobs_resume`).

The marks are ordinary PendingRecompute rows at RESCORE priority: drains score agents whose inputs
changed first, and the rescore's agents after them. Progress is read from the queue: what is left
of a job is the number of rows requested at or before its `enqueued_at`.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime

from django.core.cache import cache
from django.db import connection, transaction
from django.utils import timezone

from common.enqueue import task_named

from ..models import PendingRecompute, Provider, RescoreJob
from .recompute import SCHEDULING_ERRORS, recompute_drain_ensure

logger = logging.getLogger(__name__)

#: The drain task settles running jobs' progress at most this often per job: the recount reads the
#: job's pending rows (up to the whole registry), and the drain runs every few seconds under load.
PROGRESS_RECOUNT_SECONDS = 30
_RECOUNT_KEY = "registry:rescore-progress-counted:{job_id}"

#: Agents marked per transaction: long enough to amortise the statement, short enough that a
#: chunk's row locks do not hold up the drain or an ingest for long.
ENQUEUE_CHUNK = 20_000

# Ascending agent ids, the one lock order of every writer of this table (recompute.py). A row that
# was already pending keeps its priority and takes the job's time if that is earlier, so it counts
# towards the job until it is scored.
_ENQUEUE_ALL = """
INSERT INTO registry_pendingrecompute (agent_id, requested_at, generation, priority)
SELECT a.id, %(at)s, 1, 1 FROM registry_agent a
WHERE a.id > %(after)s AND a.id <= %(through)s
ORDER BY a.id
ON CONFLICT (agent_id) DO UPDATE SET generation = registry_pendingrecompute.generation + 1,
    requested_at = LEAST(registry_pendingrecompute.requested_at, EXCLUDED.requested_at)
"""

_ENQUEUE_PROVIDER = """
INSERT INTO registry_pendingrecompute (agent_id, requested_at, generation, priority)
SELECT a.id, %(at)s, 1, 1 FROM registry_agent a
WHERE a.id > %(after)s AND a.id <= %(through)s
  AND EXISTS (
    SELECT 1 FROM registry_verificationsummary s WHERE s.agent_id = a.id AND s.provider_id = %(provider)s
  )
ORDER BY a.id
ON CONFLICT (agent_id) DO UPDATE SET generation = registry_pendingrecompute.generation + 1,
    requested_at = LEAST(registry_pendingrecompute.requested_at, EXCLUDED.requested_at)
"""

# The upper agent id of the next chunk (by agent ids, which exist whether or not they qualify).
_CHUNK_END = """
SELECT max(id) FROM (SELECT id FROM registry_agent WHERE id > %(after)s ORDER BY id LIMIT %(size)s) AS c
"""


def rescore_start(*, reason: str, provider: Provider | None = None, requested_by: str = "") -> RescoreJob:
    """Record a rescore in the caller's transaction and start marking its agents once it commits.

    `provider` limits it to the agents that provider reported on (its suspension or reinstatement).
    """
    job = RescoreJob.objects.create(
        reason=reason[:200],
        provider=provider,
        requested_by=requested_by[:150],
        enqueued_at=timezone.now(),
    )
    transaction.on_commit(lambda: _queue_enqueue(job.pk))
    return job


def _queue_enqueue(job_id: int) -> None:
    try:
        task_named("registry.tasks.enqueue_rescore").delay(job_id)
    except SCHEDULING_ERRORS:
        # The job row is committed: the beat drain resumes its enqueue.
        logger.warning("could not queue rescore job %s; the beat drain will resume it", job_id, exc_info=True)


def rescore_enqueue(*, job_id: int, chunk: int = ENQUEUE_CHUNK, wait: bool = True) -> RescoreJob | None:
    """Mark the job's agents, chunk by chunk from where it stopped; safe to run twice at once.

    Each chunk locks the job row (a second runner waits, then sees the new high-water mark; with
    `wait=False` it leaves the job to the runner that holds it), marks the agents with one
    INSERT ... SELECT, and commits them together with the mark.
    """
    while True:
        with transaction.atomic():
            job = RescoreJob.objects.select_for_update(skip_locked=not wait).filter(pk=job_id).first()
            if job is None or job.status not in (RescoreJob.Status.QUEUED, RescoreJob.Status.ENQUEUING):
                return job
            with connection.cursor() as cursor:
                cursor.execute(_CHUNK_END, {"after": job.enqueued_through, "size": chunk})
                (through,) = cursor.fetchone() or (None,)
                if through is None:
                    job.status = RescoreJob.Status.RUNNING
                    job.save(update_fields=["status"])
                    recompute_drain_ensure()
                    return job
                params = {"at": job.enqueued_at, "after": job.enqueued_through, "through": through}
                if job.provider_id is None:
                    cursor.execute(_ENQUEUE_ALL, params)
                else:
                    cursor.execute(_ENQUEUE_PROVIDER, {**params, "provider": job.provider_id})
                marked = cursor.rowcount
            job.total += marked
            job.enqueued_through = through
            job.status = RescoreJob.Status.ENQUEUING
            job.save(update_fields=["total", "enqueued_through", "status"])
            if marked:
                # The drain starts on the first chunk rather than after the last.
                recompute_drain_ensure()


@dataclass(frozen=True)
class RescoreProgress:
    """Where a job stands: agents scored and left, and when it should be done at the rate so far."""

    total: int
    done: int
    remaining: int
    eta: datetime | None
    finished: bool


def rescore_progress(*, job: RescoreJob) -> RescoreProgress:
    """Read a job's progress from the queue (one index range count); marks it done at zero."""
    if job.status == RescoreJob.Status.DONE:
        return RescoreProgress(
            total=job.total, done=job.total, remaining=0, eta=job.finished_at, finished=True
        )
    remaining = PendingRecompute.objects.filter(requested_at__lte=job.enqueued_at).count()
    if job.status in (RescoreJob.Status.QUEUED, RescoreJob.Status.ENQUEUING):
        # Not all marked yet: what is marked and gone is done; nothing can be promised yet.
        return RescoreProgress(
            total=job.total, done=max(0, job.total - remaining), remaining=remaining, eta=None, finished=False
        )
    done = max(0, job.total - remaining)
    now = timezone.now()
    if remaining == 0:
        RescoreJob.objects.filter(pk=job.pk, status=RescoreJob.Status.RUNNING).update(
            status=RescoreJob.Status.DONE, done=job.total, finished_at=now
        )
        job.status, job.done, job.finished_at = RescoreJob.Status.DONE, job.total, now
        return RescoreProgress(total=job.total, done=job.total, remaining=0, eta=now, finished=True)
    eta = None
    elapsed = (now - job.enqueued_at).total_seconds()
    if done > 0 and elapsed > 0:
        eta = now + (now - job.enqueued_at) * (remaining / done)
    if done != job.done:
        RescoreJob.objects.filter(pk=job.pk).update(done=done)
        job.done = done
    return RescoreProgress(total=job.total, done=done, remaining=remaining, eta=eta, finished=False)


def rescore_jobs_resume() -> int:
    """Every drain: finish the enqueue of jobs whose task was lost, and settle the progress of running
    ones (each at most every PROGRESS_RECOUNT_SECONDS, so a drain's own cost does not grow with a job)."""
    resumed = 0
    for job in RescoreJob.objects.exclude(status=RescoreJob.Status.DONE).order_by("pk"):
        if job.status in (RescoreJob.Status.QUEUED, RescoreJob.Status.ENQUEUING):
            rescore_enqueue(job_id=job.pk, wait=False)
            resumed += 1
        elif _recount_due(job.pk):
            rescore_progress(job=job)
    return resumed


def _recount_due(job_id: int) -> bool:
    """True for the first caller per job in each PROGRESS_RECOUNT_SECONDS (a cache flag).

    With the cache down, no: the admin page and `rescore_all` still count when they are read.
    """
    try:
        return bool(cache.add(_RECOUNT_KEY.format(job_id=job_id), 1, timeout=PROGRESS_RECOUNT_SECONDS))
    except SCHEDULING_ERRORS:
        logger.warning("could not check when rescore job %s was last counted", job_id, exc_info=True)
        return False
