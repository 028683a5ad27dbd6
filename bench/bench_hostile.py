"""The worst requests an anonymous client and an operator can send, and what they cost the server.

Run from the repository root (needs PostgreSQL on 127.0.0.1:5432 and Redis on 127.0.0.1:6379)::

    python bench/bench_hostile.py                 # 5 repetitions of each request
    python bench/bench_hostile.py --repeat 3      # quicker

It starts granian as docker/entrypoint.sh does (one worker, one blocking thread, production settings:
DEBUG off, PostgreSQL, Redis) on a fresh database with 1,000 agents, then sends each request in turn,
one at a time, and reads the CPU time the server's processes spent on it from /proc/<pid>/stat (the
granian process tree only; the client's and PostgreSQL's time are not counted). A request's cost is the
median over the repetitions; the ratio compares it with the normal request of the same client.

- anonymous, normal: ``GET /api/v1/agents?limit=20``;
- anonymous, worst: ``GET /api/v1/agents?limit=1000`` (the largest page), and an 8 MiB body (the body
  cap) to ``POST /api/v1/attestations/verify``: arrays nested 63 deep (under the depth bound), side by
  side, and a wide array of small objects;
- operator, normal: ``POST /api/v1/verify/run`` with a 600-character answer against 3 K of tool JSON;
- operator, worst: the shapes of the issue 13 finding (10 K answer / 190 K JSON; 50 K / 1 MB) and an
  answer of 2,000 names against 10,000 records (right at RUN_MAX_CLAIMS and RUN_MAX_COMPARISONS),
  which the CPU budget (RUN_BUDGET_SECONDS) stops;
- operator, scan: normal is ``POST /api/v1/scan`` of a 600-character support ticket with redaction; the
  worst are 200,000 characters (MAX_SCAN_CHARS) shaped for each pass of the PII engine: distinct made-up
  names side by side, speaker lines ("Name Surname: ..."), address lines, digit groups shaped like phone
  numbers, each scanned with redaction (the names pass was quadratic in the number of names once).

Writes bench/results/hostile.json and prints a markdown table.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import bench_http  # noqa: E402 - the server, database and CPU helpers of the HTTP benchmark

RESULTS = ROOT / "bench" / "results" / "hostile.json"
DB_NAME = "bench_hostile"
BODY_CAP = 8 * 1024 * 1024
PLACES = ["Oslo", "Lima", "Perth", "Quito", "Dakar", "Hanoi", "Bergen", "Cusco", "Turin", "Leeds"]


def bench_env() -> dict[str, str]:
    env = bench_http.bench_env(conn_max_age=60)
    cache_db = os.environ.get("BENCH_REDIS_DB", "13")
    broker_db = os.environ.get("BENCH_BROKER_DB", "13")
    env.update(
        {
            "DATABASE_URL": f"postgres://postgres@127.0.0.1:5432/{DB_NAME}",
            "REDIS_URL": f"redis://127.0.0.1:6379/{cache_db}",
            "CELERY_BROKER_URL": f"redis://127.0.0.1:6379/{broker_db}",
            "CELERY_TASK_ALWAYS_EAGER": "1",
            "ALLOWED_HOSTS": "127.0.0.1",
        }
    )
    return env


# --- the requests -------------------------------------------------------------------------------------


def run_of(answer_chars: int, tool_chars: int, seed: int = 1) -> list[dict[str, Any]]:
    """A long answer full of prices, counts, dates, times and names against one tool result of many
    records with the same kinds of values (the shape of the issue 13 finding)."""
    rng = random.Random(seed)
    records, size, i = [], 2, 0
    while size < tool_chars:
        record = {
            "id": f"SKU-{i:06d}",
            "name": f"{rng.choice(PLACES)} Widget {i}",
            "price": round(rng.uniform(1, 5000), 2),
            "qty": rng.randrange(1000),
            "date": f"2024-{rng.randrange(1, 13):02d}-{rng.randrange(1, 28):02d}",
            "time": f"{rng.randrange(24):02d}:{rng.randrange(60):02d}",
            "pct": rng.randrange(100),
        }
        records.append(record)
        size += len(json.dumps(record)) + 2
        i += 1
    parts, n = [], 0
    while n < answer_chars:
        sentence = (
            f"{rng.choice(PLACES)} Widget {rng.randrange(9999)} costs ${rng.uniform(1, 5000):.2f} with "
            f"{rng.randrange(1000)} units, {rng.randrange(100)}% off on March {rng.randrange(1, 28)}, "
            f"2024 at {rng.randrange(1, 12)}:{rng.randrange(60):02d} PM, {rng.randrange(50)} km away. "
        )
        parts.append(sentence)
        n += len(sentence)
    return _messages(json.dumps({"items": records}), "".join(parts)[:answer_chars])


def names_run(names: int, records: int, seed: int = 2) -> list[dict[str, Any]]:
    """An answer of made-up names (each looked up word by word, then fuzzily, in the evidence's
    vocabulary) against records of other made-up words: the most matching work per checkable value."""
    rng = random.Random(seed)

    def word() -> str:
        return "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randrange(6, 10)))

    rows = [{"name": word(), "city": word()} for _ in range(records)]
    answer = " ".join(f"{word().capitalize()} met {word().capitalize()}." for _ in range(names // 2))
    return _messages(json.dumps({"rows": rows}), answer)


TICKET = (
    "Hi, this is Maria Gonzalez from the Leeds office. My order 48213 never arrived at 14 Harbour Road, "
    "Leeds LS1 4AB. Please call me on +44 113 496 0000 or write to maria.gonzalez@example.com. I paid with "
    "the card ending 4242 on March 3. My colleague John Smith had the same problem last week, and Ana "
    "Pereira from Lisbon says the courier left a note. Can you refund it or send a new one? Thanks, Maria. "
)


def scan_texts(chars: int = 200_000, seed: int = 3) -> dict[str, str]:
    """Texts of ``chars`` characters, each the worst case we know for one pass of the PII engine."""
    rng = random.Random(seed)

    def word() -> str:
        return "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randrange(4, 9)))

    def fill(unit: Any) -> str:
        parts, n = [], 0
        while n < chars:
            part = unit()
            parts.append(part)
            n += len(part)
        return "".join(parts)[:chars]

    return {
        "names": fill(lambda: f"{word().capitalize()} {word().capitalize()}, "),
        "speakers": fill(lambda: f"{word().capitalize()} {word().capitalize()}: see you then\n"),
        "addresses": fill(
            lambda: (
                f"{rng.randrange(1, 9999)} N {word().capitalize()} Dr, {rng.choice(PLACES)}, "
                f"IL {rng.randrange(10000, 99999)}\n"
            )
        ),
        "phones": fill(
            lambda: f"{rng.randrange(200, 999)} {rng.randrange(1000, 9999)} {rng.randrange(100, 999)} "
        ),
    }


def _messages(tool: str, answer: str) -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": "What are the prices and who was there?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "lookup", "arguments": "{}"}}
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": tool},
        {"role": "assistant", "content": answer},
    ]


def deep_wide_body() -> bytes:
    """About 8 MiB of JSON: arrays nested 63 deep, side by side (the deepest the bound lets through)."""
    unit = b"[" * 63 + b"]" * 63
    count = (BODY_CAP - 1024) // (len(unit) + 1)
    return b"[" + b",".join([unit] * count) + b"]"


def wide_body() -> bytes:
    item = b'{"agent":"x","score":0.5,"signature":"0x00"}'
    count = (BODY_CAP - 1024) // (len(item) + 1)
    return b"[" + b",".join([item] * count) + b"]"


# --- measuring ---------------------------------------------------------------------------------------


def tree_cpu(root: int) -> tuple[float, float]:
    """CPU seconds of ``root`` and all its descendants (granian's master and worker processes), two ways:
    summed over their live threads from ``/proc/<pid>/task/<tid>/schedstat`` (nanoseconds; ``stat`` counts
    10 ms ticks, too coarse for a normal request), and from each process's ``stat`` (utime + stime, in
    ticks, which keeps the time of threads that have ended: a request whose work ran on a thread that
    ended before the second reading lost it from the first sum, and read as negative)."""
    threads, ticks = 0, 0
    stack = [root]
    while stack:
        pid = stack.pop()
        for task in Path(f"/proc/{pid}/task").glob("*"):
            try:
                threads += int((task / "schedstat").read_text().split()[0])
            except (OSError, ValueError, IndexError):
                continue  # a thread that ended meanwhile
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            ticks += int(fields[11]) + int(fields[12])
        except (OSError, ValueError, IndexError):
            pass
        stack.extend(bench_http.children_of(pid))
    return threads / 1e9, ticks / os.sysconf("SC_CLK_TCK")


def cpu_between(before: tuple[float, float], after: tuple[float, float]) -> float:
    """The threads' sum, unless the ticks say more time was spent than it shows (by more than their
    granularity): then a thread ended in between, and the ticks are the better figure."""
    threads, ticks = after[0] - before[0], after[1] - before[1]
    return ticks if ticks > threads + 0.02 else threads


def send(base: str, method: str, path: str, body: bytes | None, key: str | None) -> tuple[int, str]:
    headers = {"Content-Type": "application/json"}
    if key:
        headers["Authorization"] = f"Bearer {key}"
    request = urllib.request.Request(base + path, data=body, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=600) as answer:
            return answer.status, ""
    except urllib.error.HTTPError as err:
        problem = err.read()[:2000]
        try:
            kind = json.loads(problem).get("type", "")
        except ValueError:
            kind = ""
        return err.code, str(kind)


def measure(base: str, pid: int, case: dict[str, Any], key: str | None, repeat: int) -> dict[str, Any]:
    cpu, wall, statuses = [], [], set()
    body = case["body"]
    send(base, case["method"], case["path"], body, key)  # warm: the first request of a path imports
    for _ in range(repeat):
        time.sleep(0.2)  # granian's idle housekeeping settles
        before, started = tree_cpu(pid), time.perf_counter()
        status, kind = send(base, case["method"], case["path"], body, key)
        wall.append(time.perf_counter() - started)
        cpu.append(cpu_between(before, tree_cpu(pid)))
        statuses.add(f"{status} {kind}".strip())
    return {
        "client": case["client"],
        "request": case["name"],
        "body_bytes": len(body) if body else 0,
        "status": sorted(statuses),
        "server_cpu_ms": round(statistics.median(cpu) * 1000, 2),
        "server_cpu_ms_max": round(max(cpu) * 1000, 2),
        "wall_ms": round(statistics.median(wall) * 1000, 1),
    }


def cases() -> list[dict[str, Any]]:
    def run_body(messages: list[dict[str, Any]]) -> bytes:
        return json.dumps({"messages": messages}).encode()

    shapes: list[dict[str, Any]] = [
        {"client": "anonymous", "name": "normal: GET /api/v1/agents?limit=20", "method": "GET",
         "path": "/api/v1/agents?limit=20", "body": None, "normal": True},
        {"client": "anonymous", "name": "GET /api/v1/agents?limit=1000 (largest page)", "method": "GET",
         "path": "/api/v1/agents?limit=1000", "body": None},
        {"client": "anonymous", "name": "8 MiB of arrays nested 63 deep to attestations/verify",
         "method": "POST", "path": "/api/v1/attestations/verify", "body": deep_wide_body()},
        {"client": "anonymous", "name": "8 MiB wide array of objects to attestations/verify",
         "method": "POST", "path": "/api/v1/attestations/verify", "body": wide_body()},
        {"client": "operator", "name": "normal: verify/run, 600-char answer / 3 K JSON", "method": "POST",
         "path": "/api/v1/verify/run", "body": run_body(run_of(600, 3_000)), "normal": True},
        {"client": "operator", "name": "verify/run, 10 K answer / 190 K JSON (the finding: 92 s)",
         "method": "POST", "path": "/api/v1/verify/run", "body": run_body(run_of(10_000, 190_000))},
        {"client": "operator", "name": "verify/run, 50 K answer / 1 MB JSON (the finding: hours)",
         "method": "POST", "path": "/api/v1/verify/run", "body": run_body(run_of(50_000, 1_000_000))},
        {"client": "operator", "name": "verify/run, 2,000 unknown names / 4,900 records (at the caps)",
         "method": "POST", "path": "/api/v1/verify/run", "body": run_body(names_run(2_000, 4_900))},
        {"client": "operator (scan)", "name": "normal: scan, 600-char ticket, redacted", "method": "POST",
         "path": "/api/v1/scan", "body": scan_body(TICKET * 2), "normal": True},
    ]  # fmt: skip
    return shapes + [
        {"client": "operator (scan)", "name": f"scan, 200 K of {shape}, redacted", "method": "POST",
         "path": "/api/v1/scan", "body": scan_body(text)}
        for shape, text in scan_texts().items()
    ]  # fmt: skip


def scan_body(text: str) -> bytes:
    return json.dumps({"text": text, "redact": True}).encode()


# --- set-up --------------------------------------------------------------------------------------------


def seed(out: Path) -> None:
    """In a child process with the benchmark's environment: migrate, 1,000 agents, an operator key."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    bench_http.seed(1_000, 2, 20, out)
    from verification.services.tools import operator_key_create

    (out / "operator.txt").write_text(operator_key_create(name="bench hostile").plaintext)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed-into", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.seed_into:
        seed(args.seed_into)
        return 0
    env = bench_env()
    work = ROOT / "var" / "bench-hostile"
    work.mkdir(parents=True, exist_ok=True)
    with bench_http._pg_connect() as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {DB_NAME} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {DB_NAME}")
    try:
        subprocess.run([sys.executable, __file__, "--seed-into", str(work)], cwd=ROOT, env=env, check=True)
        key = (work / "operator.txt").read_text().strip()
        config = bench_http.ServerConfig("granian", 1, "", 1, 0, 60)
        rows = []
        with bench_http.http_server(config, env, work / "server.log") as (base, pid):
            for case in cases():
                repeat = args.repeat * 4 if "normal" in case else args.repeat
                row = measure(base, pid, case, key if case["client"].startswith("operator") else None, repeat)
                rows.append(row)
                print(json.dumps(row), flush=True)
    finally:
        with bench_http._pg_connect() as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {DB_NAME} WITH (FORCE)")
    normal = {r["client"]: r["server_cpu_ms"] for r, c in zip(rows, cases(), strict=True) if c.get("normal")}
    for row in rows:
        base_ms = max(normal[row["client"]], 0.1)
        row["ratio_to_normal"] = round(row["server_cpu_ms"] / base_ms, 1)
    env_used = {
        k: env.get(k, "default") for k in ("RUN_BUDGET_SECONDS", "RUN_MAX_CLAIMS", "RUN_MAX_COMPARISONS")
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(
        json.dumps(
            {"machine": bench_http.machine_info(), "server": config.describe(), "settings": env_used,
             "repeat": args.repeat, "rows": rows},
            indent=2,
        )
        + "\n"
    )  # fmt: skip
    print("\n| client | request | status | server CPU ms (median) | max | x normal |")
    print("| --- | --- | --- | ---: | ---: | ---: |")
    for r in rows:
        print(
            f"| {r['client']} | {r['request']} | {', '.join(r['status'])} | {r['server_cpu_ms']} | "
            f"{r['server_cpu_ms_max']} | {r['ratio_to_normal']} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
