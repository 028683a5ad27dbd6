"""Where a pass of ``detect_pii`` spends its time, per corpus: the whole call, the typed detectors
alone, the names pass alone and the hyperscan type pass alone (CPU ms per pass, best of the repeats).

``--cold`` empties the validators' verdict memo before every pass: every value is then one the
detector has never seen, which is what real traffic mostly is (the side-by-side bench repeats its lines
and so measures the warm memo).

Run:  python bench/pii_cost.py [--cold] [--repeats 5] [--only generated_dev ...]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pii_sets import SETS  # noqa: E402

from verification.engine.safety import pii, pii_types  # noqa: E402
from verification.engine.safety.pii import PII_TYPE_NAMES, detect_pii, prepare_pii_prefilter  # noqa: E402
from verification.engine.safety.pii_names import NAME_TYPES, find_names  # noqa: E402

TYPED = [t for t in PII_TYPE_NAMES if t not in NAME_TYPES]


def forget() -> None:
    """Empty the verdict memos: every value is new to the next pass."""
    pii._VERDICTS.clear()
    pii_types._DOB_VERDICTS.clear()


def best_ms(fn: Callable[[], object], repeats: int, loops: int, cold: bool) -> float:
    """Best CPU ms of one pass over ``loops`` passes, ``repeats`` times (one untimed warm-up)."""
    fn()
    best = float("inf")
    for _ in range(repeats):
        spent = 0.0
        for _ in range(loops):
            if cold:
                forget()
            start = time.process_time()
            fn()
            spent += time.process_time() - start
        best = min(best, spent * 1000 / loops)
    return best


def _passes(texts: list[str]) -> list[Callable[[], object]]:
    """One pass over ``texts`` of: the whole call, the typed detectors, the names, the hyperscan pass."""
    scan = pii._PREFILTER.may_match
    return [
        lambda: [detect_pii(t) for t in texts],
        lambda: [detect_pii(t, types=TYPED) for t in texts],
        lambda: [find_names(t) for t in texts],
        lambda: [scan(t) for t in texts],
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--cold", action="store_true", help="empty the verdict memo before every pass")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--loops", type=int, default=5)
    parser.add_argument("--only", nargs="+", choices=sorted(SETS), default=None)
    args = parser.parse_args(argv)
    assert prepare_pii_prefilter(timeout=None)
    print(f"{'set':24} {'lines':>5} {'all':>8} {'typed':>8} {'names':>8} {'hs pass':>8}  (CPU ms per pass)")
    for name, path in SETS.items():
        if (args.only and name not in args.only) or not path.exists():
            continue
        texts = [json.loads(x)["text"] for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]
        row = [best_ms(run, args.repeats, args.loops, args.cold) for run in _passes(texts)]
        print(f"{name:24} {len(texts):5} " + " ".join(f"{x:8.2f}" for x in row))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
