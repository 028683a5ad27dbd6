"""Shape of ``bench/corpora/injection_pyrit_{dev,heldout}.jsonl`` (PyRIT's data and generated documents).

Checks the files and the builder's pure parts, not detection results: the detector's figures on the set
are measurements (docs/safety.md), never test expectations. The held-out half's texts are not read here.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
CORPORA = ROOT / "bench" / "corpora"
FIELDS = {"id", "text", "label", "source", "kind", "family", "split"}
KINDS = {"injection": {"jailbreak", "direct", "indirect"}, "benign": {"user", "document"}}


def _builder() -> ModuleType:
    spec = importlib.util.spec_from_file_location("make_injection_pyrit", CORPORA / "make_injection_pyrit.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _rows(half: str) -> list[dict[str, str]]:
    with (CORPORA / f"injection_pyrit_{half}.jsonl").open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


@pytest.mark.parametrize("half", ["dev", "heldout"])
def test_it_has_the_fields_labels_and_kinds_of_the_external_format(half: str) -> None:
    rows = _rows(half)
    assert len(rows) > 400
    for row in rows:
        assert set(row) == FIELDS, row["id"]
        assert row["split"] == half
        assert row["kind"] in KINDS[row["label"]], row["id"]


def test_it_keeps_ids_unique_across_halves() -> None:
    ids = [r["id"] for half in ("dev", "heldout") for r in _rows(half)]
    assert len(ids) == len(set(ids))


def test_it_never_puts_a_family_in_both_halves() -> None:
    # Families named per half by construction (carrier templates, attack phrasings, PyRIT folders) must not
    # straddle; the broad PyRIT families (answers, prose, template sets) are split by file instead.
    by_file = {"attack_prose", "jailbreakchat", "paper_templates", "pliny", "Arth_Singh", "0din"}
    dev = {r["family"] for r in _rows("dev")} - by_file
    held = {r["family"] for r in _rows("heldout")} - by_file
    per_half = {f for f in dev | held if f.startswith(("doc_", "inj_")) and f != "inj_pasted_pyrit"}
    assert per_half and not (dev & held & per_half)


def test_it_fills_the_templates_little_jinja() -> None:
    fill = _builder().fill
    text = "{% raw %}Q={{ '{{' }}x}}{% endraw %} then {{ prompt }} and {{ other }}"
    assert fill(text, {"prompt": "P"}) == "Q={{x}} then P and P"


def test_it_splits_by_a_stable_hash() -> None:
    split_of = _builder().split_of
    assert split_of("doc:email_meeting") == "dev"
    assert split_of("doc:email_invoice") == "heldout"
