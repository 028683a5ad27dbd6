"""A fixed workload of ``verify_run`` for counting instructions, which other load on the machine does not
change (unlike the timings of ``bench_runs.py`` on a shared machine).

Run it under callgrind, collecting only inside ``verify_run`` (the compiled engine's function)::

    valgrind --tool=callgrind --toggle-collect='CPyDef_verify___verify_run' \\
        .venv/bin/python bench/count_runs.py --only long --runs 20
    valgrind --tool=callgrind --toggle-collect='CPyDef_verify___verify_run' \\
        .venv/bin/python bench/count_runs.py --only short --runs 20

and read "Collected" (``callgrind_annotate --inclusive=yes`` shows where it goes). Interpreted, that
symbol does not exist: add ``--via-reduce`` and collect ``--toggle-collect=functools_reduce``. The runs are
``bench_runs.py``'s, from its seeds (short: 5, long: 14); like it, the first five runs of the workload are
verified once beforehand, so the memo caches hold what a warm process holds. The warm-up goes through
``verify._verify``, which callgrind does not collect; the workload then calls ``verify_run`` once per run
(``--runs`` per short size, or long runs).
"""

from __future__ import annotations

import argparse
import functools
import random
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_runs import LONG_SEED, SIZES, make_run  # noqa: E402
from long_runs import make_long_run  # noqa: E402

from verification.engine.budget import UNLIMITED  # noqa: E402
from verification.engine.runs import verify_run  # noqa: E402
from verification.engine.runs.config import RunVerifierConfig  # noqa: E402
from verification.engine.runs.verify import _verify  # noqa: E402


def _warm(run: list[dict[str, Any]]) -> None:
    # Not through verify_run: callgrind collects only inside it.
    _verify(run, None, RunVerifierConfig(), None, UNLIMITED)


def workload(only: str, count: int) -> list[list[dict[str, Any]]]:
    """The runs of the workload (``only``: "short", ``count`` runs per short size; "long", ``count`` long
    runs), the engine warmed up on a first run and on the first five of them. Shared with
    ``pattern_costs.py``, which records the pattern calls of the same runs."""
    rng = random.Random(5)
    _warm(make_run(rng, 2_000, 60))
    runs: list[list[dict[str, Any]]] = []
    if only == "short":
        for size, words in SIZES.values():
            runs += [make_run(rng, size, words) for _ in range(count)]
    else:
        long_rng = random.Random(LONG_SEED)
        runs = [make_long_run(long_rng) for _ in range(count)]
    for run in runs[:5]:
        _warm(run)
    return runs


def main(argv: list[str] | None = None) -> int:
    """Build the runs, warm up, then verify each run once."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=20, help="runs per short size, or long runs")
    parser.add_argument("--only", choices=["short", "long"], default="long")
    parser.add_argument(
        "--via-reduce",
        action="store_true",
        help="call verify_run inside functools.reduce, so that an interpreted run can be collected with "
        "--toggle-collect=functools_reduce (the compiled symbol does not exist without mypyc)",
    )
    args = parser.parse_args(argv)
    runs = workload(args.only, args.runs)
    if args.via_reduce:
        functools.reduce(_verify_next, runs, None)
        return 0
    for run in runs:
        verify_run(run)
    return 0


def _verify_next(_: None, run: list[dict[str, Any]]) -> None:
    verify_run(run)


if __name__ == "__main__":
    raise SystemExit(main())
