"""CPU per request of the hot reads (agent list variants, GET trust score), in process (issue 22).

    python bench/bench_scale.py --agents 100000 --keep        # once: seeds bench_scale_100000
    python bench/bench_read_cpu.py --agents 100000            # ms of CPU per request, per variant
    python bench/bench_read_cpu.py --agents 100000 --profile -score   # cProfile of one variant

The whole Django stack runs (middleware, DRF, the Redis cache, PostgreSQL on 127.0.0.1) through
django.test.Client with the benchmark's settings (bench_scale.bench_env: DEBUG off, rate limits off),
so the figure is the service's CPU for one answer without an HTTP server: process CPU time
(time.process_time) over `--requests` requests after a warm-up, divided by their number. PostgreSQL's
own time is not in it (another process). Throughput under wrk is bench_scale.py's job.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_scale


def _setup(agents: int) -> None:
    os.environ.update(bench_scale.bench_env(bench_scale.db_name(agents, kept=True)))
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
    os.environ["ALLOWED_HOSTS"] = "testserver,127.0.0.1,localhost"
    bench_scale._django()


def variants(client: object) -> dict[str, list[str]]:
    """name -> the paths one variant cycles through (the trust score: random agents)."""
    from registry.models import Agent

    get = client.get  # type: ignore[attr-defined]
    first = get("/api/v1/agents?ordering=-score").json()
    deep = first["next"].split("/api/v1/agents", 1)[1]
    for _ in range(20):
        deep = get("/api/v1/agents" + deep.split("/api/v1/agents", 1)[-1]).json()["next"]
        deep = deep.split("/api/v1/agents", 1)[1]
    subjects = list(Agent.objects.order_by("?").values_list("subject_id", flat=True)[:500])
    lists = {
        name: [f"/api/v1/agents?{query}"]
        for name, query in bench_scale.list_queries({"-score": ""}).items()
        if "cursor" not in query
    }
    lists["deep cursor"] = ["/api/v1/agents" + deep]
    lists["trust score"] = [f"/api/v1/agents/{s}/trust-score" for s in subjects]
    return lists


def cpu_ms(client: object, paths: list[str], requests: int) -> float:
    get = client.get  # type: ignore[attr-defined]
    for path in paths[:10]:
        assert get(path).status_code == 200, path
    rng = random.Random(7)
    chosen = [rng.choice(paths) for _ in range(requests)]
    start = time.process_time()
    for path in chosen:
        get(path)
    return (time.process_time() - start) * 1000 / requests


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--agents", type=int, default=100_000, help="the kept bench_scale_<N> database")
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--profile", metavar="VARIANT", help="cProfile this variant instead")
    parser.add_argument("--only", metavar="VARIANT", action="append", help="measure just these variants")
    args = parser.parse_args(argv)
    _setup(args.agents)
    from django.test import Client

    client = Client(HTTP_HOST="127.0.0.1")
    found = variants(client)
    if args.profile:
        paths = found[args.profile]
        cpu_ms(client, paths, 20)
        profiler = cProfile.Profile(time.process_time)
        profiler.enable()
        cpu_ms(client, paths, args.requests)
        profiler.disable()
        pstats.Stats(profiler).sort_stats(os.environ.get("PROFILE_SORT", "cumulative")).print_stats(40)
        return 0
    print(f"load average {os.getloadavg()[0]:.1f}; {args.requests} requests per variant")
    print("| variant | ms CPU per request |")
    print("|---|---|")
    for name, paths in found.items():
        if args.only and name not in args.only:
            continue
        print(f"| {name} | {cpu_ms(client, paths, args.requests):.2f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
