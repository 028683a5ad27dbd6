"""A broker or cache that is down never turns a committed write into an error (issue 15, point 4)."""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterator
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from config.celery import app as celery_app
from registry.models import (
    Agent,
    CheckOutcome,
    PendingRecompute,
    PendingRollup,
    Provider,
    VerificationSummary,
)
from registry.services.agents import agent_register
from registry.services.rollups import rollup_drain
from registry.services.summaries import summaries_ingest
from tests.registry.registry_support import summary_body


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def broker_down(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    url = f"redis://127.0.0.1:{closed_port()}/0"
    conf = celery_app.conf
    saved = {key: conf.get(key) for key in ("broker_url", "task_always_eager")}
    monkeypatch.setenv("CELERY_BROKER_URL", url)
    conf.broker_url = url
    conf.task_always_eager = False
    celery_app._pool = None
    celery_app.__dict__.pop("amqp", None)
    try:
        yield url
    finally:
        for key, value in saved.items():
            conf[key] = value
        celery_app._pool = None
        celery_app.__dict__.pop("amqp", None)


@pytest.mark.django_db(transaction=True)
def test_it_answers_201_and_keeps_the_mark_when_the_broker_is_down(
    broker_down: str,
    make_provider: Callable[..., tuple[Provider, str]],
    keyed_client: Callable[[str], APIClient],
) -> None:
    agent = agent_register(subject_id="brokerless", registry="hcs-10")
    _, key = make_provider("outage-verifier")

    response = keyed_client(key).post("/api/v1/summaries", summary_body("brokerless"), format="json")

    assert response.status_code == 201, response.content
    assert VerificationSummary.objects.filter(agent=agent).count() == 1
    assert PendingRecompute.objects.filter(agent=agent).exists()  # for the beat drain


@pytest.mark.django_db(transaction=True)
def test_it_stores_and_marks_a_summary_when_the_cache_is_down(
    make_provider: Callable[..., tuple[Provider, str]], settings: Any
) -> None:
    agent = agent_register(subject_id="cacheless", registry="hcs-10")
    provider, _ = make_provider("outage-verifier")
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": f"redis://127.0.0.1:{closed_port()}/0",
        }
    }

    status, _ = summaries_ingest(provider=provider, bodies=[summary_body("cacheless")])

    assert status == 201
    assert VerificationSummary.objects.filter(agent=agent).count() == 1
    assert PendingRecompute.objects.filter(agent=agent).exists()
    assert Agent.objects.get(pk=agent.pk).latest_score_id is None


@pytest.mark.django_db(transaction=True)
def test_it_answers_201_for_outcomes_when_the_broker_is_down(
    broker_down: str,
    make_provider: Callable[..., tuple[Provider, str]],
    keyed_client: Callable[[str], APIClient],
) -> None:
    agent = agent_register(subject_id="outcome-brokerless", registry="hcs-10")
    _, key = make_provider("outcome-outage-verifier")
    checked_at = (timezone.now() - timedelta(hours=1)).isoformat().replace("+00:00", "Z")
    body = {
        "agent": "outcome-brokerless",
        "outcomes": [{"id": "o-1", "verdict": "ALLOW", "confidence": 0.9, "checkedAt": checked_at}],
    }

    response = keyed_client(key).post("/api/v1/outcomes", body, format="json")

    assert response.status_code == 201, response.content
    assert CheckOutcome.objects.filter(agent=agent).count() == 1
    assert PendingRollup.objects.filter(agent=agent).exists()  # for the beat drain

    # The beat drain, once the broker is back (here: run in process).
    assert rollup_drain() == 1
    assert not PendingRollup.objects.exists()
    summary = VerificationSummary.objects.get(agent=agent, source=VerificationSummary.Source.OUTCOMES)
    assert summary.total_checks == 1
    assert PendingRecompute.objects.filter(agent=agent).exists()
