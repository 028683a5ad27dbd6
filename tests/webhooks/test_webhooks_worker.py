"""With a real Celery worker on Redis: a score moved through the API reaches the receiver, a 500 is retried
through the broker's countdown, and the delivery log says so."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest

from tests.celery_support import start_worker, stop_worker, wait_for, worker_queue
from webhooks.models import WebhookDelivery

WORKER_ENV = {
    "WEBHOOK_TEST_ALLOWED_HOSTS": "127.0.0.1",
    "WEBHOOK_BACKOFF_BASE_SECONDS": "0.5",
    "WEBHOOK_MAX_ATTEMPTS": "3",
}

__all__ = ["worker_queue"]  # the fixture, imported for pytest


@pytest.mark.django_db(transaction=True)
def test_it_delivers_and_retries_through_a_real_worker(
    worker_queue: str, marketplace: Any, provider: Any, receiver: Any, settings: Any
) -> None:
    settings.SCORE_RECOMPUTE_DELAY_SECONDS = 1
    created = marketplace.post(
        "/api/v1/webhooks/subscriptions", {"url": receiver.url, "events": ["score.changed"]}, format="json"
    ).json()
    receiver.statuses = [500]
    _, client = provider
    body = {
        "agent": "worker-agent",
        "allowRate": 0.9,
        "blockRate": 0.1,
        "uncertainRate": 0.0,
        "avgConfidence": 0.8,
        "totalChecks": 10,
        "windowDays": 7,
    }
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "worker.log"
        worker = start_worker(worker_queue, log, env=WORKER_ENV)
        try:
            assert client.post("/api/v1/summaries", body, format="json").status_code == 201
            wait_for(
                lambda: WebhookDelivery.objects.filter(status=WebhookDelivery.Status.SUCCEEDED).exists(),
                process=worker,
                log=log,
            )
        finally:
            stop_worker(worker)
    assert [json.loads(r.body)["data"]["agent"] for r in receiver.requests] == ["worker-agent"] * 2
    assert len({r.headers["webhook-id"] for r in receiver.requests}) == 1
    (delivery,) = marketplace.get(f"/api/v1/webhooks/subscriptions/{created['id']}/deliveries").json()[
        "results"
    ]
    assert (delivery["attempts"], [entry["code"] for entry in delivery["log"]]) == (2, [500, 200])
