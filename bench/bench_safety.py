"""Compare our safety engines with the llmverify npm package on the same labelled corpora.

Runs, in one process, for every split of ``bench/corpora`` (dev and held-out):

- prompt injection: detection precision/recall/F1, false-positive rate on benign look-alikes, recall per
  category, category accuracy (llmverify's categories mapped onto ours), throughput;
- PII: entity-level precision/recall/F1 (type-compatible, overlapping), line-level "has PII" precision
  and recall, recall per type, false-positive rate per look-alike kind, how many true values survive
  redaction (leak rate), throughput;
- one long document (200 000 characters of corpus lines): time per document, for both tools;
- hallucination risk: AUROC of the risk score on the HaluEval QA dev set of ``../shared/eval`` (if
  present), for both tools.

llmverify runs through ``node bench/node/llmverify_safety.js`` on the same inputs.  Both sides are timed
the same way: in-process (no start-up or file reading), after one untimed warm-up run over the same
inputs, best of ``--repeats`` runs of ``LOOPS`` (10) passes each (one pass for the long document), in
``ROUNDS`` (3) alternating rounds of ours then llmverify, the best over all rounds, both pinned to one
CPU (``--cpu``; see ``pin_to_one_cpu``).
The headline is CPU time of the process (``time.process_time`` and node's ``process.cpuUsage``),
because the machine is shared and loaded and wall time then mostly measures the other tenants; wall
time is recorded too.  Every speed row also gives the ratio ours / llmverify (above 1: we are faster).
Results go to ``bench/results/safety.json`` and markdown tables are printed.

    python bench/bench_safety.py [--repeats 3] [--splits dev holdout] [--halueval PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from verification.engine.safety import (  # noqa: E402  (the repository root must be on the path first)
    detect_injection,
    detect_pii,
    prepare_injection_prefilter,
    prepare_pii_prefilter,
    redact_pii,
    score_hallucination_risk,
)

CORPORA = ROOT / "bench" / "corpora"
RESULTS = ROOT / "bench" / "results" / "safety.json"
NODE_SCRIPT = ROOT / "bench" / "node" / "llmverify_safety.js"
DEFAULT_HALUEVAL = Path(__file__).resolve().parents[1].parent / "shared" / "eval" / "halueval_qa_dev.jsonl"

# llmverify's attack types mapped onto our nine categories.
LLMVERIFY_CATEGORY = {
    "systemOverride": "system_override",
    "policyBypass": "instruction_manipulation",
    "jailbreak": "instruction_manipulation",
    "roleplayManipulation": "instruction_manipulation",
    "contextExfiltration": "context_exfiltration",
    "completionLeak": "context_exfiltration",
    "toolAbuse": "tool_abuse",
    "encodingAttack": "encoding_bypass",
    "indirectInjection": "delimiter_attack",  # its patterns are chat-markup markers ([INST], <|system|>)
}
# llmverify's PII types mapped onto ours (None: no counterpart in our taxonomy).
LLMVERIFY_PII = {
    "EMAIL": "email",
    "PHONE_US": "phone_nanp",
    "PHONE_INTL": "phone_intl",
    "SSN": "us_ssn",
    "PASSPORT": "passport",
    "DRIVERS_LICENSE": "drivers_license",
    "DATE_OF_BIRTH": "date_of_birth",
    "CREDIT_CARD": "payment_card",
    "BANK_ACCOUNT": "bank_account",
    "ROUTING_NUMBER": "aba_routing",
    "IBAN": "iban",
    "API_KEY": "generic_secret",
    "AWS_KEY": "aws_access_key",
    "AWS_SECRET": "aws_secret_key",
    "GITHUB_TOKEN": "github_token",
    "SLACK_TOKEN": "slack_token",
    "STRIPE_KEY": "stripe_key",
    "JWT_TOKEN": "jwt",
    "PRIVATE_KEY": "private_key",
    "PASSWORD_INLINE": "password",
    "IP_ADDRESS": "ipv4",
    "IPV6_ADDRESS": "ipv6",
    "MAC_ADDRESS": "mac_address",
    "US_ADDRESS": "postal_address",
    "ZIP_CODE": None,
    "MEDICAL_RECORD": "medical_record",
}
# A generic "secret"/"API key" prediction counts for any credential type (for both tools).
CREDENTIALS = frozenset(
    {
        "generic_secret", "openai_key", "anthropic_key", "stripe_key", "github_token", "gitlab_token",
        "google_api_key", "slack_token", "aws_secret_key", "aws_access_key", "npm_token", "sendgrid_key",
        "password",
    }
)  # fmt: skip
# Phone types differ by layout only: any of them counts for the generated corpora's "phone".
PHONES = frozenset({"phone_nanp", "phone_intl", "phone_national"})
# A prediction may start this many characters before the gold value ("password: X" matched from "password").
START_SLACK = 30


def load(path: Path) -> list[dict[str, Any]]:
    """Read a JSONL file."""
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def prf(tp: int, fp: int, fn: int) -> dict[str, float]:
    """Precision, recall and F1 (0 where undefined)."""
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return {"precision": round(p, 4), "recall": round(r, 4), "f1": round(f, 4), "tp": tp, "fp": fp, "fn": fn}


def auroc(scores: Sequence[float], labels: Sequence[bool]) -> float:
    """Area under the ROC curve by the rank-sum formula (ties count one half)."""
    pos = [s for s, y in zip(scores, labels, strict=True) if y]
    neg = [s for s, y in zip(scores, labels, strict=True) if not y]
    if not pos or not neg:
        return float("nan")
    wins = 0.0
    for p in pos:
        for n in neg:
            wins += 1.0 if p > n else 0.5 if p == n else 0.0
    return round(wins / (len(pos) * len(neg)), 4)


Timing = tuple[float, float]  # (best CPU ms, best wall ms)


LOOPS = 10  # passes over the input per timed repeat, on both sides: short runs time too noisily


def timed(fn: Callable[[], list[Any]], repeats: int, loops: int = LOOPS) -> tuple[list[Any], Timing]:
    """Run ``fn`` once untimed (lazy imports, caches), then ``repeats`` times ``loops`` passes; return its
    output and the best time of one pass in ms.

    The best (minimum) time is the least disturbed by other load on the machine (as ``timeit`` does).
    CPU time is the process's user + system time, which other processes on the box barely affect.
    """
    cpu: list[float] = []
    wall: list[float] = []
    out = fn()
    for _ in range(repeats):
        start_cpu, start = time.process_time(), time.perf_counter()
        for _ in range(loops):
            out = fn()
        wall.append((time.perf_counter() - start) * 1000 / loops)
        cpu.append((time.process_time() - start_cpu) * 1000 / loops)
    return out, (min(cpu), min(wall))


def run_node(
    task: str, rows: list[dict[str, Any]], repeats: int, loops: int = LOOPS
) -> tuple[list[dict[str, Any]], Timing]:
    """Run llmverify on ``rows`` through node; return its per-row results and best CPU and wall ms."""
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False, encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row) + "\n")
        path = fh.name
    try:
        proc = subprocess.run(
            ["node", str(NODE_SCRIPT), task, path, str(repeats), str(loops)],
            check=True,
            capture_output=True,
            text=True,
            cwd=ROOT,
        )
    finally:
        Path(path).unlink(missing_ok=True)
    payload = json.loads(proc.stdout)
    return payload["results"], (min(payload["cpu_ms"]), min(payload["elapsed_ms"]))


# Rounds of (ours, then llmverify), each side's best taken over all of them.  The machine's speed drifts
# by a third over minutes (a shared box); timing each side once, one after the other, let a slow spell
# land on one side only and swung single rows by +-30 %.  Alternating rounds give both sides the same
# spells.
ROUNDS = 3


def side_by_side(
    ours: Callable[[], list[Any]],
    task: str,
    node_rows: list[dict[str, Any]],
    repeats: int,
    loops: int = LOOPS,
) -> tuple[list[Any], Timing, list[dict[str, Any]], Timing]:
    """``timed(ours)`` and ``run_node(task, node_rows)`` in ``ROUNDS`` alternating rounds: both outputs and
    each side's best CPU and wall ms over all rounds."""
    ours_cpu, ours_wall, their_cpu, their_wall = [], [], [], []
    out: list[Any] = []
    theirs: list[dict[str, Any]] = []
    for _ in range(ROUNDS):
        out, (cpu, wall) = timed(ours, repeats, loops)
        ours_cpu.append(cpu)
        ours_wall.append(wall)
        theirs, (cpu, wall) = run_node(task, node_rows, repeats, loops)
        their_cpu.append(cpu)
        their_wall.append(wall)
    return out, (min(ours_cpu), min(ours_wall)), theirs, (min(their_cpu), min(their_wall))


def throughput(rows: int, chars: int, timing: Timing) -> dict[str, float]:
    """Lines and characters per second of CPU time for a timed run (and lines per wall-clock second)."""
    cpu_ms, wall_ms = timing
    seconds = max(cpu_ms, 1e-6) / 1000
    return {
        "cpu_ms": round(cpu_ms, 2),
        "wall_ms": round(wall_ms, 2),
        "lines_per_s": round(rows / seconds, 1),
        "kchars_per_s": round(chars / seconds / 1000, 1),
        "lines_per_wall_s": round(rows / (max(wall_ms, 1e-6) / 1000), 1),
    }


def ratio(ours: dict[str, float], theirs: dict[str, float]) -> float:
    """How many times faster we are (CPU time; above 1 means faster than llmverify)."""
    return round(theirs["cpu_ms"] / max(ours["cpu_ms"], 1e-6), 2)


# --- prompt injection ----------------------------------------------------------------------------


def injection_metrics(
    rows: list[dict[str, Any]], predicted: list[bool], category: list[str | None]
) -> dict[str, Any]:
    """Detection and category metrics for one tool on one split."""
    tp = fp = fn = 0
    per_cat: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    right_category = 0
    for row, hit, cat in zip(rows, predicted, category, strict=True):
        gold = row["label"] == "injection"
        if gold:
            per_cat[row["category"]][1] += 1
            if hit:
                tp += 1
                per_cat[row["category"]][0] += 1
                right_category += cat == row["category"]
            else:
                fn += 1
        elif hit:
            fp += 1
    benign = sum(1 for r in rows if r["label"] != "injection")
    return {
        **prf(tp, fp, fn),
        "false_positive_rate": round(fp / benign, 4) if benign else 0.0,
        "category_accuracy_on_detected": round(right_category / tp, 4) if tp else 0.0,
        "recall_per_category": {c: round(h / n, 4) for c, (h, n) in sorted(per_cat.items())},
    }


def bench_injection(rows: list[dict[str, Any]], repeats: int) -> dict[str, Any]:
    """Both tools on one injection split."""
    chars = sum(len(r["text"]) for r in rows)

    def ours() -> list[Any]:
        return [detect_injection(r["text"], source=r["source"], history=r.get("history", ())) for r in rows]

    # llmverify has no notion of history or source: give it the whole conversation as one text.
    node_rows = [{"id": r["id"], "text": "\n".join([*r.get("history", []), r["text"]])} for r in rows]
    findings, ours_ms, theirs, theirs_ms = side_by_side(ours, "injection", node_rows, repeats)
    their_cat: list[str | None] = []
    for res in theirs:
        best = max(res["findings"], key=lambda f: f["score"], default=None)
        their_cat.append(None if best is None else LLMVERIFY_CATEGORY.get(best["type"]))
    result: dict[str, Any] = {
        "lines": len(rows),
        "ours": {
            **injection_metrics(rows, [f.is_injection for f in findings], [f.category for f in findings]),
            "auroc": auroc([f.risk_score for f in findings], [r["label"] == "injection" for r in rows]),
            "throughput": throughput(len(rows), chars, ours_ms),
        },
        "llmverify": {
            **injection_metrics(rows, [bool(res["findings"]) for res in theirs], their_cat),
            "auroc": auroc([res["risk"] for res in theirs], [r["label"] == "injection" for r in rows]),
            "throughput": throughput(len(rows), chars, theirs_ms),
        },
    }
    result["speed_ratio"] = ratio(result["ours"]["throughput"], result["llmverify"]["throughput"])
    return result


# --- PII -----------------------------------------------------------------------------------------


def compatible(predicted: str | None, gold: str) -> bool:
    """Whether a predicted type counts for a gold type."""
    if predicted is None:
        return False
    return (
        predicted == gold
        or (predicted == "generic_secret" and gold in CREDENTIALS)
        or (gold == "phone" and predicted in PHONES)
        or (gold == "location" and predicted in ("postal_address", "location"))
    )


def pii_metrics(
    rows: list[dict[str, Any]], predictions: list[list[tuple[str | None, int]]], redacted: list[str]
) -> dict[str, Any]:
    """Entity, line, per-type, look-alike and leak metrics for one tool; predictions are (type, start)."""
    tp = fp = fn = 0
    line_tp = line_fp = line_fn = 0
    per_type: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    lookalike: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    leaked = total_values = 0
    # Per-type precision needs the false alarms by type: a phone prediction counts against "phone" where
    # the gold says "phone" (the generated corpora), else against its own name.
    phone_gold = any(g["type"] == "phone" for row in rows for g in row["entities"])
    false_by_type: dict[str, int] = defaultdict(int)
    for row, preds, red in zip(rows, predictions, redacted, strict=True):
        gold = row["entities"]
        used: set[int] = set()
        for ptype, pstart in preds:
            match = next(
                (
                    i
                    for i, g in enumerate(gold)
                    if i not in used
                    and g["start"] - START_SLACK <= pstart < g["end"]
                    and compatible(ptype, g["type"])
                ),
                None,
            )
            if match is None:
                fp += 1
                name = "phone" if phone_gold and ptype in PHONES else str(ptype)
                false_by_type[name] += 1
            else:
                used.add(match)
                tp += 1
        fn += len(gold) - len(used)
        for i, g in enumerate(gold):
            per_type[g["type"]][1] += 1
            per_type[g["type"]][0] += i in used
            total_values += 1
            leaked += g["value"] in red
        has_gold, has_pred = bool(gold), bool(preds)
        line_tp += has_gold and has_pred
        line_fp += (not has_gold) and has_pred
        line_fn += has_gold and not has_pred
        if not gold:
            lookalike[row["lookalike"]][1] += 1
            lookalike[row["lookalike"]][0] += has_pred
    return {
        "entity": prf(tp, fp, fn),
        "line": prf(line_tp, line_fp, line_fn),
        "recall_per_type": {t: round(h / n, 4) for t, (h, n) in sorted(per_type.items())},
        "f1_per_type": {t: prf(h, false_by_type[t], n - h)["f1"] for t, (h, n) in sorted(per_type.items())},
        "lookalike_flagged_rate": {t: round(h / n, 4) for t, (h, n) in sorted(lookalike.items())},
        "values_leaked_after_redaction": {
            "leaked": leaked,
            "of": total_values,
            "rate": round(leaked / total_values, 4),
        },
    }


def bench_pii(rows: list[dict[str, Any]], repeats: int) -> dict[str, Any]:
    """Both tools on one PII split."""
    chars = sum(len(r["text"]) for r in rows)

    def ours() -> list[Any]:
        return [detect_pii(r["text"]) for r in rows]

    node_rows = [{"id": r["id"], "text": r["text"]} for r in rows]
    found, ours_ms, theirs, theirs_ms = side_by_side(ours, "pii", node_rows, repeats)
    redacted = [redact_pii(r["text"], matches=m).text for r, m in zip(rows, found, strict=True)]
    their_preds = [
        [(LLMVERIFY_PII.get(x["type"]), x["position"]) for x in res["redactions"]] for res in theirs
    ]
    result: dict[str, Any] = {
        "lines": len(rows),
        "entities": sum(len(r["entities"]) for r in rows),
        "ours": {
            **pii_metrics(rows, [[(m.type, m.start) for m in ms] for ms in found], redacted),
            "throughput": throughput(len(rows), chars, ours_ms),
        },
        "llmverify": {
            **pii_metrics(rows, their_preds, [res["redacted"] for res in theirs]),
            "throughput": throughput(len(rows), chars, theirs_ms),
        },
    }
    result["speed_ratio"] = ratio(result["ours"]["throughput"], result["llmverify"]["throughput"])
    return result


# --- hallucination risk ----------------------------------------------------------------------------


def halueval_rows(path: Path) -> list[dict[str, Any]]:
    """(prompt, output, label) from HaluEval QA lines: the prompt is the question plus the tool passages."""
    rows = []
    for line in load(path):
        messages = line["messages"]
        prompt = "\n".join(
            m["content"] for m in messages if m["role"] in ("user", "tool") and m.get("content")
        )
        output = messages[-1]["content"] or ""
        rows.append(
            {
                "id": line["id"],
                "prompt": prompt,
                "output": output,
                "label": bool(line["label"]["hallucinated"]),
            }
        )
    return rows


def bench_risk(rows: list[dict[str, Any]], repeats: int) -> dict[str, Any]:
    """AUROC of both tools' risk scores against the hallucination labels."""
    labels = [r["label"] for r in rows]

    def ours() -> list[Any]:
        return [score_hallucination_risk(r["output"], prompt=r["prompt"]).score for r in rows]

    node_rows = [{k: r[k] for k in ("id", "prompt", "output")} for r in rows]
    scores, ours_ms, theirs, theirs_ms = side_by_side(ours, "risk", node_rows, repeats)
    chars = sum(len(r["output"]) + len(r["prompt"]) for r in rows)
    result: dict[str, Any] = {
        "lines": len(rows),
        "hallucinated": sum(labels),
        "ours": {"auroc": auroc(scores, labels), "throughput": throughput(len(rows), chars, ours_ms)},
        "llmverify": {
            "auroc": auroc([res["risk"] for res in theirs], labels),
            "throughput": throughput(len(rows), chars, theirs_ms),
        },
    }
    result["speed_ratio"] = ratio(result["ours"]["throughput"], result["llmverify"]["throughput"])
    return result


# --- one long document ------------------------------------------------------------------------------


def bench_long_document(texts: list[str], repeats: int, size: int = 200_000) -> dict[str, Any]:
    """Time both tools on one ``size``-character document made of corpus lines (throughput on long input)."""
    joined = "\n".join(texts)
    doc = (joined * (size // max(1, len(joined)) + 1))[:size]
    out: dict[str, Any] = {"chars": len(doc)}
    for task, ours in (("injection", lambda: [detect_injection(doc)]), ("pii", lambda: [detect_pii(doc)])):
        _, (ours_cpu, ours_wall), _, (theirs_cpu, theirs_wall) = side_by_side(
            ours, task, [{"id": "doc", "text": doc}], repeats, loops=1
        )
        out[task] = {
            "ours_cpu_ms": round(ours_cpu, 1),
            "llmverify_cpu_ms": round(theirs_cpu, 1),
            "ours_wall_ms": round(ours_wall, 1),
            "llmverify_wall_ms": round(theirs_wall, 1),
            "speed_ratio": round(theirs_cpu / max(ours_cpu, 1e-6), 2),
        }
    return out


# --- report ------------------------------------------------------------------------------------------


def markdown(results: dict[str, Any]) -> str:
    """The headline numbers as two markdown tables: detection, then speed (CPU time) with the ratio."""
    lines = ["| task | split | metric | ours | llmverify |", "|---|---|---|---|---|"]
    speed = [
        "| task | input | ours | llmverify | ours ÷ llmverify (speed) | wall: ours / llmverify |",
        "|---|---|---|---|---|---|",
    ]

    def rate(task: str, split: str, block: dict[str, Any]) -> None:
        o, t = block["ours"]["throughput"], block["llmverify"]["throughput"]
        speed.append(
            f"| {task} | {split} | {o['lines_per_s']:.0f} lines/s | {t['lines_per_s']:.0f} lines/s "
            f"| {block['speed_ratio']} | {o['lines_per_wall_s']:.0f} / {t['lines_per_wall_s']:.0f} lines/s |"
        )

    for split, block in results["injection"].items():
        o, t = block["ours"], block["llmverify"]
        for name in (
            "precision",
            "recall",
            "f1",
            "false_positive_rate",
            "category_accuracy_on_detected",
            "auroc",
        ):
            lines.append(f"| injection | {split} | {name} | {o[name]} | {t[name]} |")
        rate("injection", split, block)
    for split, block in results["pii"].items():
        o, t = block["ours"], block["llmverify"]
        for level in ("entity", "line"):
            for name in ("precision", "recall", "f1"):
                lines.append(f"| pii | {split} | {level} {name} | {o[level][name]} | {t[level][name]} |")
        lines.append(
            f"| pii | {split} | values leaked after redaction | {o['values_leaked_after_redaction']['rate']} "
            f"| {t['values_leaked_after_redaction']['rate']} |"
        )
        rate("pii", split, block)
        if split.startswith("generated"):
            for kind, f1 in o["f1_per_type"].items():
                lines.append(f"| pii | {split} | F1 {kind} | {f1} | {t['f1_per_type'].get(kind, 0.0)} |")
    if "long_document" in results:
        block = results["long_document"]
        for task in ("injection", "pii"):
            row = block[task]
            speed.append(
                f"| {task} | one {block['chars']}-char document | {row['ours_cpu_ms']} ms "
                f"| {row['llmverify_cpu_ms']} ms | {row['speed_ratio']} "
                f"| {row['ours_wall_ms']} / {row['llmverify_wall_ms']} ms |"
            )
    if "risk" in results:
        o, t = results["risk"]["ours"], results["risk"]["llmverify"]
        lines.append(f"| hallucination risk | halueval_qa_dev | auroc | {o['auroc']} | {t['auroc']} |")
        rate("hallucination risk", "halueval_qa_dev", results["risk"])
    return "\n".join(lines) + "\n\nSpeed, CPU time (best of the repeats):\n\n" + "\n".join(speed)


def pin_to_one_cpu(cpu: int | None) -> int | None:
    """Run this process, and the node processes it starts (they inherit it), on one CPU; which one.

    Left to the scheduler, a process here moves between the box's two CPUs, and a process that does
    so ran the same work in 14 or in 21 ms, at random, for its whole life (node too: 8 or 13 ms).  On
    one CPU both tools run at their steady speed.  Where affinity cannot be set, nothing is pinned.
    """
    if not hasattr(os, "sched_setaffinity"):
        return None  # not on macOS or Windows
    chosen = min(os.sched_getaffinity(0)) if cpu is None else cpu
    os.sched_setaffinity(0, {chosen})
    return chosen


def main(argv: list[str] | None = None) -> int:
    """Run the comparison and write ``bench/results/safety.json``."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeats", type=int, default=5, help="timed repetitions (best reported)")
    parser.add_argument("--splits", nargs="+", default=["dev", "holdout"], choices=["dev", "holdout"])
    parser.add_argument("--halueval", type=Path, default=DEFAULT_HALUEVAL)
    parser.add_argument(
        "--generated",
        action="store_true",
        help="also run PII on bench/corpora/generated/ (make_pii_generated.py: Faker values)",
    )
    parser.add_argument("--pii-only", action="store_true", help="run the PII comparisons only")
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument(
        "--cpu", type=int, default=None, help="the CPU both tools run on (default: the first one allowed)"
    )
    args = parser.parse_args(argv)
    if args.cpu is not None and hasattr(os, "sched_getaffinity") and args.cpu not in os.sched_getaffinity(0):
        parser.error(f"--cpu {args.cpu}: this process may run on CPUs {sorted(os.sched_getaffinity(0))}")
    cpu = pin_to_one_cpu(args.cpu)
    # A server has long since loaded (or built) the long-text prefilter when traffic arrives: so here.
    results: dict[str, Any] = {
        "injection": {},
        "pii": {},
        "injection_prefilter_ready": prepare_injection_prefilter(timeout=None),
        "pii_prefilter_ready": prepare_pii_prefilter(timeout=None),
    }
    for split in args.splits:
        if not args.pii_only:
            results["injection"][split] = bench_injection(
                load(CORPORA / f"injection_{split}.jsonl"), args.repeats
            )
        results["pii"][split] = bench_pii(load(CORPORA / f"pii_{split}.jsonl"), args.repeats)
        generated = CORPORA / "generated" / f"pii_{split}.jsonl"
        if args.generated and generated.exists():
            results["pii"][f"generated_{split}"] = bench_pii(load(generated), args.repeats)
    # The second hold-out, from presidio-evaluator's templates and people (make_pii_generated.py --presidio).
    presidio = CORPORA / "generated" / "pii_presidio.jsonl"
    if args.generated and presidio.exists():
        results["pii"]["generated_presidio"] = bench_pii(load(presidio), args.repeats)
    # Names and towns of ten locales (make_pii_generated.py, issue 16): dev and hold-out.
    for part in ("dev", "holdout"):
        intl = CORPORA / "generated" / f"pii_intl_{part}.jsonl"
        if args.generated and intl.exists():
            results["pii"][f"generated_intl_{part}"] = bench_pii(load(intl), args.repeats)
    dev_texts = [r["text"] for r in load(CORPORA / "injection_dev.jsonl") if r["label"] == "benign"]
    dev_texts += [r["text"] for r in load(CORPORA / "pii_dev.jsonl")]
    results["long_document"] = bench_long_document(dev_texts, min(args.repeats, 3))
    if args.halueval.exists() and not args.pii_only:
        results["risk"] = bench_risk(halueval_rows(args.halueval), args.repeats)
    node = subprocess.run(["node", "--version"], capture_output=True, text=True, check=False).stdout.strip()
    version = json.loads((ROOT / "node_modules" / "llmverify" / "package.json").read_text())["version"]
    results["environment"] = {
        "python": sys.version.split()[0],
        "node": node,
        "llmverify": version,
        "repeats": args.repeats,
        "cpu": cpu,
        "timing": (
            f"best of the repeats after one warm-up run, in {ROUNDS} alternating rounds (ours, llmverify), "
            "CPU time of each process (wall time too)"
        ),
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "cpus": os.cpu_count(),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(markdown(results))
    print(f"\nwritten to {args.out.relative_to(ROOT) if args.out.is_relative_to(ROOT) else args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
