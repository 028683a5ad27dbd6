"""A fixed workload of the safety engines for counting instructions, which other load on the machine does
not change (unlike the timings of ``bench_safety.py`` and ``pii_cost.py`` on a shared machine).

The workloads, each after one pass that fills what a warm process holds (the hyperscan databases, the
type plans, phonenumbers' metadata, the learned model's tables):

- ``pii_cold``: ``--passes`` passes of ``detect_pii`` over the generated dev lines and the
  presidio-evaluator lines (1,600 texts), the validators' verdict memo emptied before each pass: every
  value is one the detector has never seen (issue 16's "never-seen values");
- ``pii_warm``: the same passes with the memo kept (what the side-by-side bench measures);
- ``injection``: ``--passes`` passes of ``detect_injection`` over the held-out injection lines, each
  scored as its row says (source and history), as ``bench_safety.py`` scores them.

Counted per pass (``--count``): the script runs itself twice under valgrind's callgrind, with 1 and 3
passes, and halves the difference, so start-up and the warm-up pass drop out.  With the compiled engine
callgrind collects only inside the entry point (``--toggle-collect`` on mypyc's ``CPyDef_pii___detect_pii``
or ``CPyDef_injection___detect_injection``); interpreted, everything is collected (the difference still
leaves one pass)::

    python bench/count_safety.py --count pii_cold
    python bench/count_safety.py --count injection

By hand (the warm-up pass is then counted too: run ``--passes 1`` and ``--passes 3`` and halve)::

    valgrind --tool=callgrind --collect-atstart=no --toggle-collect='CPyDef_pii___detect_pii' \\
        python bench/count_safety.py --only pii_cold --passes 3
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
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from pii_sets import SETS  # noqa: E402

from verification.engine.safety import injection, pii, pii_types  # noqa: E402

WORKLOADS = ("pii_cold", "pii_warm", "injection")
PII_SETS = ("generated_dev", "generated_presidio")
INJECTION_SET = ROOT / "bench" / "corpora" / "injection_holdout.jsonl"
# mypyc's names of the compiled entry points.
TOGGLES = {
    "pii_cold": "CPyDef_pii___detect_pii",
    "pii_warm": "CPyDef_pii___detect_pii",
    "injection": "CPyDef_injection___detect_injection",
}


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


def _forget() -> None:
    """Empty the verdict memos: every value is new to the next pass."""
    pii._VERDICTS.clear()
    pii_types._DOB_VERDICTS.clear()


def run(workload: str, passes: int) -> None:
    """One warm-up pass, then ``passes`` passes of ``workload``."""
    if workload == "injection":
        assert injection.prepare_injection_prefilter(timeout=None)
        rows = _lines(INJECTION_SET)
        for _ in range(passes + 1):
            for row in rows:
                injection.detect_injection(
                    row["text"], source=row.get("source", "user"), history=row.get("history", ())
                )
        return
    assert pii.prepare_pii_prefilter(timeout=None)
    texts = [str(row["text"]) for name in PII_SETS for row in _lines(SETS[name])]
    for _ in range(passes + 1):
        if workload == "pii_cold":
            _forget()
        for text in texts:
            pii.detect_pii(text)


def compiled() -> bool:
    """Whether the engine's modules are mypyc's (extension modules), so the toggle names exist."""
    return not str(pii.__file__).endswith(".py")


def count(workload: str, passes: int) -> int:
    """Instructions callgrind collects for ``passes`` passes (plus start-up and the warm-up)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        collect = ["--collect-atstart=no", f"--toggle-collect={TOGGLES[workload]}"] if compiled() else []
        cmd = [
            "valgrind", "--tool=callgrind", *collect, f"--callgrind-out-file={out}",
            sys.executable, __file__, "--only", workload, "--passes", str(passes),
        ]  # fmt: skip
        subprocess.run(cmd, check=True, capture_output=True, env=os.environ)
        found = re.search(r"^summary:\s*(\d+)", out.read_text(), re.M) or re.search(
            r"^totals:\s*(\d+)", out.read_text(), re.M
        )
        assert found is not None
        return int(found.group(1))


def main(argv: list[str] | None = None) -> int:
    """Run a workload, or count its instructions per pass under callgrind (``--count``)."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--only", choices=WORKLOADS, default="pii_cold")
    parser.add_argument("--passes", type=int, default=2)
    parser.add_argument("--count", choices=WORKLOADS, help="count instructions per pass under callgrind")
    args = parser.parse_args(argv)
    if args.count:
        one, three = count(args.count, 1), count(args.count, 3)
        where = "compiled, inside the entry point" if compiled() else "interpreted, whole process"
        print(f"{args.count}: {(three - one) / 2 / 1e6:.1f} M instructions per pass ({where})")
        return 0
    run(args.only, args.passes)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
