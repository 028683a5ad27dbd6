"""PII detection on the generated sets, detection only (no timing): per set, person and location F1,
all types P / R / F1, hard negatives flagged and values still readable after redaction (issue 16).

Scored by ``bench_safety.pii_metrics``, the code of the side-by-side run, so the figures are the same
as that run's.  ``--by-locale`` splits the person and location recall of the ``intl`` sets by locale.

Run:  python bench/bench_pii_recall.py [--sets intl_dev intl_holdout presidio dev holdout] [--by-locale]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_safety import compatible, load, pii_metrics  # noqa: E402

from verification.engine.safety import detect_pii, redact_pii  # noqa: E402

GENERATED = ROOT / "bench" / "corpora" / "generated"
SETS = [
    "dev",
    "holdout",
    "presidio",
    "intl_dev",
    "intl_holdout",
    "presidio_read",
    "presidio_measured",
    "faker_heldout",
    "presidio_dev",
]
# The presidio-evaluator set split in two fixed halves by line number (issue 16, third pass): rules may
# answer classes of misses read on the even lines ("read"); the odd lines ("measured") are only scored.
HALVES = {"presidio_read": 0, "presidio_measured": 1}


def load_set(name: str) -> list[dict[str, Any]]:
    """The rows of one set; a half of the presidio-evaluator set by line parity."""
    if name in HALVES:
        rows = load(GENERATED / "pii_presidio.jsonl")
        return [row for i, row in enumerate(rows) if i % 2 == HALVES[name]]
    return load(GENERATED / f"pii_{name}.jsonl")


def score(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The metrics of one set, with per-locale person/location recall where rows name a locale."""
    found = [detect_pii(r["text"]) for r in rows]
    redacted = [redact_pii(r["text"], matches=m).text for r, m in zip(rows, found, strict=True)]
    metrics = pii_metrics(rows, [[(m.type, m.start) for m in ms] for ms in found], redacted)
    by_locale: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for row, matches in zip(rows, found, strict=True):
        for gold in row["entities"]:
            if gold["type"] not in ("person", "location") or "locale" not in row:
                continue
            hit = any(
                gold["start"] - 30 <= m.start < gold["end"] and compatible(m.type, gold["type"])
                for m in matches
            )
            key = f"{row['locale']} {gold['type']}"
            by_locale[key][0] += hit
            by_locale[key][1] += 1
    metrics["recall_by_locale"] = {k: round(h / n, 3) for k, (h, n) in sorted(by_locale.items())}
    return metrics


def print_misses(rows: list[dict[str, Any]], limit: int) -> None:
    """Person and location values missed, and names reported where the gold has none (for reading)."""
    misses: list[str] = []
    alarms: list[str] = []
    for row in rows:
        found = detect_pii(row["text"])
        for gold in row["entities"]:
            if gold["type"] in ("person", "location") and not any(
                gold["start"] - 30 <= m.start < gold["end"] and compatible(m.type, gold["type"])
                for m in found
            ):
                misses.append(f"  miss {gold['type']} {gold['value']!r}: {row['text'][:160]!r}")
        for m in found:
            if m.type in ("person", "location", "postal_address") and not any(
                g["start"] - 30 <= m.start < g["end"] and compatible(m.type, g["type"])
                for g in row["entities"]
            ):
                alarms.append(f"  alarm {m.type} {m.value!r} ({m.check}): {row['text'][:160]!r}")
    print("\n".join(misses[:limit] + alarms[:limit]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sets", nargs="+", default=SETS, choices=SETS)
    parser.add_argument("--by-locale", action="store_true")
    parser.add_argument("--json", type=Path, help="also write the metrics here")
    parser.add_argument(
        "--misses", type=int, default=0, help="print this many misses and false alarms per set"
    )
    args = parser.parse_args(argv)
    out: dict[str, Any] = {}
    columns = ["set", "person F1", "location F1", "all P / R / F1", "hard negatives flagged", "readable"]
    print("| " + " | ".join(columns) + " |")
    print("|---|---|---|---|---|---|")
    for name in args.sets:
        rows = load_set(name)
        m = out[name] = score(rows)
        e = m["entity"]
        flagged = sum(1 for r in rows if not r["entities"])
        negatives = m["lookalike_flagged_rate"]
        counts: dict[str, int] = defaultdict(int)
        for r in rows:
            if not r["entities"]:
                counts[r["lookalike"]] += 1
        rate = sum(negatives[k] * counts[k] for k in negatives) / flagged if flagged else 0.0
        leak = m["values_leaked_after_redaction"]
        print(
            f"| {name} ({len(rows)}) | {m['f1_per_type'].get('person', 0):.2f} | "
            f"{m['f1_per_type'].get('location', 0):.2f} | {e['precision']:.2f} / {e['recall']:.2f} / "
            f"{e['f1']:.2f} | {rate:.1%} | {leak['rate']:.1%} ({leak['leaked']} of {leak['of']}) |"
        )
        if args.misses:
            print_misses(rows, args.misses)
        if args.by_locale and m["recall_by_locale"]:
            print("  " + ", ".join(f"{k} {v:.2f}" for k, v in m["recall_by_locale"].items()))
    if args.json:
        args.json.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
