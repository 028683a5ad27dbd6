"""Issue 14: false-alarm classes of long multi-turn runs, on runs written for these tests, and the labels of
the seeded long-run set (bench/long_runs.py)."""

import importlib.util
import json
import random
from pathlib import Path
from typing import Any

import pytest

from verification.engine.runs import verify_run

_SPEC = importlib.util.spec_from_file_location(
    "bench_long_runs", Path(__file__).resolve().parents[2] / "bench" / "long_runs.py"
)
assert _SPEC is not None and _SPEC.loader is not None
_LONG_RUNS = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(_LONG_RUNS)
make_long_case = _LONG_RUNS.make_long_case


def _run(turns, answer):
    """A run of ``turns`` ([(user, tool name, result)]), each one call and its result, then ``answer``."""
    msgs: list[dict[str, Any]] = [
        {"role": "system", "content": "You help travellers and shoppers. Use the tools."}
    ]
    for i, (user, name, result) in enumerate(turns):
        msgs += [
            {"role": "user", "content": user},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": f"t{i}", "type": "function", "function": {"name": name, "arguments": "{}"}}
                ],
            },
            {"role": "tool", "tool_call_id": f"t{i}", "content": json.dumps(result)},
        ]
    msgs.append({"role": "assistant", "content": answer})
    return msgs


def _flagged(messages):
    return [(c.text, c.label) for c in verify_run(messages).flagged_claims]


TRAIN = ("Which train do I take?", "find_train", {"train": "IC 518", "leaves": "08:12:00", "platform": "4"})


@pytest.mark.parametrize(
    "answer",
    [
        "**Your Connection**\n\nTrain IC 518 leaves at 8:12 AM from platform 4.",
        "## Travel Overview\nTrain IC 518 leaves at 8:12 AM from platform 4.",
        "Departure details:\n- Train IC 518 leaves at 8:12 AM from platform 4.",
        "Here you go.\n\n**Departure Time:** 8:12 AM\n**Platform:** 4",
    ],
)
def test_it_reads_no_name_into_headings_and_field_labels(answer):
    assert _flagged(_run([TRAIN], answer)) == []


def test_it_still_checks_the_values_under_a_heading():
    answer = "**Your Connection**\n\nTrain IC 518 leaves at 9:40 AM from platform 4."
    assert ("9:40 AM", "CONTRADICTED") in _flagged(_run([TRAIN], answer))


def test_it_keeps_a_bare_emphasised_answer_as_a_claim():
    run = _run([("Who runs the depot?", "depot", {"manager": "Ilse Brandt"})], "**Joris Veld**")
    assert _flagged(run) != []


FERRY = (
    "When does my ferry sail?",
    "ferry_status",
    {"route": "ferry F7", "from": "HEL", "to": "TLL", "sails": "15:30:00", "berth": "T2"},
)


@pytest.mark.parametrize(
    "answer",
    [
        "Ferry F7 sails from Helsinki (HEL) to Tallinn (TLL) at 3:30 PM, berth T2.",
        "Ferry F7 sails from HEL (Helsinki) to TLL (Tallinn) at 3:30 PM, berth T2.",
    ],
)
def test_it_takes_a_name_beside_a_returned_code_as_its_expansion(answer):
    assert _flagged(_run([FERRY], answer)) == []


def test_it_still_flags_a_code_the_results_do_not_give():
    answer = "Ferry F7 sails from Helsinki (HEL) to Stockholm (ARN) at 3:30 PM, berth T2."
    flagged = _flagged(_run([FERRY], answer))
    assert any(text in ("ARN", "Stockholm") for text, _ in flagged)


def test_it_counts_the_unit_after_a_modifying_noun():
    # "business" is also a fare class of the flight: the count is of days, the refund's own field.
    runs = [
        ("Fly me home.", "flight", {"flight": "KL 1002", "fare": {"business": 912.0, "economy": 233.0}}),
        ("And my refund?", "refund", {"refund_total": 48.5, "days": 6}),
    ]
    ok = _run(runs, "Your refund of $48.50 arrives within 6 business days.")
    assert _flagged(ok) == []
    wrong = _run(runs, "Your refund of $48.50 arrives within 9 business days.")
    assert ("9", "CONTRADICTED") in _flagged(wrong)


def test_it_does_not_anchor_a_recap_on_a_value_shared_with_another_result():
    # The rounded fare "$612" equals the first order's total too; it names the flight, and the next
    # sentence's order ids stay the orders' own.
    turns = [
        ("My flight?", "flight", {"flight": "NZ 88", "fare": {"economy": 611.8}}),
        (
            "My orders?",
            "list_orders",
            {
                "orders": [
                    {"order_id": "R4410021", "status": "open", "total": 612.1},
                    {"order_id": "R4410022", "status": "open", "total": 80.0},
                ]
            },
        ),
    ]
    answer = "Flight NZ 88 is about $612 in economy. Your open orders are R4410021 and R4410022."
    assert _flagged(_run(turns, answer)) == []


def test_it_labels_the_planted_error_of_each_long_run():
    rng = random.Random(5)
    cases = [make_long_case(rng) for _ in range(30)]
    wrong = [(m, lab) for m, lab in cases if lab["hallucinated"]]
    assert wrong and len(wrong) < len(cases)
    for messages, label in cases:
        answer = messages[-1]["content"]
        if not label["hallucinated"]:
            assert label["spans"] == []
            continue
        (span,) = label["spans"]
        assert answer[span["start"] : span["end"]] == span["text"]


def test_it_finds_the_planted_errors_of_long_runs_and_passes_most_clean_ones():
    rng = random.Random(21)
    cases = [make_long_case(rng) for _ in range(24)]
    found = clean_flagged = clean = 0
    for messages, label in cases:
        report = verify_run(messages)
        spans = [(s["start"], s["end"]) for s in label["spans"]]
        if label["hallucinated"]:
            found += any(c.span[0] < b and a < c.span[1] for c in report.flagged_claims for a, b in spans)
        else:
            clean += 1
            clean_flagged += report.hallucination_detected
    assert found >= 1
    assert clean_flagged <= clean // 5


def test_it_does_not_take_the_item_of_a_sentence_that_names_its_own_from_the_one_before():
    turns = [
        (
            "My orders?",
            "list_orders",
            {"orders": [{"order_id": "R4410021", "total": 80.0}, {"order_id": "R4410022", "total": 95.0}]},
        ),
        ("And shipping?", "shipments", {"shipments": [{"shipment_id": "S7710", "order_id": "R4410021"}]}),
    ]
    answer = "Order R4410022 totals $95. Shipment S7710 carries the $80 order."
    assert _flagged(_run(turns, answer)) == []


def test_it_ships_the_agentdojo_corpus_as_clean_runs_that_verify():
    path = Path(__file__).resolve().parents[2] / "bench" / "corpora" / "runs" / "agentdojo_clean.jsonl"
    lines = [json.loads(raw) for raw in path.read_text(encoding="utf-8").splitlines() if raw.strip()]
    assert len({line["id"] for line in lines}) == len(lines) > 0
    # Two of AgentDojo's answers are themselves wrong and labelled so (test_runs_agentdojo_corpus.py).
    assert sum(line["label"]["hallucinated"] for line in lines) == 2
    for line in lines:
        if not line["label"]["hallucinated"]:
            assert line["label"] == {"hallucinated": False, "fact_check_needed": True, "spans": []}
        assert line["messages"][-1]["role"] == "assistant" and line["messages"][-1]["content"]
        report = verify_run(line["messages"], line["tools"])
        assert report.fact_check_needed and not report.unverified_factual
