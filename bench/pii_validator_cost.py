"""What the PII validators cost on never-seen values: every candidate one cold pass of ``detect_pii`` over
``count_safety.py``'s ``pii_cold`` lines (generated dev and presidio-evaluator, 1,600 texts) gives each
validator, then each validator alone over its candidates (CPU µs a value, best of ``--loops``), and the
``phonenumbers.parse`` calls of the national phone check.

Compare two trees with a worktree of the older commit (``git worktree add /tmp/before COMMIT``)::

    python bench/pii_validator_cost.py --root /tmp/before
    python bench/pii_validator_cost.py

The loops repeat the same values in one process, so the figures leave out what a value costs the first
time it is seen (the CPU's caches); the verdict memos are not involved (each validator is called directly).
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
Validator = Callable[[str], object]
NAMES = ("phone_national", "iban", "date_of_birth", "payment_card", "btc_address", "us_ssn", "ipv4")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--root", type=Path, default=ROOT, help="the tree to measure (default: this checkout)"
    )
    parser.add_argument("--loops", type=int, default=7)
    args = parser.parse_args(argv)
    root = args.root.resolve()
    sys.path[:0] = [str(root), str(ROOT / "bench")]
    from pii_sets import SETS

    from verification.engine.safety import pii, pii_types

    texts = [
        str(json.loads(line)["text"])
        for name in ("generated_dev", "generated_presidio")
        for line in Path(SETS[name]).read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    validators: dict[str, Callable[[str], object]] = {}
    values: dict[str, list[str]] = {}
    for kind in pii_types.PII_TYPES:
        if kind.validator is None or kind.name not in NAMES:
            continue
        validator = kind.validator

        def recording(
            value: str, validator: Callable[[str], object] = validator, name: str = kind.name
        ) -> object:
            values.setdefault(name, []).append(value)
            return validator(value)

        validators.setdefault(kind.name, validator)  # one validator per type on these lines' candidates
        object.__setattr__(kind, "validator", recording)  # the types are frozen dataclasses
    assert pii.prepare_pii_prefilter(timeout=None)
    pii._VERDICTS.clear()
    pii_types._DOB_VERDICTS.clear()
    for text in texts:
        pii.detect_pii(text)
    print(f"tree {root}")
    for name in NAMES:
        if name not in values:
            continue
        timed: Callable[[str], object] = validators[name]
        candidates = values[name]
        if name == "date_of_birth":
            # ``_dob`` memoises by value and day: time the work behind the memo.
            today = datetime.date.today()

            def uncached(value: str, today: datetime.date = today) -> object:
                return pii_types._dob_on(value, today)

            timed = uncached

        best = float("inf")
        for _ in range(args.loops):
            start = time.thread_time()
            for value in candidates:
                timed(value)
            best = min(best, time.thread_time() - start)
        print(f"{name:16s} {len(candidates):4d} values  {best / len(candidates) * 1e6:7.1f} µs a value")
    phonenumbers: Any = pii_types._phone_library()  # the library's module, patched below to count calls
    parse = phonenumbers.parse
    calls = [0]

    def counting(*arguments: object, **keywords: object) -> object:
        calls[0] += 1
        return parse(*arguments, **keywords)

    phonenumbers.parse = counting
    try:
        for value in values.get("phone_national", []):
            pii_types._phone_national(value)
    finally:
        phonenumbers.parse = parse
    print(f"phone_national: {calls[0]} phonenumbers.parse calls over its candidates")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
