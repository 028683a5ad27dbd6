"""What a verification returns: signals, verdict and the Bayesian bookkeeping behind it."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum, StrEnum
from typing import Any

__all__ = ["Signal", "Tier", "Verdict", "VerificationResult", "explain", "new_result"]


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


def explain(verdict: Verdict, signals: dict[str, Signal], prior: float, posterior: float, tier: Tier) -> str:
    """Return the one-line explanation of a verification: verdict, prior -> posterior, fired signals.

    >>> explain(Verdict.ACCEPT, {}, 0.15, 0.05, Tier.TIER_1)
    'accept: P(hallucination) 0.15 -> 0.050; no signal fired'
    """
    fired = [f"{s.name} ({s.detail})" if s.detail else s.name for s in signals.values() if s.fired]
    head = f"{verdict.value}: P(hallucination) {prior:.2f} -> {posterior:.3f}"
    if tier is Tier.TIER_0 and verdict is Verdict.BLOCK:
        head += " (blocked at tier 0)"
    return head + ("; " + "; ".join(fired) if fired else "; no signal fired")


class _LazyResult(VerificationResult):
    """A :class:`VerificationResult` whose explanation is written on first access (most never are)."""

    @property  # type: ignore[override]
    def explanation(self) -> str:
        d = self.__dict__
        text = d.get("_explanation")
        if text is None:
            text = d["_explanation"] = explain(*d["_explain_args"])
        return str(text)

    @explanation.setter
    def explanation(self, value: str) -> None:  # used by the dataclass __init__ (dataclasses.replace)
        self.__dict__["_explanation"] = value


def new_result(
    verdict: Verdict,
    posterior: float,
    signals: dict[str, Signal],
    tier: Tier,
    prior: float,
    tool: str,
    block_threshold: float,
    extra: dict[str, Any],
) -> VerificationResult:
    """Build the engine's result without the frozen dataclass's per-field ``__setattr__`` calls.

    Equal in every attribute to ``VerificationResult(...)`` with ``explanation=explain(...)``; the
    explanation is built when first read.

    >>> r = new_result(Verdict.ACCEPT, 0.05, {}, Tier.TIER_1, 0.15, "t", 0.5, {})
    >>> r.explanation, r.to_dict()["confidence"]
    ('accept: P(hallucination) 0.15 -> 0.050; no signal fired', 0.05)
    """
    r = object.__new__(_LazyResult)
    r.__dict__.update(
        verdict=verdict,
        confidence=posterior,
        signals=signals,
        tier_reached=tier,
        prior=prior,
        posterior=posterior,
        tool=tool,
        block_threshold=block_threshold,
        extra=extra,
        _explain_args=(verdict, signals, prior, posterior, tier),
    )
    return r
