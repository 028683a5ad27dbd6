"""Shape of ``bench/corpora/injection_luna.jsonl`` (tool results of real agent runs, issue 16).

Checks the file, not detection results: the detector's figures on it are measurements (docs/safety.md),
never test expectations.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "bench" / "corpora" / "injection_luna.jsonl"
FIELDS = {"id", "text", "label", "source", "kind", "run", "tool", "ref"}
# The external-set format the eval script reads: these labels, and a kind per label.
KIND_OF_LABEL = {"injection": "indirect", "benign": "document"}


@pytest.fixture(scope="module")
def rows() -> list[dict[str, str]]:
    with CORPUS.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def test_it_has_every_field_on_every_row(rows: list[dict[str, str]]) -> None:
    assert rows
    for row in rows:
        assert row.keys() >= FIELDS, row["id"]
        assert set(row) <= FIELDS | {"label_note"}, row["id"]


def test_it_keeps_ids_unique(rows: list[dict[str, str]]) -> None:
    ids = [row["id"] for row in rows]
    assert len(ids) == len(set(ids))
    assert all(i.startswith("luna-") for i in ids)


def test_it_uses_only_the_two_labels_with_their_kinds(rows: list[dict[str, str]]) -> None:
    for row in rows:
        assert row["label"] in KIND_OF_LABEL, row["id"]
        assert row["kind"] == KIND_OF_LABEL[row["label"]], row["id"]


def test_it_has_no_empty_or_padded_text(rows: list[dict[str, str]]) -> None:
    for row in rows:
        assert row["text"].strip(), row["id"]
        assert row["text"] == row["text"].strip("\n"), row["id"]


def test_it_names_a_run_of_the_twelve_domains(rows: list[dict[str, str]]) -> None:
    domains = {row["run"].split("/")[1] for row in rows}
    assert len(domains) == 12
    for row in rows:
        assert row["run"].split("/")[0] in {"codex1", "codex2"}, row["id"]


def test_it_keeps_benign_rows_at_least_as_many_as_attacks(rows: list[dict[str, str]]) -> None:
    attacks = sum(1 for row in rows if row["label"] == "injection")
    assert sum(1 for row in rows if row["label"] == "benign") >= attacks


def test_it_explains_each_doubtful_label_on_an_attack_row(rows: list[dict[str, str]]) -> None:
    # A note is only kept where the benchmark's own label looks wrong (the placeholder page).
    for row in rows:
        if "label_note" in row:
            assert row["label"] == "injection" and row["label_note"].strip(), row["id"]


def test_it_is_what_the_builder_writes_from_the_transcriptions() -> None:
    # Negative check on drift: a hand edit to the JSONL that the source files do not carry fails here.
    from bench.corpora.make_injection_luna import SRC, parse_file, to_row

    built = [to_row(r) for path in sorted(SRC.glob("*.txt")) for r in parse_file(path)]
    with CORPUS.open(encoding="utf-8") as fh:
        stored = [json.loads(line) for line in fh if line.strip()]
    assert stored == built
