"""A real Celery worker for tests: a unique queue on Redis, the worker process, and waiting on it.

Shared by the suites that run a worker (registry coalescing and recompute, the Redis-restart test,
webhook deliveries). Tasks go to a queue no other test uses, so suites can share one Redis database.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from urllib.parse import quote

import pytest
from django.conf import settings as django_settings
from django.db import connection

from config.celery import app as celery_app

BASE_DIR = Path(django_settings.BASE_DIR)
REDIS_URL = os.environ.get("REGISTRY_TEST_BROKER_URL", "redis://127.0.0.1:6379/11")


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
    queue = f"test-{uuid.uuid4().hex[:12]}"
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


def start_worker(
    queue: str, log: Path, *, broker_url: str = REDIS_URL, env: Mapping[str, str] | None = None
) -> subprocess.Popen[bytes]:
    """A solo-pool worker on `queue` against this test's database, its output in `log`; `env` adds
    or overrides settings of the worker process."""
    process_env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "SECRET_KEY": "test-secret-key-not-for-production",
        "DATABASE_URL": worker_database_url(),
        "CELERY_BROKER_URL": broker_url,
        "CELERY_TASK_ALWAYS_EAGER": "0",
        "CELERY_TASK_DEFAULT_QUEUE": queue,
        "SCORE_RECOMPUTE_DELAY_SECONDS": "1",
        "DB_CONN_MAX_AGE": "0",
        **(env or {}),
    }
    command = [
        str(Path(sys.executable).with_name("celery")),
        *("-A", "config", "worker", "--pool=solo", "-Q", queue, "--loglevel=INFO"),
        *("--without-gossip", "--without-mingle", "--without-heartbeat", "-n", f"{queue}@%h"),
    ]
    with log.open("wb") as out:
        return subprocess.Popen(command, cwd=BASE_DIR, env=process_env, stdout=out, stderr=subprocess.STDOUT)


def stop_worker(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)


def wait_for(
    condition: Callable[[], bool],
    *,
    process: subprocess.Popen[bytes],
    log: Path,
    deadline_seconds: float = 120,
) -> None:
    """Poll `condition` until it holds; fail with the worker's log if it exits or the deadline passes.

    The deadline only stops a hung test on a loaded machine: it asserts no speed."""
    deadline = time.monotonic() + deadline_seconds
    while time.monotonic() < deadline:
        if condition():
            return
        if process.poll() is not None:
            pytest.fail(f"the worker exited ({process.returncode}):\n{log.read_text()[-4000:]}")
        time.sleep(0.2)
    pytest.fail(f"timed out waiting for the worker:\n{log.read_text()[-4000:]}")
