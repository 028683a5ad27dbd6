"""Issue 14: the held-out tau2-bench retail corpus (bench/corpora/runs/tau_retail_*_heldout.jsonl) is what
make_tau_airline.py builds from its committed transcription (tau_retail_heldout/), and each of its lines is a
well-formed run: every tool call answered by its result, the line ending on an assistant text answer."""

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

_RUNS = Path(__file__).resolve().parents[2] / "bench" / "corpora" / "runs"
_SPEC = importlib.util.spec_from_file_location("bench_make_tau_airline", _RUNS / "make_tau_airline.py")
assert _SPEC is not None and _SPEC.loader is not None
_MAKE = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(_MAKE)

_FILES = [
    "tau_retail_clean_heldout.jsonl",
    "tau_retail_clean_heldout.meta.jsonl",
    "tau_retail_perturbed_heldout.jsonl",
    "tau_retail_perturbed_heldout.meta.jsonl",
]
_ARGS = ["--condensed", "--perturbed", "--all-dev", "heldout", "--name", "tau_retail"]


def _lines(name: str) -> list[dict[str, Any]]:
    return [json.loads(raw) for raw in (_RUNS / name).read_text(encoding="utf-8").splitlines() if raw.strip()]


def _problems(messages: list[dict[str, Any]]) -> list[str]:
    """What is wrong with one line's messages as a run (empty when it is well formed)."""
    problems = []
    if not messages or messages[0].get("role") != "system":
        problems.append("no system message first")
    last = messages[-1] if messages else {}
    if last.get("role") != "assistant" or last.get("tool_calls") or not (last.get("content") or "").strip():
        problems.append("does not end on an assistant text answer")
    for i, message in enumerate(messages):
        for call in message.get("tool_calls") or []:
            result = messages[i + 1] if i + 1 < len(messages) else {}
            if result.get("role") != "tool" or result.get("tool_call_id") != call["id"]:
                problems.append(f"call {call['id']} has no result after it")
        if message.get("role") == "tool" and not (i and messages[i - 1].get("tool_calls")):
            problems.append(f"tool message {i} follows no call")
    return problems


def test_it_builds_the_committed_retail_heldout_files_from_the_transcription(tmp_path):
    source = str(_RUNS / "tau_retail_heldout")
    argv = [source, *_ARGS, "--id-prefix", "tau-retail-claude45", "--out", str(tmp_path)]
    assert _MAKE.main(argv) == 0
    for name in _FILES:
        assert (tmp_path / name).read_bytes() == (_RUNS / name).read_bytes(), name


@pytest.mark.parametrize("name", ["tau_retail_clean_heldout.jsonl", "tau_retail_perturbed_heldout.jsonl"])
def test_it_answers_every_tool_call_of_every_retail_heldout_line(name):
    lines = _lines(name)
    assert len(lines) > 0 and len({line["id"] for line in lines}) == len(lines)
    bad = {line["id"]: _problems(line["messages"]) for line in lines}
    assert {line_id: found for line_id, found in bad.items() if found} == {}


def test_it_reports_a_call_without_its_result():
    call: dict[str, Any] = {
        "id": "c1",
        "type": "function",
        "function": {"name": "get_order_details", "arguments": "{}"},
    }
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "policy"},
        {"role": "user", "content": "Where is my order?"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "assistant", "content": "It is pending."},
    ]
    assert _problems(messages) == ["call c1 has no result after it"]


def test_it_keeps_every_retail_heldout_meta_line_beside_its_line():
    for name in ("tau_retail_clean_heldout", "tau_retail_perturbed_heldout"):
        lines, meta = _lines(f"{name}.jsonl"), _lines(f"{name}.meta.jsonl")
        assert [line["id"] for line in lines] == [row["id"] for row in meta]
        for line, row in zip(lines, meta, strict=True):
            assert (row["group"] == "hallucinated") == line["label"]["hallucinated"]
