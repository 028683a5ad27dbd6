"""The compiled run verifier (setup.py, mypyc) reports exactly as its interpreted source does.

Runs from both development sets go through the installed engine and through a copy of the sources
alone, each in its own process (tests/compiled_support.py); every report must be byte-identical.
"""

from __future__ import annotations

from pathlib import Path

from tests.compiled_support import SHARED_EVAL, assert_identical, run_dump, sources_only

RUNS_PER_FILE = 150

# Runs in the child: the first runs of each file, every report as JSON, with both aggregations.
DUMP = r"""
import json, sys
from pathlib import Path
import verification.engine.runs.verify as verify_module
from verification.engine.runs import verify_run
from verification.engine.runs.config import RunVerifierConfig

print(json.dumps({"compiled": not verify_module.__file__.endswith(".py")}))
configs = [None, RunVerifierConfig(aggregate="mean")]
per_file, folder = int(sys.argv[1]), Path(sys.argv[2])
for name in sys.argv[3:]:
    with (folder / name).open() as lines:
        for _, line in zip(range(per_file), lines):
            row = json.loads(line)
            for config in configs:
                report = verify_run(row["messages"], row.get("tools"), config=config)
                print(json.dumps(report.to_dict(), sort_keys=True, default=repr))
"""


def test_it_gives_the_interpreted_reports_byte_for_byte(tmp_path: Path) -> None:
    args = [str(RUNS_PER_FILE), str(SHARED_EVAL), "groundedness_dev.jsonl", "halueval_qa_dev.jsonl"]
    installed = run_dump(DUMP, args, sources=None)
    interpreted = run_dump(DUMP, args, sources=sources_only(tmp_path))

    assert_identical(installed, interpreted, at_least=2 * 2 * RUNS_PER_FILE)
