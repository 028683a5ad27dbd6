"""A run's tool schemas bring their own regexes (issue 13): ``pattern`` and ``patternProperties`` run in
linear time, with jsonschema's answers on ordinary schemas."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest

from verification.engine.budget import Budget, BudgetExceeded
from verification.engine.runs import RunVerifierConfig, verify_run
from verification.engine.runs.messages import parse_run
from verification.engine.runs.schemas import SafeValidator, schema_budget
from verification.engine.runs.toolcalls import validate_tool_calls
from verification.engine.tools.patterns import HYPERSCAN

SCHEMA = {
    "type": "object",
    "properties": {"q": {"type": "string", "pattern": "^(a+)+$"}},
    "patternProperties": {"^(x+)+$": {"type": "integer"}},
    "additionalProperties": False,
}


def run_with(arguments: dict[str, Any], schema: dict[str, Any]) -> list[dict[str, Any]]:
    call = {"id": "c", "type": "function", "function": {"name": "f", "arguments": json.dumps(arguments)}}
    return [
        {"role": "user", "content": "Look it up."},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c", "content": "{}"},
        {"role": "assistant", "content": "Done."},
    ]


@pytest.mark.skipif(not HYPERSCAN, reason="without hyperscan such a pattern is not checked at all")
def test_it_checks_backtracking_tool_schema_regexes_in_linear_time() -> None:
    # With re, 30 characters took seconds and each one more doubled it; here 50,000 are one pass.
    arguments = {"q": "a" * 50_000 + "!", "x" * 50_000 + "!": 1, "x" * 10: 2}
    tools = [{"type": "function", "function": {"name": "f", "parameters": SCHEMA}}]
    report = verify_run(run_with(arguments, SCHEMA), tools)
    validation = report.tool_call_validations[0]
    assert validation.status == "invalid"
    assert [e.split(":")[0] for e in validation.errors] == ["(root)", "q"]
    assert "does not match '^(a+)+$'" in validation.errors[1]


@pytest.mark.parametrize(
    ("schema", "instance"),
    [
        ({"type": "string", "pattern": "^[A-Z]{3}-\\d+$"}, "ORD-12"),
        ({"type": "string", "pattern": "^[A-Z]{3}-\\d+$"}, "ord-12"),
        ({"pattern": "x"}, 5),
        ({"patternProperties": {"^n_": {"type": "integer"}}}, {"n_a": 1, "n_b": "two", "c": 3}),
        ({"properties": {"a": {}}, "additionalProperties": False}, {"a": 1, "b": 2, "c": 3}),
        ({"properties": {"a": {}}, "additionalProperties": False}, {"a": 1}),
        (
            {"patternProperties": {"^s_": {}}, "additionalProperties": {"type": "string"}},
            {"s_x": 1, "y": 2, "z": "ok"},
        ),
        ({"patternProperties": {"^s_": {}}, "additionalProperties": False}, {"s_x": 1, "y": 2}),
        ({"items": {"pattern": "^a"}}, ["ab", "ba"]),
    ],
)
def test_it_gives_jsonschemas_answers_on_ordinary_schemas(schema: dict[str, Any], instance: Any) -> None:
    ours = sorted((list(e.absolute_path), e.validator) for e in SafeValidator(schema).iter_errors(instance))
    theirs = sorted(
        (list(e.absolute_path), e.validator)
        for e in jsonschema.Draft202012Validator(schema).iter_errors(instance)
    )
    assert ours == theirs


def test_it_does_not_run_a_regex_it_cannot_run_safely() -> None:
    # A back-reference: hyperscan refuses it and re could backtrack, so the keyword is not checked.
    errors = list(SafeValidator({"type": "string", "pattern": "^(a+)+\\1$"}).iter_errors("a" * 40 + "!"))
    assert errors == []


def test_it_checks_the_budget_before_each_tool_schema_regex() -> None:
    # Compiling a regex can take a good part of a second (bounded repeats); a run may declare many.
    schema = {"type": "object", "properties": {"p": {"type": "string", "pattern": "^a+z$"}}}
    with schema_budget(Budget(0.0)), pytest.raises(BudgetExceeded, match="against their schemas"):
        list(SafeValidator(schema).iter_errors({"p": "y" * 20}))
    assert list(SafeValidator(schema).iter_errors({"p": "y" * 20}))  # outside the block: no budget


def test_it_checks_the_budget_for_each_tool_call() -> None:
    schema = {"type": "object"}
    run = parse_run(
        run_with({"a": 1}, schema), [{"type": "function", "function": {"name": "f", "parameters": schema}}]
    )
    with pytest.raises(BudgetExceeded, match="checking the tool calls"):
        validate_tool_calls(run, RunVerifierConfig(), Budget(0.0))
