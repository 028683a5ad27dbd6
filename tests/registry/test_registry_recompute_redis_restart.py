"""A worker keeps draining after its Redis broker restarts (issue 15, point 3).

Runs a private redis-server on a free loopback port (never the shared one), a real Celery worker on
it, restarts that Redis under the running worker, and checks the worker is still alive and scores a
summary posted after the restart.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings as django_settings
from django.db import connection

from config.celery import app as celery_app
from registry.models import Agent, PendingRecompute, Provider
from registry.services.agents import agent_register
from registry.services.summaries import summaries_ingest
from tests.celery_support import stop_worker, wait_for, worker_database_url
from tests.registry.registry_support import summary_body

RESTARTS = 2


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class PrivateRedis:
    def __init__(self, directory: Path) -> None:
        self.port = free_port()
        self.directory = directory
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        binary = shutil.which("redis-server")
        assert binary, "this test needs redis-server on PATH"
        self.process = subprocess.Popen(
            [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
            cwd=self.directory,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        import redis

        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with contextlib.suppress(Exception):
                if redis.Redis.from_url(self.url, socket_connect_timeout=0.2).ping():
                    return
            time.sleep(0.05)
        pytest.fail("the private redis-server did not start")

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=10)


@pytest.fixture
def private_broker(monkeypatch: pytest.MonkeyPatch) -> Iterator[PrivateRedis]:
    with tempfile.TemporaryDirectory() as tmp:
        server = PrivateRedis(Path(tmp))
        server.start()
        conf = celery_app.conf
        saved = {key: conf.get(key) for key in ("broker_url", "task_always_eager")}
        monkeypatch.setenv("CELERY_BROKER_URL", server.url)
        conf.broker_url = server.url
        conf.task_always_eager = False
        celery_app._pool = None
        celery_app.__dict__.pop("amqp", None)
        try:
            yield server
        finally:
            for key, value in saved.items():
                conf[key] = value
            celery_app._pool = None
            celery_app.__dict__.pop("amqp", None)
            server.kill()


def start_worker(broker_url: str, log: Path) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "SECRET_KEY": "test-secret-key-not-for-production",
        "DATABASE_URL": worker_database_url(),
        "CELERY_BROKER_URL": broker_url,
        "CELERY_TASK_ALWAYS_EAGER": "0",
        "SCORE_RECOMPUTE_DELAY_SECONDS": "0.5",
        "DB_CONN_MAX_AGE": "0",
    }
    command = [
        str(Path(sys.executable).with_name("celery")),
        "-A",
        "config",
        "worker",
        "--pool=solo",
        "--loglevel=INFO",
        "--without-gossip",
        "--without-mingle",
        "--without-heartbeat",
    ]
    with log.open("wb") as out:
        return subprocess.Popen(
            command, cwd=django_settings.BASE_DIR, env=env, stdout=out, stderr=subprocess.STDOUT
        )


def scored_with_newest_summary(agent: Agent, provider: Provider) -> Callable[[], bool]:
    newest = max(agent.summaries.values_list("pk", flat=True))

    def check() -> bool:
        fresh = Agent.objects.select_related("latest_score").get(pk=agent.pk)
        return (
            fresh.latest_score is not None
            and fresh.latest_score.record["provenance"]["summaryIds"] == {provider.slug: newest}
            and not PendingRecompute.objects.filter(agent_id=agent.pk).exists()
        )

    return check


@pytest.mark.django_db(transaction=True)
def test_it_keeps_scoring_after_the_broker_restarts(
    private_broker: PrivateRedis,
    make_provider: Callable[..., tuple[Provider, str]],
    settings: Any,
) -> None:
    if connection.vendor != "postgresql":
        pytest.skip("a worker process shares the database only on PostgreSQL here (set DATABASE_URL)")
    settings.SCORE_RECOMPUTE_DELAY_SECONDS = 0.5
    agent = agent_register(subject_id="restarted", registry="hcs-10")
    provider, _ = make_provider("restart-verifier")
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "worker.log"
        worker = start_worker(private_broker.url, log)
        try:
            for n in range(RESTARTS + 1):
                if n:
                    private_broker.kill()
                    time.sleep(1)
                    private_broker.start()
                    celery_app._pool = None  # this process's producer reconnects too
                body = summary_body("restarted", totalChecks=100 + n, updatedAt=f"2026-11-0{n + 1}T00:00:00Z")
                summaries_ingest(provider=provider, bodies=[body])
                wait_for(
                    scored_with_newest_summary(agent, provider), deadline_seconds=60, process=worker, log=log
                )
            assert worker.poll() is None
        finally:
            stop_worker(worker)
