"""Instructions spent inside ``detect_pii`` per pass over a corpus, counted by valgrind's callgrind:
independent of the machine's load, unlike timings.  Two runs (1 and 3 passes, after loading the
hyperscan database) are subtracted, so start-up and the first pass's one-off work drop out.

``--cold`` empties the validators' verdict memo before every pass (values never seen before).

Run:  python bench/pii_instructions.py generated_dev [--cold]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from pii_sets import SETS  # noqa: E402

# The compiled function (mypyc's name for ``pii.detect_pii``): callgrind counts only inside it.
TOGGLE = "CPyDef_pii___detect_pii"


def run_passes(path: str, passes: int, cold: bool) -> None:
    """The child: load the set, then ``passes`` passes of ``detect_pii`` over it."""
    from verification.engine.safety import pii, pii_types

    assert pii.prepare_pii_prefilter(timeout=None)
    texts = [json.loads(x)["text"] for x in Path(path).read_text(encoding="utf-8").splitlines() if x.strip()]
    for _ in range(passes):
        if cold:
            pii._VERDICTS.clear()
            pii_types._DOB_VERDICTS.clear()
        for text in texts:
            pii.detect_pii(text)


def count(path: Path, passes: int, cold: bool) -> int:
    """Instructions inside ``detect_pii`` for ``passes`` passes."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        cmd = [
            "valgrind", "--tool=callgrind", "--collect-atstart=no", f"--toggle-collect={TOGGLE}",
            f"--callgrind-out-file={out}", sys.executable, __file__, "--child", str(path), str(passes),
        ] + (["--cold"] if cold else [])  # fmt: skip
        subprocess.run(cmd, check=True, capture_output=True, env=os.environ)
        summary = re.search(r"^summary:\s*(\d+)", out.read_text(), re.M) or re.search(
            r"^totals:\s*(\d+)", out.read_text(), re.M
        )
        assert summary is not None
        return int(summary.group(1))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("set", nargs="?", choices=sorted(SETS))
    parser.add_argument("--cold", action="store_true")
    parser.add_argument("--child", nargs=2, metavar=("PATH", "PASSES"))
    args = parser.parse_args(argv)
    if args.child:
        run_passes(args.child[0], int(args.child[1]), args.cold)
        return 0
    one, three = count(SETS[args.set], 1, args.cold), count(SETS[args.set], 3, args.cold)
    per_pass = (three - one) / 2
    print(f"{args.set}{' (cold)' if args.cold else ''}: {per_pass / 1e6:.1f} M instructions per pass")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
