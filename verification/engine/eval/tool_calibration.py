"""Fit the shipped calibration map (``tools/confidence.py``) and choose thresholds, from dev streams only.

Run ``python -m verification.engine.eval.tool_calibration`` to replay the generated development
streams (``tool_streams.CALIBRATION_SEEDS``; never the shared stream, never ``HELDOUT_SEEDS``) through
an engine without a calibrator, fit an isotonic map on every posterior pooled, thin it to knots at
posterior quantiles, and print the knots with leave-one-seed-out ECE (isotonic knots against Platt),
so the choice of map is itself measured on streams it was not fitted on. ``--thresholds 0.4,0.5``
also replays each stream at each block threshold (a verdict changes what is learned, so every
threshold needs its own replay) and prints mean block F1 and real calls blocked per threshold.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

import numpy as np

from verification.engine.eval.tool_streams import CALIBRATION_SEEDS, generate_stream
from verification.engine.tools import ResultRejectedError, ToolVerifier, Verdict
from verification.engine.tools.calibration import (
    IsotonicCalibrator,
    PlattCalibrator,
    calibration_report,
)
from verification.engine.tools.confidence import TableCalibrator

__all__ = ["fit_knots", "main", "replay"]

_PROFILE_KEYS = (
    "expected_latency_ms",
    "required_fields",
    "forbidden_fields",
    "response_patterns",
    "min_response_length",
    "max_response_length",
    "has_network_io",
)


def replay(lines: Sequence[dict[str, Any]], engine: ToolVerifier) -> tuple[list[float], list[int], list[str]]:
    """Replay stream *lines* through *engine*; return posteriors, labels (1 = fabricated) and verdicts.

    >>> p, y, v = replay(generate_stream(3, calls=60), ToolVerifier(calibrator=None))
    >>> len(p) == len(y) == len(v) == 60
    True
    """
    posterior_by_id: dict[str, float] = {}
    scores: list[float] = []
    labels: list[int] = []
    verdicts: list[str] = []
    for line in lines:
        kind = line["type"]
        if kind == "profile":
            engine.register_tool_profile(line["tool"], **{k: line[k] for k in _PROFILE_KEYS if k in line})
        elif kind == "feedback":
            p = posterior_by_id.get(line["call_id"])
            if p is not None:
                engine.record_feedback(line["tool"], p, bool(line["was_hallucination"]))
        else:
            try:
                r = engine.verify(
                    line["tool"],
                    line.get("args"),
                    line.get("result"),
                    float(line.get("execution_time_ms", 0.0)),
                    session_id=line.get("session_id"),
                )
                p, verdict = r.posterior, r.verdict.value
            except ResultRejectedError:
                p, verdict = 1.0, Verdict.BLOCK.value
            posterior_by_id[line["id"]] = p
            scores.append(p)
            labels.append(1 if line["label"] == "fabricated" else 0)
            verdicts.append(verdict)
    return scores, labels, verdicts


def fit_knots(scores: Sequence[float], labels: Sequence[int], n_knots: int = 24) -> list[tuple[float, float]]:
    """Fit isotonic regression and keep its value at *n_knots* quantiles of the posteriors (plus 0, 1).

    Thinning keeps the map smooth where there are few calls (the isotonic steps there rest on a
    handful of labels) and small enough to ship as constants.

    >>> fit_knots([0.1, 0.2, 0.8, 0.9] * 10, [0, 0, 1, 1] * 10, n_knots=4)[0]
    (0.0, 0.0)
    """
    iso = IsotonicCalibrator().fit(scores, labels)
    qs = np.quantile(np.asarray(scores, dtype=float), np.linspace(0.0, 1.0, n_knots))
    # Quantiles put knots where the calls are (below the accept threshold); a 0.05 grid keeps the
    # flag band, where few calls fall but the map changes fastest, resolved too.
    grid = (round(0.05 * k, 2) for k in range(1, 20))
    xs = sorted({0.0, 1.0, *grid, *(round(float(q), 4) for q in qs)})
    knots: list[tuple[float, float]] = []
    for x in xs:
        y = round(iso.predict(x), 4)
        if knots and y < knots[-1][1]:
            y = knots[-1][1]
        knots.append((x, y))
    return knots


def _f1(labels: Sequence[int], verdicts: Sequence[str]) -> tuple[float, float]:
    tp = sum(1 for y, v in zip(labels, verdicts, strict=True) if y and v == "block")
    fp = sum(1 for y, v in zip(labels, verdicts, strict=True) if not y and v == "block")
    fn = sum(1 for y, v in zip(labels, verdicts, strict=True) if y and v != "block")
    f1 = 2 * tp / (2 * tp + fp + fn) if tp else 0.0
    real = labels.count(0)
    return f1, fp / real if real else 0.0


def main(argv: list[str] | None = None) -> int:
    """Print the fitted knots, leave-one-seed-out ECE and (optionally) the threshold sweep."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--calls", type=int, default=4000)
    parser.add_argument("--knots", type=int, default=24)
    parser.add_argument("--thresholds", default="", help="comma-separated block thresholds to sweep")
    ns = parser.parse_args(argv)
    streams = {seed: generate_stream(seed, calls=ns.calls) for seed in CALIBRATION_SEEDS}
    per_seed = {seed: replay(lines, ToolVerifier(calibrator=None)) for seed, lines in streams.items()}
    all_s = [s for seed in per_seed for s in per_seed[seed][0]]
    all_y = [y for seed in per_seed for y in per_seed[seed][1]]
    print("leave-one-seed-out ECE (raw / isotonic knots / Platt):")
    for seed, (s, y, _) in per_seed.items():
        rest_s = [v for k, (ss, _, _) in per_seed.items() if k != seed for v in ss]
        rest_y = [v for k, (_, yy, _) in per_seed.items() if k != seed for v in yy]
        table = TableCalibrator(fit_knots(rest_s, rest_y, ns.knots))
        platt = PlattCalibrator().fit(rest_s, rest_y)
        print(
            f"  seed {seed}: {calibration_report(s, y).ece:.4f} / "
            f"{calibration_report(table.predict_many(s), y).ece:.4f} / "
            f"{calibration_report(platt.predict_many(s), y).ece:.4f}"
        )
    knots = fit_knots(all_s, all_y, ns.knots)
    print("DEFAULT_KNOTS = (")
    for kx, ky in knots:
        print(f"    ({kx}, {ky}),")
    print(")")
    for text in filter(None, ns.thresholds.split(",")):
        threshold = float(text)
        results = [
            _f1(*replay(lines, ToolVerifier(calibrator=None, block_threshold=threshold))[1:])
            for lines in streams.values()
        ]
        f1 = sum(r[0] for r in results) / len(results)
        worst = max(r[1] for r in results)
        print(f"block threshold {threshold}: mean block F1 {f1:.4f}, worst real-blocked rate {worst:.4%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
