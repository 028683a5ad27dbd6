"""The PII corpora the per-pass cost scripts read (``pii_cost.py``, ``pii_instructions.py``), by name."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPORA = ROOT / "bench" / "corpora"
SETS = {
    "dev": CORPORA / "pii_dev.jsonl",
    "holdout": CORPORA / "pii_holdout.jsonl",
    "generated_dev": CORPORA / "generated" / "pii_dev.jsonl",
    "generated_holdout": CORPORA / "generated" / "pii_holdout.jsonl",
    "generated_presidio": CORPORA / "generated" / "pii_presidio.jsonl",
    "generated_intl_dev": CORPORA / "generated" / "pii_intl_dev.jsonl",
    "generated_intl_holdout": CORPORA / "generated" / "pii_intl_holdout.jsonl",
    "generated_faker_heldout": CORPORA / "generated" / "pii_faker_heldout.jsonl",
}
