"""Rating the raters (SPEC 2.4): reviewer standing, curated feedback, the sybil-resistance adapter."""

from __future__ import annotations

import itertools
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from adapters import AdapterSpec, Erc8004FeedbackParams, score_erc8004_feedback
from adapters.sybil import (
    Rating,
    SybilParams,
    reviewer_standings,
    score_sybil_resistance,
    weighted_feedback,
)

PARAMS = SybilParams()
FB_SPEC = AdapterSpec("erc8004-feedback", "scoped", include_registries=("erc-8004",))
SR_SPEC = AdapterSpec("sybil-resistance", "universal")
TARGET = "target"
OTHERS = [f"other-{i}" for i in range(8)]
# Each honest reviewer rated its own pair of other agents: an honest spread, not a co-rating ring.
PAIRS = list(itertools.combinations(OTHERS, 2))


def honest_world(reviewers: int, *, rating: float = 60.0) -> tuple[list[Rating], dict[str, float]]:
    """Established reviewers who each rated two other agents near their consensus, then the target."""
    ratings = []
    ages = {}
    for i in range(reviewers):
        address = f"0xh{i:03d}"
        ages[address] = 400.0
        for j, other in enumerate(PAIRS[i]):
            ratings.append(Rating(address, other, 70 + (i + j) % 5))
        ratings.append(Rating(address, TARGET, rating + i % 7))
    return ratings, ages


def fresh_ring(size: int, value: float = 100.0) -> list[Rating]:
    return [Rating(f"0xs{i:03d}", TARGET, value) for i in range(size)]


def feedback_total(ratings: list[Rating], ages: dict[str, float], excluded: tuple[str, ...] = ()) -> float:
    standings = reviewer_standings(ratings, subject=TARGET, excluded=excluded, age_days=ages, params=PARAMS)
    summary, _ = weighted_feedback(ratings, standings, subject=TARGET, params=PARAMS)
    return score_erc8004_feedback(summary, "erc-8004", Erc8004FeedbackParams(), FB_SPEC).total


def resistance(ratings: list[Rating], ages: dict[str, float], providers: int = 1) -> float:
    standings = reviewer_standings(ratings, subject=TARGET, excluded=(), age_days=ages, params=PARAMS)
    return score_sybil_resistance(standings, providers, params=PARAMS, spec=SR_SPEC).total


@settings(max_examples=60, deadline=None)
@given(honest=st.integers(0, 12), ring=st.integers(1, 200), value=st.sampled_from([100.0, 0.0]))
def test_it_does_not_let_a_ring_of_fresh_wallets_move_a_score(honest: int, ring: int, value: float) -> None:
    ratings, ages = honest_world(honest)
    attacked = ratings + fresh_ring(ring, value)
    assert feedback_total(attacked, ages) == feedback_total(ratings, ages)
    assert resistance(attacked, ages) == resistance(ratings, ages)
    standings = reviewer_standings(attacked, subject=TARGET, excluded=(), age_days=ages, params=PARAMS)
    _, curated = weighted_feedback(attacked, standings, subject=TARGET, params=PARAMS)
    assert not any(address.startswith("0xs") for address in curated)


@settings(max_examples=40, deadline=None)
@given(ring=st.integers(3, 60))
def test_it_counts_an_aged_ring_that_rates_together_as_one_reviewer(ring: int) -> None:
    ratings, ages = honest_world(8)
    # Old wallets that rate the same three agents together (and each other's targets 100).
    sybils = [f"0xr{i:03d}" for i in range(ring)]
    for address in sybils:
        ages[address] = 400.0
        ratings += [Rating(address, s, 100.0) for s in (TARGET, "ring-a", "ring-b")]
    standings = reviewer_standings(ratings, subject=TARGET, excluded=(), age_days=ages, params=PARAMS)
    ring_mass = sum(s.standing for s in standings if s.reviewer in sybils)
    assert all(s.cluster_size == ring for s in standings if s.reviewer in sybils)
    assert ring_mass <= 1.0 + 1e-9
    honest_mass = sum(s.standing for s in standings if s.reviewer not in sybils)
    assert honest_mass > ring_mass


def test_it_lifts_a_score_with_an_honest_spread_of_reviewers() -> None:
    none, ages = honest_world(0)
    few, few_ages = honest_world(3, rating=80.0)
    many, many_ages = honest_world(15, rating=80.0)
    assert feedback_total(none, ages) < feedback_total(few, few_ages) < feedback_total(many, many_ages)
    assert resistance(none, ages) < resistance(few, few_ages) < resistance(many, many_ages)


def test_it_gives_the_owner_and_the_agents_own_wallets_no_standing() -> None:
    ratings, ages = honest_world(4)
    owner = "0xOWNER"
    ratings.append(Rating(owner, TARGET, 100.0))
    ages[owner.lower()] = 900.0
    standings = reviewer_standings(ratings, subject=TARGET, excluded=[owner], age_days=ages, params=PARAMS)
    mine = next(s for s in standings if s.reviewer == owner.lower())
    assert (mine.independent, mine.standing) == (False, 0.0)
    assert feedback_total(ratings, ages, excluded=(owner,)) == feedback_total(ratings[:-1], ages)


def test_it_weighs_down_a_reviewer_who_disagrees_with_the_consensus_elsewhere() -> None:
    ratings = [Rating(f"0xc{i}", "elsewhere", 20.0) for i in range(5)]
    ratings += [Rating("0xagree", "elsewhere", 22.0), Rating("0xagree", TARGET, 50.0)]
    ratings += [Rating("0xcontrarian", "elsewhere", 100.0), Rating("0xcontrarian", TARGET, 50.0)]
    ages = {r.reviewer: 400.0 for r in ratings}
    standings = {
        s.reviewer: s
        for s in reviewer_standings(ratings, subject=TARGET, excluded=(), age_days=ages, params=PARAMS)
    }
    assert standings["0xagree"].agreement > standings["0xcontrarian"].agreement
    assert standings["0xagree"].standing > standings["0xcontrarian"].standing


@settings(max_examples=100, deadline=None)
@given(
    ratings=st.lists(
        st.builds(
            Rating,
            st.sampled_from([f"0x{i}" for i in range(8)]),
            st.sampled_from([TARGET, *OTHERS[:3]]),
            st.integers(0, 100),
        ),
        max_size=40,
    ),
    ages=st.dictionaries(st.sampled_from([f"0x{i}" for i in range(8)]), st.floats(0, 1000)),
)
def test_it_keeps_standings_in_the_unit_interval_and_the_summary_in_range(
    ratings: list[Rating], ages: dict[str, float]
) -> None:
    standings = reviewer_standings(ratings, subject=TARGET, excluded=(), age_days=ages, params=PARAMS)
    assert [s.reviewer for s in standings] == sorted({r.reviewer for r in ratings if r.subject == TARGET})
    assert all(0.0 <= s.standing <= 1.0 for s in standings)
    summary, curated = weighted_feedback(ratings, standings, subject=TARGET, params=PARAMS)
    if summary is not None:
        values = [r.value for r in ratings if r.subject == TARGET and r.reviewer in curated]
        assert min(values) - 1e-9 <= summary.average_score <= max(values) + 1e-9


def _floor_record(ratings: list[Rating], ages: dict[str, float], providers: int) -> dict[str, Any]:
    from adapters import ProviderSummary, ScoringParams, Subject, score_from_inputs, score_subject

    params = ScoringParams.sybil_floor()
    standings = reviewer_standings(ratings, subject=TARGET, excluded=(), age_days=ages, params=PARAMS)
    feedback, _ = weighted_feedback(ratings, standings, subject=TARGET, params=PARAMS)
    summaries = [ProviderSummary(f"p{i}", 0.9, 0.1, 0.0, 0.9, 500) for i in range(providers)]
    record = score_subject(
        Subject(TARGET, "erc-8004"),
        summaries=summaries,
        feedback=feedback,
        params=params,
        reviewers=standings,
    )
    again = score_from_inputs(record.inputs)
    assert (again.trust_score, again.inputs_digest) == (record.trust_score, record.inputs_digest)
    return record.to_hcs25(1, "2026-01-01T00:00:00Z")


def test_it_caps_thin_evidence_with_the_sybil_floor_and_recomputes_from_the_inputs() -> None:
    ratings, ages = honest_world(10, rating=90.0)
    thin = _floor_record(ratings, ages, providers=1)
    broad = _floor_record(ratings, ages, providers=3)
    attacked = _floor_record(ratings + fresh_ring(100), ages, providers=1)
    assert thin["compositionGraphId"] == "sybil-floor-1"
    assert attacked["trustScore"] == thin["trustScore"] < broad["trustScore"]
    nodes = {n["name"]: n for n in thin["explanation"]["nodes"]}
    assert nodes["governed"]["constraintApplied"] is True
    assert thin["trustScore"] == nodes["governed"]["value"] < nodes["evidence"]["value"]
    provenance = thin["provenance"]["reviewers"]
    assert provenance["clientAddresses"] == sorted({r.reviewer for r in ratings if r.subject == TARGET})


# --- the cluster join against the quadratic reference ----------------------------------------------


def quadratic_clusters(
    rated: dict[str, set[str]], reviewers: list[str], params: SybilParams
) -> set[frozenset[str]]:
    """Every pair compared, joined transitively: the definition, written out the slow way."""
    adjacent: dict[str, set[str]] = {r: set() for r in reviewers}
    for a, b in itertools.combinations(reviewers, 2):
        shared = len(rated[a] & rated[b])
        union = len(rated[a] | rated[b])
        if shared >= params.cluster_min_shared and shared >= params.cluster_similarity * union:
            adjacent[a].add(b)
            adjacent[b].add(a)
    out: set[frozenset[str]] = set()
    left = set(reviewers)
    while left:
        stack = [left.pop()]
        component = set(stack)
        while stack:
            for n in adjacent[stack.pop()] - component:
                component.add(n)
                stack.append(n)
        left -= component
        out.add(frozenset(component))
    return out


def quadratic_agreement(ratings: list[Rating], reviewer: str, cluster: frozenset[str]) -> float | None:
    given: dict[tuple[str, str], list[float]] = {}
    for rating in ratings:
        given.setdefault((rating.reviewer, rating.subject), []).append(rating.value)
    deviations = []
    for (who, other), values in sorted(given.items()):
        if who != reviewer or other == TARGET:
            continue
        peers = [sum(v) / len(v) for (o, s), v in given.items() if s == other and o not in cluster]
        if peers:
            deviations.append(abs(sum(values) / len(values) - sum(peers) / len(peers)))
    return 1 - sum(deviations) / len(deviations) / 100 if deviations else None


@settings(max_examples=150, deadline=None)
@given(
    world=st.lists(
        st.tuples(st.integers(0, 11), st.sampled_from([TARGET, *OTHERS[:5]]), st.integers(0, 100)),
        min_size=1,
        max_size=60,
    ),
    similarity=st.sampled_from([0.3, 0.5, 0.8, 1.0]),
    min_shared=st.integers(1, 3),
)
def test_it_finds_the_same_clusters_and_standings_as_comparing_every_pair(
    world: list[tuple[int, str, int]], similarity: float, min_shared: int
) -> None:
    params = SybilParams(cluster_similarity=similarity, cluster_min_shared=min_shared)
    ratings = [Rating(f"0xr{who:02d}", subject, value) for who, subject, value in world]
    rated: dict[str, set[str]] = {}
    for rating in ratings:
        rated.setdefault(rating.reviewer, set()).add(rating.subject)
    reviewers = sorted(r for r, subjects in rated.items() if TARGET in subjects)
    expected = quadratic_clusters(rated, reviewers, params)
    ages = {r: 45.0 for r in rated}
    standings = reviewer_standings(ratings, subject=TARGET, excluded=(), age_days=ages, params=params)
    assert [s.reviewer for s in standings] == reviewers
    cluster_of = {r: c for c in expected for r in c}
    for standing in standings:
        cluster = cluster_of[standing.reviewer]
        assert standing.cluster_size == len(cluster)
        agreement = quadratic_agreement(ratings, standing.reviewer, cluster)
        want = params.neutral_agreement if agreement is None else agreement
        assert abs(standing.agreement - want) < 1e-9
        assert abs(standing.standing - want / len(cluster)) < 1e-9
