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

import json
import sys
from collections.abc import Callable
from pathlib import Path

from callgrind_passes import main as count_main
from callgrind_passes import marked_passes

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
        marked_passes(name, jobs[name])


def main(argv: list[str] | None = None) -> int:
    return count_main(
        __doc__, __file__, run, WORKLOADS, "{name}: {millions:.2f} M instructions per pass", argv,
        root=ROOT, root_help="the tree to count (default: this checkout)",
    )  # fmt: skip


if __name__ == "__main__":
    raise SystemExit(main())
