"""Log-odds Bayesian fusion of signals, exactly as the seed writes it."""

from __future__ import annotations

import math
from collections.abc import Iterable
from functools import lru_cache
from typing import Final

from verification.engine.tools.result import Signal, Verdict

__all__ = [
    "DECISIVE_LIKELIHOOD_RATIO",
    "DEFAULT_LIKELIHOOD_RATIOS",
    "DEFAULT_PRIOR",
    "absent_log",
    "add_evidence",
    "fuse",
    "prior_log_odds",
    "probability",
    "verdict_for",
]

#: The seed's likelihood ratios P(signal | fabricated) / P(signal | real).
DEFAULT_LIKELIHOOD_RATIOS: dict[str, float] = {
    "schema_mismatch": 12.0,
    "pattern_mismatch": 6.0,
    "latency_anomaly": 3.5,
    "length_anomaly": 2.0,
    "historical_inconsistency": 4.5,
    "session_inconsistency": 4.0,
    "spc_anomaly": 3.0,
    "value_plausibility": 3.0,
}

#: LR of decisive evidence: an observation a real result cannot produce (a network round trip under
#: 2 ms, a value that changed while the timestamp it depends on did not). The seed calls such cases
#: "near-certain fabrication", which its graded LRs (3.5 for latency) cannot express on their own.
DECISIVE_LIKELIHOOD_RATIO: Final = 40.0

DEFAULT_PRIOR: Final = 0.15

# Keeps the logit finite for priors of exactly 0 or 1.
_EPS: Final = 1e-9


@lru_cache(maxsize=256)
def absent_log(lr: float) -> float:
    """Return the log-odds an absent signal of likelihood ratio *lr* removes: ``log(max(0.1 LR, 1.01))``.

    >>> round(absent_log(12.0), 6), absent_log(3.0) == math.log(1.01)
    (0.182322, True)
    """
    return math.log(max(0.1 * lr, 1.01))


def fuse(prior: float, signals: Iterable[Signal]) -> float:
    """Return the posterior P(hallucination) after applying every signal to *prior*.

    A fired signal multiplies the odds by ``1 + (LR - 1) * score``; an absent one by
    ``1 / max(0.1 * LR, 1.01)``.

    >>> round(fuse(0.15, [Signal("schema_mismatch", True, 1.0, 12.0)]), 4)
    0.6792
    >>> round(fuse(0.15, [Signal("schema_mismatch", False, 0.0, 12.0)]), 4)
    0.1282
    """
    return probability(add_evidence(prior_log_odds(prior), signals))


def prior_log_odds(prior: float) -> float:
    """Return the log-odds of *prior* (clamped away from 0 and 1).

    >>> prior_log_odds(0.5)
    0.0
    """
    if not 0.0 <= prior <= 1.0:
        raise ValueError(f"prior must be in [0, 1], got {prior!r}")
    p = min(max(prior, _EPS), 1.0 - _EPS)
    return math.log(p / (1.0 - p))


def add_evidence(log_odds: float, signals: Iterable[Signal]) -> float:
    """Add the evidence of *signals* to *log_odds*, in order (so fusing in two steps is bit-identical).

    >>> add_evidence(0.0, [Signal("x", True, 1.0, 3.0)]) == math.log(3.0)
    True
    """
    for s in signals:
        if s.fired:
            log_odds += math.log(1.0 + (s.likelihood_ratio - 1.0) * min(max(s.score, 0.0), 1.0))
        else:
            log_odds -= absent_log(s.likelihood_ratio)
    return log_odds


def probability(log_odds: float) -> float:
    """Return the probability for *log_odds* (the logistic function, computed stably).

    >>> probability(0.0)
    0.5
    """
    if log_odds >= 0:
        return 1.0 / (1.0 + math.exp(-log_odds))
    e = math.exp(log_odds)
    return e / (1.0 + e)


def verdict_for(posterior: float, accept_below: float = 0.2, block_at: float = 0.5) -> Verdict:
    """Map a posterior to accept (< *accept_below*), flag, or block (>= *block_at*).

    >>> verdict_for(0.1).value, verdict_for(0.3).value, verdict_for(0.5).value
    ('accept', 'flag', 'block')
    """
    if posterior >= block_at:
        return Verdict.BLOCK
    if posterior >= accept_below:
        return Verdict.FLAG
    return Verdict.ACCEPT
