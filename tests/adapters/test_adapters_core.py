"""HCS-25 core rules: statuses, stale multiplier, non-scorable omission, modes, weights."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from adapters import AdapterSpec, Component, adapter_result, adapter_total, composite
from adapters.core import STATUSES, ComponentStatus
from adapters.params import CONTRIBUTION_MODES

statuses = st.sampled_from(STATUSES)


@st.composite
def components(draw: st.DrawFn, adapter: str) -> Component:
    status = draw(statuses)
    value = draw(st.one_of(st.none(), st.floats(-50, 150))) if status != "ok" else draw(st.floats(-50, 150))
    return Component(f"{adapter}.c{draw(st.integers(0, 9))}", value, status, draw(st.booleans()))


@pytest.mark.parametrize("status", ["missing", "timeout", "error"])
def test_it_counts_unavailable_components_as_zero(status: ComponentStatus) -> None:
    total = adapter_total([Component("a.x", 80, "ok"), Component("a.y", 60, status)])
    assert total == 40.0


@pytest.mark.parametrize("status", ["missing", "timeout", "error"])
def test_it_omits_unavailable_non_scorable_components(status: ComponentStatus) -> None:
    spec = AdapterSpec("a", "scoped")
    result = adapter_result(
        spec, [Component("a.x", 80, "ok"), Component("a.y", None, status, non_scorable=True)]
    )
    assert result.total == 80.0
    # Still reported in the breakdown, as unavailable.
    assert result.to_breakdown()["components"][1] == {"key": "a.y", "value": None, "status": status}
    assert composite([result]).trust_scores == {"a.x": 80.0, "total": 80.0}


def test_it_keeps_available_non_scorable_components() -> None:
    assert adapter_total([Component("a.x", 80, "ok", non_scorable=True), Component("a.y", 40, "ok")]) == 60.0


@pytest.mark.parametrize(("multiplier", "expected"), [(1.0, 70.0), (0.5, 35.0), (0.0, 0.0)])
def test_it_applies_the_stale_multiplier_to_stale_components_only(multiplier: float, expected: float) -> None:
    stale_only = adapter_total([Component("a.x", 70, "stale")], stale_multiplier=multiplier)
    assert stale_only == expected
    assert adapter_total([Component("a.x", 70, "ok")], stale_multiplier=multiplier) == 70.0


def test_it_uses_the_default_component_key_for_scoped_and_universal_adapters_without_output() -> None:
    for mode in ("scoped", "universal"):
        result = adapter_result(AdapterSpec("reputation", mode, 1), [])
        assert result.in_denominator
        assert [(c.key, c.value, c.status) for c in result.components] == [
            ("reputation.score", 0.0, "missing")
        ]
    custom = adapter_result(AdapterSpec("reputation", "scoped", default_component_key="reputation.stars"), [])
    assert custom.components[0].key == "reputation.stars"


def test_it_synthesises_the_default_key_when_only_non_scorable_components_remain() -> None:
    result = adapter_result(
        AdapterSpec("a", "scoped"), [Component("a.x", None, "timeout", non_scorable=True)]
    )
    assert [c.key for c in result.components] == ["a.x", "a.score"]
    assert result.in_denominator and result.total == 0.0


def test_it_leaves_conditional_adapters_without_output_out_of_the_denominator() -> None:
    available = adapter_result(AdapterSpec("availability", "scoped"), [Component("availability.uptime", 90)])
    silent = adapter_result(AdapterSpec("reputation", "conditional"), [])
    only_omitted = adapter_result(
        AdapterSpec("extra", "conditional"), [Component("extra.x", None, "error", non_scorable=True)]
    )
    assert not silent.in_denominator and not only_omitted.in_denominator
    assert composite([available, silent, only_omitted]).trust_score == 90.0


def test_it_never_counts_adapters_that_are_not_applicable() -> None:
    available = adapter_result(
        AdapterSpec("availability", "universal"), [Component("availability.uptime", 90)]
    )
    for mode in ("universal", "scoped", "conditional"):
        other = adapter_result(AdapterSpec("other", mode), [Component("other.x", 10)], applicable=False)
        assert not other.in_denominator and other.components == ()
        assert composite([available, other]).trust_score == 90.0


def test_it_treats_weight_zero_as_informational() -> None:
    main = adapter_result(AdapterSpec("main", "scoped", 1), [Component("main.x", 90)])
    info = adapter_result(AdapterSpec("info", "scoped", 0), [Component("info.x", 10)])
    result = composite([main, info])
    assert not info.in_denominator
    assert result.trust_score == 90.0
    assert result.trust_scores["info.x"] == 10.0  # shown, but it does not move the score


def test_it_computes_confidence_as_the_weighted_ok_share() -> None:
    a = adapter_result(AdapterSpec("a", "scoped", 1), [Component("a.x", 90), Component("a.y", 50, "stale")])
    b = adapter_result(AdapterSpec("b", "scoped", 3), [Component("b.x", 60)])
    # (1 * 1/2 + 3 * 1) / 4
    assert composite([a, b]).trust_confidence == 0.875


def test_it_scores_zero_with_an_empty_denominator() -> None:
    result = composite([adapter_result(AdapterSpec("a", "conditional"), [])])
    assert (result.trust_score, result.trust_confidence, result.trust_scores) == (0.0, 0.0, {"total": 0.0})


def test_it_refuses_bad_components() -> None:
    with pytest.raises(ValueError, match="status"):
        Component("a.x", 1, "fresh")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="required"):
        Component("a.x", None, "ok")
    with pytest.raises(ValueError, match="whitespace"):
        Component("a x", 1, "ok")


@given(
    st.lists(
        st.tuples(
            st.sampled_from(CONTRIBUTION_MODES),
            st.sampled_from([0, 0.5, 1, 2]),
            st.booleans(),
            st.lists(components("z"), max_size=4),
        ),
        max_size=5,
    ),
    st.floats(0, 1),
)
def test_it_keeps_every_score_in_range(
    adapters: list[tuple[str, float, bool, list[Component]]], multiplier: float
) -> None:
    results = [
        adapter_result(
            AdapterSpec(f"a{i}", mode, weight),  # type: ignore[arg-type]
            [Component(f"a{i}.{c.key}", c.value, c.status, c.non_scorable) for c in comps],
            applicable=applicable,
            stale_multiplier=multiplier,
        )
        for i, (mode, weight, applicable, comps) in enumerate(adapters)
    ]
    score = composite(results)
    assert 0.0 <= score.trust_score <= 100.0
    assert 0.0 <= score.trust_confidence <= 1.0
    assert all(0.0 <= v <= 100.0 for v in score.trust_scores.values())
    for r in results:
        assert 0.0 <= r.total <= 100.0
        assert r.in_denominator <= (r.applicable and r.weight > 0)
