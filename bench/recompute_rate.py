"""How fast the recompute queue drains, next to how fast the ingest marks agents (issue 15).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench_recompute python bench/recompute_rate.py

The database is emptied (flush) and migrated first: give it a throw-away one. In one process, no
HTTP: seeds AGENTS agents (default 2,000) with one summary from each of PROVIDERS providers
(default 5), then for ROUNDS rounds ingests one new summary per agent per provider through
`summaries_ingest` (batches of 1,000, the batch endpoint's service) and drains the queue with
`recompute_drain`, timing both. Prints JSON: ingest summaries/s, drain agents/s, and what they mean
for a steady ingest (summaries/s the drain keeps up with, when each agent gets PROVIDERS summaries
per round). Bounded: ~1-2 minutes on 2 cores.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("SECRET_KEY", "bench-secret-key")
os.environ.setdefault("CELERY_TASK_ALWAYS_EAGER", "0")
os.environ.setdefault("CELERY_BROKER_URL", "memory://")

AGENTS = int(os.environ.get("AGENTS", "2000"))
PROVIDERS = int(os.environ.get("PROVIDERS", "5"))
ROUNDS = int(os.environ.get("ROUNDS", "3"))


def main() -> None:
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command
    from django.db import connection

    from registry.models import Agent, PendingRecompute
    from registry.services import recompute
    from registry.services.providers import provider_create
    from registry.services.summaries import summaries_ingest

    if connection.vendor != "postgresql":
        sys.exit("set DATABASE_URL to a throw-away PostgreSQL database")
    call_command("migrate", verbosity=0)
    call_command("flush", interactive=False, verbosity=0)
    settings.AUTO_REGISTER_AGENTS = True
    # No worker here: this process drains itself, so the after-commit scheduling is left out.
    recompute._ensure_drain = lambda: None

    providers = [provider_create(name=f"Rate {i}", slug=f"rate-{i}")[0] for i in range(PROVIDERS)]
    subjects = [f"rate-agent-{n:06d}" for n in range(AGENTS)]

    def ingest(round_: int) -> float:
        started = time.perf_counter()
        for p_index, provider in enumerate(providers):
            for start in range(0, AGENTS, 1000):
                bodies = [
                    {
                        "agent": s,
                        "allowRate": 0.9 - ((n + p_index + round_) % 9) / 100,
                        "blockRate": ((n + p_index + round_) % 9) / 100,
                        "uncertainRate": 0.1,
                        "avgConfidence": 0.9,
                        "totalChecks": 100 + n % 500 + round_,
                        "windowDays": 7,
                        "updatedAt": f"2026-11-{round_ + 1:02d}T00:00:00Z",
                    }
                    for n, s in enumerate(subjects[start : start + 1000], start=start)
                ]
                status, _ = summaries_ingest(provider=provider, bodies=bodies, batch_key="summaries")
                assert status == 201, status
        return time.perf_counter() - started

    def drain() -> tuple[int, float]:
        started = time.perf_counter()
        done = recompute.recompute_drain(budget_seconds=3600)
        return done, time.perf_counter() - started

    ingest(0)  # registers the agents
    drain()
    rounds = []
    for round_ in range(1, ROUNDS + 1):
        ingest_s = ingest(round_)
        assert PendingRecompute.objects.count() == AGENTS
        done, drain_s = drain()
        assert done == AGENTS and not PendingRecompute.objects.exists()
        rounds.append(
            {
                "ingest_summaries_per_s": round(AGENTS * PROVIDERS / ingest_s),
                "drain_agents_per_s": round(done / drain_s),
                "drain_seconds": round(drain_s, 2),
            }
        )
    best_drain = max(r["drain_agents_per_s"] for r in rounds)
    print(
        json.dumps(
            {
                "agents": AGENTS,
                "providers": PROVIDERS,
                "batch": recompute.DRAIN_BATCH,
                "rounds": rounds,
                "scored_agents": Agent.objects.filter(latest_score__isnull=False).count(),
                # Worst case for the drain: every summary lands on an agent with no mark yet, so each
                # needs its own recompute; coalescing within SCORE_RECOMPUTE_DELAY_SECONDS only helps.
                "drain_keeps_up_with_summaries_per_s_without_coalescing": best_drain,
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
