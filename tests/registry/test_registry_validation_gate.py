"""The compiled schema gate may skip jsonschema only for bodies jsonschema would accept.

The gate (fastjsonschema) answers yes/no; jsonschema produces the field errors. If the gate ever said
yes to a body jsonschema refuses, an invalid summary would be stored, so these property tests throw
valid bodies, mutated bodies and arbitrary JSON at both and check the gate is never looser.
"""

from __future__ import annotations

from datetime import UTC
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from registry.services.validation import OUTCOME_BODY, SUMMARY_BODY, summary_validate

json_leaf = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**60), max_value=2**60),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=20),
)
json_value = st.recursive(
    json_leaf,
    lambda children: st.one_of(
        st.lists(children, max_size=4), st.dictionaries(st.text(max_size=10), children, max_size=4)
    ),
    max_leaves=12,
)
rate = st.one_of(st.floats(min_value=0, max_value=1), st.sampled_from([0, 1]))
stake_level = st.fixed_dictionaries(
    {"checks": st.integers(min_value=0, max_value=10**6)},
    optional={"allowRate": rate, "avgConfidence": rate},
)
valid_summary = st.fixed_dictionaries(
    {
        "agent": st.from_regex(r"[A-Za-z0-9._:;=@+\-]{1,40}", fullmatch=True),
        "allowRate": rate,
        "blockRate": rate,
        "avgConfidence": rate,
        "totalChecks": st.integers(min_value=0, max_value=10**9),
    },
    optional={
        "uncertainRate": rate,
        "windowDays": st.integers(min_value=1, max_value=365),
        "agentRegistry": st.sampled_from(["erc-8004", "hcs-10", "other"]),
        "agentProtocol": st.text(max_size=64),
        "updatedAt": st.datetimes(timezones=st.just(UTC)).map(lambda d: d.isoformat().replace("+00:00", "Z")),
        "stakeDistribution": st.dictionaries(
            st.sampled_from(["low", "medium", "high", "critical", "other"]), stake_level, max_size=4
        ),
    },
)


@st.composite
def mutated_summary(draw: st.DrawFn) -> Any:
    body: dict[str, Any] = dict(draw(valid_summary))
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        key = draw(st.sampled_from([*body.keys(), "windowDays", "stakeDistribution", "providers", "extra"]))
        if draw(st.booleans()) and key in body:
            del body[key]
        else:
            body[key] = draw(json_value)
    return body


def _jsonschema_accepts(validator: Any, body: Any) -> bool:
    return not list(validator.iter_errors(body))


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(body=st.one_of(mutated_summary(), json_value))
def test_it_never_lets_through_a_summary_jsonschema_refuses(body: Any) -> None:
    if SUMMARY_BODY.passes_gate(body):
        assert _jsonschema_accepts(SUMMARY_BODY.validator, body)


@settings(max_examples=200)
@given(body=valid_summary)
def test_it_takes_the_fast_path_for_valid_summaries(body: dict[str, Any]) -> None:
    assert _jsonschema_accepts(SUMMARY_BODY.validator, body)
    assert SUMMARY_BODY.passes_gate(body)


@settings(max_examples=200)
@given(body=mutated_summary())
def test_it_reports_the_same_errors_as_jsonschema_alone(body: dict[str, Any]) -> None:
    normalised, errors = summary_validate(body)
    if not _jsonschema_accepts(SUMMARY_BODY.validator, body):
        assert normalised is None and errors


outcome = st.fixed_dictionaries(
    {
        "id": st.text(min_size=1, max_size=30),
        "verdict": st.sampled_from(["ALLOW", "BLOCK", "UNCERTAIN", "HOLD", "DISSENT", "OBJECT"]),
        "confidence": rate,
        "checkedAt": st.just("2026-11-20T10:00:00Z"),
    },
    optional={"stake": st.text(max_size=32)},
)


@settings(max_examples=300)
@given(
    body=st.one_of(
        outcome,
        json_value,
        st.tuples(outcome, st.sampled_from(["id", "verdict", "confidence", "stake"]), json_value).map(
            lambda t: {**t[0], t[1]: t[2]}
        ),
    )
)
def test_it_never_lets_through_an_outcome_jsonschema_refuses(body: Any) -> None:
    if OUTCOME_BODY.passes_gate(body):
        assert _jsonschema_accepts(OUTCOME_BODY.validator, body)
