"""Injection detection on text written by others: precision/recall/F1, FPR and AUROC per slice.

Reads ``../shared/eval/injection_external_dev.jsonl`` (see its README): ``indirect`` and ``document``
texts are scanned as tool results, the others as user text, the way the service scans them.  Use it
to measure, never to tune rules to its lines (the held-out set is kept elsewhere).

    .venv/bin/python bench/eval_injection_external.py [--path FILE] [--misses N] [--families]

PyRIT set (bench/corpora/make_injection_pyrit.py): ``--path bench/corpora/injection_pyrit_dev.jsonl
--families``; its held-out half is measured the same way, without ``--misses``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.bench_safety import auroc, prf  # noqa: E402
from verification.engine.safety import detect_injection  # noqa: E402

DEFAULT = ROOT.parent / "shared" / "eval" / "injection_external_dev.jsonl"
TOOL_KINDS = frozenset({"indirect", "document"})


def slices(row: dict[str, object]) -> tuple[str, ...]:
    kind = row["kind"]
    if kind in TOOL_KINDS:
        return ("all", "indirect+documents")
    return ("all", "direct+jailbreak+user")


def slice_table(by: dict[str, list[tuple[bool, bool, float]]], title: str = "slice") -> str:
    """A markdown table of P/R/F1, FPR and AUROC per slice, from (gold, flagged, score) items per slice name.

    >>> print(slice_table({"all": [(True, True, 0.9), (False, False, 0.1)]}))
    | slice | n | P | R | F1 | FPR | AUROC |
    |---|---|---|---|---|---|---|
    | all | 2 | 1.000 | 1.000 | 1.000 | 0.000 | 1.000 |
    """
    lines = [f"| {title} | n | P | R | F1 | FPR | AUROC |", "|---|---|---|---|---|---|---|"]
    for name, items in by.items():
        tp = sum(1 for g, p, _ in items if g and p)
        fp = sum(1 for g, p, _ in items if p and not g)
        fn = sum(1 for g, p, _ in items if g and not p)
        neg = sum(1 for g, _, _ in items if not g)
        m = prf(tp, fp, fn)
        pos = len(items) - neg
        roc = auroc([s for *_, s in items], [g for g, *_ in items]) if pos and neg else float("nan")
        fpr = fp / neg if neg else float("nan")
        cells = [m["precision"], m["recall"], m["f1"], fpr, roc]
        lines.append(f"| {name} | {len(items)} | " + " | ".join(f"{c:.3f}" for c in cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--path", type=Path, default=DEFAULT)
    parser.add_argument("--misses", type=int, default=0, help="print this many misses and false alarms")
    parser.add_argument("--families", action="store_true", help="a row per `family` (sets that have one)")
    args = parser.parse_args(argv)
    with args.path.open(encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh if line.strip()]
    by: dict[str, list[tuple[bool, bool, float]]] = {}
    misses, alarms = [], []
    for row in rows:
        tool = row["kind"] in TOOL_KINDS
        finding = detect_injection(row["text"], source="tool_result" if tool else "user")
        gold = row["label"] == "injection"
        extra = [f"family={row['family']}"] if args.families and "family" in row else []
        for name in (*slices(row), f"source={row['source']}", f"kind={row['kind']}", *extra):
            by.setdefault(name, []).append((gold, finding.is_injection, finding.risk_score))
        if gold and not finding.is_injection:
            misses.append(row)
        elif finding.is_injection and not gold:
            alarms.append((row, finding))
    order = {"all": 0, "direct+jailbreak+user": 1, "indirect+documents": 2}
    print(slice_table(dict(sorted(by.items(), key=lambda kv: (order.get(kv[0], 3), kv[0])))))
    for row in misses[: args.misses]:
        print("MISS", row["kind"], repr(row["text"][:160]))
    for row, finding in alarms[: args.misses]:
        rules = [e.rule for e in finding.evidence][:4]
        print("ALARM", row["kind"], finding.risk_score, rules, repr(row["text"][:160]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
