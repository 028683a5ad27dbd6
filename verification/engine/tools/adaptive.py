"""Per-tool adaptation from labelled feedback: an EMA hallucination rate that moves prior and threshold.

The seed keeps an exponential moving average of each tool's hallucination rate and lowers the tool's
block threshold (and raises its prior) when the rate is high. Feedback is rarely a random sample,
though: people report bad results far more often than good ones, so the raw rate overshoots. We
therefore also keep an EMA of the confidence the engine gave the same calls. Under label-driven
selection both EMAs are inflated alike, so their gap measures what the engine is missing (or
over-calling) for the tool, and only that gap moves the prior and the threshold, shrunk towards the
defaults while feedback is scarce.
"""

from __future__ import annotations

import math

from verification.engine.tools.state import FeedbackState

__all__ = ["adapted_prior", "adapted_threshold", "new_feedback_state", "record"]

_SHRINK = 20.0
_PRIOR_BOUNDS = (0.01, 0.6)
# The threshold moves at most this far from its configured value.
_THRESHOLD_SWING = 0.2


def _logit(p: float) -> float:
    p = min(max(p, 1e-6), 1.0 - 1e-6)
    return math.log(p / (1.0 - p))


def new_feedback_state(prior: float) -> FeedbackState:
    """Return the state of a tool with no feedback yet.

    >>> new_feedback_state(0.15)
    {'n': 0, 'rate': 0.15, 'conf': 0.15, 'hallucinations': 0}
    """
    return {"n": 0, "rate": prior, "conf": prior, "hallucinations": 0}


def record(
    state: FeedbackState, confidence_score: float, was_hallucination: bool, alpha: float = 0.1
) -> FeedbackState:
    """Fold one labelled call into the EMAs (mutates and returns *state*).

    >>> s = record(new_feedback_state(0.15), 0.2, True)
    >>> round(s["rate"], 3), round(s["conf"], 3)
    (0.235, 0.155)
    """
    if not 0.0 <= confidence_score <= 1.0 or math.isnan(confidence_score):
        raise ValueError(f"confidence_score must be in [0, 1], got {confidence_score!r}")
    if not 0.0 < alpha <= 1.0:
        raise ValueError(f"alpha must be in (0, 1], got {alpha!r}")
    label = 1.0 if was_hallucination else 0.0
    state["rate"] = (1.0 - alpha) * state["rate"] + alpha * label
    state["conf"] = (1.0 - alpha) * state["conf"] + alpha * confidence_score
    state["n"] += 1
    state["hallucinations"] += int(was_hallucination)
    return state


def adapted_prior(state: FeedbackState | None, base_prior: float) -> float:
    """Return the tool's prior: the base prior shifted by the (shrunk) missed-hallucination gap.

    >>> adapted_prior(None, 0.15)
    0.15
    >>> s = new_feedback_state(0.15)
    >>> for _ in range(50): s = record(s, 0.1, True)
    >>> adapted_prior(s, 0.15) > 0.15
    True
    """
    if state is None or state["n"] == 0:
        return base_prior
    w = state["n"] / (state["n"] + _SHRINK)
    z = _logit(base_prior) + w * (_logit(state["rate"]) - _logit(state["conf"]))
    p = 1.0 / (1.0 + math.exp(-z))
    return min(max(p, _PRIOR_BOUNDS[0]), _PRIOR_BOUNDS[1])


def adapted_threshold(state: FeedbackState | None, base_threshold: float) -> float:
    """Return the tool's block threshold: lower when the engine misses hallucinations, higher otherwise.

    >>> adapted_threshold(None, 0.5)
    0.5
    >>> s = new_feedback_state(0.15)
    >>> for _ in range(50): s = record(s, 0.1, True)
    >>> adapted_threshold(s, 0.5) < 0.5
    True
    """
    if state is None or state["n"] == 0:
        return base_threshold
    w = state["n"] / (state["n"] + _SHRINK)
    t = base_threshold - 0.5 * w * (state["rate"] - state["conf"])
    return min(max(t, base_threshold - _THRESHOLD_SWING), base_threshold + _THRESHOLD_SWING)
