"""Every injection finding on every corpus text, as JSON lines: run it before and after a change that must
not change results (a speed change) and compare (``--check FILE``).

The texts: every line of ``bench/corpora/injection_*.jsonl`` and of ``../shared/eval/injection_*.jsonl``
where present, each scored as its row says (``source`` when it names a source, else ``user``;
``history``) and under the other source too; then cuts of 300, 3,000 and 30,000 characters of all of
them joined (short, prefiltered and lead-searched paths), and the rows with a history also scored with
``learned=False``.

Run:  python bench/injection_dump.py --out /tmp/before.jsonl
      (change the code)
      python bench/injection_dump.py --check /tmp/before.jsonl
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dump_check import dump_main  # noqa: E402

from verification.engine.safety import detect_injection, prepare_injection_prefilter  # noqa: E402

SOURCES = [
    *sorted((ROOT / "bench" / "corpora").glob("injection_*.jsonl")),
    *sorted((ROOT.parent / "shared" / "eval").glob("injection_*.jsonl")),
]
_OTHER = {"user": "tool_result", "tool_result": "user"}


def rows() -> list[dict[str, Any]]:
    """Every row of the sources that has a text."""
    out: list[dict[str, Any]] = []
    for path in SOURCES:
        if not path.exists():
            continue
        for line in path.read_text(encoding="utf-8").split("\n"):
            if line.strip():
                row = json.loads(line)
                if isinstance(row.get("text"), str):
                    out.append(row)
    return out


def cases() -> Iterator[tuple[str, str, tuple[str, ...], bool]]:
    """(text, source, history, learned) for every case scored."""
    found = rows()
    for row in found:
        given = row.get("source")
        source: str = given if isinstance(given, str) and given in _OTHER else "user"
        history = tuple(str(turn) for turn in row.get("history") or ())
        text: str = row["text"]
        yield text, source, history, True
        yield text, _OTHER[source], (), True
        if history:
            yield text, source, history, False
    joined = "\n".join(r["text"] for r in found)
    for size in (300, 3_000, 30_000):
        for start in range(0, len(joined), size):
            yield joined[start : start + size], "user", (), True
            if size == 3_000:
                yield joined[start : start + size], "tool_result", (), True


def dump() -> Iterator[str]:
    for text, source, history, learned in cases():
        finding = detect_injection(text, source=source, history=history, learned=learned)  # type: ignore[arg-type]
        yield json.dumps(finding.to_dict(), sort_keys=True, ensure_ascii=False)


def main(argv: list[str] | None = None) -> int:
    return dump_main(
        argv, doc=__doc__, prepare=lambda: prepare_injection_prefilter(timeout=None), dump=dump, noun="cases"
    )


if __name__ == "__main__":
    raise SystemExit(main())
