"""CPU cost of each step of the ingestion and read paths, measured in process (no HTTP, no load generator).

    python bench/http_steps.py            # ~1-2 minutes; writes bench/results/http_steps.json

Complements bench_http.py, which measures whole requests. It uses the same throw-away PostgreSQL database
(`bench_trust`, so do not run both at once) and the same production-like environment. It seeds 1,000
agents, then times each step with time.process_time() over a few hundred calls. CPU time, not wall time, so
that other load on the machine matters less. docs/benchmarks.md ("Where the time goes") quotes these numbers.
Not run by `make bench` (the name does not start with bench_); run it when changing the hot paths.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

import bench_http as bh  # noqa: E402

RESULTS = ROOT / "bench" / "results" / "http_steps.json"


def cpu_ms(fn: Callable[[int], object], n: int) -> float:
    fn(0)
    started = time.process_time()
    for i in range(n):
        fn(i + 1)
    return round((time.process_time() - started) / n * 1000, 3)


def measure(seed_dir: Path) -> dict[str, float]:
    """Runs in a child process whose environment points Django at the benchmark database."""
    import io

    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.core.cache import cache
    from django.core.handlers.wsgi import WSGIHandler
    from django.db import connection
    from django.test import override_settings
    from django.test.client import RequestFactory

    from registry.models import Agent, PendingRecompute, TrustScore
    from registry.services.providers import provider_by_api_key
    from registry.services.recompute import (
        recompute_drain,
        recompute_mark,
        recompute_run,
    )
    from registry.services.scoring import trust_score_compute
    from registry.services.summaries import summaries_ingest
    from registry.services.validation import summary_validate
    from registry.tasks import recompute_trust_score
    from signing.canonical import canonical_digest

    seeded = json.loads((seed_dir / "seed.json").read_text())
    key = seeded["keys"][0]
    agents = seeded["agents"]

    def subject(i: int) -> str:
        return f"bench:agent-{i % agents:07d}"

    body = {
        "agent": subject(1),
        "agentRegistry": "other",
        "allowRate": 0.9,
        "blockRate": 0.05,
        "uncertainRate": 0.02,
        "avgConfidence": 0.9,
        "totalChecks": 1000,
        "windowDays": 7,
        "updatedAt": "2026-10-01T00:00:00.000001Z",
        "stakeDistribution": {"low": {"checks": 500}, "medium": {"checks": 250}, "high": {"checks": 125}},
    }
    out: dict[str, float] = {}

    def wsgi(path: str, middleware: list[str] | None = None) -> float:
        overrides = {"MIDDLEWARE": middleware} if middleware is not None else {}
        with override_settings(**overrides):
            handler = WSGIHandler()
            environ = RequestFactory().get(path).environ

            def start_response(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
                return lambda data: None

            def call(i: int) -> None:
                env = dict(environ)
                env["wsgi.input"] = io.BytesIO(b"")
                b"".join(handler(env, start_response))

            return cpu_ms(call, 500)

    minimal = ["django.middleware.security.SecurityMiddleware", "common.middleware.BodySizeLimitMiddleware"]
    read_path = f"/api/v1/agents/{subject(10)}/trust-score"
    out["healthz through Django, all middleware"] = wsgi("/healthz")
    out["healthz through Django, Security + BodySizeLimit only"] = wsgi("/healthz", minimal)
    out["trust-score view through Django, all middleware"] = wsgi(read_path)
    out["trust-score view through Django, Security + BodySizeLimit only"] = wsgi(read_path, minimal)
    out["trust-score query as written (select_related latest_score__config)"] = cpu_ms(
        lambda i: Agent.objects.select_related("latest_score__config").get(subject_id=subject(i)), 300
    )
    out["trust-score query as values_list of the three fields used"] = cpu_ms(
        lambda i: (
            Agent.objects.filter(subject_id=subject(i))
            .values_list("latest_score_id", "latest_score__inputs_digest", "latest_score__record")
            .first()
        ),
        300,
    )

    def raw_read(i: int) -> object:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT s.id, s.inputs_digest, s.record::text FROM registry_agent a "
                "JOIN registry_trustscore s ON s.id = a.latest_score_id WHERE a.subject_id = %s",
                [subject(i)],
            )
            return cursor.fetchone()

    out["trust-score query as raw SQL, record as text"] = cpu_ms(raw_read, 300)
    first = TrustScore.objects.first()
    assert first is not None
    cache.set("bench:ts", json.dumps(first.record).encode())
    out["cache.get of a rendered record (Redis)"] = cpu_ms(lambda i: cache.get("bench:ts"), 300)
    out["provider_by_api_key"] = cpu_ms(lambda i: provider_by_api_key(plaintext=key), 300)
    out["summary_validate, one summary"] = cpu_ms(lambda i: summary_validate(body), 500)
    out["canonical_digest, one summary"] = cpu_ms(lambda i: canonical_digest(body), 500)
    ids = list(Agent.objects.order_by("pk").values_list("id", flat=True)[:1000])
    out["PendingRecompute delete for one agent"] = cpu_ms(
        lambda i: PendingRecompute.objects.filter(agent_id=ids[i % 1000]).delete(), 200
    )

    def schedule_new(i: int) -> None:
        PendingRecompute.objects.filter(agent_id=ids[i % 1000]).delete()
        recompute_mark(agent_ids=[ids[i % 1000]])

    out["score_recompute_schedule_many, row new (includes the delete above)"] = cpu_ms(schedule_new, 200)
    out["score_recompute_schedule_many, row already there"] = cpu_ms(
        lambda i: recompute_mark(agent_ids=[ids[i % 200]]), 200
    )
    out["celery apply_async"] = cpu_ms(
        lambda i: recompute_trust_score.apply_async(args=[ids[i % 1000]], countdown=2), 300
    )

    def bulk_schedule(i: int) -> None:
        with connection.cursor() as cursor:
            cursor.execute("DELETE FROM registry_pendingrecompute")
            cursor.execute(
                "INSERT INTO registry_pendingrecompute (agent_id, requested_at) "
                "SELECT unnest(%s::bigint[]), now() ON CONFLICT (agent_id) DO NOTHING RETURNING agent_id",
                [ids],
            )
            cursor.fetchall()

    out["schedule 1,000 agents in one INSERT ... ON CONFLICT RETURNING (+ DELETE)"] = cpu_ms(
        bulk_schedule, 20
    )
    PendingRecompute.objects.all().delete()
    scored = list(Agent.objects.select_related("latest_score").order_by("pk")[300:360])
    out["trust_score_compute, new record"] = cpu_ms(lambda i: trust_score_compute(agent=scored[i % 30]), 29)
    out["trust_score_compute, inputs unchanged"] = cpu_ms(
        lambda i: trust_score_compute(agent=scored[i % 30]), 29
    )
    out["score_recompute_run (the task body)"] = cpu_ms(
        lambda i: recompute_run(agent_id=scored[30 + i % 30].pk), 29
    )

    # What a worker pays per agent when a drain finds many agents with new input (the usual case
    # under sustained ingest): inputs read and records written for the whole claimed batch at once.
    provider = provider_by_api_key(plaintext=key)
    assert provider is not None
    for round_ in range(2):
        for n in range(400, 600):
            fresh = {**body, "agent": subject(n), "updatedAt": f"2026-10-0{2 + round_}T00:00:00Z"}
            summaries_ingest(provider=provider, bodies=[fresh])
        started = time.process_time()
        drained = recompute_drain()
        per_agent = (time.process_time() - started) / max(drained, 1) * 1000
    out["score_recompute_drain, 200 agents with new input (per agent)"] = round(per_agent, 3)
    return out


def main() -> int:
    if len(sys.argv) > 2 and sys.argv[1] == "measure":
        print(json.dumps(measure(Path(sys.argv[2]))))
        return 0
    if not bh.postgres_available():
        raise SystemExit("PostgreSQL is not reachable at 127.0.0.1:5432 as user postgres")
    env = bh.bench_env(conn_max_age=600)
    work = Path(tempfile.mkdtemp(prefix="bench-steps-"))
    bh.redis_flush()
    bh.database_create()
    try:
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "--verbosity", "0"], cwd=ROOT, env=env, check=True
        )
        seed_cmd = [sys.executable, str(ROOT / "bench" / "bench_http.py"), "seed"]
        seed_cmd += ["--agents", "1000", "--scored", "60", "--out", str(work)]
        subprocess.run(seed_cmd, cwd=ROOT, env=env, check=True)
        answer = subprocess.run(
            [sys.executable, __file__, "measure", str(work)],
            cwd=ROOT,
            env=env,
            check=True,
            capture_output=True,
            text=True,
        )
    finally:
        bh.database_drop()
        bh.redis_flush()
    steps: dict[str, Any] = json.loads(answer.stdout.strip().splitlines()[-1])
    report = {
        "benchmark": "http steps, in process, CPU ms per call",
        "machine": bh.machine_info(),
        "steps_cpu_ms": steps,
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(report, indent=2) + "\n")
    print("| step | CPU ms |\n| --- | ---: |")
    for name, value in steps.items():
        print(f"| {name} | {value:.3f} |")
    print(f"\nwrote {RESULTS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
