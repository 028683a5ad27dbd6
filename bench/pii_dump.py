"""Every PII match on every corpus text, as JSON lines: run it before and after a change that must not
change results (a speed change) and compare the files (``cmp``), or give ``--check FILE``.

The texts: every line of ``bench/corpora/*.jsonl`` and ``bench/corpora/generated/*.jsonl``, the texts of
``../shared/eval/*.jsonl`` where present, and cuts of 300 and 3,000 characters of all of them joined.

Run:  python bench/pii_dump.py --out /tmp/before.jsonl
      (change the code)
      python bench/pii_dump.py --check /tmp/before.jsonl
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

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
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--out", type=Path, help="write the dump here")
    group.add_argument("--check", type=Path, help="compare with this dump; exit 1 on the first difference")
    args = parser.parse_args(argv)
    assert prepare_pii_prefilter(timeout=None)
    lines = list(dump())
    digest = hashlib.sha256("\n".join(lines).encode()).hexdigest()[:16]
    if args.out is not None:
        args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
        print(f"{len(lines)} texts, sha256 {digest}")
        return 0
    before = args.check.read_text(encoding="utf-8").split("\n")[:-1]
    if len(before) != len(lines):
        print(f"different number of texts: {len(before)} before, {len(lines)} now")
        return 1
    for i, (a, b) in enumerate(zip(before, lines, strict=True)):
        if a != b:
            print(f"text {i} differs:\n before {a[:500]}\n now    {b[:500]}")
            return 1
    print(f"{len(lines)} texts, identical (sha256 {digest})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
