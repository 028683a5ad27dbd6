"""Issue 14 (h20b): make_luna_runs.py turns condensed transcriptions of gpt-5.6-luna runs into groundedness
lines: the message shape verify_run reads, ids by domain and task, the split by domain, the labels (agent
errors from agent_errors.json), runs without a tool result left out. Built from tiny runs written here, not
from the real transcriptions."""

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

_RUNS = Path(__file__).resolve().parents[2] / "bench" / "corpora" / "runs"
_SPEC = importlib.util.spec_from_file_location("bench_make_luna_runs", _RUNS / "make_luna_runs.py")
assert _SPEC is not None and _SPEC.loader is not None
_MAKE = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(_MAKE)

_SYSTEM = {"role": "system", "text": "You are a tool-using assistant."}


def _run(domain: str, task: str, answer: str, *, tools: bool = True, poison: bool = False) -> dict[str, Any]:
    messages: list[dict[str, Any]] = [_SYSTEM, {"role": "user", "text": "When does parcel P-77 arrive?"}]
    if tools:
        messages += [
            {
                "role": "assistant",
                "text": None,
                "calls": [
                    {"function": "track_parcel", "args": {"parcel_id": "P-77"}},
                    {"function": "search_web", "args": {"query": "depot hours", "limit": 3}},
                ],
            },
            {"role": "tool", "text": "parcel_id: P-77\nstatus: in_transit\neta: '2026-03-14'\nweight_kg: 12"},
            {"role": "tool", "text": "- rank: 1\n  title: Depot hours\n  url: https://example.org/depot"},
        ]
    messages.append({"role": "assistant", "text": answer})
    return {
        "run_id": f"{domain}_{task}_x",
        "domain": domain,
        "task_id": task,
        "opened_poison": poison,
        "messages": messages,
    }


def _write_dir(path: Path, runs: list[dict[str, Any]], errors: list[dict[str, str]] | None = None) -> Path:
    path.mkdir()
    for run in runs:
        (path / f"{run['domain']}_{run['task_id']}.json").write_text(json.dumps(run), encoding="utf-8")
    if errors is not None:
        (path / "agent_errors.json").write_text(json.dumps(errors), encoding="utf-8")
    return path


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(raw) for raw in path.read_text(encoding="utf-8").splitlines() if raw.strip()]


def test_it_expands_parallel_calls_into_openai_messages() -> None:
    line = _MAKE.line_of(_run("logistics", "t01", "Parcel P-77 arrives on 2026-03-14."))
    assert line["id"] == "luna-logistics-t01"
    roles = [m["role"] for m in line["messages"]]
    assert roles == ["system", "user", "assistant", "tool", "tool", "assistant"]
    calls = line["messages"][2]["tool_calls"]
    assert [c["function"]["name"] for c in calls] == ["track_parcel", "search_web"]
    assert json.loads(calls[1]["function"]["arguments"]) == {"query": "depot hours", "limit": 3}
    # each result answers its own call, in the calls' order
    assert [m["tool_call_id"] for m in line["messages"][3:5]] == [calls[0]["id"], calls[1]["id"]]
    assert line["messages"][3]["name"] == "track_parcel"
    assert line["messages"][3]["content"].startswith("parcel_id: P-77\n")
    assert line["label"] == {"hallucinated": False, "fact_check_needed": True, "spans": []}


def test_it_leaves_out_a_run_without_tool_results() -> None:
    assert _MAKE.line_of(_run("telecom", "t02", "I cannot check that.", tools=False)) is None


def test_it_splits_by_domain() -> None:
    assert _MAKE.split_of("airport") == "dev"
    assert _MAKE.split_of("ticketing") == "dev"
    assert _MAKE.split_of("banking") == "heldout"
    assert _MAKE.split_of("university") == "heldout"
    with pytest.raises(ValueError):
        _MAKE.split_of("cooking")


def test_it_builds_the_dev_sets_with_agent_errors(tmp_path: Path) -> None:
    runs = [
        _run("logistics", "t01", "Parcel P-77 arrives on 2026-03-14; it weighs 12 kg."),
        _run("logistics", "t02", "Parcel P-77 was delivered yesterday.", poison=True),
        _run("airport", "t03", "Nothing to check.", tools=False),
    ]
    errors = [
        {
            "run": "logistics-t02",
            "piece": "was delivered",
            "wrong": "was delivered yesterday",
            "why": "status: in_transit",
        }
    ]
    src = _write_dir(tmp_path / "luna_dev", runs, errors)
    out = tmp_path / "out"
    out.mkdir()
    counts = _MAKE.build(src, out, perturbed=True)
    assert counts["runs"] == 3 and counts["kept"] == 2
    assert counts["opened_poison"] == 1 and counts["agent_errors"] == 1
    clean = _lines(out / "luna_clean_dev.jsonl")
    assert [x["id"] for x in clean] == ["luna-logistics-t01", "luna-logistics-t02"]
    wrong = clean[1]
    answer = wrong["messages"][-1]["content"]
    assert wrong["label"]["hallucinated"] is True
    span = wrong["label"]["spans"][0]
    assert answer[span["start"] : span["end"]] == "was delivered yesterday"
    meta = _lines(out / "luna_clean_dev.meta.jsonl")
    assert [m["variant"] for m in meta] == ["clean", "agent_error"]
    # the agent error stays out of the perturbed set; the clean answer gets its single-fact edits
    perturbed = _lines(out / "luna_perturbed_dev.jsonl")
    assert {x["id"] for x in perturbed} >= {"luna-logistics-t01", "luna-logistics-t01-date"}
    assert not any(x["id"].startswith("luna-logistics-t02") for x in perturbed)
    assert not (out / "luna_clean_heldout.jsonl").exists()


def test_it_labels_held_out_runs_clean(tmp_path: Path) -> None:
    src = _write_dir(
        tmp_path / "luna_heldout", [_run("banking", "t01", "Parcel P-77 arrives on 2026-03-14.")]
    )
    out = tmp_path / "out"
    out.mkdir()
    _MAKE.build(src, out)
    (line,) = _lines(out / "luna_clean_heldout.jsonl")
    assert line["id"] == "luna-banking-t01" and line["label"]["hallucinated"] is False


def test_it_refuses_a_directory_that_mixes_the_sides(tmp_path: Path) -> None:
    runs = [_run("airport", "t01", "On 2026-03-14."), _run("banking", "t01", "On 2026-03-14.")]
    src = _write_dir(tmp_path / "mixed", runs)
    with pytest.raises(ValueError):
        _MAKE.build(src, tmp_path)


def test_it_names_a_second_dev_transcription(tmp_path: Path) -> None:
    """``name`` replaces the split in the file names but may not put dev runs under a held-out name (h21a)."""
    src = _write_dir(tmp_path / "src", [_run("airport", "t10", "Parcel P-77 is in transit.")])
    _MAKE.build(src, tmp_path, name="dev2")
    assert (tmp_path / "luna_clean_dev2.jsonl").is_file()
    assert not (tmp_path / "luna_clean_dev.jsonl").exists()
    with pytest.raises(ValueError):
        _MAKE.build(src, tmp_path, name="heldout2")


def test_it_names_a_third_dev_transcription(tmp_path: Path) -> None:
    """A third dev transcription is written under its own name, never a held-out one (h22a)."""
    src = _write_dir(tmp_path / "src", [_run("logistics", "t13", "Parcel P-77 is in transit.")])
    _MAKE.build(src, tmp_path, perturbed=True, name="dev3")
    assert (tmp_path / "luna_clean_dev3.jsonl").is_file()
    assert (tmp_path / "luna_perturbed_dev3.jsonl").is_file()
    with pytest.raises(ValueError):
        _MAKE.build(src, tmp_path, name="heldout3")
