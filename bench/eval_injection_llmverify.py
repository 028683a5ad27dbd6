"""llmverify on a file in the external-set format: FPR and recall per slice, next to ours.

Same inputs and the same decision rule as ``bench/bench_safety.py`` (a text is flagged when
llmverify returns any finding; its risk is the max severity x confidence).  llmverify has no notion of
source, so tool results are given to it as plain text.  Needs ``npm ci --no-audit --no-fund`` at the
repo root (node_modules/llmverify).

    .venv/bin/python bench/eval_injection_llmverify.py --path bench/corpora/injection_luna.jsonl
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.bench_safety import NODE_SCRIPT  # noqa: E402
from bench.eval_injection_external import slice_table  # noqa: E402

DEFAULT = ROOT / "bench" / "corpora" / "injection_luna.jsonl"


def run_llmverify(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """One llmverify pass over the texts; results keyed by row id."""
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False, encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps({"id": row["id"], "text": row["text"]}) + "\n")
        path = fh.name
    try:
        out = subprocess.run(
            ["node", str(NODE_SCRIPT), "injection", path, "1", "1"],
            capture_output=True,
            text=True,
            check=True,
            cwd=ROOT,
        ).stdout
    finally:
        Path(path).unlink()
    return {res["id"]: res for res in json.loads(out)["results"]}


def main(argv: list[str] | None = None) -> int:
    """Print the llmverify table per slice and the texts it flags."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--path", type=Path, default=DEFAULT)
    args = parser.parse_args(argv)
    with args.path.open(encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh if line.strip()]
    results = run_llmverify(rows)
    by: dict[str, list[tuple[bool, bool, float]]] = {}
    for row in rows:
        res = results[row["id"]]
        item = (row["label"] == "injection", bool(res["findings"]), float(res["risk"]))
        for name in ("all", f"source={row['source']}"):
            by.setdefault(name, []).append(item)
    print(slice_table(by, "slice (llmverify)"))
    for row in rows:
        found = results[row["id"]]["findings"]
        if found and row["label"] != "injection":
            print("ALARM", row["id"], [f["type"] for f in found][:3], repr(row["text"][:120]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
