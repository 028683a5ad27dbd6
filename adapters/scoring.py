"""Score one subject end to end: adapters, composite, provenance and the HCS-25 record.

This is the entry point the registry calls::

    record = score_subject(subject, summaries=..., feedback=..., params=config)
    record.to_hcs25(config_version=7, updated_at_iso="2026-01-01T00:00:00Z")
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

from adapters.core import AdapterResult, Component, CompositeScore, adapter_result, composite
from adapters.digest import canonical_json, inputs_digest
from adapters.erc8004_feedback import FeedbackSummary, score_erc8004_feedback
from adapters.graph import evaluate_graph, explain
from adapters.numbers import round_half_up
from adapters.output_verification import (
    OutputVerificationProvenance,
    ProviderContribution,
    ProviderSummary,
    exclusion_reason,
    score_output_verification,
)
from adapters.params import (
    ERC8004_FEEDBACK,
    OUTPUT_VERIFICATION,
    SYBIL_RESISTANCE,
    AdapterSpec,
    ScoringParams,
)
from adapters.sybil import ReviewerStanding, score_sybil_resistance, standing_from_input

__all__ = [
    "Subject",
    "TrustScoreRecord",
    "graph_outcome",
    "independent_providers",
    "reviewer_provenance",
    "score_from_inputs",
    "score_subject",
    "scoring_inputs",
    "scoring_inputs_digest",
    "sybil_resistance_result",
]


@dataclass(frozen=True)
class Subject:
    """The scored subject: a stable id, and the registry/protocol that drive applicability.

    >>> Subject("agent-1", "erc-8004").registry
    'erc-8004'
    """

    subject_id: str
    registry: str | None = None
    protocol: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.subject_id, str) or not self.subject_id:
            raise ValueError(f"Subject.subject_id must be a non-empty string, got {self.subject_id!r}")


def _summary_input(summary: ProviderSummary) -> dict[str, Any]:
    out = {
        "providerId": summary.provider_id,
        "allowRate": summary.allow_rate,
        "blockRate": summary.block_rate,
        "uncertainRate": summary.uncertain_rate,
        "avgConfidence": summary.avg_confidence,
        "totalChecks": summary.total_checks,
        "stakeDistribution": None if summary.stake_distribution is None else dict(summary.stake_distribution),
        "excludedReason": summary.excluded_reason,
        "ageDays": summary.age_days,
    }
    if summary.accuracy_factor is not None:
        # Only under accuracy weighting, so other records keep their digests.
        out["accuracyFactor"] = summary.accuracy_factor
    return out


def scoring_inputs(
    subject: Subject,
    *,
    summaries: Sequence[ProviderSummary],
    feedback: FeedbackSummary | None,
    params: ScoringParams,
    extra_components: Mapping[str, Sequence[Component]] | None = None,
    reviewers: Sequence[ReviewerStanding] | None = None,
) -> dict[str, Any]:
    """Return the plain-JSON scoring inputs that :attr:`TrustScoreRecord.inputs_digest` covers.

    >>> sorted(scoring_inputs(Subject("a"), summaries=[], feedback=None, params=ScoringParams()))
    ['erc8004Feedback', 'extraComponents', 'outputVerification', 'params', 'subject']
    """
    return _inputs(subject, summaries, feedback, params.to_dict(), extra_components, reviewers)


def _inputs(
    subject: Subject,
    summaries: Sequence[ProviderSummary],
    feedback: FeedbackSummary | None,
    params: dict[str, Any],
    extra_components: Mapping[str, Sequence[Component]] | None,
    reviewers: Sequence[ReviewerStanding] | None = None,
) -> dict[str, Any]:
    extra = {
        adapter_id: [
            {"key": c.key, "value": c.value, "status": c.status, "nonScorable": c.non_scorable}
            for c in components
        ]
        for adapter_id, components in sorted((extra_components or {}).items())
    }
    inputs: dict[str, Any] = {
        "subject": {
            "subjectId": subject.subject_id,
            "registry": subject.registry,
            "protocol": subject.protocol,
        },
        "outputVerification": [_summary_input(s) for s in summaries],
        "erc8004Feedback": None
        if feedback is None
        else {"averageScore": feedback.average_score, "totalFeedbacks": feedback.total_feedbacks},
        "extraComponents": extra,
        "params": params,
    }
    if reviewers is not None:
        # Only when reviewer standing is in play, so other records keep their digests.
        inputs["reviewers"] = [standing.to_input() for standing in reviewers]
    return inputs


def graph_outcome(
    params: ScoringParams, breakdown: Sequence[Mapping[str, Any]], composite_score: float
) -> tuple[float, dict[str, Any]]:
    """Return the trust score and the published explanation for a record's *breakdown*.

    With a composition graph in *params* the score is the graph's output; without one it
    is *composite_score*, which the implicit one-node weightedMean graph reproduces.
    Both the one-by-one and the batch paths call this on the same breakdown entries.

    >>> graph_outcome(ScoringParams(), [], 0.0)[1]["graphId"]
    'hcs25-composite'
    """
    evaluation = evaluate_graph(params.effective_graph(), breakdown)
    score = composite_score if params.graph is None else evaluation.trust_score
    return score, explain(evaluation)


def reviewer_provenance(reviewers: Sequence[ReviewerStanding], params: ScoringParams) -> dict[str, Any]:
    """Return a record's ``provenance.reviewers``: the curated ``clientAddresses`` and every standing.

    Both the one-by-one and the batch paths build it here.

    >>> low = ReviewerStanding("0xa", True, 1.0, 0.1, 1, 0.1)
    >>> reviewer_provenance([low], ScoringParams())["clientAddresses"]
    []
    """
    floor = params.sybil_params().min_standing
    return {
        # The curated clientAddresses set: what getSummary should be asked about.
        "clientAddresses": sorted(r.reviewer for r in reviewers if r.standing >= floor),
        "standings": [r.to_dict() for r in reviewers],
    }


def independent_providers(summaries: Sequence[ProviderSummary], params: ScoringParams) -> int:
    """The independent providers of a subject as the sybil-resistance adapter counts them: the eligible ones.

    >>> independent_providers([ProviderSummary("tp", 0.9, 0.1, 0.0, 0.8, 10)], ScoringParams())
    1
    """
    return sum(1 for s in summaries if exclusion_reason(s, params.output_verification) is None)


def sybil_resistance_result(
    subject: Subject,
    summaries: Sequence[ProviderSummary],
    reviewers: Sequence[ReviewerStanding] | None,
    *,
    params: ScoringParams,
    spec: AdapterSpec,
) -> AdapterResult:
    """Score the sybil-resistance adapter of *subject*, as :func:`score_subject` does (also for the batch).

    The independent providers are the eligible ones among *summaries*.

    >>> spec = AdapterSpec(SYBIL_RESISTANCE, "universal", 0.0)
    >>> sybil_resistance_result(Subject("a"), [], None, params=ScoringParams(), spec=spec).total
    0.0
    """
    return score_sybil_resistance(
        reviewers or (),
        independent_providers(summaries, params),
        params=params.sybil_params(),
        spec=spec,
        registry=subject.registry,
        protocol=subject.protocol,
    )


def _contribution_entry(p: ProviderContribution) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "providerId": p.provider_id,
        "totalChecks": p.total_checks,
        "weight": round_half_up(p.weight, 6),
        "quality": round_half_up(p.quality),
        "discriminativePower": round_half_up(p.discriminative_power, 4),
        "stakeMultiplier": round_half_up(p.stake_multiplier, 4),
    }
    if p.accuracy_factor is not None:
        entry["accuracyFactor"] = p.accuracy_factor
    return entry


@dataclass(frozen=True)
class TrustScoreRecord:
    """A subject's score: composite, per-adapter results, provenance and the inputs digest."""

    subject: Subject
    composite: CompositeScore
    results: tuple[AdapterResult, ...]
    output_verification: OutputVerificationProvenance | None
    inputs_digest: str
    inputs: dict[str, Any] = field(repr=False, default_factory=dict)
    explanation: dict[str, Any] = field(repr=False, default_factory=dict)
    reviewers: dict[str, Any] | None = field(repr=False, default=None)

    @property
    def trust_score(self) -> float:
        """The trust score (``trustScores.total``): the graph's output, or the composite."""
        return self.composite.trust_score

    @property
    def graph_id(self) -> str:
        """The id of the composition graph the score was made with (the implicit one by default)."""
        return str(self.explanation.get("graphId", ""))

    def to_hcs25(self, config_version: int, updated_at_iso: str) -> dict[str, Any]:
        """Return the JSON record of SPEC 2.3 (HCS-25 shape plus our provenance).

        >>> rec = score_subject(Subject("a", "hcs-10"), summaries=[], feedback=None, params=ScoringParams())
        >>> out = rec.to_hcs25(3, "2026-01-01T00:00:00Z")
        >>> out["trustScore"], out["trustScores"], out["trustScoreConfigVersion"]
        (0.0, {'total': 0.0}, 3)
        """
        if isinstance(config_version, bool) or not isinstance(config_version, int) or config_version < 0:
            raise ValueError(f"config_version must be an integer >= 0, got {config_version!r}")
        if not isinstance(updated_at_iso, str) or not updated_at_iso:
            raise ValueError(f"updated_at_iso must be an ISO 8601 timestamp string, got {updated_at_iso!r}")
        provenance: dict[str, Any] = {"inputsDigest": self.inputs_digest}
        ov = self.output_verification
        if ov is not None:
            provenance["outputVerification"] = {
                "providers": [_contribution_entry(p) for p in ov.providers],
                "excluded": [{"providerId": e.provider_id, "reason": e.reason} for e in ov.excluded],
                "disagreement": None if ov.disagreement is None else round_half_up(ov.disagreement),
                "meanQuality": None if ov.mean_quality is None else round_half_up(ov.mean_quality),
                "totalChecks": ov.total_checks,
            }
        if self.reviewers is not None:
            provenance["reviewers"] = self.reviewers
        return {
            "subjectId": self.subject.subject_id,
            "trustScore": self.composite.trust_score,
            "trustScores": dict(self.composite.trust_scores),
            "trustScoreConfigVersion": config_version,
            "trustScoreUpdatedAt": updated_at_iso,
            "trustConfidence": self.composite.trust_confidence,
            "compositionGraphId": self.graph_id,
            "breakdown": {"adapters": list(self.composite.breakdown)},
            "explanation": self.explanation,
            "provenance": provenance,
        }


@lru_cache(maxsize=64)
def _params_dict(params: ScoringParams) -> dict[str, Any]:
    return params.to_dict()


@lru_cache(maxsize=64)
def _canonical_params(params: ScoringParams) -> bytes:
    # A configuration is shared by every subject scored under it; serialising it once
    # halves the cost of scoring one subject.
    return canonical_json(params.to_dict())


def scoring_inputs_digest(
    subject: Subject,
    *,
    summaries: Sequence[ProviderSummary],
    feedback: FeedbackSummary | None,
    params: ScoringParams,
    extra_components: Mapping[str, Sequence[Component]] | None = None,
    reviewers: Sequence[ReviewerStanding] | None = None,
) -> tuple[dict[str, Any], str]:
    """Return the :func:`scoring_inputs` and their digest, as :func:`score_subject` records them.

    For batch scoring (:mod:`adapters.vectorised`), which needs the digest of each subject
    but computes the numbers for all of them at once.  Unlike :func:`scoring_inputs`, the
    ``"params"`` member is one dict shared by every subject scored under *params* (building
    it per subject cost a tenth of a drain's CPU): treat the inputs as read-only.

    *reviewers* are the subject's reviewer standings, as :func:`score_subject` takes them.

    >>> kw = {"summaries": [], "feedback": None, "params": ScoringParams()}
    >>> scoring_inputs_digest(Subject("a"), **kw)[1] == score_subject(Subject("a"), **kw).inputs_digest
    True
    >>> kw["reviewers"] = [ReviewerStanding("0xa", True, 1.0, 0.5, 1, 0.5)]
    >>> scoring_inputs_digest(Subject("a"), **kw)[1] == score_subject(Subject("a"), **kw).inputs_digest
    True
    """
    inputs = _inputs(subject, summaries, feedback, _params_dict(params), extra_components, reviewers)
    return inputs, inputs_digest(inputs, preserialised={"params": _canonical_params(params)})


def score_subject(
    subject: Subject,
    *,
    summaries: Sequence[ProviderSummary],
    feedback: FeedbackSummary | None,
    params: ScoringParams,
    extra_components: Mapping[str, Sequence[Component]] | None = None,
    reviewers: Sequence[ReviewerStanding] | None = None,
) -> TrustScoreRecord:
    """Score *subject* under *params* from its provider summaries and ERC-8004 feedback.

    Adapters other than the built-in ones take their (already normalised) components
    from *extra_components*; an adapter without any gets the HCS-25 "no output" treatment.
    The sybil-resistance adapter reads *reviewers* (the standings of the subject's ERC-8004
    reviewers, :func:`adapters.sybil.reviewer_standings`) and counts the independent,
    eligible providers among *summaries*; *feedback* is then expected to be the curated,
    standing-weighted summary (:func:`adapters.sybil.weighted_feedback`).

    >>> s = ProviderSummary("tp", 0.9, 0.1, 0.0, 0.8, 10, {"low": 8, "medium": 2})
    >>> rec = score_subject(Subject("a", "erc-8004"), summaries=[s], feedback=FeedbackSummary(88, 10),
    ...                     params=ScoringParams())
    >>> rec.trust_score, rec.composite.trust_confidence
    (56.39, 1.0)
    """
    summaries = list(summaries)
    extra = dict(extra_components or {})
    known = {spec.adapter_id for spec in params.adapters}
    unknown = sorted(set(extra) - known)
    if unknown:
        raise ValueError(
            f"extra_components names adapter {unknown[0]!r}, which the configuration does not have"
        )
    results: list[AdapterResult] = []
    ov_provenance: OutputVerificationProvenance | None = None
    for spec in params.adapters:
        if spec.adapter_id == OUTPUT_VERIFICATION and spec.adapter_id not in extra:
            result, ov_provenance = score_output_verification(
                summaries, params.output_verification, spec, subject.registry, subject.protocol
            )
        elif spec.adapter_id == ERC8004_FEEDBACK and spec.adapter_id not in extra:
            result = score_erc8004_feedback(
                feedback, subject.registry, params.erc8004_feedback, spec, subject.protocol
            )
        elif spec.adapter_id == SYBIL_RESISTANCE and spec.adapter_id not in extra:
            result = sybil_resistance_result(subject, summaries, reviewers, params=params, spec=spec)
        else:
            result = adapter_result(
                spec,
                extra.get(spec.adapter_id, ()),
                applicable=spec.applies_to(subject.registry, subject.protocol),
                stale_multiplier=params.stale_multiplier,
            )
        results.append(result)
    inputs = scoring_inputs(
        subject,
        summaries=summaries,
        feedback=feedback,
        params=params,
        extra_components=extra,
        reviewers=reviewers,
    )
    digest = inputs_digest(inputs, preserialised={"params": _canonical_params(params)})
    combined = composite(results)
    score, explanation = graph_outcome(params, combined.breakdown, combined.trust_score)
    if score != combined.trust_score:
        combined = replace(
            combined, trust_score=score, trust_scores={**combined.trust_scores, "total": score}
        )
    return TrustScoreRecord(
        subject=subject,
        composite=combined,
        explanation=explanation,
        reviewers=None if reviewers is None else reviewer_provenance(reviewers, params),
        results=tuple(results),
        output_verification=ov_provenance,
        inputs_digest=digest,
        inputs=inputs,
    )


def score_from_inputs(inputs: Mapping[str, Any]) -> TrustScoreRecord:
    """Recompute a score from stored :func:`scoring_inputs` (e.g. after a JSON round trip).

    The result carries the same inputs digest as the original record, which is how a
    third party checks that a published score matches its inputs.

    >>> s = ProviderSummary("tp", 0.9, 0.1, 0.0, 0.8, 10)
    >>> rec = score_subject(Subject("a"), summaries=[s], feedback=None, params=ScoringParams())
    >>> again = score_from_inputs(rec.inputs)
    >>> (again.trust_score, again.inputs_digest) == (rec.trust_score, rec.inputs_digest)
    True
    """
    try:
        subject = inputs["subject"]
        feedback = inputs["erc8004Feedback"]
        return score_subject(
            Subject(subject["subjectId"], subject.get("registry"), subject.get("protocol")),
            summaries=[
                ProviderSummary(
                    provider_id=s["providerId"],
                    allow_rate=s["allowRate"],
                    block_rate=s["blockRate"],
                    uncertain_rate=s.get("uncertainRate"),
                    avg_confidence=s["avgConfidence"],
                    total_checks=s["totalChecks"],
                    stake_distribution=s.get("stakeDistribution"),
                    excluded_reason=s.get("excludedReason"),
                    age_days=s.get("ageDays"),
                    accuracy_factor=s.get("accuracyFactor"),
                )
                for s in inputs["outputVerification"]
            ],
            feedback=None
            if feedback is None
            else FeedbackSummary(feedback["averageScore"], feedback["totalFeedbacks"]),
            params=ScoringParams.from_dict(inputs["params"]),
            extra_components={
                adapter_id: [
                    Component(c["key"], c["value"], c["status"], c.get("nonScorable", False)) for c in comps
                ]
                for adapter_id, comps in inputs.get("extraComponents", {}).items()
            },
            reviewers=None
            if inputs.get("reviewers") is None
            else [standing_from_input(r) for r in inputs["reviewers"]],
        )
    except (KeyError, TypeError, AttributeError) as exc:
        raise ValueError(f"scoring inputs are malformed: {exc!r}") from exc
