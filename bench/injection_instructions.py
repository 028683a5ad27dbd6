"""Instructions per pass of ``detect_injection`` over the injection corpora, counted by callgrind in one
process (independent of the load), for the tree at ``--root`` (default: this checkout).

Workloads, each line scored as its row says (source and history, as ``bench_safety.py``): the held-out
lines (``count_safety.py``'s workload), the dev lines, and the help-centre validation pages (1-2 KB,
scored as tool results: their rows' ``kind`` is ``document``).  Each: one warm-up pass, then two passes
between two calls of ``zlib.adler32``, which callgrind's ``--dump-before=zlib_adler32`` turns into one
profile part; a part's total halved is one pass.
Interpreted or compiled, as the tree imports (the whole process is collected, so compiled figures include
the interpreted glue around the calls).  Compare two trees with a copy of the older commit::

    git archive COMMIT | tar -x -C /tmp/before
    python bench/injection_instructions.py --root /tmp/before
    python bench/injection_instructions.py

``--run`` runs the workloads without callgrind (what the counted process does).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from callgrind_passes import main as count_main
from callgrind_passes import marked_passes

ROOT = Path(__file__).resolve().parent.parent
WORKLOADS = ("holdout", "dev", "helppages_validation")


def run(root: Path) -> None:
    """Each workload: a warm-up pass, then two passes between two markers."""
    sys.path[:0] = [str(root)]
    from verification.engine.safety import injection

    assert injection.prepare_injection_prefilter(timeout=None)
    for name in WORKLOADS:
        path = root / "bench" / "corpora" / f"injection_{name}.jsonl"
        rows = [json.loads(x) for x in path.read_text(encoding="utf-8").split("\n") if x.strip()]
        marked_passes(name, partial(_one_pass, injection.detect_injection, rows))


def _one_pass(detect: Callable[..., object], rows: list[dict[str, Any]]) -> None:
    for row in rows:
        detect(
            row["text"],
            source="tool_result"
            if row.get("source") == "tool_result" or row.get("kind") == "document"
            else "user",
            history=row.get("history", ()),
        )


def main(argv: list[str] | None = None) -> int:
    return count_main(
        __doc__, __file__, run, WORKLOADS, "{name}: {millions:.1f} M instructions a pass", argv,
        root=ROOT, run_help="run the workloads (no callgrind)",
    )  # fmt: skip


if __name__ == "__main__":
    raise SystemExit(main())
