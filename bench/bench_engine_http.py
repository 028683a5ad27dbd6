"""The verification engine's REST endpoints over HTTP: PostgreSQL, granian, Redis, load from wrk.

    python bench/bench_engine_http.py                  # the full set, 10 s per load run
    python bench/bench_engine_http.py --duration 5     # quicker
    python bench/bench_engine_http.py --profile        # also sample the workers with py-spy
    python bench/bench_engine_http.py --tools-json bench/results/tools.json   # reuse in-process numbers

What it does, in order:

1. Runs `bench/bench_tools.py` (one replay per engine) in a child process first, so the in-process
   verify() numbers (memory store and Redis store) come from the same run as the REST numbers.
   `--tools-json PATH` reuses an earlier result instead.
2. Creates a fresh PostgreSQL database (`bench_engine` on 127.0.0.1:5432, user postgres), migrates
   it and issues an operator key (`operator_key_create`).
3. Starts a tiny OpenAI-compatible upstream in its own process (`bench_engine_http.py upstream`):
   it answers each chat completion with the final assistant answer that groundedness_dev.jsonl
   has for those messages.
4. Starts granian (`--workers 2 --blocking-threads 2`, as docker/ runs it; `--server gunicorn` for
   `-w 4 -k gthread --threads 2`), DEBUG=0, Redis cache in db 12, Celery broker in
   db 13, RUN_PROXY_UPSTREAM_URL pointing at the upstream), registers the tool stream's profiles
   through `PUT /api/v1/tools/<tool>/profile`, and drives, with wrk for a bounded time each:
   - `POST /api/v1/verify/tool-call`: one call per request, the stream's first call lines in order;
   - `POST /api/v1/verify/run`: the groundedness runs (messages and tools only);
   - `POST /v1/chat/completions`: the same runs minus the final answer, through the verifying
     proxy (`x-hallucination-action: header`, so every answer is a 200);
   - the upstream on its own, to show its share of a proxied request.
   Each endpoint runs at light load (2 connections) and at full load (8 connections by default).
5. Measures the CPU each request costs the service (the server's processes, the PostgreSQL backends of the
   database, Redis) and the upstream from /proc, stops every process it started by pid, drops the
   database, flushes Redis dbs 12 and 13, prints markdown tables and writes
   bench/results/engine_http.json.

Nothing in the requests comes from the eval files' id/ts/kind/variant/label fields.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import asdict
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_http as bh

ROOT = Path(__file__).resolve().parents[1]
EVAL = Path(__file__).resolve().parents[1].parent / "shared" / "eval"
TOOL_STREAM = EVAL / "tool_streams_dev.jsonl"
GROUNDEDNESS = EVAL / "groundedness_dev.jsonl"
RESULTS = ROOT / "bench" / "results" / "engine_http.json"
RUNS_JSON = ROOT / "bench" / "results" / "runs.json"

DB_NAME = "bench_engine"
DB_URL = f"postgresql://postgres@127.0.0.1:5432/{DB_NAME}"
REDIS_CACHE_DB = 12
REDIS_BROKER_DB = 13
ENGINE_NAMESPACE = "bench-engine-http"

# Profile line keys of the stream -> the REST profile fields.
PROFILE_FIELDS = {
    "expected_latency_ms": "expectedLatencyMs",
    "required_fields": "requiredFields",
    "forbidden_fields": "forbiddenFields",
    "response_patterns": "responsePatterns",
    "min_response_length": "minResponseLength",
    "max_response_length": "maxResponseLength",
    "has_network_io": "hasNetworkIo",
}

# Frames whose inclusive share of worker samples says where an engine request's time goes.
ENGINE_PROFILE_BUCKETS = {
    "tool verifier (engine/tools)": ("verification/engine/tools/",),
    "engine Redis store (engine/store)": ("verification/engine/store/",),
    "run verifier (engine/runs)": ("verification/engine/runs/",),
    "injection scan of the run (run_injection_signals)": ("run_injection_signals",),
    "upstream call (httpx.post, incl. client set-up)": ("_call_upstream",),
    "httpx client / SSL context set-up": ("ssl.py:create_default_context", "httpx/_config.py"),
    "report / verification row stored (_store, objects.create)": (
        "verification/services/runs.py:_store",
        "django/db/models/query.py:QuerySet.create",
    ),
    "database (psycopg execute / connect)": ("psycopg/cursor.py", "psycopg/connection.py"),
    "ORM SQL compilation": ("django/db/models/sql/compiler.py",),
    "Django cache (Redis) get/set": ("django/core/cache/backends/redis.py",),
    "JSON Schema validation": ("jsonschema/",),
    "operator key lookup (operator_by_key)": ("operator_by_key",),
    "profile version check (tool_engine)": ("verification/services/tools.py:tool_engine",),
    "JSON parse / render": ("rest_framework/parsers.py", "rest_framework/renderers.py"),
    "middleware + DRF dispatch overhead": ("django/core/handlers/base.py",),
}


# --- Lua for wrk --------------------------------------------------------------------------------------

# Each wrk thread walks the prepared bodies from its own offset, so the threads do not send the
# same body at the same moment.
LUA_BODIES = (
    r"""
local counter = 0
local threads = 0
setup = function(thread)
  thread:set("tid", threads)
  threads = threads + 1
end

local bodies, path, headers, offset
init = function(args)
  bodies = {}
  for line in io.lines(args[1]) do
    if #line > 0 then bodies[#bodies + 1] = line end
  end
  path = args[2]
  headers = {["Content-Type"] = "application/json"}
  if args[3] ~= nil and #args[3] > 0 then headers["Authorization"] = "Bearer " .. args[3] end
  if args[4] ~= nil and #args[4] > 0 then headers["x-hallucination-action"] = args[4] end
  offset = (tid * 7919) % #bodies
end
request = function()
  local body = bodies[((counter + offset) % #bodies) + 1]
  counter = counter + 1
  return wrk.format("POST", path, headers, body)
end
"""
    + bh.LUA_DONE
)


# --- the upstream model (a child process) ---------------------------------------------------------------


def messages_key(messages: Any) -> str:
    text = json.dumps(messages, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


FALLBACK_ANSWER = "I could not find that in the tool results."


def upstream_serve(port: int, answers_file: Path) -> None:
    """An OpenAI chat-completions stand-in: the fixed final answer of the run the messages belong to."""
    answers: dict[str, str] = json.loads(answers_file.read_text())
    counts = {"hits": 0, "misses": 0}

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # Headers and body go out in separate writes: without TCP_NODELAY, Nagle's algorithm and
        # the client's delayed ACK hold every answer back by ~40 ms on a keep-alive connection.
        disable_nagle_algorithm = True

        def _send(self, status: int, payload: dict[str, Any]) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            self._send(200, counts)

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            try:
                body = json.loads(self.rfile.read(length))
            except ValueError:
                self._send(400, {"error": {"message": "not JSON"}})
                return
            content = answers.get(messages_key(body.get("messages")))
            if content is None:
                counts["misses"] += 1
                content = FALLBACK_ANSWER
            else:
                counts["hits"] += 1
            self._send(
                200,
                {
                    "id": "chatcmpl-bench",
                    "object": "chat.completion",
                    "created": int(time.time()),
                    "model": body.get("model", "bench-upstream"),
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": content},
                            "finish_reason": "stop",
                        }
                    ],
                    "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
                },
            )

        def log_message(self, format: str, *args: Any) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    server.daemon_threads = True

    def stop(signum: int, frame: object) -> None:
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, stop)
    try:
        server.serve_forever(poll_interval=0.5)
    finally:
        server.server_close()


@contextlib.contextmanager
def upstream(answers_file: Path, log: Path) -> Iterator[tuple[str, int]]:
    port = bh.free_port()
    cmd = [
        sys.executable,
        str(Path(__file__).resolve()),
        "upstream",
        "--port",
        str(port),
        "--answers",
        str(answers_file),
    ]
    with bh.background_server(
        cmd, port, env=None, log=log, ready_path="/stats", name="the upstream", start_timeout=30
    ) as up:
        yield up


def upstream_counts(base: str) -> dict[str, int]:
    with urllib.request.urlopen(f"{base}/stats", timeout=5) as answer:
        data: dict[str, int] = json.loads(answer.read())
        return data


# --- inputs from the eval files ---------------------------------------------------------------------------


def tool_inputs(limit: int) -> tuple[list[tuple[str, dict[str, Any]]], list[str]]:
    """The stream's profiles as REST bodies, and its first `limit` calls as request bodies."""
    profiles: list[tuple[str, dict[str, Any]]] = []
    calls: list[str] = []
    with TOOL_STREAM.open(encoding="utf-8") as lines:
        for raw in lines:
            line = json.loads(raw)
            if line.get("type") == "profile":
                profiles.append(
                    (line["tool"], {rest: line[key] for key, rest in PROFILE_FIELDS.items() if key in line})
                )
            elif line.get("type") == "call" and len(calls) < limit:
                body: dict[str, Any] = {
                    "tool": line["tool"],
                    "args": line.get("args"),
                    "result": line["result"],
                    "executionTimeMs": line["execution_time_ms"],
                }
                if line.get("session_id"):
                    body["sessionId"] = line["session_id"]
                calls.append(json.dumps(body, separators=(",", ":")))
    return profiles, calls


def run_inputs() -> tuple[list[str], list[str], dict[str, str]]:
    """Bodies for /verify/run, bodies for the proxy (minus the final answer), and the upstream's answers."""
    runs: list[str] = []
    proxied: list[str] = []
    answers: dict[str, str] = {}
    with GROUNDEDNESS.open(encoding="utf-8") as lines:
        for raw in lines:
            line = json.loads(raw)
            messages = line["messages"]
            runs.append(json.dumps({"messages": messages, "tools": line.get("tools")}, separators=(",", ":")))
            final = messages[-1]
            if final.get("role") != "assistant" or not isinstance(final.get("content"), str):
                continue
            asked = messages[:-1]
            answers[messages_key(asked)] = final["content"]
            body: dict[str, Any] = {"model": "bench-upstream", "messages": asked}
            if line.get("tools"):
                body["tools"] = line["tools"]
            proxied.append(json.dumps(body, separators=(",", ":")))
    return runs, proxied, answers


# --- server environment, database, Redis ---------------------------------------------------------------


def engine_env(upstream_base: str) -> dict[str, str]:
    env = bh.bench_env(conn_max_age=600)
    env.update(
        {
            "DATABASE_URL": f"postgres://postgres@127.0.0.1:5432/{DB_NAME}",
            "REDIS_URL": f"redis://127.0.0.1:6379/{REDIS_CACHE_DB}",
            "CELERY_BROKER_URL": f"redis://127.0.0.1:6379/{REDIS_BROKER_DB}",
            "TOOL_ENGINE_NAMESPACE": ENGINE_NAMESPACE,
            "RUN_PROXY_UPSTREAM_URL": f"{upstream_base}/v1",
            "RUN_PROXY_DEFAULT_ACTION": "header",
            "RUN_PROBE_ENDPOINT": "",
            "RUN_MODEL_PATH": "",
            # Counted (its UPDATE is part of each request's cost) but never reached by a run.
            "OPERATOR_DAILY_QUOTA": str(10**9),
        }
    )
    return env


def database_create() -> None:
    with bh._pg_connect() as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {DB_NAME} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {DB_NAME}")


def database_drop() -> None:
    with contextlib.suppress(Exception), bh._pg_connect() as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {DB_NAME} WITH (FORCE)")


def redis_flush() -> None:
    try:
        import redis
    except ImportError:
        return
    for db in (REDIS_CACHE_DB, REDIS_BROKER_DB):
        with contextlib.suppress(Exception):
            redis.Redis(host="127.0.0.1", port=6379, db=db).flushdb()


def rows_stored(table: str) -> int:
    with bh._pg_connect(DB_URL) as conn:
        row = conn.execute(f"SELECT count(*) FROM {table}").fetchone()
        return int(row[0]) if row else 0


class EngineCpuMeter(bh.CpuMeter):
    """bench_http's meter, for this database's backends, plus the upstream as its own group."""

    def __init__(self, master: int, upstream_pid: int) -> None:
        super().__init__(master)
        self.upstream_pid = upstream_pid

    def _groups(self) -> dict[str, list[int]]:
        with bh._pg_connect() as conn:
            backends = [
                int(r[0])
                for r in conn.execute(
                    "SELECT pid FROM pg_stat_activity WHERE datname = %s", (DB_NAME,)
                ).fetchall()
            ]
        return {
            "server": [self.master, *bh.children_of(self.master)],
            "postgres": backends,
            "redis": bh.pids_named("redis-server"),
            "upstream": [self.upstream_pid],
        }


def issue_operator_key(env: dict[str, str]) -> str:
    out = subprocess.run(
        [sys.executable, "manage.py", "create_operator_key", "--name", "bench"],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    # The first tro_ token is the key's prefix followed by an ellipsis; the plaintext comes last.
    for token in reversed(out.split()):
        if token.startswith("tro_") and token.isascii():
            return token
    raise RuntimeError("create_operator_key printed no tro_ key")


def register_profiles(base: str, key: str, profiles: list[tuple[str, dict[str, Any]]]) -> None:
    for tool, body in profiles:
        request = urllib.request.Request(
            f"{base}/api/v1/tools/{tool}/profile",
            data=json.dumps(body).encode(),
            method="PUT",
            headers={"Content-Type": "application/json", "Authorization": f"Bearer {key}"},
        )
        with urllib.request.urlopen(request, timeout=30) as answer:
            if answer.status != 200:
                raise RuntimeError(f"PUT profile {tool}: {answer.status}")


def probe(base: str, path: str, body: str, key: str, action: str = "") -> dict[str, Any]:
    """One request before the load: it must succeed, and its answer goes into the JSON as a sample."""
    headers = {"Content-Type": "application/json", "Authorization": f"Bearer {key}"}
    if action:
        headers["x-hallucination-action"] = action
    request = urllib.request.Request(f"{base}{path}", data=body.encode(), method="POST", headers=headers)
    with urllib.request.urlopen(request, timeout=60) as answer:
        data: dict[str, Any] = json.loads(answer.read())
        return data


# --- in-process numbers (bench_tools.py) -----------------------------------------------------------------


def in_process_tools(args: argparse.Namespace, work: Path) -> dict[str, Any] | None:
    if args.tools_json is not None:
        path = Path(args.tools_json)
        if not path.exists():
            return None
        data: dict[str, Any] = json.loads(path.read_text())
        data["source"] = f"{path} (an earlier run)"
        return data
    out = work / "tools_inprocess.json"
    print("running bench/bench_tools.py in process (one replay per engine) ...", flush=True)
    started = time.monotonic()
    proc = subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "bench_tools.py"),
            str(TOOL_STREAM),
            "--repeats",
            "1",
            "--out",
            str(out),
        ],
        cwd=ROOT,
        check=False,
        timeout=900,
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0 or not out.exists():
        print(f"bench_tools.py failed ({proc.returncode}): {proc.stderr[-1500:]}", flush=True)
        return None
    data = json.loads(out.read_text())
    data["source"] = "bench/bench_tools.py --repeats 1, run first in this invocation"
    data["wall_s"] = round(time.monotonic() - started, 1)
    data["load_average_after"] = list(os.getloadavg())
    return data


def side_by_side(tools: dict[str, Any] | None, runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """verify() through REST next to verify() in process: rate, p50/p99 and CPU per call."""
    rows: list[dict[str, Any]] = []
    rest = [r for r in runs if r["endpoint"] == "POST /api/v1/verify/tool-call"]
    in_proc = {r["engine"]: r for r in (tools or {}).get("rows", [])}
    memory = in_proc.get("ToolVerifier (memory store)")
    shared = in_proc.get("ToolVerifier (Redis store)")
    for name, row in (("in process, memory store", memory), ("in process, Redis store", shared)):
        if row is None:
            continue
        rows.append(
            {
                "path": name,
                "calls_per_s_wall": row["calls_per_second_wall"],
                "calls_per_s_per_core_by_cpu": row["calls_per_second"],
                "p50_ms": row["latency_ms"]["p50"],
                "p99_ms": row["latency_ms"]["p99"],
                "cpu_ms_per_call": row["mean_cpu_ms"],
                "concurrency": 1,
            }
        )
    for r in rest:
        cpu = r.get("cpu") or {}
        ms = (cpu.get("ms_per_request") or {}).get("service_total")
        rows.append(
            {
                "path": f"REST, {r['connections']} connections",
                "calls_per_s_wall": r["requests_per_s"],
                "calls_per_s_per_core_by_cpu": round(1000.0 / ms, 1) if ms else None,
                "p50_ms": r["latency_ms"]["p50"],
                "p99_ms": r["latency_ms"]["p99"],
                "cpu_ms_per_call": ms,
                "concurrency": r["connections"],
            }
        )
    for row in rows:
        for label, ref in (("memory", memory), ("redis", shared)):
            if ref and row["cpu_ms_per_call"]:
                row[f"cpu_cost_vs_in_process_{label}"] = round(row["cpu_ms_per_call"] / ref["mean_cpu_ms"], 1)
                row[f"wall_rate_vs_in_process_{label}"] = round(
                    row["calls_per_s_wall"] / ref["calls_per_second_wall"], 3
                )
    return rows


# --- the whole benchmark ---------------------------------------------------------------------------------


def run(args: argparse.Namespace) -> dict[str, Any]:
    bh.ensure_wrk()
    if not bh.postgres_available():
        raise SystemExit("PostgreSQL is not reachable at 127.0.0.1:5432 as user postgres")
    bh.PROFILE_BUCKETS = ENGINE_PROFILE_BUCKETS  # bench_http's py-spy summary, with this page's buckets
    info = bh.machine_info()
    work = Path(tempfile.mkdtemp(prefix="bench-engine-http-"))
    try:
        tools = in_process_tools(args, work)
        return _run_http(args, work, info, tools)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _run_http(
    args: argparse.Namespace, work: Path, info: dict[str, Any], tools: dict[str, Any] | None
) -> dict[str, Any]:
    config = bh.ServerConfig(
        server=args.server,
        workers=bh.server_workers(args),
        worker_class="gthread",
        threads=args.threads,
        keep_alive=5,
        conn_max_age=600,
    )
    profiles, calls = tool_inputs(args.tool_calls)
    run_bodies, proxy_bodies, answers = run_inputs()
    files = {
        "calls": work / "calls.jsonl",
        "runs": work / "runs.jsonl",
        "proxy": work / "proxy.jsonl",
        "answers": work / "answers.json",
        "script": work / "bodies.lua",
    }
    files["calls"].write_text("\n".join(calls) + "\n")
    files["runs"].write_text("\n".join(run_bodies) + "\n")
    files["proxy"].write_text("\n".join(proxy_bodies) + "\n")
    files["answers"].write_text(json.dumps(answers))
    files["script"].write_text(LUA_BODIES)
    results: list[bh.RunResult] = []
    samples: dict[str, Any] = {}
    upstream_info: dict[str, Any] = {}
    load_at_http_start = list(os.getloadavg())
    redis_flush()
    database_create()
    try:
        with upstream(files["answers"], work / "upstream.log") as (up_base, up_pid):
            env = engine_env(up_base)
            print(f"migrating {DB_NAME} ...", flush=True)
            subprocess.run(
                [sys.executable, "manage.py", "migrate", "--verbosity", "0"], cwd=ROOT, env=env, check=True
            )
            key = issue_operator_key(env)
            print(f"starting {config.describe()} ...", flush=True)
            with bh.http_server(config, env, work / "server.log") as (base, master):
                register_profiles(base, key, profiles)
                samples["tool_call"] = probe(base, "/api/v1/verify/tool-call", calls[0], key)
                samples["run"] = {
                    k: v
                    for k, v in probe(base, "/api/v1/verify/run", run_bodies[0], key).items()
                    if k in ("run_id", "action", "overall_score", "hallucination_detected", "request_type")
                }
                proxied = probe(base, "/v1/chat/completions", proxy_bodies[0], key, action="header")
                samples["proxy_choices"] = proxied.get("choices")
                plan: list[tuple[str, str, str, Path, str, str]] = [
                    # name, endpoint, path, bodies, base, action
                    (
                        "verify one tool call",
                        "POST /api/v1/verify/tool-call",
                        "/api/v1/verify/tool-call",
                        files["calls"],
                        base,
                        "",
                    ),
                    (
                        "verify one agent run",
                        "POST /api/v1/verify/run",
                        "/api/v1/verify/run",
                        files["runs"],
                        base,
                        "",
                    ),
                    (
                        "verifying proxy (chat completion)",
                        "POST /v1/chat/completions",
                        "/v1/chat/completions",
                        files["proxy"],
                        base,
                        "header",
                    ),
                    (
                        "upstream alone (no proxy)",
                        "POST upstream /v1/chat/completions",
                        "/v1/chat/completions",
                        files["proxy"],
                        up_base,
                        "",
                    ),
                ]
                for name, endpoint, path, bodies, target, action in plan:
                    alone = target == up_base
                    script_args = [str(bodies), path, "" if alone else key, action]
                    if not alone:
                        # Warm every worker on this endpoint (imports, the engine, connections).
                        bh.wrk_run(
                            name="warm-up",
                            base=target,
                            script=files["script"],
                            args=script_args,
                            connections=args.connections,
                            threads=2,
                            duration=2,
                            endpoint=endpoint,
                        )
                    levels = [args.connections] if alone else [args.light_connections, args.connections]
                    for connections in levels:
                        results.append(
                            _measure(
                                args,
                                work,
                                name=f"{name}, {connections} conns",
                                endpoint=endpoint,
                                target=target,
                                script=files["script"],
                                script_args=script_args,
                                connections=connections,
                                master=master,
                                upstream_pid=up_pid,
                                duration=min(args.duration, 5.0) if alone else args.duration,
                            )
                        )
                upstream_info = upstream_counts(up_base)
            stored = {
                "tool_verifications": rows_stored("verification_toolverification"),
                "run_verifications": rows_stored("verification_runverification"),
            }
    finally:
        database_drop()
        redis_flush()
    runs = [asdict(r) for r in results]
    return {
        "benchmark": "engine_http",
        "generated_at": datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
        "machine": {**info, "load_average_at_http_start": load_at_http_start},
        "load_average_at_end": list(os.getloadavg()),
        "server": {
            **asdict(config),
            "describe": config.describe(),
            "settings": "DEBUG=0, PostgreSQL, Redis cache + tool-engine store (db 12), Celery queued to "
            "Redis db 13 (no worker), RUN_PROXY_UPSTREAM_URL = a local stand-in upstream",
        },
        "inputs": {
            "tool_calls": len(calls),
            "tool_profiles": [tool for tool, _ in profiles],
            "runs": len(run_bodies),
            "proxied_runs": len(proxy_bodies),
            "tool_stream": str(TOOL_STREAM),
            "groundedness": str(GROUNDEDNESS),
        },
        "load_generator": "wrk (closed loop; latency from send to response, HDR percentiles)",
        "rows_stored": stored,
        "upstream": {
            "answered": upstream_info,
            "server": "http.server.ThreadingHTTPServer in its own process, a fixed answer per run",
        },
        "samples": samples,
        "runs": runs,
        "in_process_tools": tools,
        "tool_call_side_by_side": side_by_side(tools, runs),
        "in_process_runs_reference": _runs_reference(),
    }


def _measure(
    args: argparse.Namespace,
    work: Path,
    *,
    name: str,
    endpoint: str,
    target: str,
    script: Path,
    script_args: list[str],
    connections: int,
    master: int,
    upstream_pid: int,
    duration: float,
) -> bh.RunResult:
    print(f"  {name}: {duration:g} s ...", flush=True)
    bh.wait_idle(master)
    meter = EngineCpuMeter(master, upstream_pid)
    profile_on = args.profile and "upstream" not in endpoint
    slug = "".join(c if c.isalnum() else "-" for c in name)
    with bh.profiled(profile_on, master, duration, work / f"profile-{slug}.txt") as prof:
        result = bh.wrk_run(
            name=name,
            base=target,
            script=script,
            args=script_args,
            connections=connections,
            threads=min(2, connections),
            duration=duration,
            endpoint=endpoint,
            timeout=30,
            meter=meter,
        )
        bh.wait_idle(master)
        meter.stop()
    result.cpu = meter.report(result.ok_requests, 1)
    if result.cpu is not None and "upstream" in endpoint:
        # Only the upstream worked here: its CPU is the cost, not the (idle) service's.
        per = result.cpu["ms_per_request"]
        result.cpu["upstream_ms_per_request"] = per.get("upstream")
    if profile_on:
        result.profile = prof
    print(
        f"    {result.requests_per_s:,.1f} requests/s, p50 {result.latency_ms['p50']:.1f} ms, "
        f"p99 {result.latency_ms['p99']:.1f} ms, errors {sum(result.errors.values())}",
        flush=True,
    )
    return result


def _runs_reference() -> dict[str, Any] | None:
    """bench_runs.py's in-process verify_run figures (another run, other inputs), for context."""
    if not RUNS_JSON.exists():
        return None
    data = json.loads(RUNS_JSON.read_text())
    return {
        "source": str(RUNS_JSON.relative_to(ROOT)),
        "when": data.get("when"),
        "overall": data.get("overall"),
    }


# --- output ------------------------------------------------------------------------------------------------


def markdown(report: dict[str, Any]) -> str:
    m = report["machine"]
    lines = [
        f"Engine endpoints over HTTP: {report['server']['describe']}; {m['nproc']} cores, "
        f"load average {m['load_average_at_http_start'][0]:.2f} at the start of the HTTP runs, "
        f"{report['load_average_at_end'][0]:.2f} at the end",
        "",
        "| run | conns | requests/s | p50 ms | p90 ms | p99 ms | errors | service CPU ms/request "
        "| upstream CPU ms/request | 2 idle cores could do | others' CPU share |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in report["runs"]:
        lat = r["latency_ms"]
        cpu = r.get("cpu") or {}
        per = cpu.get("ms_per_request") or {}
        upstream_only = "upstream" in r["endpoint"]
        service = None if upstream_only else per.get("service_total")
        capacity = None if upstream_only else cpu.get("idle_machine_capacity_per_s")
        up = per.get("upstream")
        others = cpu.get("others_share_of_machine")
        lines.append(
            f"| {r['name']} | {r['connections']} | {r['requests_per_s']:,.1f} "
            f"| {lat['p50']:.1f} | {lat['p90']:.1f} | {lat['p99']:.1f} | {sum(r['errors'].values())} "
            f"| {'' if service is None else f'{service:.2f}'} "
            f"| {'' if up is None else f'{up:.2f}'} "
            f"| {'' if capacity is None else f'{capacity:,.0f}/s'} "
            f"| {'' if others is None else f'{others:.0%}'} |"
        )
    lines += [
        "",
        "verify() side by side (tool calls):",
        "",
        "| path | concurrency | calls/s (wall) | p50 ms | p99 ms | CPU ms per call | CPU cost vs in-process "
        "memory | vs Redis store |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for row in report["tool_call_side_by_side"]:
        cpu_ms = row["cpu_ms_per_call"]
        lines.append(
            f"| {row['path']} | {row['concurrency']} | {row['calls_per_s_wall']:,.1f} "
            f"| {row['p50_ms']:.2f} | {row['p99_ms']:.2f} | {'' if cpu_ms is None else f'{cpu_ms:.2f}'} "
            f"| {row.get('cpu_cost_vs_in_process_memory', '')}x "
            f"| {row.get('cpu_cost_vs_in_process_redis', '')}x |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command")
    up = sub.add_parser("upstream", help="(internal) serve the stand-in upstream model")
    up.add_argument("--port", type=int, required=True)
    up.add_argument("--answers", type=Path, required=True)

    bh.add_server_arguments(parser)
    parser.add_argument("--connections", type=int, default=bh.env_int("BENCH_ENGINE_CONNECTIONS", 8))
    parser.add_argument("--light-connections", type=int, default=bh.env_int("BENCH_LIGHT_CONNECTIONS", 2))
    parser.add_argument("--tool-calls", type=int, default=400, help="call lines taken from the stream")
    parser.add_argument(
        "--tools-json",
        default=None,
        help="reuse this bench_tools.py result instead of running bench_tools.py first",
    )
    parser.add_argument("--profile", action="store_true", help="sample the workers with py-spy")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    if args.command == "upstream":
        upstream_serve(args.port, args.answers)
        return 0
    report = run(args)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(markdown(report))
    print(f"\nwrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
