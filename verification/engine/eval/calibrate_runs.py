"""Fit the run verifier's calibration (``verification/engine/runs/calibration.json``) on labelled runs.

    python bench/long_runs.py --count 200 --seed 14 > /tmp/long_runs_seed14.jsonl
    python -m verification.engine.eval.calibrate_runs ../shared/eval/groundedness_dev.jsonl \
        /tmp/long_runs_seed14.jsonl --out verification/engine/runs/calibration.json

Fitting sets: the template dev set and the seeded long runs (both written by generators, with gold spans).
The real-text sets (tooltalk_dev, the AgentDojo clean corpus, HaluEval) are never fitted on: they measure.

- Claims: a claim is *positive* when it overlaps a gold error span of a hallucinated line. Per engine label
  the share of positives is smoothed (Laplace, +1/+2); per cell ``LABEL:group`` the share is pulled towards
  its label's by ``PRIOR_WEIGHT`` pseudo-claims, so a cell seen a few times stays near its label.
- Response: a line's raw value is its largest claim probability (0 without claims); the pool-adjacent-
  violators algorithm fits the non-decreasing step map from it to the share of hallucinated lines, clipped
  to [0.005, 0.995] (a handful of lines never make a certainty).
- Thresholds, from the fitted response probabilities of the fitting lines: ``revise`` is the lowest
  probability at which at most ``MAX_CLEAN_FLAGGED`` (5 %, issue 14's bound) of the correct answers would
  be sent back; ``block`` the lowest step whose own share of hallucinated answers is at least
  ``BLOCK_PRECISION`` (95 %), never below ``revise``. Both are probabilities of the step map, so a
  threshold sits on a step the data put there.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

from verification.engine.runs import verify_run
from verification.engine.runs.calibration import Calibration, claim_group

__all__ = ["expected_calibration_error", "fit", "main", "pav"]

PRIOR_WEIGHT = 5.0
MAX_CLEAN_FLAGGED = 0.05
BLOCK_PRECISION = 0.95
CLIP = (0.005, 0.995)


def pav(points: list[tuple[float, bool]]) -> list[tuple[float, float]]:
    """Isotonic regression by pool-adjacent-violators: ``(x, y)`` steps, y the positive share from x on.

    >>> pav([(0.1, False), (0.2, True), (0.3, False), (0.9, True)])
    [(0.1, 0.0), (0.2, 0.5), (0.9, 1.0)]
    """
    # Blocks of equal x first (ties must share one value), then merge while a block is below the one before.
    by_x: dict[float, list[int]] = defaultdict(lambda: [0, 0])
    for x, y in points:
        by_x[x][0] += int(y)
        by_x[x][1] += 1
    blocks: list[list[float]] = []  # [x_start, positives, count]
    for x in sorted(by_x):
        pos, n = by_x[x]
        blocks.append([x, float(pos), float(n)])
        while len(blocks) > 1 and blocks[-2][1] / blocks[-2][2] >= blocks[-1][1] / blocks[-1][2]:
            last = blocks.pop()
            blocks[-1][1] += last[1]
            blocks[-1][2] += last[2]
    return [(b[0], round(b[1] / b[2], 4)) for b in blocks]


def expected_calibration_error(pairs: list[tuple[float, bool]], bins: int = 10) -> float | None:
    """ECE: the count-weighted mean gap between mean probability and positive share over equal-width bins.

    >>> expected_calibration_error([(0.9, True), (0.1, False)]), expected_calibration_error([(1.0, False)])
    (0.1, 1.0)
    """
    if not pairs:
        return None
    sums: dict[int, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0])
    for p, y in pairs:
        b = min(int(p * bins), bins - 1)
        sums[b][0] += p
        sums[b][1] += float(y)
        sums[b][2] += 1
    total = sum(s[2] for s in sums.values())
    gap = sum(abs(s[0] - s[1]) for s in sums.values())  # |sum p - sum y| = n * |mean p - share|
    return round(gap / total, 4)


def _labelled(paths: list[Path]) -> list[tuple[list[tuple[str, str, bool]], bool]]:
    """Per line with span labels: ([(label, kind, positive) per claim], hallucinated)."""
    out = []
    for path in paths:
        for raw in path.read_text(encoding="utf-8").splitlines():
            if not raw.strip():
                continue
            item = json.loads(raw)
            label = item["label"]
            if label.get("span_labels") is False:
                continue
            try:
                report = verify_run(item["messages"], item.get("tools"))
            except ValueError:
                continue
            gold = bool(label.get("hallucinated"))
            spans = [(s["start"], s["end"]) for s in label.get("spans", [])]
            claims = [
                (c.label, c.kind, gold and any(c.span[0] < b and a < c.span[1] for a, b in spans))
                for c in report.claims
            ]
            out.append((claims, gold))
    return out


def fit(paths: list[Path]) -> dict[str, Any]:
    """The calibration JSON object for the labelled runs in ``paths``."""
    lines = _labelled(paths)
    per_label: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    per_cell: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for claims, _ in lines:
        for label, kind, positive in claims:
            for table, key in ((per_label, label), (per_cell, f"{label}:{claim_group(kind)}")):
                table[key][0] += int(positive)
                table[key][1] += 1
    total_pos = sum(v[0] for v in per_label.values())
    total_n = sum(v[1] for v in per_label.values())
    claims_p: dict[str, float] = {"*": round((total_pos + 1) / (total_n + 2), 4)}
    for label, (pos, n) in sorted(per_label.items()):
        claims_p[label] = round((pos + 1) / (n + 2), 4)
    for cell, (pos, n) in sorted(per_cell.items()):
        prior = claims_p[cell.split(":", 1)[0]]
        claims_p[cell] = round((pos + PRIOR_WEIGHT * prior) / (n + PRIOR_WEIGHT), 4)
    partial = Calibration.from_dict({"claims": claims_p})
    raw = [
        (max((partial.claim_probability(lab, kind) for lab, kind, _ in claims), default=0.0), gold)
        for claims, gold in lines
    ]
    steps = [(x, min(max(y, CLIP[0]), CLIP[1])) for x, y in pav(raw)]
    cal = Calibration.from_dict({"claims": claims_p, "response": {"steps": steps, "none_value": 0.0}})
    probs = [(cal.response_probability_of([r]) if r else cal.response_probability_of([]), g) for r, g in raw]
    clean = [p for p, g in probs if not g]
    candidates = sorted({y for _, y in steps})
    revise = next(
        (t for t in candidates if sum(p >= t for p in clean) <= MAX_CLEAN_FLAGGED * max(len(clean), 1)), 1.01
    )
    # A step's probability is the share of hallucinated answers on it: block from the first step that is
    # hallucinated at least BLOCK_PRECISION of the time (and is not below revise).
    block = next((t for t in candidates if t >= revise and t >= BLOCK_PRECISION), 1.01)
    return {
        "claims": claims_p,
        "response": {"none_value": 0.0, "steps": [[x, y] for x, y in steps]},
        "thresholds": {"revise": revise, "block": block},
        "meta": {
            "fitted_on": [p.name for p in paths],
            "lines": len(lines),
            "claims": total_n,
            "prior_weight": PRIOR_WEIGHT,
            "max_clean_flagged": MAX_CLEAN_FLAGGED,
            "block_precision": BLOCK_PRECISION,
            "fit_ece": {
                "claim": expected_calibration_error(
                    [
                        (cal.claim_probability(lab, kind), pos)
                        for claims, _ in lines
                        for lab, kind, pos in claims
                    ]
                ),
                "response": expected_calibration_error(probs),
            },
        },
    }


def main(argv: list[str] | None = None) -> int:
    """Command line: ``calibrate_runs FILE... --out calibration.json``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    text = json.dumps(fit(args.files), indent=1, sort_keys=True)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")
    sys.stdout.write(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
