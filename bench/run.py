"""Run every benchmark: each bench/bench_*.py in its own process, the HTTP benchmarks last.

    python bench/run.py                    # what `make bench` runs
    python bench/run.py --only scoring     # one of them (name without bench_ and .py)
    python bench/run.py --skip http        # all but the HTTP benchmarks
    python bench/run.py --list             # what would run

A benchmark that fails (non-zero exit, or over its time limit) is reported and the others still run;
the exit status is 1 when any failed. Each writes its own bench/results/<name>.json; this runner
writes bench/results/run.json saying what ran, for how long and how it ended. docs/benchmarks.md
gathers the numbers.

Extra arguments after `--` go to the HTTP benchmark (e.g. `-- --duration 5 --profile`).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
RESULTS = BENCH / "results"
LAST = "http"  # needs the whole machine and the longest; runs after the in-process ones
TIME_LIMIT_S = float(os.environ.get("BENCH_TIME_LIMIT", 1800))


# Also start granian and PostgreSQL (bench_hostile: the worst requests and their server CPU time): after
# the in-process ones, before the long HTTP load.
SERVER = ("hostile", "scale")


def discover() -> list[str]:
    names = sorted(p.stem.removeprefix("bench_") for p in BENCH.glob("bench_*.py"))
    late = [n for n in SERVER if n in names]
    return [n for n in names if n != LAST and n not in late] + late + ([LAST] if LAST in names else [])


def run_one(name: str, extra: list[str]) -> dict[str, object]:
    script = BENCH / f"bench_{name}.py"
    cmd = [sys.executable, str(script), *extra]
    print(f"\n=== bench_{name}.py " + "=" * max(0, 60 - len(name)), flush=True)
    started = time.monotonic()
    status = "ok"
    code: int | None = None
    try:
        # Output goes straight to the console; each benchmark prints its own table.
        proc = subprocess.run(cmd, cwd=ROOT, timeout=TIME_LIMIT_S, check=False)
        code = proc.returncode
        if code != 0:
            status = "failed"
    except subprocess.TimeoutExpired:
        status = "timed out"
    except OSError as exc:
        status = f"could not start: {exc}"
    seconds = round(time.monotonic() - started, 1)
    result_file = RESULTS / f"{name}.json"
    return {
        "name": name,
        "script": f"bench/bench_{name}.py",
        "status": status,
        "exit_code": code,
        "seconds": seconds,
        "results": str(result_file.relative_to(ROOT)) if result_file.exists() else None,
    }


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    extra: list[str] = []
    if "--" in argv:
        at = argv.index("--")
        argv, extra = argv[:at], argv[at + 1 :]
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--only", action="append", default=[], help="run only these (repeatable)")
    parser.add_argument("--skip", action="append", default=[], help="skip these (repeatable)")
    parser.add_argument("--list", action="store_true", help="list the benchmarks and exit")
    args = parser.parse_args(argv)
    names = discover()
    if args.only:
        unknown = sorted(set(args.only) - set(names))
        if unknown:
            parser.error(f"no bench/bench_{unknown[0]}.py; have: {', '.join(names)}")
        names = [n for n in names if n in args.only]
    names = [n for n in names if n not in args.skip]
    if args.list:
        print("\n".join(names))
        return 0
    RESULTS.mkdir(parents=True, exist_ok=True)
    started = datetime.now(UTC)
    outcomes = [run_one(name, extra if name == LAST else []) for name in names]
    summary = {
        "started_at": started.isoformat(timespec="seconds").replace("+00:00", "Z"),
        "nproc": os.cpu_count(),
        "load_average_at_end": list(os.getloadavg()),
        "benchmarks": outcomes,
    }
    (RESULTS / "run.json").write_text(json.dumps(summary, indent=2) + "\n")
    print("\n| benchmark | status | seconds | results |\n| --- | --- | ---: | --- |")
    for o in outcomes:
        print(f"| {o['script']} | {o['status']} | {o['seconds']} | {o['results'] or ''} |")
    failed = [o for o in outcomes if o["status"] != "ok"]
    if failed:
        names_failed = ", ".join(str(o["name"]) for o in failed)
        print(f"\n{len(failed)} benchmark(s) did not finish cleanly: {names_failed}")
    print("\nNumbers and what limits them: docs/benchmarks.md")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
