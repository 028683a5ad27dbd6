"""Issue 14, fourteenth round (h23a): the false alarms of the tau2-bench telecom dev runs, as general rules.

A generic getter (``get_details_by_id``) returns records of several kinds (a customer's lines, a line's
plan): results of one tool are siblings only among records of one kind, so a line's usage told after its
plan's name is the line's, not "another item's". Names the agent offers as examples closed by a hedge ("like
Google Chrome, Safari, or any other browser"), in a parenthesis opened by "like", or quotes as the labels of
a how-to step on the customer's device ("Look for "Preferred Network Type"") are no claims about the
results. The runs are made up for these tests; each positive has a negative that shows what must still be
flagged. The corpus files are checked to be what the committed transcription builds.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from tests.engine_runs.runs_helpers import RUNS_DIR as _RUNS
from tests.engine_runs.runs_helpers import flagged, load_bench_module
from verification.engine.runs import verify_run
from verification.engine.runs.evidence import _same_kind, _sibling_lists
from verification.engine.runs.messages import ToolResult

_LINE_1 = {
    "line_id": "L1001",
    "phone_number": "555-123-2001",
    "status": "Active",
    "plan_id": "P1001",
    "data_used_gb": 3.2,
    "roaming_enabled": False,
    "contract_end_date": "2026-12-31",
}
_LINE_2 = dict(_LINE_1, line_id="L1002", phone_number="555-123-2002", plan_id="P1002", data_used_gb=15.1)
_PLAN_2 = {
    "plan_id": "P1002",
    "name": "Premium Plan",
    "data_limit_gb": 15.0,
    "price_per_month": 65.0,
    "data_refueling_price_per_gb": 2.0,
}


def _getter_run(results: list[dict[str, Any]], answer: str) -> list[dict[str, Any]]:
    """A run calling one generic getter once per id, in order, then answering."""
    msgs: list[dict[str, Any]] = [{"role": "user", "content": "My mobile data is down. 555-123-2002."}]
    for i, result in enumerate(results):
        record_id = str(result.get("line_id") or result.get("plan_id"))
        call = {
            "id": f"c{i}",
            "type": "function",
            "function": {"name": "get_details_by_id", "arguments": json.dumps({"id": record_id})},
        }
        msgs.append({"role": "assistant", "content": None, "tool_calls": [call]})
        msgs.append({"role": "tool", "tool_call_id": f"c{i}", "content": json.dumps(result)})
    msgs.append({"role": "assistant", "content": answer})
    return msgs


def _flags(messages: list[dict[str, Any]]) -> list[str]:
    return [t for t, _ in flagged(verify_run(messages))]


def test_a_lines_usage_after_its_plans_name_is_the_lines() -> None:
    answer = (
        "You're on the Premium Plan, which has a data limit of 15 GB per month. "
        "Your current usage is 15.1 GB, which means you've exceeded your data limit."
    )
    assert _flags(_getter_run([_LINE_1, _LINE_2, _PLAN_2], answer)) == []


def test_a_sibling_lines_usage_told_of_a_line_is_still_flagged() -> None:
    # Both results are lines: 3.2 GB is line 555-123-2001's usage, told of line 555-123-2002.
    answer = "For the line 555-123-2002, you've used 3.2 GB of your data this month."
    assert "3.2" in _flags(_getter_run([_LINE_1, _LINE_2, _PLAN_2], answer))


def _plain_run(answer: str) -> list[dict[str, Any]]:
    policy = "The user's phone prefers a network mode (5G, 4G, 3G or 2G) set in its settings."
    return [{"role": "system", "content": policy}, *_getter_run([_LINE_2], answer)]


def test_hedged_examples_are_no_claims() -> None:
    answer = (
        "Your line 555-123-2002 is active. Open the app you use to browse the internet, like Google Chrome, "
        'Safari, or any other browser. Sites such as "Speedtest by Ookla" or similar will measure it.'
    )
    assert _flags(_plain_run(answer)) == []


def test_a_name_without_the_hedge_is_still_flagged() -> None:
    answer = "Your line 555-123-2002 is active. Google Chrome has blocked your mobile data."
    assert "Google Chrome" in " ".join(_flags(_plain_run(answer)))


def test_quoted_labels_of_a_device_step_are_no_claims() -> None:
    answer = (
        "Your line 555-123-2002 is active.\n\n"
        '1. Open the "Settings" app.\n'
        '2. Look for "Preferred Network Type" or "Network Mode."\n'
        '3. If it\'s set to 2G only, change it (like "5G/4G/3G/2G Auto").'
    )
    assert _flags(_plain_run(answer)) == []


def test_a_quoted_name_outside_a_device_step_is_still_flagged() -> None:
    answer = 'Your line 555-123-2002 is on the "Unlimited Gold Saver" plan.'
    assert "Unlimited Gold Saver" in " ".join(_flags(_plain_run(answer)))


_FIELDS = st.frozensets(st.sampled_from([f"k{i}" for i in range(12)]), min_size=1)


@given(_FIELDS, _FIELDS)
def test_same_kind_is_reflexive_and_symmetric(a: frozenset[str], b: frozenset[str]) -> None:
    assert _same_kind(a, a)
    assert _same_kind(a, b) == _same_kind(b, a)


@given(st.lists(_FIELDS, min_size=2, max_size=6))
def test_records_with_the_same_fields_are_always_siblings(shapes: list[frozenset[str]]) -> None:
    results = [ToolResult(f"c{i}", "get", "", {k: i for k in s}, 2 * i + 2) for i, s in enumerate(shapes)]
    lists = _sibling_lists(results)
    for i, a in enumerate(shapes):
        for j, b in enumerate(shapes):
            if i != j and a == b:
                assert lists[2 * i + 2] == lists[2 * j + 2]
            elif not _same_kind(shapes[0], a) and lists.get(2 * i + 2) is not None:
                # A record unlike the first of the tool's results is never in the first one's list.
                assert lists[2 * i + 2] != lists.get(2)


def test_it_builds_the_committed_telecom_files_from_the_transcription(tmp_path: Path) -> None:
    condense, make = load_bench_module("tau2_telecom_condense"), load_bench_module("make_tau_airline")
    for half in ("dev", "heldout"):
        source = _RUNS / f"tau2_telecom_{half}"
        for raw in sorted((source / "raw").glob("s*.jsonl")):
            run = condense.condense(raw)
            committed = json.loads((source / f"traj_{run['task_id']:03d}.json").read_text(encoding="utf-8"))
            assert committed == run, raw.name
        argv = [str(source), "--condensed", "--perturbed", "--all-dev", half, "--name", "tau2_telecom"]
        assert make.main([*argv, "--id-prefix", "tau2-telecom-grok3", "--out", str(tmp_path)]) == 0
        for kind in ("clean", "perturbed"):
            for suffix in (".jsonl", ".meta.jsonl"):
                name = f"tau2_telecom_{kind}_{half}{suffix}"
                assert (tmp_path / name).read_bytes() == (_RUNS / name).read_bytes(), name
