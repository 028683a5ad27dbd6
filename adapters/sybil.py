"""The sybil-resistance adapter and reviewer-weighted ERC-8004 feedback (SPEC 2.4, "rating the raters").

How much of an agent's evidence comes from independent, established sources.  Each
ERC-8004 reviewer of the agent gets a *standing* in [0, 1]::

    standing = independent · age · agreement / clusterSize

* ``independent``: 0 when the reviewer is the agent's owner, the agent's own wallet or
  one of its self-reporting providers (the caller passes these addresses), else 1;
* ``age = clamp(ageDays / min_age_days, 0, 1)``: a freshly created wallet (first seen
  recently, or never before) stands for little;
* ``agreement = 1 − mean|rating − consensus| / 100`` over the *other* subjects the
  reviewer rated, the consensus being the mean rating of the reviewers outside the
  reviewer's cluster; ``neutral_agreement`` when there is nothing to compare;
* ``clusterSize``: reviewers that rate the same subjects together (at least
  ``cluster_min_shared`` subjects in common and a Jaccard overlap of their rated sets of at
  least ``cluster_similarity``, joined transitively) share one reviewer's weight.

The erc8004-feedback adapter then reads a *curated* feedback summary
(:func:`weighted_feedback`): the reviewers whose standing reaches ``min_standing`` (the
``clientAddresses`` set for ``getSummary``), their ratings averaged with standing weights.

The adapter (:func:`score_sybil_resistance`) has two components::

    sybil-resistance.reviewers = 100 · clamp(log10(1 + Σ standing) / log10(1 + reviewers_target))
    sybil-resistance.providers = 100 · clamp(independentProviders / providers_target)

and its total is their mean.  Used as a ``floor`` in a composition graph it caps a score
built on thin or self-made evidence instead of being averaged into it.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from adapters.core import AdapterResult, Component, adapter_result
from adapters.erc8004_feedback import FeedbackSummary
from adapters.numbers import clamp, log10, round_half_up
from adapters.params import AdapterSpec, SybilParams

__all__ = [
    "PROVIDERS_KEY",
    "REVIEWERS_KEY",
    "SYBIL_RESISTANCE",
    "Rating",
    "ReviewerStanding",
    "SybilParams",
    "reviewer_standings",
    "score_sybil_resistance",
    "standing_from_input",
    "weighted_feedback",
]

SYBIL_RESISTANCE = "sybil-resistance"
REVIEWERS_KEY = "sybil-resistance.reviewers"
PROVIDERS_KEY = "sybil-resistance.providers"


@dataclass(frozen=True)
class Rating:
    """One reviewer's rating (0-100) of one subject; reviewers are compared case-insensitively.

    >>> Rating("0xAB", "agent-1", 90).reviewer
    '0xab'
    """

    reviewer: str
    subject: str
    value: float

    def __post_init__(self) -> None:
        if not isinstance(self.reviewer, str) or not self.reviewer:
            raise ValueError(f"Rating.reviewer must be a non-empty string, got {self.reviewer!r}")
        if not isinstance(self.subject, str) or not self.subject:
            raise ValueError(f"Rating.subject must be a non-empty string, got {self.subject!r}")
        value = self.value
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            raise ValueError(f"Rating.value must be a finite number, got {value!r}")
        object.__setattr__(self, "reviewer", self.reviewer.lower())
        object.__setattr__(self, "value", clamp(float(value)))


@dataclass(frozen=True)
class ReviewerStanding:
    """One reviewer of a subject: the factors of its standing and the standing itself."""

    reviewer: str
    independent: bool
    age: float
    agreement: float
    cluster_size: int
    standing: float

    def to_input(self) -> dict[str, Any]:
        """Return the exact plain-JSON form the inputs digest covers (unrounded).

        >>> ReviewerStanding("0xa", True, 1.0, 0.5, 1, 0.5).to_input()["clusterSize"]
        1
        """
        return {
            "reviewer": self.reviewer,
            "independent": self.independent,
            "age": self.age,
            "agreement": self.agreement,
            "clusterSize": self.cluster_size,
            "standing": self.standing,
        }

    def to_dict(self) -> dict[str, Any]:
        """Return the provenance entry (rounded to 4 decimals).

        >>> ReviewerStanding("0xa", True, 1.0, 0.5, 1, 0.5).to_dict()["standing"]
        0.5
        """
        return {
            "reviewer": self.reviewer,
            "independent": self.independent,
            "age": round_half_up(self.age, 4),
            "agreement": round_half_up(self.agreement, 4),
            "clusterSize": self.cluster_size,
            "standing": round_half_up(self.standing, 4),
        }


def standing_from_input(data: Mapping[str, Any]) -> ReviewerStanding:
    """Rebuild a standing from its :meth:`ReviewerStanding.to_input` form.

    >>> s = ReviewerStanding("0xa", True, 0.5, 0.75, 2, 0.1875)
    >>> standing_from_input(s.to_input()) == s
    True
    """
    try:
        return ReviewerStanding(
            str(data["reviewer"]),
            bool(data["independent"]),
            float(data["age"]),
            float(data["agreement"]),
            int(data["clusterSize"]),
            float(data["standing"]),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"reviewer standing is malformed: {exc!r}") from exc


def _together(a: str, b: str, rated: Mapping[str, set[str]], params: SybilParams) -> bool:
    shared = len(rated[a] & rated[b])
    return (
        shared >= params.cluster_min_shared and shared / len(rated[a] | rated[b]) >= params.cluster_similarity
    )


def _canonical(root: Mapping[str, str]) -> dict[str, str]:
    # A cluster is named by its smallest member, whatever order the unions happened in.
    smallest: dict[str, str] = {}
    for r, rep in root.items():
        if rep not in smallest or r < smallest[rep]:
            smallest[rep] = r
    return {r: smallest[rep] for r, rep in root.items()}


def _clusters(reviewers: Sequence[str], rated: Mapping[str, set[str]], params: SybilParams) -> dict[str, str]:
    """Union-find of the reviewers that rate together, without comparing every pair.

    An exact similarity join by prefix filtering: two rated sets x, y that qualify share at least
    ``α = max(cluster_min_shared, ⌈cluster_similarity·max(|x|, |y|)⌉)`` subjects, so under one global
    order of the subjects (rarest first) their first ``|x| − α_x + 1`` subjects already meet, with
    ``α_x`` the bound for x alone (≤ α).  Only pairs that meet in a prefix are compared.  Reviewers with
    identical rated sets (a ring's usual shape) are merged first and compared once; the subject being
    scored, which every reviewer rated, is the most frequent and never in a prefix.  The work is the
    sum of the prefix subjects' posting lists, not the square of the number of reviewers.
    """
    min_shared = params.cluster_min_shared
    similarity = params.cluster_similarity
    # Identical sets cluster with each other whenever they can cluster at all.
    groups: dict[frozenset[str], list[str]] = defaultdict(list)
    for r in reviewers:
        groups[frozenset(rated[r])].append(r)
    parent = {r: r for r in reviewers}

    def root(r: str) -> str:
        while parent[r] != r:
            parent[r] = parent[parent[r]]
            r = parent[r]
        return r

    def union(a: str, b: str) -> None:
        ra, rb = root(a), root(b)
        if ra != rb:
            parent[rb] = ra

    frequency: dict[str, int] = defaultdict(int)
    for subjects in groups:
        for s in subjects:
            frequency[s] += 1
    # Sets too small to share cluster_min_shared subjects never cluster.
    eligible = sorted((subjects for subjects in groups if len(subjects) >= min_shared), key=len)
    # Rare subjects first, ties by name: the global order every prefix is taken in.
    order = {s: (frequency[s], s) for s in frequency}
    postings: dict[str, list[frozenset[str]]] = defaultdict(list)
    for subjects in eligible:
        members = groups[subjects]
        for other in members[1:]:
            union(members[0], other)
        size = len(subjects)
        alpha = max(min_shared, math.ceil(similarity * size - 1e-12))
        prefix = sorted(subjects, key=order.__getitem__)[: size - alpha + 1]
        seen: set[frozenset[str]] = set()
        for s in prefix:
            # Sets indexed so far are no larger (ascending size): the size filter is |y| ≥ t·|x|.
            for candidate in postings[s]:
                if candidate in seen or len(candidate) < similarity * size - 1e-12:
                    continue
                seen.add(candidate)
                a, b = members[0], groups[candidate][0]
                if root(a) != root(b) and _together(a, b, rated, params):
                    union(a, b)
            postings[s].append(subjects)
    return _canonical({r: root(r) for r in reviewers})


def reviewer_standings(
    ratings: Iterable[Rating],
    *,
    subject: str,
    excluded: Collection[str],
    age_days: Mapping[str, float],
    params: SybilParams,
) -> tuple[ReviewerStanding, ...]:
    """The standing of every reviewer of *subject*, sorted by reviewer address.

    *ratings* are all the ratings the registry knows (of every subject: agreement and
    clusters look elsewhere).  *excluded* are the addresses that are not independent of
    the subject (owner, own wallet, self-reporting providers).  *age_days* gives each
    reviewer's age (since first seen); an unknown reviewer is treated as brand new.

    The cost is linear in the ratings read (plus the prefix-filtered cluster join): the
    consensus of each other subject is its raters' sum, less the reviewer's own cluster's
    share, which is summed once per cluster and subject.

    >>> ratings = [Rating("0xa", "s", 90), Rating("0xa", "t", 70), Rating("0xb", "t", 70)]
    >>> [s.standing for s in reviewer_standings(ratings, subject="s", excluded=(), age_days={"0xa": 60},
    ...                                         params=SybilParams())]
    [1.0]
    """
    ratings = list(ratings)
    blocked = {address.lower() for address in excluded}
    ages = {address.lower(): float(days) for address, days in age_days.items()}
    rated: dict[str, set[str]] = defaultdict(set)
    given: dict[tuple[str, str], list[float]] = defaultdict(list)
    for rating in ratings:
        rated[rating.reviewer].add(rating.subject)
        given[(rating.reviewer, rating.subject)].append(rating.value)
    reviewers = sorted(r for r in rated if subject in rated[r])
    root = _clusters(reviewers, rated, params)
    # A reviewer is compared with the consensus of the reviewers outside its own cluster: per other
    # subject, the sum and count of every rater's mean, less those of the cluster's members.
    members: dict[str, list[str]] = defaultdict(list)
    for r in reviewers:
        members[root[r]].append(r)
    means = {key: _mean(values) for key, values in given.items()}
    by_subject: dict[str, list[float]] = defaultdict(list)
    for (_, other), value in means.items():
        by_subject[other].append(value)
    subject_sum = {other: math.fsum(values) for other, values in by_subject.items()}
    subject_count = {other: len(values) for other, values in by_subject.items()}
    cluster_share: dict[str, dict[str, tuple[float, int]]] = {}
    for rep, group in members.items():
        share: dict[str, list[float]] = defaultdict(list)
        for m in group:
            for other in rated[m]:
                share[other].append(means[(m, other)])
        cluster_share[rep] = {other: (math.fsum(values), len(values)) for other, values in share.items()}
    out = []
    for r in reviewers:
        deviations = []
        share_of = cluster_share[root[r]]
        for other in sorted(rated[r] - {subject}):
            own_sum, own_count = share_of.get(other, (0.0, 0))
            count = subject_count[other] - own_count
            if count > 0:
                consensus = (subject_sum[other] - own_sum) / count
                deviations.append(abs(means[(r, other)] - consensus))
        agreement = (
            clamp(1.0 - _mean(deviations) / 100.0, 0.0, 1.0) if deviations else params.neutral_agreement
        )
        age = clamp(ages.get(r, 0.0) / params.min_age_days, 0.0, 1.0)
        independent = r not in blocked
        size = len(members[root[r]])
        standing = (age * agreement / size) if independent else 0.0
        out.append(ReviewerStanding(r, independent, age, agreement, size, clamp(standing, 0.0, 1.0)))
    return tuple(out)


def _mean(values: Sequence[float]) -> float:
    total = 0.0
    for value in values:
        total += value
    return total / len(values)


def weighted_feedback(
    ratings: Iterable[Rating], standings: Sequence[ReviewerStanding], *, subject: str, params: SybilParams
) -> tuple[FeedbackSummary | None, tuple[str, ...]]:
    """The curated feedback summary of *subject* and its ``clientAddresses`` set.

    Reviewers whose standing reaches ``min_standing`` form the set; each one's ratings of
    the subject are averaged, and those averages are weighted by standing.
    ``totalFeedbacks`` counts the curated reviewers' feedbacks.  None when nobody qualifies.

    >>> ratings = [Rating("0xa", "s", 90), Rating("0xb", "s", 10)]
    >>> standings = [ReviewerStanding("0xa", True, 1, 1, 1, 1.0), ReviewerStanding("0xb", True, 0, 1, 1, 0.0)]
    >>> weighted_feedback(ratings, standings, subject="s", params=SybilParams())
    (FeedbackSummary(average_score=90.0, total_feedbacks=1), ('0xa',))
    """
    weight = {s.reviewer: s.standing for s in standings if s.standing >= params.min_standing}
    values: dict[str, list[float]] = defaultdict(list)
    for rating in ratings:
        if rating.subject == subject and rating.reviewer in weight:
            values[rating.reviewer].append(rating.value)
    curated = tuple(sorted(values))
    if not curated:
        return None, ()
    numerator = 0.0
    denominator = 0.0
    for reviewer in curated:
        numerator += weight[reviewer] * _mean(values[reviewer])
        denominator += weight[reviewer]
    count = sum(len(values[r]) for r in curated)
    return FeedbackSummary(average_score=clamp(numerator / denominator), total_feedbacks=count), curated


def score_sybil_resistance(
    standings: Sequence[ReviewerStanding],
    independent_providers: int,
    *,
    params: SybilParams,
    spec: AdapterSpec,
    registry: str | None = None,
    protocol: str | None = None,
) -> AdapterResult:
    """Score the sybil-resistance adapter of one subject.

    >>> spec = AdapterSpec("sybil-resistance", "universal")
    >>> ring = [ReviewerStanding(f"0x{i}", True, 0.0, 0.5, 1, 0.0) for i in range(50)]
    >>> score_sybil_resistance(ring, 0, params=SybilParams(), spec=spec).total
    0.0
    >>> honest = [ReviewerStanding(f"0x{i}", True, 1.0, 0.9, 1, 0.9) for i in range(20)]
    >>> score_sybil_resistance(honest, 3, params=SybilParams(), spec=spec).total
    98.36
    """
    if (
        isinstance(independent_providers, bool)
        or not isinstance(independent_providers, int)
        or independent_providers < 0
    ):
        raise ValueError(f"independent_providers must be an integer >= 0, got {independent_providers!r}")
    if not spec.applies_to(registry, protocol):
        return adapter_result(spec, (), applicable=False)
    mass = 0.0
    for standing in standings:
        mass += standing.standing
    reviewers = 100.0 * clamp(log10(1.0 + mass) / log10(1.0 + params.reviewers_target), 0.0, 1.0)
    providers = 100.0 * clamp(independent_providers / params.providers_target, 0.0, 1.0)
    return adapter_result(
        spec,
        (
            Component(REVIEWERS_KEY, round_half_up(reviewers), "ok"),
            Component(PROVIDERS_KEY, round_half_up(providers), "ok"),
        ),
    )
