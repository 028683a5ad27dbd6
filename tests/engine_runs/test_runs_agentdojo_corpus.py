"""Issue 14: the AgentDojo corpora label the two ground-truth answers that their own replayed runs do not
support (make_agentdojo_clean.ANSWER_ERRORS), and the perturbed halves are what make_agentdojo_perturbed.py
builds from the committed clean corpus, with those two answers kept as agent errors and never edited."""

import json
from pathlib import Path
from typing import Any

from tests.engine_runs.runs_helpers import RUNS_DIR as _RUNS
from tests.engine_runs.runs_helpers import load_bench_module as _load

_CLEAN = _load("make_agentdojo_clean")
_PERTURBED = _load("make_agentdojo_perturbed")


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(raw) for raw in path.read_text(encoding="utf-8").splitlines() if raw.strip()]


def test_it_labels_exactly_the_answer_errors_in_the_committed_clean_corpus():
    lines = _lines(_RUNS / "agentdojo_clean.jsonl")
    wrong = {line["id"]: line["label"] for line in lines if line["label"]["hallucinated"]}
    assert sorted(wrong) == sorted(f"agentdojo-v1.2.2-{task}" for task in _CLEAN.ANSWER_ERRORS)
    for line in lines:
        if line["id"] in wrong:
            answer = line["messages"][-1]["content"]
            (span,) = wrong[line["id"]]["spans"]
            assert answer[span["start"] : span["end"]] == span["text"]
            # the span's value is in no tool result of its run: that is why it is an error
            results = " ".join(str(m["content"]) for m in line["messages"] if m["role"] == "tool")
            assert span["text"] not in results
        else:
            assert line["label"] == {"hallucinated": False, "fact_check_needed": True, "spans": []}


def test_it_relabels_idempotently_and_leaves_other_lines_alone():
    line = {
        "id": "agentdojo-v1.2.2-travel-user_task_8",
        "label": {"hallucinated": False, "fact_check_needed": True, "spans": []},
        "messages": [{"role": "assistant", "content": "Chez Nous, 1 Rue X, 30.0"}],
    }
    once = _CLEAN.label_answer_errors(line)
    assert once["label"]["spans"] == [{"start": 20, "end": 24, "text": "30.0"}]
    assert _CLEAN.label_answer_errors(once) == once
    other = {**line, "id": "agentdojo-v1.2.2-travel-user_task_18"}
    assert _CLEAN.label_answer_errors(other) is other
    absent = {**line, "messages": [{"role": "assistant", "content": "Chez Nous, 20.0"}]}
    assert _CLEAN.label_answer_errors(absent)["label"]["hallucinated"] is False


def test_it_builds_the_committed_perturbed_halves_from_the_clean_corpus(tmp_path, monkeypatch):
    monkeypatch.setattr(_PERTURBED, "HERE", tmp_path)
    assert _PERTURBED.main() == 0
    for half in ("dev", "heldout"):
        for suffix in (".jsonl", ".meta.jsonl"):
            name = f"agentdojo_perturbed_{half}{suffix}"
            assert (tmp_path / name).read_bytes() == (_RUNS / name).read_bytes(), name


def test_it_keeps_answer_errors_out_of_the_edits():
    for half in ("dev", "heldout"):
        meta = _lines(_RUNS / f"agentdojo_perturbed_{half}.meta.jsonl")
        errors = [m["id"] for m in meta if m["variant"] == "agent_error"]
        for error in errors:
            assert not any(m["id"].startswith(error + "-") for m in meta), error
        assert all(m["group"] == "hallucinated" for m in meta if m["variant"] == "agent_error")
    assert (
        len(
            [
                m
                for h in ("dev", "heldout")
                for m in _lines(_RUNS / f"agentdojo_perturbed_{h}.meta.jsonl")
                if m["variant"] == "agent_error"
            ]
        )
        == 2
    )
