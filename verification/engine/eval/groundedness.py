"""``evaluate --task groundedness``: run :func:`verify_run` over a labelled JSONL file (SPEC 6).

Response level: a run is predicted hallucinated when any claim is flagged. Span level (lines whose
``label.span_labels`` is not false): a predicted span is correct when it overlaps a gold span by at least
one character, a gold span is found when a predicted span overlaps it; character-level scores are reported
as well. Ids and extra keys never reach the engine.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from tqdm import tqdm

from verification.engine.runs import verify_run

__all__ = ["evaluate_groundedness", "main"]


def _prf(tp: float, fp: float, fn: float) -> dict[str, float]:
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return {"precision": round(p, 4), "recall": round(r, 4), "f1": round(f, 4)}


def _pct(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    s = sorted(values)
    k = min(len(s) - 1, max(0, round(q * (len(s) - 1))))
    return round(s[k], 3)


def evaluate_groundedness(path: str | Path, *, progress: bool = True) -> dict[str, Any]:
    """Metrics of the engine on a groundedness JSONL file (keys of SPEC section 6, plus breakdowns).

    >>> import json, tempfile, os
    >>> line = {"id": "x", "messages": [{"role": "user", "content": "Write a poem."},
    ...         {"role": "assistant", "content": "Roses."}], "label": {"hallucinated": False, "spans": []}}
    >>> with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as fh:
    ...     _ = fh.write(json.dumps(line) + "\\n")
    >>> evaluate_groundedness(fh.name, progress=False)["cases"]
    1
    >>> os.unlink(fh.name)
    """
    lines = [ln for ln in Path(path).read_text(encoding="utf-8").splitlines() if ln.strip()]
    tp = fp = fn = tn = 0
    stp = sfp = sfn = 0
    ctp = cfp = cfn = 0
    latencies: list[float] = []
    unverified_ok = unverified_total = 0
    gate_ok = gate_total = 0
    errors = 0
    span_cases = 0
    for i, raw in enumerate(tqdm(lines, desc="groundedness", disable=not progress, unit="run")):
        try:
            item = json.loads(raw)
            label = item["label"]
            messages, tools = item["messages"], item.get("tools")
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            raise ValueError(f"{path}:{i + 1}: not a groundedness line ({exc})") from None
        t0 = time.perf_counter()
        try:
            report = verify_run(messages, tools)
        except ValueError:
            errors += 1
            continue
        latencies.append((time.perf_counter() - t0) * 1000)
        gold = bool(label.get("hallucinated"))
        pred = report.hallucination_detected
        tp += gold and pred
        fp += (not gold) and pred
        fn += gold and not pred
        tn += (not gold) and not pred
        if "fact_check_needed" in label:
            gate_total += 1
            gate_ok += report.fact_check_needed == bool(label["fact_check_needed"])
            if label["fact_check_needed"] and not any(m.get("role") == "tool" for m in messages):
                unverified_total += 1
                unverified_ok += report.unverified_factual and not pred
        if label.get("span_labels") is False:
            continue
        span_cases += 1
        gold_spans = [(s["start"], s["end"]) for s in label.get("spans", [])]
        pred_spans = [c.span for c in report.flagged_claims]
        stp += sum(1 for p in pred_spans if any(p[0] < g[1] and g[0] < p[1] for g in gold_spans))
        sfp += sum(1 for p in pred_spans if not any(p[0] < g[1] and g[0] < p[1] for g in gold_spans))
        sfn += sum(1 for g in gold_spans if not any(p[0] < g[1] and g[0] < p[1] for p in pred_spans))
        gchars = {c for a, b in gold_spans for c in range(a, b)}
        pchars = {c for a, b in pred_spans for c in range(a, b)}
        ctp += len(gchars & pchars)
        cfp += len(pchars - gchars)
        cfn += len(gchars - pchars)
    clean = fp + tn
    return {
        "task": "groundedness",
        "file": str(path),
        "cases": tp + fp + fn + tn,
        "errors": errors,
        "response": _prf(tp, fp, fn),
        # Files that label whole answers only (span_labels false) have no span metrics.
        "span_cases": span_cases,
        "span": _prf(stp, sfp, sfn) if span_cases else {"precision": None, "recall": None, "f1": None},
        "span_chars": _prf(ctp, cfp, cfn) if span_cases else {"precision": None, "recall": None, "f1": None},
        "false_positive_rate": round(fp / clean, 4) if clean else 0.0,
        "confusion": {"tp": tp, "fp": fp, "fn": fn, "tn": tn},
        "fact_check_gate_accuracy": round(gate_ok / gate_total, 4) if gate_total else None,
        "unverified_factual_recall": round(unverified_ok / unverified_total, 4) if unverified_total else None,
        "latency_ms": {
            "p50": _pct(latencies, 0.5),
            "p99": _pct(latencies, 0.99),
            "max": _pct(latencies, 1.0),
        },
    }


def main(argv: list[str] | None = None) -> int:
    """Command line: ``python -m verification.engine.eval.groundedness FILE [--out metrics.json]``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("file")
    parser.add_argument("--out")
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)
    metrics = evaluate_groundedness(args.file, progress=not args.no_progress)
    text = json.dumps(metrics, indent=2)
    if args.out:
        Path(args.out).write_text(text + "\n", encoding="utf-8")
    sys.stdout.write(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
