"""Instructions per pass of the names pass's parts and of a cold ``detect_pii`` pass, counted by callgrind
in one process (independent of the load), for the tree at ``--root`` (default: this checkout).

Every workload runs over the generated dev and presidio-evaluator lines (1,600 texts, as
``count_safety.py``; the line-based parts over the texts with a line break): one warm-up pass, then two
passes between two calls of ``zlib.adler32``, which callgrind's ``--dump-before=zlib_adler32`` turns into
one profile part each; a part's total halved is one pass.  Interpreted or compiled, as the tree imports.
Compare two trees with a worktree of the older commit (``git worktree add /tmp/before COMMIT``)::

    python bench/pii_names_instructions.py --root /tmp/before
    python bench/pii_names_instructions.py

``--run`` runs the workloads without callgrind (what the counted process does).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import zlib
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORKLOADS = (
    "lower_names",
    "address_lines",
    "postcode_lines",
    "line_people",
    "tokens",
    "find_names",
    "detect_pii_cold",
)


def run(root: Path) -> None:
    """Each workload: a warm-up pass, then two passes between two markers."""
    sys.path[:0] = [str(root), str(root / "bench")]
    from pii_sets import SETS

    from verification.engine.safety import pii, pii_types
    from verification.engine.safety import pii_names as names

    texts = [
        str(json.loads(line)["text"])
        for name in ("generated_dev", "generated_presidio")
        for line in Path(SETS[name]).read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    lines = [t for t in texts if "\n" in t]
    assert pii.prepare_pii_prefilter(timeout=None)

    def cold() -> None:
        pii._VERDICTS.clear()
        pii_types._DOB_VERDICTS.clear()
        for text in texts:
            pii.detect_pii(text)

    jobs: dict[str, Callable[[], object]] = {
        "lower_names": lambda: [names._lower_names(t, []) for t in texts],
        "address_lines": lambda: [names._address_lines(t) for t in lines],
        "postcode_lines": lambda: [names._postcode_lines(t, []) for t in lines],
        "line_people": lambda: [names._line_people(t, []) for t in lines],
        "tokens": lambda: [names._tokens(t) for t in texts],
        "find_names": lambda: [names.find_names(t) for t in texts],
        "detect_pii_cold": cold,
    }
    for name in WORKLOADS:
        jobs[name]()
        zlib.adler32(name.encode())
        jobs[name]()
        jobs[name]()
        zlib.adler32(name.encode())


def count(root: Path) -> dict[str, float]:
    """Millions of instructions per pass of each workload, under callgrind."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "cg.out"
        cmd = [
            "valgrind", "--tool=callgrind", "--dump-before=zlib_adler32", f"--callgrind-out-file={out}",
            sys.executable, __file__, "--run", "--root", str(root),
        ]  # fmt: skip
        subprocess.run(cmd, check=True, capture_output=True)
        result = {}
        for k, name in enumerate(WORKLOADS):
            part = (Path(tmp) / f"cg.out.{2 * k + 2}").read_text()
            found = re.search(r"^totals:\s*(\d+)", part, re.M)
            assert found is not None
            result[name] = int(found.group(1)) / 2 / 1e6
        return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--root", type=Path, default=ROOT, help="the tree to count (default: this checkout)")
    parser.add_argument("--run", action="store_true", help="run the workloads without callgrind")
    args = parser.parse_args(argv)
    if args.run:
        run(args.root.resolve())
        return 0
    for name, millions in count(args.root.resolve()).items():
        print(f"{name}: {millions:.2f} M instructions per pass")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
