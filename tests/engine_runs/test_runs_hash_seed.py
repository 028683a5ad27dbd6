"""A run's report does not depend on the process's hash seed.

The records an identifier names were a set, and the first three slots of those records became the cited
evidence: the same retail run (tau_retail_perturbed_dev6, a swapped item) cited another result's values in
one process out of eight. The records are now read in a fixed order (``grounding._record_order``). Reports
are compared across processes with different ``PYTHONHASHSEED`` values, the only way to vary set order.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_CORPUS = ROOT / "bench" / "corpora" / "runs" / "tau_retail_perturbed_dev6.jsonl"

_SCRIPT = """
import json, sys
from verification.engine.runs import verify_run
out = []
for line in sys.stdin:
    item = json.loads(line)
    report = verify_run(item["messages"], item.get("tools")).to_dict()
    out.append([[c["text"], c["label"], [(e["message_index"], e["text"]) for e in c["evidence_spans"]]]
                for c in report["claims"]])
print(json.dumps(out))
"""


def _reports(seed: int, lines: str) -> list[object]:
    env = {**os.environ, "PYTHONHASHSEED": str(seed), "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", _SCRIPT],
        input=lines,
        env=env,
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    reports: list[object] = json.loads(done.stdout)
    return reports


def test_it_cites_the_same_evidence_whatever_the_hash_seed() -> None:
    lines = [line for line in _CORPUS.read_text().splitlines() if "task61" in line]
    assert lines, "the swapped-item runs of task 61 are in the corpus"
    text = "\n".join(lines) + "\n"
    first = _reports(0, text)
    # Seed 7 gave the other evidence before the fix; 1-3 for good measure.
    for seed in (7, 1, 2, 3):
        assert _reports(seed, text) == first, seed
