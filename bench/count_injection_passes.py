"""Instructions a pass of ``detect_injection`` over an injection corpus, counted inside the passes only.

``bench/count_safety.py --count injection`` counts the whole process interpreted (start-up included,
halved between 1 and 3 passes): each run spends most of its time loading.  This runs the passes inside
``operator.call`` after one warm-up pass, and callgrind collects only there (``--toggle-collect`` on
``_operator_call``), so one run gives the figure, and ``callgrind_annotate --inclusive=yes`` on the
output file splits it (``re``'s ``sre_search``, ``long_bitwise`` ...).  Interpreted engine only: compiled,
use ``count_safety.py``.

    python bench/count_injection_passes.py --count [--set injection_dev] [--passes 4] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import operator
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def run(name: str, passes: int) -> None:
    """One warm-up pass over ``bench/corpora/<name>.jsonl``, then ``passes`` inside ``operator.call``."""
    from verification.engine.safety import injection

    assert injection.prepare_injection_prefilter(timeout=None)
    path = ROOT / "bench" / "corpora" / f"{name}.jsonl"
    rows = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]

    def one() -> None:
        for row in rows:
            injection.detect_injection(
                row["text"], source=row.get("source", "user"), history=row.get("history", ())
            )

    def counted() -> None:
        for _ in range(passes):
            one()

    one()
    operator.call(counted)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--set", default="injection_holdout", help="a bench/corpora/*.jsonl name")
    parser.add_argument("--passes", type=int, default=4)
    parser.add_argument("--count", action="store_true", help="run under callgrind and print the figure")
    parser.add_argument("--out", default="callgrind.injection.out", help="callgrind's output file")
    args = parser.parse_args(argv)
    if not args.count:
        run(args.set, args.passes)
        return 0
    cmd = [
        "valgrind", "--tool=callgrind", "--collect-atstart=no", "--toggle-collect=_operator_call",
        f"--callgrind-out-file={args.out}", sys.executable, __file__, "--set", args.set,
        "--passes", str(args.passes),
    ]  # fmt: skip
    subprocess.run(cmd, check=True, capture_output=True, env=os.environ)
    found = re.search(r"^(?:summary|totals):\s*(\d+)", Path(args.out).read_text(), re.M)
    assert found is not None
    print(f"{args.set}: {int(found.group(1)) / args.passes / 1e6:.2f} M instructions per pass (interpreted)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
