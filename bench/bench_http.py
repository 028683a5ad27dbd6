"""HTTP benchmarks: ingestion and trust-score reads against PostgreSQL behind granian, load from wrk.

    python bench/bench_http.py                    # the full set, ~10 s per load run
    python bench/bench_http.py --duration 5       # quicker
    python bench/bench_http.py --server gunicorn  # the same loads behind gunicorn (gthread), to compare
    python bench/bench_http.py --profile          # also sample the workers with py-spy during each run

What it does, in order: creates a fresh PostgreSQL database (`bench_trust` on 127.0.0.1:5432, user
postgres), migrates it, seeds providers, agents, summaries and one computed trust score per agent,
starts the server (granian as docker/ runs it, or gunicorn; production settings: DEBUG off, Redis
cache, Celery tasks queued to Redis rather than run inline, read rate limit off), drives each
endpoint with wrk for a bounded time and connection count, checks that the single-summary run stored
one row per successful request, stops the server by its pid, drops the database and the two Redis
databases it used, prints a markdown table and writes bench/results/http.json.

No Celery worker runs during the load: recomputes are queued, not executed. A background thread
deletes the coalescing `PendingRecompute` rows every SCORE_RECOMPUTE_DELAY_SECONDS (what a worker
claiming them would do), so ingestion keeps paying for scheduling a recompute as in production.

`python bench/bench_http.py seed ...` is the seeding step, run in a child process with the
benchmark's environment.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections import Counter
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "http.json"
BIN = Path(sys.executable).parent

PG_ADMIN_URL = "postgresql://postgres@127.0.0.1:5432/postgres"
DB_NAME = "bench_trust"
REDIS_CACHE_DB = 14
REDIS_BROKER_DB = 15

# The targets on a 2-core machine.
TARGETS = {
    "single_rps": 500.0,
    "single_p99_ms": 50.0,
    "batch_summaries_per_s": 10_000.0,
    "read_rps": 2_000.0,
    "read_p99_ms": 25.0,
}


# --- Lua for wrk ------------------------------------------------------------------------------------

# Every script reports wrk's own totals and latency percentiles as one JSON line (wrk measures
# latency from the request's send to its response; the percentiles come from its HDR histogram).
LUA_DONE = r"""
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'WRK_JSON {"requests": %d, "duration_us": %d, "bytes": %d, ' ..
    '"errors": {"connect": %d, "read": %d, "write": %d, "status": %d, "timeout": %d}, ' ..
    '"latency_us": {"mean": %.1f, "stdev": %.1f, "max": %d, "p50": %d, "p75": %d, "p90": %d, ' ..
    '"p99": %d, "p999": %d}}\n',
    summary.requests, summary.duration, summary.bytes,
    e.connect, e.read, e.write, e.status, e.timeout,
    latency.mean, latency.stdev, latency.max, latency:percentile(50), latency:percentile(75),
    latency:percentile(90), latency:percentile(99), latency:percentile(99.9)))
end
"""

# Thread set-up shared by the scripts: each wrk thread gets an id, so timestamps never collide.
LUA_COMMON = r"""
local counter = 1
local threads = 0
setup = function(thread)
  thread:set("tid", threads)
  threads = threads + 1
end

local function load_lines(path)
  local out = {}
  for line in io.lines(path) do
    if #line > 0 then out[#out + 1] = line end
  end
  return out
end

-- A unique RFC 3339 instant per (thread, request): whole seconds count requests from a base that
-- differs per run, the microseconds carry the thread id.
local function stamp(base, n, t)
  return os.date("!%Y-%m-%dT%H:%M:%S", base + n) .. string.format(".%06dZ", t)
end

local function summary_json(agent, updated, n)
  local total = 1000 + (n % 997)
  local block = (n % 7) / 100
  return string.format(
    '{"agent":"%s","agentRegistry":"other","allowRate":%.3f,"blockRate":%.3f,"uncertainRate":0.02,' ..
    '"avgConfidence":0.91,"totalChecks":%d,"windowDays":7,"updatedAt":"%s",' ..
    '"stakeDistribution":{"low":{"checks":%d},"medium":{"checks":%d},"high":{"checks":%d}}}',
    agent, 0.98 - block - 0.02, block, total, updated, math.floor(total / 2), math.floor(total / 4),
    math.floor(total / 8))
end
"""

LUA_GET = (
    r"""
local subjects
init = function(args)
  subjects = load_lines(args[1])
  math.randomseed(os.time() + tid * 7919)
end
request = function()
  local s = subjects[math.random(#subjects)]
  return wrk.format("GET", "/api/v1/agents/" .. s .. "/trust-score")
end
"""
    + LUA_DONE
)

LUA_FLOOR = (
    r"""
request = function()
  return wrk.format("GET", "/healthz")
end
"""
    + LUA_DONE
)

LUA_POST_SINGLE = (
    r"""
local subjects, base, headers
init = function(args)
  subjects = load_lines(args[1])
  base = tonumber(args[2])
  headers = {["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. args[3]}
end
request = function()
  local n = counter
  counter = counter + 1
  local agent = subjects[((n + tid * 7919) % #subjects) + 1]
  local body = summary_json(agent, stamp(base, n, tid), n)
  return wrk.format("POST", "/api/v1/summaries", headers, body)
end
"""
    + LUA_DONE
)

LUA_POST_BATCH = (
    r"""
local subjects, base, headers, size
init = function(args)
  subjects = load_lines(args[1])
  base = tonumber(args[2])
  headers = {["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. args[3]}
  size = tonumber(args[4])
end
request = function()
  local parts = {}
  for i = 1, size do
    local n = counter
    counter = counter + 1
    local agent = subjects[((n + tid * 7919) % #subjects) + 1]
    parts[i] = summary_json(agent, stamp(base, n, tid), n)
  end
  local body = '{"summaries":[' .. table.concat(parts, ",") .. ']}'
  return wrk.format("POST", "/api/v1/summaries/batch", headers, body)
end
"""
    + LUA_DONE
)


# --- results ----------------------------------------------------------------------------------------


@dataclass
class RunResult:
    name: str
    endpoint: str
    connections: int
    threads: int
    duration_s: float
    requests: int
    ok_requests: int
    requests_per_s: float
    items_per_request: int
    items_per_s: float
    latency_ms: dict[str, float]
    errors: dict[str, int]
    rows_stored: int | None = None
    cpu: dict[str, Any] | None = None
    profile: dict[str, Any] | None = None
    notes: list[str] = field(default_factory=list)


def machine_info() -> dict[str, Any]:
    cpu = ""
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    mem_gib = None
    with contextlib.suppress(OSError, ValueError, IndexError):
        meminfo = Path("/proc/meminfo").read_text().splitlines()[0]
        mem_gib = round(int(meminfo.split()[1]) / 1024 / 1024, 1)
    return {
        "nproc": os.cpu_count(),
        "cpu_model": cpu,
        "memory_gib": mem_gib,
        "load_average_at_start": list(os.getloadavg()),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "postgres": _command_output(["psql", "--version"]),
        "wrk": _command_output(["wrk", "--version"]).splitlines()[0] if shutil.which("wrk") else None,
        "gunicorn": _command_output([str(BIN / "gunicorn"), "--version"]),
        "granian": _command_output([str(BIN / "granian"), "--version"]),
    }


def _command_output(cmd: list[str]) -> str:
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return (out.stdout or out.stderr).strip()


# --- the environment the server and the seeding step see ---------------------------------------------


def bench_env(*, conn_max_age: int) -> dict[str, str]:
    env = dict(os.environ)
    for name in ("DJANGO_SETTINGS_MODULE", "DATABASE_URL_FILE", "SECRET_KEY_FILE"):
        env.pop(name, None)
    env.update(
        {
            "DEBUG": "0",
            "SECRET_KEY": "bench-only-secret-key-not-for-production-0123456789abcdef",
            "DATABASE_URL": f"postgres://postgres@127.0.0.1:5432/{DB_NAME}",
            "DB_CONN_MAX_AGE": str(conn_max_age),
            "REDIS_URL": f"redis://127.0.0.1:6379/{REDIS_CACHE_DB}",
            "CELERY_BROKER_URL": f"redis://127.0.0.1:6379/{REDIS_BROKER_DB}",
            "CELERY_TASK_ALWAYS_EAGER": "0",
            "READ_RATE_LIMIT_DISABLED": "1",
            # The benchmark measures the service, not its limits: keyed clients are not throttled
            # either, and it talks plain HTTP to the server (no TLS proxy in front to redirect to).
            "READ_RATE_LIMIT_AUTHENTICATED": "off",
            "WRITE_RATE_LIMIT": "off",
            "SECURE_SSL_REDIRECT": "0",
            "AUTO_REGISTER_AGENTS": "1",
            "LOG_LEVEL": "WARNING",
            "PYTHONDONTWRITEBYTECODE": "1",
        }
    )
    return env


def _pg_connect(url: str = PG_ADMIN_URL, **kwargs: Any) -> Any:
    import psycopg

    return psycopg.connect(url, autocommit=True, **kwargs)


def database_create() -> None:
    with _pg_connect() as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {DB_NAME} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {DB_NAME}")


def database_drop() -> None:
    with contextlib.suppress(Exception), _pg_connect() as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {DB_NAME} WITH (FORCE)")


def redis_flush() -> None:
    """Empty the two Redis databases the benchmark used (queued recompute tasks, cache)."""
    try:
        import redis
    except ImportError:
        return
    for db in (REDIS_CACHE_DB, REDIS_BROKER_DB):
        with contextlib.suppress(Exception):
            redis.Redis(host="127.0.0.1", port=6379, db=db).flushdb()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


# --- seeding (runs in a child process with Django set up) --------------------------------------------


def seed(agents: int, providers: int, scored: int, out: Path) -> None:
    """Providers with keys, agents, one summary per (provider, agent) and a computed score each."""
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.db import connection, transaction
    from django.utils import timezone

    from registry.models import Agent, TrustScore, VerificationSummary
    from registry.services.providers import provider_create
    from registry.services.scoring import scoring_config_current, trust_score_compute
    from signing.canonical import canonical_digest

    started = time.perf_counter()
    keys = []
    made = []
    for i in range(providers):
        provider, issued = provider_create(name=f"Bench provider {i}", slug=f"bench-{i}")
        assert issued is not None
        keys.append(issued.plaintext)
        made.append(provider)
    subject_ids = [f"bench:agent-{i:07d}" for i in range(agents)]
    Agent.objects.bulk_create(
        [Agent(subject_id=s, registry=Agent.Registry.OTHER) for s in subject_ids], batch_size=2000
    )
    by_subject = {a.subject_id: a for a in Agent.objects.all()}
    now = timezone.now()
    rows = []
    for p_index, provider in enumerate(made):
        for a_index, subject in enumerate(subject_ids):
            block = ((a_index + p_index) % 9) / 100
            allow = round(0.97 - block, 3)
            checks = 500 + a_index % 1000
            body: dict[str, Any] = {
                "agent": subject,
                "allowRate": allow,
                "blockRate": block,
                "uncertainRate": 0.03,
                "avgConfidence": 0.9,
                "totalChecks": checks,
                "windowDays": 7,
                "updatedAt": now.isoformat().replace("+00:00", "Z"),
            }
            rows.append(
                VerificationSummary(
                    provider=provider,
                    agent=by_subject[subject],
                    window_days=7,
                    window_end=now,
                    body_digest=canonical_digest(body),
                    raw_body=body,
                    allow_rate=allow,
                    block_rate=block,
                    uncertain_rate=0.03,
                    avg_confidence=0.9,
                    total_checks=checks,
                )
            )
    VerificationSummary.objects.bulk_create(rows, batch_size=2000)
    seeded = time.perf_counter()
    # Scoring every agent through the service takes ~10-30 ms each here, so the first `scored`
    # agents are scored for real and the rest get a copy of a real record under their own id.
    config = scoring_config_current()
    agents_in_order = list(Agent.objects.select_related("latest_score").order_by("pk"))
    real = agents_in_order[:scored]
    templates = []
    with transaction.atomic():
        for agent in real:
            score, _ = trust_score_compute(agent=agent)
            templates.append(score)
    computed = time.perf_counter()
    copies = []
    for index, agent in enumerate(agents_in_order[scored:]):
        template = templates[index % len(templates)]
        record = json.loads(json.dumps(template.record))
        record["subjectId"] = agent.subject_id
        copies.append(
            TrustScore(
                agent=agent,
                config=config,
                trust_score=template.trust_score,
                trust_confidence=template.trust_confidence,
                record=record,
                inputs=template.inputs,
                inputs_digest=template.inputs_digest,
                computed_at=template.computed_at,
                newest_input_at=template.newest_input_at,
                changes_at=template.changes_at,
            )
        )
    with transaction.atomic():
        TrustScore.objects.bulk_create(copies, batch_size=2000)
        with connection.cursor() as cursor:
            cursor.execute(
                "UPDATE registry_agent a SET latest_score_id = s.id, trust_score = s.trust_score, "
                "trust_score_updated_at = s.computed_at FROM registry_trustscore s "
                "WHERE s.agent_id = a.id AND a.latest_score_id IS NULL"
            )
    finished = time.perf_counter()
    (out / "subjects.txt").write_text("\n".join(subject_ids) + "\n")
    (out / "seed.json").write_text(
        json.dumps(
            {
                "keys": keys,
                "agents": agents,
                "providers": providers,
                "summaries": len(rows),
                "scored_for_real": len(real),
                "seed_s": round(seeded - started, 2),
                "score_s": round(computed - seeded, 2),
                "score_ms_per_agent_wall": round((computed - seeded) * 1000 / max(len(real), 1), 2),
                "copy_s": round(finished - computed, 2),
            }
        )
    )


# --- the HTTP server ----------------------------------------------------------------------------------


@dataclass
class ServerConfig:
    server: str  # "granian" (what docker/ runs) or "gunicorn"
    workers: int
    worker_class: str
    threads: int
    keep_alive: int
    conn_max_age: int

    def describe(self) -> str:
        if self.server == "granian":
            return (
                f"granian --interface wsgi --workers {self.workers} --blocking-threads {self.threads}, "
                f"DB_CONN_MAX_AGE={self.conn_max_age}"
            )
        threads = f" --threads {self.threads}" if self.worker_class == "gthread" else ""
        return (
            f"gunicorn -w {self.workers} -k {self.worker_class}{threads} --keep-alive {self.keep_alive}, "
            f"DB_CONN_MAX_AGE={self.conn_max_age}"
        )

    def command(self, port: int) -> list[str]:
        if self.server == "granian":
            return [
                str(BIN / "granian"),
                "--interface",
                "wsgi",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--workers",
                str(self.workers),
                "--blocking-threads",
                str(self.threads),
                "--backlog",
                "2048",
                "--log-level",
                "warning",
                "--no-access-log",
                "config.wsgi:application",
            ]
        cmd = [
            str(BIN / "gunicorn"),
            "config.wsgi",
            "-w",
            str(self.workers),
            "-k",
            self.worker_class,
            "-b",
            f"127.0.0.1:{port}",
            "--keep-alive",
            str(self.keep_alive),
            "--backlog",
            "2048",
            "--timeout",
            "300",
            "--log-level",
            "warning",
        ]
        if self.worker_class == "gthread":
            cmd += ["--threads", str(self.threads)]
        return cmd


@contextlib.contextmanager
def http_server(config: ServerConfig, env: dict[str, str], log: Path) -> Iterator[tuple[str, int]]:
    port = free_port()
    with background_server(
        config.command(port),
        port,
        env=env,
        log=log,
        ready_path="/healthz",
        name=config.server,
        start_timeout=60,
    ) as up:
        yield up


@contextlib.contextmanager
def background_server(
    cmd: list[str],
    port: int,
    *,
    env: dict[str, str] | None,
    log: Path,
    ready_path: str,
    name: str,
    start_timeout: float,
) -> Iterator[tuple[str, int]]:
    """Start a server process, wait until `ready_path` answers 200, yield (base URL, pid), stop it by pid."""
    with log.open("ab") as sink:
        proc = subprocess.Popen(
            cmd, cwd=ROOT, env=env, stdout=sink, stderr=subprocess.STDOUT, start_new_session=True
        )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + start_timeout
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"{name} exited with {proc.returncode}; see {log}")
            try:
                with urllib.request.urlopen(f"{base}{ready_path}", timeout=2) as answer:
                    if answer.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"{name} did not answer within {start_timeout:.0f} s; see {log}")
            time.sleep(0.3)
        yield base, proc.pid
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)


# --- CPU accounting ---------------------------------------------------------------------------------
# The machine is shared, so wall-clock rates say as much about the neighbours as about the service.
# CPU seconds spent per request by the workers, PostgreSQL backends, Redis and wrk do not: they give
# what the request costs, and from that what two idle cores could serve.

CLK_TCK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def proc_cpu_seconds(pid: int) -> float | None:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    # After the command name: state is field 3, utime 14 and stime 15 (1-based in proc(5)).
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def children_of(pid: int) -> list[int]:
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError, IndexError):
            if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(entry.name))
    return out


def pids_named(name: str) -> list[int]:
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                if (entry / "comm").read_text().strip() == name:
                    out.append(int(entry.name))
    return out


def pg_backends() -> list[int]:
    with _pg_connect() as conn:
        rows = conn.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = %s AND application_name <> 'bench-drain'",
            (DB_NAME,),
        ).fetchall()
    return [int(r[0]) for r in rows]


def machine_busy() -> tuple[float, float]:
    """(busy, total) jiffies of all CPUs since boot, from /proc/stat."""
    parts = [float(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = parts[3] + (parts[4] if len(parts) > 4 else 0.0)
    return sum(parts) - idle, sum(parts)


class CpuMeter:
    """CPU seconds used by the server's processes between start() and stop()."""

    def __init__(self, master: int) -> None:
        self.master = master
        self.before: dict[str, dict[int, float]] = {}
        self.used: dict[str, float] = {}
        self.machine: tuple[float, float] = (0.0, 0.0)
        self.wall = 0.0
        self.wrk_cpu = 0.0

    def _groups(self) -> dict[str, list[int]]:
        return {
            "server": [self.master, *children_of(self.master)],
            "postgres": pg_backends(),
            "redis": pids_named("redis-server"),
        }

    def _snapshot(self, groups: dict[str, list[int]]) -> dict[str, dict[int, float]]:
        snap: dict[str, dict[int, float]] = {}
        for group, pids in groups.items():
            snap[group] = {}
            for pid in pids:
                value = proc_cpu_seconds(pid)
                if value is not None:
                    snap[group][pid] = value
        return snap

    def start(self) -> None:
        self.before = self._snapshot(self._groups())
        self.machine = machine_busy()
        self.wall = time.monotonic()

    def stop(self) -> None:
        after = self._snapshot(self._groups())
        busy, total = machine_busy()
        self.wall = time.monotonic() - self.wall
        self.machine = (busy - self.machine[0], total - self.machine[1])
        for group, now in after.items():
            start = self.before.get(group, {})
            self.used[group] = sum(v - start.get(pid, 0.0) for pid, v in now.items())

    def report(self, items: int, items_per_request: int) -> dict[str, Any] | None:
        """CPU milliseconds per request and what that allows on idle cores; `items` done in all."""
        if not items:
            return None
        requests = items / items_per_request
        used = {**self.used, "wrk": self.wrk_cpu}
        per_request = {k: round(v * 1000 / requests, 3) for k, v in used.items()}
        service = per_request["server"] + per_request["postgres"] + per_request["redis"]
        busy, total = self.machine
        cores = os.cpu_count() or 1
        ours = sum(used.values())
        return {
            "window_s": round(self.wall, 2),
            "ms_per_request": {**per_request, "service_total": round(service, 3)},
            "ms_per_item": round(service / items_per_request, 4),
            # What the service's own processes could serve with every core to themselves.
            "idle_machine_capacity_per_s": round(cores * 1000 / service, 1) if service else None,
            "idle_machine_capacity_items_per_s": (
                round(cores * 1000 * items_per_request / service, 1) if service else None
            ),
            "machine_busy_share": round(busy / total, 3) if total else None,
            "others_share_of_machine": (
                round(max(0.0, busy / CLK_TCK - ours) / (self.wall * cores), 3) if self.wall else None
            ),
        }


# --- load --------------------------------------------------------------------------------------------------


class PendingDrain:
    """Deletes PendingRecompute rows every `interval` s, standing in for a worker claiming them."""

    def __init__(self, interval: float) -> None:
        self.interval = interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        url = f"postgresql://postgres@127.0.0.1:5432/{DB_NAME}"
        with _pg_connect(url, application_name="bench-drain") as conn:
            while not self._stop.wait(self.interval):
                with contextlib.suppress(Exception):
                    conn.execute("DELETE FROM registry_pendingrecompute")

    def __enter__(self) -> PendingDrain:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=10)


def wait_idle(master: int, limit: float = 60.0) -> None:
    """Wait until requests still running after wrk stopped have finished (the workers go quiet)."""
    deadline = time.monotonic() + limit
    previous = None
    while time.monotonic() < deadline:
        used = sum(proc_cpu_seconds(pid) or 0.0 for pid in [master, *children_of(master)])
        if previous is not None and used - previous < 0.02:
            return
        previous = used
        time.sleep(0.5)


def summaries_stored() -> int:
    with _pg_connect(f"postgresql://postgres@127.0.0.1:5432/{DB_NAME}") as conn:
        row = conn.execute("SELECT count(*) FROM registry_verificationsummary").fetchone()
        return int(row[0])


def wrk_run(
    *,
    name: str,
    base: str,
    script: Path,
    args: list[str],
    connections: int,
    threads: int,
    duration: float,
    endpoint: str,
    items_per_request: int = 1,
    timeout: float = 10,
    meter: CpuMeter | None = None,
) -> RunResult:
    cmd = [
        "wrk",
        f"-t{threads}",
        f"-c{connections}",
        f"-d{max(1, round(duration))}s",
        "--timeout",
        f"{round(timeout)}s",
        "--latency",
        "-s",
        str(script),
        base,
        "--",
        *args,
    ]
    with tempfile.TemporaryFile("w+") as stdout, tempfile.TemporaryFile("w+") as stderr:
        proc = subprocess.Popen(cmd, stdout=stdout, stderr=stderr, text=True)
        if meter is not None:
            meter.start()
        # wait4 rather than wait: it also hands back the CPU time wrk itself used.
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        if meter is not None:
            meter.wrk_cpu = usage.ru_utime + usage.ru_stime
        stdout.seek(0)
        stderr.seek(0)
        text, err = stdout.read(), stderr.read()
    match = re.search(r"^WRK_JSON (.*)$", text, re.MULTILINE)
    if proc.returncode != 0 or match is None:
        raise RuntimeError(f"wrk failed ({proc.returncode}): {text[-2000:]} {err[-2000:]}")
    data = json.loads(match.group(1))
    seconds = data["duration_us"] / 1e6
    errors = data["errors"]
    ok = data["requests"] - errors["status"]
    lat = {k: round(v / 1000, 2) for k, v in data["latency_us"].items()}
    return RunResult(
        name=name,
        endpoint=endpoint,
        connections=connections,
        threads=threads,
        duration_s=round(seconds, 2),
        requests=data["requests"],
        ok_requests=ok,
        requests_per_s=round(ok / seconds, 1),
        items_per_request=items_per_request,
        items_per_s=round(ok * items_per_request / seconds, 1),
        latency_ms=lat,
        errors=errors,
    )


@contextlib.contextmanager
def profiled(enabled: bool, master_pid: int, seconds: float, out: Path) -> Iterator[dict[str, Any]]:
    """Sample every gunicorn worker with py-spy for `seconds` while the body runs."""
    summary: dict[str, Any] = {}
    spy = BIN / "py-spy"
    if not enabled or not spy.exists():
        if enabled:
            summary["error"] = "py-spy is not installed (pip install py-spy)"
        yield summary
        return
    proc = subprocess.Popen(
        [
            str(spy),
            "record",
            "--pid",
            str(master_pid),
            "--subprocesses",
            "--rate",
            "200",
            "--duration",
            str(max(1, int(seconds))),
            "--format",
            "raw",
            "--output",
            str(out),
            "--nonblocking",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        yield summary
    finally:
        try:
            proc.wait(timeout=seconds + 30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if out.exists():
            summary.update(profile_summary(out))


# Frames whose inclusive share of worker samples says where a request's time goes.
PROFILE_BUCKETS = {
    "database (psycopg execute / connect)": ("psycopg/cursor.py", "psycopg/connection.py"),
    "JSON Schema validation": ("jsonschema/",),
    "RFC 8785 canonical digest": ("rfc8785",),
    "Celery publish (apply_async)": ("celery/app/task.py:apply_async", "kombu/"),
    "pending-recompute get_or_create": ("_enqueue_recompute",),
    "ORM SQL compilation": ("django/db/models/sql/compiler.py",),
    "model instance creation": ("django/db/models/base.py:__init__",),
    "JSON parse / render": ("rest_framework/parsers.py", "rest_framework/renderers.py"),
    "middleware + DRF dispatch overhead": ("django/core/handlers/base.py",),
    "authentication (API key lookup)": ("provider_by_api_key",),
    "gunicorn idle / accept": ("gunicorn/workers/sync.py:wait", "gunicorn/workers/sync.py:accept"),
}


def profile_summary(raw: Path) -> dict[str, Any]:
    """Inclusive share of samples per bucket, and the top self-time frames, from py-spy raw output."""
    total = 0
    buckets: Counter[str] = Counter()
    leaf: Counter[str] = Counter()
    for line in raw.read_text(errors="replace").splitlines():
        stack, _, count_text = line.rpartition(" ")
        try:
            count = int(count_text)
        except ValueError:
            continue
        total += count
        frames = stack.split(";")
        # py-spy frames look like "function (path/to/file.py:line)".
        normalised = []
        for frame in frames:
            m = re.match(r"(.*) \((.*?):\d+\)$", frame)
            normalised.append(f"{m.group(2)}:{m.group(1)}" if m else frame)
        joined = ";".join(normalised)
        for bucket, needles in PROFILE_BUCKETS.items():
            if any(needle in joined for needle in needles):
                buckets[bucket] += count
        if normalised:
            leaf[_short(normalised[-1])] += count
    if not total:
        return {"samples": 0}
    return {
        "samples": total,
        "inclusive_share": {k: round(v / total, 3) for k, v in buckets.most_common()},
        "top_self": [[k, round(v / total, 3)] for k, v in leaf.most_common(15)],
    }


def _short(frame: str) -> str:
    return re.sub(r"^.*?(site-packages/|/work/main/)", "", frame)


# --- the whole benchmark ------------------------------------------------------------------------------


def ensure_wrk() -> None:
    if shutil.which("wrk"):
        return
    if os.geteuid() == 0 and shutil.which("apt-get"):
        print("wrk is missing; installing it with apt-get", flush=True)
        subprocess.run(["apt-get", "update", "-qq"], check=False, capture_output=True)
        subprocess.run(["apt-get", "install", "-y", "-qq", "wrk"], check=False, capture_output=True)
    if not shutil.which("wrk"):
        raise SystemExit("wrk is required (apt-get install wrk)")


def postgres_available() -> bool:
    try:
        with _pg_connect() as conn:
            conn.execute("SELECT 1")
        return True
    except Exception:
        return False


def run(args: argparse.Namespace) -> dict[str, Any]:
    ensure_wrk()
    if not postgres_available():
        raise SystemExit("PostgreSQL is not reachable at 127.0.0.1:5432 as user postgres")
    config = ServerConfig(
        server=args.server,
        workers=server_workers(args),
        worker_class=args.worker_class,
        threads=args.threads,
        keep_alive=args.keep_alive,
        conn_max_age=args.conn_max_age,
    )
    env = bench_env(conn_max_age=config.conn_max_age)
    info = machine_info()
    results: list[RunResult] = []
    work = Path(tempfile.mkdtemp(prefix="bench-http-"))
    log = work / "server.log"
    scripts = {}
    for name, text in (
        ("get", LUA_COMMON + LUA_GET),
        ("floor", LUA_COMMON + LUA_FLOOR),
        ("single", LUA_COMMON + LUA_POST_SINGLE),
        ("batch", LUA_COMMON + LUA_POST_BATCH),
    ):
        scripts[name] = work / f"{name}.lua"
        scripts[name].write_text(text)
    redis_flush()
    database_create()
    try:
        print(f"migrating {DB_NAME} ...", flush=True)
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "--verbosity", "0"], cwd=ROOT, env=env, check=True
        )
        print(f"seeding {args.agents} agents x {args.providers} providers ...", flush=True)
        subprocess.run(
            [
                sys.executable,
                str(Path(__file__).resolve()),
                "seed",
                "--agents",
                str(args.agents),
                "--providers",
                str(args.providers),
                "--out",
                str(work),
            ],
            cwd=ROOT,
            env=env,
            check=True,
        )
        seeded = json.loads((work / "seed.json").read_text())
        subjects = str(work / "subjects.txt")
        key = seeded["keys"][0]
        base_epoch = int(time.time()) - 30 * 86400
        print(f"starting {config.describe()} ...", flush=True)
        with http_server(config, env, log) as (base, master):
            # Warm every worker (imports, connections, the Celery producer) before measuring.
            wrk_run(
                name="warm-up",
                base=base,
                script=scripts["get"],
                args=[subjects],
                connections=args.read_connections,
                threads=2,
                duration=2,
                endpoint="GET",
            )
            wrk_run(
                name="warm-up",
                base=base,
                script=scripts["single"],
                args=[subjects, str(base_epoch - 86400 * 3), key],
                connections=args.write_connections,
                threads=2,
                duration=2,
                endpoint="POST",
            )
            plan: list[tuple[str, str, list[str], int, int, str]] = [
                (
                    "GET /healthz (stack floor)",
                    "floor",
                    [],
                    args.read_connections,
                    1,
                    "GET /healthz",
                ),
                (
                    "GET trust score, light load",
                    "get",
                    [subjects],
                    args.light_connections,
                    1,
                    "GET /api/v1/agents/<id>/trust-score",
                ),
                (
                    "POST one summary, light load",
                    "single",
                    [subjects, str(base_epoch - 86400 * 6), key],
                    args.light_connections,
                    1,
                    "POST /api/v1/summaries",
                ),
                (
                    "GET trust score",
                    "get",
                    [subjects],
                    args.read_connections,
                    1,
                    "GET /api/v1/agents/<id>/trust-score",
                ),
                (
                    "POST one summary",
                    "single",
                    [subjects, str(base_epoch), key],
                    args.write_connections,
                    1,
                    "POST /api/v1/summaries",
                ),
                (
                    f"POST batch of {args.batch_size}",
                    "batch",
                    [subjects, str(base_epoch + 86400 * 5), key, str(args.batch_size)],
                    args.batch_connections,
                    args.batch_size,
                    "POST /api/v1/summaries/batch",
                ),
            ]
            wanted = set(args.runs.split(","))
            for name, script, script_args, connections, items, endpoint in plan:
                if script not in wanted:
                    continue
                duration = max(args.duration, 15.0) if script == "batch" else args.duration
                print(f"  {name}: {connections} connections, {duration:g} s ...", flush=True)
                wait_idle(master)
                before = summaries_stored() if script not in ("get", "floor") else 0
                meter = CpuMeter(master)
                with (
                    PendingDrain(args.drain_interval),
                    profiled(args.profile, master, duration, work / f"profile-{script}.txt") as prof,
                ):
                    result = wrk_run(
                        name=name,
                        base=base,
                        script=scripts[script],
                        args=script_args,
                        connections=connections,
                        threads=min(2, connections),
                        duration=duration,
                        endpoint=endpoint,
                        items_per_request=items,
                        timeout=60 if script == "batch" else 10,
                        meter=meter,
                    )
                    # Requests still in flight when wrk stops finish before the meter stops, so the
                    # CPU is divided by the work actually done: rows stored, or answered reads.
                    wait_idle(master)
                    meter.stop()
                if script in ("get", "floor"):
                    result.cpu = meter.report(result.ok_requests, 1)
                else:
                    result.rows_stored = summaries_stored() - before
                    result.cpu = meter.report(result.rows_stored, items)
                    if result.cpu is not None and meter.wall:
                        # Throughput counted as rows stored over the time to store them all.
                        result.cpu["stored_items_per_s"] = round(result.rows_stored / meter.wall, 1)
                    expected = result.ok_requests * items
                    if result.rows_stored < expected:
                        result.notes.append(
                            f"stored {result.rows_stored} rows for {expected} accepted summaries"
                        )
                if args.profile:
                    result.profile = prof
                results.append(result)
                print(
                    f"    {result.requests_per_s:,.0f} requests/s, {result.items_per_s:,.0f} items/s, "
                    f"p99 {result.latency_ms['p99']:.1f} ms",
                    flush=True,
                )
    finally:
        database_drop()
        redis_flush()
    report = {
        "benchmark": "http",
        "generated_at": datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
        "machine": info,
        "load_average_at_end": list(os.getloadavg()),
        "server": {
            **asdict(config),
            "describe": config.describe(),
            "settings": "DEBUG=0, PostgreSQL, Redis cache, Celery queued to Redis (no worker), "
            "read rate limit off",
        },
        # The API keys are of a database that no longer exists, but keys do not belong in results.
        "seed": {k: v for k, v in seeded.items() if k != "keys"},
        "load_generator": "wrk (closed loop; latency from send to response, HDR percentiles)",
        "targets": TARGETS,
        "runs": [asdict(r) for r in results],
        "verdict": verdict(results),
    }
    shutil.rmtree(work, ignore_errors=True)
    return report


def verdict(results: list[RunResult]) -> dict[str, bool]:
    by = {r.endpoint: r for r in results}
    out: dict[str, bool] = {}
    if read := by.get("GET /api/v1/agents/<id>/trust-score"):
        out["read"] = (
            read.requests_per_s >= TARGETS["read_rps"] and read.latency_ms["p99"] < TARGETS["read_p99_ms"]
        )
    if single := by.get("POST /api/v1/summaries"):
        out["single"] = (
            single.requests_per_s >= TARGETS["single_rps"]
            and single.latency_ms["p99"] < TARGETS["single_p99_ms"]
        )
    if batch := by.get("POST /api/v1/summaries/batch"):
        out["batch"] = batch.items_per_s >= TARGETS["batch_summaries_per_s"]
    return out


def markdown(report: dict[str, Any]) -> str:
    m = report["machine"]
    lines = [
        f"HTTP benchmarks: {report['server']['describe']}; {m['nproc']} cores ({m['cpu_model']}), "
        f"load average at start {m['load_average_at_start'][0]:.2f}",
        "",
        "| run | conns | requests/s | summaries stored/s | p50 ms | p90 ms | p99 ms | errors "
        "| service CPU ms/request | 2 idle cores could do | others' CPU share | target |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    targets = {
        "GET /api/v1/agents/<id>/trust-score": "≥ 2,000/s, p99 < 25 ms",
        "POST /api/v1/summaries": "≥ 500/s, p99 < 50 ms",
        "POST /api/v1/summaries/batch": "≥ 10,000 summaries/s",
    }
    for r in report["runs"]:
        lat = r["latency_ms"]
        errors = sum(r["errors"].values())
        cpu = r.get("cpu") or {}
        stored = cpu.get("stored_items_per_s")
        per_request = (cpu.get("ms_per_request") or {}).get("service_total")
        capacity = cpu.get("idle_machine_capacity_items_per_s")
        others = cpu.get("others_share_of_machine")
        unit = "summaries/s" if r["endpoint"].startswith("POST") else "requests/s"
        rate = f"{r['requests_per_s']:,.1f}" if r["ok_requests"] else "–"
        # A batch that takes longer than the run finishes after wrk stops: no latency to show.
        timing = (
            f"{lat['p50']:.1f} | {lat['p90']:.1f} | {lat['p99']:.1f}" if r["ok_requests"] else "– | – | –"
        )
        lines.append(
            f"| {r['name']} | {r['connections']} "
            f"| {rate} "
            f"| {'' if stored is None else f'{stored:,.0f}'} "
            f"| {timing} | {errors} "
            f"| {'' if per_request is None else f'{per_request:.2f}'} "
            f"| {'' if capacity is None else f'{capacity:,.0f} {unit}'} "
            f"| {'' if others is None else f'{others:.0%}'} "
            f"| {targets.get(r['endpoint'], '')} |"
        )
    return "\n".join(lines)


def env_int(name: str, default: int) -> int:
    """An integer from the environment, or `default` when unset or empty."""
    return int(os.environ.get(name) or default)


def add_server_arguments(parser: argparse.ArgumentParser) -> None:
    """The load duration and server options both HTTP benchmarks take (and their BENCH_* variables)."""
    parser.add_argument("--duration", type=float, default=float(os.environ.get("BENCH_DURATION", 10)))
    parser.add_argument(
        "--server", choices=["granian", "gunicorn"], default=os.environ.get("BENCH_SERVER", "granian")
    )
    parser.add_argument(
        "--workers", type=int, default=env_int("BENCH_WORKERS", 0), help="default: 2 (granian), 4 (gunicorn)"
    )
    parser.add_argument(
        "--threads",
        type=int,
        default=env_int("BENCH_THREADS", 2),
        help="granian blocking threads / gthread threads",
    )


def server_workers(args: argparse.Namespace) -> int:
    """--workers, or one per core for granian and twice that for gunicorn's threaded workers."""
    return int(args.workers) or (2 if args.server == "granian" else 4)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command")
    seed_cmd = sub.add_parser("seed")
    seed_cmd.add_argument("--agents", type=int, required=True)
    seed_cmd.add_argument("--providers", type=int, default=3)
    seed_cmd.add_argument("--scored", type=int, default=200)
    seed_cmd.add_argument("--out", type=Path, required=True)

    add_server_arguments(parser)
    parser.add_argument("--agents", type=int, default=env_int("BENCH_AGENTS", 5000))
    parser.add_argument("--providers", type=int, default=3)
    parser.add_argument("--worker-class", default=os.environ.get("BENCH_WORKER_CLASS", "gthread"))
    parser.add_argument("--keep-alive", type=int, default=5)
    parser.add_argument("--conn-max-age", type=int, default=600)
    parser.add_argument("--read-connections", type=int, default=env_int("BENCH_READ_CONNECTIONS", 16))
    parser.add_argument("--write-connections", type=int, default=env_int("BENCH_WRITE_CONNECTIONS", 16))
    parser.add_argument("--light-connections", type=int, default=env_int("BENCH_LIGHT_CONNECTIONS", 2))
    parser.add_argument("--batch-connections", type=int, default=env_int("BENCH_BATCH_CONNECTIONS", 2))
    parser.add_argument("--batch-size", type=int, default=env_int("BENCH_BATCH_SIZE", 1000))
    parser.add_argument("--runs", default="floor,get,single,batch", help="which runs, comma-separated")
    parser.add_argument("--drain-interval", type=float, default=2.0)
    parser.add_argument("--profile", action="store_true", help="sample the workers with py-spy")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    if args.command == "seed":
        seed(args.agents, args.providers, args.scored, args.out)
        return 0
    report = run(args)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(markdown(report))
    print(f"\nwrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
