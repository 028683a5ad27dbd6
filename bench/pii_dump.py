"""Every PII match on every corpus text, as JSON lines: run it before and after a change that must not
change results (a speed change) and compare the files (``cmp``), or give ``--check FILE``.

The texts: every line of ``bench/corpora/*.jsonl`` and ``bench/corpora/generated/*.jsonl``, the texts of
``../shared/eval/*.jsonl`` where present, and cuts of 300 and 3,000 characters of all of them joined.

Run:  python bench/pii_dump.py --out /tmp/before.jsonl
      (change the code)
      python bench/pii_dump.py --check /tmp/before.jsonl
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dump_check import dump_main  # noqa: E402

from verification.engine.safety import detect_pii, prepare_pii_prefilter  # noqa: E402

SOURCES = [
    *sorted((ROOT / "bench" / "corpora").glob("*.jsonl")),
    *sorted((ROOT / "bench" / "corpora" / "generated").glob("*.jsonl")),
    *sorted((ROOT.parent / "shared" / "eval").glob("*.jsonl")),
]


def texts() -> Iterator[str]:
    """Every text of the sources, then cuts of them all joined."""
    seen: list[str] = []
    for path in SOURCES:
        if not path.exists():
            continue
        for line in path.read_text(encoding="utf-8").split("\n"):
            if not line.strip():
                continue
            row = json.loads(line)
            for key in ("text", "input", "prompt", "content"):
                if isinstance(row.get(key), str):
                    seen.append(row[key])
                    break
    yield from seen
    joined = "\n".join(seen)
    for size in (300, 3_000):
        for start in range(0, len(joined), size):
            yield joined[start : start + size]


def dump() -> Iterator[str]:
    for text in texts():
        found = [m.to_dict(include_value=True) for m in detect_pii(text)]
        yield json.dumps(found, sort_keys=True, ensure_ascii=False)


def main(argv: list[str] | None = None) -> int:
    return dump_main(
        argv, doc=__doc__, prepare=lambda: prepare_pii_prefilter(timeout=None), dump=dump, noun="texts"
    )


if __name__ == "__main__":
    raise SystemExit(main())
