"""Rating the raters at scale: the time to rate one agent's reviewers (clusters, agreement, standing).

    python bench/bench_sybil.py [--reviewers 2000] [--ring 500] [--repeats 3]

Pure Python (adapters.sybil), no database. The world: REVIEWERS honest reviewers who each rated the
agent and three of 200 other agents (their own draws, near a per-agent consensus), and a RING of wallets
that rated the agent and the same five other agents (a co-rating cluster). Prints the median time of
`reviewer_standings` for the agent over REPEATS runs, in JSON. To compare with another version of the
module, run this file with that version's checkout first on PYTHONPATH (docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parent.parent))

from adapters.sybil import Rating, SybilParams, reviewer_standings


def world(reviewers: int, ring: int, seed: int = 7) -> list[Rating]:
    rng = random.Random(seed)
    others = [f"agent-{i}" for i in range(200)]
    consensus = {other: rng.uniform(40, 90) for other in others}
    ratings = []
    for i in range(reviewers):
        address = f"0xh{i:06d}"
        for other in rng.sample(others, 3):
            ratings.append(Rating(address, other, consensus[other] + rng.uniform(-5, 5)))
        ratings.append(Rating(address, "target", rng.uniform(50, 90)))
    for i in range(ring):
        address = f"0xs{i:06d}"
        for other in others[:5]:
            ratings.append(Rating(address, other, 100))
        ratings.append(Rating(address, "target", 100))
    return ratings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reviewers", type=int, default=2000)
    parser.add_argument("--ring", type=int, default=500)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    ratings = world(args.reviewers, args.ring)
    ages = {r.reviewer: 60.0 for r in ratings}
    times = []
    for _ in range(args.repeats):
        started = time.perf_counter()
        standings = reviewer_standings(
            ratings, subject="target", excluded=(), age_days=ages, params=SybilParams()
        )
        times.append(time.perf_counter() - started)
    largest = max(s.cluster_size for s in standings)
    print(
        json.dumps(
            {
                "reviewers": args.reviewers + args.ring,
                "ratings": len(ratings),
                "median_s": round(statistics.median(times), 3),
                "largest_cluster": largest,
            }
        )
    )


if __name__ == "__main__":
    main()
