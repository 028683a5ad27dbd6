"""The numpy path gives exactly the scalar path's numbers on random agents."""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adapters import (
    AdapterSpec,
    BatchScores,
    FeedbackSummary,
    OutputVerificationParams,
    ProviderSummary,
    ScoringParams,
    Subject,
    applicability_flags,
    batch_supported,
    hcs25_records,
    pack_subjects,
    score_batch,
    score_subject,
)
from adapters.graph import CompositionGraph
from adapters.params import CONTRIBUTION_MODES, STAKE_LEVELS, AccuracyWeighting, SybilParams
from adapters.scoring import scoring_inputs_digest
from adapters.sybil import ReviewerStanding
from tests.adapters.graph_support import graphs

rates = st.one_of(
    st.floats(min_value=0.0, max_value=1.0, allow_nan=False),
    st.integers(0, 100).map(lambda x: x / 100),  # decimal inputs hit the rounding ties
    st.integers(0, 1000).map(lambda x: x / 1000),
)
stake_levels = st.sampled_from([*STAKE_LEVELS, "micro"])
stake = st.one_of(st.none(), st.dictionaries(stake_levels, st.integers(0, 500), max_size=5))


@dataclass
class Agent:
    summaries: list[ProviderSummary]
    feedback: FeedbackSummary | None
    registry: str
    protocol: str | None = None


@st.composite
def summaries(draw: st.DrawFn, index: int) -> ProviderSummary:
    return ProviderSummary(
        provider_id=f"p{index}",
        allow_rate=draw(rates),
        block_rate=draw(rates),
        uncertain_rate=None,
        avg_confidence=draw(rates),
        total_checks=draw(st.one_of(st.integers(0, 20), st.integers(0, 5000))),
        stake_distribution=draw(stake),
        excluded_reason=draw(st.sampled_from([None, None, None, "suspended"])),
        age_days=draw(st.one_of(st.none(), st.floats(0, 60))),
        # Canary accuracy weighting: no factor, any factor, or one made from canary counts.
        accuracy_factor=draw(
            st.one_of(
                st.none(),
                st.floats(0.001, 1.0),
                st.tuples(st.integers(0, 60), st.integers(0, 60)).map(
                    lambda ct: AccuracyWeighting().factor(min(ct), max(ct))
                ),
            )
        ),
    )


@st.composite
def agents(draw: st.DrawFn) -> Agent:
    count = draw(st.integers(0, 4))
    feedback = draw(
        st.one_of(
            st.none(),
            st.builds(
                FeedbackSummary,
                st.one_of(st.floats(-10, 110), st.integers(0, 10000).map(lambda x: x / 100)),
                st.integers(0, 300),
            ),
        )
    )
    return Agent(
        summaries=[draw(summaries(i)) for i in range(count)],
        feedback=feedback,
        registry=draw(st.sampled_from(["erc-8004", "hcs-10", "other"])),
        protocol=draw(st.sampled_from([None, "a2a", "mcp"])),
    )


@st.composite
def params(draw: st.DrawFn, with_graph: bool = False) -> ScoringParams:
    # score_batch computes the composite; a graph applies when hcs25_records builds the records.
    modes = st.sampled_from(CONTRIBUTION_MODES)
    weights = st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.7])
    ov = AdapterSpec(
        "output-verification",
        draw(modes),
        draw(weights),
        exclude_registries=draw(st.sampled_from([(), ("other",)])),
        exclude_protocols=draw(st.sampled_from([(), ("mcp",)])),
    )
    fb = AdapterSpec(
        "erc8004-feedback",
        draw(modes),
        draw(weights),
        include_registries=("erc-8004",),
        include_protocols=draw(st.sampled_from([(), ("a2a",)])),
    )
    adapters = draw(st.sampled_from([(ov, fb), (fb, ov), (ov,), (fb,)]))
    ov_params = OutputVerificationParams(
        full_power_block_rate=draw(st.sampled_from([0.05, 0.1])),
        min_checks=draw(st.sampled_from([10, 1, 50])),
        disagreement_factor=draw(st.sampled_from([0.5, 1.0, 0.0])),
    )
    graph = None
    if with_graph and draw(st.booleans()):
        # Sometimes an HCS-25 v1.1 composition graph over the drawn adapters.
        ids = [spec.adapter_id for spec in adapters]
        keys = {
            "output-verification": ("quality", "coverage"),
            "erc8004-feedback": ("rating", "volume", "score"),
        }
        refs = [f"adapter:{a}" for a in ids] + [f"component:{a}.{k}" for a in ids for k in keys[a]]
        graph = CompositionGraph.from_dict(draw(graphs(refs)), adapter_ids=ids)
    weighting = draw(st.sampled_from([None, AccuracyWeighting(), AccuracyWeighting(min_factor=0.5)]))
    return ScoringParams(
        adapters=adapters, output_verification=ov_params, graph=graph, accuracy_weighting=weighting
    )


def _batch(population: list[Agent], config: ScoringParams) -> tuple[dict[str, np.ndarray], BatchScores]:
    slots = max([len(a.summaries) for a in population] + [1])
    shape = (len(population), slots)
    arrays = {
        "allow": np.zeros(shape),
        "block": np.zeros(shape),
        "confidence": np.zeros(shape),
        "checks": np.zeros(shape, dtype=np.int64),
        "stake_checks": np.zeros((*shape, 4), dtype=np.int64),
        "mask": np.zeros(shape, dtype=bool),
        "accuracy": np.ones(shape),
    }
    max_age = config.output_verification.max_age_days
    for i, agent in enumerate(population):
        for j, s in enumerate(agent.summaries):
            arrays["allow"][i, j] = s.allow_rate
            arrays["block"][i, j] = s.block_rate
            arrays["confidence"][i, j] = s.avg_confidence
            arrays["checks"][i, j] = s.total_checks
            if s.accuracy_factor is not None:
                arrays["accuracy"][i, j] = s.accuracy_factor
            for level, checks in (s.stake_distribution or {}).items():
                if level in STAKE_LEVELS:
                    arrays["stake_checks"][i, j, STAKE_LEVELS.index(level)] = checks
            fresh = s.age_days is None or s.age_days <= max_age
            arrays["mask"][i, j] = s.excluded_reason is None and fresh
    registries = [a.registry for a in population]
    protocols = [a.protocol for a in population]
    ov_spec = config.spec("output-verification")
    fb_spec = config.spec("erc8004-feedback")
    out = score_batch(
        **arrays,
        feedback_average=[a.feedback.average_score if a.feedback else 0.0 for a in population],
        feedback_count=[a.feedback.total_feedbacks if a.feedback else 0 for a in population],
        ov_registry_ok=applicability_flags(registries, ov_spec, protocols) if ov_spec else None,
        feedback_registry_ok=applicability_flags(registries, fb_spec, protocols) if fb_spec else None,
        params=config,
    )
    return arrays, out


@settings(max_examples=60, deadline=None)
@given(population=st.lists(agents(), min_size=1, max_size=10), config=params())
def test_it_matches_the_scalar_path_exactly(population: list[Agent], config: ScoringParams) -> None:
    _, out = _batch(population, config)
    for i, agent in enumerate(population):
        record = score_subject(
            Subject(f"a{i}", agent.registry, agent.protocol),
            summaries=agent.summaries,
            feedback=agent.feedback,
            params=config,
        )
        assert out.trust_score[i] == record.composite.trust_score
        assert out.trust_confidence[i] == record.composite.trust_confidence
        by_id = {r.adapter_id: r for r in record.results}
        ov = by_id.get("output-verification")
        if ov is not None:
            assert bool(out.ov_applicable[i]) == ov.applicable
            assert out.ov_total[i] == ov.total
            if ov.applicable:
                values = {c.key: c.value for c in ov.components}
                assert out.quality[i] == values["output-verification.quality"]
                assert out.coverage[i] == values["output-verification.coverage"]
            prov = record.output_verification
            assert prov is not None
            assert out.total_checks[i] == prov.total_checks
            if prov.mean_quality is None:
                assert np.isnan(out.mean_quality[i])
            else:
                assert out.mean_quality[i] == prov.mean_quality
                assert out.disagreement[i] == prov.disagreement
        fb = by_id.get("erc8004-feedback")
        if fb is not None:
            assert bool(out.feedback_applicable[i]) == fb.applicable
            assert bool(out.feedback_in_denominator[i]) == fb.in_denominator
            assert out.feedback_total[i] == fb.total


def test_it_scores_a_large_random_population_like_the_scalar_path() -> None:
    rng = np.random.default_rng(7)
    population = []
    for i in range(400):
        providers = [
            ProviderSummary(
                f"p{j}",
                float(rng.integers(0, 101)) / 100,
                float(rng.integers(0, 31)) / 100,
                None,
                float(rng.random()),
                int(rng.integers(0, 400)),
                {"low": int(rng.integers(0, 50)), "high": int(rng.integers(0, 50))} if j % 2 else None,
            )
            for j in range(int(rng.integers(0, 4)))
        ]
        feedback = (
            FeedbackSummary(float(rng.integers(0, 10001)) / 100, int(rng.integers(0, 50))) if i % 3 else None
        )
        population.append(Agent(providers, feedback, "erc-8004" if i % 2 else "hcs-10"))
    config = ScoringParams()
    _, out = _batch(population, config)
    for i, agent in enumerate(population):
        record = score_subject(
            Subject(f"a{i}", agent.registry, agent.protocol),
            summaries=agent.summaries,
            feedback=agent.feedback,
            params=config,
        )
        assert out.trust_score[i] == record.trust_score


def test_it_refuses_rates_outside_the_unit_interval() -> None:
    with pytest.raises(ValueError, match="allow"):
        score_batch([[1.5]], [[0.1]], [[0.8]], [[10]])


def test_it_ignores_garbage_in_masked_slots() -> None:
    out = score_batch(
        [[0.9, np.nan]], [[0.1, 7.0]], [[0.8, -1.0]], [[10, 99]], mask=[[True, False]], params=ScoringParams()
    )
    assert out.quality.tolist() == [72.0]
    assert out.total_checks.tolist() == [10]


def test_it_refuses_adapters_it_cannot_compute() -> None:
    config = ScoringParams(adapters=(AdapterSpec("availability", "universal"),))
    with pytest.raises(ValueError, match="availability"):
        score_batch([[0.9]], [[0.1]], [[0.8]], [[10]], params=config)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -0.01])
def test_it_refuses_non_finite_or_negative_rates_in_eligible_slots(bad: float) -> None:
    with pytest.raises(ValueError, match="confidence"):
        score_batch([[0.9]], [[0.1]], [[bad]], [[10]])


@settings(max_examples=25, deadline=None)
@given(population=st.lists(agents(), min_size=1, max_size=8), config=params())
def test_it_packs_subjects_like_the_scalar_path_sees_them(
    population: list[Agent], config: ScoringParams
) -> None:
    items = [
        (Subject(f"a{i}", a.registry, a.protocol), a.summaries, a.feedback) for i, a in enumerate(population)
    ]
    out = score_batch(**pack_subjects(items, config), params=config)
    expected = [score_subject(s, summaries=p, feedback=f, params=config).trust_score for s, p, f in items]
    assert out.trust_score.tolist() == expected


@settings(max_examples=200, deadline=None)
@given(population=st.lists(agents(), min_size=1, max_size=8), config=params(with_graph=True))
def test_it_builds_the_scalar_paths_hcs25_records_in_a_batch(
    population: list[Agent], config: ScoringParams
) -> None:
    # The whole stored record: breakdown, reasons, trustScores keys and per-provider provenance.
    items = [
        (Subject(f"a{i}", a.registry, a.protocol), a.summaries, a.feedback) for i, a in enumerate(population)
    ]
    scalar = [score_subject(s, summaries=p, feedback=f, params=config) for s, p, f in items]
    records = hcs25_records(
        items,
        config,
        digests=[r.inputs_digest for r in scalar],
        config_version=7,
        updated_at_iso="2026-01-01T00:00:00Z",
    )
    expected = [r.to_hcs25(7, "2026-01-01T00:00:00Z") for r in scalar]
    # JSON text with keys in order: equal bits for every float, equal key order for every dict.
    assert [json.dumps(r) for r in records] == [json.dumps(r) for r in expected]


@st.composite
def standings(draw: st.DrawFn) -> list[ReviewerStanding] | None:
    """A subject's reviewer standings: none at all, empty, honest, all below the floor, or a fresh ring."""
    kind = draw(st.sampled_from(["none", "empty", "mixed", "below", "ring"]))
    if kind == "none":
        return None
    if kind == "empty":
        return []
    count = draw(st.integers(1, 30))
    # Reviewer addresses in no particular order, so clientAddresses has to sort them.
    order = draw(st.permutations(range(count)))
    out = []
    for k in order:
        if kind == "ring":
            # Fresh accounts in one cluster: no age, neutral agreement, standing 0.
            out.append(ReviewerStanding(f"0xr{k:03d}", False, 0.0, 0.5, count, 0.0))
            continue
        standing = draw(
            st.one_of(
                st.floats(0.0, 0.1999),
                st.just(0.2),  # exactly the default floor
                st.floats(0.0, 1.0),
                st.integers(0, 10000).map(lambda x: x / 10000),
            )
            if kind == "mixed"
            else st.floats(0.0, 0.1999)
        )
        out.append(
            ReviewerStanding(
                f"0x{k:03d}",
                draw(st.booleans()),
                draw(st.floats(0.0, 1.0)),
                draw(st.floats(0.0, 1.0)),
                draw(st.integers(1, 5)),
                standing,
            )
        )
    return out


@st.composite
def floor_params(draw: st.DrawFn) -> ScoringParams:
    """The SPEC 2.4 sybil floor, and variants of it: constants, adapter rules, order and graph."""
    base = ScoringParams.sybil_floor()
    ov, fb, sybil = base.adapters
    sybil = AdapterSpec(
        "sybil-resistance",
        draw(st.sampled_from(CONTRIBUTION_MODES)),
        # The floor's weight 0, or averaged in like the others.
        draw(st.sampled_from([0.0, 0.0, 1.0, 0.5])),
        exclude_registries=draw(st.sampled_from([(), ("other",)])),
    )
    fb = AdapterSpec(
        "erc8004-feedback",
        draw(st.sampled_from(CONTRIBUTION_MODES)),
        draw(st.sampled_from([0.0, 1.0, 2.5])),
        include_registries=("erc-8004",),
    )
    adapters = draw(st.permutations([ov, fb, sybil]))
    sybil_constants = draw(
        st.sampled_from(
            [None, SybilParams(), SybilParams(min_standing=0.5, reviewers_target=5.0, providers_target=1.0)]
        )
    )
    graph = draw(st.sampled_from(["floor", "none", "random"]))
    if graph == "floor":
        chosen = base.graph
    elif graph == "none":
        chosen = None
    else:
        ids = [spec.adapter_id for spec in adapters]
        keys = {
            "output-verification": ("quality", "coverage"),
            "erc8004-feedback": ("rating", "volume", "score"),
            "sybil-resistance": ("reviewers", "providers"),
        }
        refs = [f"adapter:{a}" for a in ids] + [f"component:{a}.{k}" for a in ids for k in keys[a]]
        chosen = CompositionGraph.from_dict(draw(graphs(refs)), adapter_ids=ids)
    weighting = draw(st.sampled_from([None, AccuracyWeighting()]))
    return ScoringParams(
        adapters=tuple(adapters),
        output_verification=base.output_verification,
        graph=chosen,
        accuracy_weighting=weighting,
        sybil=sybil_constants,
    )


@settings(max_examples=200, deadline=None)
@given(
    population=st.lists(st.tuples(agents(), standings()), min_size=1, max_size=8),
    config=st.one_of(st.just(ScoringParams.sybil_floor()), floor_params()),
)
def test_it_builds_the_scalar_paths_records_under_the_sybil_floor(
    population: list[tuple[Agent, list[ReviewerStanding] | None]], config: ScoringParams
) -> None:
    # Reviewer standings enter the digest, the sybil-resistance entry, the graph's floor and the
    # provenance: the batch must give the scalar path's record byte for byte.
    assert batch_supported(config)
    items = [
        (Subject(f"a{i}", a.registry, a.protocol), a.summaries, a.feedback)
        for i, (a, _) in enumerate(population)
    ]
    reviewers = [r for _, r in population]
    scalar = [
        score_subject(s, summaries=p, feedback=f, params=config, reviewers=r)
        for (s, p, f), r in zip(items, reviewers, strict=True)
    ]
    digests = [
        scoring_inputs_digest(s, summaries=p, feedback=f, params=config, reviewers=r)[1]
        for (s, p, f), r in zip(items, reviewers, strict=True)
    ]
    assert digests == [r.inputs_digest for r in scalar]
    records = hcs25_records(
        items,
        config,
        digests=digests,
        config_version=3,
        updated_at_iso="2026-01-01T00:00:00Z",
        reviewers=reviewers,
    )
    expected = [r.to_hcs25(3, "2026-01-01T00:00:00Z") for r in scalar]
    assert [json.dumps(r) for r in records] == [json.dumps(r) for r in expected]


def test_it_refuses_a_weighted_sybil_resistance_adapter_without_its_totals() -> None:
    # With a weight its total enters the composite sum, which score_batch cannot make up.
    floor = ScoringParams.sybil_floor()
    weighted = ScoringParams(
        adapters=(*floor.adapters[:2], AdapterSpec("sybil-resistance", "universal", 1.0)), graph=floor.graph
    )
    assert batch_supported(weighted)
    with pytest.raises(ValueError, match="sybil_total"):
        score_batch([[0.9]], [[0.1]], [[0.8]], [[10]], params=weighted)


def test_it_refuses_reviewers_that_do_not_match_the_subjects() -> None:
    with pytest.raises(ValueError, match="reviewers"):
        hcs25_records(
            [(Subject("a"), [], None)],
            ScoringParams.sybil_floor(),
            digests=["x"],
            config_version=1,
            updated_at_iso="t",
            reviewers=[],
        )


def test_it_refuses_batch_records_for_adapters_it_does_not_know() -> None:
    config = ScoringParams(adapters=(AdapterSpec("availability", "scoped"),))
    assert not batch_supported(config)
    with pytest.raises(ValueError, match="built-in"):
        hcs25_records([(Subject("a"), [], None)], config, digests=["x"], config_version=1, updated_at_iso="t")
