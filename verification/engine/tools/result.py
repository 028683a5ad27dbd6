"""What a verification returns: signals, verdict and the Bayesian bookkeeping behind it."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum, StrEnum
from typing import Any

__all__ = ["Signal", "Tier", "Verdict", "VerificationResult"]


class Verdict(StrEnum):
    """The engine's decision: accept < 0.2 <= flag < 0.5 <= block by default.

    >>> Verdict("block") is Verdict.BLOCK
    True
    """

    ACCEPT = "accept"
    FLAG = "flag"
    BLOCK = "block"


class Tier(IntEnum):
    """How far the pipeline ran: TIER_0 when the zero-cost checks already blocked.

    >>> int(Tier.TIER_1)
    1
    """

    TIER_0 = 0
    TIER_1 = 1


@dataclass(slots=True)  # not frozen: a frozen dataclass costs ~4 µs per instance, ten per verification
class Signal:
    """One piece of evidence.

    ``likelihood_ratio`` is the LR the signal carries when fully present; the fusion uses
    ``1 + (LR - 1) * score`` when it fired and ``1 / max(0.1 * LR, 1.01)`` when it did not.
    ``decisive`` marks evidence that a real result cannot produce (it then uses the decisive LR).

    >>> Signal("schema_mismatch", True, 1.0, 12.0, "missing 'price'").to_dict()["fired"]
    True
    """

    name: str
    fired: bool
    score: float
    likelihood_ratio: float
    detail: str = ""
    tier: int = 0
    decisive: bool = False

    def to_dict(self) -> dict[str, Any]:
        """Return the signal as JSON-compatible data.

        >>> Signal("x", False, 0.0, 2.0).to_dict()["likelihood_ratio"]
        2.0
        """
        return {
            "name": self.name,
            "fired": self.fired,
            "score": round(self.score, 6),
            "likelihood_ratio": self.likelihood_ratio,
            "detail": self.detail,
            "tier": self.tier,
            "decisive": self.decisive,
        }


@dataclass(frozen=True)
class VerificationResult:
    """The outcome of :meth:`ToolVerifier.verify`.

    ``confidence`` is P(hallucination), equal to ``posterior`` (the seed's naming).

    >>> r = VerificationResult(Verdict.ACCEPT, 0.1, {}, Tier.TIER_1, "ok", 0.15, 0.1)
    >>> r.is_hallucinated, r.to_dict()["verdict"]
    (False, 'accept')
    """

    verdict: Verdict
    confidence: float
    signals: dict[str, Signal]
    tier_reached: Tier
    explanation: str
    prior: float
    posterior: float
    tool: str = ""
    block_threshold: float = 0.5
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def is_hallucinated(self) -> bool:
        """True when the verdict is block (the seed's backward-compatible flag).

        >>> VerificationResult(Verdict.FLAG, 0.3, {}, Tier.TIER_1, "", 0.15, 0.3).is_hallucinated
        False
        """
        return self.verdict is Verdict.BLOCK

    def to_dict(self) -> dict[str, Any]:
        """Return the result as JSON-compatible data (for REST responses and logs).

        >>> VerificationResult(Verdict.BLOCK, 0.9, {}, Tier.TIER_0, "x", 0.15, 0.9).to_dict()["tier_reached"]
        0
        """
        return {
            "tool": self.tool,
            "verdict": self.verdict.value,
            "confidence": round(self.confidence, 6),
            "signals": {k: s.to_dict() for k, s in self.signals.items()},
            "tier_reached": int(self.tier_reached),
            "explanation": self.explanation,
            "prior": round(self.prior, 6),
            "posterior": round(self.posterior, 6),
            "is_hallucinated": self.is_hallucinated,
            "block_threshold": round(self.block_threshold, 6),
        }
