"""Coalescing with a real Celery worker: a burst of summaries for one agent makes few recomputes."""

from __future__ import annotations

import contextlib
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
from registry_support import output_verification, summary_body
from rest_framework.test import APIClient

from config.celery import app as celery_app
from registry.models import Agent, PendingRecompute, Provider, RecomputeRun, TrustScore
from registry.services.agents import agent_register

BASE_DIR = Path(django_settings.BASE_DIR)
REDIS_URL = os.environ.get("REGISTRY_TEST_BROKER_URL", "redis://127.0.0.1:6379/11")
BURST = 20


def redis_available() -> bool:
    try:
        import redis

        return bool(redis.Redis.from_url(REDIS_URL, socket_connect_timeout=1).ping())
    except Exception:
        return False


def worker_database_url() -> str:
    """A DATABASE_URL for the database this test is using (pytest-django's test database)."""
    db = connection.settings_dict
    if db["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{db['NAME']}"
    user = quote(db.get("USER") or "", safe="")
    password = f":{quote(db['PASSWORD'], safe='')}" if db.get("PASSWORD") else ""
    host = db.get("HOST") or "127.0.0.1"
    port = f":{db['PORT']}" if db.get("PORT") else ""
    return f"postgres://{user}{password}@{host}{port}/{db['NAME']}"


def _reset_producer() -> None:
    """Forget the broker connection pool and routing so changed settings take effect.

    The old pool is dropped, not closed: kombu's global producer pools may still refer to it.
    """
    celery_app._pool = None
    celery_app.__dict__.pop("amqp", None)


@pytest.fixture
def worker_queue(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Send tasks to a unique queue on Redis, not eagerly; restore everything afterwards."""
    queue = f"registry-test-{uuid.uuid4().hex[:12]}"
    conf = celery_app.conf
    saved = {key: conf.get(key) for key in ("broker_url", "task_default_queue", "task_routes")}
    # Celery reads CELERY_BROKER_URL from the environment before its own settings.
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


def start_worker(queue: str, log: Path) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "SECRET_KEY": "test-secret-key-not-for-production",
        "DATABASE_URL": worker_database_url(),
        "CELERY_BROKER_URL": REDIS_URL,
        "CELERY_TASK_ALWAYS_EAGER": "0",
        "CELERY_TASK_DEFAULT_QUEUE": queue,
        "SCORE_RECOMPUTE_DELAY_SECONDS": "1",
        "DB_CONN_MAX_AGE": "0",
    }
    command = [
        str(Path(sys.executable).with_name("celery")),
        "-A",
        "config",
        "worker",
        "--pool=solo",
        "-Q",
        queue,
        "--loglevel=INFO",
        "--without-gossip",
        "--without-mingle",
        "--without-heartbeat",
        "-n",
        f"{queue}@%h",
    ]
    with log.open("wb") as out:
        return subprocess.Popen(command, cwd=BASE_DIR, env=env, stdout=out, stderr=subprocess.STDOUT)


def stop_worker(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)


def wait_for(
    condition: Callable[[], bool], *, deadline_seconds: float, process: subprocess.Popen[bytes], log: Path
) -> None:
    deadline = time.monotonic() + deadline_seconds
    while time.monotonic() < deadline:
        if condition():
            return
        if process.poll() is not None:
            pytest.fail(f"the worker exited ({process.returncode}):\n{log.read_text()[-4000:]}")
        time.sleep(0.2)
    pytest.fail(f"timed out waiting for the worker:\n{log.read_text()[-4000:]}")


@pytest.mark.django_db(transaction=True)
def test_it_coalesces_a_burst_of_summaries_into_few_recomputes(
    worker_queue: str,
    make_provider: Callable[..., tuple[Provider, str]],
    keyed_client: Callable[[str], APIClient],
    settings: Any,
) -> None:
    assert redis_available(), f"this test needs a Redis broker at {REDIS_URL} (REGISTRY_TEST_BROKER_URL)"
    settings.SCORE_RECOMPUTE_DELAY_SECONDS = 1
    agent = agent_register(subject_id="bursty", registry="hcs-10")
    _, key = make_provider("busy-verifier")
    client = keyed_client(key)
    bodies = [
        summary_body(
            "bursty",
            totalChecks=10 + 7 * i,
            blockRate=0.01 * (i % 6),
            allowRate=0.9,
            uncertainRate=0.09 - 0.01 * (i % 6),
            updatedAt=f"2026-11-01T00:{i:02d}:00Z",
        )
        for i in range(BURST)
    ]
    expected = output_verification([bodies[-1]])["total"]
    assert expected != output_verification([bodies[-2]])["total"]

    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "worker.log"
        process = start_worker(worker_queue, log)
        try:
            for body in bodies:
                response = client.post("/api/v1/summaries", body, format="json")
                assert response.status_code == 201, response.content

            def settled() -> bool:
                fresh = Agent.objects.get(pk=agent.pk)
                return (
                    fresh.trust_score is not None
                    and float(fresh.trust_score) == expected
                    and not PendingRecompute.objects.filter(agent_id=agent.pk).exists()
                )

            wait_for(settled, deadline_seconds=90, process=process, log=log)
        finally:
            stop_worker(process)

    runs = RecomputeRun.objects.filter(agent_id=agent.pk).count()
    assert 1 <= runs <= 3, f"{runs} recomputes for a burst of {BURST}"
    scores = TrustScore.objects.filter(agent_id=agent.pk)
    assert scores.count() <= runs
    latest = scores.order_by("-computed_at", "-id").first()
    assert latest is not None
    assert float(latest.trust_score) == expected
    assert latest.record["provenance"]["summaryIds"] == {
        "busy-verifier": max(s.pk for s in agent.summaries.all())
    }
