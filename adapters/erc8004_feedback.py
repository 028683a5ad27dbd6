"""The erc8004-feedback adapter (SPEC 2.2): on-chain ERC-8004 feedback as rating and volume.

Input is the agent's feedback already reduced to an average 0-100 rating and a count
(only feedback whose tag1 is the configured rating tag, revoked feedback excluded)::

    rating = clamp(averageScore);  volume = 100 · clamp(min(20, log10(n + 1) · 10) / 20, 0, 1)
    total  = mean(rating, volume)

Scoped to subjects of the ``erc-8004`` registry by default; an applicable subject with
no feedback contributes the default component ``erc8004-feedback.score`` = 0, missing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from adapters.core import AdapterResult, Component, adapter_result
from adapters.numbers import clamp, log10, round_half_up
from adapters.params import AdapterSpec, Erc8004FeedbackParams

__all__ = ["FeedbackSummary", "feedback_volume", "score_erc8004_feedback"]

RATING_KEY = "erc8004-feedback.rating"
VOLUME_KEY = "erc8004-feedback.volume"


@dataclass(frozen=True)
class FeedbackSummary:
    """An agent's ERC-8004 feedback reduced to its average rating (0-100) and count.

    >>> FeedbackSummary(88, 10).total_feedbacks
    10
    """

    average_score: float
    total_feedbacks: int

    def __post_init__(self) -> None:
        score = self.average_score
        if isinstance(score, bool) or not isinstance(score, int | float) or not math.isfinite(score):
            raise ValueError(f"FeedbackSummary.average_score must be a finite number, got {score!r}")
        count = self.total_feedbacks
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise ValueError(f"FeedbackSummary.total_feedbacks must be an integer >= 0, got {count!r}")


def feedback_volume(total_feedbacks: int, params: Erc8004FeedbackParams) -> float:
    """Return the unrounded log-scaled volume of *total_feedbacks* feedbacks.

    >>> round(feedback_volume(10, Erc8004FeedbackParams()), 4)
    52.0696
    >>> feedback_volume(100, Erc8004FeedbackParams())
    100.0
    """
    raw = min(params.volume_cap, log10(float(total_feedbacks) + 1.0) * params.volume_scale)
    return 100.0 * clamp(raw / params.volume_cap, 0.0, 1.0)


def score_erc8004_feedback(
    summary: FeedbackSummary | None,
    registry: str | None,
    params: Erc8004FeedbackParams,
    spec: AdapterSpec,
    protocol: str | None = None,
) -> AdapterResult:
    """Score the erc8004-feedback adapter of one subject.

    A summary with zero feedbacks counts as no feedback (there is nothing to rate).

    >>> spec = AdapterSpec("erc8004-feedback", "scoped", include_registries=("erc-8004",))
    >>> score_erc8004_feedback(FeedbackSummary(88, 10), "erc-8004", Erc8004FeedbackParams(), spec).total
    70.04
    >>> score_erc8004_feedback(None, "erc-8004", Erc8004FeedbackParams(), spec).components[0].key
    'erc8004-feedback.score'
    """
    if not spec.applies_to(registry, protocol):
        return adapter_result(spec, (), applicable=False)
    if summary is None or summary.total_feedbacks == 0:
        return adapter_result(spec, ())
    rating = round_half_up(clamp(float(summary.average_score)))
    volume = round_half_up(clamp(feedback_volume(summary.total_feedbacks, params)))
    return adapter_result(spec, (Component(RATING_KEY, rating, "ok"), Component(VOLUME_KEY, volume, "ok")))
