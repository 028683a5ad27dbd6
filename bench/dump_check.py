"""The command line that bench/pii_dump.py and bench/injection_dump.py share: write a dump of every
result (``--out FILE``), or compare the results now with a saved dump (``--check FILE``, exit 1 on the
first difference). A dump is one JSON line per case; a speed change must leave it byte for byte.
"""

from __future__ import annotations

import argparse
import hashlib
from collections.abc import Callable, Iterable
from pathlib import Path


def dump_main(
    argv: list[str] | None,
    *,
    doc: str | None,
    prepare: Callable[[], object],
    dump: Callable[[], Iterable[str]],
    noun: str,
) -> int:
    """Parse ``--out`` / ``--check``, call ``prepare`` (the engine's prefilter), then write or compare
    ``dump()``'s lines; ``noun`` names a line in the messages ("texts", "cases")."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--out", type=Path, help="write the dump here")
    group.add_argument("--check", type=Path, help="compare with this dump; exit 1 on the first difference")
    args = parser.parse_args(argv)
    assert prepare()
    lines = list(dump())
    digest = hashlib.sha256("\n".join(lines).encode()).hexdigest()[:16]
    if args.out is not None:
        args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
        print(f"{len(lines)} {noun}, sha256 {digest}")
        return 0
    before = args.check.read_text(encoding="utf-8").split("\n")[:-1]
    if len(before) != len(lines):
        print(f"different number of {noun}: {len(before)} before, {len(lines)} now")
        return 1
    for i, (a, b) in enumerate(zip(before, lines, strict=True)):
        if a != b:
            print(f"line {i} differs:\n before {a[:500]}\n now    {b[:500]}")
            return 1
    print(f"{len(lines)} {noun}, identical (sha256 {digest})")
    return 0
