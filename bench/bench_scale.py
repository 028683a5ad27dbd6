"""Scale benchmark (issue 22): the registry's reads and writes at 10 k, 100 k and 1 M agents.

    python bench/bench_scale.py --agents 10000,100000            # ~3 min
    python bench/bench_scale.py --agents 10000,100000,1000000    # plus the 1 M seed (several minutes)
    python bench/bench_scale.py --agents 10000 --duration 3      # quicker
    python bench/bench_scale.py --agents 1000000 --keep          # seed bench_scale_1000000, keep it
    python bench/bench_scale.py --agents 1000000 --reuse         # rerun the reads on it, no seeding

For each size, in order: creates a fresh PostgreSQL database (`bench_scale` on 127.0.0.1:5432, user
postgres) and migrates it; seeds it (3 providers, agents, one summary per provider and rated agent, one
trust score per agent; see `seed`); VACUUM ANALYZE; EXPLAIN ANALYZE of each list query as the API
builds it; starts granian with docker/entrypoint.sh's flags (production settings, DEBUG off, Redis
cache, Celery queued to Redis with no worker, read rate limit off); logs an admin in; drives each
endpoint with wrk (16 connections, `--duration` s) after timing one request at a time; drops the
database. With `--keep` the database is `bench_scale_<N>` and stays; with `--reuse` a
`bench_scale_<N>` that holds a finished seed of N agents (recorded in its table `bench_scale_seed`,
with the providers' keys) is migrated, VACUUM ANALYZEd and measured again without seeding (the write
runs add summaries to it; the number of agents does not change). Prints a markdown table with the
EXPLAIN summaries and the database size per agent, and writes bench/results/scale.json.

Seeding is fast because almost nothing goes through the ORM: 40 template agents go through the services
(summaries_ingest, trust_score_compute), and their stored rows - every column as the service wrote it,
read back with SELECT * - are copied to the other agents with COPY, with the agent's id and subject id
substituted (in the JSON bodies too, whose digests are recomputed). One template in ten has no
summaries, so about a tenth of the agents are unrated.

`python bench/bench_scale.py seed ...` / `explain ...` are the steps run in a child process with the
benchmark's environment (Django set up against the benchmark database).
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from dataclasses import asdict
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_http as base

ROOT = base.ROOT
RESULTS = ROOT / "bench" / "results" / "scale.json"
DB_NAME = "bench_scale"
# The helper's own Redis database (cache and broker): another benchmark may be using 14/15.
REDIS_DB = int(os.environ.get("BENCH_SCALE_REDIS_DB", "3"))
PROVIDERS = 3
TEMPLATES = 40
BATCH = 1000
SUBJECTS_FOR_LOAD = 20_000
ADMIN_USER, ADMIN_PASSWORD = "bench-admin", "bench-admin-password-0123456789"
# A word one agent name in twenty contains, for `q=`.
NOUNS = [
    "pricing",
    "travel",
    "code",
    "search",
    "support",
    "legal",
    "trading",
    "news",
    "health",
    "mail",
    "calendar",
    "photo",
    "music",
    "sales",
    "tax",
    "maps",
    "chess",
    "recipe",
    "fitness",
    "weather",
]
ADJECTIVES = ["swift", "calm", "bright", "clever", "steady", "bold", "quiet", "keen", "prime", "lucid"]
REGISTRIES = ["other", "hcs-10", "erc-8004"]

# The targets at 1 M agents.
TARGETS = {
    "list_one_request_ms": 10.0,
    "list_rps": 500.0,
    "list_p99_ms": 100.0,
    "trust_score_rps": 1500.0,
    "admin_changelist_s": 1.0,
}

LUA_PATH = (
    r"""
local path, headers
init = function(args)
  path = args[1]
  headers = {}
  if args[2] ~= nil and #args[2] > 0 then headers["Cookie"] = args[2] end
end
request = function()
  return wrk.format("GET", path, headers)
end
"""
    + base.LUA_DONE
)

LUA_SUBJECT_PATH = (
    r"""
local subjects, suffix
init = function(args)
  subjects = load_lines(args[1])
  suffix = args[2]
  math.randomseed(os.time() + tid * 7919)
end
request = function()
  local s = subjects[math.random(#subjects)]
  return wrk.format("GET", "/api/v1/agents/" .. s .. suffix)
end
"""
    + base.LUA_DONE
)


def db_name(agents: int, *, kept: bool) -> str:
    """`bench_scale`, or `bench_scale_<N>` for a database that is kept (or reused) between runs."""
    return f"{DB_NAME}_{agents}" if kept else DB_NAME


def bench_env(name: str = DB_NAME) -> dict[str, str]:
    env = base.bench_env(conn_max_age=60)
    env.update(
        {
            "DATABASE_URL": f"postgres://postgres@127.0.0.1:5432/{name}",
            "REDIS_URL": f"redis://127.0.0.1:6379/{REDIS_DB}",
            "CELERY_BROKER_URL": f"redis://127.0.0.1:6379/{REDIS_DB}",
        }
    )
    return env


def redis_flush() -> None:
    with contextlib.suppress(Exception):
        import redis

        redis.Redis(host="127.0.0.1", port=6379, db=REDIS_DB).flushdb()


def database_create(name: str) -> None:
    with base._pg_connect() as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {name}")


def database_drop(name: str) -> None:
    with contextlib.suppress(Exception), base._pg_connect() as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def database_seeded(name: str, agents: int) -> bool:
    """Whether database `name` exists and a finished seed of `agents` agents is recorded in it."""
    with base._pg_connect() as conn:
        if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone() is None:
            return False
    with _db(name) as conn:
        if conn.execute("SELECT to_regclass('bench_scale_seed')").fetchone()[0] is None:
            return False
        row = conn.execute("SELECT (info->>'agents')::int FROM bench_scale_seed").fetchone()
        count = conn.execute("SELECT count(*) FROM registry_agent").fetchone()[0]
    return row is not None and row[0] == agents and count == agents


def _db(name: str | None = None, **kwargs: Any) -> Any:
    """A connection to the benchmark database (in a child step: the one DATABASE_URL names)."""
    if name is None:
        name = urllib.parse.urlsplit(os.environ["DATABASE_URL"]).path.lstrip("/")
    return base._pg_connect(f"postgresql://postgres@127.0.0.1:5432/{name}", **kwargs)


# --- seeding (child process, Django set up) -----------------------------------------------------------


def _django() -> None:
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()


def _template_body(k: int, p: int, subject: str, now: datetime) -> dict[str, Any]:
    block = ((k * 3 + p * 5) % 17) / 200
    total = 150 + (k * 37 + p * 11) % 900
    return {
        "agent": subject,
        "allowRate": round(0.97 - block, 3),
        "blockRate": round(block, 3),
        "uncertainRate": 0.03,
        "avgConfidence": round(0.8 + (k % 5) / 50, 3),
        "totalChecks": total,
        "windowDays": 7,
        "updatedAt": (now - timedelta(minutes=k + p)).isoformat().replace("+00:00", "Z"),
        "stakeDistribution": {"low": {"checks": total // 2}, "high": {"checks": total // 4}},
    }


def _columns(cursor: Any, table: str) -> list[str]:
    cursor.execute(f"SELECT * FROM {table} LIMIT 0")
    return [d.name for d in cursor.description]


def _json_text(value: Any) -> str:
    """A JSON column as read back (Django's connection hands jsonb over as text) as JSON text."""
    return value if isinstance(value, str) else json.dumps(value)


def _text(value: Any) -> Any:
    """A value as COPY's text format takes it (psycopg adapts str, numbers, datetimes; JSON as text)."""
    if isinstance(value, dict | list):
        return json.dumps(value, separators=(",", ":"))
    return value


def seed(agents: int, out: Path) -> None:
    """Providers, template agents through the services, then COPY of their rows to every other agent."""
    _django()
    from django.contrib.auth import get_user_model
    from django.db import connection, transaction
    from django.utils import timezone

    from common.pagination import cursor_encode
    from registry.api.filtersets import AGENT_ORDERINGS
    from registry.models import Agent, TrustScore
    from registry.services.agents import agent_register
    from registry.services.providers import provider_create
    from registry.services.scoring import trust_score_compute
    from registry.services.summaries import summaries_ingest
    from signing.canonical import canonical_digest

    started = time.perf_counter()
    now = timezone.now()
    providers, keys = [], []
    for p in range(PROVIDERS):
        provider, issued = provider_create(name=f"Scale provider {p}", slug=f"scale-{p}")
        assert issued is not None
        providers.append(provider)
        keys.append(issued.plaintext)
    templates = []
    for k in range(min(TEMPLATES, agents)):
        subject = f"scale:agent-{k:07d}"
        agent = agent_register(subject_id=subject, name=_name(k), registry=REGISTRIES[k % 3])
        if k % 10 != 9:  # one template in ten stays without summaries: unrated
            for p, provider in enumerate(providers):
                status, answer = summaries_ingest(
                    provider=provider, bodies=[_template_body(k, p, subject, now)]
                )
                assert status == 201, answer
        with transaction.atomic():
            trust_score_compute(agent=Agent.objects.get(pk=agent.pk))
        templates.append(Agent.objects.get(pk=agent.pk))
    serviced = time.perf_counter()
    copied = {"agents": 0, "summaries": 0, "scores": 0}
    with connection.cursor() as django_cursor:
        raw = django_cursor.cursor
        agent_cols = _columns(raw, "registry_agent")
        summary_cols = _columns(raw, "registry_verificationsummary")
        score_cols = _columns(raw, "registry_trustscore")
        raw.execute("SELECT * FROM registry_agent ORDER BY id")
        agent_rows = {r[0]: dict(zip(agent_cols, r, strict=True)) for r in raw.fetchall()}
        raw.execute("SELECT * FROM registry_verificationsummary ORDER BY id")
        summaries_of: dict[int, list[dict[str, Any]]] = {}
        for r in raw.fetchall():
            row = dict(zip(summary_cols, r, strict=True))
            summaries_of.setdefault(row["agent_id"], []).append(row)
        raw.execute("SELECT * FROM registry_trustscore ORDER BY id")
        score_of = {
            r[score_cols.index("agent_id")]: dict(zip(score_cols, r, strict=True)) for r in raw.fetchall()
        }
        raw.execute("SELECT max(id) FROM registry_agent")
        next_agent = raw.fetchone()[0] + 1
        raw.execute("SELECT coalesce(max(id), 0) FROM registry_verificationsummary")
        next_summary = raw.fetchone()[0] + 1
        raw.execute("SELECT coalesce(max(id), 0) FROM registry_trustscore")
        next_score = raw.fetchone()[0] + 1
    template_rows = [agent_rows[t.pk] for t in templates]
    with transaction.atomic(), connection.cursor() as django_cursor:
        raw = django_cursor.cursor
        # The per-statement bound (DB_STATEMENT_TIMEOUT_MS) is for requests, not for a bulk load.
        raw.execute("SET LOCAL statement_timeout = 0")
        # Scores first: the agent rows point at them, and the agent trigger reads the score's
        # confidence (the foreign keys are deferred to the commit).
        score_ids: dict[int, int] = {}
        with raw.copy(f"COPY registry_trustscore ({', '.join(score_cols)}) FROM STDIN") as copy:
            for i in range(len(templates), agents):
                t = template_rows[(i * 7919) % len(template_rows)]
                row = dict(score_of[t["id"]])
                subject = f"scale:agent-{i:07d}"
                agent_id = next_agent + i - len(templates)
                row["id"], row["agent_id"] = next_score, agent_id
                row["record"] = _json_text(row["record"]).replace(t["subject_id"], subject)
                row["inputs"] = _json_text(row["inputs"]).replace(t["subject_id"], subject)
                row["computed_at"] = row["computed_at"] - timedelta(seconds=i % 86_400)
                score_ids[i] = next_score
                next_score += 1
                copy.write_row([_text(row[c]) for c in score_cols])
                copied["scores"] += 1
        with raw.copy(f"COPY registry_agent ({', '.join(agent_cols)}) FROM STDIN") as copy:
            for i in range(len(templates), agents):
                t = template_rows[(i * 7919) % len(template_rows)]
                row = dict(t)
                row["id"] = next_agent + i - len(templates)
                row["subject_id"] = f"scale:agent-{i:07d}"
                row["name"] = _name(i)
                row["registry"] = REGISTRIES[i % 3]
                row["latest_score_id"] = score_ids[i]
                row["trust_score_updated_at"] = t["trust_score_updated_at"] - timedelta(seconds=i % 86_400)
                row["created_at"] = now
                copy.write_row([_text(row[c]) for c in agent_cols])
                copied["agents"] += 1
        with raw.copy(f"COPY registry_verificationsummary ({', '.join(summary_cols)}) FROM STDIN") as copy:
            for i in range(len(templates), agents):
                t = template_rows[(i * 7919) % len(template_rows)]
                subject = f"scale:agent-{i:07d}"
                for s in summaries_of.get(t["id"], []):
                    row = dict(s)
                    row["id"], row["agent_id"] = next_summary, next_agent + i - len(templates)
                    body = dict(json.loads(_json_text(row["raw_body"])), agent=subject)
                    row["raw_body"], row["body_digest"] = body, canonical_digest(body)
                    next_summary += 1
                    copy.write_row([_text(row[c]) for c in summary_cols])
                    copied["summaries"] += 1
        for table in ("registry_agent", "registry_verificationsummary", "registry_trustscore"):
            raw.execute(
                f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), (SELECT max(id) FROM {table}))"
            )
    copied_at = time.perf_counter()
    with _db() as conn:
        conn.execute("VACUUM ANALYZE")
    analysed = time.perf_counter()

    get_user_model().objects.create_superuser(ADMIN_USER, "admin@bench.invalid", ADMIN_PASSWORD)
    # Cursors deep in each list: the page 50 rows before the end (what `offset=N-50` asked before).
    deep = {}
    for name in ("-score", "score", "-updated", "subject"):
        ordering = AGENT_ORDERINGS[name]
        last = Agent.objects.order_by(*ordering.order_by())[max(agents - 51, 0)]
        deep[name] = cursor_encode(ordering_name=name, direction="n", values=ordering.values_of(last))
    unrated = Agent.objects.filter(trust_rank__isnull=True).count()
    info = {
        "keys": keys,
        "agents": agents,
        "providers": PROVIDERS,
        "unrated_agents": unrated,
        "templates_through_services": len(templates),
        "copied": copied,
        "template_s": round(serviced - started, 2),
        "copy_s": round(copied_at - serviced, 2),
        "vacuum_analyze_s": round(analysed - copied_at, 2),
        "deep_cursors": deep,
        "trust_scores": TrustScore.objects.count() if agents <= 100_000 else None,
    }
    # Kept with the data, so that `--reuse` can run the reads and writes again without seeding (the
    # provider keys' plaintexts are not in the registry's tables).
    with _db() as conn:
        conn.execute("CREATE TABLE bench_scale_seed (info jsonb NOT NULL)")
        conn.execute("INSERT INTO bench_scale_seed (info) VALUES (%s::jsonb)", [json.dumps(info)])
    session_write(out)


def session_write(out: Path) -> None:
    """seed.json (the recorded seed, a fresh admin session) and the subject lists for wrk."""
    _django()
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.test import Client

    with _db() as conn:
        info = conn.execute("SELECT info FROM bench_scale_seed").fetchone()[0]
    agents = info["agents"]
    admin = get_user_model().objects.get(username=ADMIN_USER)
    # A logged-in admin's session, made as Django's test client logs in (production cookies are
    # Secure, which an http:// client would not send back from a login form).
    client = Client()
    client.force_login(admin)
    info["admin_cookie"] = (
        f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"
    )
    subjects = [f"scale:agent-{i:07d}" for i in range(0, agents, max(1, agents // SUBJECTS_FOR_LOAD))]
    (out / "subjects.txt").write_text("\n".join(subjects) + "\n")
    # Batches name a small set of agents, so concurrent batches overlap (in different orders).
    (out / "batch-subjects.txt").write_text("\n".join(subjects[:5000]) + "\n")
    (out / "seed.json").write_text(json.dumps(info))


def _name(i: int) -> str:
    return f"{ADJECTIVES[i % len(ADJECTIVES)].title()} {NOUNS[(i // 3) % len(NOUNS)]} agent {i}"


# --- EXPLAIN of the list queries as the API builds them (child process) ---------------------------------


def list_queries(deep: dict[str, str]) -> dict[str, str]:
    """name -> the API query string of each list variant measured."""
    return {
        "-score": "ordering=-score",
        "score": "ordering=score",
        "-updated": "ordering=-updated",
        "subject": "ordering=subject",
        "registry": "registry=hcs-10&ordering=-score",
        "rated=false": "rated=false",
        "provider": "ordering=-score&provider=scale-1",
        "max_score": "ordering=-score&max_score=50",
        "q=weather": "ordering=-score&q=weather",
        "q rare": "q=agent-0000123",
        "q prefix": "q=weat",
        "q two words": "q=keen+weather",
        "q=weather subject": "q=weather&ordering=subject",
        "deep cursor": "ordering=-score&cursor=" + urllib.parse.quote(deep["-score"]),
        "count=exact": "ordering=-score&count=exact",
    }


def explain(out: Path) -> None:
    """EXPLAIN ANALYZE of each list query: the plan's nodes and the execution time."""
    _django()
    from django.http import QueryDict
    from rest_framework.test import APIRequestFactory

    from registry.api.views import AgentListView

    seeded = json.loads((out / "seed.json").read_text())
    plans = {}
    factory = APIRequestFactory()
    for name, query in list_queries(seeded["deep_cursors"]).items():
        view = AgentListView()
        request = view.initialize_request(factory.get(f"/api/v1/agents?{query}"))
        view.request, view.args, view.kwargs, view.format_kwarg = request, (), {}, None
        params = QueryDict(query)
        from common.pagination import cursor_decode
        from registry.api.serializers import agent_list_values

        ordering_name = params.get("ordering") or view.default_ordering
        # The rows as the view reads them (the columns shown, the times as text). Filtering runs a
        # search's planning query (registry/search.py): its wall time is `filter_ms`.
        started = time.perf_counter()
        filtered = view.filter_queryset(view.get_queryset())
        filter_ms = (time.perf_counter() - started) * 1000
        queryset = agent_list_values(queryset=filtered, ordering_name=ordering_name)
        ordering = view.keyset_ordering(queryset=queryset, name=ordering_name)
        queryset = queryset.order_by(*ordering.order_by())
        if params.get("cursor"):
            _, values = cursor_decode(
                cursor=params["cursor"], ordering_name=ordering_name, model=queryset.model, ordering=ordering
            )
            queryset = queryset.filter(ordering.after(values))
        text = queryset[:51].explain(analyze=True)
        nodes = [
            re.sub(r"\s+\(cost=.*$", "", line.strip().lstrip("-> ").strip())
            for line in text.splitlines()
            if "cost=" in line
        ]
        ms = re.search(r"Execution Time: ([0-9.]+) ms", text)
        plans[name] = {
            "query": query,
            "nodes": nodes,
            "execution_ms": float(ms.group(1)) if ms else None,
            "filter_ms": round(filter_ms, 2),
        }
    (out / "explain.json").write_text(json.dumps(plans))


# --- the measured runs ------------------------------------------------------------------------------


def one_request_ms(url: str, path: str, *, cookie: str = "", repeat: int = 15) -> dict[str, Any]:
    """One request at a time over one kept-alive connection: the median and worst of `repeat`."""
    host, port = urllib.parse.urlsplit(url).hostname, urllib.parse.urlsplit(url).port
    conn = http.client.HTTPConnection(host or "127.0.0.1", port, timeout=120)
    timings, status = [], 0
    headers = {"Cookie": cookie} if cookie else {}
    try:
        for _ in range(repeat):
            t0 = time.perf_counter()
            conn.request("GET", path, headers=headers)
            answer = conn.getresponse()
            answer.read()
            timings.append((time.perf_counter() - t0) * 1000)
            status = answer.status
            if status != 200:
                break
    finally:
        conn.close()
    return {
        "status": status,
        "median_ms": round(statistics.median(timings), 2),
        "max_ms": round(max(timings), 2),
    }


def granian_command(port: int) -> list[str]:
    """docker/entrypoint.sh's `web` command (its defaults), without the access log and static files."""
    return [
        str(base.BIN / "granian"),
        "--interface",
        "wsgi",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--workers",
        "2",
        "--blocking-threads",
        "2",
        "--http1-header-read-timeout",
        "10000",
        "--backpressure",
        "64",
        "--respawn-failed-workers",
        "--no-access-log",
        "--log-level",
        "warning",
        "config.wsgi:application",
    ]


def wanted(args: argparse.Namespace, name: str) -> bool:
    """Whether a run named `name` is measured (`--only`: a regular expression searched in the name)."""
    return args.only is None or re.search(args.only, name) is not None


def measure(n: int, args: argparse.Namespace, work: Path, scripts: dict[str, Path]) -> dict[str, Any]:
    kept = args.keep or args.reuse
    name = db_name(n, kept=kept)
    env = bench_env(name)
    redis_flush()
    result: dict[str, Any] = {"agents": n, "database": name}
    me = str(Path(__file__).resolve())
    reused = args.reuse and database_seeded(name, n)
    if not reused:
        database_create(name)
    try:
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "--verbosity", "0"], cwd=ROOT, env=env, check=True
        )
        t0 = time.perf_counter()
        if reused:
            print(f"[{n:,}] reusing {name}: migrated; VACUUM ANALYZE ...", flush=True)
            with _db(name) as conn:
                conn.execute("VACUUM ANALYZE")
            subprocess.run([sys.executable, me, "session", "--out", str(work)], cwd=ROOT, env=env, check=True)
        else:
            print(f"[{n:,}] seeding {name} ...", flush=True)
            subprocess.run(
                [sys.executable, me, "seed", "--agents", str(n), "--out", str(work)],
                cwd=ROOT,
                env=env,
                check=True,
            )
        seeded = json.loads((work / "seed.json").read_text())
        seeded["seed_total_s"] = round(time.perf_counter() - t0, 1)
        seeded["reused"] = reused
        result["seed"] = {
            k: v for k, v in seeded.items() if k not in ("keys", "deep_cursors", "admin_cookie")
        }
        print(f"[{n:,}] ready in {seeded['seed_total_s']} s; EXPLAIN ...", flush=True)
        with _db(name) as conn:
            size = conn.execute("SELECT pg_database_size(current_database())").fetchone()[0]
            tables = conn.execute(
                "SELECT relname, pg_total_relation_size(c.oid) FROM pg_class c JOIN pg_namespace n "
                "ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind = 'r' "
                "ORDER BY 2 DESC LIMIT 4"
            ).fetchall()
        result["database_bytes"] = size
        result["database_bytes_per_agent"] = round(size / n)
        result["largest_tables_bytes"] = dict(tables)
        subprocess.run([sys.executable, me, "explain", "--out", str(work)], cwd=ROOT, env=env, check=True)
        result["explain"] = json.loads((work / "explain.json").read_text())
        subjects, batch_subjects = str(work / "subjects.txt"), str(work / "batch-subjects.txt")
        key = seeded["keys"][0]
        epoch = int(time.time()) - 20 * 86400
        port = base.free_port()
        with base.background_server(
            granian_command(port),
            port,
            env=env,
            log=work / "server.log",
            ready_path="/healthz",
            name="granian",
            start_timeout=60,
        ) as (url, pid):
            cookie = seeded["admin_cookie"]
            base.wrk_run(
                name="warm-up",
                base=url,
                script=scripts["subject"],
                args=[subjects, "/trust-score"],
                connections=16,
                threads=2,
                duration=2,
                endpoint="GET",
            )
            plan: list[tuple[str, str, list[str], str]] = [
                ("GET trust score", "subject", [subjects, "/trust-score"], "/api/v1/agents/<id>/trust-score"),
                (
                    "GET history",
                    "subject",
                    [subjects, "/trust-score/history"],
                    "/api/v1/agents/<id>/…/history",
                ),
            ]
            for name, query in list_queries(seeded["deep_cursors"]).items():
                plan.append(
                    (f"GET agents {name}", "path", [f"/api/v1/agents?{query}", ""], f"/api/v1/agents?{query}")
                )
            plan.append(("GET /agents/ directory", "path", ["/agents/", ""], "/agents/"))
            plan.append(
                (
                    "admin provider changelist",
                    "path",
                    ["/admin/registry/provider/", cookie],
                    "/admin/registry/provider/",
                )
            )
            runs: list[dict[str, Any]] = []
            plan = [step for step in plan if wanted(args, step[0])]
            for name, script, script_args, endpoint in plan:
                single = None
                if script == "path":
                    single = one_request_ms(
                        url, script_args[0], cookie=script_args[1], repeat=3 if "admin" in name else 15
                    )
                    if single["status"] != 200:
                        runs.append(
                            {"name": name, "endpoint": endpoint, "one_request": single, "skipped": "not 200"}
                        )
                        print(f"  {name}: status {single['status']}", flush=True)
                        continue
                    if "admin" in name and single["median_ms"] > 5000:
                        runs.append(
                            {
                                "name": name,
                                "endpoint": endpoint,
                                "one_request": single,
                                "skipped": "one request over 5 s: no load run",
                            }
                        )
                        print(f"  {name}: one request {single['median_ms']:.0f} ms; no load run", flush=True)
                        continue
                base.wait_idle(pid)
                meter = base.CpuMeter(pid)
                run = base.wrk_run(
                    name=name,
                    base=url,
                    script=scripts[script],
                    args=script_args,
                    connections=args.connections,
                    threads=2,
                    duration=args.duration,
                    endpoint=endpoint,
                    timeout=10,
                    meter=meter,
                )
                base.wait_idle(pid)
                meter.stop()
                # CPU per request moves much less than req/s when the machine is shared.
                run.cpu = meter.report(run.ok_requests, 1)
                row = {**asdict(run), "one_request": single}
                runs.append(row)
                print(
                    f"  {name}: {run.requests_per_s:,.1f} req/s, p99 {run.latency_ms['p99']:.1f} ms"
                    + (f", one request {single['median_ms']:.1f} ms" if single else "")
                    + (f", errors {run.errors}" if any(run.errors.values()) else ""),
                    flush=True,
                )
            for name, script, script_args, connections, items in (
                ("POST one summary", "single", [subjects, str(epoch), key], args.connections, 1),
                (
                    f"POST batches of {BATCH}",
                    "batch",
                    [batch_subjects, str(epoch + 86400), key, str(BATCH)],
                    args.connections,
                    BATCH,
                ),
            ):
                if not wanted(args, name):
                    continue
                # Requests still queued from the run before (the slow admin page) finish first.
                base.wait_idle(pid)
                run = base.wrk_run(
                    name=name,
                    base=url,
                    script=scripts[script],
                    args=script_args,
                    connections=connections,
                    threads=2,
                    duration=max(args.duration, 10 if items > 1 else 0),
                    endpoint=name,
                    items_per_request=items,
                    timeout=60,
                )
                runs.append({**asdict(run), "one_request": {}})
                print(
                    f"  {name}: {run.ok_requests} of {run.requests} ok, {run.requests_per_s:,.1f} ok req/s, "
                    f"p99 {run.latency_ms['p99']:.1f} ms, errors {run.errors}",
                    flush=True,
                )
            result["runs"] = runs
            # The machine is shared: the load average says how much of it the runs had.
            result["load_average_after_runs"] = [round(x, 1) for x in os.getloadavg()]
            result["server_log_tail"] = (work / "server.log").read_text(errors="replace")[-3000:]
    finally:
        if not kept:
            database_drop(name)
        redis_flush()
    return result


def markdown(report: dict[str, Any]) -> str:
    sizes = report["sizes"]
    names: list[str] = []
    for size in sizes:
        for run in size["runs"]:
            if run["name"] not in names:
                names.append(run["name"])
    head = (
        "| endpoint | "
        + " | ".join(f"{s['agents']:,}: req/s · p99 · one request · service CPU per request" for s in sizes)
        + " |"
    )
    lines = [head, "|---|" + "---|" * len(sizes)]
    for name in names:
        cells = []
        for size in sizes:
            run = next((r for r in size["runs"] if r["name"] == name), None)
            if run is None:
                cells.append("—")
                continue
            one = run.get("one_request")
            single = f" · {one['median_ms']:.1f} ms" if one else ""
            if "requests_per_s" not in run:
                cells.append(f"{run.get('skipped')}{single}")
                continue
            cpu = run.get("cpu") or {}
            if cpu.get("ms_per_request"):
                single += f" · {cpu['ms_per_request']['service_total']:.1f} ms CPU"
            failed = run["requests"] - run["ok_requests"]
            errs = f" ({failed} of {run['requests']} failed)" if failed else ""
            cells.append(f"{run['requests_per_s']:,.1f} · {run['latency_ms']['p99']:.0f} ms{single}{errs}")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines.append("")
    lines.append("| size | database | per agent | seed (COPY) | load average after the runs |")
    lines.append("|---|---|---|---|---|")
    for size in sizes:
        lines.append(
            f"| {size['agents']:,} | {size['database_bytes'] / 2**20:,.0f} MiB | "
            f"{size['database_bytes_per_agent'] / 1024:.1f} KiB | {size['seed']['seed_total_s']} s | "
            f"{size.get('load_average_after_runs')} |"
        )
    lines.append("")
    for size in sizes:
        lines.append(f"EXPLAIN ANALYZE at {size['agents']:,} agents (first 51 rows, as the API asks):")
        for name, plan in size["explain"].items():
            nodes = "; ".join(plan["nodes"][:4])
            # filter_ms: the filters in Python, with a search's planning query (a round trip).
            lines.append(f"- {name}: {plan['execution_ms']} ms (filter {plan.get('filter_ms')} ms): {nodes}")
        lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="step")
    seed_parser = sub.add_parser("seed")
    seed_parser.add_argument("--agents", type=int, required=True)
    seed_parser.add_argument("--out", type=Path, required=True)
    explain_parser = sub.add_parser("explain")
    explain_parser.add_argument("--out", type=Path, required=True)
    session_parser = sub.add_parser("session")
    session_parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--agents", default="10000,100000", help="comma-separated sizes")
    parser.add_argument("--duration", type=float, default=10.0, help="seconds per wrk run")
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument(
        "--only",
        default=None,
        help="measure only the runs whose name this regular expression finds (e.g. 'q=|q ' for the searches)",
    )
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument(
        "--keep",
        action="store_true",
        help="seed into bench_scale_<N> and leave it in place afterwards (for --reuse)",
    )
    parser.add_argument(
        "--reuse",
        action="store_true",
        help="if bench_scale_<N> holds a finished seed of N agents: migrate it, VACUUM ANALYZE, skip "
        "seeding (and keep it); otherwise seed it as --keep does",
    )
    args = parser.parse_args(argv)
    if args.step == "seed":
        seed(args.agents, args.out)
        return 0
    if args.step == "explain":
        explain(args.out)
        return 0
    if args.step == "session":
        session_write(args.out)
        return 0
    base.ensure_wrk()
    if not base.postgres_available():
        raise SystemExit("PostgreSQL is not reachable at 127.0.0.1:5432 as user postgres")
    work = Path(tempfile.mkdtemp(prefix="bench-scale-"))
    scripts = {}
    for name, text in (
        ("path", base.LUA_COMMON + LUA_PATH),
        ("subject", base.LUA_COMMON + LUA_SUBJECT_PATH),
        ("single", base.LUA_COMMON + base.LUA_POST_SINGLE),
        ("batch", base.LUA_COMMON + base.LUA_POST_BATCH),
    ):
        scripts[name] = work / f"{name}.lua"
        scripts[name].write_text(text)
    sizes = [measure(int(n), args, work, scripts) for n in args.agents.split(",")]
    report = {
        "benchmark": "scale",
        "generated_at": datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
        "command": "python bench/bench_scale.py " + " ".join(sys.argv[1:]),
        "machine": base.machine_info(),
        "server": "granian as docker/entrypoint.sh runs it (2 workers x 2 blocking threads), DEBUG=0, "
        "PostgreSQL, Redis cache, Celery queued to Redis with no worker, read rate limit off",
        "load_generator": f"wrk, {args.connections} connections, {args.duration:g} s per run",
        "targets_at_1m": TARGETS,
        "sizes": sizes,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(markdown(report))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
