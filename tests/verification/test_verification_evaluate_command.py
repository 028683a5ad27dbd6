"""`manage.py evaluate` over small labelled files built here, for both tasks."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

TOOL_LINES: list[dict[str, object]] = [
    {"type": "profile", "tool": "lookup", "expected_latency_ms": [50, 5000], "required_fields": ["value"]},
    *[
        {"type": "call", "tool": "lookup", "args": {"k": i % 3}, "result": {"value": 10 + i % 3},
         "execution_time_ms": 120.0 + i, "session_id": "s", "label": "real", "id": f"c{i}"}
        for i in range(12)
    ],
    {"type": "call", "tool": "lookup", "args": {"k": 1}, "result": {"valu": 11}, "execution_time_ms": 130.0,
     "label": "fabricated", "id": "bad1", "kind": "missing_field"},
    {"type": "call", "tool": "lookup", "args": {"k": 2}, "result": {"value": 12}, "execution_time_ms": 0.3,
     "label": "fabricated", "id": "bad2", "kind": "fast_latency"},
]  # fmt: skip

RUN = [
    {"role": "user", "content": "How tall is the Eiffel Tower?"},
    {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function",
     "function": {"name": "get_landmark_info", "arguments": "{\"name\": \"Eiffel Tower\"}"}}]},
    {"role": "tool", "tool_call_id": "c1", "content": "{\"height\": \"330 m\"}"},
]  # fmt: skip


def groundedness_lines() -> list[dict[str, object]]:
    wrong = "The Eiffel Tower is 500 meters tall."
    right = "The Eiffel Tower is 330 meters tall."
    start = wrong.index("500 meters")
    return [
        {"id": "h", "messages": [*RUN, {"role": "assistant", "content": wrong}],
         "label": {"hallucinated": True, "spans": [{"start": start, "end": start + 10, "text": "500 meters",
                                                   "kind": "contradiction"}]}},
        {"id": "ok", "messages": [*RUN, {"role": "assistant", "content": right}],
         "label": {"hallucinated": False, "spans": []}},
    ]  # fmt: skip


def write(path: Path, lines: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def test_it_evaluates_a_tool_stream_and_writes_the_metrics(tmp_path: Path) -> None:
    source = write(tmp_path / "tools.jsonl", TOOL_LINES)
    out = tmp_path / "metrics.json"
    stdout = io.StringIO()
    call_command("evaluate", str(source), "--out", str(out), "--no-progress", stdout=stdout)
    metrics = json.loads(out.read_text())
    assert metrics == json.loads(stdout.getvalue())
    assert metrics["calls"] == 14
    for key in ("block", "flag_or_block", "real_blocked_rate", "auroc", "per_kind_recall", "latency_ms"):
        assert key in metrics
    assert metrics["per_kind_recall"]["missing_field"] == 1.0


def test_it_evaluates_groundedness(tmp_path: Path) -> None:
    source = write(tmp_path / "runs.jsonl", groundedness_lines())
    stdout = io.StringIO()
    call_command("evaluate", str(source), "--task", "groundedness", "--no-progress", stdout=stdout)
    metrics = json.loads(stdout.getvalue())
    assert metrics["cases"] == 2
    assert metrics["response"]["recall"] == 1.0
    assert metrics["false_positive_rate"] == 0.0
    assert set(metrics["span"]) >= {"precision", "recall", "f1"}


def test_it_refuses_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="No such file"):
        call_command("evaluate", str(tmp_path / "nothing.jsonl"))
