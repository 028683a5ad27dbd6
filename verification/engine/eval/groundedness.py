"""``evaluate --task groundedness``: run :func:`verify_run` over a labelled JSONL file (SPEC 6).

Response level: a run is predicted hallucinated when any claim is flagged. Span level (lines whose
``label.span_labels`` is not false): a predicted span is correct when it overlaps a gold span by at least
one character, a gold span is found when a predicted span overlaps it; character-level scores are reported
as well. Ids and extra keys never reach the engine.

Real-text sets repeat an answer (clean, rewritten, edited), so the figures are also given per answer: lines
are grouped by the run before the final answer (the same conversation turn), and ``per_answer`` counts a
group once. ``by_variant`` breaks the lines down by edit kind (from ``FILE.meta.jsonl`` when it exists,
otherwise from the ``-hal-KIND`` / ``-ok-KIND`` suffix of the id); ``false_alarm_classes`` sorts every flagged
claim that overlaps no gold span by what it is (a capitalised word at the start of a sentence, a heading, a
time, a date, a number, ...), the classes issue 14 asks to fix one at a time.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from tqdm import tqdm

from verification.engine.eval.calibrate_runs import expected_calibration_error
from verification.engine.runs import verify_run, warm_up
from verification.engine.runs.calibration import load_calibration

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


_ID_VARIANT = re.compile(r"-(hal|ok)-([a-z_+]+)$")


def _variants(path: Path, ids: list[str]) -> dict[str, str]:
    """Edit kind per line id: the meta file's ``group/variant`` or the id's ``hal-kind`` suffix."""
    meta = path.with_name(path.name.removesuffix(".jsonl") + ".meta.jsonl")
    out: dict[str, str] = {}
    if meta.is_file():
        for raw in meta.read_text(encoding="utf-8").splitlines():
            if raw.strip():
                m = json.loads(raw)
                out[str(m.get("id"))] = f"{m.get('group', '?')}/{m.get('variant', '?')}"
    for i in ids:
        if i not in out:
            found = _ID_VARIANT.search(i)
            out[i] = (
                f"{'hallucinated' if found.group(1) == 'hal' else 'clean'}/{found.group(2)}" if found else ""
            )
    return out


def _auroc(scores: list[tuple[float, bool]]) -> float | None:
    """Area under the ROC curve of ``(score, positive)`` pairs: the chance that a positive scores above a
    negative, ties counting half (the Mann-Whitney U statistic over the two counts).

    >>> _auroc([(0.9, True), (0.1, False)]), _auroc([(0.5, True), (0.5, False)]), _auroc([(1.0, True)])
    (1.0, 0.5, None)
    """
    pos = sorted(s for s, p in scores if p)
    neg = sorted(s for s, p in scores if not p)
    if not pos or not neg:
        return None
    from bisect import bisect_left, bisect_right

    wins = sum(bisect_left(neg, s) + 0.5 * (bisect_right(neg, s) - bisect_left(neg, s)) for s in pos)
    return round(wins / (len(pos) * len(neg)), 4)


def _alarm_class(claim: Any, answer: str) -> str:
    """What a false alarm is, by form, for the breakdown (never used to decide anything).

    >>> from verification.engine.runs.report import Claim
    >>> c = Claim("Please", (0, 6), "Please wait.", "entity", True, "UNSUPPORTED", 0.5)
    >>> _alarm_class(c, "Please wait.")
    'unsupported:name:sentence_initial'
    """
    kind = claim.kind
    head = f"{claim.label.lower()}:"
    if kind in ("entity", "name"):
        a, b = claim.span
        line_start = answer.rfind("\n", 0, a) + 1
        line_end = answer.find("\n", b)
        line = answer[line_start : line_end if line_end >= 0 else len(answer)].strip()
        before = answer[line_start:a].strip(" *#-\t")
        if line.endswith(":") or (len(line.split()) <= 4 and not line.endswith((".", "!", "?"))):
            return head + "name:heading"
        if not before or re.search(r"[.!?:]\W*$", before):
            return head + "name:sentence_initial"
        return head + "name:other"
    if kind in ("money", "percent", "quantity", "count", "number", "duration", "score"):
        return head + "number"
    return head + kind


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
    path = Path(path)
    lines = [ln for ln in path.read_text(encoding="utf-8").splitlines() if ln.strip()]
    ids = [str(json.loads(ln).get("id", "")) for ln in lines]
    variants = _variants(path, ids)
    by_variant: dict[str, Counter[str]] = defaultdict(Counter)
    alarm_classes: Counter[str] = Counter()
    clean_alarm_classes: Counter[str] = Counter()
    # group key (the run before the final answer) -> list of (gold, pred)
    groups: dict[str, list[tuple[bool, bool]]] = defaultdict(list)
    originals: list[bool] = []
    contradicted = cited = 0
    # (1 - overall score, hallucinated) per line and (1 - claim score, claim inside a gold span) per claim
    # of the lines with span labels: the engine's scores as probabilities of a hallucination.
    response_scores: list[tuple[float, bool]] = []
    claim_scores: list[tuple[float, bool]] = []
    # The same with the calibrated probabilities (runs/calibration.json), and the action its thresholds take.
    calibration = load_calibration()
    cal_response: list[tuple[float, bool]] = []
    cal_claims: list[tuple[float, bool]] = []
    cal_actions: dict[str, Counter[str]] = defaultdict(Counter)
    # The default gate's actions the same way, to compare the two gates on one set.
    score_actions: dict[str, Counter[str]] = defaultdict(Counter)
    tp = fp = fn = tn = 0
    stp = sfp = sfn = 0
    ctp = cfp = cfn = 0
    latencies: list[float] = []
    unverified_ok = unverified_total = 0
    gate_ok = gate_total = 0
    errors = 0
    span_cases = 0
    # The service warms every process at start-up (verification/apps.py): without the same here, the one
    # run that first converts a unit pays pint's registry load (0.3 s) and becomes the set's p99 and max.
    warm_up()
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
        variant = variants.get(ids[i], "")
        bucket = by_variant[variant or ("hallucinated" if gold else "clean")]
        bucket["lines"] += 1
        bucket["flagged"] += pred
        context = json.dumps(messages[:-1], sort_keys=True).encode()
        groups[hashlib.sha256(context).hexdigest()].append((gold, pred))
        if not gold and variant.endswith("/original"):
            originals.append(pred)
        answer = messages[-1].get("content") or "" if messages else ""
        gold_all = [(s["start"], s["end"]) for s in label.get("spans", [])]
        response_scores.append((1.0 - report.overall_score, gold))
        score_actions[report.action]["hallucinated" if gold else "clean"] += 1
        probs = calibration.of_report(report) if calibration is not None else None
        if probs is not None:
            cal_response.append((probs["response"], gold))
            cal_actions[probs["action"]]["hallucinated" if gold else "clean"] += 1
        if label.get("span_labels") is not False:
            for k, c in enumerate(report.claims):
                inside = any(c.span[0] < g[1] and g[0] < c.span[1] for g in gold_all)
                claim_scores.append((1.0 - c.score, gold and inside))
                if probs is not None:
                    cal_claims.append((probs["claims"][k], gold and inside))
        for c in report.claims:
            if c.label == "CONTRADICTED":
                contradicted += 1
                cited += bool(c.evidence_spans)
            if c.label == "SUPPORTED" or any(c.span[0] < g[1] and g[0] < c.span[1] for g in gold_all):
                continue
            cls = _alarm_class(c, answer)
            alarm_classes[cls] += 1
            if not gold:
                clean_alarm_classes[cls] += 1
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
    # Per answer: a group is one conversation turn; its clean lines are one correct answer told in several
    # ways, its hallucinated lines the edits of it. A correct answer counts as flagged when any of its
    # clean forms is; an answer's edits count as found in the share of them that is flagged.
    clean_groups = [g for g in groups.values() if any(not gold for gold, _ in g)]
    hal_groups = [g for g in groups.values() if any(gold for gold, _ in g)]
    per_answer = {
        "answers": len(groups),
        "correct_answers": len(clean_groups),
        "correct_answers_flagged": sum(1 for g in clean_groups if any(p for gold, p in g if not gold)),
        "correct_answer_flag_rate": round(
            sum(1 for g in clean_groups if any(p for gold, p in g if not gold)) / len(clean_groups), 4
        )
        if clean_groups
        else None,
        "edit_recall_macro": round(
            sum(sum(p for gold, p in g if gold) / sum(gold for gold, _ in g) for g in hal_groups)
            / len(hal_groups),
            4,
        )
        if hal_groups
        else None,
    }
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
        "per_answer": per_answer,
        # The human answers as written (meta variant "original"), the figure issue 14 targets.
        "original_clean_flag_rate": round(sum(originals) / len(originals), 4) if originals else None,
        "by_variant": {k: dict(v) for k, v in sorted(by_variant.items())},
        "auroc": {"response": _auroc(response_scores), "claim": _auroc(claim_scores)},
        "score_gate_actions": {k: dict(v) for k, v in sorted(score_actions.items())},
        # Calibrated probabilities (fitted on other sets, see calibrate_runs): their ECE and AUROC here, and
        # how the fitted thresholds' actions fall on clean and hallucinated lines.
        "calibration": {
            "ece": {
                "response": expected_calibration_error(cal_response),
                "claim": expected_calibration_error(cal_claims),
            },
            "auroc": {"response": _auroc(cal_response), "claim": _auroc(cal_claims)},
            "actions": {k: dict(v) for k, v in sorted(cal_actions.items())},
            "thresholds": calibration.thresholds,
            "fitted_on": calibration.meta.get("fitted_on"),
        }
        if calibration is not None
        else None,
        # Contradicted claims that cite the evidence saying otherwise (a report explains what it flags).
        "contradicted_claims": contradicted,
        "contradicted_with_evidence": round(cited / contradicted, 4) if contradicted else None,
        "false_alarm_classes": dict(alarm_classes.most_common()),
        "false_alarm_classes_on_clean": dict(clean_alarm_classes.most_common()),
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
