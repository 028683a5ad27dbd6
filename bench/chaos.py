"""Chaos benchmark: the deployment under steady ingest while its parts are killed and restarted (issue 15).

    python bench/chaos.py                          # one run: 180 s of load, ~5 minutes in all
    python bench/chaos.py --runs 3 --duration 120  # three consecutive runs, shorter
    python bench/chaos.py --no-faults              # the same load without faults (a baseline)
    python bench/chaos.py --workers 2              # two Celery workers; the kill takes one of them

Everything it needs it starts itself, on free loopback ports, and removes afterwards: a private
PostgreSQL cluster (initdb into a temporary directory; as root, the `postgres` user runs it), a private
redis-server (no persistence), and the three processes of the image as docker/entrypoint.sh runs them:
`migrate` once, then `web` (granian, WEB_CONCURRENCY=2 workers), `worker` (Celery) and `beat`. The
machine's shared PostgreSQL and Redis are never touched. A supervisor thread plays compose's
`restart: unless-stopped`: a web, worker or beat process that exits is started again after a second.

Load: client threads post summaries over keep-alive connections at RATE summaries/s (default 500),
batches of BATCH (10) to /api/v1/summaries/batch and single summaries to /api/v1/summaries, each
about one of AGENTS agents (2,000, registered by the ingest) from one of 5 providers, every summary a
new window with a unique `totalChecks` (its sequence number). Every request carries an
Idempotency-Key; a request that fails (5xx, reset connection, timeout) is retried with the same key
and body until it is acknowledged or RETRY_LIMIT seconds pass, as a careful provider would.

Faults, at fixed fractions of the run: kill -9 of the Celery worker (its whole process group; the
supervisor restarts it), kill -9 of one granian worker (granian respawns it), a PostgreSQL restart
(`pg_ctl restart -m immediate`: crash-like, recovery from the WAL), and two Redis restarts (kill -9,
started again empty: queued tasks, cache flags and rate-limit counters are gone).

Then the load stops, the queue is left to drain (bounded: lease + beat interval + slack), and a
checking process with Django set up answers, from the database alone:
  - lost: acknowledged summaries with no stored row; duplicated: sequence numbers stored twice;
  - stale: agents whose stored latest score differs from a fresh computation over the stored inputs;
  - lag: per summary, from its arrival to the first stored score whose newest input is that recent
    (p50/p99/max, overall and per fault window); a summary whose window was already superseded when it
    arrived (a newer window of the same provider and agent stored first) is never part of a score and
    is counted apart (superseded_on_arrival), with the slowest summaries listed (worst_lags);
  - every non-2xx answer's body is RFC 9457 problem details (application/problem+json, status, title).
Per fault: the write outage (from the fault to the end of the last failed attempt it caused), and for
the web worker kill, how the load spreads over the two granian workers afterwards (CPU seconds each),
which is issue 15's point 8 (docs/reliability.md).

Writes bench/results/chaos.json and prints a markdown table. Bounded: per run DURATION + at most
~6 minutes of set-up and drain.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "chaos.json"
BIN = Path(sys.executable).parent
ENTRYPOINT = ROOT / "docker" / "entrypoint.sh"
PROVIDERS = 5
# Fault schedule: (fraction of the load's duration, fault).
SCHEDULE = [
    (0.12, "worker-kill"),
    (0.28, "web-worker-kill"),
    (0.44, "postgres-restart"),
    (0.62, "redis-restart"),
    (0.80, "redis-restart"),
]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 3)


# --- private PostgreSQL and Redis ---------------------------------------------------------------------


def _pg_bin() -> Path:
    if found := os.environ.get("PG_BIN"):
        return Path(found)
    if on_path := shutil.which("pg_ctl"):
        return Path(on_path).resolve().parent
    versions = sorted(Path("/usr/lib/postgresql").glob("*/bin"), key=lambda p: int(p.parent.name))
    if not versions:
        sys.exit("no PostgreSQL server binaries (set PG_BIN to the directory holding initdb and pg_ctl)")
    return versions[-1]


class PrivatePostgres:
    """A throw-away cluster; as root, its files belong to `postgres` (initdb refuses to run as root)."""

    def __init__(self, base: Path) -> None:
        self.bin = _pg_bin()
        self.dir = base / "pgdata"
        self.log = base / "postgres.log"
        self.port = free_port()
        self.socket_dir = base

    def _run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        cmd = [str(self.bin / args[0]), *args[1:]]
        if os.geteuid() == 0:
            cmd = ["runuser", "-u", "postgres", "--", *cmd]
        return subprocess.run(cmd, check=check, capture_output=True, text=True, timeout=120)

    def init(self) -> None:
        if os.geteuid() == 0:
            os.chmod(self.socket_dir, 0o755)
            self.log.touch()
            shutil.chown(self.log, "postgres")
            self.dir.mkdir()
            shutil.chown(self.dir, "postgres")
            shutil.chown(self.socket_dir, "postgres")
        self._run("initdb", "-D", str(self.dir), "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-sync")
        options = f"-p {self.port} -k {self.socket_dir} -c listen_addresses=127.0.0.1 -c max_connections=60"
        self._run("pg_ctl", "-D", str(self.dir), "-l", str(self.log), "-o", options, "-w", "start")
        subprocess.run(
            [
                str(self.bin / "psql"),
                *("-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres"),
                *("-q", "-c", "CREATE DATABASE chaos"),
            ],
            check=True,
            capture_output=True,
            timeout=60,
        )

    @property
    def url(self) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/chaos"

    def restart(self) -> None:
        # Immediate: no checkpoint, the server recovers from its WAL as after a crash.
        self._run("pg_ctl", "-D", str(self.dir), "-l", str(self.log), "-m", "immediate", "-w", "restart")

    def stop(self) -> None:
        with contextlib.suppress(Exception):
            self._run("pg_ctl", "-D", str(self.dir), "-m", "immediate", "-w", "stop", check=False)


class PrivateRedis:
    def __init__(self, base: Path) -> None:
        self.port = free_port()
        self.dir = base
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        binary = shutil.which("redis-server")
        if not binary:
            sys.exit("redis-server is not on PATH")
        self.process = subprocess.Popen(
            [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
            cwd=self.dir,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port), 0.2) as s:
                s.sendall(b"PING\r\n")
                if s.recv(16).startswith(b"+PONG"):
                    return
            time.sleep(0.05)
        raise RuntimeError("the private redis-server did not start")

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=10)

    def restart(self) -> None:
        self.kill()
        self.start()


# --- the image's processes, with compose's restart policy --------------------------------------------


class Service:
    def __init__(self, name: str, env: dict[str, str], log: Path, command: list[str] | None = None) -> None:
        self.name = name
        self.env = env
        self.log = log
        # The entrypoint's role by default; a second worker needs its own node name (`-n`).
        self.command = command or [self.name]
        self.proc: subprocess.Popen[bytes] | None = None
        self.restarts: list[float] = []

    def start(self) -> None:
        with self.log.open("ab") as sink:
            self.proc = subprocess.Popen(
                ["sh", str(ENTRYPOINT), *self.command],
                cwd=ROOT,
                env=self.env,
                stdout=sink,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kill9(self) -> None:
        """The container dies: every process of the service, at once."""
        if self.proc is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGTERM)
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)


class Supervisor(threading.Thread):
    """compose's `restart: unless-stopped`: a service whose process exited is started again."""

    def __init__(self, services: list[Service]) -> None:
        super().__init__(daemon=True)
        self.services = services
        self.stopping = threading.Event()

    def run(self) -> None:
        while not self.stopping.wait(0.5):
            for service in self.services:
                if not service.alive():
                    time.sleep(1.0)  # docker's first restart comes after a short delay
                    service.restarts.append(time.time())
                    service.start()


def children(pid: int) -> list[int]:
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True)
    return [int(line) for line in out.stdout.split()]


def cpu_seconds(pid: int) -> float | None:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mb(root: int) -> float:
    """Resident memory of a process and its descendants, in MB."""
    total = 0
    pending = [root]
    while pending:
        pid = pending.pop()
        with contextlib.suppress(OSError):
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        pending += children(pid)
    return round(total / 1024, 1)


def granian_workers(web: Service) -> list[int]:
    """The granian worker processes: children of the granian process the entrypoint exec'd."""
    assert web.proc is not None
    return children(web.proc.pid)


# --- the load -----------------------------------------------------------------------------------------


@dataclass
class Attempt:
    started: float
    ended: float
    status: int  # 0: no HTTP answer (refused, reset, timeout)
    error: str = ""


@dataclass
class Load:
    base_port: int
    keys: list[str]
    agents: int
    rate: float
    duration: float
    batch: int
    single_share: float
    retry_limit: float
    conn_max_requests: int
    window_base: datetime
    seed: int
    sequence: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)
    acknowledged: list[tuple[int, int, str, float]] = field(default_factory=list)  # seq, provider, agent, t
    attempts: list[Attempt] = field(default_factory=list)
    statuses: dict[str, int] = field(default_factory=dict)
    not_problem: list[str] = field(default_factory=list)
    failures: dict[str, list[str]] = field(default_factory=dict)  # a few examples per status
    given_up: int = 0
    started: float = 0.0

    def next_request(
        self, rng: random.Random
    ) -> tuple[str, bytes, dict[str, str], list[tuple[int, int, str]]] | None:
        size = 1 if rng.random() < self.single_share else self.batch
        with self.lock:
            due = self.started + self.sequence / self.rate
            if due - self.started >= self.duration:
                return None
            first = self.sequence
            self.sequence += size
        if (wait := due - time.time()) > 0:
            time.sleep(wait)
        provider = first % PROVIDERS
        items = []
        bodies = []
        for seq in range(first, first + size):
            agent = f"chaos-agent-{rng.randrange(self.agents):06d}"
            block = rng.randrange(0, 20) / 100
            bodies.append(
                {
                    "agent": agent,
                    "agentRegistry": "other",
                    "allowRate": round(0.95 - block, 2),
                    "blockRate": block,
                    "uncertainRate": 0.05,
                    "avgConfidence": 0.9,
                    "totalChecks": 100 + seq,  # the sequence number: identifies the summary when stored
                    "windowDays": 7,
                    # A new window per summary (the same window again would be a replay).
                    "updatedAt": (self.window_base + timedelta(milliseconds=seq))
                    .isoformat()
                    .replace("+00:00", "Z"),
                }
            )
            items.append((seq, provider, agent))
        if size == 1:
            path, body = "/api/v1/summaries", bodies[0]
        else:
            path, body = "/api/v1/summaries/batch", {"summaries": bodies}
        headers = {
            "Content-Type": "application/json",
            "Authorization": f"Bearer {self.keys[provider]}",
            "Idempotency-Key": str(uuid.uuid4()),
        }
        return path, json.dumps(body).encode(), headers, items

    def client(self, index: int) -> None:
        rng = random.Random(self.seed * 1000 + index)
        conn: http.client.HTTPConnection | None = None
        served = 0
        while (request := self.next_request(rng)) is not None:
            path, body, headers, items = request
            first_try = time.time()
            while True:
                if conn is None or (self.conn_max_requests and served >= self.conn_max_requests):
                    if conn is not None:
                        conn.close()
                    conn = http.client.HTTPConnection("127.0.0.1", self.base_port, timeout=30)
                    served = 0
                started = time.time()
                try:
                    conn.request("POST", path, body=body, headers=headers)
                    answer = conn.getresponse()
                    content = answer.read()
                    status = answer.status
                    served += 1
                    if answer.getheader("connection", "").lower() == "close":
                        conn.close()
                        conn = None
                except (OSError, http.client.HTTPException) as error:
                    if conn is not None:
                        conn.close()
                    conn = None
                    with self.lock:
                        self.attempts.append(Attempt(started, time.time(), 0, type(error).__name__))
                        self.statuses["no answer"] = self.statuses.get("no answer", 0) + 1
                        self._example("no answer", f"{started - self.started:.1f}s {path} {error!r}")
                else:
                    ended = time.time()
                    with self.lock:
                        self.attempts.append(Attempt(started, ended, status))
                        self.statuses[str(status)] = self.statuses.get(str(status), 0) + 1
                        kind = answer.getheader("content-type", "")
                        if status >= 300 and not _is_problem(kind, content, status):
                            self.not_problem.append(f"{status} {content[:200]!r}")
                        if not 200 <= status < 300:
                            self._example(
                                str(status),
                                f"{started - self.started:.1f}s {path} {content[:300]!r} for {body[:300]!r}",
                            )
                        if 200 <= status < 300:
                            self.acknowledged.extend((seq, p, a, ended) for seq, p, a in items)
                    if 200 <= status < 300:
                        break
                    if status < 500 and status != 429:
                        break  # a client error: retrying the same body would get the same answer
                if time.time() - first_try > self.retry_limit:
                    with self.lock:
                        self.given_up += 1
                    break
                time.sleep(0.2)
        if conn is not None:
            conn.close()

    def _example(self, status: str, text: str) -> None:
        """Called with the lock held."""
        examples = self.failures.setdefault(status, [])
        if len(examples) < 3:
            examples.append(text)


def _is_problem(content_type: str, content: bytes, status: int) -> bool:
    if not content_type.startswith("application/problem+json"):
        return False
    try:
        body = json.loads(content)
    except ValueError:
        return False
    return isinstance(body, dict) and body.get("status") == status and bool(body.get("title"))


# --- the checks (a child process with Django set up on the private database) ---------------------------

# Per summary: its arrival, its lag, and whether its window was superseded on arrival (a newer window
# of the same provider and agent was stored before it, e.g. by a request that overtook a retried one).
# Such a summary is never part of a score (a score takes each provider's newest window), so "the
# first score whose newest input is that recent" only comes with the agent's next summary: it is
# counted apart, not as lag.
LAG_SQL = """
SELECT s.total_checks - 100, EXTRACT(EPOCH FROM s.received_at), EXTRACT(EPOCH FROM (
    SELECT min(t.computed_at) FROM registry_trustscore t
    WHERE t.agent_id = s.agent_id AND t.newest_input_at >= s.received_at
) - s.received_at),
EXISTS (
    SELECT 1 FROM registry_verificationsummary n
    WHERE n.agent_id = s.agent_id AND n.provider_id = s.provider_id
    AND n.window_end > s.window_end AND n.received_at <= s.received_at
)
FROM registry_verificationsummary s
WHERE s.total_checks >= 100
"""

# The slowest summaries, to tell a late drain from a summary whose window was already superseded when
# it arrived (a newer window of the same provider and agent stored before it: the score never uses it).
WORST_LAGS_SQL = """
WITH lag AS (
    SELECT s.id, s.agent_id, s.provider_id, s.window_end, s.received_at, s.total_checks - 100 AS seq,
        EXTRACT(EPOCH FROM (
            SELECT min(t.computed_at) FROM registry_trustscore t
            WHERE t.agent_id = s.agent_id AND t.newest_input_at >= s.received_at
        ) - s.received_at) AS lag,
        EXISTS (
            SELECT 1 FROM registry_verificationsummary n
            WHERE n.agent_id = s.agent_id AND n.provider_id = s.provider_id
            AND n.window_end > s.window_end AND n.received_at <= s.received_at
        ) AS superseded
    FROM registry_verificationsummary s WHERE s.total_checks >= 100
)
SELECT seq, agent_id, EXTRACT(EPOCH FROM received_at), lag, superseded,
    (SELECT array_agg(round(EXTRACT(EPOCH FROM t.computed_at - lag.received_at)::numeric, 2)
        ORDER BY t.computed_at)
     FROM registry_trustscore t WHERE t.agent_id = lag.agent_id AND t.computed_at >= lag.received_at
     AND t.computed_at <= lag.received_at + make_interval(secs => coalesce(lag, 600) + 1))
FROM lag ORDER BY lag DESC NULLS FIRST LIMIT 12
"""


def check(run_dir: Path) -> None:
    """Runs in the child: reads acknowledged.json, writes check.json."""
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.db import connection
    from django.db.models import Count
    from django.utils import timezone

    from registry.models import Agent, PendingRecompute, VerificationSummary
    from registry.services.scoring import trust_scores_prepare

    acknowledged = json.loads((run_dir / "acknowledged.json").read_text())
    slugs = [f"chaos-{i}" for i in range(PROVIDERS)]
    stored: dict[int, list[tuple[str, str]]] = {}
    for seq, slug, subject in VerificationSummary.objects.filter(total_checks__gte=100).values_list(
        "total_checks", "provider__slug", "agent__subject_id"
    ):
        stored.setdefault(int(seq) - 100, []).append((slug, subject))
    lost = [
        seq for seq, provider, agent in acknowledged if (slugs[provider], agent) not in stored.get(seq, [])
    ]
    duplicated = [seq for seq, rows in stored.items() if len(rows) > 1]
    acknowledged_seqs = {seq for seq, _, _ in acknowledged}
    unacknowledged_stored = [seq for seq in stored if seq not in acknowledged_seqs]
    same_window = (
        VerificationSummary.objects.values("provider_id", "agent_id", "window_end")
        .annotate(n=Count("id"))
        .filter(n__gt=1)
        .count()
    )
    now = timezone.now()
    agents = list(Agent.objects.select_related("latest_score").order_by("pk"))
    stale = []
    for start in range(0, len(agents), 500):
        chunk = agents[start : start + 500]
        _, fresh = trust_scores_prepare(agents=chunk, now=now)
        stale += [agent.subject_id for agent, _ in fresh]
    unscored = Agent.objects.filter(latest_score__isnull=True).count()
    with connection.cursor() as cursor:
        cursor.execute(LAG_SQL)
        rows = cursor.fetchall()
        lags = [
            (int(seq), float(at), None if lag is None else float(lag))
            for seq, at, lag, old in rows
            if not old
        ]
        superseded = sum(1 for *_, old in rows if old)
        cursor.execute(WORST_LAGS_SQL)
        worst = [
            {
                "seq": int(seq),
                "agent_id": agent_id,
                "received_at": float(at),
                "lag_s": None if lag is None else round(float(lag), 2),
                "superseded_on_arrival": superseded,
                # Scores stored for the agent after the summary arrived (seconds after it).
                "scores_after_s": [float(x) for x in (scores or [])][:40],
            }
            for seq, agent_id, at, lag, superseded, scores in cursor.fetchall()
        ]
    (run_dir / "check.json").write_text(
        json.dumps(
            {
                "acknowledged": len(acknowledged),
                "stored": sum(len(rows) for rows in stored.values()),
                "lost": len(lost),
                "lost_examples": lost[:10],
                "duplicated": len(duplicated),
                "duplicated_examples": duplicated[:10],
                "same_window_twice": same_window,
                "stored_unacknowledged": len(unacknowledged_stored),
                "agents": len(agents),
                "stale": len(stale),
                "stale_examples": stale[:10],
                "unscored": unscored,
                "pending_left": PendingRecompute.objects.count(),
                "lags": lags,
                "superseded_on_arrival": superseded,
                "worst_lags": worst,
            }
        )
    )


def seed_providers(out: Path) -> None:
    """Runs in the child: five providers with API keys."""
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from registry.services.providers import provider_create

    keys = []
    for i in range(PROVIDERS):
        _, issued = provider_create(name=f"Chaos provider {i}", slug=f"chaos-{i}")
        assert issued is not None
        keys.append(issued.plaintext)
    out.write_text(json.dumps(keys))


def pending_count(db_url: str) -> int | None:
    import psycopg

    try:
        with psycopg.connect(db_url.replace("postgres://", "postgresql://"), connect_timeout=3) as conn:
            row = conn.execute("SELECT count(*) FROM registry_pendingrecompute").fetchone()
            return int(row[0]) if row else 0
    except psycopg.Error:
        return None


# --- one run ------------------------------------------------------------------------------------------


def app_env(pg: PrivatePostgres, redis_port: int, web_port: int, base: Path) -> dict[str, str]:
    dropped = ("DJANGO_SETTINGS_MODULE", "DATABASE_URL_FILE", "SECRET_KEY_FILE", "CELERY_TASK_DEFAULT_QUEUE")
    env = {key: value for key, value in os.environ.items() if key not in dropped}
    env.update(
        {
            "PATH": f"{BIN}{os.pathsep}{env.get('PATH', '')}",
            "DEBUG": "0",
            "SECRET_KEY": "chaos-only-secret-key-not-for-production-0123456789abcdef",
            "DATABASE_URL": pg.url,
            "REDIS_URL": f"redis://127.0.0.1:{redis_port}/0",
            "CELERY_BROKER_URL": f"redis://127.0.0.1:{redis_port}/1",
            "CELERY_TASK_ALWAYS_EAGER": "0",
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            "HOST": "127.0.0.1",
            "PORT": str(web_port),
            "WEB_CONCURRENCY": "2",
            # Plain HTTP on loopback (no TLS proxy to redirect to). The rate limits keep their
            # production defaults: ~10 requests/s per provider key is well under WRITE_RATE_LIMIT.
            "SECURE_SSL_REDIRECT": "0",
            "AUTO_REGISTER_AGENTS": "1",
            "BEAT_SCHEDULE": str(base / "celerybeat-schedule"),
            "LOG_LEVEL": "WARNING",
            "PYTHONDONTWRITEBYTECODE": "1",
        }
    )
    for name in ("SCORE_RECOMPUTE_LEASE_SECONDS", "DRAIN_INTERVAL_SECONDS", "WORKER_CONCURRENCY"):
        if os.environ.get(name):
            env[name] = os.environ[name]
    return env


def wait_healthy(port: int, limit: float) -> None:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError, http.client.HTTPException):
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            conn.request("GET", "/healthz")
            if conn.getresponse().status == 200:
                conn.close()
                return
        time.sleep(0.3)
    raise RuntimeError(f"the web service did not answer /healthz within {limit:.0f} s")


def run_once(args: argparse.Namespace, number: int) -> dict[str, Any]:
    base = Path(tempfile.mkdtemp(prefix="chaos-"))
    pg = PrivatePostgres(base)
    redis = PrivateRedis(base)
    web_port = free_port()
    services: list[Service] = []
    supervisor: Supervisor | None = None
    logs = ROOT / "var" / "chaos" / f"run-{number}"
    shutil.rmtree(logs, ignore_errors=True)
    logs.mkdir(parents=True)
    try:
        pg.init()
        redis.start()
        env = app_env(pg, redis.port, web_port, base)
        subprocess.run(["sh", str(ENTRYPOINT), "migrate"], cwd=ROOT, env=env, check=True, capture_output=True)
        subprocess.run(
            [sys.executable, __file__, "seed", str(base / "keys.json")], cwd=ROOT, env=env, check=True
        )
        keys = json.loads((base / "keys.json").read_text())
        services = [Service(name, env, logs / f"{name}.log") for name in ("web", "worker", "beat")]
        # Extra Celery workers (--workers): the kill takes the first one only, so the others carry
        # on and pick up its claims when their lease lapses (SCORE_RECOMPUTE_LEASE_SECONDS).
        concurrency = env.get("WORKER_CONCURRENCY", "4")
        for extra in range(2, args.workers + 1):
            name = f"worker-{extra}"
            command = ["celery", "-A", "config", "worker", "--loglevel", "INFO"]
            command += ["--concurrency", concurrency, "-n", f"{name}@%h"]
            services.append(Service(name, env, logs / f"{name}.log", command))
        for service in services:
            service.start()
        web, worker = services[0], services[1]
        wait_healthy(web_port, 90)
        supervisor = Supervisor(services)
        supervisor.start()

        load = Load(
            base_port=web_port,
            keys=keys,
            agents=args.agents,
            rate=args.rate,
            duration=args.duration,
            batch=args.batch,
            single_share=args.single_share,
            retry_limit=args.retry_limit,
            conn_max_requests=args.conn_max_requests,
            window_base=datetime.now(UTC).replace(microsecond=0) - timedelta(hours=2),
            seed=number,
        )
        load.started = time.time() + 0.5
        clients = [threading.Thread(target=load.client, args=(i,), daemon=True) for i in range(args.clients)]
        for thread in clients:
            thread.start()

        memory: dict[str, list[float]] = {}
        threading.Thread(target=_sample_memory, args=(services, load, memory), daemon=True).start()
        faults: list[dict[str, Any]] = []
        schedule = [] if args.no_faults else [(f, name) for f, name in SCHEDULE if name in args.faults]
        for fraction, fault in schedule:
            at = load.started + fraction * args.duration
            if (wait := at - time.time()) > 0:
                time.sleep(wait)
            record: dict[str, Any] = {"fault": fault, "at": time.time()}
            if fault == "worker-kill":
                worker.kill9()  # the supervisor starts it again
            elif fault == "web-worker-kill":
                before = granian_workers(web)
                record["killed_pid"] = before[0]
                os.kill(before[0], signal.SIGKILL)
                record["survivor_pid"] = before[1] if len(before) > 1 else None
            elif fault == "postgres-restart":
                pg.restart()
            elif fault == "redis-restart":
                redis.restart()
            record["done"] = time.time()
            faults.append(record)
            if fault == "web-worker-kill":
                threading.Thread(target=_watch_respawn, args=(web, web_port, record), daemon=True).start()
        for thread in clients:
            thread.join(timeout=args.duration + args.retry_limit + 60)
        load_ended = time.time()

        # The queue drains: marked agents are recomputed by the queued drains, claims a killed worker
        # held come back when their lease expires, and the beat drain sweeps what no task was queued for.
        drain_limit = (
            float(env.get("SCORE_RECOMPUTE_LEASE_SECONDS", "5"))
            + float(env.get("DRAIN_INTERVAL_SECONDS", "60"))
            + 60
        )
        deadline = time.monotonic() + drain_limit
        pending = None
        while time.monotonic() < deadline:
            pending = pending_count(pg.url)
            if pending == 0:
                break
            time.sleep(1.0)
        drained_after = time.time() - load_ended
        supervisor.stopping.set()
        supervisor.join(timeout=5)
        for service in services:
            service.stop()

        (base / "acknowledged.json").write_text(json.dumps([[s, p, a] for s, p, a, _ in load.acknowledged]))
        subprocess.run([sys.executable, __file__, "check", str(base)], cwd=ROOT, env=env, check=True)
        checked = json.loads((base / "check.json").read_text())
        result = summarise(args, load, faults, checked, services, drained_after, pending)
        result["rss_mb"] = memory
        return result
    finally:
        if supervisor is not None:
            supervisor.stopping.set()
        for service in services:
            with contextlib.suppress(Exception):
                service.stop()
        redis.kill()
        pg.stop()
        if os.geteuid() == 0:
            subprocess.run(["rm", "-rf", str(base)], check=False)
        else:
            shutil.rmtree(base, ignore_errors=True)


def _sample_memory(services: list[Service], load: Load, out: dict[str, list[float]]) -> None:
    """Each service's resident memory every 10 % of the run: flat, or growing with the load?"""
    for step in range(1, 11):
        at = load.started + step * load.duration / 10
        if (wait := at - time.time()) > 0:
            time.sleep(wait)
        for service in services:
            if service.proc is not None:
                out.setdefault(service.name, []).append(rss_mb(service.proc.pid))


def connections_per_worker(port: int, pids: dict[str, int]) -> dict[str, int]:
    """Established client connections each granian worker holds (from `ss -tnp`)."""
    out = subprocess.run(
        ["ss", "-Htnp", "state", "established", f"( sport = :{port} )"], capture_output=True, text=True
    ).stdout
    return {name: out.count(f"pid={pid},") for name, pid in pids.items()}


def _watch_respawn(web: Service, port: int, record: dict[str, Any]) -> None:
    """Note the respawned granian worker; then, 5 s and 20 s after it is up, where the load goes."""
    deadline = time.time() + 60
    while time.time() < deadline:
        workers = granian_workers(web)
        new = [pid for pid in workers if pid not in (record["killed_pid"], record["survivor_pid"])]
        if new and len(workers) >= 2:
            record["respawned_pid"] = new[0]
            record["respawned_after_s"] = round(time.time() - record["at"], 2)
            break
        time.sleep(0.1)
    else:
        return
    time.sleep(5.0)
    pids = {"respawned": int(record["respawned_pid"]), "survivor": int(record["survivor_pid"])}
    record["connections_after_5s"] = connections_per_worker(port, pids)
    before = {name: cpu_seconds(pid) for name, pid in pids.items()}
    time.sleep(15.0)
    after = {name: cpu_seconds(pid) for name, pid in pids.items()}
    record["connections_after_20s"] = connections_per_worker(port, pids)
    cpu = {}
    for name in pids:
        earlier, later = before[name], after[name]
        if earlier is not None and later is not None:
            cpu[name] = round(later - earlier, 2)
    record["cpu_s_from_5s_to_20s"] = cpu


def load_average() -> list[float]:
    """The machine's 1, 5 and 15 minute load averages when the run ends: the figures are under this load."""
    return [round(value, 2) for value in os.getloadavg()]


def summarise(
    args: argparse.Namespace,
    load: Load,
    faults: list[dict[str, Any]],
    checked: dict[str, Any],
    services: list[Service],
    drained_after: float,
    pending: int | None,
) -> dict[str, Any]:
    lags = checked.pop("lags")
    for worst in checked.get("worst_lags", []):
        worst["received_at"] = round(worst["received_at"] - load.started, 2)  # seconds into the load
    load_lags = [lag for _, _, lag in lags if lag is not None]
    never = sum(1 for _, _, lag in lags if lag is None)
    failed = [a for a in load.attempts if not 200 <= a.status < 300]
    bounds = [f["at"] for f in faults] + [float("inf")]
    for index, fault in enumerate(faults):
        # By when the failure was seen: a request in flight when the fault struck started before it.
        window = [a for a in failed if bounds[index] <= a.ended < bounds[index + 1]]
        fault["failed_attempts"] = len(window)
        fault["write_outage_s"] = round(max(a.ended for a in window) - fault["at"], 2) if window else 0.0
        in_window = [
            lag for _, at, lag in lags if lag is not None and bounds[index] <= at < bounds[index + 1]
        ]
        fault["lag_p99_s"] = percentile(in_window, 0.99)
        fault["lag_max_s"] = round(max(in_window), 3) if in_window else None
        fault["at"] = round(fault["at"] - load.started, 2)
        fault["done"] = round(fault["done"] - load.started, 2)
    first_fault = load.started + faults[0]["at"] if faults else float("inf")
    before_faults = [lag for _, at, lag in lags if lag is not None and at < first_fault]
    return {
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
        "duration_s": args.duration,
        "rate_target": args.rate,
        "agents": args.agents,
        "clients": args.clients,
        "workers": args.workers,
        "load_average": load_average(),
        "conn_max_requests": args.conn_max_requests,
        "summaries_per_s": round(len(load.acknowledged) / args.duration, 1),
        "requests": len(load.attempts),
        "statuses": load.statuses,
        "not_problem_details": len(load.not_problem),
        "not_problem_examples": load.not_problem[:5],
        "given_up_requests": load.given_up,
        "failure_examples": load.failures,
        **checked,
        "never_reflected": never,
        "lag_p50_s": percentile(load_lags, 0.5),
        "lag_p99_s": percentile(load_lags, 0.99),
        "lag_max_s": round(max(load_lags), 3) if load_lags else None,
        "lag_p99_before_faults_s": percentile(before_faults, 0.99),
        "drained_after_s": round(drained_after, 1),
        "pending_at_check": pending,
        "restarts": {service.name: len(service.restarts) for service in services},
        "faults": faults,
    }


def markdown(runs: list[dict[str, Any]]) -> str:
    lines = [
        "| run | acknowledged | summaries/s | lost | duplicated | stale | non-problem errors | "
        "lag p50 / p99 / max (s) | drained after (s) | statuses |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for i, r in enumerate(runs, 1):
        statuses = ", ".join(f"{k}: {v}" for k, v in sorted(r["statuses"].items()))
        lines.append(
            f"| {i} | {r['acknowledged']:,} | {r['summaries_per_s']} | {r['lost']} | {r['duplicated']} | "
            f"{r['stale']} | {r['not_problem_details']} | {r['lag_p50_s']} / {r['lag_p99_s']} / "
            f"{r['lag_max_s']} | {r['drained_after_s']} | {statuses} |"
        )
    lines += [
        "",
        "| run | fault | at (s) | failed attempts | write outage (s) | lag p99 / max after it (s) |",
    ]
    lines.append("|---|---|---|---|---|---|")
    for i, r in enumerate(runs, 1):
        for f in r["faults"]:
            lines.append(
                f"| {i} | {f['fault']} | {f['at']} | {f['failed_attempts']} | {f['write_outage_s']} | "
                f"{f['lag_p99_s']} / {f['lag_max_s']} |"
            )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--duration", type=float, default=float(os.environ.get("DURATION", "180")))
    parser.add_argument("--rate", type=float, default=float(os.environ.get("RATE", "500")))
    parser.add_argument("--agents", type=int, default=int(os.environ.get("AGENTS", "2000")))
    parser.add_argument("--batch", type=int, default=10)
    parser.add_argument(
        "--single-share", type=float, default=0.2, help="share of requests that post one summary"
    )
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument(
        "--workers", type=int, default=1, help="Celery workers (the worker kill takes the first one only)"
    )
    parser.add_argument("--retry-limit", type=float, default=60.0)
    parser.add_argument(
        "--conn-max-requests",
        type=int,
        default=0,
        help="a client reconnects after this many requests, as a proxy's keepalive_requests (0: never)",
    )
    parser.add_argument("--no-faults", action="store_true")
    parser.add_argument(
        "--faults",
        type=lambda text: set(text.split(",")),
        default={name for _, name in SCHEDULE},
        help="which faults of the schedule to inject, comma-separated (default: all)",
    )
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    runs = []
    for number in range(1, args.runs + 1):
        result = run_once(args, number)
        runs.append(result)
        print(json.dumps({k: v for k, v in result.items() if k != "faults"}, indent=None), flush=True)
    print(markdown(runs))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"runs": runs}, indent=2) + "\n")
    failed = any(r["lost"] or r["duplicated"] or r["stale"] or r["not_problem_details"] for r in runs)
    return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "seed":
        seed_providers(Path(sys.argv[2]))
    elif len(sys.argv) > 2 and sys.argv[1] == "check":
        check(Path(sys.argv[2]))
    else:
        sys.exit(main())
