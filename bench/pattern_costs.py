"""Instructions per run spent in each module-level regular expression of the run verifier (issue 14, h22d).

Callgrind tells how much of ``verify_run`` goes to the regex engine (``_sre``), not which pattern spends it.
This tool records every call that ``count_runs.py``'s workload makes to a compiled pattern of
``verification/engine/runs/*`` (the pattern objects are wrapped while the runs are verified), then replays
each pattern's calls on their own, inside ``functools.reduce``, so that callgrind can dump the count of each::

    python bench/pattern_costs.py record --only short --runs 20 --out /tmp/calls.pkl
    valgrind --tool=callgrind --toggle-collect=functools_reduce --dump-after=functools_reduce \\
        --callgrind-out-file=/tmp/pc/cg.out python bench/pattern_costs.py replay /tmp/calls.pkl
    python bench/pattern_costs.py report /tmp/calls.pkl /tmp/pc --runs 60

Each pattern is replayed twice: first a no-op over its calls (the cost of the replay loop), then the calls;
``report`` prints the difference per run, largest first. Interpreted, the figure includes the Python call of
the method (a few hundred instructions per call); the engine's own part carries over to the compiled build
unchanged. ``replay`` must run on the tree that recorded the calls (patterns are found by module and name).
"""

from __future__ import annotations

import argparse
import functools
import importlib
import pickle
import pkgutil
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

_METHODS = ("search", "match", "fullmatch", "finditer", "findall", "sub", "subn", "split")


def _patterns() -> dict[str, tuple[Any, str, re.Pattern[str]]]:
    import verification.engine.runs as runs

    found: dict[str, tuple[Any, str, re.Pattern[str]]] = {}
    for info in pkgutil.iter_modules(runs.__path__):
        module = importlib.import_module(f"{runs.__name__}.{info.name}")
        for name, value in list(vars(module).items()):
            if isinstance(value, re.Pattern):
                found[f"{info.name}.{name}"] = (module, name, value)
    return found


class _Recorder:
    """Stands in for a pattern object and notes the calls of its matching methods."""

    def __init__(self, pattern: re.Pattern[str], key: str, calls: dict[str, list[Any]]) -> None:
        self._pattern, self._key, self._calls = pattern, key, calls

    def __getattr__(self, attr: str) -> Any:
        value = getattr(self._pattern, attr)
        if attr not in _METHODS:
            return value

        def call(*args: Any, **kwargs: Any) -> Any:
            if _Recorder.on:
                self._calls.setdefault(self._key, []).append((attr, args, kwargs))
            return value(*args, **kwargs)

        return call

    on = False


def _record(args: argparse.Namespace) -> None:
    from count_runs import workload

    from verification.engine.runs import verify_run

    calls: dict[str, list[Any]] = {}
    for key, (module, name, pattern) in _patterns().items():
        setattr(module, name, _Recorder(pattern, key, calls))
    runs = workload(args.only, args.runs)
    _Recorder.on = True
    for run in runs:
        verify_run(run)
    _Recorder.on = False
    with open(args.out, "wb") as fh:
        pickle.dump({"runs": len(runs), "calls": calls}, fh)
    print(
        f"{sum(map(len, calls.values()))} calls of {len(calls)} patterns over {len(runs)} runs -> {args.out}"
    )


def _noop(_: None, call: Any) -> None:
    return None


def _replay(args: argparse.Namespace) -> None:
    with open(args.calls, "rb") as fh:
        calls = pickle.load(fh)["calls"]
    patterns = _patterns()
    for key in sorted(k for k in calls if k in patterns):
        pattern = patterns[key][2]

        def one(_: None, call: Any, pattern: re.Pattern[str] = pattern) -> None:
            attr, a, kw = call
            result = getattr(pattern, attr)(*a, **kw)
            if attr == "finditer":
                for _m in result:
                    pass

        functools.reduce(_noop, calls[key], None)
        functools.reduce(one, calls[key], None)


def _report(args: argparse.Namespace) -> None:
    with open(args.calls, "rb") as fh:
        data = pickle.load(fh)
    patterns = _patterns()
    keys = sorted(k for k in data["calls"] if k in patterns)
    totals: dict[int, int] = {}
    for dump in Path(args.dumps).glob("*.out.*"):
        part = int(dump.name.rsplit(".", 1)[1])
        for line in dump.read_text().splitlines():
            if line.startswith(("totals:", "summary:")):
                totals[part] = int(line.split()[1])
                break
    runs = args.runs or data["runs"]
    rows = []
    for i, key in enumerate(keys):
        cost = totals.get(2 * i + 2, 0) - totals.get(2 * i + 1, 0)
        rows.append((cost / runs, len(data["calls"][key]) / runs, key))
    rows.sort(reverse=True)
    print(f"all patterns: {sum(r[0] for r in rows) / 1e6:.2f} M instructions per run")
    for cost, n, key in rows[: args.top]:
        print(f"{cost / 1e3:9.1f} K/run {n:8.1f} calls/run  {key}")


def main(argv: list[str] | None = None) -> int:
    """Record, replay or report."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="cmd", required=True)
    rec = sub.add_parser("record")
    rec.add_argument("--only", choices=["short", "long"], default="short")
    rec.add_argument("--runs", type=int, default=20, help="runs per short size, or long runs")
    rec.add_argument("--out", type=Path, required=True)
    rep = sub.add_parser("replay")
    rep.add_argument("calls", type=Path)
    out = sub.add_parser("report")
    out.add_argument("calls", type=Path)
    out.add_argument("dumps", type=Path, help="the directory of callgrind's dumps")
    out.add_argument("--runs", type=int, default=0, help="divide by this many runs (default: as recorded)")
    out.add_argument("--top", type=int, default=30)
    args = parser.parse_args(argv)
    {"record": _record, "replay": _replay, "report": _report}[args.cmd](args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
