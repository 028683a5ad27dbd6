"""How far scores lag behind their inputs under a steady ingest, with a real Celery worker (issue 15).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench_recompute REDIS_URL=redis://127.0.0.1:6379/3 \\
    CELERY_BROKER_URL=redis://127.0.0.1:6379/4 python bench/recompute_lag.py

The database is emptied (flush) and migrated first: give it a throw-away one. Starts one Celery worker
(solo pool, its own queue), then posts summaries through `summaries_ingest` (the endpoints' service;
BATCH per call, default 10) at RATE per second (default 500) for DURATION seconds (default 60), each
about a random one of AGENTS agents (default 2,000) from one of 5 providers, each with new numbers.
Then it waits for the queue to drain and prints, per summary, the lag from its arrival to the first
stored score whose newest input is at least that recent: percentiles, and how many were never
reflected. Bounded: DURATION + at most 120 s.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
QUEUE = f"recompute-lag-{uuid.uuid4().hex[:8]}"
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("SECRET_KEY", "bench-secret-key")
os.environ["CELERY_TASK_ALWAYS_EAGER"] = "0"
os.environ["CELERY_TASK_DEFAULT_QUEUE"] = QUEUE

AGENTS = int(os.environ.get("AGENTS", "2000"))
RATE = float(os.environ.get("RATE", "500"))
DURATION = float(os.environ.get("DURATION", "60"))
# Summaries per call: one process cannot post 500 single summaries/s; the drain's load is the same.
BATCH = int(os.environ.get("BATCH", "10"))
PROVIDERS = 5
BASE = datetime(2026, 11, 2, tzinfo=UTC)

LAG_SQL = """
SELECT EXTRACT(EPOCH FROM (
    SELECT min(t.computed_at) FROM registry_trustscore t
    WHERE t.agent_id = s.agent_id AND t.newest_input_at >= s.received_at
) - s.received_at)
FROM registry_verificationsummary s
WHERE s.received_at >= %s
"""


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 3)


def main() -> None:
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command
    from django.db import connection
    from django.utils import timezone

    from registry.models import PendingRecompute
    from registry.services.providers import provider_create
    from registry.services.summaries import summaries_ingest

    if connection.vendor != "postgresql" or not settings.CELERY_BROKER_URL.startswith("redis"):
        sys.exit("set DATABASE_URL (throw-away PostgreSQL) and CELERY_BROKER_URL (Redis)")
    call_command("migrate", verbosity=0)
    call_command("flush", interactive=False, verbosity=0)
    settings.AUTO_REGISTER_AGENTS = True
    providers = [provider_create(name=f"Lag {i}", slug=f"lag-{i}")[0] for i in range(PROVIDERS)]
    subjects = [f"lag-agent-{n:06d}" for n in range(AGENTS)]
    for provider in providers:  # registers the agents; the worker scores them first
        for start in range(0, AGENTS, 1000):
            summaries_ingest(
                provider=provider,
                bodies=[
                    {
                        "agent": s,
                        "allowRate": 0.9,
                        "blockRate": 0.05,
                        "uncertainRate": 0.05,
                        "avgConfidence": 0.9,
                        "totalChecks": 100,
                        "windowDays": 7,
                        "updatedAt": "2026-11-01T00:00:00Z",
                    }
                    for s in subjects[start : start + 1000]
                ],
                batch_key="summaries",
            )

    log = open(ROOT / "var" / f"{QUEUE}.log", "wb")  # noqa: SIM115 - closed after the worker stops
    worker = subprocess.Popen(
        [
            str(Path(sys.executable).with_name("celery")),
            *("-A", "config", "worker", "--pool=solo", "-Q", QUEUE),
            *("--loglevel=WARNING", "--without-gossip", "--without-mingle"),
        ],
        cwd=ROOT,
        env={**os.environ, "DB_CONN_MAX_AGE": "60"},
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 120
        while PendingRecompute.objects.exists() and time.monotonic() < deadline:
            time.sleep(0.5)
        started_at = timezone.now()
        rng = random.Random(15)
        sent = 0
        begin = time.monotonic()
        while (elapsed := time.monotonic() - begin) < DURATION:
            if sent >= elapsed * RATE:
                time.sleep(0.001)
                continue
            bodies = []
            for _ in range(BATCH):
                block = rng.randrange(0, 20) / 100
                bodies.append(
                    {
                        "agent": subjects[rng.randrange(AGENTS)],
                        "allowRate": round(0.95 - block, 2),
                        "blockRate": block,
                        "uncertainRate": 0.05,
                        "avgConfidence": 0.9,
                        "totalChecks": 100 + sent,
                        "windowDays": 7,
                        # A new window per summary (the same window again would be a replay).
                        "updatedAt": (BASE + timedelta(seconds=sent)).strftime("%Y-%m-%dT%H:%M:%SZ"),
                    }
                )
                sent += 1
            status, _ = summaries_ingest(
                provider=providers[sent % PROVIDERS], bodies=bodies, batch_key="summaries"
            )
            assert status == 201, status
        ingest_seconds = time.monotonic() - begin
        drain_started = time.monotonic()
        while PendingRecompute.objects.exists() and time.monotonic() - drain_started < 120:
            time.sleep(0.2)
        tail_seconds = time.monotonic() - drain_started
        with connection.cursor() as cursor:
            cursor.execute(LAG_SQL, [started_at])
            lags = [row[0] for row in cursor.fetchall()]
    finally:
        worker.terminate()
        worker.wait(timeout=30)
        log.close()
    reflected = [float(lag) for lag in lags if lag is not None]
    print(
        json.dumps(
            {
                "agents": AGENTS,
                "summaries": sent,
                "ingest_summaries_per_s": round(sent / ingest_seconds),
                "delay_seconds": settings.SCORE_RECOMPUTE_DELAY_SECONDS,
                "never_reflected": len(lags) - len(reflected),
                "pending_left": PendingRecompute.objects.count(),
                "drain_tail_seconds": round(tail_seconds, 1),
                "lag_seconds": {
                    "p50": percentile(reflected, 0.5),
                    "p90": percentile(reflected, 0.9),
                    "p99": percentile(reflected, 0.99),
                    "max": round(max(reflected), 3),
                }
                if reflected
                else None,
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
