"""With a real Celery worker on Redis: a score moved through the API reaches the receiver, a 500 is retried
through the broker's countdown, and the delivery log says so."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from django.conf import settings as django_settings
from django.db import connection

from config.celery import app as celery_app
from webhooks.models import WebhookDelivery

BASE_DIR = Path(django_settings.BASE_DIR)
REDIS_URL = os.environ.get(
    "WEBHOOK_TEST_BROKER_URL", os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/12")
)


def _database_url() -> str:
    db = connection.settings_dict
    user = quote(db.get("USER") or "", safe="")
    password = f":{quote(db['PASSWORD'], safe='')}" if db.get("PASSWORD") else ""
    port = f":{db['PORT']}" if db.get("PORT") else ""
    return f"postgres://{user}{password}@{db.get('HOST') or '127.0.0.1'}{port}/{db['NAME']}"


def _reset_producer() -> None:
    celery_app._pool = None
    celery_app.__dict__.pop("amqp", None)


@pytest.fixture
def worker_queue(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Tasks go to a unique queue on Redis (not eagerly); everything is restored afterwards."""
    queue = f"webhooks-test-{uuid.uuid4().hex[:12]}"
    conf = celery_app.conf
    saved = {key: conf.get(key) for key in ("broker_url", "task_default_queue", "task_routes")}
    monkeypatch.setenv("CELERY_BROKER_URL", REDIS_URL)
    conf.broker_url = REDIS_URL
    conf.task_default_queue = queue
    conf.task_routes = {"*": {"queue": queue}}
    conf.task_always_eager = False
    _reset_producer()
    try:
        yield queue
    finally:
        for key, value in saved.items():
            conf[key] = value
        _reset_producer()
        with contextlib.suppress(Exception):
            import redis

            redis.Redis.from_url(REDIS_URL).delete(queue)


def _start_worker(queue: str, log: Path) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "SECRET_KEY": "test-secret-key-not-for-production",
        "DATABASE_URL": _database_url(),
        "CELERY_BROKER_URL": REDIS_URL,
        "CELERY_TASK_ALWAYS_EAGER": "0",
        "CELERY_TASK_DEFAULT_QUEUE": queue,
        "SCORE_RECOMPUTE_DELAY_SECONDS": "1",
        "DB_CONN_MAX_AGE": "0",
        "WEBHOOK_TEST_ALLOWED_HOSTS": "127.0.0.1",
        "WEBHOOK_BACKOFF_BASE_SECONDS": "0.5",
        "WEBHOOK_MAX_ATTEMPTS": "3",
    }
    command = [
        str(Path(sys.executable).with_name("celery")),
        *("-A", "config", "worker", "--pool=solo", "-Q", queue, "--loglevel=INFO"),
        *("--without-gossip", "--without-mingle", "--without-heartbeat", "-n", f"{queue}@%h"),
    ]
    with log.open("wb") as out:
        return subprocess.Popen(command, cwd=BASE_DIR, env=env, stdout=out, stderr=subprocess.STDOUT)


def _stop_worker(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)


def _wait_for(condition: Callable[[], bool], *, process: subprocess.Popen[bytes], log: Path) -> None:
    # A generous bound on a loaded machine: it only stops a hung test, it asserts no speed.
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if condition():
            return
        if process.poll() is not None:
            pytest.fail(f"the worker exited ({process.returncode}):\n{log.read_text()[-4000:]}")
        time.sleep(0.2)
    pytest.fail(f"timed out waiting for the worker:\n{log.read_text()[-4000:]}")


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
        worker = _start_worker(worker_queue, log)
        try:
            assert client.post("/api/v1/summaries", body, format="json").status_code == 201
            _wait_for(
                lambda: WebhookDelivery.objects.filter(status=WebhookDelivery.Status.SUCCEEDED).exists(),
                process=worker,
                log=log,
            )
        finally:
            _stop_worker(worker)
    assert [json.loads(r.body)["data"]["agent"] for r in receiver.requests] == ["worker-agent"] * 2
    assert len({r.headers["webhook-id"] for r in receiver.requests}) == 1
    (delivery,) = marketplace.get(f"/api/v1/webhooks/subscriptions/{created['id']}/deliveries").json()[
        "results"
    ]
    assert (delivery["attempts"], [entry["code"] for entry in delivery["log"]]) == (2, [500, 200])
