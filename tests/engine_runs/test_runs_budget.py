"""Bounded cost of a run verification (issue 13): size caps refused before the work, a budget checked
inside the engine's loops, and the shapes of the finding (10 K / 190 K and 50 K / 1 MB) now bounded.

Every assertion is on the outcome (an error and what it names), never on a duration.
"""

from __future__ import annotations

import pytest

from tests.engine_runs.runs_helpers import hostile_run, make_run
from verification.engine.budget import UNLIMITED, Budget, BudgetExceeded
from verification.engine.runs import MalformedRunError, RunTooLargeError, RunVerifierConfig, verify_run

RESULT = {"name": "Eiffel Tower", "built": "1887-1889", "height": "330 m"}
ANSWER = "The Eiffel Tower was built in 1950 and is 330 meters tall."


def test_it_refuses_an_answer_over_the_cap_naming_its_message() -> None:
    run = make_run("When?", [RESULT], "It is 330 m tall. " * 20)
    with pytest.raises(RunTooLargeError) as caught:
        verify_run(run, config=RunVerifierConfig(max_answer_chars=100))
    assert caught.value.path == "messages[3].content"
    assert isinstance(caught.value, MalformedRunError)  # callers catching the old error still do


def test_it_refuses_a_run_over_the_context_cap_naming_the_message() -> None:
    run = make_run("When?", [{"rows": ["x" * 50] * 10}], ANSWER)
    with pytest.raises(RunTooLargeError) as caught:
        verify_run(run, config=RunVerifierConfig(max_total_chars=200))
    assert caught.value.path == "messages[2].content"


def test_it_refuses_too_many_checkable_values_before_matching() -> None:
    run = make_run("When?", [RESULT], "It cost 5, 6, 7, 8 and 9 dollars on 3 days.")
    with pytest.raises(RunTooLargeError, match="checkable values, the limit is 3") as caught:
        verify_run(run, config=RunVerifierConfig(max_claims=3), budget=UNLIMITED)
    assert caught.value.path == "messages[3].content"


def test_it_refuses_too_many_comparisons_before_matching() -> None:
    run = hostile_run(2_000, 20_000)
    with pytest.raises(RunTooLargeError, match="comparisons, the limit is 1000"):
        verify_run(run, config=RunVerifierConfig(max_comparisons=1_000))


def test_it_stops_a_run_that_uses_up_its_budget_inside_the_matching() -> None:
    # Reading 190 K of tool JSON alone takes longer than 10 ms of CPU, compiled or not.
    with pytest.raises(BudgetExceeded) as caught:
        verify_run(hostile_run(10_000, 190_000), budget=Budget(0.01))
    assert caught.value.budget == "cpu-seconds" and caught.value.limit == 0.01
    assert caught.value.stage


def test_it_stops_at_once_with_an_empty_budget() -> None:
    with pytest.raises(BudgetExceeded, match="reading the run"):
        verify_run(make_run("When?", [RESULT], ANSWER), budget=Budget(0.0))


def test_it_gives_the_same_report_under_a_generous_budget() -> None:
    run = hostile_run(3_000, 30_000)
    free = verify_run(run).to_dict()
    bounded = verify_run(run, budget=Budget(3600.0), config=RunVerifierConfig(max_comparisons=10**9))
    assert bounded.to_dict() == free


def test_it_refuses_the_50k_answer_against_1mb_of_json_before_the_work() -> None:
    # The finding that ran for hours: with the service's caps it is refused up front.
    cfg = RunVerifierConfig(max_claims=2_000, max_comparisons=20_000_000)
    with pytest.raises(RunTooLargeError) as caught:
        verify_run(hostile_run(50_000, 1_000_000), config=cfg, budget=Budget(2.0))
    assert caught.value.path == "messages[3].content"


def test_it_rejects_a_negative_budget_and_an_unknown_clock() -> None:
    with pytest.raises(ValueError):
        Budget(-1.0)
    with pytest.raises(ValueError):
        Budget(1.0, clock="sundial")
    assert Budget(1.0, clock="wall").kind == "seconds"
