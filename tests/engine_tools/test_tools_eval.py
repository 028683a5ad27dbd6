"""The tool-results evaluation runner (SPEC section 6)."""

import json
import subprocess
import sys
from pathlib import Path

from verification.engine.eval.tool_results import evaluate_tool_results, prf
from verification.engine.tools import ToolVerifier

REPO = Path(__file__).resolve().parents[2]


def _stream(path: Path) -> None:
    """20 real calls, then 5 fabrications that drop a required field, one feedback line."""
    lines = [
        {
            "type": "profile",
            "tool": "get_weather",
            "expected_latency_ms": [50, 5000],
            "required_fields": ["temperature"],
            "has_network_io": True,
        },
    ]
    for i in range(20):
        lines.append(
            {
                "type": "call",
                "id": f"r{i}",
                "tool": "get_weather",
                "args": {"city": f"c{i % 4}"},
                "result": {"temperature": 10 + i % 4},
                "execution_time_ms": 120.0 + i,
                "session_id": f"s{i % 3}",
                "label": "real",
                "kind": "normal",
            }
        )
    for i in range(5):
        lines.append(
            {
                "type": "call",
                "id": f"f{i}",
                "tool": "get_weather",
                "args": {"city": "c1"},
                "result": {"temp": 11},
                "execution_time_ms": 130.0,
                "label": "fabricated",
                "kind": "missing_field",
                "variant": "renamed",
            }
        )
    lines.append(
        {
            "type": "feedback",
            "id": "fb1",
            "ts": "x",
            "tool": "get_weather",
            "call_id": "f0",
            "was_hallucination": True,
        }
    )
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n")


def test_it_reports_every_spec_metric(tmp_path):
    f = tmp_path / "s.jsonl"
    _stream(f)
    m = evaluate_tool_results(f, progress=False)
    for key in (
        "calls",
        "block",
        "flag_or_block",
        "real_blocked_rate",
        "auroc",
        "per_kind_recall",
        "latency_ms",
    ):
        assert key in m
    assert m["calls"] == 25
    assert m["block"] == {"precision": 1.0, "recall": 1.0, "f1": 1.0}
    assert m["real_blocked_rate"] == 0.0
    assert m["per_kind_recall"] == {"missing_field": 1.0}
    assert m["auroc"] == 1.0
    assert m["feedback_applied"] == 1


def test_it_never_hands_ids_labels_or_kinds_to_the_engine(tmp_path):
    f = tmp_path / "s.jsonl"
    _stream(f)
    seen = []

    class Spy(ToolVerifier):
        def verify(self, tool, args=None, result=None, execution_time_ms=0.0, session_id=None):
            seen.append(json.dumps([tool, args, result, session_id]))
            return super().verify(tool, args, result, execution_time_ms, session_id)

    evaluate_tool_results(f, progress=False, engine_factory=Spy)
    assert len(seen) == 25
    assert not any(
        word in call for call in seen for word in ("fabricated", "missing_field", "renamed", '"r1"')
    )


def test_it_runs_as_a_module_and_writes_metrics(tmp_path):
    f = tmp_path / "s.jsonl"
    _stream(f)
    out = tmp_path / "m.json"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "verification.engine.eval.tool_results",
            str(f),
            "--out",
            str(out),
            "--no-progress",
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(out.read_text())["calls"] == 25


def test_it_computes_precision_recall_f1():
    assert prf(0, 0, 0) == {"precision": 0.0, "recall": 0.0, "f1": 0.0}
    m = prf(3, 1, 2)
    assert m["precision"] == 0.75 and m["recall"] == 0.6
    assert abs(m["f1"] - 2 * 0.75 * 0.6 / 1.35) < 1e-4
