"""Every run report of the evaluation sets, one JSON line each, for checking that a speed change is exact.

Run from the repository root, before and after a change, and compare the two files byte for byte::

    python bench/dump_run_reports.py --out /tmp/before.jsonl
    python bench/dump_run_reports.py --out /tmp/after.jsonl && cmp /tmp/before.jsonl /tmp/after.jsonl

The reports are those of every line of ``bench/corpora/runs/*.jsonl`` (the Makefile's ``RUN_SETS``), of
``../shared/eval/{groundedness_dev,tooltalk_dev,halueval_qa_dev}.jsonl``, of the 200 long runs of seed 14
(``make evaluate-runs``' set), of 30 runs per short size of ``bench_runs.py`` and of two shapes of
``bench_hostile.py``: the full ``to_dict()`` of each, without its latency keys.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_hostile import run_of  # noqa: E402
from bench_runs import SIZES, make_run  # noqa: E402
from long_runs import make_long_run  # noqa: E402

from verification.engine.runs import verify_run  # noqa: E402

SHARED = ROOT.parent / "shared" / "eval"


def _strip(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if "latency" not in k}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


def _report(messages: list[dict[str, Any]], tools: Any = None) -> str:
    try:
        report = verify_run(messages, tools)
    except ValueError as exc:
        return "ERR " + str(exc)
    return json.dumps(_strip(report.to_dict()), sort_keys=True, default=str)


def main(argv: list[str] | None = None) -> int:
    """Write the reports."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    files = sorted(p for p in (ROOT / "bench" / "corpora" / "runs").glob("*.jsonl") if ".meta." not in p.name)
    files += [SHARED / f"{name}.jsonl" for name in ("groundedness_dev", "tooltalk_dev", "halueval_qa_dev")]
    with args.out.open("w") as out:
        for path in files:
            for line in path.open():
                item = json.loads(line)
                out.write(_report(item["messages"], item.get("tools")) + "\n")
        long_rng = random.Random(14)
        for _ in range(200):
            out.write(_report(make_long_run(long_rng)) + "\n")
        rng = random.Random(5)
        for size, words in SIZES.values():
            for _ in range(30):
                out.write(_report(make_run(rng, size, words)) + "\n")
        for shape in ((600, 3_000), (3_000, 40_000)):
            out.write(_report(run_of(*shape)) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
