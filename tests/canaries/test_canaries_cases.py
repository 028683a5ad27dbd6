"""The canary cases themselves and the interval maths: no database."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from adapters.intervals import wilson_interval
from verification.engine.eval.canary_cases import DOMAINS, canary_case
from verification.engine.runs.config import RunVerifierConfig
from verification.engine.runs.verify import verify_run


def _answer(case_messages: list[dict]) -> str:
    return str(case_messages[-1]["content"])


def test_it_draws_a_different_run_for_every_seed() -> None:
    bodies = {
        json.dumps(canary_case(seed=seed, fabricated=seed % 2 == 0).request_body(), sort_keys=True)
        for seed in range(2000)
    }
    assert len(bodies) == 2000


@given(seed=st.integers(min_value=0, max_value=2**63 - 1), domain=st.sampled_from(sorted(DOMAINS)))
def test_it_edits_exactly_one_restated_value_of_a_fabricated_case(seed: int, domain: str) -> None:
    case = canary_case(seed=seed, fabricated=True, domain=domain)
    record = json.loads(case.messages[2]["content"])
    assert case.label == "fabricated" and case.expected_verdict == "BLOCK"
    assert case.edit["field"] in record
    assert str(record[case.edit["field"]]) == case.edit["tool"]
    # The wrong value is what the answer says, and it is not the tool's value in any spelling used.
    assert case.edit["answer"] in _answer(case.messages)
    assert case.edit["answer"] != case.edit["tool"]


@given(seed=st.integers(min_value=0, max_value=2**63 - 1), domain=st.sampled_from(sorted(DOMAINS)))
def test_it_restates_only_the_tools_values_in_a_faithful_case(seed: int, domain: str) -> None:
    case = canary_case(seed=seed, fabricated=False, domain=domain)
    record = json.loads(case.messages[2]["content"])
    answer = _answer(case.messages)
    assert case.edit == {} and case.expected_verdict == "ALLOW"
    # Every number in the answer is one of the record's, or a piece of one of its times or dates
    # (the hour of 19:05 spoken as "7:05 PM", the day and year of 2026-05-13 as "May 13, 2026").
    allowed: set[float] = set()
    for value in record.values():
        if isinstance(value, int | float):
            allowed.add(float(value))
        for piece in re.findall(r"\d+", str(value)):
            allowed.update({float(piece), float((int(piece) - 1) % 12 + 1)})
    for number in re.findall(r"-?\d+(?:\.\d+)?", answer.replace(",", "")):
        assert float(number) in allowed or float(number.lstrip("-")) in allowed, (number, answer, record)


def test_it_never_says_it_is_a_canary() -> None:
    for seed in range(200):
        text = json.dumps(canary_case(seed=seed, fabricated=seed % 3 == 0).request_body()).lower()
        assert "canary" not in text and "fabricat" not in text and "faithful" not in text


def test_it_gives_a_real_verifier_faithful_runs_it_accepts() -> None:
    # Canaries measure providers: a faithful case a good verifier rejects would charge it a false
    # positive it did not make. Our own engine accepts nearly all of them.
    flagged = 0
    for seed in range(120):
        case = canary_case(seed=seed, fabricated=False)
        report = verify_run(case.messages, case.tools, config=RunVerifierConfig()).to_dict()
        flagged += bool(report["hallucination_detected"])
    assert flagged <= 3


def test_it_refuses_an_unknown_domain() -> None:
    with pytest.raises(ValueError, match="unknown canary domain"):
        canary_case(seed=1, fabricated=True, domain="stocks")


@given(trials=st.integers(min_value=0, max_value=5000), data=st.data())
def test_it_brackets_the_measured_rate_inside_zero_and_one(trials: int, data: st.DataObject) -> None:
    successes = data.draw(st.integers(min_value=0, max_value=trials))
    interval = wilson_interval(successes, trials)
    assert 0.0 <= interval.low <= interval.high <= 1.0
    if trials == 0:
        assert interval.rate is None and (interval.low, interval.high) == (0.0, 1.0)
    else:
        assert interval.low <= successes / trials + 1e-4 and successes / trials - 1e-4 <= interval.high
        # At 0 and n successes the bound is exact; elsewhere it may round to 0 or 1 at four places
        # (1 of 3,531 has a lower bound of 0.00005), but the other bound never does.
        if successes == 0:
            assert interval.low == 0.0 and interval.high > 0.0
        if successes == trials:
            assert interval.high == 1.0 and interval.low < 1.0
        if 0 < successes < trials:
            assert interval.low < 1.0 and interval.high > 0.0 and interval.low < interval.high


@given(p=st.floats(min_value=0.05, max_value=0.95), n=st.integers(min_value=10, max_value=2000))
def test_it_narrows_as_trials_grow(p: float, n: int) -> None:
    narrow = wilson_interval(round(p * 4 * n), 4 * n)
    wide = wilson_interval(round(p * n), n)
    assert narrow.high - narrow.low < wide.high - wide.low


def test_it_matches_published_wilson_bounds() -> None:
    # 0 of 10 and 5 of 10 at 95 %: Newcombe (1998), Statistics in Medicine 17, table I.
    assert wilson_interval(0, 10)[1:3] == (0.0, 0.2775)
    assert wilson_interval(5, 10)[1:3] == (0.2366, 0.7634)


@pytest.mark.parametrize(("successes", "trials"), [(-1, 3), (4, 3), (0, -1)])
def test_it_refuses_impossible_counts(successes: int, trials: int) -> None:
    with pytest.raises(ValueError):
        wilson_interval(successes, trials)
