"""The stored provider audit at scale (issue 22): refresh time, and what the admin pays to read it.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench_audit python bench/bench_audit.py [--agents 100000]

The database is emptied (flush) and migrated first: give it a throw-away one (bench_audit by default,
created when missing). Seeds AGENTS agents (default 100,000; every tenth owned by one of 97 owners)
and one summary from each of three providers per agent, plus an older window for every tenth agent,
all in SQL (INSERT ... SELECT generate_series, as the issue's measurement copied rows in SQL).
Provider `copy` reports `base`'s rates (the copy signal), `stamp` allows everything (rubber stamp,
leniency). Then times `provider_audit_refresh` (REPEATS runs, median) and, through Django's test
client in this process, the admin provider changelist (and its query count), the agent and summary
changelists and the public provider page (median of 5 each). Prints JSON and writes
bench/results/audit.json. About a minute at 100,000 agents on 2 cores.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("SECRET_KEY", "bench-secret-key")
os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/bench_audit")
os.environ.setdefault("CELERY_TASK_ALWAYS_EAGER", "1")
os.environ.setdefault("CELERY_BROKER_URL", "memory://")
RESULTS = ROOT / "bench" / "results" / "audit.json"


def ensure_database(url: str) -> None:
    import psycopg

    name = url.rsplit("/", 1)[1]
    with psycopg.connect(url.rsplit("/", 1)[0] + "/postgres", autocommit=True) as conn:
        if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone() is None:
            conn.execute(f'CREATE DATABASE "{name}"')


SEED_AGENTS = """
INSERT INTO registry_agent (subject_id, name, registry, protocol, owner_address, auto_registered, created_at)
SELECT 'audit-' || lpad(g::text, 8, '0'), '', 'other', '',
       CASE WHEN g % 10 = 0 THEN '0x' || lpad(to_hex(g % 97), 40, '0') ELSE '' END, false, now()
FROM generate_series(1, {agents}) g
"""

# base: varied rates; copy: base's rates exactly; stamp: allows everything. Every tenth agent also
# has an older window from base that must not count.
SEED_SUMMARIES = """
INSERT INTO registry_verificationsummary (provider_id, agent_id, source, window_days, window_end,
    received_at, idempotency_key, body_digest, raw_body, allow_rate, block_rate, uncertain_rate,
    avg_confidence, total_checks, stake_distribution)
SELECT p.id, a.id, 'push', 7, now() - make_interval(days => w.age), now(), '', 'sha256:' || repeat('0', 64),
       '{}'::jsonb,
       CASE WHEN p.slug = 'stamp' THEN 1.0 ELSE 0.85 + (a.id % 7) * 0.01 END,
       CASE WHEN p.slug = 'stamp' THEN 0.0 WHEN w.age > 1 THEN 0.5 ELSE 0.05 + (a.id % 5) * 0.01 END,
       NULL, 0.8, 10 + a.id % 90, NULL
FROM registry_agent a CROSS JOIN registry_provider p
CROSS JOIN LATERAL (SELECT 1 AS age UNION ALL SELECT 8 WHERE a.id % 10 = 0 AND p.slug = 'base') w
"""


def median_ms(action: Any, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        action()
        times.append((time.perf_counter() - started) * 1000)
    return round(statistics.median(times), 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", type=int, default=int(os.environ.get("AGENTS", "100000")))
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    ensure_database(os.environ["DATABASE_URL"])

    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client

    from registry.models import Provider
    from registry.services.audit import provider_audit_refresh
    from registry.services.providers import provider_create

    if connection.vendor != "postgresql":
        sys.exit("set DATABASE_URL to a throw-away PostgreSQL database")
    settings.ALLOWED_HOSTS = ["*"]
    call_command("migrate", verbosity=0)
    call_command("flush", interactive=False, verbosity=0)

    started = time.perf_counter()
    for slug in ("base", "copy", "stamp"):
        provider_create(name=slug.title(), slug=slug)
    with connection.cursor() as cursor:
        cursor.execute("SET statement_timeout = 0")
        cursor.execute(SEED_AGENTS.format(agents=int(args.agents)))
        cursor.execute(SEED_SUMMARIES)
        cursor.execute("SELECT COUNT(*) FROM registry_verificationsummary")
        summaries = cursor.fetchone()[0]
        cursor.execute("ANALYZE")
    seed_s = time.perf_counter() - started

    refresh_ms = median_ms(provider_audit_refresh, args.repeats)
    user = get_user_model().objects.create_superuser("bench", "bench@example.com", "bench-not-secret")
    client = Client()
    client.force_login(user)

    def get(url: str) -> None:
        response = client.get(url, secure=True)
        assert response.status_code == 200, (url, response.status_code)

    queries: list[str] = []

    def count(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        queries.append(sql)
        return execute(sql, params, many, context)

    with connection.execute_wrapper(count):
        get("/admin/registry/provider/")
    base = Provider.objects.get(slug="base")
    result = {
        "agents": args.agents,
        "summaries": summaries,
        "providers": 3,
        "seed_s": round(seed_s, 1),
        "refresh_ms_median": refresh_ms,
        "admin_provider_changelist_ms": median_ms(lambda: get("/admin/registry/provider/"), 5),
        "admin_provider_changelist_queries": len(queries),
        "admin_provider_change_ms": median_ms(lambda: get(f"/admin/registry/provider/{base.pk}/change/"), 5),
        "admin_agent_changelist_ms": median_ms(lambda: get("/admin/registry/agent/"), 5),
        "admin_summary_changelist_ms": median_ms(lambda: get("/admin/registry/verificationsummary/"), 5),
        "public_provider_page_ms": median_ms(lambda: get("/providers/base"), 5),
        "flags": {slug: row for slug, row in Provider.objects.values_list("slug", "audit_stats__copies")},
    }
    print(json.dumps(result, indent=2))
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
