"""Issue 14 (h22i): make_apibank_runs.py turns verbatim API-Bank items (a dialogue in ``User:`` / ``AI:`` /
``API-Request:`` lines and the annotators' reply) into groundedness lines: the message shape verify_run
reads, arguments whose values hold quotes, continuation lines, the split by API family, the labels (agent
errors from agent_errors.json), items without an API result left out. Built from tiny items written here,
not from the real transcriptions."""

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

_RUNS = Path(__file__).resolve().parents[2] / "bench" / "corpora" / "runs"
_SPEC = importlib.util.spec_from_file_location("bench_make_apibank_runs", _RUNS / "make_apibank_runs.py")
assert _SPEC is not None and _SPEC.loader is not None
_MAKE = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(_MAKE)

_DIALOGUE = (
    "User: Please record my blood pressure.\n"
    "AI: Sure. Your user ID?\n"
    "User: It is 4711.\n"
    "API-Request: [GetUserToken(username='ann', password='pw')]->{'token': 'abc123'}\n"
    "API-Request: [RecordHealthData(user_id='4711', time='2023-05-01 08:00:00', "
    "health_data='[{'name': 'blood_pressure', 'value': '120/80'}]')]->success\n"
    "Generate AI Response:\n"
)


def _item(file: str, idx: int, dialogue: str, answer: str) -> dict[str, Any]:
    return {"file": file, "id": idx, "input": dialogue, "expected_output": answer}


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(raw) for raw in path.read_text(encoding="utf-8").splitlines() if raw.strip()]


def test_it_parses_a_dialogue_into_openai_messages():
    item = _item("RecordHealthData-level-1-1.jsonl", 3, _DIALOGUE, "Recorded 120/80 at 08:00 on May 1.")
    line = _MAKE.line_of(item)
    assert line["id"] == "apibank-health-RecordHealthData-level-1-1-3"
    roles = [m["role"] for m in line["messages"]]
    assert roles == ["user", "assistant", "user", "assistant", "tool", "assistant", "tool", "assistant"]
    call = line["messages"][5]["tool_calls"][0]
    assert call["function"]["name"] == "RecordHealthData"
    args = json.loads(call["function"]["arguments"])
    # a value that holds unescaped quotes is kept whole, up to the next keyword
    assert args == {
        "user_id": "4711",
        "time": "2023-05-01 08:00:00",
        "health_data": "[{'name': 'blood_pressure', 'value': '120/80'}]",
    }
    assert line["messages"][6] == {
        "role": "tool",
        "tool_call_id": call["id"],
        "name": "RecordHealthData",
        "content": "success",
    }
    assert line["messages"][4]["content"] == "{'token': 'abc123'}"
    assert line["messages"][-1] == {"role": "assistant", "content": "Recorded 120/80 at 08:00 on May 1."}
    assert line["label"] == {"hallucinated": False, "fact_check_needed": True, "spans": []}


def test_it_keeps_a_continuation_line_in_its_turn():
    dialogue = (
        "User: Add 2 and 3.\nAI: Sure.\nOne moment.\nAPI-Request: [Calculator(formula='2+3')]->5.0\n"
        + ("Generate AI Response:\n")
    )
    line = _MAKE.line_of(_item("Calculator-level-1-1.jsonl", 1, dialogue, "It is 5."))
    assert line["messages"][1]["content"] == "Sure.\nOne moment."


def test_it_leaves_out_an_item_without_an_api_result():
    dialogue = "User: Hello.\nAI: Hi.\nGenerate AI Response:\n"
    assert _MAKE.line_of(_item("Calculator-level-1-1.jsonl", 1, dialogue, "How can I help?")) is None


def test_it_splits_by_api_family():
    assert _MAKE.domain_of("ModifyRegistration-EmergencyKnowledge-level-2-1.jsonl") == "health"
    assert _MAKE.domain_of("AddAgenda-AddMeeting-GetUserToken-level-2-2.jsonl") == "calendar"
    assert (
        _MAKE.domain_of("DeleteAccount-RegisterUser-ForgotPassword-GetUserToken-level-2-1.jsonl") == "account"
    )
    assert _MAKE.split_of("smarthome") == "dev"
    assert _MAKE.split_of("finance") == "heldout"
    with pytest.raises(ValueError):
        _MAKE.domain_of("QueryStock-AddAgenda-level-2-1.jsonl")  # two families: no single side
    with pytest.raises(ValueError):
        _MAKE.split_of("cooking")


def test_it_builds_the_dev_sets_with_agent_errors(tmp_path: Path):
    src = tmp_path / "apibank_dev"
    src.mkdir()
    items = [
        _item(
            "RecordHealthData-level-1-1.jsonl",
            1,
            _DIALOGUE,
            "Your reading of 120/80 was recorded on 2023-05-01.",
        ),
        _item("RecordHealthData-level-1-1.jsonl", 3, _DIALOGUE, "Recorded for Dr. Lee at 9am."),
    ]
    for it in items:
        (src / f"{_MAKE.stem_of(it['file'])}_{it['id']}.json").write_text(json.dumps(it), encoding="utf-8")
    errors = [{"run": "RecordHealthData-level-1-1-3", "piece": "Dr. Lee", "wrong": "at 9am", "why": "08:00"}]
    (src / "agent_errors.json").write_text(json.dumps(errors), encoding="utf-8")
    out = tmp_path / "out"
    out.mkdir()
    counts = _MAKE.build(src, out, perturbed=True)
    assert counts["items"] == 2 and counts["kept"] == 2 and counts["agent_errors"] == 1
    clean = _lines(out / "apibank_clean_dev.jsonl")
    wrong = clean[1]
    span = wrong["label"]["spans"][0]
    assert wrong["label"]["hallucinated"] is True
    assert wrong["messages"][-1]["content"][span["start"] : span["end"]] == "at 9am"
    meta = _lines(out / "apibank_clean_dev.meta.jsonl")
    assert [m["variant"] for m in meta] == ["clean", "agent_error"]
    perturbed = _lines(out / "apibank_perturbed_dev.jsonl")
    ids = {x["id"] for x in perturbed}
    assert "apibank-health-RecordHealthData-level-1-1-1" in ids and len(ids) >= 2
    assert not any(x.endswith("-1-1-3") or "-1-1-3-" in x for x in ids)


def test_it_refuses_items_of_both_sides(tmp_path: Path):
    src = tmp_path / "mixed"
    src.mkdir()
    for it in (
        _item("RecordHealthData-level-1-1.jsonl", 1, _DIALOGUE, "Recorded."),
        _item(
            "QueryStock-level-1-1.jsonl",
            1,
            "User: SQ?\nAPI-Request: [QueryStock(stock_code='SQ')]->1.5\nGenerate AI Response:\n",
            "It was 1.5.",
        ),
    ):
        (src / f"{_MAKE.stem_of(it['file'])}_{it['id']}.json").write_text(json.dumps(it), encoding="utf-8")
    with pytest.raises(ValueError):
        _MAKE.build(src, tmp_path)


def test_it_moves_a_named_date_by_two_days():
    item = _item("RecordHealthData-level-1-1.jsonl", 1, _DIALOGUE, "Recorded for May 30th, 2023 and May 1.")
    kind, edited = _MAKE.named_date_edit(_MAKE.line_of(item))
    assert kind == "named_date"
    answer = edited["messages"][-1]["content"]
    assert answer == "Recorded for May 28th, 2023 and May 1."  # back two days: forward would leave the month
    span = edited["label"]["spans"][0]
    assert answer[span["start"] : span["end"]] == "May 28th" and edited["label"]["hallucinated"] is True
    plain = _MAKE.line_of(_item("RecordHealthData-level-1-1.jsonl", 1, _DIALOGUE, "Recorded on May 1."))
    assert _MAKE.named_date_edit(plain)[1]["messages"][-1]["content"] == "Recorded on May 3."
    assert (
        _MAKE.named_date_edit(_MAKE.line_of(_item("Calculator-level-1-1.jsonl", 1, _DIALOGUE, "Done.")))
        is None
    )
