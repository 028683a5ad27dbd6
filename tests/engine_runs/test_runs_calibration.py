"""Calibrated probabilities of run reports (issue 14): the fitting maths, the shipped parameters, evaluate."""

import itertools
import json
import tomllib
from importlib import resources
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from verification.engine.eval.calibrate_runs import expected_calibration_error, pav
from verification.engine.eval.groundedness import evaluate_groundedness
from verification.engine.runs import RunVerifierConfig, ToolCallValidation, verify_run
from verification.engine.runs.calibration import RESOURCE, Calibration, load_calibration
from verification.engine.runs.gating import decide_calibrated

points = st.lists(st.tuples(st.floats(0, 1, allow_nan=False), st.booleans()), min_size=1, max_size=60)


@given(points)
def test_it_fits_a_non_decreasing_step_map(data):
    steps = pav(data)
    xs = [x for x, _ in steps]
    ys = [y for _, y in steps]
    assert xs == sorted(set(xs))
    assert all(a < b for a, b in itertools.pairwise(ys))
    assert all(0.0 <= y <= 1.0 for y in ys)
    # Pooling keeps the mean: the steps weighted by their points give the share of positives.
    counts = [sum(1 for x, _ in data if lo <= x < hi) for lo, hi in zip(xs, [*xs[1:], 2.0], strict=False)]
    mean = sum(y * n for y, n in zip(ys, counts, strict=False)) / len(data)
    assert abs(mean - sum(y for _, y in data) / len(data)) < 1e-3


@given(points)
def test_it_bounds_the_calibration_error(data):
    ece = expected_calibration_error(data)
    assert ece is not None and 0.0 <= ece <= 1.0


def test_it_gives_no_calibration_error_to_probabilities_that_match_their_outcomes():
    data = [(0.25, True)] + [(0.25, False)] * 3 + [(0.75, True)] * 3 + [(0.75, False)]
    assert expected_calibration_error(data) == 0.0


CAL = Calibration.from_dict(
    {
        "claims": {"*": 0.1, "SUPPORTED": 0.01, "CONTRADICTED": 0.9, "CONTRADICTED:time": 0.8},
        "response": {"none_value": 0.0, "steps": [[0.0, 0.02], [0.5, 0.6], [0.85, 0.97]]},
        "thresholds": {"revise": 0.6, "block": 0.97},
    }
)


def test_it_falls_back_from_a_cell_to_its_label_and_to_the_whole():
    assert CAL.claim_probability("CONTRADICTED", "time") == 0.8
    assert CAL.claim_probability("CONTRADICTED", "money") == 0.9
    assert CAL.claim_probability("UNSUPPORTED", "entity") == 0.1


@given(st.lists(st.floats(0, 1, allow_nan=False), max_size=8), st.floats(0, 1, allow_nan=False))
def test_it_never_lowers_a_response_for_a_more_doubtful_claim(probs, extra):
    assert CAL.response_probability_of([*probs, extra]) >= CAL.response_probability_of(probs)


def test_it_takes_the_gate_action_from_the_thresholds():
    assert [CAL.action(p) for p in (0.02, 0.6, 0.97)] == ["emit", "revise", "block"]


def _run(answer):
    return [
        {"role": "user", "content": "When does the museum open?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "m", "type": "function", "function": {"name": "hours", "arguments": "{}"}}],
        },
        {"role": "tool", "tool_call_id": "m", "content": json.dumps({"opens": "09:30:00", "fee_eur": 12})},
        {"role": "assistant", "content": answer},
    ]


def test_it_ships_parameters_that_rank_a_contradiction_above_a_grounded_answer():
    cal = load_calibration()
    assert cal is not None
    right = cal.of_report(verify_run(_run("It opens at 9:30 AM and entry is €12.")))
    wrong = cal.of_report(verify_run(_run("It opens at 11:30 AM and entry is €12.")))
    assert right["response"] < cal.thresholds["revise"] <= wrong["response"]
    assert right["action"] == "emit" and wrong["action"] != "emit"
    assert max(wrong["claims"]) > max(right["claims"])


def test_it_reports_calibration_error_and_actions_when_evaluating(tmp_path):
    path = tmp_path / "set.jsonl"
    lines = [
        {"id": "a", "messages": _run("It opens at 9:30 AM."), "label": {"hallucinated": False, "spans": []}},
        {
            "id": "b",
            "messages": _run("It opens at 11:30 AM."),
            "label": {"hallucinated": True, "spans": [{"start": 12, "end": 20}]},
        },
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    cal = evaluate_groundedness(path, progress=False)["calibration"]
    assert cal["auroc"]["response"] == 1.0
    assert cal["actions"]["emit"] == {"clean": 1}
    assert 0.0 <= cal["ece"]["response"] <= 1.0


def test_it_puts_the_calibrated_probabilities_into_every_report():
    cal = load_calibration()
    assert cal is not None
    report = verify_run(_run("It opens at 11:30 AM and entry is €12."))
    data = report.to_dict()
    expected = cal.of_report(report)
    assert [c["probability"] for c in data["claims"]] == [round(p, 4) for p in expected["claims"]]
    assert data["hallucination_probability"] == round(expected["response"], 4)
    assert data["gate"] == "score"


def test_it_gates_on_the_fitted_thresholds_when_asked_to():
    cal = load_calibration()
    assert cal is not None
    config = RunVerifierConfig(gate="calibrated")
    right = verify_run(_run("It opens at 9:30 AM and entry is €12."), config=config)
    wrong = verify_run(_run("It opens at 11:30 AM and entry is €12."), config=config)
    assert right.gate == wrong.gate == "calibrated"
    assert right.action == "emit"
    assert wrong.hallucination_probability is not None
    assert wrong.action == cal.action(wrong.hallucination_probability) != "emit"
    assert wrong.revise_message


def test_it_still_sends_back_a_calibrated_emit_after_a_rejected_call():
    thresholds = {"revise": 0.5, "block": 0.95}
    bad = ToolCallValidation("hours", {}, "invalid", ["x: bad"])
    assert decide_calibrated(0.01, thresholds, [bad], []) == "revise"
    assert decide_calibrated(0.01, thresholds, [], []) == "emit"


def test_it_refuses_an_unknown_gate():
    with pytest.raises(ValueError, match="gate"):
        RunVerifierConfig(gate="vibes")


def test_it_reads_the_shipped_calibration_as_package_data():
    # importlib.resources finds the file the way a wheel install would (no source-tree path), and the
    # build declares it as package data so the wheel has it.
    resource = resources.files("verification.engine.runs").joinpath(RESOURCE)
    assert resource.is_file()
    assert Calibration.from_dict(json.loads(resource.read_text(encoding="utf-8"))) == load_calibration()
    pyproject = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())
    assert RESOURCE in pyproject["tool"]["setuptools"]["package-data"]["verification.engine.runs"]


def test_it_loads_no_calibration_from_a_missing_file(tmp_path):
    assert load_calibration(str(tmp_path / "none.json")) is None
