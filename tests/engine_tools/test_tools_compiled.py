"""The compiled tool verifier (setup.py, mypyc) answers exactly as its interpreted source does.

The same stream goes through the installed engine and through a copy of the sources alone, each in its
own process (tests/compiled_support.py); every result, the metrics and the learned state must be
byte-identical.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.compiled_support import SHARED_EVAL, assert_identical, run_dump, sources_only

STREAM = SHARED_EVAL / "tool_streams_dev.jsonl"
LINES = 1500

# Runs in the child: every verify() answer, the metrics and the learned store, as JSON lines.
DUMP = r"""
import json, sys
from pathlib import Path
import verification.engine.tools.engine as engine_module
from verification.engine.eval.tool_results import evaluate_tool_results
from verification.engine.tools import ToolVerifier

rows, engines = [], []

class Recording:
    def __init__(self):
        self.engine = ToolVerifier()
        engines.append(self.engine)

    def __getattr__(self, name):
        return getattr(self.engine, name)

    def verify(self, *args, **kwargs):
        result = self.engine.verify(*args, **kwargs)
        rows.append({**result.to_dict(), "extra": repr(sorted(result.extra.items()))})
        return result

def plain(value):
    if isinstance(value, (set, frozenset)):
        return sorted(map(repr, value))
    slots = getattr(type(value), "__slots__", None)
    fields = vars(value) if hasattr(value, "__dict__") else {s: getattr(value, s) for s in slots or ()}
    return {"type": type(value).__name__, **fields} if fields else repr(value)

metrics = evaluate_tool_results(Path(sys.argv[1]), progress=False, engine_factory=Recording)
metrics.pop("latency_ms", None)
print(json.dumps({"compiled": not engine_module.__file__.endswith(".py")}))
print(json.dumps(metrics, sort_keys=True, default=str))
for row in rows:
    print(json.dumps(row, sort_keys=True))
for engine in engines:
    print(json.dumps(engine.store._data, sort_keys=True, default=plain))
"""


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("stream") / "sample.jsonl"
    with STREAM.open() as source:
        path.write_text("".join(line for _, line in zip(range(LINES), source, strict=False)))
    return path


def test_it_gives_the_interpreted_results_byte_for_byte(sample: Path, tmp_path: Path) -> None:
    installed = run_dump(DUMP, [str(sample)], sources=None)
    interpreted = run_dump(DUMP, [str(sample)], sources=sources_only(tmp_path))

    assert_identical(installed, interpreted, at_least=LINES // 2)
