"""Full rescores as one operation (issue 22): a job, marked in chunks, drained by the ordinary queue."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from io import StringIO
from typing import Any

import pytest
from django.core.cache import cache
from django.core.management import call_command
from django.db import connection, transaction
from django.test import Client
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from registry.models import Agent, PendingRecompute, Provider, RescoreJob
from registry.services import rescore
from registry.services.providers import provider_set_status
from registry.services.recompute import (
    DRAIN_FLAG,
    recompute_claim,
    recompute_drain,
    recompute_mark,
    recompute_settle,
)
from registry.services.rescore import rescore_enqueue, rescore_jobs_resume, rescore_progress, rescore_start
from registry.services.scoring import scoring_config_create, scoring_config_current
from tests.registry.registry_support import summary_body

pytestmark = pytest.mark.django_db(transaction=True)


def _agents_with_summaries(key: str, count: int, prefix: str = "rescored") -> list[int]:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    Agent.objects.bulk_create([Agent(subject_id=f"{prefix}-{i}") for i in range(count)])
    items = [summary_body(f"{prefix}-{i}", updatedAt="2026-11-01T00:00:00Z") for i in range(count)]
    response = client.post("/api/v1/summaries/batch", {"summaries": items}, format="json")
    assert response.status_code == 201, response.json()
    recompute_drain()
    return sorted(Agent.objects.filter(subject_id__startswith=prefix).values_list("pk", flat=True))


def test_it_rescores_every_agent_when_a_new_configuration_is_created(
    make_provider: Callable[..., tuple[Provider, str]],
) -> None:
    _, key = make_provider("rescorer")
    ids = _agents_with_summaries(key, 30)
    before = scoring_config_current()
    params: dict[str, Any] = dict(before.params)
    params["stale_multiplier"] = 0.25 if params.get("stale_multiplier") != 0.25 else 0.5
    with transaction.atomic():
        config = scoring_config_create(params=params, note="new weights", created_by="tester")
    assert config.version == before.version + 1
    recompute_drain()  # what the worker does once the job has marked the agents
    job = RescoreJob.objects.get()
    assert job.reason == f"scoring configuration v{config.version}"
    assert job.total == Agent.objects.count()
    progress = rescore_progress(job=job)
    assert (progress.finished, progress.done, progress.remaining) == (True, job.total, 0)
    assert set(Agent.objects.filter(pk__in=ids).values_list("latest_score__config_id", flat=True)) == {
        config.pk
    }
    assert RescoreJob.objects.get().status == RescoreJob.Status.DONE


def test_it_rescores_only_the_agents_a_suspended_provider_reported_on(
    make_provider: Callable[..., tuple[Provider, str]],
) -> None:
    provider, key = make_provider("suspended-soon")
    reported = _agents_with_summaries(key, 12)
    Agent.objects.bulk_create([Agent(subject_id=f"bystander-{i}") for i in range(5)])
    with transaction.atomic():
        provider_set_status(provider=provider, status=Provider.Status.SUSPENDED, actor_label="tester")
    job = RescoreJob.objects.get()
    assert job.provider_id == provider.pk and job.total == len(reported)
    recompute_drain()
    scores = Agent.objects.filter(pk__in=reported).values_list("latest_score__record", flat=True)
    for record in scores:
        excluded = record["provenance"]["outputVerification"]["excluded"]
        assert excluded == [{"providerId": "suspended-soon", "reason": "suspended"}]
    assert not Agent.objects.filter(subject_id__startswith="bystander-", latest_score__isnull=False).exists()


@pytest.fixture
def drain_held_back() -> Iterator[None]:
    """Tasks run eagerly here; with the drain flag set, no drain is queued and a test steps by hand."""
    cache.set(DRAIN_FLAG, 1, timeout=300)
    yield
    cache.delete(DRAIN_FLAG)


def _started_job(prefix: str, count: int) -> tuple[RescoreJob, list[int]]:
    Agent.objects.bulk_create([Agent(subject_id=f"{prefix}-{i}") for i in range(count)])
    with transaction.atomic():
        job = rescore_start(reason="test")
    job.refresh_from_db()  # marked after the commit (the eager enqueue task)
    return job, sorted(Agent.objects.values_list("pk", flat=True))


@pytest.mark.usefixtures("drain_held_back")
def test_it_resumes_an_enqueue_that_stopped_half_way() -> None:
    job, ids = _started_job("resumed", 25)
    assert job.status == RescoreJob.Status.RUNNING and job.total == len(ids)
    # The state a crash after the first committed chunk leaves: ten agents marked, the mark at the tenth.
    PendingRecompute.objects.filter(agent_id__gt=ids[9]).delete()
    RescoreJob.objects.filter(pk=job.pk).update(
        status=RescoreJob.Status.ENQUEUING, total=10, enqueued_through=ids[9]
    )
    assert rescore_jobs_resume() == 1
    job.refresh_from_db()
    assert job.status == RescoreJob.Status.RUNNING
    assert job.total == len(ids) and job.enqueued_through == ids[-1]
    assert sorted(PendingRecompute.objects.values_list("agent_id", flat=True)) == ids


@pytest.mark.usefixtures("drain_held_back")
def test_it_marks_agents_in_chunks_from_where_it_stopped() -> None:
    job, ids = _started_job("chunked", 25)
    PendingRecompute.objects.all().delete()
    RescoreJob.objects.filter(pk=job.pk).update(status=RescoreJob.Status.QUEUED, total=0, enqueued_through=0)
    enqueued = rescore_enqueue(job_id=job.pk, chunk=7)
    assert enqueued is not None
    assert enqueued.total == len(ids) and enqueued.status == RescoreJob.Status.RUNNING
    assert sorted(PendingRecompute.objects.values_list("agent_id", flat=True)) == ids
    assert set(PendingRecompute.objects.values_list("priority", flat=True)) == {
        PendingRecompute.Priority.RESCORE
    }


@pytest.mark.usefixtures("drain_held_back")
def test_it_reports_progress_and_an_eta_while_running() -> None:
    job, _ = _started_job("progress", 10)
    settled, _ = recompute_settle(claim=recompute_claim(batch=4))
    assert settled == 4
    progress = rescore_progress(job=job)
    assert (progress.total, progress.done, progress.remaining, progress.finished) == (10, 4, 6, False)
    assert progress.eta is not None and progress.eta >= job.enqueued_at
    assert RescoreJob.objects.get(pk=job.pk).done == 4


@pytest.mark.usefixtures("drain_held_back")
def test_it_recounts_a_running_jobs_progress_on_a_drain_at_most_once_per_interval() -> None:
    job, _ = _started_job("recounted", 10)
    recount_key = rescore._RECOUNT_KEY.format(job_id=job.pk)
    cache.delete(recount_key)
    recompute_settle(claim=recompute_claim(batch=4))
    rescore_jobs_resume()  # what every drain task does first
    assert RescoreJob.objects.get(pk=job.pk).done == 4
    recompute_settle(claim=recompute_claim(batch=3))
    rescore_jobs_resume()  # within the interval: no recount
    assert RescoreJob.objects.get(pk=job.pk).done == 4
    cache.delete(recount_key)  # the interval has passed
    rescore_jobs_resume()
    assert RescoreJob.objects.get(pk=job.pk).done == 7
    # Read directly (the admin page, the command), progress is always counted.
    assert rescore_progress(job=job).done == 7


@pytest.mark.usefixtures("drain_held_back")
def test_it_settles_a_batch_of_rescored_agents_in_queries_that_do_not_grow_with_it(
    make_provider: Callable[..., tuple[Provider, str]],
) -> None:
    _, key = make_provider("counted")
    ids = _agents_with_summaries(key, 12)
    cache.set(DRAIN_FLAG, 1, timeout=300)  # that drain cleared it: step by hand again
    params: dict[str, Any] = dict(scoring_config_current().params)
    params["stale_multiplier"] = 0.25 if params.get("stale_multiplier") != 0.25 else 0.5
    with transaction.atomic():
        scoring_config_create(params=params, note="every score changes")
    assert PendingRecompute.objects.count() == len(ids)
    queries = []
    for batch in (3, 9):  # every agent has a previous score, read for the score-change webhooks
        with CaptureQueriesContext(connection) as captured:
            settled, _ = recompute_settle(claim=recompute_claim(batch=batch))
        assert settled == batch
        queries.append(len(captured.captured_queries))
    assert queries[0] == queries[1], queries
    assert not PendingRecompute.objects.exists()


@pytest.mark.usefixtures("drain_held_back")
def test_it_claims_changed_inputs_before_a_bulk_rescore() -> None:
    _, ids = _started_job("priority", 8)
    recompute_mark(agent_ids=[ids[-1]])  # new input for the agent the rescore would reach last
    claim = recompute_claim(batch=1)
    assert list(claim.generations) == [ids[-1]]


def test_it_rescores_from_the_command_and_prints_progress(
    make_provider: Callable[..., tuple[Provider, str]],
) -> None:
    _, key = make_provider("commanded")
    ids = _agents_with_summaries(key, 7)
    out = StringIO()
    call_command("rescore_all", "--drain", "--interval", "0", stdout=out)
    lines = out.getvalue().splitlines()
    assert lines[0].endswith(f"{len(ids)} agents marked.")
    assert lines[-1].startswith(f"{len(ids)}/{len(ids)} rescored, 0 left")
    assert RescoreJob.objects.get().status == RescoreJob.Status.DONE


def test_it_shows_rescore_progress_in_the_admin(
    admin_client_logged_in: tuple[Client, Any], make_provider: Callable[..., tuple[Provider, str]]
) -> None:
    client, _ = admin_client_logged_in
    _, key = make_provider("shown")
    _agents_with_summaries(key, 3)
    with transaction.atomic():
        rescore_start(reason="shown in the admin")
    response = client.get("/admin/registry/rescorejob/")
    assert response.status_code == 200
    page = response.content.decode()
    assert "shown in the admin" in page and "3 / 3 (100.0 %)" in page
