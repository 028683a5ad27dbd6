"""Benchmark the HCS-25 scoring maths: numpy over many agents vs the scalar path.

Run from the repository root::

    python bench/bench_scoring.py                 # 1,000,000 agents x 3 providers
    python bench/bench_scoring.py --agents 100000 --sample 1000

Prints a markdown table and writes bench/results/scoring.json.  Input generation is not
timed; the numpy time is the best of ``--repeat`` runs; the scalar time is measured on
``--sample`` agents (also checked to give identical numbers) and extrapolated.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from adapters import (
    FeedbackSummary,
    ProviderSummary,
    ScoringParams,
    Subject,
    score_batch,
    score_subject,
)
from adapters.params import STAKE_LEVELS

RESULTS = Path(__file__).resolve().parent / "results" / "scoring.json"


def make_inputs(agents: int, providers: int, seed: int) -> dict[str, Any]:
    """Random but realistic inputs: decimal rates, some absent providers and stake data."""
    rng = np.random.default_rng(seed)
    shape = (agents, providers)
    block = rng.integers(0, 31, shape) / 100
    allow = np.minimum(rng.integers(40, 101, shape) / 100, 1.0 - block)
    confidence = rng.integers(50, 100, shape) / 100
    checks = rng.integers(0, 2000, shape).astype(np.int64)
    stakes = rng.integers(0, 200, (*shape, 4)).astype(np.int64)
    stakes[rng.random(shape) < 0.3] = 0  # 30% of summaries carry no stake data
    mask = rng.random(shape) < 0.9
    registry_erc = rng.random(agents) < 0.5
    return {
        "allow": allow,
        "block": block,
        "confidence": confidence,
        "checks": checks,
        "stake_checks": stakes,
        "mask": mask,
        "feedback_average": rng.integers(0, 10001, agents) / 100,
        "feedback_count": np.where(rng.random(agents) < 0.7, rng.integers(1, 300, agents), 0).astype(
            np.int64
        ),
        "ov_registry_ok": np.ones(agents, dtype=bool),
        "feedback_registry_ok": registry_erc,
    }


def scalar_scores(inputs: dict[str, Any], rows: range, params: ScoringParams) -> list[float]:
    scores = []
    for i in rows:
        summaries = []
        for j in range(inputs["checks"].shape[1]):
            stake = {level: int(inputs["stake_checks"][i, j, k]) for k, level in enumerate(STAKE_LEVELS)}
            summaries.append(
                ProviderSummary(
                    f"p{j}",
                    float(inputs["allow"][i, j]),
                    float(inputs["block"][i, j]),
                    None,
                    float(inputs["confidence"][i, j]),
                    int(inputs["checks"][i, j]),
                    stake,
                    excluded_reason=None if inputs["mask"][i, j] else "suspended",
                )
            )
        count = int(inputs["feedback_count"][i])
        feedback = FeedbackSummary(float(inputs["feedback_average"][i]), count) if count else None
        registry = "erc-8004" if inputs["feedback_registry_ok"][i] else "hcs-10"
        subject = Subject(f"a{i}", registry)
        record = score_subject(subject, summaries=summaries, feedback=feedback, params=params)
        scores.append(record.trust_score)
    return scores


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", type=int, default=1_000_000)
    parser.add_argument("--providers", type=int, default=3)
    parser.add_argument("--sample", type=int, default=2000, help="agents scored with the scalar path")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=25)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)

    params = ScoringParams()
    inputs = make_inputs(args.agents, args.providers, args.seed)
    load_before = os.getloadavg()[0]
    timings = []
    cpu_timings = []
    batch = None
    for _ in range(args.repeat):
        start, cpu_start = time.perf_counter(), time.process_time()
        batch = score_batch(**inputs, params=params)
        timings.append(time.perf_counter() - start)
        cpu_timings.append(time.process_time() - cpu_start)
    assert batch is not None
    numpy_best = min(timings)

    sample = range(min(args.sample, args.agents))
    start = time.perf_counter()
    scalar = scalar_scores(inputs, sample, params)
    scalar_time = time.perf_counter() - start
    mismatches = int(np.count_nonzero(np.array(scalar) != batch.trust_score[: len(scalar)]))
    scalar_per_agent = scalar_time / len(scalar)
    numpy_per_agent = numpy_best / args.agents

    result = {
        "command": "python bench/bench_scoring.py " + " ".join(argv if argv is not None else sys.argv[1:]),
        "agents": args.agents,
        "providers": args.providers,
        "numpy_seconds_best": round(numpy_best, 4),
        "numpy_seconds_all": [round(t, 4) for t in timings],
        "numpy_cpu_seconds_best": round(min(cpu_timings), 4),
        "numpy_agents_per_second": round(args.agents / numpy_best),
        "scalar_sample": len(scalar),
        "scalar_seconds": round(scalar_time, 4),
        "scalar_agents_per_second": round(1 / scalar_per_agent),
        "scalar_seconds_extrapolated": round(scalar_per_agent * args.agents, 1),
        "speedup": round(scalar_per_agent / numpy_per_agent, 1),
        "scalar_vs_numpy_mismatches": mismatches,
        "ov_applicable_share": round(float(np.mean(batch.ov_applicable)), 4),
        "mean_trust_score": round(float(np.mean(batch.trust_score)), 4),
        # Wall times depend on what else runs on the machine; the load says how busy it was.
        "load_average_1m": [round(load_before, 2), round(os.getloadavg()[0], 2)],
        "machine": {
            "python": platform.python_version(),
            "numpy": np.__version__,
            "cpus": os.cpu_count(),
            "platform": platform.platform(),
        },
    }
    numpy_rate = result["numpy_agents_per_second"]
    scalar_rate = result["scalar_agents_per_second"]
    rows = [
        ("agents x providers", f"{args.agents:,} x {args.providers}"),
        (f"numpy, best of {args.repeat}", f"{numpy_best:.3f} s ({numpy_rate:,} agents/s)"),
        ("numpy, CPU time (best)", f"{min(cpu_timings):.3f} s"),
        ("scalar, sample", f"{len(scalar):,} agents in {scalar_time:.3f} s ({scalar_rate:,}/s)"),
        ("scalar, extrapolated", f"{result['scalar_seconds_extrapolated']:,} s"),
        ("speed-up numpy / scalar", f"{result['speedup']:,}x"),
        ("scalar vs numpy mismatches", str(mismatches)),
        ("load average (1 min) before / after", " / ".join(f"{x:.2f}" for x in result["load_average_1m"])),
    ]
    print("| measure | value |\n|---|---|")
    for name, value in rows:
        print(f"| {name} | {value} |")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"\nwrote {args.out}")
    return 0 if mismatches == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
