"""Shared by the safety suites: the labelled corpora in bench/corpora as plain texts."""

from __future__ import annotations

import json
from pathlib import Path

CORPORA = Path(__file__).resolve().parents[2] / "bench" / "corpora"


def corpus_texts() -> list[str]:
    """Every text of every corpus, with the earlier turns of multi-turn rows, in file order."""
    texts: list[str] = []
    for path in sorted(CORPORA.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            texts.append(row["text"])
            texts.extend(row.get("history", []))
    return texts
