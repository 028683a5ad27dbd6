"""Scoring configuration: defaults, JSON round trip, validation naming the bad field."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adapters import AdapterSpec, Erc8004FeedbackParams, OutputVerificationParams, ScoringParams, StakeWeights


def test_it_has_the_spec_defaults() -> None:
    params = ScoringParams()
    ov = params.output_verification
    assert (ov.full_power_block_rate, ov.stake_multiplier_min, ov.stake_multiplier_max) == (0.05, 0.5, 3.0)
    assert (ov.stake_multiplier_cap, ov.volume_cap, ov.volume_scale, ov.min_checks) == (1.5, 50.0, 20.0, 10)
    assert (ov.quality_weight, ov.coverage_weight, ov.disagreement_factor, ov.max_age_days) == (
        0.7,
        0.3,
        0.5,
        30.0,
    )
    assert ov.stake_weights.as_tuple() == (0.5, 1.0, 2.0, 3.0)
    assert params.erc8004_feedback == Erc8004FeedbackParams("starred", 20.0, 10.0)
    assert params.stale_multiplier == 1.0
    ov_spec, fb_spec = params.adapters
    assert (ov_spec.adapter_id, ov_spec.mode, ov_spec.weight, ov_spec.include_registries) == (
        "output-verification",
        "scoped",
        1.0,
        (),
    )
    assert (fb_spec.adapter_id, fb_spec.mode, fb_spec.weight, fb_spec.include_registries) == (
        "erc8004-feedback",
        "scoped",
        1.0,
        ("erc-8004",),
    )


adapter_ids = st.from_regex(r"\A[a-z][a-z0-9]{0,5}(-[a-z][a-z0-9]{0,5}){0,2}\Z")
registries = st.lists(st.sampled_from(["erc-8004", "hcs-10", "x"]), max_size=3, unique=True).map(tuple)
protocols = st.lists(st.sampled_from(["a2a", "mcp"]), max_size=2, unique=True).map(tuple)
positive = st.floats(0.01, 1000, allow_nan=False)


@st.composite
def configs(draw: st.DrawFn) -> ScoringParams:
    ids = draw(st.lists(adapter_ids, max_size=4, unique=True))
    adapters = tuple(
        AdapterSpec(
            i,
            draw(st.sampled_from(["universal", "scoped", "conditional"])),
            draw(st.floats(0, 10)),
            draw(registries),
            draw(registries),
            include_protocols=draw(protocols),
            exclude_protocols=draw(protocols),
        )
        for i in ids
    )
    quality_weight = draw(st.sampled_from([0.7, 0.5, 1.0, 0.25]))
    ov = OutputVerificationParams(
        full_power_block_rate=draw(positive),
        stake_weights=StakeWeights(*draw(st.tuples(*[st.floats(0, 10)] * 4))),
        stake_multiplier_min=draw(st.floats(0, 1)),
        stake_multiplier_max=draw(st.floats(1, 5)),
        stake_multiplier_cap=draw(st.floats(0, 5)),
        volume_cap=draw(positive),
        volume_scale=draw(positive),
        min_checks=draw(st.integers(0, 1000)),
        quality_weight=quality_weight,
        coverage_weight=1.0 - quality_weight,
        disagreement_factor=draw(st.floats(0, 1)),
        max_age_days=draw(positive),
    )
    fb = Erc8004FeedbackParams(draw(st.sampled_from(["starred", "quality"])), draw(positive), draw(positive))
    return ScoringParams(adapters, ov, fb, draw(st.floats(0, 1)))


@settings(max_examples=50)
@given(configs())
def test_it_round_trips_through_plain_json(params: ScoringParams) -> None:
    text = json.dumps(params.to_dict())
    assert ScoringParams.from_dict(json.loads(text)) == params


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"stale_multiplier": 1.5}, "stale_multiplier"),
        ({"stale_multiplier": "1"}, "stale_multiplier"),
        ({"adapters": [{"adapter_id": "Bad_Id", "mode": "scoped"}]}, "adapter_id"),
        ({"adapters": [{"adapter_id": "a", "mode": "always"}]}, "mode"),
        ({"adapters": [{"adapter_id": "a", "mode": "scoped", "weight": -1}]}, "weight"),
        ({"adapters": [{"adapter_id": "a", "mode": "scoped", "weight": True}]}, "weight"),
        ({"adapters": [{"mode": "scoped"}]}, "adapter_id"),
        (
            {"adapters": [{"adapter_id": "a", "mode": "scoped", "include_registries": "erc-8004"}]},
            "include_registries",
        ),
        (
            {"adapters": [{"adapter_id": "a", "mode": "scoped"}, {"adapter_id": "a", "mode": "scoped"}]},
            "adapter_id",
        ),
        ({"output_verification": {"min_checks": 2.5}}, "min_checks"),
        ({"output_verification": {"volume_cap": 0}}, "volume_cap"),
        ({"output_verification": {"quality_weight": 0.9}}, "quality_weight"),
        ({"output_verification": {"stake_weights": {"micro": 1}}}, "micro"),
        ({"output_verification": {"disagreement_factor": 2}}, "disagreement_factor"),
        ({"erc8004_feedback": {"rating_tag": ""}}, "rating_tag"),
        ({"erc8004_feedback": {"volume_scale": float("nan")}}, "volume_scale"),
        ({"weights": {}}, "weights"),
        (
            {"adapters": [{"adapter_id": "a", "mode": "scoped", "exclude_protocols": [1]}]},
            "exclude_protocols",
        ),
    ],
)
def test_it_names_the_bad_field(data: dict[str, Any], field: str) -> None:
    with pytest.raises(ValueError, match=field):
        ScoringParams.from_dict(data)


def test_it_refuses_a_non_object_config() -> None:
    with pytest.raises(ValueError, match="JSON object"):
        ScoringParams.from_dict([1, 2])


def test_it_applies_registry_lists() -> None:
    spec = AdapterSpec(
        "a", "scoped", include_registries=("erc-8004", "hcs-10"), exclude_registries=("hcs-10",)
    )
    assert [spec.applies_to(r) for r in ("erc-8004", "hcs-10", "x", None)] == [True, False, False, False]
    assert AdapterSpec("a", "universal").applies_to(None)


def test_it_applies_protocol_lists() -> None:
    spec = AdapterSpec("a", "scoped", include_protocols=("a2a", "mcp"), exclude_protocols=("mcp",))
    assert [spec.applies_to("r", p) for p in ("a2a", "mcp", "http", None)] == [True, False, False, False]
    assert AdapterSpec("a", "scoped", exclude_protocols=("mcp",)).applies_to("r", None)
