"""The compiled tool verifier (setup.py, mypyc) answers exactly as its interpreted source does.

The same stream goes through the installed engine and through a copy of the sources alone (no
extension modules, so Python interprets them), each in its own process; every result, the metrics and
the learned state must be byte-identical. A compiled module stores an int put in a float-typed slot
as a float, checks argument types at run time and has no __dict__: this is where such a difference
would show.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
STREAM = ROOT.parent / "shared" / "eval" / "tool_streams_dev.jsonl"
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


def _dump(stream: Path, pythonpath: Path | None, cwd: Path) -> list[str]:
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    if pythonpath is not None:
        env["PYTHONPATH"] = str(pythonpath)
    done = subprocess.run(
        [sys.executable, "-c", DUMP, str(stream)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.splitlines()


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("stream") / "sample.jsonl"
    with STREAM.open() as source:
        path.write_text("".join(line for _, line in zip(range(LINES), source, strict=False)))
    return path


@pytest.fixture(scope="module")
def sources_only(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The verification package as source files only: nothing compiled shadows them."""
    root = tmp_path_factory.mktemp("interpreted")
    shutil.copytree(
        ROOT / "verification", root / "verification", ignore=shutil.ignore_patterns("*.so", "__pycache__")
    )
    return root


def test_it_gives_the_interpreted_results_byte_for_byte(sample: Path, sources_only: Path) -> None:
    installed = _dump(sample, None, ROOT)
    interpreted = _dump(sample, sources_only, sources_only)

    assert json.loads(interpreted[0]) == {"compiled": False}
    if os.environ.get("TRUST_REGISTRY_PURE_PYTHON", "").lower() not in ("1", "true", "yes", "on"):
        # A normal install compiles the engine; without that this test would compare source with source.
        assert json.loads(installed[0]) == {"compiled": True}
    assert len(installed) == len(interpreted) > LINES // 2
    assert installed[1:] == interpreted[1:]
