"""What the word index of the agent search costs the writes that keep it (issue 22, registry/search.py).

    python bench/bench_search_terms.py [--agents 20000] [--rounds 3]

Creates a throw-away database `bench_search_terms` (dropped afterwards), migrates it, inserts AGENTS
agents named as bench_scale.py names them (six words each), then times, alternately in the same
minutes, the same UPDATE of every agent's trust_rank (what a full rescore does to each agent, in
statements of 1,000 agents) with the search-term trigger enabled and disabled (the trust_rank
trigger is disabled in both: the rank is set directly). The difference is what the index adds per
rescored agent; a rename or a new agent writes its rows once. Prints JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import psycopg

ROOT = Path(__file__).resolve().parent.parent
NAME = "bench_search_terms"
URL = f"postgresql://postgres@127.0.0.1:5432/{NAME}"
CHUNK = 1000

_SEED = """
INSERT INTO registry_agent (subject_id, name, registry, protocol, owner_address, wallet_address,
                            auto_registered, created_at)
SELECT 'scale:agent-' || lpad(g::text, 7, '0'),
       (ARRAY['Swift', 'Calm', 'Bright'])[g %% 3 + 1] || ' '
           || (ARRAY['weather', 'chess', 'travel', 'code'])[g %% 4 + 1] || ' agent ' || g,
       'other', '', '', '', false, now()
FROM generate_series(1, %(agents)s) g
"""
_RESCORE = (
    "UPDATE registry_agent SET trust_rank = (id * 7 + %(round)s) %% 100 WHERE id > %(low)s AND id <= %(high)s"
)
_TRIGGER = "registry_agent_search_terms_update"


def _rescore(conn: psycopg.Connection[Any], *, agents: int, round_: int) -> float:
    low = conn.execute("SELECT min(id) - 1 FROM registry_agent").fetchone()[0]  # type: ignore[index]
    started = time.perf_counter()
    for start in range(low, low + agents, CHUNK):
        conn.execute(_RESCORE, {"round": round_, "low": start, "high": start + CHUNK})
    return (time.perf_counter() - started) * 1000 / agents


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--agents", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    admin = "postgresql://postgres@127.0.0.1:5432/postgres"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {NAME} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {NAME}")
    try:
        env = {**os.environ, "DATABASE_URL": URL.replace("postgresql", "postgres"), "SECRET_KEY": "bench"}
        env.setdefault("CELERY_BROKER_URL", "memory://")
        subprocess.run([sys.executable, "manage.py", "migrate", "-v", "0"], cwd=ROOT, env=env, check=True)
        with psycopg.connect(URL, autocommit=True) as conn:
            conn.execute(_SEED, {"agents": args.agents})
            conn.execute("ALTER TABLE registry_agent DISABLE TRIGGER registry_agent_trust_rank")
            conn.execute("VACUUM ANALYZE")
            rows = conn.execute("SELECT count(*) FROM registry_agentsearchterm").fetchone()[0]  # type: ignore[index]
            with_index: list[float] = []
            without: list[float] = []
            for r in range(args.rounds):
                conn.execute(f"ALTER TABLE registry_agent ENABLE TRIGGER {_TRIGGER}")
                with_index.append(_rescore(conn, agents=args.agents, round_=2 * r + 1))
                conn.execute(f"ALTER TABLE registry_agent DISABLE TRIGGER {_TRIGGER}")
                without.append(_rescore(conn, agents=args.agents, round_=2 * r + 2))
            load = os.getloadavg()[0]
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {NAME} WITH (FORCE)")
    print(
        json.dumps(
            {
                "agents": args.agents,
                "index_rows_per_agent": round(rows / args.agents, 2),
                "ms_per_agent_with_index": [round(v, 3) for v in with_index],
                "ms_per_agent_without": [round(v, 3) for v in without],
                "added_ms_per_agent_median": round(
                    statistics.median(with_index) - statistics.median(without), 3
                ),
                "load_average_after": load,
            },
            indent=2,
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
