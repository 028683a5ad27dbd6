"""The long customer-service runs of the latency benchmark are what they claim to be (issue 14)."""

from __future__ import annotations

import importlib.util
import json
import random
from pathlib import Path
from types import ModuleType

from verification.engine.runs import verify_run

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "long_runs.py"


def _module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_long_runs", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_it_generates_long_runs_of_the_stated_shape_from_a_fixed_seed() -> None:
    make = _module().make_long_run
    runs = [make(random.Random(14)) for _ in range(2)]
    assert runs[0] == runs[1]  # the seed fixes the set
    rng = random.Random(14)
    for run in (make(rng) for _ in range(60)):
        assert 15 <= len(run) <= 40
        assert 10_000 <= len(json.dumps(run)) <= 40_000
        assert run[-1]["role"] == "assistant" and run[-1]["content"]
        assert sum(m["role"] == "tool" for m in run) >= 4
        # Every tool result answers a call of the run, so the verifier reads them as evidence.
        report = verify_run(run)
        assert report.fact_check_needed and not report.unverified_factual
