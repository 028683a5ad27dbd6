"""A full rescore at scale (issue 22): seed N agents in SQL, rescore them all as one job, time it.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench_rescore .venv/bin/python bench/bench_rescore.py

The database is emptied (flush) and migrated first: give it a throw-away one. In one process, which
plays the one worker: seeds AGENTS agents (default 100,000) with one summary from each of PROVIDERS
providers (default 3) by INSERT ... SELECT over generate_series, then runs ROUNDS full rescores (the
first stores every agent's first score, the next ones a new scoring configuration's):
`rescore_start` + `rescore_enqueue` (the job marks every agent), then `recompute_drain` until the job
reports done. Also times the claim query with every agent pending (EXPLAIN ANALYZE). Prints JSON:
seconds to enqueue and to drain, agents/s, wall ms and worker CPU ms per agent, and the projection to
1 M agents, and the scoring step alone on the seeded agents, the one-by-one path beside the batch
one (`scoring_cpu_ms_per_agent`, see `_scoring_split`). PROFILE=path also writes a cProfile (CPU
clock) of the first round's drain there.
"""

from __future__ import annotations

import cProfile
import json
import math
import os
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("SECRET_KEY", "bench-secret-key")
os.environ.setdefault("CELERY_TASK_ALWAYS_EAGER", "0")
os.environ.setdefault("CELERY_BROKER_URL", "memory://")
# Seeding a million rows is one statement; the service statement timeout is for requests.
os.environ.setdefault("DB_STATEMENT_TIMEOUT_MS", "0")

AGENTS = int(os.environ.get("AGENTS", "100000"))
PROVIDERS = int(os.environ.get("PROVIDERS", "3"))
ROUNDS = int(os.environ.get("ROUNDS", "2"))
# PROFILE=path: cProfile (CPU time) the first round's drain, stats written there (`python -m pstats`).
PROFILE = os.environ.get("PROFILE", "")

_SEED_AGENTS = """
INSERT INTO registry_agent (
    subject_id, name, registry, protocol, owner_address, wallet_address, auto_registered, created_at
)
SELECT 'rescore-' || lpad(n::text, 8, '0'), '', CASE WHEN n %% 3 = 0 THEN 'erc-8004' ELSE 'other' END, '',
       '', '', false, now()
FROM generate_series(1, %(agents)s) AS n
"""

# One summary per (provider, agent); rates and checks vary with the ids so scores differ.
_SEED_SUMMARIES = """
INSERT INTO registry_verificationsummary (
    provider_id, agent_id, source, window_days, window_end, received_at, idempotency_key, body_digest,
    raw_body, allow_rate, block_rate, uncertain_rate, avg_confidence, total_checks, stake_distribution
)
SELECT p.id, a.id, 'push', 7, now() - interval '1 day', now(), '', 'sha256:' || md5(a.id::text || p.id::text),
       '{"seeded": true}'::jsonb,
       0.5 + ((a.id * 7 + p.id) %% 40) / 100.0, 0.5 - ((a.id * 7 + p.id) %% 40) / 100.0, 0.0,
       0.6 + ((a.id + p.id) %% 30) / 100.0, 10 + (a.id * 13 + p.id) %% 500,
       jsonb_build_object('low', jsonb_build_object('checks', 8), 'medium', jsonb_build_object('checks', 2))
FROM registry_agent a CROSS JOIN registry_provider p
"""


def main() -> None:
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection, transaction

    from registry.models import Agent, RescoreJob, ScoringConfig
    from registry.services import recompute, rescore
    from registry.services.providers import provider_create
    from registry.services.scoring import scoring_config_create, scoring_config_current

    if connection.vendor != "postgresql":
        sys.exit("set DATABASE_URL to a throw-away PostgreSQL database")
    call_command("migrate", verbosity=0)
    call_command("flush", interactive=False, verbosity=0)
    # This process is the worker: no task is queued, the loop below drains.
    recompute._ensure_drain = lambda: None
    rescore._queue_enqueue = lambda job_id: None

    for i in range(PROVIDERS):
        provider_create(name=f"Rescore {i}", slug=f"rescore-{i}")
    started = time.perf_counter()
    with connection.cursor() as cursor:
        cursor.execute(_SEED_AGENTS, {"agents": AGENTS})
        cursor.execute(_SEED_SUMMARIES, {})  # params given, so the SQL's %% are unescaped
        cursor.execute("ANALYZE")
    seeded = time.perf_counter() - started
    base = scoring_config_current()
    out: dict[str, object] = {"agents": AGENTS, "providers": PROVIDERS, "seed_s": round(seeded, 1)}
    rounds = []
    for round_ in range(ROUNDS):
        if round_:
            params = dict(base.params)
            params["stale_multiplier"] = 0.5 + round_ / 100
            with transaction.atomic():
                scoring_config_create(params=params, note=f"bench round {round_}")
            job = RescoreJob.objects.order_by("-pk").first()
        else:
            with transaction.atomic():
                job = rescore.rescore_start(reason="bench")
        assert job is not None
        t0 = time.perf_counter()
        rescore.rescore_enqueue(job_id=job.pk)
        t1 = time.perf_counter()
        with connection.cursor() as cursor:
            cursor.execute(
                "EXPLAIN (ANALYZE, FORMAT JSON) SELECT agent_id, generation FROM registry_pendingrecompute "
                "WHERE claimed_until IS NULL OR claimed_until < now() "
                "ORDER BY priority, requested_at, agent_id LIMIT 200 FOR UPDATE SKIP LOCKED"
            )
            plan = cursor.fetchone()[0][0]
        t2 = time.perf_counter()
        profiler = cProfile.Profile(time.process_time) if PROFILE and not round_ else None
        cpu2 = time.process_time()
        if profiler is not None:
            profiler.enable()
        drained = 0
        while True:
            drained += recompute.recompute_drain(budget_seconds=3600)
            job.refresh_from_db()
            if rescore.rescore_progress(job=job).finished:
                break
        if profiler is not None:
            profiler.disable()
            profiler.dump_stats(PROFILE)
        t3 = time.perf_counter()
        drain_cpu_s = time.process_time() - cpu2
        drain_s = t3 - t2
        rounds.append(
            {
                "config": ScoringConfig.objects.order_by("-version")
                .values_list("version", flat=True)
                .first(),
                "marked": job.total,
                "enqueue_s": round(t1 - t0, 2),
                "claim_ms_all_pending": round(plan["Execution Time"], 2),
                "claim_plan": plan["Plan"]["Node Type"] + " > " + plan["Plan"]["Plans"][0]["Node Type"],
                "drain_s": round(drain_s, 1),
                "agents_per_s": round(drained / drain_s),
                "ms_per_agent": round(1000 * drain_s / max(drained, 1), 3),
                # The worker's own CPU: on a shared machine the wall clock also counts other work.
                "worker_cpu_ms_per_agent": round(1000 * drain_cpu_s / max(drained, 1), 3),
                "projected_1M_min": round((t1 - t0 + drain_s) * 1_000_000 / max(AGENTS, 1) / 60, 1),
            }
        )
        print(json.dumps(rounds[-1]), flush=True)
    out["rounds"] = rounds
    out["scoring_cpu_ms_per_agent"] = _scoring_split()
    out["scored"] = Agent.objects.filter(latest_score__isnull=False).count()
    print(json.dumps(out, indent=2))


def _scoring_split(agents: int = 4000, repeats: int = 5) -> dict[str, float]:
    """The scoring step alone, on the seeded agents' inputs: best of `repeats`, CPU ms per agent.

    The drain's CPU per agent moves by ±0.1 ms between runs on the shared machine (PostgreSQL runs on
    the same two cores); timing the step in one process, path after path, shows what the batch saves.
    `scalar`: score_subject + to_hcs25 per agent (the drain before issue 22's batch scoring);
    `batch`: the inputs digest per agent + hcs25_records per 200 (the drain now); `digest`: the
    inputs digest alone, which both paths pay; `explanation`: the composition graph and its
    explanation alone (`graph_outcome` on each record's breakdown), which both paths now pay.
    """
    from django.utils import timezone

    from adapters.scoring import Subject, graph_outcome, score_subject, scoring_inputs_digest
    from adapters.vectorised import hcs25_records
    from registry.models import Agent
    from registry.services import scoring

    rows = list(Agent.objects.order_by("pk")[:agents])
    now = timezone.now()
    params = scoring.scoring_params(scoring.scoring_config_current())
    ids = [agent.pk for agent in rows]
    summaries = scoring.latest_summary_rows_many(ids)
    feedback = scoring.feedback_summaries_many(ids, params.erc8004_feedback.rating_tag)
    # Under reviewer weighting (the default sybil floor) the feedback is the curated one and every
    # path takes the reviewers' standings, as trust_scores_prepare does.
    evidence = scoring.reviewer_evidence_many(rows, params, now) if params.reviewer_weighting() else {}
    items = []
    standings: list[Any] = []
    for agent in rows:
        found = evidence.get(agent.pk)
        rated = found.feedback if found is not None else feedback[agent.pk]
        gathered = scoring._inputs_from(agent, summaries[agent.pk], rated, params, now)
        subject = Subject(agent.subject_id, agent.registry, agent.protocol or None)
        items.append((subject, gathered.summaries, gathered.feedback))
        standings.append(found.standings if found is not None else None)

    def scalar() -> None:
        for (subject, provided, rated), reviewers in zip(items, standings, strict=True):
            score_subject(
                subject, summaries=provided, feedback=rated, params=params, reviewers=reviewers
            ).to_hcs25(1, "t")

    def digests(start: int, stop: int) -> list[str]:
        return [
            scoring_inputs_digest(s, summaries=p, feedback=f, params=params, reviewers=r)[1]
            for (s, p, f), r in zip(items[start:stop], standings[start:stop], strict=True)
        ]

    def batch() -> None:
        for start in range(0, len(items), 200):
            stop = start + 200
            hcs25_records(
                items[start:stop],
                params,
                digests=digests(start, stop),
                config_version=1,
                updated_at_iso="t",
                reviewers=standings[start:stop],
            )

    def digest() -> None:
        digests(0, len(items))

    records = hcs25_records(
        items,
        params,
        digests=digests(0, len(items)),
        config_version=1,
        updated_at_iso="t",
        reviewers=standings,
    )

    def explanation() -> None:
        for record in records:
            graph_outcome(params, record["breakdown"]["adapters"], record["trustScore"])

    best = {"scalar": math.inf, "batch": math.inf, "digest": math.inf, "explanation": math.inf}
    steps = (("scalar", scalar), ("batch", batch), ("digest", digest), ("explanation", explanation))
    for _ in range(repeats):
        for name, step in steps:
            started = time.process_time()
            step()
            best[name] = min(best[name], time.process_time() - started)
    return {name: round(1000 * seconds / max(len(items), 1), 4) for name, seconds in best.items()}


if __name__ == "__main__":
    main()
