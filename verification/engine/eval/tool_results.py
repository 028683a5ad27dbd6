"""Replay a labelled tool-results stream through the verifier and measure it (SPEC section 6).

Run ``python -m verification.engine.eval.tool_results FILE.jsonl [--out metrics.json]``. Lines are
processed in order so state accumulates: profiles register, calls are verified, feedback lines pass
the confidence the engine gave the referenced call to ``record_feedback``. Call lines' ``id``, ``ts``,
``kind``, ``variant`` and ``label`` never reach the engine; they only feed the breakdowns.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from tqdm import tqdm

from verification.engine.tools import ResultRejectedError, ToolVerifier, Verdict
from verification.engine.tools.calibration import auroc, calibration_by_tool, calibration_report

__all__ = ["evaluate_tool_results", "main", "prf"]

_PROFILE_KEYS = (
    "expected_latency_ms",
    "required_fields",
    "forbidden_fields",
    "response_patterns",
    "min_response_length",
    "max_response_length",
    "has_network_io",
)


def prf(tp: int, fp: int, fn: int) -> dict[str, float]:
    """Return precision, recall and F1 from confusion counts (0 where undefined).

    >>> prf(8, 2, 2)
    {'precision': 0.8, 'recall': 0.8, 'f1': 0.8}
    """
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return {"precision": round(p, 4), "recall": round(r, 4), "f1": round(f, 4)}


def _percentile(sorted_values: list[float], q: float) -> float:
    if not sorted_values:
        return 0.0
    k = min(len(sorted_values) - 1, max(0, round(q * (len(sorted_values) - 1))))
    return sorted_values[k]


def _lines(path: Path) -> Iterator[dict[str, Any]]:
    with path.open(encoding="utf-8") as fh:
        for number, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                yield json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{number}: not JSON: {exc}") from exc


def evaluate_tool_results(
    path: str | Path, *, progress: bool = True, engine_factory: Callable[[], Any] | None = None
) -> dict[str, Any]:
    """Replay *path* through a fresh engine and return SPEC 6's tool-results metrics.

    *engine_factory* builds the engine (default: an in-memory :class:`ToolVerifier`); anything with
    the same ``register_tool_profile``, ``verify`` and ``record_feedback`` methods works.

    >>> import tempfile, json, os
    >>> lines = [{"type": "call", "tool": "t", "args": {}, "result": {"a": 1}, "execution_time_ms": 100.0,
    ...           "label": "real"}]
    >>> with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as fh:
    ...     _ = fh.write("\\n".join(json.dumps(x) for x in lines))
    >>> evaluate_tool_results(fh.name, progress=False)["calls"]
    1
    >>> os.unlink(fh.name)
    """
    path = Path(path)
    engine = engine_factory() if engine_factory is not None else ToolVerifier()
    total = sum(1 for _ in path.open(encoding="utf-8"))
    confidence_by_id: dict[str, float] = {}
    labels: list[int] = []
    scores: list[float] = []
    calibrated: list[float] = []
    verdicts: list[str] = []
    kinds: list[str] = []
    tools: list[str] = []
    latencies: list[float] = []
    rejected = 0
    feedback = 0
    bar = tqdm(_lines(path), total=total, disable=not progress, unit="line", desc="tool-results")
    for line in bar:
        kind_of_line = line.get("type")
        if kind_of_line == "profile":
            engine.register_tool_profile(line["tool"], **{k: line[k] for k in _PROFILE_KEYS if k in line})
        elif kind_of_line == "feedback":
            conf = confidence_by_id.get(line["call_id"])
            if conf is not None:
                engine.record_feedback(line["tool"], conf, bool(line["was_hallucination"]))
                feedback += 1
        elif kind_of_line == "call":
            t0 = time.perf_counter()
            try:
                res = engine.verify(
                    line["tool"],
                    line.get("args"),
                    line.get("result"),
                    float(line.get("execution_time_ms", 0.0)),
                    session_id=line.get("session_id"),
                )
                verdict = res.verdict.value if isinstance(res.verdict, Verdict) else str(res.verdict)
                conf = float(res.confidence)
                extra = getattr(res, "extra", None) or {}
                cal = float(extra.get("calibrated_confidence", conf))
            except ResultRejectedError:
                verdict, conf, cal = "block", 1.0, 1.0
                rejected += 1
            latencies.append((time.perf_counter() - t0) * 1000.0)
            if "id" in line:
                confidence_by_id[line["id"]] = conf
            if "label" in line:
                labels.append(1 if line["label"] == "fabricated" else 0)
                scores.append(conf)
                calibrated.append(cal)
                verdicts.append(verdict)
                kinds.append(str(line.get("kind", line["label"])))
                tools.append(line["tool"])
        else:
            raise ValueError(f"unknown line type {kind_of_line!r}")
    return _metrics(labels, scores, verdicts, kinds, tools, latencies, rejected, feedback, calibrated)


def _metrics(
    labels: list[int],
    scores: list[float],
    verdicts: list[str],
    kinds: list[str],
    tools: list[str],
    latencies: list[float],
    rejected: int,
    feedback: int,
    calibrated: list[float] | None = None,
) -> dict[str, Any]:
    def _confusion(positive: set[str]) -> dict[str, float]:
        tp = sum(1 for y, v in zip(labels, verdicts, strict=True) if y and v in positive)
        fp = sum(1 for y, v in zip(labels, verdicts, strict=True) if not y and v in positive)
        fn = sum(1 for y, v in zip(labels, verdicts, strict=True) if y and v not in positive)
        return prf(tp, fp, fn)

    per_kind: dict[str, list[int]] = {}
    per_kind_any: dict[str, list[int]] = {}
    real_kind: dict[str, list[int]] = {}
    for y, v, k in zip(labels, verdicts, kinds, strict=True):
        if y:
            per_kind.setdefault(k, []).append(v == "block")
            per_kind_any.setdefault(k, []).append(v != "accept")
        else:
            real_kind.setdefault(k, []).append(v == "block")
    n_real = labels.count(0)
    lat = sorted(latencies)
    tool_counts: dict[str, Counter[str]] = {}
    for y, v, t in zip(labels, verdicts, tools, strict=True):
        tool_counts.setdefault(t, Counter())[f"{'fab' if y else 'real'}_{v}"] += 1
    metrics: dict[str, Any] = {
        "calls": len(latencies),
        "block": _confusion({"block"}),
        "flag_or_block": _confusion({"block", "flag"}),
        "real_blocked_rate": round(
            sum(1 for y, v in zip(labels, verdicts, strict=True) if not y and v == "block") / n_real, 4
        )
        if n_real
        else 0.0,
        "real_flagged_or_blocked_rate": round(
            sum(1 for y, v in zip(labels, verdicts, strict=True) if not y and v != "accept") / n_real, 4
        )
        if n_real
        else 0.0,
        "auroc": round(auroc(scores, labels), 4) if 0 < sum(labels) < len(labels) else None,
        "per_kind_recall": {k: round(sum(v) / len(v), 4) for k, v in sorted(per_kind.items())},
        "per_kind_flag_or_block_recall": {
            k: round(sum(v) / len(v), 4) for k, v in sorted(per_kind_any.items())
        },
        "real_blocked_by_kind": {k: round(sum(v) / len(v), 4) for k, v in sorted(real_kind.items())},
        "per_tool": {t: dict(sorted(c.items())) for t, c in sorted(tool_counts.items())},
        "latency_ms": {"p50": round(_percentile(lat, 0.50), 4), "p99": round(_percentile(lat, 0.99), 4)},
        "rejected": rejected,
        "feedback_applied": feedback,
    }
    if labels and 0 < sum(labels) < len(labels):
        # "calibration": the confidence the engine reports (its calibrated confidence when it has a
        # calibrator, else the posterior), with reliability-diagram bins; "calibration_raw": the posterior.
        # AUROC is the posterior's (a monotone map only adds ties).
        reported = calibrated if calibrated is not None and len(calibrated) == len(labels) else scores
        metrics["calibration"] = calibration_report(reported, labels).to_dict()
        metrics["calibration_raw"] = calibration_report(scores, labels).to_dict()
        metrics["calibration_by_tool"] = {
            t: {"n": r.n, "positives": r.positives, "brier": round(r.brier, 6), "ece": round(r.ece, 6)}
            for t, r in calibration_by_tool(zip(tools, reported, labels, strict=True)).items()
        }
    return metrics


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point: print (or write with ``--out``) the metrics JSON.

    >>> main(["--help"])  # doctest: +SKIP
    """
    parser = argparse.ArgumentParser(
        description="Evaluate the tool-result verifier on a labelled JSONL stream."
    )
    parser.add_argument("file", type=Path)
    parser.add_argument("--out", type=Path, default=None, help="write metrics JSON here")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    ns = parser.parse_args(argv)
    metrics = evaluate_tool_results(ns.file, progress=not ns.no_progress)
    text = json.dumps(metrics, indent=2)
    if ns.out is not None:
        ns.out.write_text(text + "\n", encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
